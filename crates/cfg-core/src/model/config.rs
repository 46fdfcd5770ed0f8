//! `config.toml`: one vLLM instance, in our own TOML format (vLLM itself only
//! reads YAML; `cfg-lint render` produces the real launch).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::enums::{Dtype, KvCacheDtype, Quantization, SchedulingPolicy};
use super::lengths::MaxModelLen;

/// # vLLM server configuration
/// One vLLM instance: where it listens, which model it serves and how, how it batches,
/// how it is split across GPUs, and what hardware it runs on. Validate with
/// `cfg-lint check config.toml`; turn it into a real launch with `cfg-lint render config.toml`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// Network settings of the OpenAI-compatible API server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<Server>,
    /// The model served and how its weights and cache are stored.
    pub model: Model,
    /// The two batching knobs of the TTFT / throughput trade-off, and the scheduler.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batching: Option<Batching>,
    /// How the model is split across GPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel: Option<Parallel>,
    /// Prometheus metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub monitoring: Option<Monitoring>,
    /// The machine the instance runs on. Not a vLLM setting: the linter needs it to check
    /// that the model fits, that the GPU supports the dtype and quantization, and that
    /// there are enough GPUs for the parallel sizes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardware: Option<Hardware>,
}

/// Network settings of the OpenAI-compatible API server.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Server {
    /// Listen address (vLLM `--host`). Production should listen on the internal network
    /// only, with a gateway in front. Default: all interfaces. Example: "0.0.0.0".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 253), example = &"0.0.0.0")]
    pub host: Option<String>,
    /// TCP port of the API (vLLM `--port`); `/metrics` is served here too. Default 8000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 65535), extend("default" = 8000), example = 8000)]
    pub port: Option<u16>,
    /// API key the server requires as `Authorization: Bearer <key>` (vLLM `--api-key`).
    /// Must be a reference to an environment variable, `${NAME}`, never the key itself:
    /// the file is committed, the key must not be. Example: "${VLLM_INTERNAL_KEY}".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"${VLLM_INTERNAL_KEY}", length(max = 256))]
    pub api_key: Option<String>,
    /// Names clients use in the `model` field (vLLM `--served-model-name`); the first is used
    /// in responses and metrics. Default: the model name. A string or a list of strings.
    /// Example: ["llama-8b", "default"].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served_model_name: Option<ServedModelName>,
}

/// One name or several aliases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ServedModelName {
    One(#[schemars(length(min = 1, max = 256))] String),
    Many(#[schemars(length(min = 1, max = 32), inner(length(min = 1, max = 256)))] Vec<String>),
}

impl ServedModelName {
    pub fn names(&self) -> Vec<&str> {
        match self {
            ServedModelName::One(n) => vec![n.as_str()],
            ServedModelName::Many(ns) => ns.iter().map(String::as_str).collect(),
        }
    }
}

/// The model served and how its weights and cache are stored.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Model {
    /// Hugging Face id or local path of the model (vLLM's positional `model`).
    /// Catalog models (e.g. "meta-llama/Llama-3.1-8B-Instruct") need no `[model.architecture]`.
    #[schemars(length(min = 1, max = 512), example = &"meta-llama/Llama-3.1-8B-Instruct")]
    pub name: String,
    /// Data type of weights and activations (vLLM `--dtype`). Default "auto".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "auto"))]
    pub dtype: Option<Dtype>,
    /// Quantization method (vLLM `--quantization`); chosen by the hardware and measured
    /// accuracy. Default: none (or the checkpoint's own). Example: "fp8".
    /// Any case is accepted: vLLM lower-cases the name ("FP8" is "fp8").
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::enums::quantization_any_case"
    )]
    #[schemars(schema_with = "super::enums::quantization_schema")]
    pub quantization: Option<Quantization>,
    /// Longest prompt + output a request may have, in tokens (vLLM `--max-model-len`).
    /// Default: the model's maximum (the smallest of its length keys in config.json).
    /// Also `"32k"` (32000), `"32K"` (32768), or `-1` / `"auto"`: the longest length the
    /// KV cache can hold. Example: 8192.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = 8192)]
    pub max_model_len: Option<MaxModelLen>,
    /// Fraction of each GPU's total memory this instance may use for weights, activations
    /// and KV cache (vLLM `--gpu-memory-utilization`), in (0, 1]. Default 0.92 (vLLM 0.33).
    /// Example: 0.90.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0), extend("exclusiveMinimum" = 0.0, "default" = 0.92), example = 0.9)]
    pub gpu_memory_utilization: Option<f64>,
    /// Data type of the KV cache (vLLM `--kv-cache-dtype`). Default "auto" (the model dtype).
    /// "fp8" halves KV memory per token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "auto"))]
    pub kv_cache_dtype: Option<KvCacheDtype>,
    /// Disable CUDA graphs and torch.compile (vLLM `--enforce-eager`): saves the CUDA-graph
    /// memory and start-up time, costs decode speed. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    pub enforce_eager: Option<bool>,
    /// The model's architecture, with Hugging Face config.json names. Overrides the built-in
    /// catalog; needed for models the catalog does not know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub architecture: Option<Architecture>,
}

