use crate::diagnostic::Target;
use crate::model::Quantization;
use crate::rules::ConfigContext;

declare_rule! {
    /// # Quantization method unknown, removed or deprecated in vLLM 0.33
    ///
    /// **What:** `model.quantization` names a method vLLM 0.33 does not have
    /// (a typo, or one that was removed: `gguf` since 0.24, `bitsandbytes` since
    /// 0.28, `marlin`, `bitblas`, `gptq_marlin_24`, `ipex`, `cpu_awq`, ...), or a
    /// deprecated one (`fbgemm_fp8`, `fp_quant`) that needs
    /// `--allow-deprecated-quantization`.
    ///
    /// **Why:** vLLM stops with `Unknown quantization method: X. Must be one of
    /// [...]`, or with the deprecation error, before loading anything.
    ///
    /// **Example:** `quantization = "bitsandbytes"`
    ///
    /// **Fix:** use a supported method for your checkpoint (an AWQ checkpoint:
    /// `awq_marlin`; a GPTQ one: `gptq_marlin`; online: `fp8`), or re-quantize
    /// the model.
    pub static RULE = { code: "CFG302", name: "quantization-unsupported", severity: Error, config }
}

/// Methods vLLM once had, with the release that dropped them.
pub fn removed_quantization(method: &str) -> Option<&'static str> {
    Some(match method {
        "gguf" => "removed in vLLM 0.24",
        "bitsandbytes" => "removed in vLLM 0.28",
        "marlin" => "removed before vLLM 0.15; use gptq_marlin or awq_marlin",
        "bitblas" | "gptq_bitblas" | "gptq_marlin_24" | "ipex" | "petit_nvfp4" | "ptpc_fp8" => "removed by vLLM 0.20",
        "cpu_awq" => "removed by vLLM 0.25",
        "tpu_int8" => "not a quantization method in vLLM 0.33",
        _ => return None,
    })
}

/// What vLLM says about a method the schema refuses, and why where it was removed.
pub fn enum_note(value: &str) -> String {
    let lower = value.to_ascii_lowercase();
    match removed_quantization(&lower) {
        Some(note) => format!("{note}; vLLM 0.33 stops with \"Unknown quantization method: {value}\""),
        None => format!("vLLM 0.33 stops with \"Unknown quantization method: {value}\""),
    }
}

fn check(c: &ConfigContext<'_>, out: &mut Vec<crate::diagnostic::Finding>) {
    let config = c.config;
    let Some(q) = config.model.quantization else { return };
    if matches!(q, Quantization::FbgemmFp8 | Quantization::FpQuant) {
        out.push(
            RULE.finding(format!("quantization method {} is deprecated and will be removed in future versions of vLLM", q.as_str()), Target::config("/model/quantization"))
                .label("vLLM refuses to start without --allow-deprecated-quantization")
                .help("switch to fp8 (or compressed-tensors for an llm-compressor checkpoint); config.toml has no key for --allow-deprecated-quantization"),
        );
    }
}
