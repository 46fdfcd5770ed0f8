use crate::diagnostic::Target;
use crate::memory::{gib, tensor_parallel_advice};
use crate::rules::ConfigContext;

declare_rule! {
    /// # One `max_model_len` request does not fit in the KV cache
    ///
    /// **What:** the KV cache left after weights and overheads, less the one
    /// block vLLM keeps as the null block, holds fewer blocks than one request of
    /// `max_model_len` takes over all its layer groups
    /// (`_check_enough_kv_cache_memory` in `vllm/v1/core/kv_cache_planning.py`).
    /// With `max_model_len = "auto"` vLLM lowers the length instead, and fails
    /// only when not one token fits.
    ///
    /// **Why:** vLLM refuses to start: `To serve at least one request with the
    /// model's max seq len (X), (Y GiB KV cache is needed, which is larger than
    /// the available KV cache memory (Z GiB). Based on the available memory, the
    /// estimated maximum model length is N.`
    ///
    /// **Example:** `Qwen/Qwen2.5-7B-Instruct` on an `L4` with
    /// `max_model_len = 131072`.
    ///
    /// **Fix:** lower `max_model_len` to the length suggested (or write
    /// `"auto"`), use an fp8 KV cache where the GPU's backends take one
    /// (CFG315), raise `gpu_memory_utilization`, or add tensor parallelism.
    pub static RULE = { code: "CFG202", name: "max-model-len-does-not-fit", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    let (Ok(r), Some(gpu)) = (&d.memory, &d.gpu) else { return };
    // No cache memory at all is CFG201's.
    if r.no_cache_memory() || r.fits() {
        return;
    }
    let pointer = if d.has("/model/max_model_len") { "/model/max_model_len" } else { "/model/name" };
    let available = r.kv_cache_bytes - r.bytes_per_block;
    if d.batch.max_model_len_auto {
        // "auto" lowers the length until one request fits; it fails only when
        // not even one token does.
        if r.largest_fitting_max_model_len == 0 {
            out.push(
                RULE.finding(format!("\"auto\" cannot fit even one token in {} of KV cache", gib(available.max(0.0))), Target::config(pointer))
                    .label("vLLM refuses to start: \"Cannot auto-fit max_model_len: not enough GPU memory available to serve even a single token. Try increasing `gpu_memory_utilization`.\"")
                    .help("raise gpu_memory_utilization, or add GPUs"),
            );
        }
        return;
    }
    let mut fixes = vec![format!("lower max_model_len to {} or less", r.largest_fitting_max_model_len)];
    if config.model.kv_cache_dtype.is_none()
        && crate::vllm::attention::fp8_kv_refusal(&d.arch, gpu, d.dtype, crate::model::KvCacheDtype::Fp8).is_none()
    {
        fixes.push("set kv_cache_dtype = \"fp8\"".into());
    }
    fixes.push("write max_model_len = \"auto\" to take the longest that fits".into());
    if let Some(advice) = tensor_parallel_advice(config, gpu, &d.arch) {
        fixes.push(advice);
    }
    let estimate = if r.largest_fitting_max_model_len > 0 {
        format!(
            "Based on the available memory, the estimated maximum model length is {}. ",
            r.largest_fitting_max_model_len
        )
    } else {
        String::new()
    };
    out.push(
        RULE.finding(
            format!(
                "one request of max_model_len ({}) needs {} of KV cache, more than the {} available",
                r.max_model_len,
                gib(r.max_len_request_bytes),
                gib(available.max(0.0)),
            ),
            Target::config(pointer),
        )
        .label(format!(
            "vLLM refuses to start: \"To serve at least one request with the model's max seq len ({}), ({:.2} GiB KV cache is needed, which is larger than the available KV cache memory ({:.2} GiB). {estimate}Try increasing `gpu_memory_utilization` ...\"",
            r.max_model_len,
            r.max_len_request_bytes / crate::memory::GIB,
            available / crate::memory::GIB,
        ))
        .help(fixes.join(", or ")),
    );
}
