//! The runner against servers that misbehave on purpose, each a few lines of
//! raw TCP on 127.0.0.1: an endless SSE line, an endless or poisoned error body,
//! absurd usage counts, silence, a stream that never ends, an endless /metrics
//! and /tokenize. Every run must end within its timeout plus the grace period,
//! classify the fault, keep the key and escape codes out of what it writes, and
//! stay under a memory ceiling.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use cfg_bench::client::Transport;
use cfg_bench::runner::{self, Live, RunInput};
use cfg_core::model::{BenchResult, LoadTestSettings};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const KEY: &str = "sk-hostile-test-key-0123456789";
/// The test process's peak resident memory may not pass this: every case
/// together, with the runner's own buffers.
const MEMORY_CEILING_MIB: u64 = 512;

/// How a server misbehaves.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// `data: xxxx...` with no newline, as fast as the socket takes it.
    EndlessLine,
    /// HTTP 500 whose body never ends and carries escape codes and the key.
    EndlessPoisonedError,
    /// One good chunk, then `usage.completion_tokens` of 10^12.
    AbsurdUsage,
    /// Reads the request and says nothing.
    Silent,
    /// A content chunk every 5 ms, forever, never `[DONE]`.
    NeverDone,
    /// A good stream for /v1/..., and /metrics and /tokenize that never end.
    EndlessSideRoutes,
    /// 404 for the completion, then a /v1/models list that never ends, with
    /// escape codes in the names.
    NotFoundEndlessModels,
}

/// Reads a request head (and its body, by content-length); returns the path.
async fn read_request(sock: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let length: usize = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap_or(0)))
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Some(head.split_whitespace().nth(1).unwrap_or("/").to_string())
}

const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
const GOOD_STREAM: &str = "data: {\"choices\":[{\"text\":\"hi\"}]}\n\ndata: {\"choices\":[{\"text\":\" there\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n";

/// Writes `piece` again and again until the client goes away.
async fn endless(sock: &mut TcpStream, piece: Vec<u8>) {
    while sock.write_all(&piece).await.is_ok() {}
}

async fn answer(mut sock: TcpStream, mode: Mode) {
    let Some(path) = read_request(&mut sock).await else { return };
    match mode {
        Mode::EndlessLine => {
            let _ = sock.write_all(SSE_HEAD.as_bytes()).await;
            let _ = sock.write_all(b"data: ").await;
            endless(&mut sock, vec![b'x'; 64 * 1024]).await;
        }
        Mode::EndlessPoisonedError => {
            let head = "HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n";
            let _ = sock.write_all(head.as_bytes()).await;
            // Padded so that the 200-character cut of an error message falls inside the key.
            let pad = "x".repeat(129);
            let poison = format!(
                "{pad}\x1b[2J\x1b]0;owned\x07\x1b]8;;http://evil.example\x07Authorization: Bearer {KEY}\x1b]8;;\x07 "
            );
            endless(&mut sock, poison.repeat(512).into_bytes()).await;
        }
        Mode::AbsurdUsage => {
            let _ = sock.write_all(SSE_HEAD.as_bytes()).await;
            let body = "data: {\"choices\":[{\"text\":\"hi\"}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1000000000000}}\n\ndata: [DONE]\n\n";
            let _ = sock.write_all(body.as_bytes()).await;
        }
        Mode::Silent => {
            tokio::time::sleep(Duration::from_secs(600)).await;
        }
        Mode::NeverDone => {
            let _ = sock.write_all(SSE_HEAD.as_bytes()).await;
            loop {
                if sock.write_all(b"data: {\"choices\":[{\"text\":\"x\"}]}\n\n").await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
        Mode::NotFoundEndlessModels => {
            if path.starts_with("/v1/models") {
                let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{\"data\": [";
                let _ = sock.write_all(head.as_bytes()).await;
                endless(&mut sock, "{\"id\": \"m\\u001b[2J\"}, ".repeat(1024).into_bytes()).await;
            } else {
                let _ =
                    sock.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").await;
            }
        }
        Mode::EndlessSideRoutes => {
            if path.starts_with("/v1/") {
                let _ = sock.write_all(format!("{SSE_HEAD}{GOOD_STREAM}").as_bytes()).await;
            } else {
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n";
                let _ = sock.write_all(head.as_bytes()).await;
                let line = if path.starts_with("/metrics") {
                    "vllm:num_requests_running 1\n"
                } else {
                    "{\"count\": 1, \"tokens\": ["
                };
                endless(&mut sock, line.repeat(2048).into_bytes()).await;
            }
        }
    }
}

async fn hostile(mode: Mode) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            tokio::spawn(answer(sock, mode));
        }
    });
    port
}

