//! The connection a streamed answer arrives on, read once per frame.
//!
//! A provider's proxy writes each SSE event as its own TCP segment, about a
//! millisecond apart. A client that reads as soon as the socket is readable
//! wakes once per segment, and at that pacing the wakes, not the parsing,
//! are the cost. The interface draws at most once per frame, so nothing is
//! gained by reading more often than that: this connection asks the kernel
//! not to report it readable until [`LOW_WATER`] bytes wait (`SO_RCVLOWAT`,
//! which suppresses the wake-up itself, not only the readiness), and reads
//! whatever has arrived at each frame boundary of a clock that every paced
//! connection of the process shares, so several streams cost one wake per
//! frame between them. A burst larger than the low-water mark, a closed
//! connection or an error still wakes at once.
//!
//! The rest is the stock HTTP stack: hyper-util's connector resolves and
//! connects, hyper-rustls does TLS with the same set-up as every other
//! client, hyper speaks HTTP/1.1 or HTTP/2; the answer is handed on as a
//! `reqwest::Response`, so everything that reads it is shared with the
//! reqwest path. That path stays for requests through a proxy (the paced
//! client does not speak to proxies), for the connection check, and when
//! the frame interval is set to 0.
//!
//! Not responsible for retries, timeouts above the connection, or reading
//! the answer (the parent module does those).

use std::future::Future;
use std::io::{self, Read};
use std::pin::Pin;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use reqwest::header::HeaderMap;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};

/// How many bytes must wait on a paced socket before the kernel wakes
/// quorum for it between frames: a burst this large is read at once, less
/// is read at the next frame boundary.
pub const LOW_WATER: usize = 32 * 1024;

/// The default frame interval of paced reads, in milliseconds: the pace the
/// interface draws streamed text at (`tui::pacer`), about 31 frames a
/// second. Keys are drawn at once whatever this is.
pub const READ_INTERVAL_MS: u64 = 32;

/// The interval of paced reads when nobody watches the answers stream (a
/// headless run), in milliseconds: the pace at which the record keeps what
/// streamed ([`crate::agent::STREAM_BATCH_MS`]). Reading a socket
/// more often would only wake quorum more often.
pub const UNWATCHED_READ_INTERVAL_MS: u64 = crate::agent::STREAM_BATCH_MS;

/// The interval paced connections made from now on use, unless
/// `QUORUM_READ_INTERVAL_MS` sets one.
static DEFAULT_INTERVAL_MS: AtomicU64 = AtomicU64::new(READ_INTERVAL_MS);

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// How often a paced connection reads: [`READ_INTERVAL_MS`], or
/// [`UNWATCHED_READ_INTERVAL_MS`] after [`read_unwatched`], or
/// `QUORUM_READ_INTERVAL_MS` (at most 1,000) whatever the mode; 0 turns
/// pacing off, and answers stream through reqwest reading at every arrival
/// (what `benches/streaming.rs` compares against).
pub fn frame_interval() -> Duration {
    static FROM_ENV: OnceLock<Option<u64>> = OnceLock::new();
    let from_env = *FROM_ENV.get_or_init(|| {
        let value = std::env::var("QUORUM_READ_INTERVAL_MS").ok()?;
        Some(value.trim().parse::<u64>().ok()?.min(1_000))
    });
    Duration::from_millis(from_env.unwrap_or_else(|| DEFAULT_INTERVAL_MS.load(Ordering::Relaxed)))
}

/// Paces the connections made from now on for a run nobody watches stream
/// ([`UNWATCHED_READ_INTERVAL_MS`]).
pub fn read_unwatched() {
    DEFAULT_INTERVAL_MS.store(UNWATCHED_READ_INTERVAL_MS, Ordering::Relaxed);
}

