//! The runner against the built-in simulator and against servers that fail
//! on purpose. Every server is started here, on 127.0.0.1.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use cfg_bench::client::{Http, Transport};
use cfg_bench::runner::{self, Live, RunInput};
use cfg_core::model::{BenchResult, LoadTestSettings, ServerConfig};
use cfg_core::{FileKind, Input, Options};

mod common;

fn settings(endpoint: &str, extra: serde_json::Value) -> LoadTestSettings {
    let mut v = serde_json::json!({
        "endpoint": endpoint,
        "model": "llama-3.1-8b",
        "concurrency": 4,
        "duration_seconds": 2,
        "request_distribution": {
            "short": {"weight": 0.7, "input_tokens": 64, "output_tokens": 16},
            "long": {"weight": 0.3, "input_tokens": 512, "output_tokens": 32}
        },
        "warmup_requests": 2,
        "request_timeout_seconds": 1.5,
        "sla": {"ttft_p99_ms": 5000, "error_rate": 0.01}
    });
    for (k, val) in extra.as_object().unwrap() {
        v[k] = val.clone();
    }
    serde_json::from_value(v).unwrap()
}

async fn run(s: LoadTestSettings, key: Option<&str>) -> BenchResult {
    run_with(s, key, Transport::Auto).await
}

async fn run_with(s: LoadTestSettings, key: Option<&str>, transport: Transport) -> BenchResult {
    let text = serde_json::to_string(&s).unwrap();
    let input = RunInput {
        settings: s,
        settings_text: text,
        config: None,
        key: key.map(str::to_string),
        stop: Arc::new(AtomicBool::new(false)),
        stop_reason: Default::default(),
        show_progress: false,
        shard: None,
        start_gate: None,
        transport,
    };
    runner::run(input, Arc::new(Live::default())).await
}

fn assert_schema_valid(r: &BenchResult) {
    let text = serde_json::to_string_pretty(r).unwrap();
    let report = cfg_core::lint(&[Input::new(FileKind::Result, "result.json", text)], &Options::default());
    assert!(report.diagnostics.is_empty(), "{:#?}", report.diagnostics);
}

