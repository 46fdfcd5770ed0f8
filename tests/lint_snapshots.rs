//! Snapshot tests of exactly what a user sees: for every case under
//! `tests/fixtures/<case>/`, the human output of `cfg-lint check` on the files
//! in it (config.toml, settings.json, result.json; any other *.toml / *.json
//! too). Review changes with `cargo insta review`.

use std::path::Path;

use cfg_core::{Input, Options, detect_kind, lint};
use cfg_lint::{Format, format_report};

fn case_inputs(dir: &Path) -> Vec<Input> {
    let mut files: Vec<_> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect();
    files.sort();
    files
        .iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().into_owned();
            let bytes = std::fs::read(p).ok()?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let kind = detect_kind(&name, &text)?;
            Some(Input::new(kind, name, text))
        })
        .collect()
}

#[test]
fn fixture_diagnostics_match_snapshots() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut cases: Vec<_> =
        std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    assert!(cases.len() >= 40, "the corpus has {} cases; keep at least 40", cases.len());
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for case in &cases {
            let inputs = case_inputs(case);
            assert!(!inputs.is_empty(), "{} has no files", case.display());
            let report = lint(&inputs, &Options::default());
            let output = format_report(&inputs, &report, Format::Human, false, false);
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            // Every diagnostic must point inside its file.
            for d in &report.diagnostics {
                let source = &inputs.iter().find(|i| i.source.name == d.file).unwrap().source;
                assert!(d.line >= 1 && d.line <= source.line_count(), "{name}: {d:?}");
                assert!(d.span.end <= source.text.len(), "{name}: {d:?}");
            }
            // Names say what a case must produce: good-* no errors, bad-* at least one.
            if name.starts_with("good-") {
                assert!(!report.has_errors(), "{name} should have no errors\n{output}");
            }
            if name.starts_with("bad-") {
                assert!(report.has_errors(), "{name} should report an error\n{output}");
            }
            insta::assert_snapshot!(name, output);
        }
    });
}
