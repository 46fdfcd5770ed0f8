//! `cfg-bench serve`'s API: refused without the token, with a foreign Origin
//! or a bad Host, or with too large a body; files with errors are refused
//! before anything is sent; a simulated run streams progress and a result.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use cfg_bench::serve::{self, ServeOptions};
use futures_util::StreamExt;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

async fn start() -> (SocketAddr, String, PathBuf) {
    start_with(None).await
}

async fn start_with(web_dir: Option<PathBuf>) -> (SocketAddr, String, PathBuf) {
    let runs = std::env::temp_dir().join(format!("cfg-serve-test-{}", std::process::id()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let token = serve::new_token();
    let opts = ServeOptions {
        bind: addr,
        runs_dir: runs.clone(),
        web_dir,
        key_envs: vec!["CFG_SERVE_TEST_KEY".into(), "CFG_SERVE_TEST_UNSET_KEY".into()],
    };
    let app = serve::router(&opts, addr, token.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, token, runs)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_refuses_what_it_must() {
    let (addr, token, _) = start().await;
    let http = reqwest::Client::new();
    let url = format!("http://{addr}/api/info");
    assert_eq!(token.len(), 32);
    assert_eq!(http.get(&url).send().await.unwrap().status(), 401, "no token");
    assert_eq!(http.get(&url).bearer_auth("0".repeat(32)).send().await.unwrap().status(), 401, "wrong token");
    assert_eq!(http.get(&url).bearer_auth(&token).send().await.unwrap().status(), 200);
    assert_eq!(http.get(format!("{url}?token={token}")).send().await.unwrap().status(), 200, "EventSource style");
    let rebinding = http
        .get(&url)
        .bearer_auth(&token)
        .header("host", format!("attacker.example:{}", addr.port()))
        .send()
        .await
        .unwrap();
    assert_eq!(rebinding.status(), 421, "a DNS-rebinding Host is refused");
    let cross = http.get(&url).bearer_auth(&token).header("origin", "http://evil.example").send().await.unwrap();
    assert_eq!(cross.status(), 403, "a foreign Origin is refused");
    let same = http
        .get(&url)
        .bearer_auth(&token)
        .header("origin", format!("http://localhost:{}", addr.port()))
        .send()
        .await
        .unwrap();
    assert_eq!(same.status(), 200);
    let twice = http
        .get(&url)
        .bearer_auth(&token)
        .header("origin", format!("http://localhost:{}", addr.port()))
        .header("origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(twice.status(), 400, "two Origin headers: which one was checked?");
    let huge = serde_json::json!({"settings": "x".repeat(serve::MAX_BODY_BYTES + 10)});
    let r = http.post(format!("http://{addr}/api/runs")).bearer_auth(&token).json(&huge).send().await.unwrap();
    assert_eq!(r.status(), 413, "body too large");
}

/// The API names archived runs by id only: a path out of the runs folder, an
/// absolute path, or a file that happens to be JSON is refused before it is
/// opened, and no answer quotes a file's contents.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_reads_no_file_outside_the_runs_folder() {
    let (addr, token, runs) = start().await;
    std::fs::create_dir_all(&runs).unwrap();
    // A JSON file outside the runs folder that would parse as a result if it were read.
    let outside = std::env::temp_dir().join(format!("cfg-serve-outside-{}.json", std::process::id()));
    let secret = "AKIA-SECRET-VALUE-123";
    std::fs::write(&outside, format!("{{\"ttft_ms\": \"{secret}\"}}")).unwrap();
    let http = reqwest::Client::new();
    let depth = "../".repeat(12);
    let names = [
        format!("{depth}{}", outside.display()),
        outside.display().to_string(),
        "../../../../../../etc/passwd".to_string(),
        "..".to_string(),
    ];
    for name in names {
        let q: Vec<(&str, &str)> = vec![("baseline", &name), ("candidate", &name)];
        let r = http.get(format!("http://{addr}/api/compare")).query(&q).bearer_auth(&token).send().await.unwrap();
        let status = r.status();
        let body = r.text().await.unwrap();
        assert!(status.is_client_error(), "{name}: {status} {body}");
        assert!(body.contains("run id") && !body.contains(secret) && !body.contains("root:"), "{name}: {body}");
        let encoded: String = name.bytes().map(|b| format!("%{b:02X}")).collect();
        let r = http.get(format!("http://{addr}/api/runs/{encoded}/result")).bearer_auth(&token).send().await.unwrap();
        let status = r.status();
        let body = r.text().await.unwrap();
        assert!(status.is_client_error() && !body.contains(secret), "{name}: {status} {body}");
    }
    let _ = std::fs::remove_file(outside);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_with_errors_are_refused_with_the_diagnostics_and_keys_stay_server_side() {
    let (addr, token, _) = start().await;
    let http = reqwest::Client::new();
    let read = |p: &str| std::fs::read_to_string(repo().join(p)).unwrap();
    let body = serde_json::json!({"config": read("examples/spec/config.toml"), "settings": read("examples/spec/settings.json")});
    let r = http.post(format!("http://{addr}/api/runs")).bearer_auth(&token).json(&body).send().await.unwrap();
    assert_eq!(r.status(), 422);
    let v: serde_json::Value = r.json().await.unwrap();
    assert!(
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "CFG501" && d["pointer"] == "/request_distribution/tail")
    );
    // A real endpoint whose key variable is unset: refused, naming the variable only.
    let settings = read("tests/bench/quick-settings.json").replace("VLLM_INTERNAL_KEY", "CFG_SERVE_TEST_UNSET_KEY");
    let r = http
        .post(format!("http://{addr}/api/runs"))
        .bearer_auth(&token)
        .json(&serde_json::json!({"settings": settings}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("$CFG_SERVE_TEST_UNSET_KEY is not set"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_simulated_run_streams_progress_then_its_result() {
    let (addr, token, runs) = start().await;
    let http = reqwest::Client::new();
    let read = |p: &str| std::fs::read_to_string(repo().join(p)).unwrap();
    let body = serde_json::json!({
        "config": read("examples/config.toml"),
        "settings": read("tests/bench/quick-settings.json"),
        "simulate": true,
        "duration_seconds": 2
    });
    let r = http.post(format!("http://{addr}/api/runs")).bearer_auth(&token).json(&body).send().await.unwrap();
    assert_eq!(r.status(), 202);
    let id = r.json::<serde_json::Value>().await.unwrap()["id"].as_str().unwrap().to_string();
    let resp = http.get(format!("http://{addr}/api/runs/{id}/events?token={token}")).send().await.unwrap();
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let mut stream = resp.bytes_stream();
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
    while !text.contains("event: result") {
        let chunk = tokio::time::timeout_at(deadline, stream.next())
            .await
            .expect("result within 60 s")
            .expect("stream open")
            .unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(text.contains("event: progress") && text.contains("\"phase\""), "{text}");
    let result = http.get(format!("http://{addr}/api/runs/{id}/result")).bearer_auth(&token).send().await.unwrap();
    let r: serde_json::Value = result.json().await.unwrap();
    assert_eq!(r["simulated"], true);
    assert!(r["requests"]["succeeded"].as_u64().unwrap() > 0);
    let list: serde_json::Value =
        http.get(format!("http://{addr}/api/runs")).bearer_auth(&token).send().await.unwrap().json().await.unwrap();
    assert_eq!(list["runs"].as_array().unwrap().len(), 1, "archived");
    let _ = std::fs::remove_dir_all(runs);
}

/// A page chooses settings.json, so it must not choose which of this process's
/// variables is sent as a key, nor open unbounded load.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_cannot_send_any_variable_or_unbounded_load() {
    let (addr, token, _) = start().await;
    let http = reqwest::Client::new();
    let settings = |var: &str, concurrency: u32| {
        serde_json::json!({
            "endpoint": "http://127.0.0.1:9/v1/completions", "model": "m", "api_key_env": var,
            "concurrency": concurrency, "duration_seconds": 1,
            "request_distribution": {"a": {"weight": 1.0, "input_tokens": 10, "output_tokens": 5}}
        })
        .to_string()
    };
    for var in ["PATH", "AWS_SECRET_ACCESS_KEY", "HOME"] {
        let body = serde_json::json!({"settings": settings(var, 1)});
        let r = http.post(format!("http://{addr}/api/runs")).bearer_auth(&token).json(&body).send().await.unwrap();
        assert_eq!(r.status(), 403, "{var} was accepted as a key variable");
        let text = r.text().await.unwrap();
        assert!(
            text.contains("--key-env") && !text.contains(&std::env::var(var).unwrap_or_else(|_| "\u{0}".into())),
            "{text}"
        );
    }
    let body = serde_json::json!({"settings": settings("CFG_SERVE_TEST_KEY", 5000)});
    let r = http.post(format!("http://{addr}/api/runs")).bearer_auth(&token).json(&body).send().await.unwrap();
    assert_eq!(r.status(), 429, "a run of 5000 in flight was accepted");
}

/// The web folder serves its own regular files only: a symlink inside it that
/// points elsewhere on the disk is not followed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_folder_serves_no_file_outside_it() {
    let web = std::env::temp_dir().join(format!("cfg-serve-web-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&web);
    std::fs::create_dir_all(&web).unwrap();
    std::fs::write(web.join("index.html"), "<main>page</main>").unwrap();
    let outside = std::env::temp_dir().join(format!("cfg-serve-secret-{}.txt", std::process::id()));
    std::fs::write(&outside, "SECRET-OUTSIDE-THE-WEB-FOLDER").unwrap();
    std::os::unix::fs::symlink(&outside, web.join("leak.txt")).unwrap();
    let (addr, _, _) = start_with(Some(web.clone())).await;
    let http = reqwest::Client::new();
    let page = http.get(format!("http://{addr}/")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let leak = http.get(format!("http://{addr}/leak.txt")).send().await.unwrap();
    assert_eq!(leak.status(), 404);
    assert!(!leak.text().await.unwrap().contains("SECRET"));
    let _ = std::fs::remove_dir_all(web);
    let _ = std::fs::remove_file(outside);
}
