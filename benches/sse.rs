//! One paced read's SSE events, framed (issue 56): what a frame's read of
//! an OpenAI stream costs quorum's framing, sse-stream, which reads a
//! read's events where they lie, against the framing quorum used before,
//! eventsource-stream, handed one event at a time (as quorum's supervisor
//! cut reads for it, since it copies the rest of its buffer after every
//! line; and as the naive client of `benches/streaming.rs` receives them).
//! Both read one long stream, a read at a time, and feed each event to
//! quorum's OpenAI decoder, which joins a read's text into one piece.
//!
//! A read is [`EVENTS_PER_READ`] events of 8 characters each, as the paced
//! bench's server writes them a millisecond apart and the interface reads
//! them every 32 ms. Run twice: back to back with the caches warm, and with
//! [`COLD_BYTES`] written between reads, as the real process finds its
//! caches between two frames (see `benches/tui_render.rs`).
//!
//! Numbers, not assertions. Run with `cargo bench --bench sse`.

use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::channel::mpsc::{UnboundedSender, unbounded};
use futures::stream::BoxStream;
use futures::{FutureExt, StreamExt};
use quorum::agent::http::{Shown, SseDecoder, SseEvent};
use quorum::agent::openai::OpenAiStream;

/// Events in one read: a 32 ms frame of an event a millisecond.
const EVENTS_PER_READ: usize = 32;
/// Reads per run: 1 MB of text.
const READS: usize = (1 << 20) / (8 * EVENTS_PER_READ);
/// Bytes written between two reads in the cold run: more than this
/// machine's 32 MB of L3.
const COLD_BYTES: usize = 64 << 20;

/// The events of one read.
fn read(number: usize) -> Vec<u8> {
    let mut read = String::new();
    for event in 0..EVENTS_PER_READ {
        let text = format!("w{:06}{}", number % 1_000_000, event % 10);
        let chunk = serde_json::json!({
            "id": "chatcmpl-bench", "object": "chat.completion.chunk",
            "created": 1_700_000_000, "model": "test-model",
            "choices": [{"index": 0, "delta": {"content": &text[..8]}, "finish_reason": null}],
        });
        read.push_str(&format!("data: {chunk}\n\n"));
    }
    read.into_bytes()
}

type Reads = UnboundedSender<Result<Bytes, std::io::Error>>;

/// A long stream framed by sse-stream, fed by its sender.
fn sse_stream() -> (Reads, BoxStream<'static, (String, String)>) {
    let (reads, bytes) = unbounded();
    let events = sse_stream::SseByteStream::new(bytes).filter_map(|event| async move {
        let event = event.expect("well-formed");
        Some((event.event.unwrap_or_default(), event.data?))
    });
    (reads, events.boxed())
}

/// A long stream framed by eventsource-stream, fed by its sender.
fn eventsource() -> (Reads, BoxStream<'static, (String, String)>) {
    let (reads, bytes) = unbounded();
    let events = eventsource_stream::EventStream::new(bytes).map(|event| {
        let event = event.expect("well-formed");
        (event.event, event.data)
    });
    (reads, events.boxed())
}

/// Feeds `pieces` (one read) to `reads` and the events `events` then has
/// ready to `decoder`; returns the read's text as shown.
fn read_through(
    pieces: &[Bytes],
    (reads, events): &mut (Reads, BoxStream<'static, (String, String)>),
    decoder: &mut OpenAiStream,
    shown: &mut Shown,
) -> usize {
    for piece in pieces {
        reads.unbounded_send(Ok(piece.clone())).expect("read");
    }
    while let Some(Some((event, data))) = events.next().now_or_never() {
        let event = SseEvent {
            event: if event.is_empty() { "message" } else { &event },
            data: &data,
        };
        decoder.feed(event, shown).expect("a chunk");
    }
    shown
        .take()
        .map(|event| match event {
            quorum::agent::StreamEvent::Text(text) => text.len(),
            _ => 0,
        })
        .sum()
}

/// `read` cut after each event's blank line.
fn cut_into_events(read: &[u8]) -> Vec<Bytes> {
    let read = Bytes::copy_from_slice(read);
    let mut events = Vec::new();
    let mut start = 0;
    for end in 1..read.len() {
        if read[end] == b'\n' && read[end - 1] == b'\n' {
            events.push(read.slice(start..=end));
            start = end + 1;
        }
    }
    events
}

/// Median and mean of `times`, in µs.
fn summary(times: &mut [Duration]) -> (f64, f64) {
    times.sort();
    let micros = |time: Duration| time.as_secs_f64() * 1e6;
    let mean = times.iter().map(|time| micros(*time)).sum::<f64>() / times.len() as f64;
    (micros(times[times.len() / 2]), mean)
}

fn main() {
    let reads: Vec<Vec<u8>> = (0..READS).map(read).collect();
    let whole: Vec<Vec<Bytes>> = reads
        .iter()
        .map(|read| vec![Bytes::from(read.clone())])
        .collect();
    let cut: Vec<Vec<Bytes>> = reads.iter().map(|read| cut_into_events(read)).collect();
    println!(
        "sse: {READS} reads of {EVENTS_PER_READ} OpenAI events of 8 characters ({} bytes a read), \
         each event decoded by quorum's OpenAI decoder",
        reads[0].len()
    );
    for cold in [false, true] {
        let mut elsewhere = if cold {
            vec![0u8; COLD_BYTES]
        } else {
            Vec::new()
        };
        let mut between = || {
            for (line, byte) in elsewhere.iter_mut().enumerate().step_by(64) {
                *byte = byte.wrapping_add(line as u8);
            }
            std::hint::black_box(&mut elsewhere);
        };
        let (mut ours, mut theirs) = (sse_stream(), eventsource());
        let (mut our_decoder, mut their_decoder) = (OpenAiStream::new(), OpenAiStream::new());
        let mut shown = Shown::default();
        let (mut our_times, mut their_times) =
            (Vec::with_capacity(READS), Vec::with_capacity(READS));
        // Interleaved, so that both meet the same machine.
        for (read, events) in whole.iter().zip(&cut) {
            between();
            let started = Instant::now();
            let text = read_through(read, &mut ours, &mut our_decoder, &mut shown);
            our_times.push(started.elapsed());
            between();
            let started = Instant::now();
            let same = read_through(events, &mut theirs, &mut their_decoder, &mut shown);
            their_times.push(started.elapsed());
            assert_eq!(text, same, "both read the whole text");
            assert_eq!(text, 8 * EVENTS_PER_READ, "every event of the read");
        }
        let (ours, theirs) = (summary(&mut our_times), summary(&mut their_times));
        let caches = if cold { "cold" } else { "warm" };
        println!(
            "  caches {caches}: sse-stream, whole reads: median {:.1} µs a read (mean {:.1}); \
             eventsource-stream, an event at a time: {:.1} (mean {:.1}); {:.2}× (medians)",
            ours.0,
            ours.1,
            theirs.0,
            theirs.1,
            ours.0 / theirs.0
        );
    }
}
