//! The key never leaks: a run with a recognisable key, then every file the
//! tools wrote and everything they printed is searched for it.

use std::path::{Path, PathBuf};
use std::process::Command;

const KEY: &str = "sk-LEAKCANARY-0123456789abcdefDEADBEEF";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn a_run_writes_and_prints_nothing_that_contains_the_key() {
    let dir = std::env::temp_dir().join(format!("cfg-key-leak-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cfg-bench"))
        .current_dir(repo())
        .env("VLLM_INTERNAL_KEY", KEY)
        .args([
            "run",
            "--config",
            "tests/bench/quick-settings.json",
            "--server",
            "examples/config.toml",
            "--sim",
            "--duration",
            "2",
        ])
        .arg("--output")
        .arg(dir.join("result.json"))
        .arg("--html")
        .arg(dir.join("report.html"))
        .arg("--runs-dir")
        .arg(dir.join("runs"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!printed.contains(KEY), "the key was printed");
    let report = Command::new(env!("CARGO_BIN_EXE_cfg-bench"))
        .args(["report"])
        .arg(dir.join("result.json"))
        .arg("--html")
        .arg(dir.join("again.html"))
        .output()
        .unwrap();
    assert!(report.status.success());
    let mut files = Vec::new();
    files_under(&dir, &mut files);
    assert!(files.len() >= 6, "result, two reports, and the archive: {files:?}");
    for f in files {
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        assert!(!text.contains(KEY), "{} contains the key", f.display());
        assert!(!text.contains("LEAKCANARY"), "{} contains part of the key", f.display());
    }
    let _ = std::fs::remove_dir_all(dir);
}
