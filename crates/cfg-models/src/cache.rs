//! The Hugging Face cache, as `huggingface_hub` lays it out: under the root,
//! `models--ORG--NAME/refs/main` holds a revision, and
//! `models--ORG--NAME/snapshots/REVISION/` the files of that revision.

use std::path::{Path, PathBuf};

use crate::local::{CONFIG, INDEX};
use crate::{MAX_CONFIG_BYTES, MAX_INDEX_BYTES, ModelFiles, read_bounded};

/// The folder of a Hub id in the cache (`org/name` -> `models--org--name`).
pub(crate) fn model_dir(root: &Path, id: &str) -> PathBuf {
    root.join(format!("models--{}", id.replace('/', "--")))
}

/// The cached files of `id`: the revision `refs/main` names, else the newest
/// snapshot that has a config.json.
pub fn read(root: &Path, id: &str) -> Option<ModelFiles> {
    let dir = model_dir(root, id);
    let snapshots = dir.join("snapshots");
    let named = std::fs::read_to_string(dir.join("refs/main")).ok().map(|r| snapshots.join(r.trim()));
    let snapshot = named.filter(|s| s.join(CONFIG).is_file()).or_else(|| {
        std::fs::read_dir(&snapshots)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join(CONFIG).is_file())
            .max_by_key(|p| p.join(CONFIG).metadata().and_then(|m| m.modified()).ok())
    })?;
    let config = snapshot.join(CONFIG);
    let config_json = read_bounded(&config, MAX_CONFIG_BYTES).ok()?;
    let safetensors_index = read_bounded(&snapshot.join(INDEX), MAX_INDEX_BYTES).ok();
    Some(ModelFiles { config_json, safetensors_index, origin: config.display().to_string() })
}

/// Writes fetched files into the cache layout, so the next lookup (and
/// `huggingface_hub`) finds them without the network.
pub(crate) fn write(root: &Path, id: &str, revision: &str, files: &ModelFiles) -> Result<PathBuf, String> {
    let dir = model_dir(root, id);
    let snapshot = dir.join("snapshots").join(revision);
    std::fs::create_dir_all(&snapshot).map_err(|e| format!("cannot create {}: {e}", snapshot.display()))?;
    let put = |name: &str, text: &str| {
        let path = snapshot.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    put(CONFIG, &files.config_json)?;
    if let Some(index) = &files.safetensors_index {
        put(INDEX, index)?;
    }
    std::fs::create_dir_all(dir.join("refs")).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    std::fs::write(dir.join("refs/main"), revision).map_err(|e| format!("cannot write refs/main: {e}"))?;
    Ok(snapshot.join(CONFIG))
}