/// Paces every paced connection at `interval` from its next read on (the
/// interface's text pace, slower while the terminal is not focused);
/// `QUORUM_READ_INTERVAL_MS` still wins. An interval under a millisecond
/// is taken as one.
pub fn set_read_interval(interval: Duration) {
    let ms = u64::try_from(interval.as_millis())
        .unwrap_or(u64::MAX)
        .max(1);
    DEFAULT_INTERVAL_MS.store(ms, Ordering::Relaxed);
}

/// A TCP stream that reads what has arrived at frame boundaries, or when at
/// least [`LOW_WATER`] bytes wait, instead of at every arrival.
#[derive(Debug)]
pub struct PacedTcp {
    tcp: TcpStream,
    interval: Duration,
    tick: Pin<Box<Sleep>>,
    /// The last read took less than it had room for: the socket held no
    /// more then, and what arrives after it waits for the next frame (or
    /// the low-water mark) like any other arrival, without a read to find
    /// the buffer empty each time the stack above polls again.
    drained: bool,
}

impl PacedTcp {
    /// `tcp`, read every `interval` (which is not zero).
    pub fn new(tcp: TcpStream, interval: Duration) -> Self {
        if let Err(error) = set_low_water(&tcp, LOW_WATER) {
            // Reads still come at most once per frame when idle; only the
            // kernel's wake per segment remains.
            tracing::debug!(%error, "SO_RCVLOWAT not set: the socket wakes at every arrival");
        }
        let tick = Box::pin(tokio::time::sleep_until(next_frame(
            Instant::now(),
            interval,
        )));
        PacedTcp {
            tcp,
            interval,
            tick,
            drained: false,
        }
    }

    /// Whatever is in the socket's buffer, without asking tokio whether it
    /// is readable (the low-water mark keeps tokio from knowing).
    fn read_now(&mut self, buf: &mut ReadBuf<'_>) -> io::Result<()> {
        let socket = socket2::SockRef::from(&self.tcp);
        let unfilled = buf.initialize_unfilled();
        let room = unfilled.len();
        let read = (&*socket).read(unfilled)?;
        self.drained = read > 0 && read < room;
        buf.advance(read);
        Ok(())
    }
}

impl AsyncRead for PacedTcp {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.tick.is_elapsed() {
                // This frame's read, however the task was woken for it: the
                // next waits for the next boundary.
                this.drained = false;
                // The pace may have changed since (the terminal lost its
                // focus): reads follow the interface's clock.
                this.interval = frame_interval().max(Duration::from_millis(1));
                let next = next_frame(Instant::now(), this.interval);
                this.tick.as_mut().reset(next);
            }
            if !this.drained {
                // Forget any readiness seen before this read, so that only
                // an arrival after it wakes this task.
                let _ = this.tcp.try_io(Interest::READABLE, || {
                    Err::<(), _>(io::ErrorKind::WouldBlock.into())
                });
                match this.read_now(buf) {
                    Ok(()) => return Poll::Ready(Ok(())),
                    Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                    Err(error) => return Poll::Ready(Err(error)),
                }
            }
            if let Poll::Ready(ready) = this.tcp.poll_read_ready(cx) {
                ready?;
                this.drained = false;
                continue;
            }
            ready!(this.tick.as_mut().poll(cx));
        }
    }
}

impl AsyncWrite for PacedTcp {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().tcp).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().tcp).poll_write_vectored(cx, bufs)
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

impl Connection for PacedTcp {
    fn connected(&self) -> Connected {
        self.tcp.connected()
    }
}

/// When the clock paced reads share starts: at [`start_clock`], or else at
/// its first use.
static EPOCH: OnceLock<Instant> = OnceLock::new();

