//! cfg-bench's own HTTP/1.1 client for plain `http://` endpoints, whose every
//! read carries the time the kernel received the data (`SO_TIMESTAMPNS`).
//!
//! At hundreds of streams the chunks of one engine step reach the runner
//! together, and one core needs milliseconds to work through them all. A clock
//! read after the HTTP library hands a chunk over would add that queue to the
//! latency of the streams served last, so the runner's own load would show in
//! its numbers. The kernel stamps each segment as it arrives, before any of
//! that work. The request is timed from just before its bytes are written (or
//! before connecting, when it needs a new connection), and the response is read
//! in the request's own task, so a stamp is never that of another request's bytes.
//! When the runner falls a whole token behind, the tokens one read returns share
//! the newest one's stamp, as they would share the read's time without stamps.
//!
//! It does what a load test needs and no more: POST with a body, keep-alive
//! connections reused from a pool, Content-Length, chunked or close-delimited
//! bodies, and failures sorted into the runner's classes. Proxies and TLS stay
//! with reqwest (see [`super::Http`]).

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use super::{Failure, FailureKind};
use crate::rx_stamp;

/// Resolves a host name to addresses; replaceable so tests never ask a real resolver.
pub type Resolver =
    Arc<dyn Fn(String, u16) -> Pin<Box<dyn Future<Output = io::Result<Vec<SocketAddr>>> + Send>> + Send + Sync>;

/// A response head larger than this is refused, as servers refuse large request heads.
const MAX_HEAD: usize = 64 * 1024;
/// An error body is read up to this size for its message.
const MAX_ERROR_BODY: usize = 64 * 1024;
/// Idle connections kept per host; more than the runner's concurrency is never needed.
const MAX_IDLE: usize = 4096;

pub struct Client {
    idle: Mutex<HashMap<String, Vec<Conn>>>,
    resolver: Option<Resolver>,
}

impl Client {
    pub fn new() -> Client {
        Client { idle: Mutex::new(HashMap::new()), resolver: None }
    }

    pub fn with_resolver(resolver: Resolver) -> Client {
        Client { idle: Mutex::new(HashMap::new()), resolver: Some(resolver) }
    }

    /// POSTs `body` as JSON and returns once the response head has arrived.
    pub async fn post(
        self: &Arc<Self>,
        url: &reqwest::Url,
        key: Option<&str>,
        body: &[u8],
    ) -> Result<Response, Failure> {
        let host = url.host_str().ok_or_else(|| Failure::new(FailureKind::Request, format!("{url} has no host")))?;
        let port = url.port_or_known_default().unwrap_or(80);
        let authority = match url.port() {
            Some(p) => format!("{host}:{p}"),
            None => host.to_string(),
        };
        let request = request_bytes(url, &authority, key, body);
        let sent_at = Instant::now();
        // A pooled connection the server closed just as it was taken fails the write,
        // before the server has the request: it goes once more on a new connection,
        // as hyper does. Once written, a request is never sent twice.
        if let Some(conn) = self.checkout(&authority) {
            match exchange(conn, &request, sent_at).await {
                Ok(head) => return Ok(self.response(head, authority)),
                Err(Exchange::Unsent) => {}
                Err(Exchange::Failed(f)) => return Err(f),
            }
        }
        let conn = self.connect(host, port, &authority).await?;
        match exchange(conn, &request, sent_at).await {
            Ok(head) => Ok(self.response(head, authority)),
            Err(Exchange::Unsent) => Err(Failure::new(
                FailureKind::ConnectionReset,
                format!("{authority} closed the connection before the request"),
            )),
            Err(Exchange::Failed(f)) => Err(f),
        }
    }

    fn response(self: &Arc<Self>, head: Head, authority: String) -> Response {
        Response { head, pool: self.clone(), authority }
    }