fn sim_config() -> ServerConfig {
    toml::from_str(
        "[server]\nserved_model_name = \"llama-3.1-8b\"\n[model]\nname = \"meta-llama/Llama-3.1-8B-Instruct\"\nmax_model_len = 4096\n\
         [batching]\nmax_num_seqs = 8\nmax_num_batched_tokens = 4096\n[hardware]\ngpu = \"H100-80GB\"\n",
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn against_the_simulator_tokens_match_the_servers_counters() {
    let (sim, _) =
        cfg_bench::sim_server::start(&sim_config(), SocketAddr::from(([127, 0, 0, 1], 0)), None, Some("k".into()))
            .await
            .unwrap();
    let endpoint = format!("http://{}/v1/chat/completions", sim.addr);
    let r = run(settings(&endpoint, serde_json::json!({})), Some("k")).await;
    assert!(r.complete && r.simulated, "{r:?}");
    assert_eq!(r.requests.failed, 0, "{:?}", r.errors);
    assert!(r.requests.succeeded >= 10, "{:?}", r.requests);
    // The simulator counts one token per word, so the targets are met exactly.
    assert_eq!(r.tokens.prompt_total, r.tokens.prompt_target_total);
    assert_eq!(r.tokens.completion_total, r.tokens.completion_target_total);
    // One gap per token after the first. The simulator writes a token per chunk, a
    // step (9 ms or more) apart: only a starved runner reads two at once.
    assert_eq!(r.tokens.itl_gaps, r.tokens.completion_total - r.requests.succeeded);
    assert!(r.tokens.itl_gaps_in_one_read * 10 <= r.tokens.itl_gaps, "{:?}", r.tokens);
    let server = r.server.as_ref().unwrap();
    assert_eq!(server.prompt_tokens_delta, Some(r.tokens.prompt_total as f64), "{server:?}");
    assert_eq!(server.generation_tokens_delta, Some(r.tokens.completion_total as f64));
    assert!(server.points.iter().any(|p| p.running.unwrap_or(0.0) > 0.0));
    assert!(r.ttft_ms.get("p50").unwrap() > 0.0 && r.tpot_ms.get("p99").is_some());
    assert_eq!(r.per_class.len(), 2);
    assert_eq!(r.per_class["short"].requests + r.per_class["long"].requests, r.requests.total);
    assert!(r.gpu_utilization_avg.is_none() && r.gpu_utilization_reason.unwrap().contains("simulator"));
    let verdict = r.verdict.as_ref().unwrap();
    assert!(verdict.sla_met);
    sim.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_key_and_wrong_model_are_classified() {
    let (sim, _) =
        cfg_bench::sim_server::start(&sim_config(), SocketAddr::from(([127, 0, 0, 1], 0)), None, Some("right".into()))
            .await
            .unwrap();
    let endpoint = format!("http://{}/v1/completions", sim.addr);
    let r =
        run(settings(&endpoint, serde_json::json!({"warmup_requests": 0, "duration_seconds": 1})), Some("wrong")).await;
    assert_eq!(r.errors[0].kind, "http_401");
    assert_eq!(r.error_rate, 1.0);
    assert!(r.verdict.as_ref().unwrap().findings.iter().any(|f| f.code == "auth-rejected"));
    assert_schema_valid(&r);
    let r = run(
        settings(&endpoint, serde_json::json!({"warmup_requests": 0, "duration_seconds": 1, "model": "nope"})),
        Some("right"),
    )
    .await;
    assert_eq!(r.errors[0].kind, "http_404");
    assert!(r.errors[0].sample.contains("Valid aliases: llama-3.1-8b"), "{:?}", r.errors);
    sim.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_loop_poisson_reports_intended_time_latency() {
    let (sim, _) =
        cfg_bench::sim_server::start(&sim_config(), SocketAddr::from(([127, 0, 0, 1], 0)), None, None).await.unwrap();
    let endpoint = format!("http://{}/v1/chat/completions", sim.addr);
    let s = settings(
        &endpoint,
        serde_json::json!({"warmup_requests": 0, "arrival": {"mode": "poisson", "rate_qps": 20}, "bursts": [{"start_seconds": 0.5, "duration_seconds": 0.5}]}),
    );
    let r = run(s, None).await;
    let intended = r.intended.as_ref().expect("open loop reports intended-time latency");
    assert!(intended.ttft_ms.get("p50").unwrap() >= r.ttft_ms.get("p50").unwrap() - 0.01);
    assert!(r.requests.total >= 20, "{:?}", r.requests);
    assert_schema_valid(&r);
    sim.task.abort();
}

/// A server that fails in one way on every request.
async fn faulty(mode: &'static str) -> SocketAddr {
    async fn handler(mode: &'static str) -> Response {
        let sse = |parts: Vec<&'static str>| {
            let stream = futures_util::stream::iter(parts.into_iter().map(|p| Ok::<_, std::io::Error>(p.to_string())));
            Response::builder().header("content-type", "text/event-stream").body(Body::from_stream(stream)).unwrap()
        };
        let chunk = "data: {\"choices\":[{\"index\":0,\"text\":\"hi\"}]}\n\n";
        match mode {
            "401" => (StatusCode::UNAUTHORIZED, "{\"error\":\"Unauthorized\"}").into_response(),
            "429" => {
                (StatusCode::TOO_MANY_REQUESTS, [("retry-after", "1")], "{\"error\":{\"message\":\"rate limited\"}}")
                    .into_response()
            }
            "500" => (StatusCode::INTERNAL_SERVER_ERROR, "{\"error\":{\"message\":\"engine dead\"}}").into_response(),
            "cut" => sse(vec![chunk, chunk]),
            "malformed" => sse(vec![chunk, "data: {not json\n\n"]),
            "stall" => {
                tokio::time::sleep(Duration::from_secs(30)).await;
                sse(vec![chunk])
            }
            _ => unreachable!(),
        }
    }
    let app = Router::new().route("/v1/completions", post(move || handler(mode)));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fault_is_counted_in_its_class_and_the_run_completes() {
    let refused = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let mut cases = vec![(refused, "connection_refused")];
    for (mode, kind) in [
        ("401", "http_401"),
        ("429", "http_429"),
        ("500", "http_500"),
        ("cut", "stream_cut"),
        ("malformed", "malformed_sse"),
        ("stall", "timeout"),
    ] {
        cases.push((faulty(mode).await, kind));
    }
    cases.push((raw("reset").await, "connection_reset"));
    cases.push((raw("truncated").await, "stream_cut"));
    cases.push((raw("reset-mid").await, "stream_cut"));
    // Both clients: cfg-bench's own for http://, and reqwest (https://, proxies).
    for (addr, kind, transport) in
        cases.iter().flat_map(|&(a, k)| [(a, k, Transport::Auto), (a, k, Transport::Reqwest)])
    {
        let endpoint = format!("http://{addr}/v1/completions");
        let s = settings(
            &endpoint,
            serde_json::json!({"warmup_requests": 0, "duration_seconds": 1, "concurrency": 2, "request_timeout_seconds": 0.5}),
        );
        let r = tokio::time::timeout(Duration::from_secs(20), run_with(s, None, transport))
            .await
            .expect("the run ends by itself");
        assert!(r.complete, "{kind}");
        let clock = if transport == Transport::Auto { "kernel" } else { "user" };
        assert_eq!(r.metadata.as_ref().unwrap().timestamps.as_deref(), Some(clock));
        assert!(r.requests.total >= 1, "{kind}");
        assert_eq!(r.requests.failed, r.requests.total, "{kind}: {:?}", r.errors);
        assert_eq!(r.errors.len(), 1, "{kind}: {:?}", r.errors);
        assert_eq!(r.errors[0].kind, kind, "{:?}", r.errors);
        assert!(!r.errors[0].sample.is_empty());
        assert!(r.verdict.as_ref().unwrap().findings.iter().any(|f| f.code == "error-rate-high"));
        assert_schema_valid(&r);
    }
}

/// Faults below HTTP: `reset` reads the request and resets the connection (RST, as a
/// crashing server or a proxy does); `reset-mid` does so after the first token;
/// `truncated` promises a body it never finishes.
async fn raw(mode: &'static str) -> SocketAddr {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                let _ = sock.read(&mut buf).await;
                match mode {
                    "reset-mid" => {
                        let head =
                            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
                        let _ = sock.write_all(head.as_bytes()).await;
                        let chunk = "data: {\"choices\":[{\"index\":0,\"text\":\"hi\"}]}\n\n";
                        let _ = sock.write_all(format!("{:x}\r\n{chunk}\r\n", chunk.len()).as_bytes()).await;
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        #[allow(deprecated)]
                        let _ = sock.set_linger(Some(Duration::ZERO));
                    }
                    "reset" => {
                        // Zero linger is the point: close with RST, not FIN (it cannot block).
                        #[allow(deprecated)]
                        let _ = sock.set_linger(Some(Duration::ZERO));
                    }
                    _ => {
                        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: 4096\r\n\r\n";
                        let _ = sock.write_all(head.as_bytes()).await;
                        let _ = sock.write_all(b"data: {\"choices\":[{\"index\":0,\"text\":\"hi\"}]}\n\n").await;
                    }
                }
                drop(sock);
            });
        }
    });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_circuit_breaker_stops_a_failing_run_with_its_reason() {
    let endpoint = format!("http://{}/v1/completions", faulty("500").await);
    let s = settings(
        &endpoint,
        serde_json::json!({"warmup_requests": 0, "duration_seconds": 60, "concurrency": 2,
                           "circuit_breaker": {"error_rate": 0.5, "window": 10}}),
    );
    let started = std::time::Instant::now();
    let r = tokio::time::timeout(Duration::from_secs(30), run(s, None)).await.expect("the breaker ends the run");
    assert!(started.elapsed() < Duration::from_secs(15), "stopped early, not after 60 s");
    assert!(!r.complete);
    let reason = r.stopped_reason.as_deref().unwrap();
    assert!(
        reason.starts_with("circuit breaker: 10 of the last 10 requests failed (100%, the limit is 50%)"),
        "{reason}"
    );
    assert!(r.requests.failed >= 10);
    assert_schema_valid(&r);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_with_retry_after_makes_the_stream_wait() {
    // Retry-After: 1 on every answer: 2 streams over 3 s send about 6 requests, not hundreds.
    let endpoint = format!("http://{}/v1/completions", faulty("429").await);
    let s = settings(&endpoint, serde_json::json!({"warmup_requests": 0, "duration_seconds": 3, "concurrency": 2}));
    let r = run(s, None).await;
    assert!(r.complete);
    assert_eq!(r.errors[0].kind, "http_429");
    assert!((4..=10).contains(&r.requests.total), "{} requests", r.requests.total);
}

/// A name that does not resolve, without asking any real resolver: the client gets
/// the resolver's failure exactly as from the system's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unresolvable_host_is_a_dns_error() {
    struct NoSuchHost;
    impl reqwest::dns::Resolve for NoSuchHost {
        fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
            let msg = format!("failed to lookup address information: Name or service not known ({})", name.as_str());
            Box::pin(async move { Err(msg.into()) })
        }
    }
    let with_resolver = reqwest::Client::builder().dns_resolver(Arc::new(NoSuchHost)).build().unwrap();
    let direct: cfg_bench::client::Resolver = Arc::new(|name, _port| {
        Box::pin(async move {
            Err(std::io::Error::other(format!(
                "failed to lookup address information: Name or service not known ({name})"
            )))
        })
    });
    let spec = cfg_bench::client::RequestSpec {
        model: "m".into(),
        prompt: "hi".into(),
        max_tokens: 4,
        force_output_length: false,
    };
    let endpoint = "http://inference.internal.example:8000/v1/completions";
    let api = cfg_bench::client::Api::Completions;
    for http in [Http::new(with_resolver.clone(), Transport::Reqwest), Http::with_resolver(with_resolver, direct)] {
        let f = cfg_bench::client::send(&http, endpoint, api, None, &spec, Duration::from_secs(5), |_| {})
            .await
            .unwrap_err();
        assert_eq!(f.kind.name(), "dns", "{f:?}");
    }
}

