//! One streamed request against an OpenAI-compatible endpoint, timed the way
//! `vllm bench serve` times it, with every failure sorted into a class.

mod direct;

pub use direct::Resolver;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Which OpenAI route the endpoint is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    Chat,
    Completions,
}

impl Api {
    pub fn from_endpoint(endpoint: &str) -> Api {
        if endpoint.split('?').next().unwrap_or("").trim_end_matches('/').ends_with("/chat/completions") {
            Api::Chat
        } else {
            Api::Completions
        }
    }
}

/// What to send.
#[derive(Debug, Clone)]
pub struct RequestSpec {
    pub model: String,
    pub prompt: String,
    pub max_tokens: u32,
    pub force_output_length: bool,
}

pub fn body(api: Api, spec: &RequestSpec) -> Value {
    let mut body = json!({
        "model": spec.model,
        "max_tokens": spec.max_tokens,
        "stream": true,
        "stream_options": {"include_usage": true},
        "temperature": 0.0,
    });
    match api {
        Api::Chat => body["messages"] = json!([{"role": "user", "content": spec.prompt}]),
        Api::Completions => body["prompt"] = json!(spec.prompt),
    }
    if spec.force_output_length {
        body["ignore_eos"] = json!(true);
        body["min_tokens"] = json!(spec.max_tokens);
    }
    body
}

/// The parts of a streamed chunk the runner reads (chat or completions).
#[derive(serde::Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    choices: Vec<Choice<'a>>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default, borrow)]
    error: Option<&'a serde_json::value::RawValue>,
}

#[derive(serde::Deserialize)]
struct Choice<'a> {
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default, borrow)]
    text: Option<std::borrow::Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
struct Delta<'a> {
    #[serde(default, borrow)]
    content: Option<std::borrow::Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
struct Usage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
}

/// The class of a failed request, as result.json's `errors` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// The server answered with this HTTP status (`http_401`, `http_500`, ...).
    Http(u16),
    /// No complete answer within `request_timeout_seconds`.
    Timeout,
    /// Nothing listens at the host and port.
    ConnectionRefused,
    /// The connection was reset or closed before the answer.
    ConnectionReset,
    /// The stream ended before `[DONE]`, or its framing broke.
    StreamCut,
    /// A `data:` line that is not the JSON an OpenAI stream sends.
    MalformedSse,
    /// The stream carried an `error` object.
    StreamError,
    /// The stream finished without any content.
    EmptyResponse,
    Tls,
    Dns,
    /// The request could not be built or sent.
    Request,
}

impl FailureKind {
    /// The name in result.json and on screen.
    pub fn name(self) -> String {
        match self {
            FailureKind::Http(status) => format!("http_{status}"),
            other => match other {
                FailureKind::Timeout => "timeout",
                FailureKind::ConnectionRefused => "connection_refused",
                FailureKind::ConnectionReset => "connection_reset",
                FailureKind::StreamCut => "stream_cut",
                FailureKind::MalformedSse => "malformed_sse",
                FailureKind::StreamError => "stream_error",
                FailureKind::EmptyResponse => "empty_response",
                FailureKind::Tls => "tls",
                FailureKind::Dns => "dns",
                FailureKind::Request | FailureKind::Http(_) => "request",
            }
            .to_string(),
        }
    }
}

impl std::fmt::Display for FailureKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// A failure, sorted the way a reader needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
    /// Seconds the server asked to wait (`Retry-After` on a 429 or 503), at most 60.
    pub retry_after: Option<f64>,
}

impl Failure {
    /// Control characters in the message (it often quotes the server) are escaped
    /// here, once, so no terminal, file or page it reaches can be driven by them.
    pub(crate) fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        let message = message.into();
        let message = cfg_core::output::escape_controls(&message).into_owned();
        Failure { kind, message, retry_after: None }
    }

    /// The message with the key, if the server echoed it back, taken out.
    pub(crate) fn without(mut self, key: Option<&str>) -> Self {
        self.message = redact(&self.message, key);
        self
    }

    /// The HTTP status, when the server answered with an error.
    pub fn status(&self) -> Option<u16> {
        match self.kind {
            FailureKind::Http(status) => Some(status),
            _ => None,
        }
    }
}

/// Timings of one successful request, in seconds since it was sent.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Timing {
    pub ttft: f64,
    pub e2e: f64,
    /// Gaps between consecutive content chunks.
    pub itl: Vec<f64>,
    /// Output tokens: usage.completion_tokens, else the number of content chunks.
    pub output_tokens: u32,
    pub prompt_tokens: Option<u32>,
    pub usage_reported: bool,
    pub text: String,
    pub simulated: bool,
}

