//! `cfg-bench serve`: the local runner the browser drives. It serves the web
//! app and a small API (start a run with the current files, stream its
//! progress, stop it, list archived runs, fetch a result, compare two runs).
//!
//! Security: it listens on loopback unless told otherwise; every API call
//! needs the one-time token printed at start; Host and Origin must name this
//! server (no DNS rebinding, no other site can start a load test); bodies are
//! size-limited and the files are linted by the core before anything is sent
//! anywhere. The browser only ever sees the name of the key's variable.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use cfg_core::model::BenchResult;
use cfg_core::{FileKind, Input, Options};
use serde::Deserialize;
use serde_json::json;

use crate::runner::{self, Live, RunInput};

mod limits;

/// Largest request body the API accepts: two small text files.
pub const MAX_BODY_BYTES: usize = 1 << 20;

pub struct ServeOptions {
    pub bind: SocketAddr,
    pub runs_dir: PathBuf,
    pub web_dir: Option<PathBuf>,
    /// The variables a run from the browser may read a key from (`--key-env`):
    /// a page must not be able to send any variable of this process anywhere.
    pub key_envs: Vec<String>,
}

/// Runs going at once, and their total concurrency: a page cannot make the
/// runner open unbounded connections.
const MAX_LIVE_RUNS: usize = 4;
const MAX_TOTAL_CONCURRENCY: u64 = 4096;
/// Finished runs kept for their events and result (they are in the archive too).
const MAX_FINISHED_RUNS: usize = 32;
/// Connections served at once, and how long one may sit idle.
const MAX_CONNECTIONS: usize = 256;
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

struct RunSlot {
    stop: Arc<AtomicBool>,
    live: Arc<Live>,
    result: Arc<Mutex<Option<BenchResult>>>,
    concurrency: u64,
}

struct AppState {
    token: String,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
    runs_dir: PathBuf,
    web_dir: Option<PathBuf>,
    runs: Mutex<HashMap<String, RunSlot>>,
    key_envs: Vec<String>,
    next: Mutex<u64>,
}

/// A fresh 128-bit token from the OS's random source.
pub fn new_token() -> String {
    let mut bytes = [0u8; 16];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        use std::io::Read;
        let _ = f.read_exact(&mut bytes);
    }
    if bytes.iter().all(|&b| b == 0) {
        // No /dev/urandom: derive from the clock and the process, still one-time.
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let mut rng = cfg_core::sim::rng::SplitMix64::new(t as u64 ^ u64::from(std::process::id()) << 32);
        for chunk in bytes.chunks_mut(8) {
            chunk.copy_from_slice(&rng.next_u64().to_le_bytes()[..chunk.len()]);
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The router, with `token` required on every API call.
pub fn router(opts: &ServeOptions, addr: SocketAddr, token: String) -> Router {
    let port = addr.port();
    let mut hosts = vec![format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")];
    if !addr.ip().is_loopback() && !addr.ip().is_unspecified() {
        hosts.push(addr.to_string());
    }
    let origins = hosts.iter().map(|h| format!("http://{h}")).collect();
    let state = Arc::new(AppState {
        token,
        allowed_hosts: hosts,
        allowed_origins: origins,
        runs_dir: opts.runs_dir.clone(),
        web_dir: opts.web_dir.clone(),
        runs: Mutex::new(HashMap::new()),
        key_envs: opts.key_envs.clone(),
        next: Mutex::new(0),
    });
    let api = Router::new()
        .route("/api/info", get(info))
        .route("/api/runs", get(list_runs).post(start_run))
        .route("/api/runs/{id}/events", get(events))
        .route("/api/runs/{id}/stop", post(stop_run))
        .route("/api/runs/{id}/result", get(get_result))
        .route("/api/compare", get(compare))
        .route("/api/model-config", get(model_config))
        .layer(middleware::from_fn_with_state(state.clone(), require_token));
    Router::new()
        .merge(api)
        .fallback(get(static_file))
        .layer(middleware::from_fn_with_state(state.clone(), check_host_and_origin))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
}

fn deny(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({"error": message}))).into_response()
}

/// Host must be this server (DNS rebinding); Origin, when sent, must be too
/// (no other site may drive the runner).
async fn check_host_and_origin(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    // Two of either: which one the check saw and which one the app reads could differ.
    if req.headers().get_all(header::HOST).iter().count() > 1
        || req.headers().get_all(header::ORIGIN).iter().count() > 1
    {
        return deny(StatusCode::BAD_REQUEST, "more than one Host or Origin header");
    }
    let host = req.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if !state.allowed_hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
        return deny(StatusCode::MISDIRECTED_REQUEST, "unexpected Host header (DNS rebinding protection)");
    }
    if let Some(origin) = req.headers().get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !state.allowed_origins.iter().any(|o| o.eq_ignore_ascii_case(origin)) {
            return deny(StatusCode::FORBIDDEN, "cross-origin requests are refused");
        }
    }
    next.run(req).await
}

