//! Reading one answer's stream: the byte supervision every HTTP call's body
//! goes through (the idle timer, the cap on one buffered SSE event and on
//! the whole answer), SSE framing, and feeding the events to a provider's
//! [`SseDecoder`]; and the same path over recorded bytes, for tests and
//! fixtures ([`decode_recorded`]).
//!
//! Not responsible for sending the request, retrying it or reading error
//! bodies (the parent module's `Transport` does that).

use std::error::Error as StdError;
use std::fmt;
use std::time::Duration;

use bytes::Bytes;
use futures::{FutureExt, Stream, StreamExt};
use sse_stream::{Error as SseError, SseByteStream};

use super::{
    DecodeError, HttpFailure, HttpFailureKind, MAX_ANSWER_STREAM_BYTES, MAX_SSE_EVENT_BYTES, Shown,
    SseDecoder, SseEvent, error_chain, seconds,
};
use crate::agent::{AgentError, CallOutput, EventSender, StreamEvent};

/// Counts the bytes of the SSE event being received, across chunk
/// boundaries, so that one event cannot grow past a limit. An event ends at
/// a blank line; `\n`, `\r\n` and `\r` all end a line.
#[derive(Debug)]
pub struct SseEventSizeGuard {
    limit: usize,
    event_bytes: usize,
    at_line_start: bool,
    after_cr: bool,
}

impl SseEventSizeGuard {
    pub fn new(limit: usize) -> Self {
        SseEventSizeGuard {
            limit,
            event_bytes: 0,
            at_line_start: true,
            after_cr: false,
        }
    }

    /// Accounts for the next chunk; `Err` once the current event is too big.
    pub fn check(&mut self, chunk: &[u8]) -> Result<(), EventTooLarge> {
        let mut rest = chunk;
        while !rest.is_empty() {
            // Bytes up to the next line break count as a run, not one by one.
            let run = memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
            if run > 0 {
                self.at_line_start = false;
                self.after_cr = false;
                self.event_bytes += run;
                if self.event_bytes > self.limit {
                    return Err(EventTooLarge { limit: self.limit });
                }
                rest = &rest[run..];
                continue;
            }
            let byte = rest[0];
            rest = &rest[1..];
            match byte {
                // The `\n` of a `\r\n` belongs to the break already counted.
                b'\n' if self.after_cr => self.after_cr = false,
                _ => {
                    if self.at_line_start {
                        self.event_bytes = 0;
                    }
                    self.at_line_start = true;
                    self.after_cr = byte == b'\r';
                }
            }
        }
        Ok(())
    }
}

/// One SSE event grew past [`MAX_SSE_EVENT_BYTES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventTooLarge {
    pub limit: usize,
}

/// A problem of the byte stream under the SSE decoder.
#[derive(Debug)]
pub(super) enum ByteStreamError {
    Transport {
        message: String,
        before_first_byte: bool,
    },
    Idle(Duration),
    EventTooLarge(EventTooLarge),
    /// The stream passed its cap, in bytes ([`MAX_ANSWER_STREAM_BYTES`]).
    AnswerTooLarge(usize),
}

impl fmt::Display for ByteStreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ByteStreamError::Transport { message, .. } => f.write_str(message),
            ByteStreamError::Idle(limit) => write!(f, "no data for {}", seconds(*limit)),
            ByteStreamError::EventTooLarge(EventTooLarge { limit }) => {
                write!(f, "one stream event is larger than {limit} bytes")
            }
            ByteStreamError::AnswerTooLarge(limit) => write!(
                f,
                "the answer's stream passed {}, the most quorum reads for one answer \
                 (MAX_ANSWER_STREAM_BYTES); the call was stopped",
                crate::input::bytes(*limit as u64)
            ),
        }
    }
}

impl StdError for ByteStreamError {}

/// Why reading a stream stopped early.
#[derive(Debug)]
pub(super) enum StreamFailure {
    Bytes(ByteStreamError),
    Decode(DecodeError),
}

impl StreamFailure {
    pub(super) fn retryable(&self) -> bool {
        matches!(
            self,
            StreamFailure::Bytes(ByteStreamError::Transport {
                before_first_byte: true,
                ..
            })
        )
    }

    pub(super) fn into_http_failure(self, provider: &str) -> HttpFailure {
        match self {
            StreamFailure::Bytes(error @ ByteStreamError::Idle(_)) => {
                HttpFailure::new(provider, HttpFailureKind::Idle, error.to_string())
            }
            StreamFailure::Bytes(ByteStreamError::Transport {
                message,
                before_first_byte: true,
            }) => HttpFailure::new(
                provider,
                HttpFailureKind::Connect,
                format!("the connection closed before the response body: {message}"),
            ),
            StreamFailure::Bytes(ByteStreamError::Transport { message, .. }) => HttpFailure::new(
                provider,
                HttpFailureKind::Stream,
                format!("the stream broke part-way: {message}"),
            ),
            StreamFailure::Bytes(error) => {
                HttpFailure::new(provider, HttpFailureKind::Stream, error.to_string())
            }
            StreamFailure::Decode(error) => {
                let mut failure =
                    HttpFailure::new(provider, HttpFailureKind::Stream, error.message);
                failure.error_type = error.error_type;
                failure
            }
        }
    }
}

