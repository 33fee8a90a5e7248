//! The TUI's own cost (DESIGN.md section 8), measured in-process on a
//! 200×60 `TestBackend` with a high-stakes panel (seven panes) whose
//! proposer and five judges stream markdown at once, each at about 2,000
//! tokens/s (issue 15), in ~44-byte chunks:
//!
//! - frame time (fold a batch of chunks, `App::prepare`, draw) at the start,
//!   and with 1 MB and 10 MB of text already held, plus the late/early ratio
//!   that shows whether drawing grows with the transcript;
//! - CPU time per megabyte streamed and drawn, in each of those phases;
//! - key press to the end of the next frame while the panes stream (the
//!   event loop draws a key's frame at once, without the frame cap);
//! - resident memory against the text held, up to 50 MB, and the peak
//!   resident set (`VmHWM`) with 10 MB held against issue 15's budget of
//!   20 MB + 3× the text held;
//! - start-up: `App::new` to the first frame;
//! - frames through the interface's own `Screen` at a real server's pace
//!   (the proposer alone, 8 characters a millisecond of the debate's time,
//!   read and drawn at the interface's default text pace, the clock's tick
//!   as the interface ticks): what a frame costs to fold its text in, lay
//!   out, draw, compare and encode, and the bytes it writes. These frames
//!   draw only what changed (issue 32). Measured with the caches warm and
//!   with them written over between frames, as the real process finds them
//!   (issue 56: the cold frame is several times the warm one).
//!
//! Numbers, not assertions: a TestBackend frame skips the terminal write, so
//! these are the interface's share only. Each phase stops at a frame count
//! or a time budget, whichever comes first, so a slow layout cannot stall
//! the run. Run with `cargo bench --bench tui_render`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use quorum::agent::AgentInfo;
use quorum::engine::Update;
use quorum::protocol::decision_review::model::{CritiqueMode, JudgeRole, architecture_panel};
use quorum::protocol::decision_review::verdict::Thresholds;
use quorum::protocol::decision_review::{Participants, ReviewConfig, ReviewMode, judge_slot_role};
use quorum::protocol::{LogEntry, LogKind};
use quorum::tui::theme::Theme;
use quorum::tui::{App, DebateInfo, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

/// Terminal size, in cells.
const COLUMNS: u16 = 200;
const ROWS: u16 = 60;
/// Size of one streamed chunk, in bytes (cut on a char boundary).
const CHUNK_BYTES: usize = 44;
/// Chunks each streaming pane receives between two frames. At 60 fps this is
/// 7.9 KB/s (about 2,000 tokens/s of 4 characters) per pane: many times a
/// fast provider, so every frame has new text in every streaming pane.
const CHUNKS_PER_PANE_PER_FRAME: usize = 3;
/// Issue 15's memory budget: this much, in MB, plus 3× the text held.
const MEMORY_BUDGET_BASE_MB: f64 = 20.0;
/// One transcript line is logged per this many streamed bytes.
const LOG_LINE_EVERY_BYTES: usize = 4096;
/// Upper bounds of one measured phase: frames, and wall time in ms.
const PHASE_MAX_FRAMES: usize = 300;
const PHASE_BUDGET_MS: u64 = 3000;
/// Start-ups measured; the median is reported.
const STARTUP_RUNS: usize = 20;
const MB: usize = 1 << 20;

/// Markdown of the kind agents write: headings, lists, emphasis, inline
/// code, a fenced YAML block and a table.
const CORPUS: &str = "\
## Assessment of b2

The plan keeps **events and projections in one transaction**, which avoids the \
eventual-consistency bugs that sink most event-sourced systems. Two points deserve \
a closer look before the scores:

1. The backfill of `3.2 years` of history assumes the overwritten rows can be \
reconstructed; the proration fix of last March says otherwise.
2. Shadow mode doubles write work for *six weeks* during the invoice run.

- Strength: one store, one backup story, one on-call rotation.
- Weakness: upcasters and replay tooling are now ours to own.
- Open question: who signs off the week-6 go/no-go?

```yaml
block_scores:
  - block_id: b2
    criterion: feasibility
    score: 3
    rationale: \"Feasible for two engineers only without the backfill.\"
```

| block | criterion   | score |
|-------|-------------|-------|
| b1    | correctness | 4     |
| b2    | feasibility | 3     |

> A plan that names its stop conditions is easier to trust than one that does not.

";

/// The corpus cut into chunks of about [`CHUNK_BYTES`].
fn corpus_chunks() -> Vec<String> {
    let mut chunks = Vec::new();
    let mut rest = CORPUS;
    while !rest.is_empty() {
        let mut cut = CHUNK_BYTES.min(rest.len());
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        chunks.push(rest[..cut].to_string());
        rest = &rest[cut..];
    }
    chunks
}

fn high_stakes_info() -> DebateInfo {
    let panel = architecture_panel(true);
    let agent = "script:scripted".to_string();
    let config = ReviewConfig {
        topic: "Should we move billing to event sourcing?".into(),
        context: Vec::new(),
        mode: ReviewMode::Architecture,
        options: Vec::new(),
        critique_mode: CritiqueMode::GenerousSteelman,
        high_stakes: true,
        panel,
        max_rounds: 2,
        thresholds: Thresholds::default(),
        participants: Participants {
            proposer: agent.clone(),
            critic: agent.clone(),
            judges: JudgeRole::ALL
                .into_iter()
                .map(|role| (role, agent.clone()))
                .collect::<BTreeMap<_, _>>(),
            prices: BTreeMap::new(),
        },
        started_at: chrono::Utc::now(),
        hold_for_moderator: false,
        checks_rulings: true,
        fairness: Default::default(),
        handed: None,
        sources: Vec::new(),
        checks_evidence: true,
        weighs_payoff: true,
        stability: Default::default(),
        calibration: Vec::new(),
    };
    let review = quorum::protocol::decision_review::DecisionReview::new(
        config,
        std::sync::Arc::new(quorum::prompts::PromptSet::builtin()),
    );
    DebateInfo::of(&review, "bench-run".into())
}

/// One App with its judges streaming, drawn on a TestBackend.
struct Scenario {
    app: App,
    terminal: Terminal<TestBackend>,
    area: Rect,
    chunks: Vec<String>,
    /// The live call of each streaming pane, and where it is in the corpus.
    streams: Vec<(String, usize)>,
    streamed_bytes: usize,
    logged_bytes: usize,
    /// `(prepare, draw)` of every frame since the last [`Scenario::take_split`].
    split: Vec<(Duration, Duration)>,
}

impl Scenario {
    fn new() -> Self {
        let mut app = App::new(high_stakes_info(), Theme::default(), Instant::now());
        let chunks = corpus_chunks();
        let mut streams = Vec::new();
        let slots = std::iter::once("proposer".to_string())
            .chain(JudgeRole::ALL.into_iter().map(judge_slot_role));
        for (index, slot) in slots.enumerate() {
            let call_id = format!("{slot}/evaluation/r1/a1");
            app.apply(
                Update::CallStarted {
                    call_id: call_id.clone(),
                    slot: quorum::protocol::supervision::Slot::new(slot, "evaluation", 1),
                    attempt: 1,
                    agent: AgentInfo {
                        provider: "script".into(),
                        model: "scripted".into(),
                    },
                },
                Instant::now(),
            );
            // Each judge starts at a different place in the corpus.
            streams.push((call_id, index * 7));
        }
        let terminal = Terminal::new(TestBackend::new(COLUMNS, ROWS)).expect("test terminal");
        Scenario {
            app,
            terminal,
            area: Rect::new(0, 0, COLUMNS, ROWS),
            chunks,
            streams,
            streamed_bytes: 0,
            logged_bytes: 0,
            split: Vec::new(),
        }
    }

    /// Folds `per_pane` chunks into every streaming pane, and transcript
    /// lines at their rate.
    fn stream(&mut self, per_pane: usize) {
        let now = Instant::now();
        for _ in 0..per_pane {
            for (call_id, position) in &mut self.streams {
                let text = self.chunks[*position % self.chunks.len()].clone();
                *position += 1;
                self.streamed_bytes += text.len();
                self.app.apply(
                    Update::Chunk {
                        call_id: call_id.clone(),
                        text,
                    },
                    now,
                );
            }
        }
        while self.streamed_bytes - self.logged_bytes >= LOG_LINE_EVERY_BYTES {
            self.logged_bytes += LOG_LINE_EVERY_BYTES;
            self.app.apply(
                Update::Log(LogEntry {
                    at: chrono::Utc::now(),
                    kind: LogKind::Note,
                    call_id: None,
                    details: Vec::new(),
                    message: format!(
                        "judge.analyst: {} bytes streamed so far; 12 block scores parsed",
                        self.streamed_bytes
                    ),
                }),
                now,
            );
        }
    }

    /// Streams without drawing until `bytes` have streamed.
    fn fill_to(&mut self, bytes: usize) {
        while self.streamed_bytes < bytes {
            self.stream(1);
        }
    }

    fn draw(&mut self) {
        let started = Instant::now();
        self.app.prepare(self.area);
        let prepared = Instant::now();
        self.terminal
            .draw(|frame| view::draw(&self.app, frame))
            .expect("draw");
        self.split.push((prepared - started, prepared.elapsed()));
        self.app.damage = quorum::tui::screen::Damage::None;
    }

    /// Medians of the layout and the draw since the last call.
    fn take_split(&mut self) -> (Duration, Duration) {
        let mut prepares: Vec<Duration> = self.split.iter().map(|(prepare, _)| *prepare).collect();
        let mut draws: Vec<Duration> = self.split.drain(..).map(|(_, draw)| draw).collect();
        prepares.sort();
        draws.sort();
        (median(&prepares), median(&draws))
    }

    /// One streaming frame: a batch of chunks, layout, draw.
    fn frame(&mut self) -> Duration {
        let started = Instant::now();
        self.stream(CHUNKS_PER_PANE_PER_FRAME);
        self.draw();
        started.elapsed()
    }

    /// A key press and the frame that shows it, with the chunks that arrived
    /// meanwhile already folded.
    fn key_to_frame(&mut self, key: KeyEvent) -> Duration {
        self.stream(CHUNKS_PER_PANE_PER_FRAME);
        let started = Instant::now();
        let _commands = self.app.handle_key(key, Instant::now());
        self.draw();
        started.elapsed()
    }

    /// Text the interface holds: every pane and the transcript.
    fn text_held(&self) -> usize {
        self.app
            .panes
            .iter()
            .map(|pane| pane.doc.source_len())
            .sum::<usize>()
            + self.app.transcript.source_len()
    }
}

/// Runs `sample` until the phase's frame count or time budget is used up.
fn phase(mut sample: impl FnMut() -> Duration) -> Vec<Duration> {
    let budget = Duration::from_millis(PHASE_BUDGET_MS);
    let started = Instant::now();
    let mut samples = Vec::new();
    while samples.len() < PHASE_MAX_FRAMES && started.elapsed() < budget {
        samples.push(sample());
    }
    samples.sort();
    samples
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

fn median(sorted: &[Duration]) -> Duration {
    sorted[sorted.len() / 2]
}

fn p99(sorted: &[Duration]) -> Duration {
    let rank = (sorted.len() * 99).div_ceil(100).max(1);
    sorted[rank - 1]
}

fn print_row(label: &str, sorted: &[Duration]) {
    println!(
        "  {label:<34} {:>10.0} {:>10.0} {:>8}",
        micros(median(sorted)),
        micros(p99(sorted)),
        sorted.len()
    );
}

/// User plus system CPU time of this process.
fn cpu_time() -> Duration {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let result = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    assert_eq!(result, 0, "getrusage");
    let seconds = |time: libc::timeval| {
        Duration::from_secs(time.tv_sec as u64) + Duration::from_micros(time.tv_usec as u64)
    };
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Resident set size, in bytes, from /proc/self/statm.
fn resident_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|field| field.parse().ok())
        .expect("resident pages in statm");
    // SAFETY: sysconf has no preconditions.
    let page_size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages * usize::try_from(page_size).expect("a positive page size")
}

/// The process's peak resident set so far (`VmHWM`), in bytes.
fn peak_resident_bytes() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| {
            value
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<usize>()
                .ok()
        })
        .expect("VmHWM in /proc/self/status")
        * 1024
}