#[derive(Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

fn constant_time_eq(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Every API call carries the token: `Authorization: Bearer <token>`, or
/// `?token=` for EventSource, which cannot set headers.
async fn require_token(
    State(state): State<Arc<AppState>>,
    Query(q): Query<TokenQuery>,
    req: Request,
    next: Next,
) -> Response {
    let bearer = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_string);
    let given = bearer.or(q.token).unwrap_or_default();
    if !constant_time_eq(&given, &state.token) {
        return deny(StatusCode::UNAUTHORIZED, "missing or wrong token: use the URL cfg-bench serve printed");
    }
    next.run(req).await
}

async fn info() -> Response {
    Json(json!({"tool": "cfg-bench", "version": env!("CARGO_PKG_VERSION"), "vllm": cfg_core::VLLM_VERSION}))
        .into_response()
}

#[derive(Deserialize)]
struct StartRun {
    config: Option<String>,
    settings: String,
    /// Test the built-in simulator configured by `config` instead of the endpoint.
    #[serde(default)]
    simulate: bool,
    duration_seconds: Option<u32>,
}

async fn start_run(State(state): State<Arc<AppState>>, Json(body): Json<StartRun>) -> Response {
    // Lint first: nothing is sent anywhere for files with errors. Off the async
    // threads: a large file must not stall every other call.
    let mut inputs = vec![Input::new(FileKind::Settings, "settings.json", body.settings.clone())];
    if let Some(c) = &body.config {
        inputs.push(Input::new(FileKind::Config, "config.toml", c.clone()));
    }
    let Ok(report) = tokio::task::spawn_blocking(move || cfg_core::lint(&inputs, &Options::default())).await else {
        return deny(StatusCode::INTERNAL_SERVER_ERROR, "the lint failed");
    };
    if report.has_errors() {
        return (
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(json!({"error": "the files have errors", "diagnostics": report.diagnostics})),
        )
            .into_response();
    }
    let Some(mut settings) = report.settings.clone() else {
        return deny(StatusCode::UNPROCESSABLE_ENTITY, "settings.json did not parse");
    };
    if let Some(d) = body.duration_seconds {
        settings.duration_seconds = d.clamp(1, 86_400);
    }
    if let Some(var) = settings.api_key_env.as_deref().filter(|_| !body.simulate)
        && !state.key_envs.iter().any(|v| v == var)
    {
        return deny(
            StatusCode::FORBIDDEN,
            &format!(
                "runs from the browser may read keys only from the variables cfg-bench serve was started with (--key-env); {var} is not one of them"
            ),
        );
    }
    // The place is taken under the lock that counts the places, so requests
    // arriving together cannot all pass the limits; a start that fails gives it back.
    let slot = RunSlot {
        stop: Arc::new(AtomicBool::new(false)),
        live: Arc::new(Live::default()),
        result: Arc::new(Mutex::new(None)),
        concurrency: u64::from(settings.concurrency),
    };
    let (stop, live, result) = (slot.stop.clone(), slot.live.clone(), slot.result.clone());
    let id = match take_place(&state, slot) {
        Ok(id) => id,
        Err(why) => return deny(StatusCode::TOO_MANY_REQUESTS, &why),
    };
    let give_back = |status, why: &str| {
        state.runs.lock().expect("not poisoned").remove(&id);
        deny(status, why)
    };
    let key = if body.simulate {
        Some(new_token())
    } else {
        match crate::inputs::read_key(&settings) {
            Ok(k) => k,
            // The message names the variable only, never a key.
            Err(e) => return give_back(StatusCode::BAD_REQUEST, &e),
        }
    };
    let config = report.config.clone().zip(body.config.clone());
    let mut sim_handle = None;
    if body.simulate {
        let started = match &config {
            Some((cfg, _)) => crate::sim_server::start_for(cfg, &mut settings, key.clone()).await,
            None => Err("simulate needs config.toml".to_string()),
        };
        match started {
            Ok((handle, _)) => sim_handle = Some(handle),
            Err(e) => return give_back(StatusCode::UNPROCESSABLE_ENTITY, &e),
        }
    }
    let settings_text = serde_json::to_string_pretty(&settings).unwrap_or_default();
    let runs_dir = state.runs_dir.clone();
    tokio::spawn(async move {
        let input = RunInput {
            settings,
            settings_text: settings_text.clone(),
            config: config.clone(),
            key,
            stop,
            stop_reason: Arc::new(Mutex::new(Some("stopped from the browser".into()))),
            show_progress: false,
            shard: None,
            start_gate: None,
            transport: crate::client::Transport::Auto,
        };
        // A run that panics still ends: its place is freed and the page told.
        let r = match tokio::spawn(runner::run(input, live)).await {
            Ok(r) => r,
            Err(_) => BenchResult {
                complete: false,
                stopped_reason: Some("the run stopped on an internal error; see the server's log".into()),
                ..BenchResult::default()
            },
        };
        let _ = crate::archive::store(&runs_dir, &r, &settings_text, config.as_ref().map(|(_, t)| t.as_str()));
        *result.lock().expect("not poisoned") = Some(r);
        if let Some(h) = sim_handle {
            h.task.abort();
        }
    });
    (StatusCode::ACCEPTED, Json(json!({"id": id}))).into_response()
}