impl Timing {
    /// (E2E - TTFT) / (tokens - 1), as vllm bench serve defines TPOT.
    pub fn tpot(&self) -> Option<f64> {
        (self.output_tokens > 1).then(|| (self.e2e - self.ttft) / f64::from(self.output_tokens - 1))
    }
}

/// `text` with every occurrence of the key replaced: a server (or gateway) that
/// echoes the Authorization header back must not put the key in a log, a
/// result.json or a page.
///
/// Server text is redacted before it is cut to length. As a second guard, a
/// run of the key's first characters (8 or more, or the whole of a shorter
/// key) is taken out too, however far it goes, so a text cut elsewhere cannot
/// end in most of the key.
pub fn redact(text: &str, key: Option<&str>) -> String {
    let Some(k) = key.map(str::trim).filter(|k| k.len() >= 4) else { return text.to_string() };
    let mut cut = 8.min(k.len());
    while !k.is_char_boundary(cut) {
        cut -= 1;
    }
    let start = &k[..cut];
    if !text.contains(start) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(start) {
        out.push_str(&rest[..at]);
        let matched = rest[at..].bytes().zip(k.bytes()).take_while(|(a, b)| a == b).count();
        out.push_str("<the key>");
        rest = &rest[at + matched..];
    }
    out.push_str(rest);
    out
}

/// Reads at most `limit` bytes of a body: a server that sends more is cut off
/// with an error instead of filling the runner's memory.
pub async fn read_capped(resp: &mut reqwest::Response, limit: usize) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(bytes) = resp.chunk().await.map_err(|e| classify(&e).message)? {
        if body.len() + bytes.len() > limit {
            return Err(format!("the body is larger than {limit} bytes"));
        }
        body.extend_from_slice(&bytes);
    }
    Ok(body)
}

/// Largest error body read (the message is all the runner keeps of it).
const MAX_ERROR_BODY: usize = 64 * 1024;

/// Sorts a transport error into a class by what it says.
pub fn classify(err: &reqwest::Error) -> Failure {
    let mut chain = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(s) = source {
        chain.push_str(": ");
        chain.push_str(&s.to_string());
        source = s.source();
    }
    // Classify without the URL: a host named like "dns-proxy" is not a DNS error.
    let lower = match err.url() {
        Some(url) => chain.replace(url.as_str(), "").to_lowercase(),
        None => chain.to_lowercase(),
    };
    let kind = if err.is_timeout() {
        FailureKind::Timeout
    } else if lower.contains("dns") || lower.contains("failed to lookup") || lower.contains("name or service not known")
    {
        FailureKind::Dns
    } else if lower.contains("certificate")
        || lower.contains("tls")
        || lower.contains("handshake")
        || lower.contains("invalidcontenttype")
    {
        FailureKind::Tls
    } else if lower.contains("connection refused") {
        FailureKind::ConnectionRefused
    } else if lower.contains("reset")
        || lower.contains("broken pipe")
        || lower.contains("connection closed before message completed")
    {
        FailureKind::ConnectionReset
    } else if err.is_body() || err.is_decode() {
        FailureKind::StreamCut
    } else if err.is_connect() {
        FailureKind::ConnectionRefused
    } else {
        FailureKind::Request
    };
    Failure::new(kind, chain)
}

/// Longest SSE line read: one streamed chunk is a few hundred bytes; a line
/// past this is a broken or hostile server, not a chunk.
pub const MAX_SSE_LINE: usize = 1 << 20;

/// Incremental SSE reader: feeds bytes, yields `data:` payloads. Each byte is
/// scanned for a newline once, however the reads split the lines.
#[derive(Default)]
pub struct SseReader {
    buf: Vec<u8>,
    /// How much of `buf` is known to hold no newline.
    scanned: usize,
}

impl SseReader {
    /// The `data:` payloads completed by `bytes`; an error when a line grows
    /// past [`MAX_SSE_LINE`].
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<String>, String> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        let (mut start, mut from) = (0, self.scanned);
        while let Some(rel) = self.buf[from..].iter().position(|&b| b == b'\n') {
            let end = from + rel;
            if end - start > MAX_SSE_LINE {
                return Err(too_long());
            }
            let line = String::from_utf8_lossy(&self.buf[start..end]);
            let line = line.trim_end_matches('\r');
            if let Some(data) = line.strip_prefix("data:") {
                out.push(data.trim_start().to_string());
            }
            start = end + 1;
            from = start;
        }
        self.buf.drain(..start);
        self.scanned = self.buf.len();
        if self.buf.len() > MAX_SSE_LINE {
            return Err(too_long());
        }
        Ok(out)
    }
}

