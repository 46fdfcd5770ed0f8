//! How vLLM 0.33 settles which quantization method runs, and what it then
//! requires of the GPU: `ModelConfig._verify_quantization` (`vllm/config/model.py`)
//! resolves `--quantization` against the checkpoint's own `quantization_config`
//! (methods may "override" the name: a GPTQ checkpoint runs as `auto_gptq`
//! whether `gptq`, `gptq_marlin`, `marlin` or nothing was asked for), and
//! `VllmConfig._get_quantization_config` (`vllm/config/vllm.py`) checks the
//! resolved method's minimum compute capability and activation dtypes.

use crate::arch::Arch;
use crate::model::Quantization;

/// The method that runs, as vLLM names it after overrides, and whether the
/// checkpoint chose it (no `quantization` in the config).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Method {
    pub name: String,
    pub from_checkpoint: bool,
}

/// The checkpoint's method as vLLM reads it: gpt-oss's `mxfp4` is rewritten to
/// `gpt_oss_mxfp4` (`GptOssForCausalLMConfig.verify_and_update_model_config`).
pub fn checkpoint_method(arch: &Arch) -> Option<String> {
    let method = arch.quant_method.clone()?;
    Some(if method == "mxfp4" && arch.model_type.as_deref() == Some("gpt_oss") {
        "gpt_oss_mxfp4".into()
    } else {
        method
    })
}

/// Resolves the method; the error is vLLM's own message.
pub fn resolve(user: Option<Quantization>, arch: &Arch) -> Result<Option<Method>, String> {
    let user_name = user.map(Quantization::as_str);
    let checkpoint = checkpoint_method(arch);
    // `humming` is probed before every other override when asked for.
    if user_name == Some("humming") {
        if checkpoint.as_deref() == Some("gpt_oss_mxfp4") {
            return Err("For gpt-oss model, use '--moe-backend humming' instead of '--quantization humming'.".into());
        }
        return Ok(Some(Method { name: "humming".into(), from_checkpoint: false }));
    }
    let overridden: Option<&str> = match (checkpoint.as_deref(), user_name) {
        (Some("gptq"), None | Some("gptq" | "gptq_marlin" | "auto_gptq" | "marlin")) => Some("auto_gptq"),
        (Some("awq"), None | Some("awq" | "awq_marlin" | "auto_awq" | "marlin")) => Some("auto_awq"),
        (Some("gptq" | "awq"), Some("moe_wna16")) => Some("moe_wna16"),
        (Some("auto-round"), _) => Some("inc"),
        (Some(m @ ("modelopt" | "modelopt_fp4" | "modelopt_mxfp8" | "modelopt_mixed")), _) => Some(m),
        // gpt-oss ignores --quantization altogether.
        (Some("gpt_oss_mxfp4"), _) => Some("gpt_oss_mxfp4"),
        (Some("fp8"), _) if arch.model_type.as_deref().is_some_and(|t| t.starts_with("deepseek_v4")) => {
            Some("deepseek_v4_fp8")
        }
        (_, Some("deepseek_v4_fp8")) => Some("deepseek_v4_fp8"),
        _ => None,
    };
    let (name, from_checkpoint) = match (overridden, user_name, checkpoint.as_deref()) {
        (Some(o), _, _) => (o.to_string(), user.is_none()),
        (None, None, None) => return Ok(None),
        (None, None, Some(c)) => (c.to_string(), true),
        (None, Some(u), None) => (u.to_string(), false),
        (None, Some(u), Some(c)) if u == c => (u.to_string(), false),
        (None, Some(u), Some(c)) => {
            return Err(format!(
                "Quantization method specified in the model config ({c}) does not match the quantization method \
                 specified in the `quantization` argument ({u})."
            ));
        }
    };
    if min_capability(&name).is_none() {
        let known: Vec<String> = QUANTIZATION_METHODS.iter().map(|m| format!("'{m}'")).collect();
        return Err(format!("Unknown quantization method: {name}. Must be one of [{}].", known.join(", ")));
    }
    Ok(Some(Method { name, from_checkpoint }))
}

