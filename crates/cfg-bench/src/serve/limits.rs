//! What a client of the local API can hold open: at most so many connections
//! at once, each closed after a spell with no bytes either way. Without them,
//! silent or half-sent connections pile up until the process runs out of file
//! descriptors.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

/// A listener that accepts while fewer than `max` connections are open.
pub struct Limited {
    inner: TcpListener,
    permits: Arc<Semaphore>,
    idle: Duration,
}

impl Limited {
    pub fn new(inner: TcpListener, max: usize, idle: Duration) -> Limited {
        Limited { inner, permits: Arc::new(Semaphore::new(max)), idle }
    }
}

impl axum::serve::Listener for Limited {
    type Io = IdleTimeout;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (IdleTimeout, SocketAddr) {
        let permit = self.permits.clone().acquire_owned().await.expect("the semaphore is never closed");
        loop {
            match self.inner.accept().await {
                Ok((stream, addr)) => return (IdleTimeout::new(stream, permit, self.idle), addr),
                // Out of descriptors or a reset before accept: wait a little, go on.
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

/// A connection that fails once nothing has moved either way for `idle`; it
/// holds its place among the open connections until dropped.
pub struct IdleTimeout {
    stream: TcpStream,
    _permit: OwnedSemaphorePermit,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl IdleTimeout {
    fn new(stream: TcpStream, permit: OwnedSemaphorePermit, idle: Duration) -> IdleTimeout {
        IdleTimeout { stream, _permit: permit, idle, deadline: Box::pin(tokio::time::sleep(idle)) }
    }

    fn touch(&mut self) {
        self.deadline.as_mut().reset(Instant::now() + self.idle);
    }

    /// A pending read or write ends as an error once the connection has idled too long.
    fn pending<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "idle connection closed"))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for IdleTimeout {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(r) => {
                if buf.filled().len() > before {
                    this.touch();
                }
                Poll::Ready(r)
            }
            Poll::Pending => this.pending(cx),
        }
    }
}

impl AsyncWrite for IdleTimeout {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.stream).poll_write(cx, buf) {
            Poll::Ready(Ok(n)) => {
                this.touch();
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => this.pending(cx),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::serve::Listener;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn at_most_max_connections_are_open() {
        let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = tcp.local_addr().unwrap();
        let mut limited = Limited::new(tcp, 2, Duration::from_secs(30));
        let _a = TcpStream::connect(addr).await.unwrap();
        let _b = TcpStream::connect(addr).await.unwrap();
        let _c = TcpStream::connect(addr).await.unwrap();
        let (_first, _) = limited.accept().await;
        let (second, _) = limited.accept().await;
        let third = tokio::time::timeout(Duration::from_millis(200), limited.accept()).await;
        assert!(third.is_err(), "a third connection was accepted beside two open ones");
        drop(second);
        let third = tokio::time::timeout(Duration::from_millis(500), limited.accept()).await;
        assert!(third.is_ok(), "the freed place was not given to the waiting connection");
    }

    #[tokio::test]
    async fn a_silent_connection_is_closed_after_the_idle_time() {
        let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = tcp.local_addr().unwrap();
        let mut limited = Limited::new(tcp, 2, Duration::from_millis(300));
        let _client = TcpStream::connect(addr).await.unwrap();
        let (mut conn, _) = limited.accept().await;
        let started = Instant::now();
        let mut buf = [0u8; 16];
        let read =
            tokio::time::timeout(Duration::from_secs(2), conn.read(&mut buf)).await.expect("the idle read ended");
        assert_eq!(read.unwrap_err().kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= Duration::from_millis(250), "closed before the idle time");
    }
}
