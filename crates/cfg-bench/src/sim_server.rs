//! `cfg-bench sim`: an OpenAI-compatible streaming server that behaves like
//! a vLLM instance configured by config.toml, driven in real time by the
//! core's engine model. Everything it serves is marked as simulated.

use std::collections::HashMap;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use cfg_core::model::ServerConfig;
use cfg_core::sim::engine::{Engine, EngineConfig, EngineRequest, TokenEvent};
use cfg_core::vllm::requests::{Answer, Route, answer};
use serde_json::{Value, json};
use tokio::sync::mpsc;

mod arrival;

pub const SIMULATED_HEADER: &str = "x-cfg-bench-simulated";

/// What a piece of the SSE stream carries, for the trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    First,
    Token,
    Other,
    Done { tokens: usize },
}

/// Notes when the HTTP layer takes tokens for writing and writes one trace
/// line per finished request: received, first token sent, last token sent.
struct Tracer {
    trace: Option<Arc<Mutex<std::fs::File>>>,
    started: Instant,
    id: u64,
    arrived: Arrived,
    prompt_tokens: u32,
    first: Option<f64>,
    last: Option<f64>,
}

impl Tracer {
    fn note(&mut self, kind: Piece) {
        let now = self.started.elapsed().as_secs_f64();
        match kind {
            Piece::First => {
                self.first = Some(now);
                self.last = Some(now);
            }
            Piece::Token => self.last = Some(now),
            Piece::Other => {}
            Piece::Done { tokens } => {
                if let Some(f) = &self.trace {
                    let line = json!({"id": self.id, "received": self.arrived.received, "handled": self.arrived.handled, "first_token_sent": self.first, "last_token_sent": self.last, "prompt_tokens": self.prompt_tokens, "output_tokens": tokens});
                    let _ = writeln!(f.lock().expect("not poisoned"), "{line}");
                }
            }
        }
    }
}

struct NewRequest {
    req: EngineRequest,
    events: mpsc::UnboundedSender<TokenEvent>,
}

#[derive(Default, Clone, Copy)]
struct Gauges {
    waiting: usize,
    running: usize,
    kv_usage: f64,
    preemptions: u64,
    prompt_tokens: u64,
    generation_tokens: u64,
    finished: u64,
}

struct AppState {
    served_names: Vec<String>,
    root: String,
    max_model_len: u32,
    key: Option<String>,
    submit: mpsc::UnboundedSender<NewRequest>,
    gauges: Arc<Mutex<Gauges>>,
    next_id: Mutex<u64>,
    trace: Option<Arc<Mutex<std::fs::File>>>,
    started: Instant,
}

/// A running simulator.
pub struct SimHandle {
    pub addr: SocketAddr,
    pub task: tokio::task::JoinHandle<()>,
}

/// Starts a simulator for `config` on a free loopback port and points the load
/// test at it: the same route on the simulator, and its `/metrics`.
pub async fn start_for(
    config: &ServerConfig,
    settings: &mut cfg_core::model::LoadTestSettings,
    key: Option<String>,
) -> Result<(SimHandle, Vec<String>), String> {
    let (handle, notes) = start(config, SocketAddr::from(([127, 0, 0, 1], 0)), None, key).await?;
    let path = cfg_core::url::Url::parse(&settings.endpoint).map(|u| u.path).filter(|p| !p.is_empty());
    settings.endpoint = format!("http://{}{}", handle.addr, path.as_deref().unwrap_or("/v1/chat/completions"));
    settings.metrics_url = Some(format!("http://{}/metrics", handle.addr));
    Ok((handle, notes))
}

