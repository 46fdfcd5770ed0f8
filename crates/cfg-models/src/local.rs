//! A config.json (or a model folder) on this machine: `--model-config PATH`,
//! or a `[model] name` that is a path, as vLLM accepts.

use std::path::Path;

use crate::{MAX_CONFIG_BYTES, MAX_INDEX_BYTES, ModelFiles, read_bounded};

pub(crate) const CONFIG: &str = "config.json";
pub(crate) const INDEX: &str = "model.safetensors.index.json";

/// A config.json file, or a folder with one (and its index beside it, if there).
pub fn read(path: &Path) -> Result<ModelFiles, String> {
    let (config, folder) = if path.is_dir() {
        (path.join(CONFIG), path)
    } else {
        (path.to_path_buf(), path.parent().unwrap_or(Path::new(".")))
    };
    let config_json = read_bounded(&config, MAX_CONFIG_BYTES)?;
    let index = folder.join(INDEX);
    let safetensors_index = if index.is_file() { Some(read_bounded(&index, MAX_INDEX_BYTES)?) } else { None };
    Ok(ModelFiles { config_json, safetensors_index, origin: config.display().to_string() })
}

/// The model folder `name` names, when it is a path to one.
pub fn from_name(name: &str, env: &crate::Env) -> Result<Option<ModelFiles>, String> {
    let path = Path::new(name);
    let looks_local =
        name.starts_with('/') || name.starts_with('.') || name.starts_with('~') || path.join(CONFIG).is_file();
    if !looks_local {
        return Ok(None);
    }
    let expanded = match name.strip_prefix("~/") {
        Some(rest) => env.home.as_ref().map_or(path.to_path_buf(), |h| h.join(rest)),
        None => path.to_path_buf(),
    };
    if expanded.join(CONFIG).is_file() { read(&expanded).map(Some) } else { Ok(None) }
}