fn megabytes(bytes: usize) -> f64 {
    bytes as f64 / MB as f64
}

fn main() {
    let resident_at_start = resident_bytes();
    println!(
        "tui_render: {COLUMNS}×{ROWS} TestBackend, 7 panes, the proposer and 5 judges streaming, \
         {CHUNKS_PER_PANE_PER_FRAME} × {CHUNK_BYTES} B per pane per frame"
    );

    // Start-up: App::new to the end of the first frame.
    let mut startups: Vec<Duration> = (0..STARTUP_RUNS)
        .map(|_| {
            let started = Instant::now();
            let theme = Theme::load("dark", None).expect("built-in theme");
            let mut app = App::new(high_stakes_info(), theme, Instant::now());
            let mut terminal =
                Terminal::new(TestBackend::new(COLUMNS, ROWS)).expect("test terminal");
            app.prepare(Rect::new(0, 0, COLUMNS, ROWS));
            terminal
                .draw(|frame| view::draw(&app, frame))
                .expect("draw");
            started.elapsed()
        })
        .collect();
    startups.sort();

    // Frame time and key-to-frame as the text held grows; memory alongside.
    let keys = [
        KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE),
        KeyEvent::new(KeyCode::Char('z'), KeyModifiers::NONE),
        KeyEvent::new(KeyCode::Char('z'), KeyModifiers::NONE),
        KeyEvent::new(KeyCode::Char('k'), KeyModifiers::NONE),
        KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT),
    ];
    let mut scenario = Scenario::new();
    let mut frames = Vec::new();
    let mut cpu_per_mb = Vec::new();
    let mut key_frames = Vec::new();
    let mut key_medians = String::new();
    let mut memory = vec![(0usize, resident_at_start)];
    for (label, held) in [("start", 0), ("1 MB held", MB), ("10 MB held", 10 * MB)] {
        scenario.fill_to(held);
        scenario.draw();
        if held > 0 {
            memory.push((scenario.text_held(), resident_bytes()));
        }
        let (cpu_before, streamed_before) = (cpu_time(), scenario.streamed_bytes);
        scenario.split.clear();
        let sorted = phase(|| scenario.frame());
        frames.push((label, sorted, scenario.take_split()));
        let streamed = scenario.streamed_bytes - streamed_before;
        cpu_per_mb.push((
            label,
            (cpu_time() - cpu_before).as_secs_f64() * 1000.0 / megabytes(streamed),
            streamed,
        ));
        let mut next_key = 0;
        let mut by_key: Vec<Vec<Duration>> = vec![Vec::new(); keys.len()];
        key_frames.push((
            label,
            phase(|| {
                let key = keys[next_key % keys.len()];
                let took = scenario.key_to_frame(key);
                by_key[next_key % keys.len()].push(took);
                next_key += 1;
                took
            }),
        ));
        let (key_prepare, key_draw) = scenario.take_split();
        if held == 10 * MB {
            println!(
                "  of a key's frame, 10 MB held: prepare (layout) {:.0} µs, draw {:.0} µs (medians)",
                micros(key_prepare),
                micros(key_draw)
            );
            let names = ["Tab", "z", "z again", "k", "G"];
            let medians: Vec<String> = by_key
                .iter_mut()
                .zip(names)
                .map(|(samples, name)| {
                    samples.sort();
                    format!("{name} {:.0}", micros(median(samples)))
                })
                .collect();
            key_medians = medians.join(", ");
        }
        // The next phase measures the usual layout, whatever key came last.
        scenario.app.zoomed = false;
    }
    let (held_at_10, peak_at_10) = (scenario.text_held(), peak_resident_bytes());
    scenario.fill_to(50 * MB);
    scenario.draw();
    memory.push((scenario.text_held(), resident_bytes()));

    println!(
        "  {:<34} {:>10} {:>10} {:>8}",
        "measure (µs)", "median", "p99", "samples"
    );
    for (label, sorted, _) in &frames {
        print_row(&format!("frame, {label}"), sorted);
    }
    for (label, sorted) in &key_frames {
        print_row(&format!("key → frame, {label}"), sorted);
    }
    println!("  key → frame medians by key, 10 MB held (µs): {key_medians}");
    print_row("start-up to first frame", &startups);
    let early = micros(median(&frames[0].1));
    let late = micros(median(&frames[frames.len() - 1].1));
    println!(
        "  frame median, 10 MB held / start: {:.2}×",
        late / early.max(f64::MIN_POSITIVE)
    );
    for (label, _, (prepare, draw)) in &frames {
        println!(
            "  of a frame, {label}: prepare (layout) {:.0} µs, draw {:.0} µs (medians)",
            micros(*prepare),
            micros(*draw)
        );
    }
    for (label, milliseconds, streamed) in cpu_per_mb {
        println!(
            "  CPU per MB streamed and drawn, {label}: {milliseconds:.0} ms (over {:.0} KB)",
            streamed as f64 / 1024.0
        );
    }
    let budget = MEMORY_BUDGET_BASE_MB + 3.0 * megabytes(held_at_10);
    println!(
        "  peak resident set (VmHWM) with {:.1} MB held: {:.1} MB = {:.1}× the text held; \
         budget 20 MB + 3× = {budget:.1} MB",
        megabytes(held_at_10),
        megabytes(peak_at_10),
        peak_at_10 as f64 / held_at_10 as f64,
    );
    paced_through_screen();
    println!("  memory: text held → resident set");
    for (held, resident) in memory {
        println!(
            "    {:>7.1} MB → {:>7.1} MB",
            megabytes(held),
            megabytes(resident)
        );
    }
}

