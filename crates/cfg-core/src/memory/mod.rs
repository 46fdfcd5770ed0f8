//! Per-GPU memory model of a vLLM 0.33 instance (`v1/worker/gpu_worker.py`,
//! `determine_available_memory`): the budget is the device's reported total x
//! gpu_memory_utilization; from it come the weights, the peak activations of the
//! profiling run, non-torch allocations and (since 0.21) the CUDA-graph pool;
//! what is left is KV cache, laid out in blocks as [`kv`] describes.
//!
//! Weights and KV bytes are exact arithmetic (weights exact when the safetensors
//! index was found). Activations, non-torch memory and CUDA graphs are only known
//! after vLLM's profiling run, so they are formulas fitted on real start-up logs
//! ([`allowances`]); `tests/memory-logs/` replays 47 public logs through this
//! module and reports how close it comes.

mod allowances;
pub mod kv;
mod weights;

use serde::Serialize;

use crate::model::{Quantization, ServerConfig};
use crate::resolve::{self, Arch, Gpu};

pub use kv::BLOCK_SIZE;
pub use weights::{WeightSource, quantized_bytes_per_param};

pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// The vLLM release whose start-up is predicted: what changed between releases
/// in how memory is divided. The linter predicts [`Release::CURRENT`]; the log
/// replay uses the release each log came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    /// 0.x: the minor version.
    pub minor: u32,
}

impl Release {
    pub const CURRENT: Release = Release { minor: 33 };

    /// CUDA-graph memory is measured before the KV cache is sized and taken
    /// from the budget since 0.21 (`VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1`).
    pub fn subtracts_cuda_graphs(self) -> bool {
        self.minor >= 21
    }

    /// `CacheConfig.gpu_memory_utilization`'s default: 0.92 since 0.21, 0.9 before.
    pub fn default_utilization(self) -> f64 {
        if self.minor >= 21 { 0.92 } else { 0.9 }
    }
}

/// What is missing to compute the memory picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missing {
    /// No `[hardware] gpu` (or `memory_gib`).
    Gpu,
    /// An architecture field the formula needs, by its config.json name.
    Architecture(&'static str),
    /// A value the formula cannot use: not finite, or outside its range (the schema
    /// reports it; the estimate refuses rather than printing infinities).
    Value(&'static str),
}

/// The breakdown for one GPU, in bytes unless named otherwise.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryReport {
    pub gpu: String,
    /// What the device reports (an "80 GB" H100: 79.19 GiB).
    pub gpu_total_bytes: f64,
    pub gpu_memory_utilization: f64,
    /// ceil(total x utilization): everything this instance may allocate on the GPU.
    pub budget_bytes: f64,
    pub weights_bytes: f64,
    /// Whether the weights are the checkpoint's index or an estimate.
    pub weights_source: WeightSource,
    pub activation_bytes: f64,
    pub non_torch_bytes: f64,
    /// The CUDA-graph pool taken from the budget (0 with enforce_eager).
    pub cuda_graph_bytes: f64,
    /// Budget left for the KV cache (may be negative: nothing fits).
    pub kv_cache_bytes: f64,
    /// Memory above the budget (left for other processes and the CUDA context).
    pub unused_bytes: f64,
    /// KV bytes one token of context costs across the GPU's attention layers.
    pub kv_bytes_per_token: f64,
    /// Recurrent state one request holds across the GPU's linear-attention and
    /// Mamba layers (0 for a model without them).
    pub state_bytes_per_request: f64,
    /// Tokens per KV block (16, more for linear-attention hybrids).
    pub block_size: u64,
    /// Bytes of one block of the shared pool.
    pub bytes_per_block: f64,
    /// vLLM's block count: floor(KV bytes / bytes per block).
    pub num_gpu_blocks: u64,
    /// Blocks one request of max_model_len holds, over all layer groups.
    pub blocks_per_request: u64,
    /// vLLM's "GPU KV cache size: N tokens": int(blocks / blocks per request x max_model_len).
    pub kv_capacity_tokens: u64,
    /// vLLM's "Maximum concurrency for max_model_len tokens per request: X".
    pub max_concurrency: f64,
    pub max_model_len: u32,
    /// KV bytes one request of max_model_len needs.
    pub max_len_request_bytes: f64,
    /// Largest max_model_len whose KV would fit (vLLM's "estimated maximum model
    /// length"), 0 if none.
    pub largest_fitting_max_model_len: u64,
    /// The model's own longest context (its config.json), when known: a
    /// max_model_len above it is refused whatever the memory.
    pub model_max_len: Option<u32>,
    pub dtype: &'static str,
    pub kv_cache_dtype: String,
    pub weight_bytes_per_param: f64,
    pub tensor_parallel_size: u32,
    pub pipeline_parallel_size: u32,
    /// Where the architecture came from (a config.json path, or the catalog's copy).
    pub architecture_source: Option<String>,
}

