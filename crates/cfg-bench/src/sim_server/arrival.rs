//! When each request reached the simulator: the kernel's receive stamp of the
//! first read of it (the newest segment that read took), not the moment a
//! handler got to run.
//!
//! At hundreds of streams the simulator writes a whole engine step's tokens at
//! once, and a request that lands meanwhile waits its turn to be read. A client
//! sees that wait; a trace timed from the handler would hide it, and a client's
//! figures could not be checked against the trace.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::Instant;

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

use crate::rx_stamp;

/// The simulator serves HTTP/1.1 only (axum without its http2 feature), which the
/// one arrival mark per connection relies on.
pub struct StampedListener(TcpListener);

impl StampedListener {
    pub fn new(listener: TcpListener) -> StampedListener {
        // Set on the listening socket, so a request's first bytes are stamped even
        // if they arrive before the accepted socket could be told.
        rx_stamp::enable(&listener);
        StampedListener(listener)
    }
}

impl Listener for StampedListener {
    type Io = StampedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (StampedStream, SocketAddr) {
        let (tcp, addr) = Listener::accept(&mut self.0).await;
        // Without TCP_NODELAY, Nagle and delayed ACKs hold small SSE chunks for ~40 ms.
        let _ = tcp.set_nodelay(true);
        let stream = StampedStream {
            tcp,
            bufs: rx_stamp::Buffers::new(),
            arrival: Arrival(Arc::new(Mutex::new(Mark { first_read: None, answered: true }))),
        };
        (stream, addr)
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.0.local_addr()
    }
}

/// The connection's latest request arrival, for the handler (axum's ConnectInfo).
#[derive(Clone)]
pub struct Arrival(Arc<Mutex<Mark>>);

struct Mark {
    /// When the first read after the last answer arrived.
    first_read: Option<Instant>,
    /// Set by every write: the next read begins a new request (HTTP/1.1 without
    /// pipelining: a client sends the next request after this one's answer).
    answered: bool,
}

impl Arrival {
    /// When the request now being handled reached the socket; `None` if unknown.
    pub fn take(&self) -> Option<Instant> {
        self.0.lock().expect("not poisoned").first_read.take()
    }
}

impl Connected<IncomingStream<'_, StampedListener>> for Arrival {
    fn connect_info(stream: IncomingStream<'_, StampedListener>) -> Self {
        stream.io().arrival.clone()
    }
}

pub struct StampedStream {
    tcp: TcpStream,
    bufs: rx_stamp::Buffers,
    arrival: Arrival,
}

impl AsyncRead for StampedStream {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            ready!(this.tcp.poll_read_ready(cx))?;
            match rx_stamp::try_recv(&this.tcp, &mut this.bufs, buf.remaining()) {
                Ok((n, at)) => {
                    buf.put_slice(&this.bufs.data[..n]);
                    let mut mark = this.arrival.0.lock().expect("not poisoned");
                    if n > 0 && mark.answered {
                        mark.answered = false;
                        mark.first_read = Some(at);
                    }
                    return Poll::Ready(Ok(()));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl StampedStream {
    fn answered(&self) {
        self.arrival.0.lock().expect("not poisoned").answered = true;
    }
}

impl AsyncWrite for StampedStream {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.tcp).poll_write(cx, buf);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            this.answered();
        }
        r
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.tcp).poll_write_vectored(cx, bufs);
        if matches!(r, Poll::Ready(Ok(n)) if n > 0) {
            this.answered();
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().tcp).poll_shutdown(cx)
    }
}