    /// An idle connection that is still clean: one the server has closed, or sent
    /// anything on (a 408 before hanging up), is dropped.
    fn checkout(&self, authority: &str) -> Option<Conn> {
        let mut idle = self.idle.lock().expect("not poisoned");
        let conns = idle.get_mut(authority)?;
        while let Some(conn) = conns.pop() {
            if rx_stamp::is_quiet(&conn.tcp) {
                return Some(conn);
            }
        }
        None
    }

    fn checkin(&self, authority: String, conn: Conn) {
        let mut idle = self.idle.lock().expect("not poisoned");
        let conns = idle.entry(authority).or_default();
        if conns.len() < MAX_IDLE {
            conns.push(conn);
        }
    }

    async fn connect(&self, host: &str, port: u16, authority: &str) -> Result<Conn, Failure> {
        let literal = host.trim_start_matches('[').trim_end_matches(']').parse::<std::net::IpAddr>().ok();
        let addrs = match (literal, &self.resolver) {
            (Some(ip), _) => Ok(vec![SocketAddr::new(ip, port)]),
            (None, Some(resolve)) => resolve(host.to_string(), port).await,
            (None, None) => tokio::net::lookup_host((host, port)).await.map(Iterator::collect),
        }
        .map_err(|e| Failure::new(FailureKind::Dns, format!("cannot resolve {host}: {e}")))?;
        let mut last = None;
        for addr in addrs {
            match TcpStream::connect(addr).await {
                Ok(tcp) => return Ok(Conn::new(tcp)),
                Err(e) => last = Some(e),
            }
        }
        let why = last.map_or_else(|| "the name has no addresses".to_string(), |e| e.to_string());
        Err(Failure::new(FailureKind::ConnectionRefused, format!("cannot connect to {authority}: {why}")))
    }
}

impl Default for Client {
    fn default() -> Self {
        Client::new()
    }
}