/// A model's architecture as in its Hugging Face `config.json`. Every key is optional and
/// overrides the catalog entry for `model.name`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Architecture {
    /// Total parameter count (all experts for mixture-of-experts models). Example: 8030261248.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), example = 8_030_261_248u64)]
    pub num_parameters: Option<u64>,
    /// Transformer layers. Example: 32.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100_000), example = 32)]
    pub num_hidden_layers: Option<u32>,
    /// Query attention heads. Example: 32.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100_000), example = 32)]
    pub num_attention_heads: Option<u32>,
    /// Key/value heads (grouped-query attention); equals num_attention_heads for plain
    /// multi-head attention. Example: 8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100_000), example = 8)]
    pub num_key_value_heads: Option<u32>,
    /// Size of one attention head. Default hidden_size / num_attention_heads. Example: 128.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100_000), example = 128)]
    pub head_dim: Option<u32>,
    /// Width of the residual stream. Example: 4096.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 10_000_000), example = 4096)]
    pub hidden_size: Option<u32>,
    /// Width of the MLP (per expert for MoE models). Example: 14336.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 10_000_000), example = 14336)]
    pub intermediate_size: Option<u32>,
    /// Vocabulary size; sizes the logits in the activation peak. Example: 128256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100_000_000), example = 128256)]
    pub vocab_size: Option<u32>,
    /// Longest sequence the model was trained for; vLLM refuses a larger max_model_len.
    /// Example: 131072.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100_000_000), example = 131072)]
    pub max_position_embeddings: Option<u32>,
    /// Hugging Face `model_type`, e.g. "llama", "gemma2" (gemma2/gemma3/glm4 refuse float16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 64), example = &"llama")]
    pub model_type: Option<String>,
    /// The checkpoint's dtype (`torch_dtype`): "bfloat16", "float16" or "float32".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"bfloat16")]
    pub torch_dtype: Option<CheckpointDtype>,
    /// MLA (DeepSeek-style latent attention): rank of the compressed KV. Example: 512.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100_000), example = 512)]
    pub kv_lora_rank: Option<u32>,
    /// MLA: rotary part of each key head. Example: 64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 100_000), example = 64)]
    pub qk_rope_head_dim: Option<u32>,
}

/// Calls `$apply!` with the names of every [`Architecture`] field, so code that
/// copies or merges architectures lists them in one place.
#[macro_export]
macro_rules! architecture_fields {
    ($apply:ident) => {
        $apply!(
            num_parameters,
            num_hidden_layers,
            num_attention_heads,
            num_key_value_heads,
            head_dim,
            hidden_size,
            intermediate_size,
            vocab_size,
            max_position_embeddings,
            model_type,
            torch_dtype,
            kv_lora_rank,
            qk_rope_head_dim
        )
    };
}

/// The dtype a checkpoint is stored in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CheckpointDtype {
    /// 16-bit brain float.
    Bfloat16,
    /// IEEE half precision.
    Float16,
    /// Full precision.
    Float32,
}

impl CheckpointDtype {
    /// Bytes per element.
    pub fn bytes(self) -> f64 {
        match self {
            CheckpointDtype::Float32 => 4.0,
            CheckpointDtype::Bfloat16 | CheckpointDtype::Float16 => 2.0,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            CheckpointDtype::Bfloat16 => "bfloat16",
            CheckpointDtype::Float16 => "float16",
            CheckpointDtype::Float32 => "float32",
        }
    }
}

/// The two batching knobs and the scheduler. Their values must come from load tests,
/// never be copied: a larger max_num_seqs raises throughput but stretches prefill and TTFT.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Batching {
    /// Most sequences in one batch (vLLM `--max-num-seqs`). Default depends on the GPU:
    /// 1024 on H100/H200-class (>= 70 GiB, not A100) and >= 160 GiB parts, 256 otherwise.
    /// Example: 256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1_000_000), example = 256)]
    pub max_num_seqs: Option<u32>,
    /// Most tokens processed in one engine step (vLLM `--max-num-batched-tokens`). Default
    /// depends on the GPU: 16384 on >= 160 GiB parts, 8192 on H100/H200-class, 2048 otherwise.
    /// Must be >= max_model_len when chunked prefill is off. Example: 8192.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 100_000_000), example = 8192)]
    pub max_num_batched_tokens: Option<u32>,
    /// "fcfs" or "priority" (vLLM `--scheduling-policy`). Default "fcfs".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "fcfs"))]
    pub scheduling_policy: Option<SchedulingPolicy>,
    /// Split long prompts into chunks of max_num_batched_tokens and mix them with decodes
    /// (vLLM `--enable-chunked-prefill`). Default true (vLLM V1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub enable_chunked_prefill: Option<bool>,
}