/// Starts the clock every paced read and every frame shares. Call it just
/// before the runtime is built, so that its frame boundaries fall on the
/// boundaries of tokio's timer wheel.
///
/// The wheel counts milliseconds from the runtime's start and files a timer
/// due beyond the current block of 64 in a coarser level, whose slot the
/// driver wakes the thread to open at the slot's start, only to file the
/// timer again lower down: a wake for nothing. A deadline that is itself a
/// slot's start fires in that same wake. A clock started less than a
/// millisecond before the runtime has such deadlines at every whole 64 ms
/// (tokio rounds deadlines up to its next millisecond), so a read interval
/// that divides or is a multiple of 64 ms ([`READ_INTERVAL_MS`],
/// [`UNWATCHED_READ_INTERVAL_MS`]) costs one wake per read. Otherwise the
/// clock starts at its first use and reads cost a wake more now and then;
/// nothing else depends on it.
pub fn start_clock() {
    EPOCH.get_or_init(Instant::now);
}

/// The first frame boundary after `now` on the clock every paced connection
/// shares, so that connections read together and the timer wakes the
/// process once for all of them.
pub fn next_frame(now: Instant, interval: Duration) -> Instant {
    let epoch = *EPOCH.get_or_init(Instant::now);
    frame_after(epoch, now, interval)
}

/// The first instant after `now` that is a whole number of `interval`s past
/// `epoch`.
fn frame_after(epoch: Instant, now: Instant, interval: Duration) -> Instant {
    let step = interval.as_nanos().max(1);
    let Some(since) = now.checked_duration_since(epoch) else {
        // Before the clock started: its first boundary is the epoch.
        return epoch;
    };
    let since = since.as_nanos();
    let frames = since / step + 1;
    let offset = u64::try_from(frames.saturating_mul(step)).unwrap_or(u64::MAX);
    epoch + Duration::from_nanos(offset)
}

/// Asks the kernel not to report `tcp` readable, nor wake a waiter, until
/// `bytes` wait in its buffer (a closed connection or an error still does).
#[cfg(unix)]
fn set_low_water(tcp: &TcpStream, bytes: usize) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let value = libc::c_int::try_from(bytes).unwrap_or(libc::c_int::MAX);
    // SAFETY: setsockopt reads size_of::<c_int>() bytes from `value`, which
    // lives across the call, on a descriptor `tcp` owns for its duration.
    let result = unsafe {
        libc::setsockopt(
            tcp.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVLOWAT,
            (&raw const value).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if result == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(unix))]
fn set_low_water(_tcp: &TcpStream, _bytes: usize) -> io::Result<()> {
    Err(io::Error::other("not supported on this platform"))
}

/// Connects as hyper-util's connector does and paces what it connected at
/// [`frame_interval`].
#[derive(Clone, Debug)]
pub struct PacedConnector {
    http: HttpConnector,
}

impl tower_service::Service<http::Uri> for PacedConnector {
    type Response = TokioIo<PacedTcp>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.http.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, uri: http::Uri) -> Self::Future {
        let connecting = self.http.call(uri);
        Box::pin(async move {
            let tcp = connecting.await?.into_inner();
            let interval = frame_interval().max(Duration::from_millis(1));
            Ok(TokioIo::new(PacedTcp::new(tcp, interval)))
        })
    }
}

type Connector = hyper_rustls::HttpsConnector<PacedConnector>;

/// An HTTP client whose connections are [`PacedTcp`].
#[derive(Clone, Debug)]
pub struct PacedClient {
    client: Client<Connector, Full<Bytes>>,
}

impl PacedClient {
    /// A client that connects within `connect_timeout` over TLS set up as
    /// `tls`.
    pub fn new(tls: rustls::ClientConfig, connect_timeout: Duration) -> PacedClient {
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_nodelay(true);
        http.set_connect_timeout(Some(connect_timeout));
        // hyper-rustls offers the protocols it is built for itself.
        let mut tls = tls;
        tls.alpn_protocols.clear();
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .enable_http2()
            .wrap_connector(PacedConnector { http });
        let client = Client::builder(TokioExecutor::new())
            .timer(TokioTimer::new())
            .pool_timer(TokioTimer::new())
            .build(https);
        PacedClient { client }
    }