fn request_bytes(url: &reqwest::Url, authority: &str, key: Option<&str>, body: &[u8]) -> Vec<u8> {
    let mut target = url.path().to_string();
    if let Some(q) = url.query() {
        target.push('?');
        target.push_str(q);
    }
    let mut head = format!(
        "POST {target} HTTP/1.1\r\nhost: {authority}\r\nuser-agent: cfg-bench/{}\r\naccept: */*\r\n\
         content-type: application/json\r\ncontent-length: {}\r\n",
        env!("CARGO_PKG_VERSION"),
        body.len()
    );
    if let Some(k) = key {
        head.push_str("authorization: Bearer ");
        head.push_str(k);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// One TCP connection with kernel receive timestamps turned on.
struct Conn {
    tcp: TcpStream,
    /// Reused for every read: the caller copies what it needs.
    bufs: rx_stamp::Buffers,
}

impl Conn {
    fn new(tcp: TcpStream) -> Conn {
        let _ = tcp.set_nodelay(true);
        rx_stamp::enable(&tcp);
        Conn { tcp, bufs: rx_stamp::Buffers::new() }
    }

    /// What has arrived (0 bytes at end of stream) and when the kernel received it.
    async fn recv(&mut self) -> io::Result<(usize, Instant)> {
        rx_stamp::recv(&self.tcp, &mut self.bufs).await
    }
}

enum Exchange {
    /// The request could not be written: the server never had it.
    Unsent,
    Failed(Failure),
}

/// The parsed head, the connection, and the body bytes that came with the head.
struct Head {
    /// Taken back to the pool as soon as the body has ended.
    conn: Option<Conn>,
    status: u16,
    headers: Vec<(String, String)>,
    framing: Framing,
    keep_alive: bool,
    pending: Vec<u8>,
    pending_at: Instant,
    sent_at: Instant,
}

async fn exchange(mut conn: Conn, request: &[u8], sent_at: Instant) -> Result<Head, Exchange> {
    if let Err(e) = conn.tcp.write_all(request).await {
        return Err(if is_reset(&e) {
            Exchange::Unsent
        } else {
            Exchange::Failed(Failure::new(FailureKind::Request, e.to_string()))
        });
    }
    let (mut buf, mut at, mut answered) = (Vec::new(), sent_at, false);
    loop {
        if !buf.is_empty() {
            let mut slots = [httparse::EMPTY_HEADER; 100];
            let mut parsed = httparse::Response::new(&mut slots);
            match parsed.parse(&buf) {
                Ok(httparse::Status::Complete(len)) => {
                    let status = parsed.code.unwrap_or(0);
                    let version = parsed.version.unwrap_or(0);
                    let headers: Vec<(String, String)> = parsed
                        .headers
                        .iter()
                        .map(|h| (h.name.to_ascii_lowercase(), String::from_utf8_lossy(h.value).trim().to_string()))
                        .collect();
                    buf.drain(..len);
                    if (100..200).contains(&status) {
                        continue; // an interim answer; the real one follows
                    }
                    let framing = Framing::of(status, &headers).map_err(Exchange::Failed)?;
                    let close = headers
                        .iter()
                        .filter(|(n, _)| n == "connection")
                        .any(|(_, v)| v.split(',').any(|t| t.trim().eq_ignore_ascii_case("close")));
                    // Both lengths at once is how request smuggling starts (RFC 9112 6.3):
                    // read this body, then close.
                    let ambiguous = headers.iter().any(|(n, _)| n == "content-length")
                        && headers.iter().any(|(n, _)| n == "transfer-encoding");
                    let keep_alive = version == 1 && !close && !ambiguous && !matches!(framing, Framing::UntilClose);
                    let conn = Some(conn);
                    return Ok(Head {
                        conn,
                        status,
                        headers,
                        framing,
                        keep_alive,
                        pending: buf,
                        pending_at: at,
                        sent_at,
                    });
                }
                Ok(httparse::Status::Partial) if buf.len() <= MAX_HEAD => {}
                Ok(httparse::Status::Partial) => {
                    return Err(Exchange::Failed(Failure::new(
                        FailureKind::Request,
                        "the answer's head is larger than 64 KiB",
                    )));
                }
                Err(e) => {
                    return Err(Exchange::Failed(Failure::new(
                        FailureKind::Request,
                        format!("the answer is not HTTP/1.1: {e}"),
                    )));
                }
            }
        }
        let n = match conn.recv().await {
            Ok((n, t)) => {
                at = t;
                n
            }
            Err(e) => return Err(Exchange::Failed(Failure::new(FailureKind::ConnectionReset, e.to_string()))),
        };
        if n == 0 {
            let when = if answered { "in the middle of the answer's head" } else { "before answering" };
            return Err(Exchange::Failed(Failure::new(
                FailureKind::ConnectionReset,
                format!("the server closed the connection {when}"),
            )));
        }
        answered = true;
        buf.extend_from_slice(&conn.bufs.data[..n]);
    }
}

fn is_reset(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionAborted)
}

/// How the body's end is known.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Framing {
    Length(u64),
    Chunked(Chunk),
    UntilClose,
    Done,
}

/// Where the chunked decoder is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Chunk {
    Size,
    Data(u64),
    DataEnd,
    Trailers,
}

impl Framing {
    fn of(status: u16, headers: &[(String, String)]) -> Result<Framing, Failure> {
        if status == 204 || status == 304 {
            return Ok(Framing::Done);
        }
        // The last transfer coding decides (RFC 9112 6.3): chunked, or else the body
        // runs to the close.
        if let Some((_, codings)) = headers.iter().rfind(|(n, _)| n == "transfer-encoding") {
            let last = codings.rsplit(',').next().unwrap_or("").trim();
            return Ok(if last.eq_ignore_ascii_case("chunked") {
                Framing::Chunked(Chunk::Size)
            } else {
                Framing::UntilClose
            });
        }
        match headers.iter().find(|(n, _)| n == "content-length") {
            Some((_, v)) => match v.parse::<u64>() {
                Ok(0) => Ok(Framing::Done),
                Ok(n) => Ok(Framing::Length(n)),
                Err(_) => Err(Failure::new(
                    FailureKind::Request,
                    format!("the answer's content-length is not a number: {v:?}"),
                )),
            },
            None => Ok(Framing::UntilClose),
        }
    }

