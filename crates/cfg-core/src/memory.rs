//! Per-GPU memory model of a vLLM 0.33 instance, after §3 of the reference:
//! budget = total x gpu_memory_utilization; from it come the weights, the
//! peak activations of the profiling run, non-torch allocations and the
//! CUDA-graph pool; what is left is KV cache, in blocks of 16 tokens.
//!
//! Weights and KV bytes are exact arithmetic. Activations, non-torch memory
//! and CUDA graphs are only known after vLLM's profiling run, so they are
//! documented allowances (see [`Allowances`]), calibrated against llm-d's
//! measurements on vLLM 0.19 / H100 where they exist.

use serde::Serialize;

use crate::model::{KvCacheDtype, Quantization, ServerConfig};
use crate::resolve::{self, Arch, Batch, Gpu, ResolvedDtype};

pub const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
/// vLLM's default KV block size on CUDA.
pub const BLOCK_SIZE: u64 = 16;

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
    pub gpu_total_bytes: f64,
    pub gpu_memory_utilization: f64,
    /// total x utilization: everything this instance may allocate on the GPU.
    pub budget_bytes: f64,
    pub weights_bytes: f64,
    pub activation_bytes: f64,
    pub non_torch_bytes: f64,
    pub cuda_graph_bytes: f64,
    /// Budget left for the KV cache (may be negative: nothing fits).
    pub kv_cache_bytes: f64,
    /// Memory above the budget (left for other processes and the CUDA context).
    pub unused_bytes: f64,
    pub kv_bytes_per_token: f64,
    pub num_gpu_blocks: u64,
    /// vLLM's "GPU KV cache size: N tokens".
    pub kv_capacity_tokens: u64,
    /// vLLM's "Maximum concurrency for max_model_len tokens per request: X".
    pub max_concurrency: f64,
    pub max_model_len: u32,
    /// KV bytes one request of max_model_len needs.
    pub max_len_request_bytes: f64,
    /// Largest max_model_len whose KV would fit (vLLM's suggestion), 0 if none.
    pub largest_fitting_max_model_len: u64,
    /// The model's own longest context (its config.json), when known: a
    /// max_model_len above it is refused whatever the memory.
    pub model_max_len: Option<u32>,
    pub dtype: &'static str,
    pub kv_cache_dtype: String,
    pub weight_bytes_per_param: f64,
    pub tensor_parallel_size: u32,
    pub pipeline_parallel_size: u32,
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

    pub fn fits(&self) -> bool {
        self.kv_cache_bytes > 0.0
            && self.num_gpu_blocks > 0
            && self.largest_fitting_max_model_len >= u64::from(self.max_model_len)
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

/// The documented allowances for what only vLLM's profiling run measures.
struct Allowances;

impl Allowances {
    /// Peak activation of the profiling run (one step of max_num_batched_tokens
    /// tokens over min(max_num_batched_tokens, max_num_seqs) requests): hidden
    /// states and MLP intermediates for every batched token, plus fp32 logits
    /// and sampler probabilities for every request, plus 256 MiB of workspace.
    /// Gives 2.1 GiB for Llama-3.1-8B at H100 defaults (llm-d measured 1.89).
    pub fn activation_bytes(arch: &Arch, batch: &Batch, tp: u32, act_bytes: f64) -> Option<f64> {
        let hidden = f64::from(arch.hidden_size?);
        let inter = f64::from(arch.intermediate_size.unwrap_or(arch.hidden_size? * 4));
        let vocab = f64::from(arch.vocab_size?);
        let tokens = f64::from(batch.max_num_batched_tokens);
        let reqs = f64::from(batch.max_num_batched_tokens.min(batch.max_num_seqs));
        let per_token = (4.0 * hidden + 3.0 * inter / f64::from(tp)) * act_bytes;
        Some(tokens * per_token + reqs * vocab * 4.0 * 2.0 + 0.25 * GIB)
    }

    /// Non-torch memory (NCCL buffers, cuBLAS workspaces) growing during start-up,
    /// per GPU, as llm-d measured it: 0.27 GiB alone, 0.07 GiB with pipeline
    /// parallelism only, 2.10 GiB once tensor parallelism brings in NCCL.
    pub fn non_torch_bytes(tp: u32, pp: u32) -> f64 {
        GIB * match (tp, pp) {
            (1, 1) => 0.27,
            (1, _) => 0.07,
            _ => 2.10,
        }
    }

    /// CUDA-graph pool: none with enforce_eager; otherwise 0.2 GiB plus up to
    /// 0.6 GiB scaling with the largest captured batch (vLLM captures up to
    /// min(2 x max_num_seqs, 512), capped at max_num_batched_tokens). An
    /// estimate: vLLM only knows it after capture.
    pub fn cuda_graph_bytes(batch: &Batch, enforce_eager: bool) -> f64 {
        if enforce_eager {
            return 0.0;
        }
        let capture = (2 * batch.max_num_seqs).min(512).min(batch.max_num_batched_tokens);
        GIB * (0.2 + 0.6 * f64::from(capture) / 512.0)
    }
}

/// Bytes per parameter of the weights as stored on the GPU.
pub fn weight_bytes_per_param(config: &ServerConfig, arch: &Arch, dtype: ResolvedDtype) -> f64 {
    let method = config.model.quantization.map(|q| q.as_str().to_string()).or_else(|| arch.quant_method.clone());
    match method.as_deref() {
        None => dtype.bytes(),
        Some(m) => quantized_bytes_per_param(m).unwrap_or(dtype.bytes()),
    }
}

/// 4-bit methods store ~0.5 B/param plus group scales and the unquantized
/// embeddings and head: 0.55 B/param in practice. 8-bit methods: 1.0.
fn quantized_bytes_per_param(method: &str) -> Option<f64> {
    let four_bit = [
        "awq",
        "auto_awq",
        "awq_marlin",
        "gptq",
        "auto_gptq",
        "gptq_marlin",
        "modelopt_fp4",
        "nvfp4_per_token",
        "mxfp4",
        "gpt_oss_mxfp4",
        "moe_wna16",
        "inc",
        "humming",
        "fp_quant",
        "modelopt_mixed",
    ];
    let eight_bit = [
        "fp8",
        "fbgemm_fp8",
        "modelopt",
        "modelopt_mxfp8",
        "mxfp8",
        "fp8_per_tensor",
        "fp8_per_block",
        "fp8_per_channel",
        "deepseek_v4_fp8",
        "experts_int8",
        "int8_per_channel_weight_only",
        "compressed-tensors",
        "quark",
        "online",
        "torchao",
    ];
    if four_bit.contains(&method) {
        Some(0.55)
    } else if eight_bit.contains(&method) {
        Some(1.0)
    } else {
        None
    }
}

/// KV-cache bytes per token for one layer on one GPU (§3.3).
fn kv_bytes_per_token_per_layer(
    arch: &Arch,
    tp: u32,
    kv_dtype: Option<KvCacheDtype>,
    model_dtype: ResolvedDtype,
) -> Result<f64, Missing> {
    let elem = kv_dtype.and_then(KvCacheDtype::bytes).unwrap_or(model_dtype.bytes());
    if let Some(rank) = arch.kv_lora_rank {
        return Ok(match kv_dtype {
            Some(KvCacheDtype::Fp8DsMla) => 656.0,
            Some(KvCacheDtype::Nvfp4DsMla) => 352.0,
            _ => f64::from(rank + arch.qk_rope_head_dim.unwrap_or(64)) * elem,
        });
    }
    let kv_heads = arch.kv_heads().ok_or(Missing::Architecture("num_key_value_heads"))?;
    let head_dim = arch.head_dim().ok_or(Missing::Architecture("head_dim"))?;
    let per_rank = (kv_heads / tp.max(1)).max(1);
    Ok(2.0 * f64::from(per_rank) * f64::from(head_dim) * elem)
}

/// Computes the per-GPU breakdown, or says which input is missing.
pub fn estimate(config: &ServerConfig) -> Result<MemoryReport, Missing> {
    let gpu = resolve::gpu(config).ok_or(Missing::Gpu)?;
    let arch = resolve::arch(config);
    estimate_with(config, &gpu, &arch)
}

pub fn estimate_with(config: &ServerConfig, gpu: &Gpu, arch: &Arch) -> Result<MemoryReport, Missing> {
    let tp = config.tensor_parallel_size().max(1);
    let pp = config.pipeline_parallel_size().max(1);
    let dtype = resolve::dtype(config, arch, Some(gpu));
    let batch = resolve::batch(config, arch, Some(gpu));
    let params = arch.num_parameters.ok_or(Missing::Architecture("num_parameters"))? as f64;
    let layers = arch.num_hidden_layers.ok_or(Missing::Architecture("num_hidden_layers"))?;
    arch.vocab_size.ok_or(Missing::Architecture("vocab_size"))?;
    arch.hidden_size.ok_or(Missing::Architecture("hidden_size"))?;

    let total = gpu.memory_gib * GIB;
    if !(total.is_finite() && total > 0.0) {
        return Err(Missing::Value("memory_gib"));
    }
    let util = config.gpu_memory_utilization();
    if !(util.is_finite() && util > 0.0 && util <= 1.0) {
        return Err(Missing::Value("gpu_memory_utilization"));
    }
    let budget = (total * util).ceil();
    let bpp = weight_bytes_per_param(config, arch, dtype);
    let weights = params * bpp / (f64::from(tp) * f64::from(pp));
    let activation =
        Allowances::activation_bytes(arch, &batch, tp, dtype.bytes()).ok_or(Missing::Architecture("hidden_size"))?;
    let non_torch = Allowances::non_torch_bytes(tp, pp);
    let graphs = Allowances::cuda_graph_bytes(&batch, config.enforce_eager());
    let kv = budget - weights - activation - non_torch - graphs;

    let layers_here = layers.div_ceil(pp);
    let per_token =
        kv_bytes_per_token_per_layer(arch, tp, config.model.kv_cache_dtype, dtype)? * f64::from(layers_here);
    let block_bytes = per_token * BLOCK_SIZE as f64;
    // One block per worker is held back as the null block.
    let blocks = if kv > 0.0 && block_bytes > 0.0 { ((kv / block_bytes).floor() as u64).saturating_sub(1) } else { 0 };
    let capacity = blocks.saturating_mul(BLOCK_SIZE);
    let mml = batch.max_model_len;
    // A request holds at least one block, even with a (schema-invalid) max_model_len of 0.
    let blocks_per_request = u64::from(mml).div_ceil(BLOCK_SIZE).max(1);
    Ok(MemoryReport {
        gpu: gpu.name.clone(),
        gpu_total_bytes: total,
        gpu_memory_utilization: util,
        budget_bytes: budget,
        weights_bytes: weights,
        activation_bytes: activation,
        non_torch_bytes: non_torch,
        cuda_graph_bytes: graphs,
        kv_cache_bytes: kv,
        unused_bytes: total - budget,
        kv_bytes_per_token: per_token,
        num_gpu_blocks: blocks,
        kv_capacity_tokens: capacity,
        max_concurrency: blocks as f64 / blocks_per_request as f64,
        max_model_len: mml,
        max_len_request_bytes: blocks_per_request as f64 * block_bytes,
        largest_fitting_max_model_len: capacity,
        model_max_len: arch.max_position_embeddings,
        dtype: dtype.as_str(),
        kv_cache_dtype: config
            .model
            .kv_cache_dtype
            .map_or_else(|| format!("auto ({})", dtype.as_str()), |k| k.as_str().to_string()),
        weight_bytes_per_param: bpp,
        tensor_parallel_size: tp,
        pipeline_parallel_size: pp,
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
    //! arithmetic is in the comments) for three models of different shapes.
    use super::*;

    fn config(text: &str) -> ServerConfig {
        toml::from_str(text).unwrap()
    }

    fn close(actual: f64, expected: f64) {
        assert!((actual - expected).abs() < 1.0, "{actual} != {expected}");
    }

    #[test]
    fn llama_8b_bf16_on_one_h100() {
        let r = estimate(&config(
            "[model]\nname = \"meta-llama/Llama-3.1-8B-Instruct\"\nmax_model_len = 8192\ngpu_memory_utilization = 0.9\n\
             [batching]\nmax_num_seqs = 256\nmax_num_batched_tokens = 8192\n[hardware]\ngpu = \"H100-80GB\"\n",
        ))
        .unwrap();
        close(r.budget_bytes, 77_309_411_328.0); // ceil(80 GiB x 0.9)
        close(r.weights_bytes, 16_060_522_496.0); // 8,030,261,248 params x 2 B
        // 8192 x (4x4096 + 3x14336) x 2 B + 256 x 128256 x 8 B + 0.25 GiB
        close(r.activation_bytes, 1_504_182_272.0);
        close(r.cuda_graph_bytes, 0.8 * GIB); // capture min(2x256, 512) = 512
        assert_eq!(r.kv_bytes_per_token, 131_072.0); // 32 layers x 2 x 8 heads x 128 x 2 B
        // (77,309,411,328 - 16,060,522,496 - 1,504,182,272 - 0.27 GiB - 0.8 GiB) / (16 x 131,072) - 1
        assert_eq!(r.num_gpu_blocks, 27_939);
        assert_eq!(r.kv_capacity_tokens, 447_024);
        assert!((r.max_concurrency - 54.568).abs() < 0.01); // 27,939 / (8192 / 16)
        assert!(r.fits());
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
        // 8192 x (4x8192 + 3x28672/4) x 2 B + 256 x 128256 x 8 B + 0.25 GiB
        close(r.activation_bytes, 1_420_296_192.0);
        close(r.non_torch_bytes, 2.10 * GIB); // NCCL with tensor parallelism
        assert_eq!(r.kv_bytes_per_token, 81_920.0); // 80 layers x 2 x (8/4) heads x 128 x 2 B
        assert_eq!(r.num_gpu_blocks, 28_608);
        assert!((r.max_concurrency - 13.969).abs() < 0.01); // 28,608 / 2048 blocks
        // The same model on one GPU does not fit at all.
        let one = estimate(&config(
            "[model]\nname = \"meta-llama/Llama-3.1-70B-Instruct\"\n[hardware]\ngpu = \"H100-80GB\"\n",
        ))
        .unwrap();
        assert!(!one.fits() && one.weights_bytes > one.gpu_total_bytes);
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
        close(r.weights_bytes, 83_878_302_400.0); // 671,026,419,200 x 1 B / 8
        // MLA: (kv_lora_rank 512 + rope 64) x 2 B per layer, not divided by TP, x 61 layers
        assert_eq!(r.kv_bytes_per_token, 70_272.0);
        assert_eq!(r.num_gpu_blocks, 43_316);
        assert_eq!(r.kv_capacity_tokens, 693_056);
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
            Err(Missing::Architecture("num_parameters"))
        );
    }
}