/// `inner` with the idle timeout, the event-size cap and the cap of
/// `max_bytes` on the whole stream applied; the first problem ends the
/// stream.
fn supervise_bytes<S, E>(
    inner: S,
    idle_timeout: Option<Duration>,
    max_bytes: usize,
) -> impl Stream<Item = Result<Bytes, ByteStreamError>>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: StdError,
{
    ByteSupervisor {
        inner,
        guard: SseEventSizeGuard::new(MAX_SSE_EVENT_BYTES),
        received_bytes: 0,
        max_bytes,
        received_any: false,
        failed: false,
        idle: idle_timeout.map(|limit| IdleTimer {
            limit,
            timer: Box::pin(tokio::time::sleep(limit)),
            last_bytes: tokio::time::Instant::now(),
        }),
    }
}

/// The supervision of one answer's bytes; each read is handed on whole
/// (the SSE framing reads any number of events from one read in place).
struct ByteSupervisor<S> {
    inner: S,
    guard: SseEventSizeGuard,
    received_bytes: usize,
    max_bytes: usize,
    received_any: bool,
    failed: bool,
    idle: Option<IdleTimer>,
}

/// One timer for the whole stream, not one per read: it is set for a limit
/// after the bytes it last saw, and when it fires early (bytes came since),
/// it is moved to a limit after the latest of them. A timer set and
/// cancelled around every read took the timer driver's lock twice per
/// read.
struct IdleTimer {
    limit: Duration,
    timer: std::pin::Pin<Box<tokio::time::Sleep>>,
    last_bytes: tokio::time::Instant,
}

impl IdleTimer {
    /// Ready once `limit` has passed without bytes.
    fn poll_idle(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        while self.timer.as_mut().poll(cx).is_ready() {
            let due = self.last_bytes + self.limit;
            if due <= tokio::time::Instant::now() {
                return std::task::Poll::Ready(());
            }
            self.timer.as_mut().reset(due);
        }
        std::task::Poll::Pending
    }
}

impl<S, E> Stream for ByteSupervisor<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: StdError,
{
    type Item = Result<Bytes, ByteStreamError>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        let state = &mut *self;
        if state.failed {
            return Poll::Ready(None);
        }
        let item = match state.inner.poll_next_unpin(cx) {
            Poll::Ready(Some(item)) => item,
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => {
                if let Some(idle) = &mut state.idle
                    && idle.poll_idle(cx).is_ready()
                {
                    state.failed = true;
                    return Poll::Ready(Some(Err(ByteStreamError::Idle(idle.limit))));
                }
                return Poll::Pending;
            }
        };
        if let Some(idle) = &mut state.idle {
            idle.last_bytes = tokio::time::Instant::now();
        }
        Poll::Ready(Some(match item {
            Err(error) => {
                state.failed = true;
                Err(ByteStreamError::Transport {
                    message: error_chain(&error),
                    before_first_byte: !state.received_any,
                })
            }
            Ok(chunk) => {
                state.received_any |= !chunk.is_empty();
                state.received_bytes = state.received_bytes.saturating_add(chunk.len());
                if state.received_bytes > state.max_bytes {
                    state.failed = true;
                    return Poll::Ready(Some(Err(ByteStreamError::AnswerTooLarge(
                        state.max_bytes,
                    ))));
                }
                if let Err(too_large) = state.guard.check(&chunk) {
                    state.failed = true;
                    return Poll::Ready(Some(Err(ByteStreamError::EventTooLarge(too_large))));
                }
                Ok(chunk)
            }
        }))
    }
}

/// Reads SSE events from `bytes` (at most `max_bytes` of them) into
/// `decoder` until the byte stream ends or the decoder is complete, sending
/// display events as they come.
pub(super) async fn pump_events<S, E, D>(
    bytes: S,
    idle_timeout: Option<Duration>,
    max_bytes: usize,
    decoder: &mut D,
    events: &EventSender,
) -> Result<(), StreamFailure>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: StdError,
    D: SseDecoder,
{
    let sse = SseByteStream::new(supervise_bytes(bytes, idle_timeout, max_bytes));
    let mut sse = std::pin::pin!(sse);
    let mut shown = Shown::default();
    let read = read_events(&mut sse, decoder, &mut shown, events).await;
    // What the events before an end or a failure gave is shown all the same.
    for event in shown.take() {
        events.send(event);
    }
    read
}

