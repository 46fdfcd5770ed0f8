use super::supported_act_dtypes;
use crate::diagnostic::Target;
use crate::rules::ConfigContext;

declare_rule! {
    /// # Quantization conflicts with the dtype or the checkpoint
    ///
    /// **What:** either the resolved model dtype is not one the method runs
    /// with (`mxfp4` and `mxfp8` need bfloat16), or the checkpoint ships its own
    /// quantization (DeepSeek-V3/R1 are native fp8, gpt-oss is mxfp4) and
    /// `quantization` names a different one.
    ///
    /// **Why:** vLLM refuses to start: `float16 is not supported for
    /// quantization method mxfp4. Supported dtypes: [torch.bfloat16]`, or
    /// `Quantization method specified in the model config (fp8) does not match
    /// the quantization method specified in the quantization argument (awq).`
    ///
    /// **Example:** `name = "deepseek-ai/DeepSeek-V3"` with `quantization = "awq"`.
    ///
    /// **Fix:** remove `quantization` for pre-quantized checkpoints (vLLM reads
    /// it from config.json), or use a dtype the method supports.
    pub static RULE = { code: "CFG304", name: "quantization-dtype-mismatch", severity: Error, config }
}

fn check(d: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = d.config;
    let Some(q) = config.model.quantization else { return };
    let supported = supported_act_dtypes(q);
    if !supported.contains(&d.dtype.as_str()) {
        let pointer = if d.has("/model/dtype") { "/model/dtype" } else { "/model/quantization" };
        out.push(
            RULE.finding(
                format!(
                    "{} is not supported for quantization method {}; supported dtypes: {}",
                    d.dtype.as_str(),
                    q.as_str(),
                    supported.join(", ")
                ),
                Target::config(pointer),
            )
            .label("vLLM refuses to start")
            .help(format!("set dtype = \"{}\"", supported.last().copied().unwrap_or("bfloat16"))),
        );
    }
    if let Some(ckpt) = d.arch.quant_method.as_deref() {
        // vLLM probes "override" methods, so a gptq checkpoint may run as gptq_marlin.
        let compatible =
            q.as_str() == ckpt || q.as_str().starts_with(ckpt) || (ckpt == "mxfp4" && q.as_str() == "gpt_oss_mxfp4");
        if !compatible {
            out.push(
                RULE.finding(
                    format!("the checkpoint is already quantized with {ckpt}, but quantization = \"{}\"", q.as_str()),
                    Target::config("/model/quantization"),
                )
                .label("vLLM refuses to start")
                .help(format!("remove `quantization` (vLLM reads {ckpt} from the checkpoint) or set it to \"{ckpt}\"")),
            );
        }
    }
}
