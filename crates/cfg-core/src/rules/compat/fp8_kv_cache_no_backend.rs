use crate::diagnostic::Target;
use crate::rules::ConfigContext;
use crate::vllm::attention::fp8_kv_refusal;

declare_rule! {
    /// # No attention backend takes an fp8 KV cache on this GPU and model
    ///
    /// **What:** `kv_cache_dtype = "fp8"` (or `fp8_e4m3`, `fp8_e5m2`) on an
    /// NVIDIA GPU below compute capability 8.9 where vLLM 0.33's backend
    /// selection (`CudaPlatformBase.get_attn_backend_cls`, `vllm/platforms/cuda.py`)
    /// ends on Triton: always on a T4 or V100; on an A100 or A10 unless FlashInfer
    /// takes it (head size 64, 128, 256 or 512, a 16-bit model, no attention
    /// sinks, so never gpt-oss); always for MLA models (DeepSeek) below 8.9.
    /// Triton's constructor then refuses fp8 (`TritonAttentionImpl.__init__` in
    /// `vllm/v1/attention/backends/triton_attn.py`, and `triton_mla.py`).
    ///
    /// **Why:** vLLM loads the weights and then stops: `FP8 KV cache is not
    /// supported by the Triton attention backend on Tesla T4 (compute
    /// capability 7.5); native FP8 (fp8e4nv) requires SM89+. Re-run with
    /// --kv-cache-dtype float16.`
    ///
    /// **Example:** `kv_cache_dtype = "fp8"` with `[hardware] gpu = "T4"`.
    ///
    /// **Fix:** use `kv_cache_dtype = "auto"` (the model's dtype), or a GPU of
    /// compute capability 8.9 or newer (L4, L40S, H100).
    pub static RULE = { code: "CFG315", name: "fp8-kv-cache-no-backend", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let (Some(kv), Some(gpu)) = (crate::resolve::kv_cache_dtype(d.config, &d.arch), &d.gpu) else { return };
    let Some(vllm_says) = fp8_kv_refusal(&d.arch, gpu, d.dtype, kv) else { return };
    // "auto" on a checkpoint that stores its KV cache in fp8 is fp8 too.
    let (pointer, whose, fix) = if d.has("/model/kv_cache_dtype") {
        (
            "/model/kv_cache_dtype",
            "",
            "set kv_cache_dtype = \"auto\", or serve on a GPU of compute capability 8.9 or newer",
        )
    } else {
        (
            "/model/name",
            ", the checkpoint's own KV quantization",
            "serve on a GPU of compute capability 8.9 or newer, or use a checkpoint without an fp8 KV cache",
        )
    };
    out.push(
        RULE.finding(
            format!(
                "no attention backend takes an fp8 KV cache ({}{whose}) for this model on the {}",
                kv.as_str(),
                gpu.name
            ),
            Target::config(pointer),
        )
        .label(format!("vLLM stops after loading: \"{vllm_says}\""))
        .help(fix),
    );
}