fn too_long() -> String {
    format!("a line of more than {MAX_SSE_LINE} bytes in the stream")
}

/// How requests reach the endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Transport {
    /// cfg-bench's own client for `http://` endpoints (kernel receive timestamps),
    /// reqwest for `https://` and whenever a proxy is configured.
    #[default]
    Auto,
    /// reqwest for everything: chunks timed when reqwest hands them over.
    Reqwest,
}

/// The HTTP clients a run uses: reqwest always (TLS, proxies, `/metrics`,
/// `/tokenize`), and the direct client for plain-http streams.
#[derive(Clone)]
pub struct Http {
    reqwest: reqwest::Client,
    direct: Option<Arc<direct::Client>>,
}

impl Http {
    /// The direct client serves plain-http endpoints unless a proxy is set in the
    /// environment (reqwest honours `http_proxy` and `NO_PROXY`; the direct client does not).
    pub fn new(reqwest: reqwest::Client, transport: Transport) -> Http {
        let proxied = ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()));
        let direct = (transport == Transport::Auto && !proxied).then(|| Arc::new(direct::Client::new()));
        Http { reqwest, direct }
    }

    /// The direct client resolves names with `resolver` (tests use it so that no
    /// real resolver is asked).
    pub fn with_resolver(reqwest: reqwest::Client, resolver: direct::Resolver) -> Http {
        Http { reqwest, direct: Some(Arc::new(direct::Client::with_resolver(resolver))) }
    }

    fn direct_for(&self, endpoint: &reqwest::Url) -> Option<&Arc<direct::Client>> {
        self.direct.as_ref().filter(|_| endpoint.scheme() == "http")
    }

    /// How chunk arrivals are timed for `endpoint`: `kernel` or `user`.
    pub fn clock(&self, endpoint: &str) -> &'static str {
        match reqwest::Url::parse(endpoint) {
            Ok(url) if self.direct_for(&url).is_some() && crate::rx_stamp::KERNEL_STAMPS => "kernel",
            _ => "user",
        }
    }
}

/// A response body from either client, read the same way.
enum Body {
    Direct(direct::Response),
    Reqwest(reqwest::Response),
}

impl Body {
    /// The next body bytes into `out`, and when they arrived.
    async fn chunk(&mut self, out: &mut Vec<u8>) -> Option<Result<Instant, Failure>> {
        match self {
            Body::Direct(r) => r.chunk(out).await,
            Body::Reqwest(resp) => {
                let item = resp.chunk().await.transpose()?;
                // Timestamp on arrival, before any parsing.
                let arrived = Instant::now();
                Some(match item {
                    Ok(bytes) => {
                        out.clear();
                        out.extend_from_slice(&bytes);
                        Ok(arrived)
                    }
                    Err(e) => {
                        let mut f = classify(&e);
                        if matches!(f.kind, FailureKind::Request | FailureKind::ConnectionReset) {
                            f.kind = FailureKind::StreamCut;
                        }
                        Err(f)
                    }
                })
            }
        }
    }
}

/// Status and headers the runner reads, the same from either client.
struct Opened {
    status: u16,
    simulated: bool,
    retry_after: Option<String>,
    /// The time latencies count from.
    sent_at: Instant,
}

/// Sends the request; on a non-2xx answer, the failure with the body's message.
async fn open(http: &Http, endpoint: &str, key: Option<&str>, body: &Value) -> Result<(Opened, Body), Failure> {
    let url = reqwest::Url::parse(endpoint)
        .map_err(|e| Failure::new(FailureKind::Request, format!("bad endpoint {endpoint}: {e}")))?;
    if let Some(direct) = http.direct_for(&url) {
        let bytes = serde_json::to_vec(body).map_err(|e| Failure::new(FailureKind::Request, e.to_string()))?;
        let resp = direct.post(&url, key, &bytes).await?;
        let head = Opened {
            status: resp.status(),
            simulated: resp.header("x-cfg-bench-simulated").is_some(),
            retry_after: resp.header("retry-after").map(str::to_string),
            sent_at: resp.sent_at(),
        };
        if !(200..300).contains(&head.status) {
            return Err(http_failure(&head, &redact(&resp.text().await, key)).without(key));
        }
        return Ok((head, Body::Direct(resp)));
    }
    let sent_at = Instant::now();
    let mut req = http.reqwest.post(url).json(body);
    if let Some(k) = key {
        req = req.bearer_auth(k);
    }
    let mut resp = req.send().await.map_err(|e| classify(&e))?;
    let head = Opened {
        status: resp.status().as_u16(),
        simulated: resp.headers().get("x-cfg-bench-simulated").is_some(),
        retry_after: resp.headers().get(reqwest::header::RETRY_AFTER).and_then(|v| v.to_str().ok()).map(str::to_string),
        sent_at,
    };
    if !resp.status().is_success() {
        // A bounded read: an error body of gigabytes is still an http_N error.
        let body = read_capped(&mut resp, MAX_ERROR_BODY).await;
        let text = body.map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_else(|e| e);
        return Err(http_failure(&head, &redact(&text, key)).without(key));
    }
    Ok((head, Body::Reqwest(resp)))
}

