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
use eventsource_stream::{EventStream, EventStreamError};
use futures::{FutureExt, Stream, StreamExt};

use super::{
    DecodeError, HttpFailure, HttpFailureKind, MAX_ANSWER_STREAM_BYTES, MAX_SSE_EVENT_BYTES,
    SseDecoder, error_chain, seconds,
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
    /// The last byte was a `\r` that ended an event: a `\n` after it
    /// belongs to the same line break.
    cr_ended_event: bool,
}

impl SseEventSizeGuard {
    pub fn new(limit: usize) -> Self {
        SseEventSizeGuard {
            limit,
            event_bytes: 0,
            at_line_start: true,
            after_cr: false,
            cr_ended_event: false,
        }
    }

    /// Accounts for the next chunk; `Err` once the current event is too big.
    pub fn check(&mut self, chunk: &[u8]) -> Result<(), EventTooLarge> {
        self.check_and_find_ends(chunk, &mut Vec::new())
    }

    /// [`check`](Self::check), noting in `ends` the offset in `chunk` just
    /// past each event's end: its blank line's `\n` (an event ended by a
    /// lone `\r` is not noted).
    fn check_and_find_ends(
        &mut self,
        chunk: &[u8],
        ends: &mut Vec<usize>,
    ) -> Result<(), EventTooLarge> {
        let mut rest = chunk;
        while !rest.is_empty() {
            // Bytes up to the next line break count as a run, not one by one.
            let run = memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
            if run > 0 {
                self.at_line_start = false;
                self.after_cr = false;
                self.cr_ended_event = false;
                self.event_bytes += run;
                if self.event_bytes > self.limit {
                    return Err(EventTooLarge { limit: self.limit });
                }
                rest = &rest[run..];
                continue;
            }
            let byte = rest[0];
            rest = &rest[1..];
            let past = chunk.len() - rest.len();
            match byte {
                b'\n' if self.after_cr => {
                    if std::mem::take(&mut self.cr_ended_event) {
                        ends.push(past);
                    }
                    self.after_cr = false;
                }
                b'\n' | b'\r' => {
                    let ends_event = self.at_line_start;
                    if ends_event {
                        self.event_bytes = 0;
                        if byte == b'\n' {
                            ends.push(past);
                        }
                    }
                    self.at_line_start = true;
                    self.after_cr = byte == b'\r';
                    self.cr_ended_event = ends_event && byte == b'\r';
                }
                _ => {
                    self.at_line_start = false;
                    self.after_cr = false;
                    self.cr_ended_event = false;
                    self.event_bytes += 1;
                    if self.event_bytes > self.limit {
                        return Err(EventTooLarge { limit: self.limit });
                    }
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
        pieces: std::collections::VecDeque::new(),
        ends: Vec::new(),
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

/// The supervisor hands the SSE parser one event at a time: the parser
/// keeps what it has not read in a string and copies the rest of it after
/// every line it reads, so a read holding many events (a paced read
/// gathers a frame's worth, dozens) cost it a copy of the read per line.
struct ByteSupervisor<S> {
    inner: S,
    /// The rest of the last read, cut after each event's end.
    pieces: std::collections::VecDeque<Bytes>,
    /// Where the events of the last read end (kept for its capacity).
    ends: Vec<usize>,
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
        if let Some(piece) = state.pieces.pop_front() {
            return Poll::Ready(Some(Ok(piece)));
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
                state.ends.clear();
                if let Err(too_large) = state.guard.check_and_find_ends(&chunk, &mut state.ends) {
                    state.failed = true;
                    return Poll::Ready(Some(Err(ByteStreamError::EventTooLarge(too_large))));
                }
                let mut start = 0;
                for &end in &state.ends {
                    state.pieces.push_back(chunk.slice(start..end));
                    start = end;
                }
                if start < chunk.len() {
                    state.pieces.push_back(chunk.slice(start..));
                }
                Ok(state.pieces.pop_front().unwrap_or(chunk))
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
    let sse = EventStream::new(supervise_bytes(bytes, idle_timeout, max_bytes));
    let mut sse = std::pin::pin!(sse);
    while let Some(item) = sse.next().await {
        let event = match item {
            Ok(event) => event,
            Err(EventStreamError::Transport(error)) => return Err(StreamFailure::Bytes(error)),
            Err(EventStreamError::Utf8(_)) => {
                return Err(StreamFailure::Decode(DecodeError::new(
                    "the stream is not valid UTF-8",
                )));
            }
            Err(EventStreamError::Parser(error)) => {
                return Err(StreamFailure::Decode(DecodeError::new(format!(
                    "malformed event stream: {error}"
                ))));
            }
        };
        for shown in decoder.feed(&event).map_err(StreamFailure::Decode)? {
            events.send(shown);
        }
        if decoder.is_complete() {
            break;
        }
    }
    Ok(())
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
    fn events(chunks: &[&[u8]]) -> Vec<eventsource_stream::Event> {
        let chunks: Vec<Result<Bytes, std::convert::Infallible>> = chunks
            .iter()
            .map(|chunk| Ok(Bytes::copy_from_slice(chunk)))
            .collect();
        EventStream::new(supervise_bytes(
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
    fn a_read_of_many_events_reaches_the_parser_one_event_at_a_time() {
        let read: &[u8] = b"data: a\n\ndata: b\r\n\r\n: comment\nevent: x\ndata: c\n\ndata: d";
        assert_eq!(
            pieces(&[read]),
            [
                &b"data: a\n\n"[..],
                b"data: b\r\n\r\n",
                b": comment\nevent: x\ndata: c\n\n",
                b"data: d",
            ]
        );
        // An event's end split across reads is found where it completes.
        assert_eq!(
            pieces(&[b"data: a\r\n\r", b"\ndata: b\n", b"\ndata: c"]),
            [
                &b"data: a\r\n\r"[..],
                b"\n",
                b"data: b\n",
                b"\n",
                b"data: c",
            ]
        );
        // Events ended by a lone `\r` are not cut (the next byte may be a
        // `\n` of the same break): the read goes on whole.
        assert_eq!(
            pieces(&[b"data: a\r\rdata: b\r\r"]),
            [&b"data: a\r\rdata: b\r\r"[..]]
        );
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
            let whole: Vec<_> = EventStream::new(futures::stream::iter(read))
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