/// An https endpoint whose certificate nobody signed: Debian's `openssl s_server` on
/// 127.0.0.1 with a certificate made for the test.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_certificate_is_a_tls_error() {
    let dir = common::scratch("tls");
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let made = std::process::Command::new("openssl")
        .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl is installed (scripts/setup.sh)");
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let port = common::free_port();
    let _server = common::Reap(
        std::process::Command::new("openssl")
            .args(["s_server", "-quiet", "-www", "-accept", &format!("127.0.0.1:{port}"), "-cert"])
            .arg(&cert)
            .arg("-key")
            .arg(&key)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(std::time::Instant::now() < deadline, "openssl s_server did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let endpoint = format!("https://127.0.0.1:{port}/v1/completions");
    let s = settings(&endpoint, serde_json::json!({"warmup_requests": 0, "duration_seconds": 1, "concurrency": 1}));
    let r = run(s, None).await;
    let _ = std::fs::remove_dir_all(&dir);
    assert!(r.complete);
    assert_eq!(r.requests.failed, r.requests.total);
    assert_eq!(r.errors[0].kind, "tls", "{:?}", r.errors);
    assert!(r.errors[0].sample.to_lowercase().contains("certificate"), "{}", r.errors[0].sample);
    assert_schema_valid(&r);
}

/// A tokenizer unlike the simulator's: three tokens per word plus seven for the chat
/// template, as vLLM's `/tokenize` would report them.
async fn tokenizing_server() -> SocketAddr {
    async fn tokenize(axum::Json(body): axum::Json<serde_json::Value>) -> axum::Json<serde_json::Value> {
        let text = body["messages"][0]["content"].as_str().unwrap_or_default();
        let count = 3 * text.split_whitespace().count() + 7;
        axum::Json(serde_json::json!({"count": count, "max_model_len": 8192, "tokens": []}))
    }
    let app = Router::new().route("/tokenize", post(tokenize));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_are_sized_by_the_servers_tokenizer_when_it_has_one() {
    use cfg_bench::client::Api;
    let http = reqwest::Client::new();
    let addr = tokenizing_server().await;
    let endpoint = format!("http://{addr}/v1/chat/completions");
    let words = cfg_bench::prompt::calibrate(&http, &endpoint, Api::Chat, None, "m", &[64, 512, 1]).await.unwrap();
    let counted: Vec<u32> = words.iter().map(|w| 3 * w + 7).collect();
    assert_eq!(words[0], 19, "3 x 19 + 7 = 64 exactly");
    assert!(counted[1].abs_diff(512) <= 1, "{counted:?}");
    assert_eq!(words[2], 1, "a prompt has at least one word");
    // No /tokenize (the simulator, most gateways): words stand for tokens.
    let (sim, _) =
        cfg_bench::sim_server::start(&sim_config(), SocketAddr::from(([127, 0, 0, 1], 0)), None, None).await.unwrap();
    let sim_endpoint = format!("http://{}/v1/chat/completions", sim.addr);
    assert_eq!(cfg_bench::prompt::calibrate(&http, &sim_endpoint, Api::Chat, None, "m", &[64]).await, None);
    sim.task.abort();
}
