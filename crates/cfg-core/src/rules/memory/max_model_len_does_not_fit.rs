use crate::diagnostic::Target;
use crate::memory::{gib, tensor_parallel_advice};
use crate::rules::ConfigContext;

declare_rule! {
    /// # One `max_model_len` request does not fit in the KV cache
    ///
    /// **What:** the KV cache left after weights and overheads holds fewer
    /// tokens than one request of `max_model_len`.
    ///
    /// **Why:** vLLM refuses to start: `To serve at least one request with the
    /// model's max seq len (X), (Y GiB KV cache is needed, which is larger than
    /// the available KV cache memory (Z GiB). Based on the available memory, the
    /// estimated maximum model length is N.`
    ///
    /// **Example:** `Qwen/Qwen2.5-7B-Instruct` on an `L4` with
    /// `max_model_len = 131072`.
    ///
    /// **Fix:** lower `max_model_len` to the length suggested, use an fp8 KV
    /// cache (`kv_cache_dtype = "fp8"`), raise `gpu_memory_utilization`, or add
    /// tensor parallelism.
    pub static RULE = { code: "CFG202", name: "max-model-len-does-not-fit", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    let (Ok(r), Some(gpu)) = (&d.memory, &d.gpu) else { return };
    if r.kv_cache_bytes <= 0.0 || r.num_gpu_blocks == 0 || r.largest_fitting_max_model_len >= u64::from(r.max_model_len)
    {
        return;
    }
    let mut fixes = vec![format!("lower max_model_len to {} or less", r.largest_fitting_max_model_len)];
    if config.model.kv_cache_dtype.is_none() {
        fixes.push("set kv_cache_dtype = \"fp8\"".into());
    }
    if let Some(advice) = tensor_parallel_advice(config, gpu, &d.arch) {
        fixes.push(advice);
    }
    let pointer = if d.has("/model/max_model_len") { "/model/max_model_len" } else { "/model/name" };
    out.push(
        RULE.finding(
            format!(
                "one request of max_model_len ({}) needs {} of KV cache, more than the {} available; the estimated maximum model length is {}",
                r.max_model_len,
                gib(r.max_len_request_bytes),
                gib(r.kv_cache_bytes),
                r.largest_fitting_max_model_len
            ),
            Target::config(pointer),
        )
        .label("vLLM refuses to start")
        .help(fixes.join(", or ")),
    );
}
