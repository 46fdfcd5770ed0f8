//! Turns a config into the numbers vLLM would actually use: the GPU from the
//! catalog or `[hardware]`, the architecture from the catalog or
//! `[model.architecture]`, the resolved dtype, and vLLM 0.33's defaults for
//! everything left out.

pub use crate::arch::{Arch, LayerKinds, Length, LinearAttention};
use crate::catalog::{self, Vendor};
use crate::model::{CheckpointDtype, Dtype, KvCacheDtype, MaxModelLen, ServerConfig};

#[derive(Debug, Clone, PartialEq)]
pub struct Gpu {
    pub name: String,
    /// The marketed size (vLLM's batching tiers compare against it).
    pub memory_gib: f64,
    /// What the device reports (vLLM's budget is this x gpu_memory_utilization).
    pub reported_gib: f64,
    pub compute_capability: Option<(u8, u8)>,
    pub vendor: Vendor,
    pub memory_bandwidth_gbps: Option<f64>,
    pub bf16_dense_tflops: Option<f64>,
    pub in_catalog: bool,
}

impl Gpu {
    /// Capability as vLLM encodes it: major * 10 + minor (80 = Ampere, 90 = Hopper).
    pub fn capability_code(&self) -> Option<u32> {
        self.compute_capability.map(|(a, b)| u32::from(a) * 10 + u32::from(b))
    }
}

/// Effective dtype of weights and activations after vLLM's `auto` resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResolvedDtype {
    Float16,
    Bfloat16,
    Float32,
}

impl ResolvedDtype {
    pub fn bytes(self) -> f64 {
        match self {
            ResolvedDtype::Float32 => 4.0,
            _ => 2.0,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            ResolvedDtype::Float16 => "float16",
            ResolvedDtype::Bfloat16 => "bfloat16",
            ResolvedDtype::Float32 => "float32",
        }
    }
}

pub fn gpu(config: &ServerConfig) -> Option<Gpu> {
    let hw = config.hardware.as_ref()?;
    let spec = hw.gpu.as_deref().and_then(catalog::find_gpu);
    let cc = hw.compute_capability.as_deref().and_then(parse_capability).or(spec.and_then(|s| s.compute_capability));
    let (memory, reported) = match (hw.memory_gib, spec) {
        (Some(m), _) => (m, m),
        (None, Some(s)) => (s.memory_gib, s.reported_gib),
        (None, None) => return None,
    };
    Some(Gpu {
        name: spec.map(|s| s.name.to_string()).or_else(|| hw.gpu.clone()).unwrap_or_else(|| "custom GPU".into()),
        memory_gib: memory,
        reported_gib: reported,
        compute_capability: cc,
        vendor: spec.map_or(Vendor::Nvidia, |s| s.vendor),
        memory_bandwidth_gbps: spec.map(|s| s.memory_bandwidth_gbps),
        bf16_dense_tflops: spec.map(|s| s.bf16_dense_tflops),
        in_catalog: spec.is_some(),
    })
}