fn http_failure(head: &Opened, body: &str) -> Failure {
    // Retry-After in seconds on 429 and 503 (the HTTP-date form is rare from
    // inference servers).
    let retry_after = matches!(head.status, 429 | 503)
        .then_some(head.retry_after.as_deref())
        .flatten()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| s.min(60.0));
    let mut f = Failure::new(FailureKind::Http(head.status), summarize_error_body(body, head.status));
    f.retry_after = retry_after;
    f
}

/// Sends one request and times it. `on_text` sees each piece of text as it arrives.
pub async fn send(
    http: &Http,
    endpoint: &str,
    api: Api,
    key: Option<&str>,
    spec: &RequestSpec,
    timeout: Duration,
    mut on_text: impl FnMut(&str),
) -> Result<Timing, Failure> {
    let work = async {
        let (head, mut resp) = open(http, endpoint, key, &body(api, spec)).await?;
        let since_sent = |at: Instant| at.saturating_duration_since(head.sent_at).as_secs_f64();
        let mut sse = SseReader::default();
        let mut timing = Timing { simulated: head.simulated, ..Default::default() };
        let mut last_content: Option<f64> = None;
        let mut last_data: Option<f64> = None;
        let mut chunks = 0u32;
        let mut done = false;
        let mut bytes = Vec::new();
        while let Some(item) = resp.chunk(&mut bytes).await {
            let arrived = since_sent(item?);
            // A server that never pauses must not starve the timeout below, the
            // progress line or a Ctrl-C: hand the thread back between reads.
            tokio::task::coop::consume_budget().await;
            let lines = sse.feed(&bytes).map_err(|e| Failure::new(FailureKind::MalformedSse, e))?;
            for data in lines {
                last_data = Some(arrived);
                if data == "[DONE]" {
                    done = true;
                    continue;
                }
                // Typed, borrowing parse: only the fields we read, no tree.
                let v: Chunk<'_> = serde_json::from_str(&data).map_err(|e| {
                    Failure::new(
                        FailureKind::MalformedSse,
                        format!("bad JSON in a data line ({e}): {}", truncate(&redact(&data, key), 120)),
                    )
                    .without(key)
                })?;
                if let Some(err) = v.error.filter(|e| e.get() != "null") {
                    // Decoded first: `\u002d` escapes must not hide the key from redaction.
                    let shown =
                        serde_json::from_str::<Value>(err.get()).map_or(err.get().to_string(), |v| v.to_string());
                    return Err(
                        Failure::new(FailureKind::StreamError, truncate(&redact(&shown, key), 200)).without(key)
                    );
                }
                let piece = v.choices.first().and_then(|c| match api {
                    Api::Chat => c.delta.as_ref().and_then(|d| d.content.as_deref()),
                    Api::Completions => c.text.as_deref(),
                });
                if let Some(text) = piece.filter(|t| !t.is_empty()) {
                    match last_content {
                        None => timing.ttft = arrived,
                        Some(prev) => timing.itl.push(arrived - prev),
                    }
                    last_content = Some(arrived);
                    chunks += 1;
                    on_text(text);
                    if timing.text.len() < 4096 {
                        timing.text.push_str(text);
                    }
                }
                if let Some(u) = v.usage {
                    if let Some(c) = u.completion_tokens {
                        // A server's count is checked, never cut to fit: more than was
                        // asked for is a broken answer, not tokens to sum.
                        timing.output_tokens =
                            u32::try_from(c).ok().filter(|&c| c <= spec.max_tokens).ok_or_else(|| {
                                Failure::new(
                                    FailureKind::MalformedSse,
                                    format!(
                                        "usage.completion_tokens is {c}, more than the {} asked for",
                                        spec.max_tokens
                                    ),
                                )
                            })?;
                        timing.usage_reported = true;
                    }
                    timing.prompt_tokens = match u.prompt_tokens {
                        Some(p) => Some(u32::try_from(p).map_err(|_| {
                            Failure::new(
                                FailureKind::MalformedSse,
                                format!("usage.prompt_tokens is {p}, not a prompt's length"),
                            )
                        })?),
                        None => None,
                    };
                }
            }
        }
        if !done {
            return Err(Failure::new(
                FailureKind::StreamCut,
                format!("the stream ended after {chunks} content chunk(s) without [DONE]"),
            ));
        }
        if last_content.is_none() {
            return Err(Failure::new(FailureKind::EmptyResponse, "the stream finished without any content"));
        }
        // E2E ends at the last data line, as vllm bench serve measures it.
        timing.e2e = last_data.unwrap_or_else(|| since_sent(Instant::now()));
        if !timing.usage_reported {
            timing.output_tokens = chunks;
        }
        Ok(timing)
    };
    match tokio::time::timeout(timeout, work).await {
        Ok(r) => r,
        Err(_) => Err(Failure::new(
            FailureKind::Timeout,
            format!("no complete response within {:.0} s", timeout.as_secs_f64()),
        )),
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_string() } else { format!("{}...", s.chars().take(n).collect::<String>()) }
}