    /// POSTs `body` to `url` with `headers`; the answer as reqwest's, for
    /// the code that reads answers of either client.
    pub async fn post(
        &self,
        url: &str,
        headers: &HeaderMap,
        body: Bytes,
    ) -> Result<reqwest::Response, PostError> {
        let uri: http::Uri = url
            .parse()
            .map_err(|error| PostError::Url(Box::new(error)))?;
        let mut request = http::Request::post(uri)
            .body(Full::new(body))
            .map_err(|error| PostError::Url(Box::new(error)))?;
        *request.headers_mut() = headers.clone();
        request.headers_mut().insert(
            http::header::USER_AGENT,
            http::HeaderValue::from_static(concat!("quorum/", env!("CARGO_PKG_VERSION"))),
        );
        let response = self
            .client
            .request(request)
            .await
            .map_err(PostError::Send)?;
        Ok(reqwest::Response::from(response.map(reqwest::Body::wrap)))
    }
}

/// Why [`PacedClient::post`] got no answer.
#[derive(Debug)]
pub enum PostError {
    /// The URL or a header could not make a request.
    Url(BoxError),
    /// Connecting or sending failed.
    Send(hyper_util::client::legacy::Error),
}

impl std::fmt::Display for PostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PostError::Url(error) => error.fmt(f),
            PostError::Send(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for PostError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PostError::Url(error) => error.source(),
            PostError::Send(error) => error.source(),
        }
    }
}

impl PostError {
    /// Whether the connection could not be made within its timeout.
    pub fn is_connect_timeout(&self) -> bool {
        let PostError::Send(error) = self else {
            return false;
        };
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
        while let Some(current) = source {
            if let Some(io) = current.downcast_ref::<io::Error>()
                && io.kind() == io::ErrorKind::TimedOut
            {
                return true;
            }
            source = current.source();
        }
        false
    }
}