/// How the model is split across GPUs.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Parallel {
    /// GPUs each layer is split across (vLLM `--tensor-parallel-size`). Must divide the
    /// attention heads. Default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1024), extend("default" = 1), example = 1)]
    pub tensor_parallel_size: Option<u32>,
    /// Pipeline stages, each holding a slice of the layers (vLLM `--pipeline-parallel-size`).
    /// Default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1024), extend("default" = 1), example = 1)]
    pub pipeline_parallel_size: Option<u32>,
}

/// Prometheus metrics.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Monitoring {
    /// Expose Prometheus metrics. vLLM always serves `/metrics` on the API port; there is no
    /// flag to turn it off (`--disable-log-stats` stops the periodic stats log). Default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true))]
    pub enable_metrics: Option<bool>,
    /// Port for metrics. vLLM has no such flag: `/metrics` is on the API port, so this is
    /// for a sidecar or gateway; it must differ from server.port. Example: 8001.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 65535), example = 8001)]
    pub metrics_port: Option<u16>,
}

/// The machine the instance runs on.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Hardware {
    /// GPU model from the built-in catalog, case-insensitive: "H100-80GB", "H200", "A100-80GB",
    /// "A100-40GB", "L40S", "L4", "A10G", "T4", "V100-32GB", "MI300X", "RTX-4090", ...
    /// (`cfg-lint memory --list-gpus`). For other GPUs give memory_gib and compute_capability.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 64), example = &"H100-80GB")]
    pub gpu: Option<String>,
    /// GPUs on the node available to this instance. Default: tensor x pipeline parallel size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1024), example = 1)]
    pub gpu_count: Option<u32>,
    /// Total memory of one GPU in GiB as the device reports it, which vLLM logs as
    /// "Free memory on device (x/79.19 GiB)"; overrides the catalog (for GPUs not in
    /// it). An "80 GB" H100 reports 79.19. Example: 79.19.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.5, max = 4096.0), example = 79.19)]
    pub memory_gib: Option<f64>,
    /// CUDA compute capability as "major.minor", e.g. "8.9"; overrides the catalog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9]{1,2}\.[0-9]$"), example = &"8.9")]
    pub compute_capability: Option<String>,
}

impl ServerConfig {
    pub fn server(&self) -> Server {
        self.server.clone().unwrap_or_default()
    }
    pub fn batching(&self) -> Batching {
        self.batching.clone().unwrap_or_default()
    }
    pub fn parallel(&self) -> Parallel {
        self.parallel.clone().unwrap_or_default()
    }
    pub fn monitoring(&self) -> Monitoring {
        self.monitoring.clone().unwrap_or_default()
    }
    pub fn hardware(&self) -> Hardware {
        self.hardware.clone().unwrap_or_default()
    }
    pub fn tensor_parallel_size(&self) -> u32 {
        self.parallel.as_ref().and_then(|p| p.tensor_parallel_size).unwrap_or(1)
    }
    pub fn pipeline_parallel_size(&self) -> u32 {
        self.parallel.as_ref().and_then(|p| p.pipeline_parallel_size).unwrap_or(1)
    }
    pub fn gpu_memory_utilization(&self) -> f64 {
        self.model.gpu_memory_utilization.unwrap_or(DEFAULT_GPU_MEMORY_UTILIZATION)
    }
    pub fn chunked_prefill(&self) -> bool {
        self.batching.as_ref().and_then(|b| b.enable_chunked_prefill).unwrap_or(true)
    }
    pub fn enforce_eager(&self) -> bool {
        self.model.enforce_eager.unwrap_or(false)
    }
    /// The names the server answers to in a request's `model` field.
    pub fn served_names(&self) -> Vec<&str> {
        match self.server.as_ref().and_then(|s| s.served_model_name.as_ref()) {
            Some(names) => names.names(),
            None => vec![self.model.name.as_str()],
        }
    }
}

/// vLLM 0.33's default `--gpu-memory-utilization`.
const DEFAULT_GPU_MEMORY_UTILIZATION: f64 = 0.92;