/// A writer that counts what it is given and keeps none of it.
struct Counted(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl std::io::Write for Counted {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .fetch_add(bytes.len(), std::sync::atomic::Ordering::Relaxed);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Bytes written over between two frames of the cold run: more than the
/// last-level cache of the machine it was chosen on (32 MB), so that a frame finds the
/// interface's code and data where a frame of the real process finds them
/// after the 32 ms between two of its frames: the HTTP stack, the engine,
/// the terminal emulator and the model server ran meanwhile, and the
/// caches hold their work, not the interface's.
const COLD_BYTES: usize = 64 << 20;

/// The proposer alone streaming through `Screen` at the interface's default
/// text pace (issue 56): 8 characters each millisecond of the debate's
/// time, read and drawn once a frame ([`READ_INTERVAL_MS`]), the clock's
/// tick every [`TICK_INTERVAL_MS`]. Run twice: back to back with the caches
/// warm (the kindest case), and with the caches written over between frames
/// (`COLD_BYTES`), as in the real process. Reports the time a frame takes to
/// fold its text in, lay out, draw, compare and encode; its mean, with the
/// jumps of a following view, and the mean of each of those three parts;
/// the time per MB of text; the bytes written.
///
/// [`READ_INTERVAL_MS`]: quorum::agent::http::paced::READ_INTERVAL_MS
/// [`TICK_INTERVAL_MS`]: quorum::tui::run::TICK_INTERVAL_MS
fn paced_through_screen() {
    for cold in [false, true] {
        paced_frames(cold);
    }
}

fn paced_frames(cold: bool) {
    const FRAMES: usize = 1500;
    let frame_ms = quorum::agent::http::paced::READ_INTERVAL_MS;
    let tick_every = (quorum::tui::run::TICK_INTERVAL_MS / frame_ms).max(1) as usize;
    let mut app = App::new(high_stakes_info(), Theme::default(), Instant::now());
    let call_id = "proposer/proposal/r1/a1".to_string();
    app.apply(
        Update::CallStarted {
            call_id: call_id.clone(),
            slot: quorum::protocol::supervision::Slot::new("proposer", "proposal", 1),
            attempt: 1,
            agent: AgentInfo {
                provider: "script".into(),
                model: "scripted".into(),
            },
        },
        Instant::now(),
    );
    let written = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut screen = quorum::tui::screen::Screen::new(
        Counted(written.clone()),
        ratatui::layout::Size::new(COLUMNS, ROWS),
    );
    screen.draw(&mut app).expect("first frame");
    let mut elsewhere = if cold {
        vec![0u8; COLD_BYTES]
    } else {
        Vec::new()
    };
    let text: Vec<char> = CORPUS.chars().collect();
    let (began, mut at, mut position, mut streamed) = (Instant::now(), Duration::ZERO, 0, 0);
    let mut frames = Vec::with_capacity(FRAMES);
    // Folding the text in, laying out, drawing (render, compare, encode).
    let mut parts = [Duration::ZERO; 3];
    let written_before = written.load(std::sync::atomic::Ordering::Relaxed);
    for frame in 0..FRAMES {
        // What the rest of the process and the machine do between frames.
        for (line, byte) in elsewhere.iter_mut().enumerate().step_by(64) {
            *byte = byte.wrapping_add(line as u8);
        }
        std::hint::black_box(&mut elsewhere);
        at += Duration::from_millis(frame_ms);
        // One read's text, forwarded to the interface as one chunk.
        let chars = 8 * frame_ms as usize;
        let piece: String = (0..chars)
            .map(|step| text[(position + step) % text.len()])
            .collect();
        position += chars;
        streamed += piece.len();
        let started = Instant::now();
        app.apply(
            Update::Chunk {
                call_id: call_id.clone(),
                text: piece,
            },
            began + at,
        );
        if frame % tick_every == tick_every - 1 {
            app.tick(began + at);
        }
        // Laid out here to time it apart: the frame's own call then finds
        // the layout done.
        let folded = Instant::now();
        app.prepare(screen.area());
        let laid_out = Instant::now();
        screen.draw(&mut app).expect("frame");
        frames.push(started.elapsed());
        parts[0] += folded - started;
        parts[1] += laid_out - folded;
        parts[2] += laid_out.elapsed();
    }
    let bytes = written.load(std::sync::atomic::Ordering::Relaxed) - written_before;
    let total: Duration = frames.iter().sum();
    frames.sort();
    println!(
        "  paced through Screen, caches {} ({FRAMES} frames of {frame_ms} ms, {:.0} KB to the \
         proposer): frame median {:.0} µs, mean {:.0} µs (folding the text in {:.0}, layout {:.0}, \
         draw {:.0}), p99 {:.0} µs; {:.0} ms per MB of text; {:.0} bytes written per frame",
        if cold { "cold" } else { "warm" },
        streamed as f64 / 1024.0,
        micros(median(&frames)),
        micros(total / FRAMES as u32),
        micros(parts[0] / FRAMES as u32),
        micros(parts[1] / FRAMES as u32),
        micros(parts[2] / FRAMES as u32),
        micros(p99(&frames)),
        total.as_secs_f64() * 1000.0 / megabytes(streamed),
        bytes as f64 / FRAMES as f64,
    );
}
