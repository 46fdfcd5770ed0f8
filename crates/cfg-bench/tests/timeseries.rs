//! The time series show what the server did when it did it: against a server
//! that streams at a constant rate, every measured second's throughput is the
//! run's average, and the phases cover the whole run without gaps.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use cfg_bench::client::Transport;
use cfg_bench::runner::{self, Live, RunInput};
use cfg_core::model::{LoadTestSettings, PhaseName};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Tokens per request and the pause between them: each stream runs at 50 tok/s.
const TOKENS: u32 = 40;
const GAP: Duration = Duration::from_millis(20);

async fn read_request(sock: &mut TcpStream) -> Option<()> {
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
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:").map(|v| v.trim().parse().unwrap_or(0)))
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Some(())
}

/// One token every `GAP`, then the usage and `[DONE]`.
async fn steady(mut sock: TcpStream) {
    if read_request(&mut sock).await.is_none() {
        return;
    }
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
    if sock.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    let mut next = tokio::time::Instant::now();
    for _ in 0..TOKENS {
        next += GAP;
        tokio::time::sleep_until(next).await;
        if sock.write_all(b"data: {\"choices\":[{\"text\":\"x\"}]}\n\n").await.is_err() {
            return;
        }
    }
    let tail = format!(
        "data: {{\"choices\":[],\"usage\":{{\"prompt_tokens\":16,\"completion_tokens\":{TOKENS}}}}}\n\ndata: [DONE]\n\n"
    );
    let _ = sock.write_all(tail.as_bytes()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_steady_server_draws_a_flat_line_and_the_phases_cover_the_run() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            tokio::spawn(steady(sock));
        }
    });
    let settings: LoadTestSettings = serde_json::from_value(serde_json::json!({
        "endpoint": format!("http://127.0.0.1:{port}/v1/completions"),
        "model": "m",
        "concurrency": 4,
        "duration_seconds": 6,
        "request_distribution": {"a": {"weight": 1.0, "input_tokens": 16, "output_tokens": TOKENS}},
        "warmup_requests": 4,
    }))
    .unwrap();
    let text = serde_json::to_string(&settings).unwrap();
    let r = runner::run(
        RunInput {
            settings,
            settings_text: text,
            config: None,
            key: None,
            stop: Arc::new(AtomicBool::new(false)),
            stop_reason: Default::default(),
            show_progress: false,
            shard: None,
            start_gate: None,
            transport: Transport::Auto,
        },
        Arc::new(Live::default()),
    )
    .await;
    assert_eq!(r.requests.failed, 0, "{:?}", r.errors);
    let average = r.throughput_tokens_per_sec;
    assert!((150.0..=210.0).contains(&average), "4 streams at about 50 tok/s: {average}");
    // Every second of the measured phase (t = 1..6) streamed the average, within 10%.
    let measured: Vec<f64> = r.timeseries.iter().filter(|p| p.t <= 6.0).map(|p| p.output_tokens_per_sec).collect();
    assert_eq!(measured.len(), 6, "{:?}", r.timeseries);
    for (i, v) in measured.iter().enumerate() {
        assert!((v - average).abs() <= 0.1 * average, "second {}: {v} tok/s against {average:.1}: {measured:?}", i + 1);
    }
    // Requests were sent and finished all along, and a first token arrived every second.
    for p in r.timeseries.iter().filter(|p| p.t <= 6.0) {
        assert!(p.started > 0 && p.ttft_p50_ms.is_some(), "{p:?}");
    }
    // Warm-up, measured, drain: one after the other, spanning the run.
    let names: Vec<PhaseName> = r.phases.iter().map(|p| p.name).collect();
    assert_eq!(names, vec![PhaseName::Warmup, PhaseName::Measured, PhaseName::Drain], "{:?}", r.phases);
    for pair in r.phases.windows(2) {
        assert_eq!(pair[0].end, pair[1].start, "{:?}", r.phases);
    }
    assert_eq!((r.phases[1].start, r.phases[1].end), (0.0, 6.0));
    let meta = r.metadata.as_ref().unwrap();
    let drain = meta.drain_seconds.unwrap();
    assert!(
        (r.phases[2].end - (6.0 + drain)).abs() < 0.05,
        "the drain ends when the last request did: {:?} {drain}",
        r.phases
    );
    let warmup = -r.phases[0].start;
    assert!((0.7..3.0).contains(&warmup), "four warm-up requests of 0.8 s on four streams: {warmup}");
    // The series reaches the end of the drain and no further.
    let seconds = r.timeseries.len() as f64;
    assert!((seconds - (6.0 + drain).ceil()).abs() <= 1.0, "{seconds} points for a run of {:.2} s", 6.0 + drain);
}