impl MemoryReport {
    /// The largest max_model_len that can be set, and which limit binds: the
    /// KV cache's capacity or the model's own maximum.
    pub fn largest_max_model_len(&self) -> (u64, Limit) {
        match self.model_max_len.map(u64::from) {
            Some(model) if model <= self.largest_fitting_max_model_len => (model, Limit::Model),
            _ => (self.largest_fitting_max_model_len, Limit::KvCache),
        }
    }

    /// vLLM fails with "No available memory for the cache blocks" when the KV
    /// memory is at most one block (`_check_enough_kv_cache_memory`).
    pub fn no_cache_memory(&self) -> bool {
        self.kv_cache_bytes <= self.bytes_per_block
    }

    /// Whether vLLM starts: there is cache memory, and one request of
    /// max_model_len fits beside the null block.
    pub fn fits(&self) -> bool {
        !self.no_cache_memory() && self.max_len_request_bytes <= self.kv_cache_bytes - self.bytes_per_block
    }
}

/// What bounds max_model_len.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// The KV cache holds no longer request.
    KvCache,
    /// The model was trained for no longer context.
    Model,
}

/// Bytes per parameter of the weights as stored on the GPU (quantized layers at
/// their method's size; the report's weights figure also keeps embeddings 16-bit).
pub fn weight_bytes_per_param(config: &ServerConfig, arch: &Arch, dtype: resolve::ResolvedDtype) -> f64 {
    let (method, as_stored) = quantization_in_effect(config, arch);
    weights::quantized_param_bytes(arch, method.as_deref(), as_stored).unwrap_or(dtype.bytes())
}

/// The quantization method vLLM runs with (the config's resolved against the
/// checkpoint's own, `crate::vllm::quantization`), and whether the weights load
/// as the checkpoint stores them (no method, or the checkpoint's own) rather
/// than being quantized at load time. Where vLLM would refuse the pair, the
/// config's method (a rule reports the refusal).
pub(crate) fn quantization_in_effect(config: &ServerConfig, arch: &Arch) -> (Option<String>, bool) {
    match crate::vllm::quantization::resolve(config.model.quantization, arch) {
        Ok(Some(m)) => (Some(m.name), arch.quant_method.is_some()),
        Ok(None) => (None, true),
        Err(_) => {
            (config.model.quantization.map(|q| q.as_str().to_string()).or_else(|| arch.quant_method.clone()), false)
        }
    }
}

/// Computes the per-GPU breakdown, or says which input is missing.
pub fn estimate(config: &ServerConfig) -> Result<MemoryReport, Missing> {
    let gpu = resolve::gpu(config).ok_or(Missing::Gpu)?;
    let arch = resolve::arch(config);
    estimate_with(config, &gpu, &arch)
}

