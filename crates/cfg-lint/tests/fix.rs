//! `cfg-lint check --fix` and `--diff` on every fixture: each fix is written,
//! the file re-lints clean of the code it fixed, its comments stay, `--diff`
//! writes nothing, and a file that cannot be written is left as it was.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn cfg_lint(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cfg-lint"));
    cmd.args(args).current_dir(dir).env_remove("NO_COLOR");
    for var in ["HF_HOME", "HF_ENDPOINT", "HF_TOKEN", "XDG_CACHE_HOME"] {
        cmd.env_remove(var);
    }
    cmd.env("HF_HUB_CACHE", std::env::temp_dir().join("cfg-lint-tests-no-hf-cache"));
    cmd.output().unwrap()
}

/// A fixture's files copied into a fresh folder, and their names.
fn copy_fixture(fixture: &Path, into: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(fixture).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".toml") || name.ends_with(".json") {
            std::fs::copy(entry.path(), into.join(&name)).unwrap();
            names.push(name);
        }
    }
    names.sort();
    names
}

fn diagnostics(dir: &Path, files: &[String]) -> Vec<Value> {
    let mut args = vec!["check", "--format", "json"];
    args.extend(files.iter().map(String::as_str));
    let o = cfg_lint(dir, &args);
    let report: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
    report["diagnostics"].as_array().cloned().unwrap_or_default()
}

fn comments(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.trim_start().starts_with('#')).collect()
}

#[test]
fn every_fixable_fixture_is_fixed_and_keeps_its_comments() {
    let mut fixed_codes = BTreeSet::new();
    let mut fixtures: Vec<PathBuf> =
        std::fs::read_dir(repo().join("tests/fixtures")).unwrap().flatten().map(|e| e.path()).collect();
    fixtures.push(repo().join("examples/spec"));
    fixtures.sort();
    for fixture in fixtures {
        let dir = tempfile::tempdir().unwrap();
        let files = copy_fixture(&fixture, dir.path());
        if files.is_empty() {
            continue;
        }
        let before = diagnostics(dir.path(), &files);
        let fixable: Vec<&Value> = before.iter().filter(|d| d.get("fix").is_some()).collect();
        if fixable.is_empty() {
            continue;
        }
        let originals: Vec<String> =
            files.iter().map(|f| std::fs::read_to_string(dir.path().join(f)).unwrap()).collect();
        let mut args = vec!["check", "--fix", "--unsafe-fixes"];
        args.extend(files.iter().map(String::as_str));
        let o = cfg_lint(dir.path(), &args);
        assert_ne!(o.status.code(), Some(2), "{}: {}", fixture.display(), String::from_utf8_lossy(&o.stderr));
        let after = diagnostics(dir.path(), &files);
        for d in &fixable {
            let still = after.iter().any(|a| a["code"] == d["code"] && a["pointer"] == d["pointer"]);
            assert!(!still, "{}: {} is still reported after --fix: {after:#?}", fixture.display(), d["code"]);
            fixed_codes.insert(d["code"].as_str().unwrap().to_string());
        }
        for (name, original) in files.iter().zip(&originals) {
            let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
            for comment in comments(original) {
                assert!(text.contains(comment), "{}: {name} lost `{comment}`:\n{text}", fixture.display());
            }
        }
    }
    for code in ["CFG101", "CFG401", "CFG501", "CFG601"] {
        assert!(fixed_codes.contains(code), "no fixture exercised the fix of {code}: {fixed_codes:?}");
    }
}