/// Starts the simulator on `bind` (port 0 picks a free one).
/// `key` overrides the key the config's `${VAR}` would give.
pub async fn start(
    config: &ServerConfig,
    bind: SocketAddr,
    trace: Option<std::path::PathBuf>,
    key: Option<String>,
) -> Result<(SimHandle, Vec<String>), String> {
    let found = crate::inputs::find_model(&config.model.name);
    let instance = cfg_core::sim::instance_with(config, found.as_ref())?;
    let mut notes = instance.assumptions.clone();
    let from_env = key.is_none();
    let key = if !from_env {
        key
    } else {
        match config.server().api_key.as_deref().and_then(cfg_core::secrets::env_reference) {
            Some(var) => match std::env::var(var) {
                Ok(v) if !v.is_empty() => Some(v),
                _ => {
                    notes.push(format!("${var} is not set: the simulator accepts requests without a key"));
                    None
                }
            },
            None => None,
        }
    };
    let (submit, inbox) = mpsc::unbounded_channel();
    let gauges = Arc::new(Mutex::new(Gauges::default()));
    let trace_file = match trace {
        Some(p) => Some(Arc::new(Mutex::new(
            std::fs::File::create(&p).map_err(|e| format!("cannot create {}: {e}", p.display()))?,
        ))),
        None => None,
    };
    let state = Arc::new(AppState {
        served_names: config.served_names().iter().map(|s| s.to_string()).collect(),
        root: config.model.name.clone(),
        max_model_len: instance.engine.max_model_len,
        key,
        submit,
        gauges: gauges.clone(),
        next_id: Mutex::new(0),
        trace: trace_file,
        started: Instant::now(),
    });
    tokio::spawn(drive(instance.engine, inbox, gauges));
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/completions", post(completions))
        .route("/v1/models", get(models))
        .route("/health", get(|| async { ([(SIMULATED_HEADER, "true")], "") }))
        .route("/metrics", get(metrics))
        .with_state(state);
    let listener = tokio::net::TcpListener::bind(bind).await.map_err(|e| format!("cannot listen on {bind}: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let listener = arrival::StampedListener::new(listener);
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app.into_make_service_with_connect_info::<arrival::Arrival>()).await;
    });
    Ok((SimHandle { addr, task }, notes))
}

/// The engine loop: admits new requests, runs a step, sleeps for its
/// duration (on a schedule, so sleeps do not accumulate drift), delivers tokens.
async fn drive(config: EngineConfig, mut inbox: mpsc::UnboundedReceiver<NewRequest>, gauges: Arc<Mutex<Gauges>>) {
    let mut engine = Engine::new(config);
    let mut listeners: HashMap<u64, mpsc::UnboundedSender<TokenEvent>> = HashMap::new();
    let mut clock = tokio::time::Instant::now();
    loop {
        if engine.is_idle() {
            match inbox.recv().await {
                Some(n) => {
                    listeners.insert(n.req.id, n.events);
                    engine.add(n.req);
                    clock = tokio::time::Instant::now();
                }
                None => return,
            }
        }
        while let Ok(n) = inbox.try_recv() {
            listeners.insert(n.req.id, n.events);
            engine.add(n.req);
        }
        let out = engine.step();
        clock += Duration::from_secs_f64(out.seconds);
        tokio::time::sleep_until(clock).await;
        for (id, ev) in out.events {
            let gone = listeners.get(&id).is_none_or(|l| l.send(ev).is_err());
            if matches!(ev, TokenEvent::Done | TokenEvent::Rejected) || gone {
                listeners.remove(&id);
                if gone {
                    engine.abort(id);
                }
            }
        }
        *gauges.lock().expect("not poisoned") = Gauges {
            waiting: engine.num_waiting(),
            running: engine.num_running(),
            kv_usage: engine.kv_usage(),
            preemptions: engine.preemptions_total,
            prompt_tokens: engine.prompt_tokens_total,
            generation_tokens: engine.generation_tokens_total,
            finished: engine.requests_finished_total,
        };
    }
}

fn error(status: StatusCode, kind: &str, message: String) -> Response {
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": status.as_u16()}});
    (status, [(SIMULATED_HEADER, "true")], Json(body)).into_response()
}

/// vLLM's 401: not the OpenAI error envelope, exactly this body.
fn unauthorized() -> Response {
    (StatusCode::UNAUTHORIZED, [(SIMULATED_HEADER, "true")], Json(json!({"error": "Unauthorized"}))).into_response()
}

fn authorized(state: &AppState, headers: &HeaderMap) -> bool {
    let Some(key) = &state.key else { return true };
    let given = headers.get("authorization").and_then(|v| v.to_str().ok()).unwrap_or("");
    let token =
        given.split_once(' ').filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer")).map(|(_, t)| t.trim());
    token == Some(key.as_str())
}

