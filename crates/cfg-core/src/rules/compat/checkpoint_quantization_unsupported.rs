use crate::diagnostic::Target;
use crate::rules::ConfigContext;
use crate::vllm::quantization::{act_dtypes, capability_refusal, dtype_refusal};

declare_rule! {
    /// # The checkpoint's own quantization does not run on this GPU or dtype
    ///
    /// **What:** the model's config.json carries a `quantization_config` (gpt-oss
    /// is MXFP4, DeepSeek-V3 FP8, an AWQ or GPTQ checkpoint 4-bit) and, with no
    /// `quantization` in config.toml, vLLM runs that method, as it resolves it
    /// (`ModelConfig._verify_quantization`, `vllm/config/model.py`: an AWQ
    /// checkpoint runs as `auto_awq`, gpt-oss as `gpt_oss_mxfp4`). Its minimum
    /// compute capability and activation dtypes are then checked like any
    /// other's (`VllmConfig._get_quantization_config`, `vllm/config/vllm.py`).
    ///
    /// **Why:** vLLM refuses to start: `The quantization method gpt_oss_mxfp4 is
    /// not supported for the current GPU. Minimum capability: 80. Current
    /// capability: 75.`, or `torch.float16 is not supported for quantization
    /// method gpt_oss_mxfp4. Supported dtypes: [torch.bfloat16]`.
    ///
    /// **Example:** `name = "openai/gpt-oss-20b"` on a `T4`.
    ///
    /// **Fix:** serve the model on a GPU the method supports, use an unquantized
    /// (or differently quantized) checkpoint of the model, or set `dtype` to one
    /// the method runs with.
    pub static RULE = { code: "CFG316", name: "checkpoint-quantization-unsupported", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let Ok(Some(method)) = &d.quantization else { return };
    if !method.from_checkpoint {
        return;
    }
    let q = method.name.as_str();
    if let Some(gpu) = &d.gpu
        && let Some(cap) = gpu.capability_code()
        && let Some(vllm_says) = capability_refusal(q, cap)
    {
        out.push(
            RULE.finding(
                format!("the checkpoint is quantized with {q}, which the {} cannot run", gpu.name),
                Target::config("/model/name"),
            )
            .label(format!("vLLM refuses to start: \"{vllm_says}\""))
            .help("serve it on a newer GPU, or use an unquantized checkpoint of the model"),
        );
        return;
    }
    if let Some(vllm_says) = dtype_refusal(q, d.dtype.as_str()) {
        let pointer = if d.has("/model/dtype") { "/model/dtype" } else { "/model/name" };
        out.push(
            RULE.finding(
                format!("the checkpoint's {q} quantization does not run in {}", d.dtype.as_str()),
                Target::config(pointer),
            )
            .label(format!("vLLM refuses to start: \"{vllm_says}\""))
            .help(format!(
                "set dtype = \"{}\" (on a GPU that supports it)",
                act_dtypes(q).first().copied().unwrap_or("bfloat16")
            )),
        );
    }
}