/// [`estimate_for`] vLLM 0.33.
pub fn estimate_with(config: &ServerConfig, gpu: &Gpu, arch: &Arch) -> Result<MemoryReport, Missing> {
    estimate_for(config, gpu, arch, Release::CURRENT)
}

/// The per-GPU breakdown as `release` of vLLM would make it. Pipeline stages
/// are taken as equal; the last one (which also samples) is reported, since the
/// stage with the least KV memory sets every stage's block count.
pub fn estimate_for(config: &ServerConfig, gpu: &Gpu, arch: &Arch, release: Release) -> Result<MemoryReport, Missing> {
    let tp = config.tensor_parallel_size().max(1);
    let pp = config.pipeline_parallel_size().max(1);
    let dtype = resolve::dtype(config, arch, Some(gpu));
    let batch = resolve::batch(config, arch, Some(gpu));
    let layers = arch.num_hidden_layers.ok_or(Missing::Architecture("num_hidden_layers"))?;
    arch.vocab_size.ok_or(Missing::Architecture("vocab_size"))?;
    arch.hidden_size.ok_or(Missing::Architecture("hidden_size"))?;

    let total = gpu.reported_gib * GIB;
    if !(total.is_finite() && total > 0.0) {
        return Err(Missing::Value("memory_gib"));
    }
    let util = config.model.gpu_memory_utilization.unwrap_or(release.default_utilization());
    if !(util.is_finite() && util > 0.0 && util <= 1.0) {
        return Err(Missing::Value("gpu_memory_utilization"));
    }
    let budget = (total * util).ceil();
    let (method, as_stored) = quantization_in_effect(config, arch);
    let (all_weights, weights_source) = weights::total_weight_bytes(arch, method.as_deref(), as_stored, dtype)
        .ok_or(Missing::Architecture("num_parameters"))?;
    let weights = all_weights / (f64::from(tp) * f64::from(pp));
    let activation =
        allowances::activation_bytes(arch, &batch, true, dtype.bytes()).ok_or(Missing::Architecture("hidden_size"))?;
    let non_torch = allowances::non_torch_bytes(tp, pp);
    let layers_here = layers.div_ceil(pp);
    let graphs = if release.subtracts_cuda_graphs() {
        allowances::cuda_graph_bytes(arch, layers_here, config.enforce_eager())
    } else {
        0.0
    };
    let kv = budget - weights - activation - non_torch - graphs;

    let layout = kv::layout(
        arch,
        layers_here,
        tp,
        resolve::kv_cache_dtype(config, arch),
        dtype,
        kv::Serving {
            max_num_batched_tokens: batch.max_num_batched_tokens,
            pipeline_parallel_size: pp,
            prefix_caching: true,
        },
    )
    .map_err(Missing::Architecture)?;
    // The null block is not taken off the count, only off the admission checks.
    let blocks = if kv > 0.0 { (kv / layout.bytes_per_block).floor() as u64 } else { 0 };
    let mut mml = batch.max_model_len;
    if batch.max_model_len_auto {
        // `_auto_fit_max_model_len`: the longest request the cache holds, at most
        // the model's own length (and the model's length when nothing fits, which
        // then fails as vLLM does).
        let fit = if kv > 0.0 { layout.longest_request(kv, u64::from(mml)) } else { 0 };
        if fit > 0 {
            mml = u32::try_from(fit).unwrap_or(mml).min(mml);
        }
    }
    let per_request = layout.blocks_per_request(u64::from(mml));
    let concurrency = blocks as f64 / per_request as f64;
    let model_max = arch.max_position_embeddings.map_or(u64::from(mml), u64::from).max(u64::from(mml));
    Ok(MemoryReport {
        gpu: gpu.name.clone(),
        gpu_total_bytes: total,
        gpu_memory_utilization: util,
        budget_bytes: budget,
        weights_bytes: weights,
        weights_source,
        activation_bytes: activation,
        non_torch_bytes: non_torch,
        cuda_graph_bytes: graphs,
        kv_cache_bytes: kv,
        unused_bytes: total - budget,
        kv_bytes_per_token: layout.bytes_per_token,
        state_bytes_per_request: layout.state_bytes_per_request,
        block_size: layout.block_size,
        bytes_per_block: layout.bytes_per_block,
        num_gpu_blocks: blocks,
        blocks_per_request: per_request,
        kv_capacity_tokens: (concurrency * f64::from(mml)) as u64,
        max_concurrency: concurrency,
        max_model_len: mml,
        max_len_request_bytes: per_request as f64 * layout.bytes_per_block,
        largest_fitting_max_model_len: if kv > 0.0 { layout.longest_request(kv, model_max.max(1 << 24)) } else { 0 },
        model_max_len: arch.max_position_embeddings,
        dtype: dtype.as_str(),
        kv_cache_dtype: match (config.model.kv_cache_dtype, resolve::kv_cache_dtype(config, arch)) {
            (Some(k), _) if k != crate::model::KvCacheDtype::Auto => k.as_str().to_string(),
            (_, Some(k)) => format!("auto ({}, the checkpoint's)", k.as_str()),
            _ => format!("auto ({})", dtype.as_str()),
        },
        weight_bytes_per_param: weight_bytes_per_param(config, arch, dtype),
        tensor_parallel_size: tp,
        pipeline_parallel_size: pp,
        architecture_source: arch.origin.clone(),
    })
}

