//! Does the model fit: the per-GPU memory model of `crate::memory` against
//! vLLM's own start-up errors.

pub mod gpu_memory_utilization_too_high;
pub mod kv_cache_capacity;
pub mod kv_cache_preemption_risk;
pub mod max_model_len_does_not_fit;
pub mod memory_not_checked;
pub mod model_does_not_fit;

use crate::memory::{MemoryReport, gib};

/// "weights 14.96 GiB + activations 2.10 GiB + ..." for messages; a KV cache
/// below zero is shown as what is missing.
pub(crate) fn breakdown(r: &MemoryReport) -> String {
    let kv = if r.kv_cache_bytes < 0.0 {
        format!("nothing left for the KV cache ({} short)", gib(-r.kv_cache_bytes))
    } else {
        format!("KV cache {}", gib(r.kv_cache_bytes))
    };
    format!(
        "budget {} ({:.0}% of {}) = weights {} + activations {} + non-torch {} + CUDA graphs {} + {kv}",
        gib(r.budget_bytes),
        r.gpu_memory_utilization * 100.0,
        gib(r.gpu_total_bytes),
        gib(r.weights_bytes),
        gib(r.activation_bytes),
        gib(r.non_torch_bytes),
        gib(r.cuda_graph_bytes),
    )
}