async fn models(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    if !authorized(&state, &headers) {
        return unauthorized();
    }
    let data: Vec<Value> = state
        .served_names
        .iter()
        .map(|n| json!({"id": n, "object": "model", "owned_by": "cfg-bench-simulator", "root": state.root, "max_model_len": state.max_model_len}))
        .collect();
    ([(SIMULATED_HEADER, "true")], Json(json!({"object": "list", "data": data}))).into_response()
}

async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    let g = *state.gauges.lock().expect("not poisoned");
    let name = state.served_names.first().cloned().unwrap_or_default();
    let l = format!("{{model_name=\"{name}\"}}");
    let body = format!(
        "# HELP cfg_bench_simulated This server is cfg-bench's simulator, not vLLM.\ncfg_bench_simulated 1\n\
         vllm:num_requests_waiting{l} {}\nvllm:num_requests_running{l} {}\nvllm:kv_cache_usage_perc{l} {}\n\
         vllm:num_preemptions_total{l} {}\nvllm:prompt_tokens_total{l} {}\nvllm:generation_tokens_total{l} {}\n\
         vllm:request_success_total{l} {}\n",
        g.waiting, g.running, g.kv_usage, g.preemptions, g.prompt_tokens, g.generation_tokens, g.finished
    );
    ([(SIMULATED_HEADER, "true"), ("content-type", "text/plain; version=0.0.4")], body).into_response()
}

/// Reads the JSON body (after the arrival is noted: the trace counts reading and
/// parsing it, as a server would).
async fn read_json(req: axum::extract::Request) -> Result<Value, Response> {
    let bytes = axum::body::to_bytes(req.into_body(), 16 << 20)
        .await
        .map_err(|e| error(StatusCode::BAD_REQUEST, "BadRequestError", format!("cannot read the body: {e}")))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| error(StatusCode::BAD_REQUEST, "BadRequestError", format!("invalid JSON: {e}")))
}

/// What both generation routes do first: note the arrival, check the key
/// (before reading the body, as vLLM answers 401 first), read the JSON.
async fn accept(
    state: &AppState,
    arrival: &arrival::Arrival,
    headers: &HeaderMap,
    req: axum::extract::Request,
) -> Result<(Value, Arrived), Response> {
    let handled = state.started.elapsed().as_secs_f64();
    let received = arrival.take().map_or(handled, |at| at.saturating_duration_since(state.started).as_secs_f64());
    if !authorized(state, headers) {
        return Err(unauthorized());
    }
    Ok((read_json(req).await?, Arrived { received: received.min(handled), handled }))
}

/// When a request reached the socket and when its handler began, in seconds
/// since the simulator started.
#[derive(Debug, Clone, Copy)]
struct Arrived {
    received: f64,
    handled: f64,
}