/// How to reach a fitting tensor-parallel size: within the node's GPUs if
/// possible, else with how many GPUs it would take.
pub fn tensor_parallel_advice(config: &ServerConfig, gpu: &Gpu, arch: &Arch) -> Option<String> {
    let node = config.hardware.as_ref().and_then(|h| h.gpu_count);
    if let Some(tp) = smallest_fitting_tp(config, gpu, arch, node.unwrap_or(16)) {
        return Some(format!("set tensor_parallel_size = {tp}"));
    }
    let tp = smallest_fitting_tp(config, gpu, arch, 16)?;
    let n = tp * config.pipeline_parallel_size();
    Some(format!("use {n} GPUs with tensor_parallel_size = {tp} (this node has {})", node.unwrap_or(1)))
}

/// The smallest tensor-parallel size (dividing the attention heads, within the
/// GPUs available) at which the model fits with the same settings.
fn smallest_fitting_tp(config: &ServerConfig, gpu: &Gpu, arch: &Arch, max_gpus: u32) -> Option<u32> {
    let heads = arch.num_attention_heads?;
    [1u32, 2, 4, 8, 16]
        .into_iter()
        .filter(|&tp| {
            tp > config.tensor_parallel_size() && heads % tp == 0 && tp * config.pipeline_parallel_size() <= max_gpus
        })
        .find(|&tp| {
            let mut c = config.clone();
            c.parallel.get_or_insert_with(Default::default).tensor_parallel_size = Some(tp);
            estimate_with(&c, gpu, arch).is_ok_and(|r| r.fits())
        })
}

/// Whether any quantization is in effect (for fix suggestions).
pub fn is_quantized(config: &ServerConfig, arch: &Arch) -> bool {
    config.model.quantization.is_some() || arch.quant_method.is_some()
}

pub fn quantization_suggestion(gpu: &Gpu) -> Quantization {
    match gpu.capability_code() {
        Some(c) if c >= 89 => Quantization::Fp8,
        _ => Quantization::AwqMarlin,
    }
}

pub fn gib(bytes: f64) -> String {
    format!("{:.2} GiB", bytes / GIB)
}

#[cfg(test)]
mod tests {
    //! Expected figures computed by hand from the formulas above (the
    //! arithmetic is in the comments).
    use super::*;

    fn config(text: &str) -> ServerConfig {
        toml::from_str(text).unwrap()
    }

    fn close(actual: f64, expected: f64) {
        assert!((actual - expected).abs() < 1.0, "{actual} != {expected}");
    }

