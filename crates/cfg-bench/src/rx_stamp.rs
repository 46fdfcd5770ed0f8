//! Reads from a TCP socket along with the time the kernel received the data
//! (`SO_TIMESTAMPNS` on Linux), so that a process busy with other sockets does
//! not add its own queue to the times it records. The runner's direct client
//! times response chunks with it; the simulator times request arrivals.
//!
//! For TCP the kernel reports the stamp of the newest segment a read consumed.
//! Where stamps are not available (other systems) a read is timed when it returns.

use std::io;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nix::sys::socket::{ControlMessageOwned, MsgFlags, recvmsg};
use nix::sys::time::TimeSpec;
use tokio::io::Interest;
use tokio::net::TcpStream;

/// A stamp older than this when read is not trusted (the wall clock was stepped).
const MAX_STAMP_AGE: Duration = Duration::from_secs(10);

/// Bytes a read takes at most: a whole engine step of SSE chunks for one stream
/// fits many times over.
const READ_SIZE: usize = 16 * 1024;

/// A socket's read buffers: the data and the control message that carries the stamp.
pub struct Buffers {
    pub data: Box<[u8]>,
    control: Vec<u8>,
}

impl Buffers {
    pub fn new() -> Buffers {
        Buffers { data: vec![0; READ_SIZE].into_boxed_slice(), control: nix::cmsg_space!(TimeSpec) }
    }
}

impl Default for Buffers {
    fn default() -> Self {
        Buffers::new()
    }
}

/// Whether an idle connection has nothing to read and is not closed: asked of the
/// socket itself (a peek that does not wait), since tokio's readiness may not
/// have seen a FIN yet.
pub fn is_quiet(tcp: &TcpStream) -> bool {
    let mut byte = [0u8; 1];
    let peek = nix::sys::socket::recv(tcp.as_raw_fd(), &mut byte, MsgFlags::MSG_PEEK | MsgFlags::MSG_DONTWAIT);
    matches!(peek, Err(nix::errno::Errno::EAGAIN))
}

/// Asks the kernel to stamp what `socket` receives (best effort). Sockets accepted
/// from a listening socket inherit it.
pub fn enable(socket: &impl std::os::fd::AsFd) {
    #[cfg(target_os = "linux")]
    let _ = nix::sys::socket::setsockopt(socket, nix::sys::socket::sockopt::ReceiveTimestampns, &true);
    #[cfg(not(target_os = "linux"))]
    let _ = socket;
}

/// Whether reads are stamped by the kernel here (else when they return).
pub const KERNEL_STAMPS: bool = cfg!(target_os = "linux");

/// One non-blocking read of at most `max` bytes into `bufs.data`: the byte count
/// (0 at end of stream) and when the data arrived. `WouldBlock` when nothing is
/// there (readiness is cleared, so the caller waits for it again).
pub fn try_recv(tcp: &TcpStream, bufs: &mut Buffers, max: usize) -> io::Result<(usize, Instant)> {
    let fd = tcp.as_raw_fd();
    let max = max.min(bufs.data.len());
    let mut got = None;
    let r = tcp.try_io(Interest::READABLE, || {
        let mut iov = [io::IoSliceMut::new(&mut bufs.data[..max])];
        let msg = recvmsg::<()>(fd, &mut iov, Some(&mut bufs.control), MsgFlags::empty())?;
        let stamp = msg.cmsgs().ok().and_then(|mut c| {
            c.find_map(|m| match m {
                #[cfg(target_os = "linux")]
                ControlMessageOwned::ScmTimestampns(t) => Some(t),
                _ => None,
            })
        });
        got = Some((msg.bytes, stamp));
        // A short read drained the socket: answering WouldBlock makes tokio clear
        // the readiness now (as its own poll_read does on epoll) instead of after one
        // more recvmsg that finds nothing, a syscall per chunk saved. Tokio's
        // readiness ticks keep an arrival in between from being lost; edge-triggered
        // epoll reports it again. Elsewhere the extra recvmsg is the safe way.
        let drained = cfg!(target_os = "linux") && msg.bytes > 0 && msg.bytes < max;
        if drained { Err(io::ErrorKind::WouldBlock.into()) } else { Ok(()) }
    });
    match (got, r) {
        (Some((n, stamp)), _) => Ok((n, arrival(stamp))),
        (None, Err(e)) => Err(e),
        (None, Ok(())) => Err(io::ErrorKind::WouldBlock.into()),
    }
}

/// Waits for data and reads it, as [`try_recv`].
pub async fn recv(tcp: &TcpStream, bufs: &mut Buffers) -> io::Result<(usize, Instant)> {
    loop {
        tcp.readable().await?;
        match try_recv(tcp, bufs, usize::MAX) {
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
            r => return r,
        }
    }
}

/// The kernel's wall-clock stamp as an `Instant`: now, less the stamp's age. The
/// two clocks are read back to back, so only the age crosses between them.
fn arrival(stamp: Option<TimeSpec>) -> Instant {
    let now = Instant::now();
    let age = stamp.and_then(|t| {
        let at = UNIX_EPOCH + Duration::new(u64::try_from(t.tv_sec()).ok()?, u32::try_from(t.tv_nsec()).ok()?);
        SystemTime::now().duration_since(at).ok()
    });
    match age {
        Some(age) if age <= MAX_STAMP_AGE => now.checked_sub(age).unwrap_or(now),
        _ => now,
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    /// Data that waits in the socket is stamped when it arrived, not when it is read.
    #[tokio::test]
    async fn a_read_is_stamped_with_the_arrival_not_the_read() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = TcpStream::connect(addr).await.unwrap();
        enable(&client);
        let (mut server, _) = listener.accept().await.unwrap();
        server.write_all(b"hello").await.unwrap();
        let written = Instant::now();
        tokio::time::sleep(Duration::from_millis(50)).await;
        let mut bufs = Buffers::new();
        let (n, at) = recv(&client, &mut bufs).await.unwrap();
        assert_eq!(&bufs.data[..n], b"hello");
        let waited = Instant::now().duration_since(at);
        assert!(waited >= Duration::from_millis(45), "stamped {waited:?} before the read");
        assert!(at.saturating_duration_since(written) < Duration::from_millis(20), "stamped long after the write");
    }
}
