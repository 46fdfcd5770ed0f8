//! Reading the files a command names: bounded, UTF-8, each kind told from its
//! name and content.

use std::io::Read;
use std::path::{Path, PathBuf};

use cfg_core::parse::MAX_FILE_BYTES;
use cfg_core::{FileKind, Input, Options, Report};

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

/// Which files to lint and how to pair them.
#[derive(Debug, Default)]
pub struct Selection {
    pub files: Vec<PathBuf>,
    /// (config, settings) pairs named on the command line.
    pub pairs: Vec<(PathBuf, PathBuf)>,
    /// Add the partner on disk of a file given without it (what a pre-commit hook
    /// needs: a commit that touches one file of a pair must still check the pair).
    pub with_partners: bool,
}

/// Where the models' own files are looked for (see `cfg_models::find`).
#[derive(Debug, Default, Clone)]
pub struct ModelLookup {
    /// `--model-config`: a config.json, or a model folder, for every config checked.
    pub explicit: Option<PathBuf>,
    /// `--fetch`: ask the Hub when a model is nowhere on this machine.
    pub fetch: bool,
}

/// Reads the files, tells their kinds and lints them together.
pub fn lint_paths(files: &[PathBuf], models: &ModelLookup) -> Result<(Vec<Input>, Report), String> {
    lint_selection(&Selection { files: files.to_vec(), ..Selection::default() }, models)
}

/// The models the configs name, read from their files wherever `lookup` finds
/// them: (name in the config, architecture).
pub fn find_models(inputs: &[Input], lookup: &ModelLookup) -> Result<Vec<(String, cfg_core::resolve::Arch)>, String> {
    let env = cfg_models::Env::from_process();
    let mut models: Vec<(String, cfg_core::resolve::Arch)> = Vec::new();
    for name in inputs.iter().filter_map(model_name) {
        if models.iter().any(|(n, _)| *n == name) {
            continue;
        }
        if let Some(arch) = read_named_model(&name, lookup, &env)? {
            models.push((name, arch));
        }
    }
    Ok(models)
}

/// The model a config names (`model.name`), when the input is a config that says.
pub fn model_name(input: &Input) -> Option<String> {
    if input.kind != FileKind::Config {
        return None;
    }
    let tree = cfg_core::parse::parse_toml(&input.source.text).ok()?;
    tree.locate("/model/name").and_then(|l| l.node.to_json().as_str().map(str::to_string))
}

/// A model's architecture from its own files, wherever `lookup` finds them
/// (`None`: not on this machine, nor fetched).
pub fn read_named_model(
    name: &str,
    lookup: &ModelLookup,
    env: &cfg_models::Env,
) -> Result<Option<cfg_core::resolve::Arch>, String> {
    let query = cfg_models::Lookup { name: name.to_string(), explicit: lookup.explicit.clone(), fetch: lookup.fetch };
    let Some(files) = cfg_models::find(&query, env)? else { return Ok(None) };
    cfg_core::hf::read_model(&files.config_json, files.safetensors_index.as_deref(), &files.origin)
        .map(Some)
        .map_err(|e| format!("{}: {e}", files.origin))
}

/// Reads the selected files (with partners and named pairs), tells their kinds
/// and lints them together.
pub fn lint_selection(selection: &Selection, models: &ModelLookup) -> Result<(Vec<Input>, Report), String> {
    let (inputs, pairs) = read_selection(selection)?;
    let report = lint_inputs(&inputs, &pairs, models)?;
    Ok((inputs, report))
}

/// Lints files already read, with the pairs named as (config, settings)
/// indices.
pub fn lint_inputs(inputs: &[Input], pairs: &[(usize, usize)], models: &ModelLookup) -> Result<Report, String> {
    Ok(lint_with_models(inputs, pairs, find_models(inputs, models)?))
}

/// Lints with the models already read (what `check --fix` does after each
/// round of edits: a fix never changes which model a config names).
pub fn lint_with_models(
    inputs: &[Input],
    pairs: &[(usize, usize)],
    models: Vec<(String, cfg_core::resolve::Arch)>,
) -> Report {
    cfg_core::lint(inputs, &Options { pairs: pairs.to_vec(), models, ..Options::default() })
}

