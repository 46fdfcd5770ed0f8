//! Bytes of the weights: exact from the checkpoint's safetensors index when it
//! was found, else counted from the parameters at the bytes each stores.

use crate::resolve::{Arch, ResolvedDtype};

/// Where the weight figure came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WeightSource {
    /// `metadata.total_size` of `model.safetensors.index.json`: what is on disk.
    Index,
    /// Parameters x bytes per parameter (quantized layers at their method's size,
    /// embeddings and the output head at the model's dtype).
    Estimated,
}

/// Total weight bytes of the model (all GPUs together) and where they came from.
/// `method` is the quantization in effect; `as_stored` says the weights load as
/// the checkpoint stores them (no method, or the checkpoint's own).
pub fn total_weight_bytes(
    arch: &Arch,
    method: Option<&str>,
    as_stored: bool,
    dtype: ResolvedDtype,
) -> Option<(f64, WeightSource)> {
    // An index describes the checkpoint as stored; quantizing a 16-bit checkpoint
    // at load time (fp8 on a bf16 model) shrinks it, so it only holds as stored.
    if let (Some(bytes), true) = (arch.weight_bytes, as_stored) {
        // An unquantized checkpoint served in another dtype (fp32 files, bf16 on
        // the GPU) is converted as it loads.
        let stored = arch.torch_dtype.map_or(dtype.bytes(), crate::model::CheckpointDtype::bytes);
        let scale = if method.is_none() { dtype.bytes() / stored } else { 1.0 };
        return Some((bytes as f64 * scale, WeightSource::Index));
    }
    let params = arch.num_parameters? as f64;
    let Some(per_param) = quantized_param_bytes(arch, method, as_stored) else {
        return Some((params * dtype.bytes(), WeightSource::Estimated));
    };
    // Embeddings and the output head stay 16-bit in every quantized format vLLM
    // loads; for gpt-oss's MXFP4 only the experts are quantized.
    let hidden = f64::from(arch.hidden_size.unwrap_or(0));
    let vocab = f64::from(arch.vocab_size.unwrap_or(0));
    let embeddings = (2.0 * vocab * hidden).min(params);
    let quantized = match (method, arch.num_experts, arch.model_type.as_deref()) {
        (Some("mxfp4" | "gpt_oss_mxfp4"), Some(_), Some("gpt_oss")) => {
            expert_parameters(arch).unwrap_or(params - embeddings)
        }
        _ => params - embeddings,
    };
    Some((quantized * per_param + (params - quantized) * 2.0, WeightSource::Estimated))
}

/// Parameters in the routed experts (gate, up and down projections, with
/// gpt-oss's biases).
fn expert_parameters(arch: &Arch) -> Option<f64> {
    let h = f64::from(arch.hidden_size?);
    let i = f64::from(arch.intermediate_size?);
    let per_expert = 3.0 * h * i + 2.0 * i + h;
    Some(f64::from(arch.num_hidden_layers?) * f64::from(arch.num_experts?) * per_expert)
}

/// Bytes a quantized layer's parameter takes under `method` (`None`: no
/// quantization): the checkpoint's own bit width where its quantization config
/// states it (compressed-tensors and GPTQ come in 4 and 8 bits), else the
/// method's.
pub fn quantized_param_bytes(arch: &Arch, method: Option<&str>, as_stored: bool) -> Option<f64> {
    let own_bits = arch.quant_bits.filter(|_| method.is_some() && as_stored).map(|b| if b <= 4 { 0.53 } else { 1.0 });
    own_bits.or_else(|| method.and_then(quantized_bytes_per_param))
}

/// Bytes per quantized parameter: 4-bit methods store half a byte plus a 16-bit
/// scale (and zero point) per group of 128: 0.53; MXFP4 takes 0.5625 on the GPU
/// (gpt-oss-20b and -120b load as 13.64 and 64.38 GiB on H100 in vLLM 0.19);
/// 8-bit methods one byte plus per-channel or per-block scales: 1.0.
pub fn quantized_bytes_per_param(method: &str) -> Option<f64> {
    const FOUR_BIT: [&str; 13] = [
        "awq",
        "auto_awq",
        "awq_marlin",
        "gptq",
        "auto_gptq",
        "gptq_marlin",
        "modelopt_fp4",
        "nvfp4_per_token",
        "moe_wna16",
        "inc",
        "humming",
        "fp_quant",
        "modelopt_mixed",
    ];
    const EIGHT_BIT: [&str; 15] = [
        "fp8",
        "fbgemm_fp8",
        "modelopt",
        "modelopt_mxfp8",
        "mxfp8",
        "fp8_per_tensor",
        "fp8_per_block",
        "fp8_per_channel",
        "deepseek_v4_fp8",
        "experts_int8",
        "int8_per_channel_weight_only",
        "compressed-tensors",
        "quark",
        "online",
        "torchao",
    ];
    if matches!(method, "mxfp4" | "gpt_oss_mxfp4") {
        Some(0.5625)
    } else if FOUR_BIT.contains(&method) {
        Some(0.53)
    } else if EIGHT_BIT.contains(&method) {
        Some(1.0)
    } else {
        None
    }
}
