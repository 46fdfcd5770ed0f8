use crate::diagnostic::Target;
use crate::model::KvCacheDtype;
use crate::rules::ConfigContext;

declare_rule! {
    /// # `kv_cache_dtype` is not valid, or not valid for this model and GPU
    ///
    /// **What:** a value outside vLLM 0.33's list (`fp8_e4m3fn`, `fp16` and
    /// `bf16` are common mistakes), an MLA-only layout (`fp8_ds_mla`,
    /// `nvfp4_ds_mla`) on a model without multi-head latent attention, or
    /// Gaudi's `fp8_inc` on CUDA or ROCm. An fp8 cache on a GPU whose backends
    /// refuse it is CFG315's.
    ///
    /// **Why:** vLLM stops with `Invalid kv_cache_dtype: 'fp8_e4m3fn'. Valid
    /// values are: [...]`, or `No valid attention backend found for cuda with
    /// ...`.
    ///
    /// **Example:** `kv_cache_dtype = "fp8_e4m3fn"`
    ///
    /// **Fix:** use `fp8` (= `fp8_e4m3`) or `auto`.
    pub static RULE = { code: "CFG305", name: "kv-cache-dtype-invalid", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    let Some(kv) = config.model.kv_cache_dtype else { return };
    let target = || Target::config("/model/kv_cache_dtype");
    if matches!(kv, KvCacheDtype::Fp8DsMla | KvCacheDtype::Nvfp4DsMla)
        && d.arch.model_type.is_some()
        && !d.arch.is_mla()
    {
        out.push(
            RULE.finding(
                format!(
                    "{} is a layout for DeepSeek-style MLA models; this model uses standard attention",
                    kv.as_str()
                ),
                target(),
            )
            .label("no attention backend accepts it")
            .help("use kv_cache_dtype = \"fp8\""),
        );
    }
    if matches!(kv, KvCacheDtype::Fp8Inc) {
        out.push(
            RULE.finding(
                "fp8_inc is the KV-cache format of Intel Gaudi (HPU); CUDA and ROCm backends do not accept it",
                target(),
            )
            .help("use kv_cache_dtype = \"fp8\""),
        );
    }
}
