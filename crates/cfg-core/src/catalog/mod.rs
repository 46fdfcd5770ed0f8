//! Built-in catalogs of GPUs and popular open models.
//!
//! The memory model and the start-up checks need numbers a config file rarely
//! states: how much memory a GPU has, its compute capability, and a model's
//! architecture. These tables supply them; `[hardware]` and
//! `[model.architecture]` in config.toml override them for anything missing.

mod gpus;
mod models;

pub use gpus::GPUS;
pub use models::MODELS;

/// Who makes a GPU; decides which vendor-specific checks apply
/// (compute capability only means something on NVIDIA).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    Nvidia,
    Amd,
}

/// One GPU model. Figures are per GPU, from the vendor's data sheet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuSpec {
    /// Canonical catalog name, e.g. `H100-80GB`.
    pub name: &'static str,
    /// Other spellings users write (matched case-insensitively), e.g. `H100`, `H100-SXM`.
    pub aliases: &'static [&'static str],
    pub vendor: Vendor,
    /// Total device memory in GiB as the driver reports it (80 GB parts report ~79.2 GiB;
    /// we use the marketing figure in GiB, which is what vLLM's tier table compares against).
    pub memory_gib: f64,
    /// CUDA compute capability (major, minor); `None` for non-NVIDIA parts.
    pub compute_capability: Option<(u8, u8)>,
    /// Peak memory bandwidth in GB/s (decode speed is bound by it).
    pub memory_bandwidth_gbps: f64,
    /// Dense (no sparsity) BF16 tensor throughput in TFLOP/s (prefill speed is bound by it);
    /// for parts without BF16 tensor cores (T4, V100) the FP16 figure.
    pub bf16_dense_tflops: f64,
}

/// Multi-head latent attention parameters (DeepSeek V2/V3/R1 style).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MlaSpec {
    pub kv_lora_rank: u32,
    pub qk_rope_head_dim: u32,
}

/// A model's architecture, with Hugging Face `config.json` names.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArchSpec {
    /// HF `model_type`, e.g. `llama`, `qwen2`, `gemma3_text`, `deepseek_v3`.
    pub model_type: &'static str,
    /// Total parameter count (all experts for MoE models).
    pub num_parameters: u64,
    /// Parameters touched per token (equal to `num_parameters` for dense models).
    pub num_active_parameters: u64,
    pub num_hidden_layers: u32,
    pub num_attention_heads: u32,
    pub num_key_value_heads: u32,
    pub head_dim: u32,
    pub hidden_size: u32,
    pub intermediate_size: u32,
    pub vocab_size: u32,
    pub max_position_embeddings: u32,
    /// The checkpoint's `torch_dtype`: "bfloat16", "float16" or "float32".
    pub torch_dtype: &'static str,
    /// The checkpoint's own `quantization_config.quant_method`, if it ships quantized
    /// (DeepSeek-V3/R1 ship native fp8).
    pub quant_method: Option<&'static str>,
    pub mla: Option<MlaSpec>,
    /// Number of routed experts for MoE models.
    pub num_experts: Option<u32>,
}

/// One catalog model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelSpec {
    /// Hugging Face id, e.g. `meta-llama/Llama-3.1-8B-Instruct`.
    pub id: &'static str,
    /// Other ids with the same architecture (base vs -Instruct), matched case-insensitively.
    pub aliases: &'static [&'static str],
    pub arch: ArchSpec,
}

fn normalise(name: &str) -> String {
    name.trim().chars().filter(|c| !matches!(c, '-' | '_' | ' ')).flat_map(char::to_lowercase).collect()
}

/// Looks a GPU up by name or alias, ignoring case, `-`, `_` and spaces
/// (`h100 80gb`, `H100-80GB` and `h100_80gb` are the same GPU).
pub fn find_gpu(name: &str) -> Option<&'static GpuSpec> {
    let wanted = normalise(name);
    GPUS.iter().find(|gpu| normalise(gpu.name) == wanted || gpu.aliases.iter().any(|a| normalise(a) == wanted))
}

/// Looks a model up by Hugging Face id (or alias), ignoring case. A local path
/// whose last component is a catalog id's last component also matches
/// (`/models/Llama-3.1-8B-Instruct`), since that is how checkpoints are mounted.
pub fn find_model(name: &str) -> Option<&'static ModelSpec> {
    let wanted = name.trim().trim_end_matches('/').to_ascii_lowercase();
    let ids = |m: &'static ModelSpec| std::iter::once(m.id).chain(m.aliases.iter().copied());
    MODELS.iter().find(|m| ids(m).any(|id| id.eq_ignore_ascii_case(&wanted))).or_else(|| {
        let tail = wanted.rsplit('/').next().unwrap_or(&wanted);
        MODELS.iter().find(|m| ids(m).any(|id| id.rsplit('/').next().is_some_and(|t| t.eq_ignore_ascii_case(tail))))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogs_are_large_enough_and_unique() {
        assert!(GPUS.len() >= 15, "{} GPUs", GPUS.len());
        assert!(MODELS.len() >= 25, "{} models", MODELS.len());
        let mut names: Vec<String> =
            GPUS.iter().flat_map(|g| std::iter::once(g.name).chain(g.aliases.iter().copied())).map(normalise).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(n, names.len(), "duplicate GPU name or alias");
        let mut ids: Vec<String> = MODELS
            .iter()
            .flat_map(|m| std::iter::once(m.id).chain(m.aliases.iter().copied()))
            .map(str::to_ascii_lowercase)
            .collect();
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(n, ids.len(), "duplicate model id or alias");
    }

    #[test]
    fn architectures_are_self_consistent() {
        for m in MODELS {
            let a = &m.arch;
            assert!(a.num_attention_heads % a.num_key_value_heads == 0, "{}", m.id);
            assert!(a.num_active_parameters <= a.num_parameters, "{}", m.id);
            assert!(a.head_dim > 0 && a.num_hidden_layers > 0, "{}", m.id);
            assert!(matches!(a.torch_dtype, "bfloat16" | "float16" | "float32"), "{}", m.id);
        }
    }

    #[test]
    fn lookups_ignore_case_and_punctuation() {
        assert_eq!(find_gpu("h100 80gb").unwrap().name, "H100-80GB");
        assert_eq!(find_gpu("l4").unwrap().name, "L4");
        assert!(find_gpu("H101").is_none());
        let m = find_model("META-LLAMA/LLAMA-3.1-8B-INSTRUCT").unwrap();
        assert_eq!(m.arch.num_hidden_layers, 32);
        assert_eq!(find_model("/models/Llama-3.1-8B-Instruct").unwrap().id, m.id);
    }
}
