//! The closed vocabularies of config.toml, each value documented as vLLM 0.33 accepts it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Data type of the weights and activations (vLLM `--dtype`). Default `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    /// Use the checkpoint's dtype; fp32 checkpoints are cast to the GPU's preferred
    /// 16-bit type (bfloat16 on compute capability >= 8.0, else float16).
    #[default]
    Auto,
    /// Alias of float16.
    Half,
    /// IEEE half precision. Not allowed for gemma2, gemma3 and glm4 (numerical instability).
    Float16,
    /// Brain float 16. Needs compute capability >= 8.0 (A100, L4, H100 ...; not T4 or V100).
    Bfloat16,
    /// Alias of float32.
    Float,
    /// Full precision: twice the memory of the 16-bit types.
    Float32,
}

impl Dtype {
    pub fn as_str(self) -> &'static str {
        match self {
            Dtype::Auto => "auto",
            Dtype::Half => "half",
            Dtype::Float16 => "float16",
            Dtype::Bfloat16 => "bfloat16",
            Dtype::Float => "float",
            Dtype::Float32 => "float32",
        }
    }
}

/// Scheduling policy for waiting requests (vLLM `--scheduling-policy`). Default `fcfs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum SchedulingPolicy {
    /// First come, first served.
    #[default]
    Fcfs,
    /// Requests carry a `priority` field; lower values are served first, ties by arrival.
    Priority,
}

impl SchedulingPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            SchedulingPolicy::Fcfs => "fcfs",
            SchedulingPolicy::Priority => "priority",
        }
    }
}

macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[doc = $doc:literal])* $variant:ident = $text:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        pub enum $name {
            $($(#[doc = $doc])* #[serde(rename = $text)] $variant,)+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text,)+ }
            }
        }
    };
}

string_enum! {
    /// Quantization method of the weights (vLLM `--quantization`). Default: none, or the
    /// checkpoint's own `quantization_config`. Chosen by the hardware and measured accuracy.
    /// Removed methods (`gguf` since 0.24, `bitsandbytes` since 0.28) are refused by vLLM 0.33.
    Quantization {
        /// AutoAWQ 4-bit weights (min compute capability 7.5; fp16/bf16 activations).
        Awq = "awq",
        /// AutoAWQ checkpoint loader, same kernels as awq.
        AutoAwq = "auto_awq",
        /// AWQ with Marlin kernels (faster on Ampere+).
        AwqMarlin = "awq_marlin",
        /// GPTQ 4/8-bit weights (min compute capability 6.0).
        Gptq = "gptq",
        /// AutoGPTQ checkpoint loader, same kernels as gptq.
        AutoGptq = "auto_gptq",
        /// GPTQ with Marlin kernels.
        GptqMarlin = "gptq_marlin",
        /// Not a method of its own in vLLM 0.33: accepted only on a GPTQ or AWQ
        /// checkpoint, which then runs as auto_gptq or auto_awq; anywhere else
        /// "Unknown quantization method: marlin".
        Marlin = "marlin",
        /// FP8 weights (dynamic or checkpoint scales); native FP8 compute on compute capability >= 8.9,
        /// weight-only Marlin FP8 below (min 7.5).
        Fp8 = "fp8",
        /// FP8 per-channel from fbgemm (deprecated: needs --allow-deprecated-quantization; min 8.0).
        FbgemmFp8 = "fbgemm_fp8",
        /// FP-Quant (deprecated; needs compute capability 10.0, bf16 only).
        FpQuant = "fp_quant",
        /// NVIDIA ModelOpt FP8 checkpoints (min 8.0).
        Modelopt = "modelopt",
        /// NVIDIA ModelOpt NVFP4 checkpoints (min 7.5).
        ModeloptFp4 = "modelopt_fp4",
        /// NVIDIA ModelOpt MXFP8 checkpoints (min 8.0, bf16 only).
        ModeloptMxfp8 = "modelopt_mxfp8",
        /// NVIDIA ModelOpt mixed-precision checkpoints (min 7.5).
        ModeloptMixed = "modelopt_mixed",
        /// Humming quantized checkpoints (min 7.5).
        Humming = "humming",
        /// llm-compressor (compressed-tensors) checkpoints; the scheme sets its own minimum
        /// capability (W8A8-FP8 needs 8.9).
        CompressedTensors = "compressed-tensors",
        /// INT8 experts for MoE models, quantized at load time (min 8.0).
        ExpertsInt8 = "experts_int8",
        /// AMD Quark checkpoints (min 7.0).
        Quark = "quark",
        /// MoE weight-only 4/8-bit (min 7.0).
        MoeWna16 = "moe_wna16",
        /// torchao-quantized checkpoints (min 7.5).
        Torchao = "torchao",
        /// Intel Neural Compressor (AutoRound) checkpoints (min 6.0).
        Inc = "inc",
        /// MXFP4 weights (min 8.0, bf16 activations only).
        Mxfp4 = "mxfp4",
        /// gpt-oss MXFP4 checkpoints (min 8.0, bf16 only).
        GptOssMxfp4 = "gpt_oss_mxfp4",
        /// DeepSeek-V4 FP8 checkpoints (min 7.5).
        DeepseekV4Fp8 = "deepseek_v4_fp8",
        /// Online quantization configured at load time (min 7.5).
        Online = "online",
        /// Online FP8, one scale per tensor (min 7.5).
        Fp8PerTensor = "fp8_per_tensor",
        /// Online FP8, one scale per block (min 7.5).
        Fp8PerBlock = "fp8_per_block",
        /// Online FP8, one scale per output channel (min 7.5).
        Fp8PerChannel = "fp8_per_channel",
        /// Online INT8 weight-only, per channel (min 7.5).
        Int8PerChannelWeightOnly = "int8_per_channel_weight_only",
        /// Online NVFP4 with per-token activation scales (min 7.5).
        Nvfp4PerToken = "nvfp4_per_token",
        /// MXFP8 weights (min 8.0, bf16 only).
        Mxfp8 = "mxfp8",
    }
}