/// Pairs named by the user, as (config, settings) indices into the inputs.
pub type NamedPairs = Vec<(usize, usize)>;

/// Reads the selected files (with partners and named pairs) and tells their
/// kinds: the inputs, and the named pairs as indices into them.
pub fn read_selection(selection: &Selection) -> Result<(Vec<Input>, NamedPairs), String> {
    let mut paths: Vec<PathBuf> = Vec::new();
    let mut add = |p: &Path| {
        if !paths.iter().any(|q| q == p) {
            paths.push(p.to_path_buf());
        }
    };
    for p in &selection.files {
        add(p);
    }
    for (c, s) in &selection.pairs {
        add(c);
        add(s);
    }
    let mut inputs = Vec::new();
    for path in &paths {
        let text = read(path)?;
        let name = path.to_string_lossy().into_owned();
        let kind = cfg_core::detect_kind(&name, &text).ok_or_else(|| {
            format!("cannot tell whether {name} is a config.toml or a settings.json; name it *.toml or *.json")
        })?;
        inputs.push(Input::new(kind, name, text));
    }
    if selection.with_partners {
        for partner in partners(&inputs) {
            let text = read(&partner)?;
            let name = partner.to_string_lossy().into_owned();
            if let Some(kind) = cfg_core::detect_kind(&name, &text) {
                inputs.push(Input::new(kind, name, text));
            }
        }
    }
    let index = |p: &Path| paths.iter().position(|q| q == p).expect("added above");
    let mut pairs = Vec::new();
    for (c, s) in &selection.pairs {
        let (ci, si) = (index(c), index(s));
        if inputs[ci].kind != FileKind::Config || inputs[si].kind != FileKind::Settings {
            return Err(format!("--pair takes a config.toml then a settings.json: {} {}", c.display(), s.display()));
        }
        pairs.push((ci, si));
    }
    Ok((inputs, pairs))
}

/// The files beside the given ones that complete a pair: for a config.toml (or
/// settings.json) given alone, the settings.json (or config.toml) the core would
/// pair it with if both were given.
fn partners(inputs: &[Input]) -> Vec<PathBuf> {
    let given: Vec<(FileKind, &str)> = inputs.iter().map(|i| (i.kind, i.source.name.as_str())).collect();
    let paired = cfg_core::lint::pair_files(&given, &[]);
    let mut found = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        if input.kind == FileKind::Result || paired.iter().any(|&(c, s)| c == i || s == i) {
            continue;
        }
        let dir = cfg_core::lint::folder(&input.source.name);
        let dir_path = if dir.is_empty() { Path::new(".") } else { Path::new(dir) };
        let Ok(entries) = std::fs::read_dir(dir_path) else { continue };
        let mut candidates: Vec<(FileKind, String)> = entries
            .flatten()
            .filter_map(|e| {
                let file = e.file_name().to_string_lossy().into_owned();
                let kind = match file.rsplit('.').next()? {
                    "toml" => FileKind::Config,
                    "json" if !file.contains("result") && !file.contains("schema") => FileKind::Settings,
                    _ => return None,
                };
                let name = if dir.is_empty() { file } else { format!("{dir}/{file}") };
                (kind != input.kind && e.path().is_file()).then_some((kind, name))
            })
            .collect();
        candidates.sort_by(|a, b| a.1.cmp(&b.1));
        let mut files: Vec<(FileKind, &str)> = vec![(input.kind, input.source.name.as_str())];
        files.extend(candidates.iter().map(|(k, n)| (*k, n.as_str())));
        let pick = cfg_core::lint::pair_files(&files, &[]).into_iter().find_map(|(c, s)| match (c, s) {
            (0, other) | (other, 0) => Some(other),
            _ => None,
        });
        if let Some(j) = pick {
            let path = PathBuf::from(files[j].1);
            if !found.contains(&path) && !inputs.iter().any(|i| Path::new(&i.source.name) == path) {
                found.push(path);
            }
        }
    }
    found
}
