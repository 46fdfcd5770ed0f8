use crate::diagnostic::Target;
use crate::rules::ConfigContext;

declare_rule! {
    /// # The batching knobs are left to vLLM's defaults
    ///
    /// **What:** `max_num_seqs` or `max_num_batched_tokens` is not set, so vLLM
    /// picks a default from the GPU's memory (`EngineArgs.get_batch_defaults` in
    /// `vllm/engine/arg_utils.py`): 1024 / 16384 from 160 GiB (B200, MI300X);
    /// 1024 / 8192 from 70 GiB (H100, H200) except the A100 and the GB10
    /// (compute capability 12.1); 256 / 2048 on the rest. With chunked prefill
    /// off, the token default is raised to at least max_model_len.
    ///
    /// **Why:** these two knobs trade time to first token against throughput;
    /// their values should come from a load test of your traffic, and a default
    /// that changes with the GPU makes results hard to compare.
    ///
    /// **Example:** a `[batching]` section without `max_num_seqs`.
    ///
    /// **Fix:** set both explicitly to the values your load test chose
    /// (`cfg-bench sim --sweep max_num_seqs=...` helps pick them).
    pub static RULE = { code: "CFG105", name: "batching-knobs-defaulted", severity: Info, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let b = d.batch;
    let missing: Vec<String> = [
        (!b.seqs_explicit).then(|| format!("max_num_seqs = {}", b.max_num_seqs)),
        (!b.tokens_explicit).then(|| format!("max_num_batched_tokens = {}", b.max_num_batched_tokens)),
    ]
    .into_iter()
    .flatten()
    .collect();
    if missing.is_empty() {
        return;
    }
    let gpu = d.gpu.as_ref().map_or("an unnamed GPU".to_string(), |g| g.name.clone());
    out.push(
        RULE.finding(format!("vLLM will choose {} on {gpu}", missing.join(" and ")), Target::config("/batching"))
            .help("set the batching knobs explicitly, to values a load test of your traffic chose"),
    );
}
