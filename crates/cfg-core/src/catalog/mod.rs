//! Built-in catalogs of GPUs and of the open models people serve.
//!
//! The memory model and the start-up checks need numbers a config file rarely
//! states: how much memory a GPU has, its compute capability, and a model's
//! architecture. The GPU table and the models' real config.json files supply them; `[hardware]` and
//! `[model.architecture]` in config.toml override them for anything missing.

mod gpus;
mod models;

pub use gpus::GPUS;
pub use models::{CatalogModel, config_json, find_model, ids, models};

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
    /// The marketed capacity in GiB (80 for an "80 GB" part): what vLLM's
    /// batching-default tiers compare against.
    pub memory_gib: f64,
    /// The total the device reports (torch's `mem_get_info`), in GiB: what vLLM
    /// multiplies by gpu_memory_utilization. An "80 GB" H100 reports 79.19.
    pub reported_gib: f64,
    /// CUDA compute capability (major, minor); `None` for non-NVIDIA parts.
    pub compute_capability: Option<(u8, u8)>,
    /// Peak memory bandwidth in GB/s (decode speed is bound by it).
    pub memory_bandwidth_gbps: f64,
    /// Dense (no sparsity) BF16 tensor throughput in TFLOP/s (prefill speed is bound by it);
    /// for parts without BF16 tensor cores (T4, V100) the FP16 figure.
    pub bf16_dense_tflops: f64,
    /// GB/s one GPU sends to its tensor-parallel peers, one way: NVLink or
    /// Infinity Fabric where the part has it, else its PCIe slot. A step's
    /// all-reduces move the batch's activations over it.
    pub link_gbps: f64,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogs_are_large_enough_and_unique() {
        assert!(GPUS.len() >= 15, "{} GPUs", GPUS.len());
        let mut names: Vec<String> =
            GPUS.iter().flat_map(|g| std::iter::once(g.name).chain(g.aliases.iter().copied())).map(normalise).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(n, names.len(), "duplicate GPU name or alias");
    }

    #[test]
    fn lookups_ignore_case_and_punctuation() {
        assert_eq!(find_gpu("h100 80gb").unwrap().name, "H100-80GB");
        assert_eq!(find_gpu("l4").unwrap().name, "L4");
        assert!(find_gpu("H101").is_none());
    }
}