    const LLAMA_8B_H100: &str = "[model]\nname = \"meta-llama/Llama-3.1-8B-Instruct\"\nmax_model_len = 8192\n\
        gpu_memory_utilization = 0.9\n[batching]\nmax_num_seqs = 256\nmax_num_batched_tokens = 8192\n\
        [hardware]\ngpu = \"H100-80GB\"\n";

    #[test]
    fn llama_8b_bf16_on_one_h100() {
        let r = estimate(&config(LLAMA_8B_H100)).unwrap();
        close(r.budget_bytes, 76_526_653_539.0); // ceil(79.19 GiB reported x 0.9)
        close(r.weights_bytes, 16_060_522_496.0); // 8,030,261,248 params x 2 B
        assert_eq!(r.weights_source, WeightSource::Estimated);
        // forward 8192 x (12 x 4096 + 6 x 14336) beats the sampler's 256 x (128256 x 14.87 + 4096 x 18.2)
        close(r.activation_bytes, 1_107_296_256.0);
        close(r.cuda_graph_bytes, (0.38 + 0.0167 * 32.0) * GIB);
        assert_eq!(r.kv_bytes_per_token, 131_072.0); // 32 layers x 2 x 8 heads x 128 x 2 B
        assert_eq!(r.bytes_per_block, 2_097_152.0);
        // floor((budget - weights - activation - 0.25 GiB - graphs) / 2 MiB): no null block taken off
        assert_eq!(r.num_gpu_blocks, 27_708);
        assert_eq!((r.blocks_per_request, r.kv_capacity_tokens), (512, 443_328));
        assert!((r.max_concurrency - 54.117).abs() < 0.01); // 27,708 / 512
        assert_eq!(r.largest_fitting_max_model_len, 443_312); // (blocks - 1) x 16: the null block
        assert!(r.fits());
    }

    #[test]
    fn releases_before_0_21_keep_cuda_graphs_out_of_the_budget() {
        let c = config(LLAMA_8B_H100);
        let (gpu, arch) = (resolve::gpu(&c).unwrap(), resolve::arch(&c));
        let now = estimate_for(&c, &gpu, &arch, Release::CURRENT).unwrap();
        let then = estimate_for(&c, &gpu, &arch, Release { minor: 19 }).unwrap();
        assert_eq!(then.cuda_graph_bytes, 0.0);
        close(then.kv_cache_bytes - now.kv_cache_bytes, now.cuda_graph_bytes);
        let unset = config(&LLAMA_8B_H100.replace("gpu_memory_utilization = 0.9\n", ""));
        assert_eq!(estimate_for(&unset, &gpu, &arch, Release::CURRENT).unwrap().gpu_memory_utilization, 0.92);
        assert_eq!(estimate_for(&unset, &gpu, &arch, Release { minor: 19 }).unwrap().gpu_memory_utilization, 0.9);
    }

    #[test]
    fn llama_70b_bf16_over_four_h100() {
        let r = estimate(&config(
            "[model]\nname = \"meta-llama/Llama-3.1-70B-Instruct\"\nmax_model_len = 32768\ngpu_memory_utilization = 0.9\n\
             [batching]\nmax_num_seqs = 256\nmax_num_batched_tokens = 8192\n[parallel]\ntensor_parallel_size = 4\n\
             [hardware]\ngpu = \"H100-80GB\"\ngpu_count = 4\n",
        ))
        .unwrap();
        close(r.weights_bytes, 35_276_853_248.0); // 70,553,706,496 x 2 B / 4
        close(r.activation_bytes, 2_214_592_512.0); // 8192 x (12 x 8192 + 6 x 28672)
        close(r.non_torch_bytes, 2.1 * GIB); // NCCL with tensor parallelism
        assert_eq!(r.kv_bytes_per_token, 81_920.0); // 80 layers x 2 x (8/4) heads x 128 x 2 B
        assert_eq!(r.num_gpu_blocks, 26_655);
        assert!((r.max_concurrency - 13.015).abs() < 0.01); // 26,655 / 2048 blocks
        // The same model on one GPU does not fit at all.
        let one = estimate(&config(
            "[model]\nname = \"meta-llama/Llama-3.1-70B-Instruct\"\n[hardware]\ngpu = \"H100-80GB\"\n",
        ))
        .unwrap();
        assert!(!one.fits() && one.weights_bytes > one.gpu_total_bytes);
    }