/// Takes a place for `slot` if another run of its concurrency fits beside the
/// live ones, and returns its id; finished runs beyond the most recent few are
/// dropped (their results are in the archive).
fn take_place(state: &AppState, slot: RunSlot) -> Result<String, String> {
    let mut runs = state.runs.lock().expect("not poisoned");
    let live: Vec<u64> =
        runs.values().filter(|s| s.result.lock().expect("not poisoned").is_none()).map(|s| s.concurrency).collect();
    if live.len() >= MAX_LIVE_RUNS {
        return Err(format!("{} runs are going already; stop one or wait", live.len()));
    }
    let busy: u64 = live.iter().sum();
    if busy + slot.concurrency > MAX_TOTAL_CONCURRENCY {
        return Err(format!(
            "runs from the browser may hold {MAX_TOTAL_CONCURRENCY} requests in flight together; {busy} are taken and this run asks for {}",
            slot.concurrency
        ));
    }
    let mut finished: Vec<(u64, String)> = runs
        .iter()
        .filter(|(_, s)| s.result.lock().expect("not poisoned").is_some())
        .map(|(id, _)| (id.trim_start_matches("live-").parse().unwrap_or(0), id.clone()))
        .collect();
    finished.sort();
    let extra = finished.len().saturating_sub(MAX_FINISHED_RUNS);
    for (_, id) in finished.into_iter().take(extra) {
        runs.remove(&id);
    }
    let id = {
        let mut n = state.next.lock().expect("not poisoned");
        *n += 1;
        format!("live-{}", *n)
    };
    runs.insert(id.clone(), slot);
    Ok(id)
}

