//! Finds the files that describe a model (its `config.json` and, when there,
//! its `model.safetensors.index.json`), in the order a user already has them:
//! an explicit path, a local model folder (vLLM serves a path too), the
//! Hugging Face cache, and, only when asked, the Hub. Reading what the files
//! say is the core's job (`cfg_core::hf`); this crate only finds and fetches,
//! so that every face (the linter, the runner) finds models the same way.
//!
//! Nothing here touches the network unless `fetch` is asked for.

mod cache;
mod hub;
mod local;
#[cfg(feature = "test-hub")]
pub mod test_hub;

use std::path::PathBuf;

/// The environment variables lookups read, captured once so tests (and
/// callers) can give their own.
#[derive(Debug, Clone, Default)]
pub struct Env {
    pub hf_hub_cache: Option<PathBuf>,
    pub hf_home: Option<PathBuf>,
    pub xdg_cache_home: Option<PathBuf>,
    pub home: Option<PathBuf>,
    /// `HF_ENDPOINT`: the Hub's address (default https://huggingface.co).
    pub hf_endpoint: Option<String>,
    /// `HF_TOKEN`: sent as a bearer token, never printed or written.
    pub hf_token: Option<String>,
}

impl Env {
    pub fn from_process() -> Env {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        Env {
            hf_hub_cache: var("HF_HUB_CACHE").map(PathBuf::from),
            hf_home: var("HF_HOME").map(PathBuf::from),
            xdg_cache_home: var("XDG_CACHE_HOME").map(PathBuf::from),
            home: var("HOME").map(PathBuf::from),
            hf_endpoint: var("HF_ENDPOINT"),
            hf_token: var("HF_TOKEN"),
        }
    }

    /// The cache's root: `HF_HUB_CACHE`, else `HF_HOME/hub`, else
    /// `$XDG_CACHE_HOME/huggingface/hub`, else `~/.cache/huggingface/hub`.
    pub fn cache_root(&self) -> Option<PathBuf> {
        self.hf_hub_cache
            .clone()
            .or_else(|| self.hf_home.as_ref().map(|h| h.join("hub")))
            .or_else(|| self.xdg_cache_home.as_ref().map(|c| c.join("huggingface/hub")))
            .or_else(|| self.home.as_ref().map(|h| h.join(".cache/huggingface/hub")))
    }
}

/// Largest config.json read (real ones are a few kilobytes).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// Largest safetensors index read (the largest real ones are a few hundred kilobytes).
pub const MAX_INDEX_BYTES: u64 = 16 << 20;

/// A model's files, as found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFiles {
    pub config_json: String,
    pub safetensors_index: Option<String>,
    /// Where the files were found: a path, or the Hub URL they came from.
    pub origin: String,
}

/// What to look for, and where.
#[derive(Debug, Clone, Default)]
pub struct Lookup {
    /// `[model] name`: a Hub id (`org/name`) or a local path.
    pub name: String,
    /// `--model-config`: a config.json, or a folder holding one.
    pub explicit: Option<PathBuf>,
    /// Ask the Hub (`--fetch`) when the model is nowhere on this machine.
    pub fetch: bool,
}

/// The model's files from the first place that has them; `Ok(None)` when no
/// place on this machine has them and fetching was not asked for. An explicit
/// path that cannot be read, or a fetch that fails, is an error.
pub fn find(lookup: &Lookup, env: &Env) -> Result<Option<ModelFiles>, String> {
    if let Some(path) = &lookup.explicit {
        return local::read(path).map(Some);
    }
    if let Some(files) = local::from_name(&lookup.name, env)? {
        return Ok(Some(files));
    }
    let root = env.cache_root();
    if hub::is_hub_id(&lookup.name) {
        if let Some(files) = root.as_deref().and_then(|r| cache::read(r, &lookup.name)) {
            return Ok(Some(files));
        }
        if lookup.fetch {
            return hub::fetch(&lookup.name, root.as_deref(), env).map(Some);
        }
    }
    Ok(None)
}

/// A Hub model's files from the cache, else (with `fetch`) from the Hub, never
/// from a local folder: for requests that come from elsewhere (the web app asking
/// `cfg-bench serve`), a name must not become a path on this machine.
pub fn find_hub_model(name: &str, env: &Env, fetch: bool) -> Result<Option<ModelFiles>, String> {
    if !hub::is_hub_id(name) {
        return Err(format!("`{name}` is not a Hugging Face model id (org/name)"));
    }
    let root = env.cache_root();
    if let Some(files) = root.as_deref().and_then(|r| cache::read(r, name)) {
        return Ok(Some(files));
    }
    if fetch { hub::fetch(name, root.as_deref(), env).map(Some) } else { Ok(None) }
}

/// What to tell a user whose model was found nowhere.
pub fn not_found_help(name: &str, env: &Env) -> String {
    let cache = env.cache_root().map_or("the Hugging Face cache".to_string(), |r| r.display().to_string());
    format!(
        "`{name}` is not in the catalog and its config.json is not on this machine: pass --model-config \
         PATH (a config.json or the model's folder), download it into the Hugging Face cache ({cache}, e.g. \
         `huggingface-cli download {name} config.json`), or add --fetch to fetch it from the Hub (HF_ENDPOINT, HF_TOKEN)"
    )
}

/// Reads at most `limit` bytes of a file as UTF-8, refusing larger files
/// before reading them whole.
fn read_bounded(path: &std::path::Path, limit: u64) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() as u64 > limit {
        return Err(format!("{} is larger than {limit} bytes: not a model's config", path.display()));
    }
    String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", path.display()))
}