    #[test]
    fn sliding_window_layers_hold_a_window_not_the_context() {
        // gpt-oss-20b: 12 sliding (window 128) and 12 full layers, two groups of 12.
        let r = estimate(&config(
            "[model]\nname = \"openai/gpt-oss-20b\"\nmax_model_len = 8192\n[batching]\nmax_num_batched_tokens = 8192\n\
             [hardware]\ngpu = \"H100-80GB\"\n",
        ))
        .unwrap();
        assert_eq!(r.bytes_per_block, 12.0 * 16.0 * 8.0 * 128.0 * 2.0); // 12 layers x 16 tokens x 8 heads x (64 + 64) x 2 B
        // full: 8192 / 16 = 512 blocks; sliding: cdiv(min(127 + 2 x 8192, 8192), 16) + 1 = 513
        assert_eq!(r.blocks_per_request, 1025);
        assert_eq!(r.kv_capacity_tokens, (r.num_gpu_blocks as f64 / 1025.0 * 8192.0) as u64);
        // gemma-3-27b: 10 full and 52 sliding (window 1024) layers: groups of 10, six sliding groups.
        let g = estimate(&config(
            "[model]\nname = \"google/gemma-3-27b-it\"\nmax_model_len = 8192\n[batching]\nmax_num_batched_tokens = 8192\n\
             [hardware]\ngpu = \"H200\"\n",
        ))
        .unwrap();
        assert_eq!(g.blocks_per_request, 512 + 6 * 513);
    }

    #[test]
    fn deepseek_v3_native_fp8_mla_over_eight_h200() {
        let r = estimate(&config(
            "[model]\nname = \"deepseek-ai/DeepSeek-V3\"\nmax_model_len = 32768\ngpu_memory_utilization = 0.9\n\
             [batching]\nmax_num_seqs = 128\nmax_num_batched_tokens = 8192\n[parallel]\ntensor_parallel_size = 8\n\
             [hardware]\ngpu = \"H200\"\ngpu_count = 8\n",
        ))
        .unwrap();
        assert_eq!(r.weight_bytes_per_param, 1.0); // the checkpoint ships fp8
        // (671,026,419,200 - 2 x 129,280 x 7168) x 1 B + 2 x 129,280 x 7168 x 2 B, over 8
        close(r.weights_bytes, 84_109_972_160.0);
        // MLA: (kv_lora_rank 512 + rope 64) x 2 B per layer, not divided by TP, x 61 layers
        assert_eq!(r.kv_bytes_per_token, 70_272.0);
    }

    #[test]
    fn fp8_kv_cache_halves_bytes_per_token() {
        let base = "[model]\nname = \"meta-llama/Llama-3.1-8B-Instruct\"\n[hardware]\ngpu = \"L4\"\n";
        let a = estimate(&config(base)).unwrap();
        let b = estimate(&config(&base.replace("[hardware]", "kv_cache_dtype = \"fp8\"\n[hardware]"))).unwrap();
        assert_eq!(a.kv_bytes_per_token, 2.0 * b.kv_bytes_per_token);
        assert_eq!(estimate(&config("[model]\nname = \"x\"\n")), Err(Missing::Gpu));
        assert_eq!(
            estimate(&config("[model]\nname = \"x\"\n[hardware]\ngpu = \"L4\"\n")),
            Err(Missing::Architecture("num_hidden_layers"))
        );
    }
}
