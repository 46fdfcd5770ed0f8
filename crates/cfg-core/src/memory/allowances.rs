//! What only vLLM's profiling run measures: the activation peak, non-torch
//! memory and the CUDA-graph pool. Each is a formula whose constants were fitted
//! on real start-up logs (`tests/memory-logs/`, the "fit" entries: Llama-3.1-8B
//! and Qwen2.5-7B on H100, vLLM 0.19, TP 1-4 and PP 2-4, and Qwen3-30B-A3B and
//! Mixtral-8x7B for mixtures of experts) and checked on the rest.

use super::GIB;
use crate::resolve::{Arch, Batch};

/// The profiling run's peak (vLLM 0.33 `profile_run`, `v1/worker/gpu/model_runner.py`):
/// the forward pass over `max_num_batched_tokens` tokens, then, on the last
/// pipeline stage, the sampler over `min(max_num_batched_tokens, max_num_seqs)`
/// rows of logits, twice. The two happen one after the other, so the peak is the
/// larger, not the sum: the logs show it (Qwen2.5-7B's 2.21 GiB is the same at TP
/// 1, 2 and 4, the sampler's; Llama-3.1-8B's first stage of two, with no sampler,
/// peaks at 1.10 GiB, its forward pass, and at 2.21 GiB in float32).
///
/// - sampler: rows x (vocab x 14.87 + hidden x 18.2) bytes: 3.7 fp32 copies of
///   the logits (fitted: Llama-3.1-8B 1.89 GiB, Qwen2.5-7B 2.21 GiB; predicts
///   Llama-3.3-70B 1.96 against 1.97 logged, gpt-oss-20b 2.90 against 2.87);
/// - forward, per batched token: 12 bytes x hidden plus 6 bytes per dense MLP
///   unit (gate, up and their product, 16-bit), doubled for float32; for a
///   mixture of experts, instead of the MLP, 92 KiB plus 1.77 KiB per expert
///   (the fused-MoE workspaces grow with the expert count: fitted on
///   Qwen3-30B-A3B's 2.68 GiB with 128 experts and Mixtral's 1.21 GiB with 8;
///   DeepSeek-V2-Lite's 64 experts predict 1.82 GiB against 1.93 logged). No
///   log with a large MoE (DeepSeek-V3, 256 experts) was found to check it on.
pub fn activation_bytes(arch: &Arch, batch: &Batch, last_stage: bool, act_bytes: f64) -> Option<f64> {
    let hidden = f64::from(arch.hidden_size?);
    let vocab = f64::from(arch.vocab_size?);
    let tokens = f64::from(batch.max_num_batched_tokens);
    let rows = f64::from(batch.max_num_batched_tokens.min(batch.max_num_seqs));
    let mlp = match arch.num_experts {
        Some(experts) => (92.0 + 1.77 * f64::from(experts)) * 1024.0,
        None => 6.0 * f64::from(arch.intermediate_size.unwrap_or(arch.hidden_size? * 4)),
    };
    let forward = tokens * (12.0 * hidden + mlp) * act_bytes / 2.0;
    let sampler = if last_stage { rows * (vocab * 14.87 + hidden * 18.2) } else { 0.0 };
    Some(forward.max(sampler))
}

/// Memory outside PyTorch's allocator that grows during start-up (NCCL and
/// cuBLAS workspaces), per GPU, as vLLM 0.19 logs it: 0.25 GiB on one GPU, 0.07
/// on a pipeline stage without tensor parallelism, 2.1 GiB with tensor
/// parallelism 2-4 (NCCL's buffers), about 7 GiB at 8 (H200 logs, per the audit).
pub fn non_torch_bytes(tp: u32, pp: u32) -> f64 {
    GIB * match (tp, pp) {
        (1, 1) => 0.25,
        (1, _) => 0.07,
        (2..=4, _) => 2.1,
        _ => 7.0,
    }
}

/// The CUDA-graph pool: none with enforce_eager; otherwise 0.38 GiB plus 0.0167
/// GiB per layer on the GPU (fitted on the graph sizes 0.19 logs: 0.51 GiB for
/// 8 layers, 0.91 for 32, 1.66 for 80), twice that for gpt-oss, which captures
/// batches up to 1024 instead of 512. vLLM 0.33 measures it before sizing the KV
/// cache and takes it from the budget (`VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`,
/// on by default since 0.21).
pub fn cuda_graph_bytes(arch: &Arch, layers_here: u32, enforce_eager: bool) -> f64 {
    if enforce_eager {
        return 0.0;
    }
    let pool = 0.38 + 0.0167 * f64::from(layers_here);
    let doubled = arch.model_type.as_deref() == Some("gpt_oss");
    GIB * if doubled { 2.0 * pool } else { pool }
}
