//! A load test's inputs: the two files, read and linted through the core
//! exactly as `cfg-lint check` lints them (a run refuses on errors), and the
//! key, from the environment variable settings.json names.

use std::path::Path;

use cfg_core::model::{LoadTestSettings, ServerConfig};
use cfg_core::output::{self, Format};
use cfg_core::{FileKind, Input, Options, Report, Severity};

/// Largest file read as an input (the core refuses larger ones too).
const MAX_FILE_BYTES: u64 = cfg_core::parse::MAX_FILE_BYTES as u64;

/// A file's text, refused before reading past the size any input file has.
pub fn read(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "{} is larger than {MAX_FILE_BYTES} bytes; check that this is the right file",
            path.display()
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", path.display()))
}

/// The linted inputs of a run.
pub struct Linted {
    pub settings: LoadTestSettings,
    pub settings_text: String,
    /// The server's config and its text, when one was given.
    pub config: Option<(ServerConfig, String)>,
}

/// Why inputs were refused: the exit code, and what to print.
pub struct Refused {
    pub code: u8,
    pub message: String,
}

impl From<String> for Refused {
    fn from(message: String) -> Self {
        Refused { code: 2, message }
    }
}

/// Reads and lints the files; refuses on errors (printing them as cfg-lint
/// does), prints warnings and goes on.
pub fn lint(settings: &Path, server: Option<&Path>) -> Result<Linted, Refused> {
    let mut inputs = vec![Input::new(FileKind::Settings, settings.display().to_string(), read(settings)?)];
    if let Some(server) = server {
        inputs.push(Input::new(FileKind::Config, server.display().to_string(), read(server)?));
    }
    // The two files are named for what they are: they are a pair wherever they live.
    let pairs = if server.is_some() { vec![(1, 0)] } else { Vec::new() };
    let models = found_models(&inputs);
    let report = cfg_core::lint(&inputs, &Options { pairs, models, ..Options::default() });
    check(&inputs, &report)?;
    let settings_text = inputs[0].source.text.clone();
    let settings = report.settings.ok_or_else(|| format!("{} is not a settings file", settings.display()))?;
    let config = match (server, report.config) {
        (Some(_), Some(c)) => Some((c, inputs[1].source.text.clone())),
        (Some(p), None) => return Err(format!("{} is not a config.toml", p.display()).into()),
        _ => None,
    };
    Ok(Linted { settings, settings_text, config })
}

/// Reads and lints a server config alone (the simulator's input).
pub fn lint_config(path: &Path) -> Result<ServerConfig, Refused> {
    let inputs = [Input::new(FileKind::Config, path.display().to_string(), read(path)?)];
    let report = cfg_core::lint(&inputs, &Options { models: found_models(&inputs), ..Options::default() });
    check(&inputs, &report)?;
    report.config.ok_or_else(|| format!("{} is not a config.toml", path.display()).into())
}

/// Errors refuse the run; warnings are shown and the run goes on.
fn check(inputs: &[Input], report: &Report) -> Result<(), Refused> {
    let shown = output::report(Format::Human, inputs, report, &output::Options { color: false, hide_info: true });
    if report.has_errors() {
        return Err(Refused { code: 1, message: format!("{shown}refusing to run: fix the errors above first") });
    }
    if report.count(Severity::Warning) > 0 {
        eprint!("{shown}");
    }
    Ok(())
}

/// The key from the variable `api_key_env` names: missing or empty is an error
/// before any request is sent.
pub fn read_key(settings: &LoadTestSettings) -> Result<Option<String>, String> {
    let Some(var) = &settings.api_key_env else { return Ok(None) };
    match std::env::var(var) {
        // A line break would end the Authorization header and send the rest as
        // headers of its own; the value is never echoed.
        Ok(v) if v.bytes().any(|b| !(b == b'\t' || (0x20..0x7f).contains(&b))) => Err(format!(
            "${var} holds a line break or another character a header cannot carry (a key copied \
             from a file with Windows line endings?); export the key alone"
        )),
        Ok(v) if !v.trim().is_empty() => Ok(Some(v)),
        Ok(_) => {
            Err(format!("${var} is empty; export the API key in it (settings.json names the variable, never the key)"))
        }
        Err(_) => Err(format!(
            "${var} is not set; export the API key in it before running (settings.json names the variable, never the key)"
        )),
    }
}

/// The model's own files where this machine has them (a local folder or the
/// Hugging Face cache; never the network), read as cfg-lint reads them, so the
/// runner's checks and its simulator see the architecture cfg-lint sees.
pub fn find_model(name: &str) -> Option<cfg_core::resolve::Arch> {
    let lookup = cfg_models::Lookup { name: name.to_string(), ..cfg_models::Lookup::default() };
    match cfg_models::find(&lookup, &cfg_models::Env::from_process()) {
        Ok(Some(files)) => {
            cfg_core::hf::read_model(&files.config_json, files.safetensors_index.as_deref(), &files.origin)
                .map_err(|e| eprintln!("note: {}: {e}; using the catalog", files.origin))
                .ok()
        }
        Ok(None) => None,
        Err(e) => {
            eprintln!("note: {e}; using the catalog");
            None
        }
    }
}

fn found_models(inputs: &[Input]) -> Vec<(String, cfg_core::resolve::Arch)> {
    inputs
        .iter()
        .filter(|i| i.kind == FileKind::Config)
        .filter_map(|i| cfg_core::parse::parse_toml(&i.source.text).ok())
        .filter_map(|tree| tree.locate("/model/name").and_then(|l| l.node.to_json().as_str().map(str::to_string)))
        .filter_map(|name| find_model(&name).map(|arch| (name, arch)))
        .collect()
}
