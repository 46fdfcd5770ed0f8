//! Model, GPU and parallelism compatibility: vLLM 0.33's start-up checks on
//! dtype, quantization, KV-cache dtype and tensor/pipeline sizes.

pub mod attention_heads_not_divisible;
pub mod bfloat16_unsupported_gpu;
pub mod float16_unsupported_model;
pub mod kv_cache_dtype_invalid;
pub mod kv_cache_dtype_mismatch;
pub mod kv_heads_not_divisible;
pub mod no_vllm_equivalent;
pub mod pipeline_exceeds_layers;
pub mod quantization_dtype_mismatch;
pub mod quantization_needs_newer_gpu;
pub mod quantization_unsupported;
pub mod unknown_gpu;
pub mod unknown_model;
pub mod world_size_exceeds_gpus;

use crate::model::Quantization;

/// `get_min_capability()` of each method's config class in vLLM 0.33
/// (major * 10 + minor).
pub(crate) fn min_capability(q: Quantization) -> u32 {
    use Quantization::*;
    match q {
        Gptq | AutoGptq | GptqMarlin | Inc => 60,
        CompressedTensors | Quark | MoeWna16 => 70,
        Awq
        | AutoAwq
        | AwqMarlin
        | Fp8
        | DeepseekV4Fp8
        | ModeloptFp4
        | ModeloptMixed
        | Torchao
        | Humming
        | Online
        | Fp8PerTensor
        | Fp8PerBlock
        | Fp8PerChannel
        | Int8PerChannelWeightOnly
        | Nvfp4PerToken => 75,
        FbgemmFp8 | Modelopt | ModeloptMxfp8 | Mxfp8 | ExpertsInt8 | Mxfp4 | GptOssMxfp4 => 80,
        FpQuant => 100,
    }
}

/// `get_supported_act_dtypes()`: which model dtypes each method runs with.
pub(crate) fn supported_act_dtypes(q: Quantization) -> &'static [&'static str] {
    use Quantization::*;
    match q {
        FpQuant | ModeloptMxfp8 | Mxfp8 | Mxfp4 | GptOssMxfp4 => &["bfloat16"],
        CompressedTensors | Torchao => &["float32", "float16", "bfloat16"],
        _ => &["float16", "bfloat16"],
    }
}