fn parse_capability(text: &str) -> Option<(u8, u8)> {
    let (a, b) = text.split_once('.')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// The architecture from the catalog: [`arch_with`] with no files found.
pub fn arch(config: &ServerConfig) -> Arch {
    arch_with(config, None)
}

/// The architecture: the model's own files when the caller found them (read by
/// `crate::hf`), else the catalog's entry for `model.name`; then
/// `[model.architecture]` overrides it key by key.
pub fn arch_with(config: &ServerConfig, found: Option<&Arch>) -> Arch {
    let mut arch =
        found.cloned().or_else(|| catalog::find_model(&config.model.name).map(|m| m.arch.clone())).unwrap_or_default();
    if let Some(o) = &config.model.architecture {
        macro_rules! take {
            ($($field:ident),*) => { $( if o.$field.is_some() { arch.$field = o.$field.clone(); } )* };
        }
        crate::architecture_fields!(take);
        if o.max_position_embeddings.is_some() {
            arch.length = None;
        }
        if o.num_parameters.is_some() {
            arch.num_active_parameters = o.num_parameters;
            // The written count, not the files' bytes, is what the user asked for.
            arch.weight_bytes = None;
        }
    }
    arch
}

/// Models whose type refuses float16 (vLLM `_FLOAT16_NOT_SUPPORTED_MODELS`).
pub const FLOAT16_UNSUPPORTED: &[&str] = &["gemma2", "gemma3", "gemma3_text", "glm4"];

/// The dtype vLLM ends up using (§2.6 of the reference): explicit values as
/// given, `auto` from the checkpoint and what the GPU supports.
pub fn dtype(config: &ServerConfig, arch: &Arch, gpu: Option<&Gpu>) -> ResolvedDtype {
    let checkpoint = match arch.torch_dtype {
        Some(CheckpointDtype::Float16) => ResolvedDtype::Float16,
        Some(CheckpointDtype::Float32) => ResolvedDtype::Float32,
        _ => ResolvedDtype::Bfloat16,
    };
    match config.model.dtype.unwrap_or_default() {
        Dtype::Half | Dtype::Float16 => ResolvedDtype::Float16,
        Dtype::Bfloat16 => ResolvedDtype::Bfloat16,
        Dtype::Float | Dtype::Float32 => ResolvedDtype::Float32,
        Dtype::Auto => {
            let cap = gpu.and_then(Gpu::capability_code);
            let no_fp16 = arch.model_type.as_deref().is_some_and(|t| FLOAT16_UNSUPPORTED.contains(&t));
            match cap {
                Some(c) if c < 80 && no_fp16 => ResolvedDtype::Float32,
                Some(c) if c < 80 => ResolvedDtype::Float16,
                _ if checkpoint == ResolvedDtype::Float32 => ResolvedDtype::Bfloat16,
                _ => checkpoint,
            }
        }
    }
}

/// vLLM 0.33's `vllm serve` defaults for the two batching knobs (§2.4):
/// (max_num_batched_tokens, max_num_seqs) by device memory and name.
/// `get_batch_defaults` in `vllm/engine/arg_utils.py`: by the NVML total, with
/// the A100 and the GB10 (compute capability 12.1) kept on the small tier.
fn batch_defaults(gpu: Option<&Gpu>) -> (u32, u32) {
    match gpu {
        Some(g) if g.memory_gib >= 160.0 => (16384, 1024),
        Some(g)
            if g.memory_gib >= 70.0
                && !g.name.to_lowercase().contains("a100")
                && g.compute_capability != Some((12, 1)) =>
        {
            (8192, 1024)
        }
        _ => (2048, 256),
    }
}

/// The batching numbers vLLM would run with: explicit values are kept as
/// written (vLLM never clamps them), defaults go through vLLM's adjustments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Batch {
    pub max_num_seqs: u32,
    pub max_num_batched_tokens: u32,
    pub max_model_len: u32,
    pub seqs_explicit: bool,
    pub tokens_explicit: bool,
    pub max_model_len_explicit: bool,
    /// `max_model_len = "auto"` (or -1): the model's length here, lowered to what
    /// the KV cache holds once memory is known (`ConfigContext::new`).
    pub max_model_len_auto: bool,
    /// The max_model_len vLLM's config-time checks see (`SchedulerConfig`):
    /// with "auto", the model's own length, not the fitted one.
    pub declared_max_model_len: u32,
}

pub fn batch(config: &ServerConfig, arch: &Arch, gpu: Option<&Gpu>) -> Batch {
    let b = config.batching();
    let written = config.model.max_model_len.and_then(MaxModelLen::tokens);
    // vLLM's fallback when config.json names no length key (`_get_and_verify_max_len`).
    let max_model_len = written.or(arch.default_max_model_len()).unwrap_or(2048);
    let (default_tokens, default_seqs) = batch_defaults(gpu);
    let mut tokens = b.max_num_batched_tokens.unwrap_or_else(|| {
        let mut t = default_tokens;
        // Encoder-decoder models run without chunked prefill whatever is set.
        if !config.chunked_prefill() || arch.is_encoder_decoder {
            t = t.max(max_model_len);
        }
        let seqs = u64::from(b.max_num_seqs.unwrap_or(default_seqs));
        u64::from(t).min(seqs * u64::from(max_model_len)) as u32
    });
    if tokens == 0 {
        tokens = 1;
    }
    let seqs = b.max_num_seqs.unwrap_or_else(|| default_seqs.min(tokens));
    Batch {
        max_num_seqs: seqs,
        max_num_batched_tokens: tokens,
        max_model_len,
        seqs_explicit: b.max_num_seqs.is_some(),
        tokens_explicit: b.max_num_batched_tokens.is_some(),
        max_model_len_explicit: written.is_some(),
        max_model_len_auto: config.model.max_model_len == Some(MaxModelLen::Auto),
        declared_max_model_len: max_model_len,
    }
}

/// The KV-cache dtype vLLM runs with: the config's, where `auto` (or nothing)
/// takes the checkpoint's own KV quantization when it has one (fp8), else the
/// model dtype (`None`).
pub fn kv_cache_dtype(config: &ServerConfig, arch: &Arch) -> Option<KvCacheDtype> {
    match config.model.kv_cache_dtype {
        None | Some(KvCacheDtype::Auto) if arch.kv_cache_fp8 => Some(KvCacheDtype::Fp8),
        other => other,
    }
}