async fn chat(
    state: State<Arc<AppState>>,
    ConnectInfo(arrival): ConnectInfo<arrival::Arrival>,
    headers: HeaderMap,
    req: axum::extract::Request,
) -> Response {
    let (body, arrived) = match accept(&state, &arrival, &headers, req).await {
        Ok(v) => v,
        Err(r) => return r,
    };
    let prompt: String = body
        .get("messages")
        .and_then(Value::as_array)
        .map(|msgs| msgs.iter().filter_map(|m| m.get("content").and_then(Value::as_str)).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    generate(state, body, prompt, true, arrived).await
}

async fn completions(
    state: State<Arc<AppState>>,
    ConnectInfo(arrival): ConnectInfo<arrival::Arrival>,
    headers: HeaderMap,
    req: axum::extract::Request,
) -> Response {
    let (body, arrived) = match accept(&state, &arrival, &headers, req).await {
        Ok(v) => v,
        Err(r) => return r,
    };
    let prompt = body.get("prompt").and_then(Value::as_str).unwrap_or_default().to_string();
    generate(state, body, prompt, false, arrived).await
}

async fn generate(
    State(state): State<Arc<AppState>>,
    body: Value,
    prompt: String,
    chat: bool,
    arrived: Arrived,
) -> Response {
    let req = match Admitted::check(&state, &body, &prompt, chat) {
        Ok(req) => req,
        Err((status, kind, message)) => return error(status, kind, message),
    };
    let id = {
        let mut n = state.next_id.lock().expect("not poisoned");
        *n += 1;
        *n
    };
    let (tx, rx) = mpsc::unbounded_channel();
    let priority = body.get("priority").and_then(Value::as_i64).unwrap_or(0) as i32;
    let engine_req = EngineRequest { id, prompt_tokens: req.prompt_tokens, output_tokens: req.output_tokens, priority };
    if state.submit.send(NewRequest { req: engine_req, events: tx }).is_err() {
        return error(StatusCode::SERVICE_UNAVAILABLE, "ServiceUnavailable", "the engine stopped".into());
    }
    let usage = json!({"prompt_tokens": req.prompt_tokens, "completion_tokens": req.output_tokens, "total_tokens": req.prompt_tokens + req.output_tokens});
    if !req.stream {
        return whole_answer(rx, chat, usage).await;
    }
    let name = state.served_names.first().cloned().unwrap_or_default();
    let tracer = Tracer {
        trace: state.trace.clone(),
        started: state.started,
        id,
        arrived,
        prompt_tokens: req.prompt_tokens,
        first: None,
        last: None,
    };
    streamed(rx, id, &name, chat, req.include_usage.then_some(usage), tracer)
}

/// The words the simulator answers with, one per token.
const WORDS: [&str; 9] = ["the", "model", "answers", "with", "a", "token", "at", "each", "step"];

/// vLLM's error answer: its status, its error type and its message.
type Refusal = (StatusCode, &'static str, String);

/// A request the simulator accepts, with its lengths as vLLM would set them.
struct Admitted {
    prompt_tokens: u32,
    output_tokens: u32,
    stream: bool,
    include_usage: bool,
}

impl Admitted {
    /// vLLM's refusals: an unknown model (404), and the length checks of its
    /// OpenAI server (400), as `cfg_core::vllm::requests` has them.
    fn check(state: &AppState, body: &Value, prompt: &str, chat: bool) -> Result<Admitted, Refusal> {
        let model = body.get("model").and_then(Value::as_str).unwrap_or("");
        if !model.is_empty() && !state.served_names.iter().any(|n| n == model) {
            return Err((
                StatusCode::NOT_FOUND,
                "NotFoundError",
                format!("The model `{model}` does not exist. Valid aliases: {}.", state.served_names.join(", ")),
            ));
        }
        // One whitespace-separated word is one token in the simulator.
        let prompt_tokens = prompt.split_whitespace().count().max(1) as u32;
        let mml = state.max_model_len;
        // vLLM's default: the rest of the context for chat, 16 for completions.
        let default = if chat { mml.saturating_sub(prompt_tokens) } else { 16 };
        let number = |key: &str| body.get(key).and_then(Value::as_u64).map(|v| v.min(u64::from(u32::MAX)) as u32);
        // Chat's max_completion_tokens wins over max_tokens, as in vLLM.
        let completion = if chat { number("max_completion_tokens") } else { None };
        let requested = completion.or_else(|| number("max_tokens")).unwrap_or(default);
        let min_tokens = number("min_tokens").unwrap_or(0);
        let route = if chat { Route::Chat } else { Route::Completions };
        let output_tokens = match answer(route, prompt_tokens, requested, min_tokens, mml) {
            Answer::Served { max_tokens, .. } => max_tokens,
            Answer::Refused(message) => {
                let message = cfg_core::vllm::requests::worded_for(message, completion.is_some());
                return Err((StatusCode::BAD_REQUEST, "BadRequestError", message));
            }
        };
        Ok(Admitted {
            prompt_tokens,
            output_tokens,
            stream: body.get("stream").and_then(Value::as_bool).unwrap_or(false),
            include_usage: body.pointer("/stream_options/include_usage").and_then(Value::as_bool).unwrap_or(false),
        })
    }
}

/// A non-streamed answer: all its tokens at once, once the engine is done.
async fn whole_answer(mut rx: mpsc::UnboundedReceiver<TokenEvent>, chat: bool, usage: Value) -> Response {
    let mut n = 0u32;
    while let Some(ev) = rx.recv().await {
        match ev {
            TokenEvent::Rejected => {
                return error(StatusCode::BAD_REQUEST, "BadRequestError", "request too long".into());
            }
            TokenEvent::Done => {
                n += 1;
                break;
            }
            _ => n += 1,
        }
    }
    let text: Vec<&str> = (0..n.max(1)).map(|i| WORDS[i as usize % WORDS.len()]).collect();
    let body = if chat {
        json!({"object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": text.join(" ")}, "finish_reason": "length"}], "usage": usage})
    } else {
        json!({"object": "text_completion", "choices": [{"index": 0, "text": text.join(" "), "finish_reason": "length"}], "usage": usage})
    };
    ([(SIMULATED_HEADER, "true")], Json(body)).into_response()
}