/// Feeds `decoder` every event of `sse` until it ends, fails or the decoder
/// is complete; what the events of a read give is sent once the read's
/// last event is fed (when the stream has no more ready).
async fn read_events<S, D>(
    sse: &mut std::pin::Pin<&mut SseByteStream<S>>,
    decoder: &mut D,
    shown: &mut Shown,
    events: &EventSender,
) -> Result<(), StreamFailure>
where
    S: Stream<Item = Result<Bytes, ByteStreamError>>,
    D: SseDecoder,
{
    loop {
        let next = std::future::poll_fn(|cx| {
            let next = sse.as_mut().poll_next(cx);
            if next.is_pending() {
                for event in shown.take() {
                    events.send(event);
                }
            }
            next
        })
        .await;
        let Some(item) = next else {
            return Ok(());
        };
        let block = match item {
            Ok(block) => block,
            Err(SseError::Body(error)) => {
                return Err(match error.downcast::<ByteStreamError>() {
                    Ok(error) => StreamFailure::Bytes(*error),
                    Err(error) => StreamFailure::Decode(DecodeError::new(format!(
                        "malformed event stream: {error}"
                    ))),
                });
            }
            Err(SseError::Utf8Parse(_)) => {
                return Err(StreamFailure::Decode(DecodeError::new(
                    "the stream is not valid UTF-8",
                )));
            }
            Err(error) => {
                return Err(StreamFailure::Decode(DecodeError::new(format!(
                    "malformed event stream: {error}"
                ))));
            }
        };
        // A block without data (an id or a retry alone) is no event.
        let Some(data) = block.data.as_deref() else {
            continue;
        };
        let event = SseEvent {
            event: block
                .event
                .as_deref()
                .filter(|name| !name.is_empty())
                .unwrap_or("message"),
            data,
        };
        decoder.feed(event, shown).map_err(StreamFailure::Decode)?;
        if decoder.is_complete() {
            return Ok(());
        }
    }
}

/// The result of decoding a recorded stream without any network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedCall {
    /// Everything sent for display, in order.
    pub events: Vec<StreamEvent>,
    pub outcome: Result<CallOutput, AgentError>,
}

/// Feeds recorded bytes, split into `chunks` exactly as given, through the
/// same SSE framing, size caps and `decoder` that a live call uses.
pub fn decode_recorded<D, C>(decoder: D, chunks: impl IntoIterator<Item = C>) -> RecordedCall
where
    D: SseDecoder,
    C: Into<Bytes>,
{
    decode_recorded_within(decoder, chunks, MAX_ANSWER_STREAM_BYTES)
}