    /// Moves the body bytes at the front of `input` to `out`, consuming framing
    /// bytes, until `input` is spent or the body ends.
    fn decode(&mut self, input: &mut Vec<u8>, out: &mut Vec<u8>) -> Result<(), Failure> {
        let mut at = 0;
        while at < input.len() {
            let rest = &input[at..];
            match *self {
                Framing::Done => break,
                Framing::UntilClose => {
                    out.extend_from_slice(rest);
                    at = input.len();
                }
                Framing::Length(left) => {
                    let (taken, left) = take(rest, left, out);
                    at += taken;
                    *self = if left == 0 { Framing::Done } else { Framing::Length(left) };
                }
                Framing::Chunked(Chunk::Data(left)) => {
                    let (taken, left) = take(rest, left, out);
                    at += taken;
                    *self = Framing::Chunked(if left == 0 { Chunk::DataEnd } else { Chunk::Data(left) });
                }
                Framing::Chunked(Chunk::DataEnd) => {
                    if rest.starts_with(b"\r\n") {
                        at += 2;
                    } else if rest.starts_with(b"\n") {
                        at += 1;
                    } else if rest == b"\r" {
                        break;
                    } else {
                        return Err(Failure::new(
                            FailureKind::StreamCut,
                            "broken chunked encoding: no line end after a chunk",
                        ));
                    }
                    *self = Framing::Chunked(Chunk::Size);
                }
                Framing::Chunked(state @ (Chunk::Size | Chunk::Trailers)) => {
                    let Some(eol) = rest.iter().position(|&b| b == b'\n') else {
                        if rest.len() > 4096 {
                            return Err(Failure::new(
                                FailureKind::StreamCut,
                                "broken chunked encoding: a line over 4 KiB",
                            ));
                        }
                        break;
                    };
                    let line = String::from_utf8_lossy(&rest[..eol]);
                    let line = line.trim_end_matches('\r');
                    at += eol + 1;
                    *self = match state {
                        Chunk::Trailers if line.is_empty() => Framing::Done,
                        Chunk::Trailers => Framing::Chunked(Chunk::Trailers),
                        _ => {
                            let size = line.split(';').next().unwrap_or("").trim();
                            match u64::from_str_radix(size, 16) {
                                Ok(0) => Framing::Chunked(Chunk::Trailers),
                                Ok(n) => Framing::Chunked(Chunk::Data(n)),
                                Err(_) => {
                                    return Err(Failure::new(
                                        FailureKind::StreamCut,
                                        format!("broken chunked encoding: bad chunk size {size:?}"),
                                    ));
                                }
                            }
                        }
                    };
                }
            }
        }
        input.drain(..at);
        Ok(())
    }
}

/// Moves up to `left` body bytes from `input` to `out`: how many it took, and how
/// many are still owed.
fn take(input: &[u8], left: u64, out: &mut Vec<u8>) -> (usize, u64) {
    let taken = input.len().min(usize::try_from(left).unwrap_or(usize::MAX));
    out.extend_from_slice(&input[..taken]);
    (taken, left - taken as u64)
}

impl Head {
    /// Ends the body on an error: the connection is closed, never pooled.
    fn fail(&mut self, f: Failure) -> Failure {
        self.framing = Framing::Done;
        self.keep_alive = false;
        self.conn = None;
        f
    }
}

/// A response whose head has arrived; the body is read with [`Response::chunk`].
pub struct Response {
    head: Head,
    pool: Arc<Client>,
    authority: String,
}

