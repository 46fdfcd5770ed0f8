//! Replays the fuzzers' corpus (fuzz/corpus/TARGET/) and every crash reproducer
//! (fuzz/regressions/TARGET/) through the same checks the fuzz targets run, so a
//! fixed crash stays fixed and `cargo test` covers what fuzzing found, on stable.

#[path = "../../../fuzz/checks.rs"]
mod checks;

use std::path::Path;

fn replay(target: &str, check: fn(&str)) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut n = 0;
    for dir in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) else { continue };
        for entry in entries.flatten() {
            let bytes = std::fs::read(entry.path()).unwrap();
            // The targets take &str: libFuzzer skips inputs that are not UTF-8, and so do we.
            if let Ok(text) = std::str::from_utf8(&bytes) {
                let result = std::panic::catch_unwind(|| check(text));
                assert!(result.is_ok(), "{} fails {target}", entry.path().display());
                n += 1;
            }
        }
    }
    n
}

#[test]
fn every_corpus_input_and_reproducer_still_passes() {
    let counts: Vec<(&str, usize)> = [
        ("parse_toml", checks::parse_toml as fn(&str)),
        ("parse_json", checks::parse_json),
        ("lint_pair", checks::lint_pair),
        ("render", checks::render),
        ("memory", checks::memory),
        ("model_config", checks::model_config),
    ]
    .into_iter()
    .map(|(target, check)| (target, replay(target, check)))
    .collect();
    for (target, n) in &counts {
        assert!(*n >= 20, "fuzz/corpus/{target} has only {n} inputs: {counts:?}");
    }
}