/// [`decode_recorded`] with a cap of `max_bytes` on the whole stream.
pub fn decode_recorded_within<D, C>(
    mut decoder: D,
    chunks: impl IntoIterator<Item = C>,
    max_bytes: usize,
) -> RecordedCall
where
    D: SseDecoder,
    C: Into<Bytes>,
{
    let provider = "recorded";
    let chunks: Vec<Result<Bytes, std::convert::Infallible>> =
        chunks.into_iter().map(|chunk| Ok(chunk.into())).collect();
    let (sender, mut receiver) = crate::agent::events::channel();
    let pumped = pump_events(
        futures::stream::iter(chunks),
        None,
        max_bytes,
        &mut decoder,
        &sender,
    )
    .now_or_never()
    .expect("a recorded stream never waits");
    let outcome = match pumped {
        Ok(()) => decoder
            .finish()
            .map_err(|error| StreamFailure::Decode(error).into_http_failure(provider)),
        Err(failure) => Err(failure.into_http_failure(provider)),
    }
    .map_err(AgentError::Http);
    let mut events = Vec::new();
    while let Some(event) = receiver.try_recv() {
        events.push(event);
    }
    RecordedCall { events, outcome }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `supervise_bytes` hands on for `chunks`, piece by piece.
    fn pieces(chunks: &[&[u8]]) -> Vec<Vec<u8>> {
        let chunks: Vec<Result<Bytes, std::convert::Infallible>> = chunks
            .iter()
            .map(|chunk| Ok(Bytes::copy_from_slice(chunk)))
            .collect();
        let supervised = supervise_bytes(futures::stream::iter(chunks), None, usize::MAX);
        supervised
            .map(|piece| piece.expect("within the limits").to_vec())
            .collect::<Vec<_>>()
            .now_or_never()
            .expect("nothing waits")
    }

    /// The SSE events of `chunks`, as the parser reads them after the
    /// supervisor.
    fn events(chunks: &[&[u8]]) -> Vec<sse_stream::Sse> {
        let chunks: Vec<Result<Bytes, std::convert::Infallible>> = chunks
            .iter()
            .map(|chunk| Ok(Bytes::copy_from_slice(chunk)))
            .collect();
        SseByteStream::new(supervise_bytes(
            futures::stream::iter(chunks),
            None,
            usize::MAX,
        ))
        .map(|event| event.expect("a well-formed stream"))
        .collect::<Vec<_>>()
        .now_or_never()
        .expect("nothing waits")
    }

    #[test]
    fn a_read_of_many_events_is_read_event_by_event_in_order() {
        let read: &[u8] =
            b"data: a\n\ndata: b\r\n\r\n: comment\nevent: x\ndata: c\n\nid: 7\n\ndata: d";
        // Handed on whole; the framing finds every event in it.
        assert_eq!(pieces(&[read]), [read]);
        let datas: Vec<_> = events(&[read])
            .into_iter()
            .map(|event| (event.event, event.data))
            .collect();
        assert_eq!(
            datas,
            [
                (None, Some("a".to_string())),
                (None, Some("b".to_string())),
                (Some("x".to_string()), Some("c".to_string())),
                (None, None),
            ],
            "the last event, unended, is not read"
        );
    }

    /// What the events of one read give reaches the engine as one piece, as
    /// soon as the read's last event is fed: not a piece per event, and
    /// not held back for the next read.
    #[test]
    fn each_read_reaches_the_engine_as_one_piece_at_once() {
        let event = |text: &str| {
            format!(
                "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}}}}]}}\n\n"
            )
        };
        let (reads, bytes) =
            futures::channel::mpsc::unbounded::<Result<Bytes, std::convert::Infallible>>();
        let (sender, mut receiver) = crate::agent::events::channel();
        let mut decoder = crate::agent::openai::OpenAiStream::new();
        let mut pump = Box::pin(pump_events(bytes, None, usize::MAX, &mut decoder, &sender));
        let mut read = |bytes: String| {
            reads
                .unbounded_send(Ok(Bytes::from(bytes)))
                .expect("the pump reads");
            pump.as_mut().now_or_never()
        };
        let first = event("a") + &event("b") + &event("c");
        assert!(read(first).is_none(), "the stream goes on");
        let shown: Vec<_> = std::iter::from_fn(|| receiver.try_recv()).collect();
        assert_eq!(shown, [StreamEvent::Text("abc".into())]);
        // An event cut across reads belongs to the read that ends it.
        let second = event("d") + &event("e")[..9];
        assert!(read(second).is_none(), "the stream goes on");
        let shown: Vec<_> = std::iter::from_fn(|| receiver.try_recv()).collect();
        assert_eq!(shown, [StreamEvent::Text("d".into())]);
        let third = event("e")[9..].to_string() + "data: [DONE]\n\n";
        let ended = read(third).expect("[DONE] ends the stream");
        assert!(ended.is_ok());
        let shown: Vec<_> = std::iter::from_fn(|| receiver.try_recv()).collect();
        assert_eq!(shown, [StreamEvent::Text("e".into())]);
    }

    /// However a stream is cut into reads, and whatever its line breaks, the
    /// parser reads through the supervisor the events it reads from one
    /// read of all of it on its own.
    #[test]
    fn events_are_the_same_however_the_reads_fall() {
        let mut random = fastrand::Rng::with_seed(56);
        for _ in 0..500 {
            let breaks = ["\n", "\r\n", "\r"];
            let mut text = String::new();
            for event in 0..random.usize(1..8) {
                let eol = breaks[random.usize(0..3)];
                if random.bool() {
                    text.push_str(&format!(": note {event}{eol}"));
                }
                if random.bool() {
                    text.push_str(&format!("event: kind{event}{eol}"));
                }
                for line in 0..random.usize(1..3) {
                    text.push_str(&format!("data: {{\"n\":{event},\"l\":{line}}}{eol}"));
                }
                text.push_str(eol);
            }
            let bytes = text.as_bytes();
            let read: Vec<Result<Bytes, std::convert::Infallible>> =
                vec![Ok(Bytes::copy_from_slice(bytes))];
            let whole: Vec<_> = SseByteStream::new(futures::stream::iter(read))
                .map(|event| event.expect("a well-formed stream"))
                .collect::<Vec<_>>()
                .now_or_never()
                .expect("nothing waits");
            let mut chunks: Vec<&[u8]> = Vec::new();
            let mut rest = bytes;
            while !rest.is_empty() {
                let (chunk, after) = rest.split_at(random.usize(1..=rest.len().min(40)));
                chunks.push(chunk);
                rest = after;
            }
            assert_eq!(events(&chunks), whole, "{text:?} in {chunks:?}");
            let joined: Vec<u8> = pieces(&chunks).concat();
            assert_eq!(joined, bytes, "every byte handed on, in order");
        }
    }
}