/// The message of an OpenAI or vLLM error body, else its first characters.
pub fn summarize_error_body(text: &str, status: u16) -> String {
    let parsed: Option<Value> = serde_json::from_str(text).ok();
    let message = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| v.get("error").and_then(Value::as_str).map(str::to_string))
    });
    format!("HTTP {status}: {}", message.unwrap_or_else(|| truncate(text.trim(), 200)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_redacted_whole_and_where_a_cut_leaves_its_start() {
        let key = Some("sk-abcdefghijklmnop");
        assert_eq!(redact("Bearer sk-abcdefghijklmnop!", key), "Bearer <the key>!");
        // Cut after 12 of its characters: still no part of it shown.
        assert_eq!(redact("x sk-abcdefghi...", key), "x <the key>...");
        assert_eq!(redact("sk-abc is fine", key), "sk-abc is fine", "under 8 characters of a key is not a key");
        // Padding that puts the cut inside the key, through the whole error path.
        let body = format!("{{\"error\": {{\"message\": \"{}sk-abcdefghijklmnop\"}}}}", "x".repeat(190));
        let shown = summarize_error_body(&redact(&body, key), 401);
        assert!(!shown.contains("sk-abcdef"), "{shown}");
    }

    #[test]
    fn sse_lines_split_across_reads() {
        let mut r = SseReader::default();
        assert!(r.feed(b"data: {\"a\"").unwrap().is_empty());
        assert_eq!(
            r.feed(b":1}\n\n: keep-alive\ndata: [DONE]\r\n").unwrap(),
            vec!["{\"a\":1}".to_string(), "[DONE]".to_string()]
        );
    }

    #[test]
    fn an_endless_line_is_refused_and_long_streams_stay_linear() {
        let mut r = SseReader::default();
        let piece = vec![b'x'; 64 * 1024];
        let mut refused = false;
        for _ in 0..(MAX_SSE_LINE / piece.len() + 2) {
            if r.feed(&piece).is_err() {
                refused = true;
                break;
            }
        }
        assert!(refused, "a line past MAX_SSE_LINE was accepted");
        // Many lines in one read, each found once.
        let mut r = SseReader::default();
        let many = "data: {}\n".repeat(100_000);
        assert_eq!(r.feed(many.as_bytes()).unwrap().len(), 100_000);
    }

    #[test]
    fn api_from_endpoint_and_body() {
        assert_eq!(Api::from_endpoint("http://h/v1/chat/completions"), Api::Chat);
        assert_eq!(Api::from_endpoint("http://h/v1/completions"), Api::Completions);
        let spec = RequestSpec { model: "m".into(), prompt: "hi".into(), max_tokens: 5, force_output_length: true };
        let b = body(Api::Chat, &spec);
        assert_eq!(b["messages"][0]["content"], "hi");
        assert_eq!((b["ignore_eos"].as_bool(), b["min_tokens"].as_u64()), (Some(true), Some(5)));
        assert!(
            body(Api::Completions, &RequestSpec { force_output_length: false, ..spec }).get("ignore_eos").is_none()
        );
        assert_eq!(summarize_error_body("{\"error\":\"Unauthorized\"}", 401), "HTTP 401: Unauthorized");
    }
}