#[test]
fn only_safe_fixes_apply_without_unsafe_fixes_and_diff_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let files = copy_fixture(&repo().join("examples/spec"), dir.path());
    let original = std::fs::read_to_string(dir.path().join("config.toml")).unwrap();
    // CFG501's fix (a longer context) is unsafe: --fix alone leaves it, and says how.
    let o = cfg_lint(dir.path(), &["check", "--fix", &files[0], &files[1]]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(dir.path().join("config.toml")).unwrap(), original);
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 fixable with `--fix --unsafe-fixes`"), "{o:?}");

    // Nothing safe to show is not a pass: the error that stays is said, and fails.
    let o = cfg_lint(dir.path(), &["check", "--diff", &files[0], &files[1]]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(o.stdout.is_empty(), "{o:?}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("1 error would remain (1 with an unsafe fix: add `--unsafe-fixes` to see it)"), "{stderr}");

    let o = cfg_lint(dir.path(), &["check", "--diff", "--unsafe-fixes", &files[0], &files[1]]);
    assert_eq!(o.status.code(), Some(1), "a diff to show exits 1");
    let diff = String::from_utf8_lossy(&o.stdout);
    assert!(
        diff.contains("--- a/config.toml")
            && diff.contains("-max_model_len = 8192")
            && diff.contains("+max_model_len = 10240"),
        "{diff}"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join("config.toml")).unwrap(), original, "--diff writes nothing");

    let o = cfg_lint(dir.path(), &["check", "--fix", "--unsafe-fixes", &files[0], &files[1]]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    // The longer context then needs a batch budget to match (CFG101), which the
    // next round fixes: --fix goes on until nothing changes.
    assert!(String::from_utf8_lossy(&o.stderr).contains("fixed 2 problems in config.toml"), "{o:?}");
    let fixed = std::fs::read_to_string(dir.path().join("config.toml")).unwrap();
    let expected = original
        .replace("max_model_len = 8192", "max_model_len = 10240")
        .replace("max_num_batched_tokens = 8192", "max_num_batched_tokens = 10240");
    assert_eq!(fixed, expected);
}

#[test]
fn a_diff_never_shows_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let files = copy_fixture(&repo().join("tests/fixtures/bad-literal-secret-config"), dir.path());
    let config = files.iter().find(|f| f.ends_with(".toml")).unwrap();
    let text = std::fs::read_to_string(dir.path().join(config)).unwrap();
    let key_line = text.lines().find(|l| l.trim_start().starts_with("api_key")).unwrap();
    let key = key_line.split('"').nth(1).unwrap();
    let mut args = vec!["check", "--diff", "--unsafe-fixes"];
    args.extend(files.iter().map(String::as_str));
    let o = cfg_lint(dir.path(), &args);
    let shown = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(shown.contains("+api_key = \"${VLLM_API_KEY}\""), "{shown}");
    assert!(!shown.contains(key), "the key leaked into the diff:\n{shown}");
}

#[test]
fn a_file_that_cannot_be_written_is_reported_and_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let files = copy_fixture(&repo().join("examples/spec"), dir.path());
    let config = dir.path().join("config.toml");
    let original = std::fs::read_to_string(&config).unwrap();
    let mut permissions = std::fs::metadata(&config).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&config, permissions).unwrap();
    let o = cfg_lint(dir.path(), &["check", "--fix", "--unsafe-fixes", &files[0], &files[1]]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("cannot write config.toml: the file is read-only; nothing was changed"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
}

#[test]
fn a_fix_is_safe_only_where_it_changes_nothing_a_person_would_choose() {
    let spec = std::fs::read_to_string(repo().join("examples/spec/config.toml")).unwrap();
    let small = spec.replace("max_num_batched_tokens = 8192", "max_num_batched_tokens = 4096");
    let applicability = |config: &str, code: &str| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config.toml"), config).unwrap();
        let found = diagnostics(dir.path(), &["config.toml".to_string()]);
        let d = found.iter().find(|d| d["code"] == code).unwrap_or_else(|| panic!("no {code}: {found:#?}")).clone();
        (d["severity"].as_str().unwrap().to_string(), d["fix"]["applicability"].as_str().unwrap().to_string())
    };
    // Chunked prefill on: vLLM starts; a bigger step budget is a latency/memory trade.
    assert_eq!(applicability(&small, "CFG101"), ("warning".into(), "unsafe".into()));
    // Off: vLLM refuses to start without it, and it changes nothing else.
    let off =
        small.replace("max_num_batched_tokens = 4096", "max_num_batched_tokens = 4096\nenable_chunked_prefill = false");
    assert_eq!(applicability(&off, "CFG101"), ("error".into(), "safe".into()));

    // Weights renormalised keep the mix (safe), unless a class would round to nothing.
    let weights = |tail: f64| {
        let dir = tempfile::tempdir().unwrap();
        let mut settings: Value =
            serde_json::from_str(&std::fs::read_to_string(repo().join("examples/spec/settings.json")).unwrap())
                .unwrap();
        let classes = settings["request_distribution"].as_object_mut().unwrap();
        let names: Vec<String> = classes.keys().cloned().collect();
        for (i, name) in names.iter().enumerate() {
            classes[name]["weight"] = json!(if i + 1 == names.len() { tail } else { 1.0 });
        }
        std::fs::write(dir.path().join("settings.json"), settings.to_string()).unwrap();
        let found = diagnostics(dir.path(), &["settings.json".to_string()]);
        let d = found.iter().find(|d| d["code"] == "CFG401").unwrap_or_else(|| panic!("{found:#?}")).clone();
        d["fix"]["applicability"].as_str().unwrap().to_string()
    };
    assert_eq!(weights(0.5), "safe");
    assert_eq!(weights(1e-8), "unsafe");
}