/// vLLM 0.33's `QUANTIZATION_METHODS` (`model_executor/layers/quantization/__init__.py`),
/// in its order: its "Unknown quantization method" message prints them so.
const QUANTIZATION_METHODS: [&str; 30] = [
    "awq",
    "auto_awq",
    "fp8",
    "fbgemm_fp8",
    "fp_quant",
    "modelopt",
    "modelopt_fp4",
    "modelopt_mxfp8",
    "modelopt_mixed",
    "auto_gptq",
    "gptq",
    "gptq_marlin",
    "awq_marlin",
    "humming",
    "compressed-tensors",
    "experts_int8",
    "quark",
    "moe_wna16",
    "torchao",
    "inc",
    "mxfp4",
    "gpt_oss_mxfp4",
    "deepseek_v4_fp8",
    "online",
    "fp8_per_tensor",
    "fp8_per_block",
    "fp8_per_channel",
    "int8_per_channel_weight_only",
    "nvfp4_per_token",
    "mxfp8",
];

/// `get_min_capability()` of the method's config class (major x 10 + minor).
pub fn min_capability(method: &str) -> Option<u32> {
    Some(match method {
        "gptq" | "auto_gptq" | "gptq_marlin" | "inc" => 60,
        "compressed-tensors" | "quark" | "moe_wna16" => 70,
        "awq"
        | "auto_awq"
        | "awq_marlin"
        | "fp8"
        | "deepseek_v4_fp8"
        | "modelopt_fp4"
        | "modelopt_mixed"
        | "torchao"
        | "humming"
        | "online"
        | "fp8_per_tensor"
        | "fp8_per_block"
        | "fp8_per_channel"
        | "int8_per_channel_weight_only"
        | "nvfp4_per_token" => 75,
        "fbgemm_fp8" | "modelopt" | "modelopt_mxfp8" | "mxfp8" | "experts_int8" | "mxfp4" | "gpt_oss_mxfp4" => 80,
        "fp_quant" => 100,
        _ => return None,
    })
}

/// `get_supported_act_dtypes()`, in vLLM's order (its messages print them so).
pub fn act_dtypes(method: &str) -> &'static [&'static str] {
    match method {
        "fp_quant" | "modelopt_mxfp8" | "mxfp8" | "mxfp4" | "gpt_oss_mxfp4" => &["bfloat16"],
        "compressed-tensors" | "torchao" => &["float32", "float16", "bfloat16"],
        "modelopt_fp4" => &["bfloat16", "float16", "float8_e4m3fn"],
        "fp8"
        | "modelopt"
        | "modelopt_mixed"
        | "experts_int8"
        | "moe_wna16"
        | "fbgemm_fp8"
        | "humming"
        | "online"
        | "fp8_per_tensor"
        | "fp8_per_block"
        | "fp8_per_channel"
        | "int8_per_channel_weight_only"
        | "nvfp4_per_token"
        | "deepseek_v4_fp8" => &["bfloat16", "float16"],
        _ => &["float16", "bfloat16"],
    }
}

/// vLLM's capability refusal, when the GPU is too old for the method.
pub fn capability_refusal(method: &str, capability: u32) -> Option<String> {
    let min = min_capability(method)?;
    (capability < min).then(|| {
        format!(
            "The quantization method {method} is not supported for the current GPU. Minimum capability: {min}. \
             Current capability: {capability}."
        )
    })
}

/// vLLM's dtype refusal, when the model runs in a dtype the method does not take.
pub fn dtype_refusal(method: &str, dtype: &str) -> Option<String> {
    let allowed = act_dtypes(method);
    (!allowed.contains(&dtype)).then(|| {
        let list: Vec<String> = allowed.iter().map(|d| format!("torch.{d}")).collect();
        format!(
            "torch.{dtype} is not supported for quantization method {method}. Supported dtypes: [{}]",
            list.join(", ")
        )
    })
}

