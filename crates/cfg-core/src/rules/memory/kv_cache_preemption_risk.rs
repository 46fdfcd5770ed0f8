use crate::diagnostic::Target;
use crate::rules::thousands;
use crate::rules::{ConfigContext, SettingsContext};

declare_rule! {
    /// # The KV cache cannot hold `max_num_seqs` typical requests
    ///
    /// **What:** with the load test's traffic mix, the average request needs
    /// more KV cache than `KV capacity / max_num_seqs`, so a full batch does not
    /// fit at once.
    ///
    /// **Why:** when the cache is full vLLM preempts running requests (frees
    /// their KV and recomputes later): throughput drops and tail latency jumps,
    /// and `max_num_seqs` never actually runs that many sequences.
    ///
    /// **Example:** `max_num_seqs = 256` on an L4 serving an 8B model whose KV
    /// cache holds ~40k tokens, with requests of ~2,000 tokens.
    ///
    /// **Fix:** lower `max_num_seqs` to what fits, use an fp8 KV cache, or give
    /// the instance more memory (bigger GPU, tensor parallelism).
    pub static RULE = { code: "CFG203", name: "kv-cache-preemption-risk", severity: Warning, pair }
}

fn check(d: &ConfigContext<'_>, s: &SettingsContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let settings = s.settings;
    let Ok(r) = &d.memory else { return };
    if r.kv_capacity_tokens == 0 || r.largest_fitting_max_model_len < u64::from(r.max_model_len) {
        return;
    }
    let total_weight: f64 = settings.request_distribution.values().map(|c| c.weight).sum();
    if total_weight <= 0.0 {
        return;
    }
    let typical: f64 = settings
        .request_distribution
        .values()
        .map(|c| c.weight * f64::from(c.input_tokens.saturating_add(c.output_tokens).min(d.batch.max_model_len)))
        .sum::<f64>()
        / total_weight;
    let running = d.batch.max_num_seqs.min(settings.concurrency);
    let needed = typical * f64::from(running);
    if needed <= r.kv_capacity_tokens as f64 {
        return;
    }
    let fits = (r.kv_capacity_tokens as f64 / typical).floor() as u64;
    let pointer = if d.has("/batching/max_num_seqs") { "/batching/max_num_seqs" } else { "/batching" };
    out.push(
        RULE.finding(
            format!(
                "{running} running requests of ~{} tokens need {} tokens of KV cache, but it holds {}; vLLM will preempt requests",
                typical.round() as u64,
                thousands(needed.round() as u64),
                thousands(r.kv_capacity_tokens)
            ),
            Target::config(pointer),
        )
        .help(format!("lower max_num_seqs to about {fits}{}, or add GPU memory", fp8_advice(d))),
    );
}

/// ", use kv_cache_dtype = \"fp8\"" where an fp8 cache would start on this GPU.
fn fp8_advice(d: &ConfigContext<'_>) -> &'static str {
    let usable = d.config.model.kv_cache_dtype.is_none()
        && d.gpu.as_ref().is_some_and(|g| {
            crate::vllm::attention::fp8_kv_refusal(&d.arch, g, d.dtype, crate::model::KvCacheDtype::Fp8).is_none()
        });
    if usable { ", use kv_cache_dtype = \"fp8\"" } else { "" }
}