/// A streamed answer: an SSE chunk per token as the engine makes it, the usage
/// chunk when asked for, then `[DONE]`.
fn streamed(
    mut rx: mpsc::UnboundedReceiver<TokenEvent>,
    id: u64,
    model: &str,
    chat: bool,
    usage: Option<Value>,
    tracer: Tracer,
) -> Response {
    let object = if chat { "chat.completion.chunk" } else { "text_completion" };
    // Chunks are formatted by hand: the words need no escaping, and a
    // cheaper server per token keeps its own overhead out of the timings.
    let model_json = serde_json::to_string(model).unwrap_or_else(|_| "\"\"".into());
    let chunk = move |text: Option<&str>, finish: Option<&str>| {
        let finish = finish.map_or("null".to_string(), |f| format!("\"{f}\""));
        let text = text.unwrap_or("");
        if chat {
            format!(
                "data: {{\"id\":\"cmpl-sim-{id}\",\"object\":\"{object}\",\"model\":{model_json},\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}},\"finish_reason\":{finish}}}]}}\n\n"
            )
        } else {
            format!(
                "data: {{\"id\":\"cmpl-sim-{id}\",\"object\":\"{object}\",\"model\":{model_json},\"choices\":[{{\"index\":0,\"text\":\"{text}\",\"finish_reason\":{finish}}}]}}\n\n"
            )
        }
    };
    // Each piece says what it is, so the trace can note when the HTTP layer
    // takes the first and last token for writing (closest to "sent").
    let (out_tx, out_rx) = mpsc::channel::<(String, Piece)>(64);
    tokio::spawn(async move {
        let mut n = 0usize;
        while let Some(ev) = rx.recv().await {
            if ev == TokenEvent::Rejected {
                let _ = out_tx.send(("data: {\"error\": {\"message\": \"rejected\"}}\n\n".into(), Piece::Other)).await;
                break;
            }
            let done = ev == TokenEvent::Done;
            let text = format!("{}{}", if n == 0 { "" } else { " " }, WORDS[n % WORDS.len()]);
            n += 1;
            let kind = if n == 1 { Piece::First } else { Piece::Token };
            // Like vLLM, the assistant-role chunk goes out with the first engine output.
            if n == 1 && chat {
                let role = format!(
                    "data: {}\n\n",
                    json!({"id": format!("cmpl-sim-{id}"), "object": object, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]})
                );
                if out_tx.send((role, Piece::Other)).await.is_err() {
                    return;
                }
            }
            if out_tx.send((chunk(Some(&text), done.then_some("length")), kind)).await.is_err() {
                return;
            }
            if done {
                if let Some(usage) = &usage {
                    let u = format!(
                        "data: {}\n\n",
                        json!({"id": format!("cmpl-sim-{id}"), "object": object, "choices": [], "usage": usage})
                    );
                    let _ = out_tx.send((u, Piece::Other)).await;
                }
                let _ = out_tx.send(("data: [DONE]\n\n".into(), Piece::Done { tokens: n })).await;
                break;
            }
        }
    });
    let stream = futures_util::stream::unfold((out_rx, tracer), |(mut rx, mut t)| async move {
        let (text, kind) = rx.recv().await?;
        t.note(kind);
        Some((Ok::<_, std::io::Error>(text), (rx, t)))
    });
    let mut resp = Response::new(Body::from_stream(stream));
    let h = resp.headers_mut();
    h.insert("content-type", HeaderValue::from_static("text/event-stream"));
    h.insert("cache-control", HeaderValue::from_static("no-cache"));
    h.insert(SIMULATED_HEADER, HeaderValue::from_static("true"));
    resp
}