/// Methods ROCm builds refuse (`ROCmPlatform.supported_quantization`,
/// `vllm/platforms/rocm.py`): every method outside its allow-list.
pub fn refused_on_rocm(method: &str) -> bool {
    matches!(
        method,
        "fp_quant"
            | "gptq_marlin"
            | "humming"
            | "experts_int8"
            | "moe_wna16"
            | "int8_per_channel_weight_only"
            | "nvfp4_per_token"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arch(method: Option<&str>, model_type: &str) -> Arch {
        Arch { quant_method: method.map(str::to_string), model_type: Some(model_type.into()), ..Arch::default() }
    }

    #[test]
    fn gptq_and_awq_checkpoints_take_every_spelling_of_their_method() {
        for user in [
            None,
            Some(Quantization::Gptq),
            Some(Quantization::GptqMarlin),
            Some(Quantization::AutoGptq),
            Some(Quantization::Marlin),
        ] {
            assert_eq!(resolve(user, &arch(Some("gptq"), "llama")).unwrap().unwrap().name, "auto_gptq", "{user:?}");
        }
        assert_eq!(resolve(Some(Quantization::Marlin), &arch(Some("awq"), "llama")).unwrap().unwrap().name, "auto_awq");
        let err = resolve(Some(Quantization::Awq), &arch(Some("gptq"), "llama")).unwrap_err();
        assert_eq!(
            err,
            "Quantization method specified in the model config (gptq) does not match the quantization method specified \
             in the `quantization` argument (awq)."
        );
    }

    #[test]
    fn marlin_without_a_checkpoint_is_unknown_and_gpt_oss_ignores_the_flag() {
        let err = resolve(Some(Quantization::Marlin), &arch(None, "llama")).unwrap_err();
        assert_eq!(
            err,
            "Unknown quantization method: marlin. Must be one of ['awq', 'auto_awq', 'fp8', 'fbgemm_fp8', 'fp_quant', \
             'modelopt', 'modelopt_fp4', 'modelopt_mxfp8', 'modelopt_mixed', 'auto_gptq', 'gptq', 'gptq_marlin', \
             'awq_marlin', 'humming', 'compressed-tensors', 'experts_int8', 'quark', 'moe_wna16', 'torchao', 'inc', \
             'mxfp4', 'gpt_oss_mxfp4', 'deepseek_v4_fp8', 'online', 'fp8_per_tensor', 'fp8_per_block', \
             'fp8_per_channel', 'int8_per_channel_weight_only', 'nvfp4_per_token', 'mxfp8']."
        );
        assert_eq!(
            resolve(Some(Quantization::Humming), &arch(Some("gptq"), "llama")).unwrap().unwrap().name,
            "humming"
        );
        assert!(
            resolve(Some(Quantization::Humming), &arch(Some("mxfp4"), "gpt_oss"))
                .unwrap_err()
                .contains("--moe-backend humming")
        );
        let m = resolve(Some(Quantization::Fp8), &arch(Some("mxfp4"), "gpt_oss")).unwrap().unwrap();
        assert_eq!((m.name.as_str(), m.from_checkpoint), ("gpt_oss_mxfp4", false));
        assert_eq!(
            resolve(None, &arch(Some("fp8"), "deepseek_v3")).unwrap().unwrap(),
            Method { name: "fp8".into(), from_checkpoint: true }
        );
    }

    #[test]
    fn refusals_quote_vllm() {
        assert_eq!(
            capability_refusal("gpt_oss_mxfp4", 75).unwrap(),
            "The quantization method gpt_oss_mxfp4 is not supported for the current GPU. Minimum capability: 80. Current capability: 75."
        );
        assert_eq!(
            dtype_refusal("gpt_oss_mxfp4", "float16").unwrap(),
            "torch.float16 is not supported for quantization method gpt_oss_mxfp4. Supported dtypes: [torch.bfloat16]"
        );
        assert_eq!(dtype_refusal("fp8", "bfloat16"), None);
    }
}
