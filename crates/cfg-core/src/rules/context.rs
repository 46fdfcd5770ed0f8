//! What a rule looks at: a config.toml that passed its schema, with the
//! figures vLLM would derive from it computed once for every rule, and a
//! settings.json that passed its schema.

use crate::memory::{MemoryReport, Missing};
use crate::model::{LoadTestSettings, ServerConfig};
use crate::resolve::{Arch, Batch, Gpu, ResolvedDtype};
use crate::tree::Node;
use crate::vllm::quantization::Method;

/// A valid config.toml and what vLLM would make of it.
pub struct ConfigContext<'a> {
    pub config: &'a ServerConfig,
    pub tree: &'a Node,
    /// The GPU from the catalog or `[hardware]`, if named.
    pub gpu: Option<Gpu>,
    pub arch: Arch,
    pub dtype: ResolvedDtype,
    /// The batching knobs vLLM would run with.
    pub batch: Batch,
    pub memory: Result<MemoryReport, Missing>,
    /// The quantization method vLLM settles on (the config's, resolved against
    /// the checkpoint's), or vLLM's refusal.
    pub quantization: Result<Option<Method>, String>,
}

impl<'a> ConfigContext<'a> {
    /// `found`: the model's own files, when the caller found them.
    pub fn new(config: &'a ServerConfig, tree: &'a Node, found: Option<&Arch>) -> Self {
        let gpu = crate::resolve::gpu(config);
        let arch = crate::resolve::arch_with(config, found);
        let dtype = crate::resolve::dtype(config, &arch, gpu.as_ref());
        let mut batch = crate::resolve::batch(config, &arch, gpu.as_ref());
        let memory = match &gpu {
            Some(g) => crate::memory::estimate_with(config, g, &arch),
            None => Err(Missing::Gpu),
        };
        if let (true, Ok(m)) = (batch.max_model_len_auto, &memory) {
            // The length vLLM serves with once it has fitted "auto" to the cache;
            // its start-up checks saw the model's own (`declared_max_model_len`).
            batch.max_model_len = m.max_model_len;
        }
        let quantization = crate::vllm::quantization::resolve(config.model.quantization, &arch);
        ConfigContext { config, tree, gpu, arch, dtype, batch, memory, quantization }
    }

    /// Whether a key is written in the file (rules that judge explicit values
    /// must not fire on vLLM's own defaults).
    pub fn has(&self, pointer: &str) -> bool {
        self.tree.locate(pointer).is_some()
    }
}

/// A valid settings.json.
pub struct SettingsContext<'a> {
    pub settings: &'a LoadTestSettings,
    pub tree: &'a Node,
}

impl SettingsContext<'_> {
    /// Whether a key is written in the file.
    pub fn has(&self, pointer: &str) -> bool {
        self.tree.locate(pointer).is_some()
    }
}
