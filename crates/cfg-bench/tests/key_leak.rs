//! The key never leaks: a run with a recognisable key, then every file the
//! tools wrote and everything they printed is searched for it.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

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
    let dir = common::scratch("key-leak");
    let out = Command::new(env!("CARGO_BIN_EXE_cfg-bench"))
        .current_dir(repo())
        .env("VLLM_INTERNAL_KEY", KEY)
        .args([
            "run",
            "--settings",
            "tests/bench/quick-settings.json",
            "--server-config",
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

/// The web app's side: `cfg-bench serve` runs a simulated test with the key in the
/// environment; nothing its API answers (info, run list, progress events, result,
/// comparison) and nothing it writes or prints contains the key.
#[test]
fn the_web_api_never_answers_with_the_key() {
    use std::io::{BufRead, BufReader, Read};
    let dir = common::scratch("key-leak-serve");
    let port = common::free_port();
    let mut serve = common::Reap(
        Command::new(env!("CARGO_BIN_EXE_cfg-bench"))
            .current_dir(repo())
            .env("VLLM_INTERNAL_KEY", KEY)
            .args(["serve", "--port", &port.to_string(), "--runs-dir"])
            .arg(dir.join("runs"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut stdout = BufReader::new(serve.0.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let token = line.trim().rsplit("#token=").next().unwrap().to_string();
    assert_eq!(token.len(), 32, "{line}");

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let answers = rt.block_on(async {
        let http = reqwest::Client::new();
        let base = format!("http://127.0.0.1:{port}");
        let read = |p: &str| std::fs::read_to_string(repo().join(p)).unwrap();
        let mut answers = Vec::new();
        answers
            .push(http.get(format!("{base}/api/info")).bearer_auth(&token).send().await.unwrap().text().await.unwrap());
        let body = serde_json::json!({
            "config": read("examples/config.toml"),
            "settings": read("tests/bench/quick-settings.json"),
            "simulate": true,
            "duration_seconds": 2
        });
        let mut ids = Vec::new();
        for _ in 0..2 {
            let r = http.post(format!("{base}/api/runs")).bearer_auth(&token).json(&body).send().await.unwrap();
            let text = r.text().await.unwrap();
            let id = serde_json::from_str::<serde_json::Value>(&text).unwrap()["id"].as_str().unwrap().to_string();
            answers.push(text);
            let events = http.get(format!("{base}/api/runs/{id}/events?token={token}")).send().await.unwrap();
            answers.push(events.text().await.unwrap());
            let result = http.get(format!("{base}/api/runs/{id}/result")).bearer_auth(&token).send().await.unwrap();
            answers.push(result.text().await.unwrap());
            ids.push(id);
        }
        answers
            .push(http.get(format!("{base}/api/runs")).bearer_auth(&token).send().await.unwrap().text().await.unwrap());
        let compare = format!("{base}/api/compare?baseline={}&candidate={}", ids[0], ids[1]);
        answers.push(http.get(compare).bearer_auth(&token).send().await.unwrap().text().await.unwrap());
        answers
    });
    let mut stderr = serve.0.stderr.take().unwrap();
    drop(serve);
    let mut printed = String::new();
    let _ = stdout.read_to_string(&mut printed);
    let _ = stderr.read_to_string(&mut printed);
    assert!(answers.iter().any(|a| a.contains("event: result")), "the runs finished: {answers:?}");
    for a in &answers {
        assert!(!a.contains(KEY) && !a.contains("LEAKCANARY"), "an API answer contains the key: {a}");
    }
    assert!(!printed.contains("LEAKCANARY"), "the server printed the key");
    let mut files = Vec::new();
    files_under(&dir, &mut files);
    assert!(!files.is_empty(), "the runs were archived");
    for f in files {
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        assert!(!text.contains("LEAKCANARY"), "{} contains the key", f.display());
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A server that repeats the request's `Authorization` header in its 401 body,
/// as some gateways do: the key it echoes is redacted from everything the run
/// prints and writes.
#[test]
fn a_key_echoed_back_by_the_server_is_never_stored_or_printed() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut sock in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && sock.read(&mut byte).is_ok_and(|n| n == 1) {
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).into_owned();
                let auth = head.lines().find(|l| l.to_ascii_lowercase().starts_with("authorization")).unwrap_or("");
                let body = format!("{{\"error\": \"rejected credentials: {auth}\"}}");
                let _ = write!(
                    sock,
                    "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    let dir = common::scratch("key-leak-echo");
    let settings = std::fs::read_to_string(repo().join("tests/bench/quick-settings.json"))
        .unwrap()
        .replace("127.0.0.1:8000", &format!("127.0.0.1:{port}"));
    std::fs::write(dir.join("settings.json"), settings).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cfg-bench"))
        .env("VLLM_INTERNAL_KEY", KEY)
        .args(["run", "--skip-smoke", "--duration", "1", "--settings"])
        .arg(dir.join("settings.json"))
        .arg("--output")
        .arg(dir.join("result.json"))
        .arg("--html")
        .arg(dir.join("report.html"))
        .arg("--runs-dir")
        .arg(dir.join("runs"))
        .output()
        .unwrap();
    let printed = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!printed.contains("LEAKCANARY"), "the key was printed: {printed}");
    let result = std::fs::read_to_string(dir.join("result.json")).expect("result.json was written");
    assert!(result.contains("http_401"), "{result}");
    assert!(result.contains("rejected credentials"), "the server's words are kept, less the key: {result}");
    // The smoke test alone, too: it prints the server's answer.
    let smoke = Command::new(env!("CARGO_BIN_EXE_cfg-bench"))
        .env("VLLM_INTERNAL_KEY", KEY)
        .args(["smoke", "--settings"])
        .arg(dir.join("settings.json"))
        .output()
        .unwrap();
    let printed = format!("{}{}", String::from_utf8_lossy(&smoke.stdout), String::from_utf8_lossy(&smoke.stderr));
    assert!(printed.contains("401"), "{printed}");
    assert!(!printed.contains("LEAKCANARY"), "the smoke test printed the key: {printed}");
    let mut files = Vec::new();
    files_under(&dir, &mut files);
    assert!(files.len() >= 3, "settings, result, report: {files:?}");
    for f in files {
        let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
        assert!(!text.contains("LEAKCANARY"), "{} contains the key", f.display());
    }
    let _ = std::fs::remove_dir_all(dir);
}
