//! What a rule looks at: a config.toml that passed its schema, with the
//! figures vLLM would derive from it computed once for every rule, and a
//! settings.json that passed its schema.

use crate::memory::{MemoryReport, Missing};
use crate::model::{LoadTestSettings, ServerConfig};
use crate::resolve::{Arch, Batch, Gpu, ResolvedDtype};
use crate::tree::Node;

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
}

impl<'a> ConfigContext<'a> {
    pub fn new(config: &'a ServerConfig, tree: &'a Node) -> Self {
        let gpu = crate::resolve::gpu(config);
        let arch = crate::resolve::arch(config);
        let dtype = crate::resolve::dtype(config, &arch, gpu.as_ref());
        let batch = crate::resolve::batch(config, &arch, gpu.as_ref());
        let memory = match &gpu {
            Some(g) => crate::memory::estimate_with(config, g, &arch),
            None => Err(Missing::Gpu),
        };
        ConfigContext { config, tree, gpu, arch, dtype, batch, memory }
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