fn settings(port: u16, side_routes: bool) -> LoadTestSettings {
    let mut v = serde_json::json!({
        "endpoint": format!("http://127.0.0.1:{port}/v1/completions"),
        "api_key_env": "CFG_HOSTILE_KEY",
        "model": "m",
        "concurrency": 2,
        "duration_seconds": 2,
        "request_distribution": {"a": {"weight": 1.0, "input_tokens": 16, "output_tokens": 2}},
        "warmup_requests": 0,
        "request_timeout_seconds": 1.0,
    });
    if side_routes {
        v["metrics_url"] = serde_json::json!(format!("http://127.0.0.1:{port}/metrics"));
    }
    serde_json::from_value(v).unwrap()
}

async fn run(s: LoadTestSettings, transport: Transport) -> BenchResult {
    let text = serde_json::to_string(&s).unwrap();
    let input = RunInput {
        settings: s,
        settings_text: text,
        config: None,
        key: Some(KEY.to_string()),
        stop: Arc::new(AtomicBool::new(false)),
        stop_reason: Default::default(),
        show_progress: false,
        shard: None,
        start_gate: None,
        transport,
    };
    runner::run(input, Arc::new(Live::default())).await
}

fn peak_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib / 1024)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_server_ends_in_time_classified_and_clean() {
    // Duration, then the request timeout, then the grace period for in-flight
    // requests (5 s), plus slack for a loaded machine.
    let limit = Duration::from_secs(2 + 1 + 5 + 4);
    let cases = [
        (Mode::EndlessLine, &["malformed_sse", "timeout"][..]),
        (Mode::EndlessPoisonedError, &["http_500"][..]),
        (Mode::AbsurdUsage, &["malformed_sse"][..]),
        (Mode::Silent, &["timeout"][..]),
        (Mode::NeverDone, &["timeout"][..]),
    ];
    for transport in [Transport::Auto, Transport::Reqwest] {
        for (mode, kinds) in cases {
            let port = hostile(mode).await;
            let started = Instant::now();
            let r = run(settings(port, false), transport).await;
            let took = started.elapsed();
            let what = format!("{mode:?} over {transport:?}");
            assert!(took < limit, "{what}: the run took {took:?}");
            assert!(r.requests.succeeded == 0, "{what}: a hostile answer counted as a success: {:?}", r.requests);
            assert!(!r.errors.is_empty(), "{what}: no error recorded");
            for e in &r.errors {
                assert!(kinds.contains(&e.kind.as_str()), "{what}: classified {} ({})", e.kind, e.sample);
            }
            let written = serde_json::to_string(&r).unwrap();
            assert!(!written.contains(&KEY[..10]), "{what}: the key, or its start, is in the result");
            assert!(
                !written.contains('\u{1b}') && !written.contains("\\u001b"),
                "{what}: an escape code is in the result"
            );
            assert!(r.throughput_tokens_per_sec < 1e6, "{what}: {} tok/s", r.throughput_tokens_per_sec);
        }
    }
    // Endless /metrics and /tokenize: read within bounds; the run itself succeeds.
    let port = hostile(Mode::EndlessSideRoutes).await;
    let started = Instant::now();
    let r = run(settings(port, true), Transport::Auto).await;
    assert!(started.elapsed() < limit, "side routes: the run took {:?}", started.elapsed());
    assert!(r.requests.succeeded > 0, "side routes: {:?} {:?}", r.requests, r.errors);
    let peak = peak_mib();
    assert!(peak < MEMORY_CEILING_MIB, "peak memory {peak} MiB");
    println!("hostile servers: every run in time; peak memory {peak} MiB");
}

/// The smoke test's follow-up questions (the model list after a 404) are
/// bounded in time and size, and no escape code reaches the terminal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_smoke_test_reads_a_hostile_model_list_within_bounds() {
    let port = hostile(Mode::NotFoundEndlessModels).await;
    let dir = std::env::temp_dir().join(format!("cfg-hostile-smoke-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("settings.json");
    std::fs::write(&path, serde_json::to_string(&settings(port, false)).unwrap()).unwrap();
    let started = Instant::now();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_cfg-bench"))
        .args(["smoke", "--settings", path.to_str().unwrap()])
        .env("CFG_HOSTILE_KEY", KEY)
        .output()
        .await
        .unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(took < Duration::from_secs(20), "the smoke test took {took:?}");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("404"), "{stderr}");
    assert!(out.stderr.len() < 64 * 1024, "{} bytes on stderr", out.stderr.len());
    assert!(!out.stderr.contains(&0x1b) && !out.stdout.contains(&0x1b), "an escape code reached the terminal");
    assert!(!stderr.contains(KEY), "the key was printed");
    let _ = std::fs::remove_dir_all(dir);
}