impl Response {
    pub fn status(&self) -> u16 {
        self.head.status
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// When the request started: just before its bytes were written, or before
    /// connecting when it needed a new connection.
    pub fn sent_at(&self) -> Instant {
        self.head.sent_at
    }

    /// The next body bytes into `out` (replacing what it held) with the kernel's
    /// receive time of the read that completed them; `None` at the end of the body,
    /// when the connection goes back to the pool.
    pub async fn chunk(&mut self, out: &mut Vec<u8>) -> Option<Result<Instant, Failure>> {
        out.clear();
        loop {
            let head = &mut self.head;
            if let Err(f) = head.framing.decode(&mut head.pending, out) {
                return Some(Err(head.fail(f)));
            }
            if head.framing == Framing::Done && head.pending.is_empty() && head.keep_alive {
                // Hand the connection back at once: the next request may want it.
                head.keep_alive = false;
                if let Some(conn) = head.conn.take() {
                    self.pool.checkin(self.authority.clone(), conn);
                }
            }
            if !out.is_empty() {
                return Some(Ok(head.pending_at));
            }
            if head.framing == Framing::Done {
                return None;
            }
            let conn = head.conn.as_mut()?;
            match conn.recv().await {
                Ok((0, _)) if head.framing == Framing::UntilClose => head.framing = Framing::Done,
                Ok((0, _)) => {
                    return Some(Err(
                        head.fail(Failure::new(FailureKind::StreamCut, "the connection closed before the body ended"))
                    ));
                }
                Ok((n, at)) => {
                    head.pending.extend_from_slice(&conn.bufs.data[..n]);
                    head.pending_at = at;
                }
                // A reset mid-body is a cut stream, as on the reqwest path.
                Err(e) => return Some(Err(head.fail(Failure::new(FailureKind::StreamCut, e.to_string())))),
            }
        }
    }

    /// The whole body as text, up to 64 KiB (for an error's message).
    pub async fn text(mut self) -> String {
        let mut body = Vec::new();
        let mut piece = Vec::new();
        while body.len() < MAX_ERROR_BODY {
            match self.chunk(&mut piece).await {
                Some(Ok(_)) => body.extend_from_slice(&piece),
                _ => break,
            }
        }
        String::from_utf8_lossy(&body).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use tokio::io::AsyncReadExt;

    use super::*;

    fn decode_in_pieces(mut framing: Framing, wire: &[u8], piece: usize) -> Result<(Vec<u8>, Framing), Failure> {
        let (mut pending, mut out) = (Vec::new(), Vec::new());
        for bytes in wire.chunks(piece) {
            pending.extend_from_slice(bytes);
            framing.decode(&mut pending, &mut out)?;
        }
        Ok((out, framing))
    }

    #[test]
    fn chunked_bodies_decode_however_the_reads_split_them() {
        let wire = b"7;ext=1\r\ndata: a\r\n1\r\n\n\r\n10\r\n0123456789abcdef\r\n0\r\nx-trailer: 1\r\n\r\n";
        for piece in 1..=wire.len() {
            let (out, framing) = decode_in_pieces(Framing::Chunked(Chunk::Size), wire, piece).unwrap();
            assert_eq!(out, b"data: a\n0123456789abcdef", "read {piece} bytes at a time");
            assert_eq!(framing, Framing::Done);
        }
        // Bytes after the end belong to no one: they stay where they are.
        let mut pending = b"0\r\n\r\nHTTP/1.1".to_vec();
        let mut framing = Framing::Chunked(Chunk::Size);
        framing.decode(&mut pending, &mut Vec::new()).unwrap();
        assert_eq!((framing, pending.as_slice()), (Framing::Done, &b"HTTP/1.1"[..]));
    }

    #[test]
    fn lengths_and_closes_end_bodies_and_bad_framing_is_a_cut_stream() {
        let (out, framing) = decode_in_pieces(Framing::Length(5), b"hello", 2).unwrap();
        assert_eq!((out.as_slice(), framing), (&b"hello"[..], Framing::Done));
        let (out, framing) = decode_in_pieces(Framing::UntilClose, b"abc", 1).unwrap();
        assert_eq!((out.as_slice(), framing), (&b"abc"[..], Framing::UntilClose));
        for wire in [&b"zz\r\n"[..], b"2\r\nabX\r\n"] {
            let f = decode_in_pieces(Framing::Chunked(Chunk::Size), wire, 64).unwrap_err();
            assert_eq!(f.kind, FailureKind::StreamCut, "{f:?}");
        }
        let headers = |h: &[(&str, &str)]| h.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect::<Vec<_>>();
        assert_eq!(
            Framing::of(200, &headers(&[("transfer-encoding", "gzip, chunked")])).unwrap(),
            Framing::Chunked(Chunk::Size)
        );
        assert_eq!(Framing::of(200, &headers(&[("content-length", "0")])).unwrap(), Framing::Done);
        assert_eq!(Framing::of(204, &[]).unwrap(), Framing::Done);
        assert_eq!(Framing::of(200, &[]).unwrap(), Framing::UntilClose);
        assert_eq!(Framing::of(200, &headers(&[("content-length", "x")])).unwrap_err().kind, FailureKind::Request);
    }

    /// A server that answers every request on a connection with `answer`, and closes
    /// the connection after `per_conn` answers. Returns its address and a count of
    /// the connections it accepted.
    async fn server(answer: &'static str, per_conn: usize) -> (SocketAddr, Arc<AtomicUsize>) {
        server_then(answer, per_conn, "").await
    }

    /// As [`server`], but after the last answer, once the client has pooled the
    /// connection, it writes `then` on it (unasked) and holds it open.
    async fn server_then(answer: &'static str, per_conn: usize, then: &'static str) -> (SocketAddr, Arc<AtomicUsize>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = accepted.clone();
        tokio::spawn(async move {
            while let Ok((mut sock, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut buf = vec![0u8; 64 * 1024];
                    for _ in 0..per_conn {
                        // Requests here are small: one read holds head and body.
                        match sock.read(&mut buf).await {
                            Ok(n) if n > 0 => {}
                            _ => return,
                        }
                        if sock.write_all(answer.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                    if !then.is_empty() {
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                        let _ = sock.write_all(then.as_bytes()).await;
                        tokio::time::sleep(std::time::Duration::from_secs(5)).await;
                    }
                });
            }
        });
        (addr, accepted)
    }

    async fn body_of(client: &Arc<Client>, url: &reqwest::Url) -> Result<(u16, Vec<u8>), Failure> {
        let mut resp = client.post(url, Some("k"), b"{}").await?;
        let (mut body, mut piece) = (Vec::new(), Vec::new());
        while let Some(r) = resp.chunk(&mut piece).await {
            r?;
            body.extend_from_slice(&piece);
        }
        Ok((resp.status(), body))
    }

    const CHUNKED: &str = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";

    #[tokio::test]
    async fn keep_alive_connections_are_reused() {
        let (addr, accepted) = server(CHUNKED, usize::MAX).await;
        let url = reqwest::Url::parse(&format!("http://{addr}/v1/completions")).unwrap();
        let client = Arc::new(Client::new());
        for _ in 0..3 {
            assert_eq!(body_of(&client, &url).await.unwrap(), (200, b"hello".to_vec()));
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn an_interim_answer_in_the_same_read_as_the_real_one_is_skipped() {
        let answer = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
        let (addr, _) = server(answer, usize::MAX).await;
        let url = reqwest::Url::parse(&format!("http://{addr}/v1/completions")).unwrap();
        let client = Arc::new(Client::new());
        let got = tokio::time::timeout(std::time::Duration::from_secs(5), body_of(&client, &url)).await;
        assert_eq!(got.expect("no wait for bytes already read").unwrap(), (200, b"ok".to_vec()));
    }

    #[tokio::test]
    async fn a_pooled_connection_the_server_closed_is_replaced_without_an_error() {
        // One answer per connection, then the server hangs up (as at a keep-alive timeout).
        let (addr, accepted) = server(CHUNKED, 1).await;
        let url = reqwest::Url::parse(&format!("http://{addr}/v1/completions")).unwrap();
        let client = Arc::new(Client::new());
        for _ in 0..3 {
            assert_eq!(body_of(&client, &url).await.unwrap(), (200, b"hello".to_vec()));
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn an_idle_connection_the_server_wrote_on_is_not_taken_for_the_next_answer() {
        // Answers once, then says 408 on the idle connection and keeps it open.
        let (addr, accepted) =
            server_then(CHUNKED, 1, "HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\n\r\n").await;
        let url = reqwest::Url::parse(&format!("http://{addr}/v1/completions")).unwrap();
        let client = Arc::new(Client::new());
        assert_eq!(body_of(&client, &url).await.unwrap(), (200, b"hello".to_vec()));
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert_eq!(body_of(&client, &url).await.unwrap(), (200, b"hello".to_vec()));
        assert_eq!(accepted.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_body_that_failed_never_returns_its_connection_to_the_pool() {
        let (addr, _) = server("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n", usize::MAX).await;
        let url = reqwest::Url::parse(&format!("http://{addr}/v1/completions")).unwrap();
        let client = Arc::new(Client::new());
        let mut resp = client.post(&url, None, b"{}").await.unwrap();
        let mut piece = Vec::new();
        assert_eq!(resp.chunk(&mut piece).await.unwrap().unwrap_err().kind, FailureKind::StreamCut);
        assert!(resp.chunk(&mut piece).await.is_none());
        assert!(client.idle.lock().unwrap().values().all(Vec::is_empty));
    }

    #[tokio::test]
    async fn a_connection_close_answer_is_not_pooled_and_bodies_may_end_with_the_connection() {
        let answer =
            "HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\nretry-after: 2\r\n\r\n{\"error\":\"busy\"}";
        let (addr, accepted) = server(answer, 1).await;
        let url = reqwest::Url::parse(&format!("http://{addr}/v1/completions")).unwrap();
        let client = Arc::new(Client::new());
        for _ in 0..2 {
            let resp = client.post(&url, None, b"{}").await.unwrap();
            assert_eq!((resp.status(), resp.header("Retry-After")), (503, Some("2")));
            assert_eq!(resp.text().await, "{\"error\":\"busy\"}");
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 2);
        assert!(client.idle.lock().unwrap().values().all(Vec::is_empty));
    }

    #[tokio::test]
    async fn the_request_carries_the_key_as_a_bearer_token_and_the_body_length() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = tokio::spawn(async move {
            let (mut sock, _) = listener.accept().await.unwrap();
            let mut buf = vec![0u8; 4096];
            let n = sock.read(&mut buf).await.unwrap();
            sock.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").await.unwrap();
            String::from_utf8_lossy(&buf[..n]).into_owned()
        });
        let url = reqwest::Url::parse(&format!("http://{addr}/gw/v1/completions?x=1")).unwrap();
        let (status, body) = body_of(&Arc::new(Client::new()), &url).await.unwrap();
        assert_eq!((status, body.len()), (200, 0));
        let request = seen.await.unwrap();
        assert!(request.starts_with("POST /gw/v1/completions?x=1 HTTP/1.1\r\n"), "{request}");
        assert!(request.contains(&format!("host: {addr}\r\n")), "{request}");
        assert!(request.contains("authorization: Bearer k\r\n"), "{request}");
        assert!(request.contains("content-length: 2\r\n"), "{request}");
        assert!(request.ends_with("\r\n\r\n{}"), "{request}");
    }
}
