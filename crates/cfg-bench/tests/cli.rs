//! cfg-bench as a process: refusing bad inputs before any request, and
//! Ctrl-C writing what was measured.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn bench() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cfg-bench"));
    c.current_dir(repo()).env_remove("VLLM_INTERNAL_KEY").env_remove("GATEWAY_API_KEY");
    c
}

#[test]
fn refuses_lint_errors_and_a_missing_key_before_any_request() {
    let o = bench()
        .args([
            "run",
            "--config",
            "examples/spec/settings.json",
            "--server",
            "examples/spec/config.toml",
            "--no-archive",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("CFG501") && err.contains("refusing to run"), "{err}");
    let o = bench().args(["run", "--config", "tests/bench/quick-settings.json", "--no-archive"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("$VLLM_INTERNAL_KEY is not set"));
}

#[test]
fn smoke_diagnoses_a_refused_connection() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = std::env::temp_dir().join(format!("cfg-bench-smoke-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let settings = dir.join("settings.json");
    let text = std::fs::read_to_string(repo().join("tests/bench/quick-settings.json"))
        .unwrap()
        .replace("127.0.0.1:8000", &format!("127.0.0.1:{port}"));
    std::fs::write(&settings, text).unwrap();
    let o =
        bench().args(["smoke", "--config", settings.to_str().unwrap()]).env("VLLM_INTERNAL_KEY", "k").output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nothing listens"), "{}", String::from_utf8_lossy(&o.stderr));
    let _ = std::fs::remove_dir_all(dir);
}

#[cfg(unix)]
#[test]
fn ctrl_c_still_writes_the_result_marked_incomplete() {
    let dir = std::env::temp_dir().join(format!("cfg-bench-int-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("result.json");
    let child = bench()
        .args([
            "run",
            "--config",
            "tests/bench/quick-settings.json",
            "--server",
            "examples/config.toml",
            "--sim",
            "--duration",
            "60",
            "--no-archive",
            "--output",
        ])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(6));
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(r["complete"], false);
    assert!(r["requests"]["total"].as_u64().unwrap() > 0, "{r}");
    assert!(r["metadata"]["duration_seconds"].as_f64().unwrap() < 30.0);
    let _ = std::fs::remove_dir_all(dir);
}
