use crate::diagnostic::Target;
use crate::rules::ConfigContext;
use crate::vllm::quantization::{act_dtypes, dtype_refusal};

declare_rule! {
    /// # Quantization conflicts with the dtype or the checkpoint
    ///
    /// **What:** either the model dtype is not one the method `quantization`
    /// resolves to runs with (`mxfp4` and `mxfp8` need bfloat16), or the
    /// checkpoint ships its own quantization and `quantization` names another.
    /// vLLM resolves the name against the checkpoint first
    /// (`ModelConfig._verify_quantization` in `vllm/config/model.py`): `gptq`,
    /// `gptq_marlin`, `marlin` and `auto_gptq` all run a GPTQ checkpoint (as
    /// `auto_gptq`), the AWQ spellings an AWQ one, and gpt-oss ignores the flag;
    /// those are accepted. The dtype check is `VllmConfig._get_quantization_config`.
    ///
    /// **Why:** vLLM refuses to start: `torch.float16 is not supported for
    /// quantization method mxfp4. Supported dtypes: [torch.bfloat16]`, or
    /// `Quantization method specified in the model config (fp8) does not match
    /// the quantization method specified in the `quantization` argument (awq).`
    ///
    /// **Example:** `name = "deepseek-ai/DeepSeek-V3"` with `quantization = "awq"`.
    ///
    /// **Fix:** remove `quantization` for pre-quantized checkpoints (vLLM reads
    /// it from config.json), or use a dtype the method supports.
    pub static RULE = { code: "CFG304", name: "quantization-dtype-mismatch", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let Some(user) = d.config.model.quantization else { return };
    match &d.quantization {
        Err(message) if message.starts_with("Quantization method specified in the model config") => {
            let checkpoint = d.arch.quant_method.as_deref().unwrap_or("its own method");
            out.push(
                RULE.finding(
                    format!(
                        "the checkpoint is already quantized with {checkpoint}, but quantization = \"{}\"",
                        user.as_str()
                    ),
                    Target::config("/model/quantization"),
                )
                .label(format!("vLLM refuses to start: \"{message}\""))
                .help(format!("remove `quantization` (vLLM reads {checkpoint} from the checkpoint)")),
            );
        }
        Ok(Some(method)) if !method.from_checkpoint => {
            let Some(vllm_says) = dtype_refusal(&method.name, d.dtype.as_str()) else { return };
            let pointer = if d.has("/model/dtype") { "/model/dtype" } else { "/model/quantization" };
            let supported = act_dtypes(&method.name);
            out.push(
                RULE.finding(
                    format!("{} quantization does not run in {}", method.name, d.dtype.as_str()),
                    Target::config(pointer),
                )
                .label(format!("vLLM refuses to start: \"{vllm_says}\""))
                .help(format!("set dtype = \"{}\"", supported.first().copied().unwrap_or("bfloat16"))),
            );
        }
        _ => {}
    }
}