/// Server-sent events: a `progress` event a second, then one `result`.
async fn events(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    let slot = {
        let runs = state.runs.lock().expect("not poisoned");
        runs.get(&id).map(|s| (s.live.clone(), s.result.clone()))
    };
    let Some((live, result)) = slot else { return deny(StatusCode::NOT_FOUND, "no such run") };
    let stream = futures_util::stream::unfold(false, move |done| {
        let (live, result) = (live.clone(), result.clone());
        async move {
            if done {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(1000)).await;
            let finished = result.lock().expect("not poisoned").clone();
            let event = match finished {
                Some(r) => Event::default().event("result").json_data(&r).ok()?,
                None => {
                    let snap = live.snapshot.lock().expect("not poisoned").clone();
                    Event::default().event("progress").json_data(&snap).ok()?
                }
            };
            let is_result = result.lock().expect("not poisoned").is_some();
            Some((Ok::<_, Infallible>(event), is_result))
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default()).into_response()
}

async fn stop_run(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    match state.runs.lock().expect("not poisoned").get(&id) {
        Some(slot) => {
            slot.stop.store(true, Ordering::SeqCst);
            Json(json!({"stopping": id})).into_response()
        }
        None => deny(StatusCode::NOT_FOUND, "no such run"),
    }
}

async fn get_result(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    if let Some(slot) = state.runs.lock().expect("not poisoned").get(&id) {
        return match slot.result.lock().expect("not poisoned").clone() {
            Some(r) => Json(r).into_response(),
            None => deny(StatusCode::CONFLICT, "the run is still going"),
        };
    }
    match crate::archive::load_run(&state.runs_dir, &id) {
        Ok(r) => Json(r).into_response(),
        Err(e) => deny(StatusCode::NOT_FOUND, &e),
    }
}

async fn list_runs(State(state): State<Arc<AppState>>) -> Response {
    Json(json!({"runs": crate::archive::ids(&state.runs_dir)})).into_response()
}

#[derive(Deserialize)]
struct CompareQuery {
    baseline: String,
    candidate: String,
}

async fn compare(State(state): State<Arc<AppState>>, Query(q): Query<CompareQuery>) -> Response {
    // Run ids only: a caller of the API never names a file.
    let load = |id: &str| crate::archive::load_run(&state.runs_dir, id);
    match (load(&q.baseline), load(&q.candidate)) {
        (Ok(a), Ok(b)) => {
            let (text, regressed) = crate::archive::compare(&a, &b, Some(5.0));
            Json(json!({"table": text, "regressed_over_5_percent": regressed})).into_response()
        }
        (Err(e), _) | (_, Err(e)) => deny(StatusCode::NOT_FOUND, &e),
    }
}

#[derive(Deserialize)]
struct ModelQuery {
    name: String,
}

/// A Hub model's config.json for the page: from this machine's Hugging Face
/// cache, else fetched from the Hub with this process's HF_ENDPOINT and HF_TOKEN
/// (the token never reaches the browser). Hub ids only: a name from a page never
/// becomes a path on this machine.
async fn model_config(Query(q): Query<ModelQuery>) -> Response {
    let env = cfg_models::Env::from_process();
    let root = env.cache_root().map(|r| r.display().to_string());
    let name = q.name.trim().to_string();
    let found = tokio::task::spawn_blocking(move || cfg_models::find_hub_model(&name, &env, true)).await;
    match found {
        Ok(Ok(Some(files))) => Json(json!({
            // The page needs to know which files, not where this machine keeps them.
            "origin": match root.as_deref().and_then(|r| files.origin.strip_prefix(r)) {
                Some(rest) => format!("the server's Hugging Face cache: {}", rest.trim_start_matches('/')),
                None => files.origin,
            },
            "config_json": files.config_json,
            "safetensors_index": files.safetensors_index,
        }))
        .into_response(),
        Ok(Ok(None)) => deny(StatusCode::NOT_FOUND, "no config.json found for this model"),
        Ok(Err(e)) if e.contains("not a Hugging Face model id") => deny(StatusCode::BAD_REQUEST, &e),
        Ok(Err(e)) => deny(StatusCode::BAD_GATEWAY, &e),
        Err(_) => deny(StatusCode::INTERNAL_SERVER_ERROR, "the lookup failed"),
    }
}

/// The web app's files (no token: the page itself carries no data; it reads
/// the token from its URL fragment and sends it with every API call).
async fn static_file(State(state): State<Arc<AppState>>, uri: axum::http::Uri, _headers: HeaderMap) -> Response {
    let Some(dir) = &state.web_dir else {
        return (StatusCode::NOT_FOUND, "the web app is not built: run scripts/build-web.sh, or use the API")
            .into_response();
    };
    let rel = uri.path().trim_start_matches('/');
    let rel = if rel.is_empty() { "index.html" } else { rel };
    if rel.split('/').any(|part| part == ".." || part.starts_with('.')) {
        return deny(StatusCode::BAD_REQUEST, "bad path");
    }
    let path = dir.join(rel);
    // Only a regular file whose real path is inside the web folder: a symlink
    // in it must not serve a file from elsewhere on the disk.
    let inside = match (tokio::fs::canonicalize(dir).await, tokio::fs::canonicalize(&path).await) {
        (Ok(root), Ok(real)) => real.starts_with(&root) && tokio::fs::metadata(&real).await.is_ok_and(|m| m.is_file()),
        _ => false,
    };
    if !inside {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    }
    match tokio::fs::read(&path).await {
        Ok(bytes) => {
            let mime = match path.extension().and_then(|e| e.to_str()) {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "text/javascript",
                Some("wasm") => "application/wasm",
                Some("css") => "text/css",
                Some("json") => "application/json",
                Some("svg") => "image/svg+xml",
                _ => "application/octet-stream",
            };
            ([(header::CONTENT_TYPE, mime), (header::CACHE_CONTROL, "no-cache")], bytes).into_response()
        }
        Err(_) => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// Runs the server until Ctrl-C.
pub async fn serve(opts: ServeOptions) -> Result<(), String> {
    let listener =
        tokio::net::TcpListener::bind(opts.bind).await.map_err(|e| format!("cannot listen on {}: {e}", opts.bind))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let token = new_token();
    let app = router(&opts, addr, token.clone());
    let shown = if addr.ip().is_unspecified() { SocketAddr::from(([127, 0, 0, 1], addr.port())) } else { addr };
    println!("cfg-bench serve: open http://{shown}/#token={token}");
    println!("(the token is required by every API call; Ctrl-C stops the server)");
    axum::serve(limits::Limited::new(listener, MAX_CONNECTIONS, IDLE_TIMEOUT), app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .map_err(|e| e.to_string())
}