string_enum! {
    /// Data type of the KV cache (vLLM `--kv-cache-dtype`). Default `auto` (the model's dtype,
    /// or the checkpoint's KV quantization). fp8 halves KV memory and so doubles the token capacity.
    /// Note `fp8_e4m3fn`, `fp16` and `bf16` are not vLLM values.
    KvCacheDtype {
        /// The model's dtype (or the checkpoint's KV-cache quantization if it names one).
        Auto = "auto",
        /// 16-bit float; must equal the model dtype.
        Float16 = "float16",
        /// bfloat16; must equal the model dtype.
        Bfloat16 = "bfloat16",
        /// FP8, same as fp8_e4m3 on CUDA (1 byte per element).
        Fp8 = "fp8",
        /// FP8 E4M3 (1 byte per element).
        Fp8E4m3 = "fp8_e4m3",
        /// FP8 E5M2 (1 byte per element; not on FlashAttention, Triton/FlashInfer only).
        Fp8E5m2 = "fp8_e5m2",
        /// FP8 via Intel Neural Compressor (Gaudi).
        Fp8Inc = "fp8_inc",
        /// FP8 layout for DeepSeek MLA (656 bytes per token per layer).
        Fp8DsMla = "fp8_ds_mla",
        /// NVFP4 layout for DeepSeek MLA (352 bytes per token per layer).
        Nvfp4DsMla = "nvfp4_ds_mla",
        /// TurboQuant 8-bit keys, 4-bit values.
        TurboquantK8v4 = "turboquant_k8v4",
        /// TurboQuant 4-bit, no calibration.
        Turboquant4bitNc = "turboquant_4bit_nc",
        /// TurboQuant 3-bit keys, 4-bit values, no calibration.
        TurboquantK3v4Nc = "turboquant_k3v4_nc",
        /// TurboQuant 3-bit, no calibration.
        Turboquant3bitNc = "turboquant_3bit_nc",
        /// Octave 3-bit keys, 4-bit values.
        OctaveK3v4 = "octave_k3v4",
        /// Octave 3-bit keys and values.
        OctaveK3v3 = "octave_k3v3",
        /// Octave 3-bit, compact layout.
        OctaveK3v3Compact = "octave_k3v3_compact",
        /// UltraQuant 4-bit.
        Ultraquant4bit = "ultraquant_4bit",
        /// INT4 with one scale per token and head.
        Int4PerTokenHead = "int4_per_token_head",
        /// INT8 with one scale per token and head (1 byte per element).
        Int8PerTokenHead = "int8_per_token_head",
        /// FP8 with one scale per token and head (1 byte per element).
        Fp8PerTokenHead = "fp8_per_token_head",
        /// NVFP4 (4-bit).
        Nvfp4 = "nvfp4",
        /// NVFP4 with 4-over-6 scaling (4-bit).
        Nvfp4_4over6 = "nvfp4_4over6",
    }
}

impl KvCacheDtype {
    /// Bytes per element; `None` for `auto` (follows the model dtype).
    pub fn bytes(self) -> Option<f64> {
        use KvCacheDtype::*;
        match self {
            Auto => None,
            Float16 | Bfloat16 => Some(2.0),
            Fp8 | Fp8E4m3 | Fp8E5m2 | Fp8Inc | Fp8DsMla | Int8PerTokenHead | Fp8PerTokenHead | TurboquantK8v4 => {
                Some(1.0)
            }
            Nvfp4DsMla | Turboquant4bitNc | TurboquantK3v4Nc | Turboquant3bitNc | OctaveK3v4 | OctaveK3v3
            | OctaveK3v3Compact | Ultraquant4bit | Int4PerTokenHead | Nvfp4 | Nvfp4_4over6 => Some(0.5),
        }
    }
}

impl Quantization {
    /// The method named `text` in any case: vLLM 0.33 lower-cases `--quantization`
    /// before looking it up (`ModelConfig._verify_quantization`, `vllm/config/model.py`).
    pub fn from_any_case(text: &str) -> Option<Quantization> {
        let lower = text.to_ascii_lowercase();
        Quantization::ALL.iter().copied().find(|q| q.as_str() == lower)
    }
}

pub(crate) fn quantization_any_case<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Quantization>, D::Error> {
    let text = String::deserialize(d)?;
    Quantization::from_any_case(&text).map(Some).ok_or_else(|| {
        let names: Vec<&str> = Quantization::ALL.iter().map(|q| q.as_str()).collect();
        serde::de::Error::custom(format!("unknown quantization method `{text}`; vLLM 0.33 knows {}", names.join(", ")))
    })
}

/// The names as completions, and any upper/lower-case spelling of them as valid.
pub(crate) fn quantization_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let named = generator.subschema_for::<Quantization>();
    let any_case: Vec<String> = Quantization::ALL
        .iter()
        .map(|q| {
            q.as_str()
                .chars()
                .map(|c| {
                    if c.is_ascii_alphabetic() {
                        format!("[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase())
                    } else {
                        c.to_string()
                    }
                })
                .collect()
        })
        .collect();
    schemars::json_schema!({
        "anyOf": [
            named,
            {
                "type": "string",
                "pattern": format!("^({})$", any_case.join("|")),
                "description": "The same names in any case: vLLM lower-cases them."
            }
        ]
    })
}