/// A current-thread runtime on tokio's paused clock, and how often its
/// thread has parked: each park is a wake of the process, on the paused
/// clock as on the real one. The timer tests here and the engine's count
/// wakes with it.
#[cfg(test)]
pub(crate) fn runtime_counting_parks() -> (
    tokio::runtime::Runtime,
    std::sync::Arc<std::sync::atomic::AtomicUsize>,
) {
    let parks = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = parks.clone();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .on_thread_park(move || {
            counted.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .expect("a current-thread runtime builds");
    (runtime, parks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_fall_on_whole_intervals_after_the_epoch() {
        let epoch = Instant::now();
        let interval = Duration::from_millis(16);
        let at = |ms: u64| epoch + Duration::from_millis(ms);
        assert_eq!(frame_after(epoch, epoch, interval), at(16));
        assert_eq!(frame_after(epoch, at(1), interval), at(16));
        assert_eq!(frame_after(epoch, at(15), interval), at(16));
        assert_eq!(
            frame_after(epoch, at(16), interval),
            at(32),
            "strictly after now"
        );
        assert_eq!(frame_after(epoch, at(100), interval), at(112));
        let before = epoch - Duration::from_millis(5);
        assert_eq!(frame_after(epoch, before, interval), epoch);
    }

    /// How often the thread parks while it sleeps to `reads` frame
    /// boundaries of `interval_ms`, on a clock started just before the
    /// runtime (as `main` starts the shared one) or, when `late`, 5.5 ms
    /// into it. Each park is a wake of the process, on tokio's paused clock
    /// as on the real one.
    fn parks_for_reads(interval_ms: u64, reads: usize, late: bool) -> usize {
        let epoch = Instant::now();
        let (runtime, parks) = runtime_counting_parks();
        // A task, as quorum's command runs: a wake of the future `block_on`
        // drives would itself park the thread once more.
        let reading = runtime.spawn(async move {
            let epoch = if late {
                Instant::now() + Duration::from_micros(5_500)
            } else {
                epoch
            };
            let interval = Duration::from_millis(interval_ms);
            let before = parks.load(Ordering::SeqCst);
            for _ in 0..reads {
                let at = frame_after(epoch, Instant::now(), interval);
                tokio::time::sleep_until(at).await;
                assert!(Instant::now() >= at);
            }
            parks.load(Ordering::SeqCst) - before
        });
        runtime.block_on(reading).unwrap()
    }

    /// With the clock started as the runtime starts, a read at each frame
    /// boundary parks the thread as often as reads a millisecond apart, in
    /// the interface (16 ms) and headless (128 ms): no boundary lies inside
    /// a slot of tokio's timer wheel, whose start would wake the thread
    /// first. (Each read parks twice on the paused clock: once to fire its
    /// timer, once more because the task it wakes is scheduled from inside
    /// the driver.) A clock out of step costs the headless reads a wake
    /// more each, and a quarter of the interface's frames one more.
    #[test]
    fn reads_on_the_shared_clock_wake_the_process_once_each() {
        let frames = parks_for_reads(READ_INTERVAL_MS, 40, false);
        assert_eq!(frames, parks_for_reads(1, 40, false));
        let headless = parks_for_reads(UNWATCHED_READ_INTERVAL_MS, 10, false);
        assert_eq!(headless, parks_for_reads(1, 10, false));
        assert!(parks_for_reads(UNWATCHED_READ_INTERVAL_MS, 10, true) >= headless + 9);
        assert!(parks_for_reads(READ_INTERVAL_MS, 40, true) >= frames + 9);
    }

    /// A read that empties the socket is the frame's last: bytes that
    /// arrive after it wait for the next frame boundary, even when the
    /// stack above polls again at once (hyper does, until a read would
    /// block), instead of costing a read that finds the buffer empty.
    #[tokio::test(flavor = "current_thread")]
    async fn after_a_read_that_empties_the_socket_arrivals_wait_for_the_frame() {
        use futures::FutureExt;
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let (go, went) = tokio::sync::oneshot::channel::<()>();
        let writer = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            socket.write_all(b"first").await.unwrap();
            went.await.unwrap();
            socket.write_all(b"second").await.unwrap();
            // Kept open: a closed connection is read at once.
            socket
        });
        // Whether the first read comes at once or at its frame, the next
        // boundary is at least 100 ms after it.
        let interval = Duration::from_millis(200);
        let boundary = next_frame(Instant::now(), interval);
        if boundary - Instant::now() < Duration::from_millis(100) {
            tokio::time::sleep_until(boundary).await;
        }
        let tcp = TcpStream::connect(address).await.unwrap();
        let mut paced = PacedTcp::new(tcp, interval);
        let mut buf = [0u8; 64];
        let n = paced.read(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"first");
        let frame = Instant::now();
        go.send(()).unwrap();
        let _open = writer.await.unwrap();
        // "second" is in the socket's buffer by now (loopback).
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert!(
            paced.read(&mut buf).now_or_never().is_none(),
            "read before the next frame"
        );
        let n = paced.read(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"second");
        assert!(
            frame.elapsed() >= Duration::from_millis(20),
            "{:?}",
            frame.elapsed()
        );
    }

    /// Bytes written in many small segments are read whole at a frame
    /// boundary, not one read per segment; a closed connection still ends
    /// the read at once.
    #[tokio::test(flavor = "current_thread")]
    async fn small_writes_are_read_together_at_the_frame() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let writer = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            socket.set_nodelay(true).unwrap();
            for _ in 0..20 {
                socket.write_all(b"0123456789").await.unwrap();
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        });
        let tcp = TcpStream::connect(address).await.unwrap();
        let mut paced = PacedTcp::new(tcp, Duration::from_millis(50));
        let mut reads = 0;
        let mut received = Vec::new();
        loop {
            let mut buf = [0u8; 4096];
            let n = paced.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            reads += 1;
            received.extend_from_slice(&buf[..n]);
        }
        writer.await.unwrap();
        assert_eq!(received.len(), 200);
        assert!(reads < 10, "{reads} reads for 20 segments");
    }
}
