//! Reading the files a command names: bounded, UTF-8, each kind told from its
//! name and content.

use std::io::Read;
use std::path::{Path, PathBuf};

use cfg_core::parse::MAX_FILE_BYTES;
use cfg_core::{Input, Options, Report};

/// A file's text, refused before reading past the size any config or settings
/// file has (a device or a huge file is never read whole).
pub fn read(path: &Path) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{} is larger than {} bytes: a config or settings file is a few kilobytes; check that this is the right file",
            path.display(),
            MAX_FILE_BYTES
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!("{} is not UTF-8 text (invalid byte at offset {})", path.display(), e.utf8_error().valid_up_to())
    })
}

/// Reads the files, tells their kinds and lints them together.
pub fn lint_paths(files: &[PathBuf], model_config: Option<&Path>) -> Result<(Vec<Input>, Report), String> {
    let mut inputs = Vec::new();
    for path in files {
        let text = read(path)?;
        let name = path.to_string_lossy().into_owned();
        let kind = cfg_core::detect_kind(&name, &text).ok_or_else(|| {
            format!("cannot tell whether {name} is a config.toml or a settings.json; name it *.toml or *.json")
        })?;
        inputs.push(Input::new(kind, name, text));
    }
    let mut options = Options::default();
    if let Some(path) = model_config {
        let text = read(path)?;
        options.model_config =
            Some(cfg_core::hf::architecture_from_config_json(&text).map_err(|e| format!("{}: {e}", path.display()))?);
    }
    let report = cfg_core::lint(&inputs, &options);
    Ok((inputs, report))
}
