//! Snapshot tests of exactly what a user sees: for every case under
//! `tests/fixtures/<case>/`, the human output of `cfg-lint check` on the files
//! in it (config.toml, settings.json, result.json; any other *.toml / *.json
//! too). One test per case, named after it, so every mismatch is reported and
//! `cargo test --test lint_snapshots -- bad-spec-pair` runs one case. Review
//! changes with `cargo insta review`.
//!
//! The name says what a case must produce: `good-*` no error, `bad-*` at least
//! one error, `warn-*` at least one warning and no error, `info-*` only infos.
//!
//! A case may carry a model's own files, as `cfg-lint --model-config` would
//! find them: `hf/ORG--NAME/config.json` (and `model.safetensors.index.json`)
//! stand for the model `ORG/NAME`.

use std::path::{Path, PathBuf};

use cfg_core::output::{self, Format};
use cfg_core::{Input, Options, Severity, detect_kind, lint};
use libtest_mimic::{Arguments, Failed, Trial};

/// The case's files, named by their path inside the case (`b/config.toml` for a
/// case laid out in folders, as a repository with two services is).
fn case_inputs(dir: &Path) -> Vec<Input> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for path in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    files
        .iter()
        .filter(|p| !p.strip_prefix(dir).is_ok_and(|rest| rest.starts_with("hf")))
        .filter_map(|p| {
            let name = p.strip_prefix(dir).ok()?.to_string_lossy().into_owned();
            let bytes = std::fs::read(p).ok()?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let kind = detect_kind(&name, &text)?;
            Some(Input::new(kind, name, text))
        })
        .collect()
}

/// The models whose own files the case carries under `hf/`.
fn case_models(dir: &Path) -> Vec<(String, cfg_core::resolve::Arch)> {
    let Ok(entries) = std::fs::read_dir(dir.join("hf")) else { return Vec::new() };
    entries
        .map(|e| e.unwrap().path())
        .map(|model| {
            let folder = model.file_name().unwrap().to_string_lossy().replacen("--", "/", 1);
            let config = std::fs::read_to_string(model.join("config.json")).unwrap();
            let index = std::fs::read_to_string(model.join("model.safetensors.index.json")).ok();
            let origin = format!("hf/{}/config.json", model.file_name().unwrap().to_string_lossy());
            (folder, cfg_core::hf::read_model(&config, index.as_deref(), &origin).unwrap())
        })
        .collect()
}

/// The passwords of `scheme://user:password@host` URLs in a text.
fn url_passwords(text: &str) -> Vec<String> {
    text.match_indices("://")
        .filter_map(|(at, _)| {
            let rest = &text[at + 3..];
            let authority = &rest[..rest.find(['/', '"', '\'', ' ', '\n', '?', '#']).unwrap_or(rest.len())];
            let (userinfo, _) = authority.rsplit_once('@')?;
            let (_, password) = userinfo.split_once(':')?;
            (password.len() >= 3).then(|| password.to_string())
        })
        .collect()
}

fn check_case(case: &Path) -> Result<(), Failed> {
    let name = case.file_name().unwrap().to_string_lossy().into_owned();
    let inputs = case_inputs(case);
    if inputs.is_empty() {
        return Err(format!("{} has no files", case.display()).into());
    }
    let report = lint(&inputs, &Options { models: case_models(case), ..Options::default() });
    let shown = output::report(Format::Human, &inputs, &report, &output::Options::default());
    for d in &report.diagnostics {
        let source = &inputs.iter().find(|i| i.source.name == d.file).unwrap().source;
        if !(d.line >= 1 && d.line <= source.line_count() && d.span.end <= source.text.len()) {
            return Err(format!("{name}: diagnostic outside its file: {d:?}").into());
        }
    }
    // No output shows a password written in a URL: not the messages, not the
    // help, not the source lines (the secret's span is masked wherever shown).
    let json = output::report(Format::Json, &inputs, &report, &output::Options::default());
    for password in inputs.iter().flat_map(|i| url_passwords(&i.source.text)) {
        if shown.contains(&password) || json.contains(&password) {
            return Err(format!("{name}: the output shows the password `{password}` of a URL\n{shown}").into());
        }
    }
    let errors = report.count(Severity::Error);
    let warnings = report.count(Severity::Warning);
    let expected = match name.split('-').next() {
        Some("good") => (errors == 0).then_some(()).ok_or("should have no errors"),
        Some("bad") => (errors > 0).then_some(()).ok_or("should report an error"),
        Some("warn") => (errors == 0 && warnings > 0).then_some(()).ok_or("should report a warning and no error"),
        Some("info") => (errors == 0 && warnings == 0 && report.count(Severity::Info) > 0)
            .then_some(())
            .ok_or("should report an info and no warning or error"),
        _ => Err("case names start with good-, bad-, warn- or info-"),
    };
    expected.map_err(|why| format!("{name} {why}\n{shown}"))?;
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots"));
    // insta reports a mismatch by panicking: turn it into this case's failure.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        settings.bind(|| insta::assert_snapshot!(name.as_str(), shown))
    }))
    .map_err(|_| Failed::from(format!("{name}: the output differs from tests/snapshots/{name}.snap")))
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut cases: Vec<PathBuf> =
        std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    assert!(cases.len() >= 40, "the corpus has {} cases; keep at least 40", cases.len());
    let trials = cases
        .into_iter()
        .map(|case| Trial::test(case.file_name().unwrap().to_string_lossy().into_owned(), move || check_case(&case)))
        .collect();
    libtest_mimic::run(&Arguments::from_args(), trials).exit();
}
