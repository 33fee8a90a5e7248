//! Streaming layout cost (DESIGN.md section 8): one pane receives 1 MiB of
//! realistic agent markdown in small chunks, with a layout after every chunk
//! as the TUI would do before each frame. Reports the cost per chunk at the
//! start and at the end of the stream (they should be about the same: the
//! work per chunk must not grow with the transcript), the cost of fetching
//! one screenful of rows at the end, and the cost of the full re-layout a
//! width change causes. Then the same stream through the card view
//! (`quorum::tui::cards`), which a pane keeps beside the raw text: its cost
//! per chunk as a ratio to the raw view's, and whether it stays flat.
//!
//! Run with `cargo bench --bench stream_layout`.

use std::time::{Duration, Instant};

use quorum::tui::cards::Cards;
use quorum::tui::markdown::{Segment, StreamDoc};
use quorum::tui::theme::Theme;

/// Total text streamed into the pane, in bytes.
const STREAM_BYTES: usize = 1 << 20;
/// Size of one streamed chunk, in bytes (cut back to a char boundary).
const CHUNK_BYTES: usize = 64;
/// Pane width while streaming, in columns.
const STREAM_WIDTH_COLUMNS: u16 = 100;
/// Pane width after the resize, in columns.
const RESIZED_WIDTH_COLUMNS: u16 = 72;
/// Rows fetched for one frame of the pane.
const VISIBLE_ROWS: usize = 50;
/// Share of the chunks averaged at each end of the stream, in percent.
const SAMPLE_PERCENT: usize = 10;

fn section(number: usize) -> String {
    format!(
        r#"## Block B{number}: replay cost

The claim is that **snapshots every 1,000 events** keep a replay of the
`invoice` aggregate under a minute. Evidence is *indirect*: the load test in
[the report](https://wiki.example/report-{number}) ran on staging hardware.

- Risk: the snapshot format changes and old snapshots must be rebuilt.
- Mitigation: version snapshots and rebuild them lazily on first read.
  Rebuilding costs one full replay per aggregate, spread across a week.
1. Measure replay time on production-sized data.
2. Decide the snapshot interval from that measurement.

> Judges should weigh this block lower if the staging data was synthetic.

```yaml
block:
  id: B{number}
  claim: "Replays stay under a minute with snapshots"   # contested
  scores: {{ evidence: 3, reasoning: 4, risk: 2 }}
  notes:
    - The load test used 40% of production volume.
    - No measurement exists for the largest tenant.
```

"#
    )
}

fn realistic_markdown() -> String {
    let mut text = String::with_capacity(STREAM_BYTES + 2048);
    let mut number = 1;
    while text.len() < STREAM_BYTES {
        text.push_str(&section(number));
        number += 1;
    }
    let mut end = STREAM_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}

fn chunks(text: &str) -> Vec<&str> {
    let mut chunks = Vec::with_capacity(text.len() / CHUNK_BYTES + 1);
    let mut from = 0;
    while from < text.len() {
        let mut to = (from + CHUNK_BYTES).min(text.len());
        while !text.is_char_boundary(to) {
            to -= 1;
        }
        chunks.push(&text[from..to]);
        from = to;
    }
    chunks
}

fn mean_ns(durations: &[Duration]) -> f64 {
    let total: Duration = durations.iter().sum();
    total.as_nanos() as f64 / durations.len().max(1) as f64
}

fn main() {
    let theme = Theme::builtin("dark").expect("the dark theme is built in");
    let text = realistic_markdown();
    let chunks = chunks(&text);

    let mut doc = StreamDoc::new();
    let mut per_chunk = Vec::with_capacity(chunks.len());
    let started = Instant::now();
    for chunk in &chunks {
        let chunk_started = Instant::now();
        doc.push(Segment::Answer, chunk);
        doc.layout(STREAM_WIDTH_COLUMNS, &theme);
        per_chunk.push(chunk_started.elapsed());
    }
    let streaming = started.elapsed();

    let sample = (chunks.len() * SAMPLE_PERCENT / 100).max(1);
    let first = mean_ns(&per_chunk[..sample]);
    let last = mean_ns(&per_chunk[per_chunk.len() - sample..]);

    let streamed_rows = doc.line_count();
    let frame_started = Instant::now();
    let bottom = doc.line_count().saturating_sub(VISIBLE_ROWS);
    let visible = doc.lines(bottom, VISIBLE_ROWS);
    let frame = frame_started.elapsed();
    assert_eq!(visible.len(), VISIBLE_ROWS.min(doc.line_count()));
    drop(visible);

    let resize_started = Instant::now();
    doc.layout(RESIZED_WIDTH_COLUMNS, &theme);
    let resize = resize_started.elapsed();

    println!(
        "stream_layout: {} KiB in {} chunks of {CHUNK_BYTES} B, layout at {STREAM_WIDTH_COLUMNS} columns after each",
        text.len() / 1024,
        chunks.len()
    );
    println!(
        "  all chunks:         {:>9.0} ns/chunk ({:.1} ms total, {:.1} ms per MiB)",
        mean_ns(&per_chunk),
        streaming.as_secs_f64() * 1e3,
        streaming.as_secs_f64() * 1e3 * (1 << 20) as f64 / text.len() as f64
    );
    println!("  first {SAMPLE_PERCENT}% of chunks: {first:>9.0} ns/chunk");
    println!("  last {SAMPLE_PERCENT}% of chunks:  {last:>9.0} ns/chunk");
    println!(
        "  last / first:       {:>9.2} ({})",
        last / first,
        if last / first < 1.5 {
            "flat: the cost per chunk does not grow with the transcript"
        } else {
            "GROWING: the cost per chunk rises with the transcript"
        }
    );
    println!(
        "  one frame of {VISIBLE_ROWS} rows at the bottom of {streamed_rows} rows: {:.1} µs",
        frame.as_secs_f64() * 1e6
    );
    println!(
        "  full re-layout on resize to {RESIZED_WIDTH_COLUMNS} columns: {:.1} ms ({} rows)",
        resize.as_secs_f64() * 1e3,
        doc.line_count()
    );

    // The card view of the same stream: what showing cards costs on top.
    let mut cards = Cards::new();
    let mut card_chunks = Vec::with_capacity(chunks.len());
    let started = Instant::now();
    for chunk in &chunks {
        let chunk_started = Instant::now();
        cards.push(Segment::Answer, chunk);
        cards.doc_mut().layout(STREAM_WIDTH_COLUMNS, &theme);
        card_chunks.push(chunk_started.elapsed());
    }
    let card_streaming = started.elapsed();
    let card_first = mean_ns(&card_chunks[..sample]);
    let card_last = mean_ns(&card_chunks[card_chunks.len() - sample..]);
    println!(
        "  cards, all chunks:  {:>9.0} ns/chunk ({:.1} ms per MiB), {:.2}× the raw view ({} rows)",
        mean_ns(&card_chunks),
        card_streaming.as_secs_f64() * 1e3 * (1 << 20) as f64 / text.len() as f64,
        card_streaming.as_secs_f64() / streaming.as_secs_f64(),
        cards.doc().line_count()
    );
    println!(
        "  cards, last / first: {:>8.2} ({})",
        card_last / card_first,
        if card_last / card_first < 1.5 {
            "flat"
        } else {
            "GROWING"
        }
    );
}
