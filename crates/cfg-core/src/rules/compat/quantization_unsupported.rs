use crate::diagnostic::Target;
use crate::model::Quantization;
use crate::rules::ConfigContext;

declare_rule! {
    /// # Quantization method unknown, removed or deprecated in vLLM 0.33
    ///
    /// **What:** `model.quantization` names a method vLLM 0.33 does not have
    /// (a typo, or one that was removed: `gguf` since 0.24, `bitsandbytes` since
    /// 0.28, `bitblas`, `gptq_marlin_24`, `ipex`, `cpu_awq`, ...), or a
    /// deprecated one (`fbgemm_fp8`, `fp_quant`) that needs
    /// `--allow-deprecated-quantization`.
    ///
    /// **Why:** vLLM stops with `Unknown quantization method: X. Must be one of
    /// [...]`, or with the deprecation error, before loading anything
    /// (`ModelConfig._verify_quantization`, `vllm/config/model.py`). `marlin` is
    /// accepted only on a GPTQ or AWQ checkpoint, whose method it then names;
    /// anywhere else it is unknown.
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
    if let Err(message) = &c.quantization
        && message.starts_with("Unknown quantization method")
    {
        // `marlin` with no GPTQ/AWQ checkpoint to stand for, or a checkpoint
        // quantized with a method vLLM does not have.
        let (pointer, help) = if config.model.quantization.is_some() {
            (
                "/model/quantization",
                "marlin is only a spelling of a GPTQ or AWQ checkpoint's method: use gptq_marlin or awq_marlin for those, or a method vLLM 0.33 has",
            )
        } else {
            (
                "/model/name",
                "this checkpoint's quantization_config names a method vLLM 0.33 does not load: use a checkpoint quantized with a supported method",
            )
        };
        let short = message.split(". Must be one of").next().unwrap_or(message);
        out.push(
            RULE.finding(format!("vLLM 0.33 stops with \"{short}\""), Target::config(pointer))
                .label("vLLM refuses to start")
                .help(help),
        );
    }
    let Some(q) = config.model.quantization else { return };
    if matches!(q, Quantization::FbgemmFp8 | Quantization::FpQuant) {
        out.push(
            RULE.finding(format!("quantization method {} is deprecated and will be removed in future versions of vLLM", q.as_str()), Target::config("/model/quantization"))
                .label("vLLM refuses to start without --allow-deprecated-quantization")
                .help("switch to fp8 (or compressed-tensors for an llm-compressor checkpoint); config.toml has no key for --allow-deprecated-quantization"),
        );
    }
}
