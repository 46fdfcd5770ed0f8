use crate::diagnostic::Target;
use crate::memory::gib;
use crate::rules::ConfigContext;
use crate::rules::thousands;

declare_rule! {
    /// # KV-cache capacity and maximum concurrency
    ///
    /// **What:** the figures vLLM logs at start-up, predicted: `GPU KV cache
    /// size: N tokens, Maximum concurrency for max_model_len tokens per request:
    /// X` (`update_kv_cache_capacity` in `vllm/v1/core/kv_cache_utils.py`). The
    /// block count is floor(KV memory / bytes per block), with no block held
    /// back (`get_kv_cache_configs`, `vllm/v1/core/kv_cache_planning.py`); the
    /// tokens are int(blocks / blocks one request holds x max_model_len), which
    /// is blocks x 16 only for models whose every layer attends fully.
    ///
    /// **Why:** the KV capacity bounds how many requests run at once; knowing it
    /// before deploying tells whether `max_num_seqs` and the load test's
    /// concurrency are realistic.
    ///
    /// **Example:** Llama-3.1-8B on one H100-80GB at 0.90 gives about 443k
    /// tokens, 54 concurrent 8k-token requests.
    ///
    /// **Fix:** nothing to fix; this is information. `cfg-lint memory` prints
    /// the full breakdown.
    pub static RULE = { code: "CFG204", name: "kv-cache-capacity", severity: Info, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let Ok(r) = &d.memory else { return };
    // At 1.0 vLLM does not start at all (gpu-memory-utilization-too-high).
    if r.num_gpu_blocks == 0
        || r.largest_fitting_max_model_len < u64::from(r.max_model_len)
        || r.gpu_memory_utilization >= 1.0
    {
        return;
    }
    let pointer = if d.has("/model/gpu_memory_utilization") { "/model/gpu_memory_utilization" } else { "/model/name" };
    out.push(
        RULE.finding(
            format!(
                "predicted GPU KV cache size: {} tokens ({}), maximum concurrency for {} tokens per request: {:.2}x",
                thousands(r.kv_capacity_tokens),
                gib(r.kv_cache_bytes),
                r.max_model_len,
                r.max_concurrency
            ),
            Target::config(pointer),
        )
        .help("`cfg-lint memory` prints the per-GPU breakdown"),
    );
}
