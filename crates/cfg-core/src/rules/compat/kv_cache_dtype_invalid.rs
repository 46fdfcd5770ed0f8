use crate::diagnostic::Target;
use crate::model::KvCacheDtype;
use crate::resolve::Gpu;
use crate::rules::ConfigContext;

declare_rule! {
    /// # `kv_cache_dtype` is not valid, or not valid for this model and GPU
    ///
    /// **What:** a value outside vLLM 0.33's list (`fp8_e4m3fn`, `fp16` and
    /// `bf16` are common mistakes), an MLA-only layout (`fp8_ds_mla`,
    /// `nvfp4_ds_mla`) on a model without multi-head latent attention, or an
    /// fp8 cache on a GPU no attention backend supports it on.
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
    let cap = d.gpu.as_ref().and_then(Gpu::capability_code);
    if let Some(cap) = cap
        && cap < 75
        && matches!(kv, KvCacheDtype::Fp8 | KvCacheDtype::Fp8E4m3 | KvCacheDtype::Fp8E5m2)
    {
        out.push(
            RULE.finding(
                format!(
                    "an fp8 KV cache needs compute capability 7.5 or newer; the {} has {}.{}",
                    d.gpu.as_ref().map_or("", |g| g.name.as_str()),
                    cap / 10,
                    cap % 10
                ),
                target(),
            )
            .label("no attention backend accepts it")
            .help("use kv_cache_dtype = \"auto\""),
        );
    }
}
