//! Streaming cost and start-up of the real binary (issue 15, DESIGN.md
//! section 8), against a model server on 127.0.0.1 in this process.
//!
//! The server answers `/v1/chat/completions` like a model that plays every
//! role of the built-in demo: it reads the role from the prompt and streams
//! that role's demo reply, preceded by generated markdown so that the
//! proposal carries [`LEAD_TEXT_BYTES`] and every other call
//! [`OTHER_TEXT_BYTES`], in SSE events of [`CHUNK_CHARS`] characters each, as
//! fast as the client reads. Three clients read the same streams in one run,
//! interleaved, [`REPS`] times:
//!
//! - **bare**: this bench binary again (`--bare`), the same HTTP and SSE stack
//!   (reqwest, eventsource-stream, serde_json into a typed chunk) on a
//!   current-thread runtime, sending requests of the same sizes for the same
//!   calls and dropping the text;
//! - **headless**: `quorum review --headless`, with the automatic moderation;
//! - **interface**: `quorum review` in a 200×60 pseudo-terminal (the screen
//!   kept by a vt100 parser here), with `--moderation accept`, measured when
//!   the verdict view is up.
//!
//! CPU is the child's user + system time (wait4 for the first two,
//! `/proc/PID/stat` for the interface), never wall time; the figure is CPU
//! seconds per MB (2^20 bytes) of streamed answer text, medians of the runs,
//! and the ratios to the bare client. The interface's peak resident set
//! (`VmHWM`) is reported beside it.
//!
//! Start-up: `quorum demo` in a 200×60 pseudo-terminal, from just before the
//! exec to the end of the first frame on the terminal (the synchronized
//! update that closes it), [`STARTUP_RUNS`] times.
//!
//! Numbers, not assertions. Run with `cargo bench --bench streaming`.

#[path = "../tests/support/mod.rs"]
mod support;

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::response::Response;
use axum::routing::post;
use futures::StreamExt;
use quorum::agent::CallRequest;
use quorum::agent::script::{Rulings, Script};
use serde_json::{Value as Json, json};
use support::provider_server::classify;
use support::pty::PtyRun;

/// Answer text of the proposal call, in bytes.
const LEAD_TEXT_BYTES: usize = 1 << 20;
/// Answer text of every other call, in bytes.
const OTHER_TEXT_BYTES: usize = 32 << 10;
/// Characters of answer text per SSE event.
const CHUNK_CHARS: usize = 8;
/// Runs of each client; medians are reported.
const REPS: usize = 7;
/// Start-ups measured; the median is reported.
const STARTUP_RUNS: usize = 15;
/// Terminal size of the interface runs, in cells.
const COLUMNS: u16 = 200;
const ROWS: u16 = 60;
/// Limit on one run of the binary.
const RUN_LIMIT: Duration = Duration::from_secs(300);
const MB: f64 = (1u64 << 20) as f64;
const TOPIC: &str = "Should we move billing to event sourcing?";
/// The request header a bare client names its call with.
const CALL_HEADER: &str = "x-bench-call";
/// Ends a synchronized update: the interface wraps every frame in one.
const FRAME_END: &[u8] = b"\x1b[?2026l";

// ---- the model server ---------------------------------------------------------------

struct ServerState {
    script: Script,
    /// Answer text bytes served since the last reset.
    text_bytes: AtomicU64,
    /// `(call, request body bytes)` of each request since the last reset.
    calls: Mutex<Vec<(String, usize)>>,
    /// Paced mode: microseconds between two events, each written alone (0:
    /// as fast as the client reads).
    gap_us: AtomicU64,
    /// Answer text of the proposal call, in bytes.
    lead_bytes: AtomicU64,
    /// Answer text of every other call, in bytes.
    other_bytes: AtomicU64,
    /// Paced mode: when each heading of the proposal (`## Consideration N`)
    /// had been written whole, by N, since the last reset.
    written: Mutex<Vec<(u32, Instant)>>,
}

/// The heading the padding opens each section with, before its number.
const HEADING: &str = "Consideration ";

/// For each piece of `text` cut `CHUNK_CHARS` characters long, the number
/// of the heading whose last digit it carries, if any.
fn headings_by_piece(text: &str, pieces: usize) -> Vec<Option<u32>> {
    let mut by_piece = vec![None; pieces];
    let (mut searched, mut chars_before) = (0, 0);
    while let Some(found) = text[searched..].find(HEADING) {
        let start = searched + found + HEADING.len();
        let digits = text[start..].bytes().take_while(u8::is_ascii_digit).count();
        let end = start + digits;
        chars_before += text[searched..end].chars().count();
        searched = end;
        if let (Ok(number), Some(last)) = (text[start..end].parse(), chars_before.checked_sub(1)) {
            by_piece[last / CHUNK_CHARS] = Some(number);
        }
    }
    by_piece
}

fn label((role, stage, round): &(String, String, u32)) -> String {
    format!("{role}/{stage}/{round}")
}

fn parse_label(label: &str) -> Option<(String, String, u32)> {
    let mut parts = label.split('/');
    Some((
        parts.next()?.to_string(),
        parts.next()?.to_string(),
        parts.next()?.parse().ok()?,
    ))
}

/// The demo's reply for a call, to `prompt`: the first attempt that is not a
/// fault. The scripted agents read the prompt as a careful agent would (a
/// revision addresses the critique items the moderator's rulings name), so
/// quorum's own prompt goes through; the bare client's filler gets the reply
/// to no rulings.
fn reply_for(
    script: &Script,
    (role, stage, round): &(String, String, u32),
    prompt: &str,
) -> Option<String> {
    (1..=3).find_map(|attempt| {
        let request = CallRequest {
            call_id: format!("{role}/{stage}/r{round}/a{attempt}"),
            role: role.clone(),
            stage: stage.clone(),
            round: *round,
            attempt,
            prompt: prompt.to_string(),
        };
        let reply = script.reply_for(&request).ok()?;
        let text = reply.text_under(&Rulings::of(prompt));
        reply.fault.is_none().then_some(text)?
    })
}

/// About `bytes` of markdown prose (headings, lists, emphasis, inline code;
/// no fenced block, which the parsers look for), ending in a blank line.
fn markdown_padding(bytes: usize) -> String {
    const WORDS: [&str; 16] = [
        "projection",
        "ledger",
        "**invoice**",
        "replay",
        "`event_id`",
        "consistency",
        "backfill",
        "*shadow*",
        "snapshot",
        "upcaster",
        "tenant",
        "proration",
        "schema",
        "outbox",
        "idempotent",
        "rollback",
    ];
    let mut text = String::with_capacity(bytes + 256);
    let mut word = 0usize;
    let mut section = 0usize;
    while text.len() < bytes {
        section += 1;
        text.push_str(&format!("## Consideration {section}\n\n"));
        for sentence in 0..6 {
            for position in 0..12 {
                if position > 0 {
                    text.push(' ');
                }
                text.push_str(WORDS[(word * 7 + sentence) % WORDS.len()]);
                word += 1;
            }
            text.push_str(". ");
        }
        text.push_str("\n\n");
        for item in 0..4 {
            text.push_str(&format!(
                "- point {item}: the {} keeps the {} honest\n",
                WORDS[word % WORDS.len()],
                WORDS[(word + 3) % WORDS.len()]
            ));
            word += 1;
        }
        text.push('\n');
    }
    text
}

fn sse_event(content: &str) -> Bytes {
    let value = json!({"id": "chatcmpl-bench", "object": "chat.completion.chunk",
        "model": "test-model",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]});
    Bytes::from(format!("data: {value}\n\n"))
}

fn answer_text(state: &ServerState, call: &(String, String, u32), prompt: &str) -> Option<String> {
    let reply = reply_for(&state.script, call, prompt)?;
    let size = if call.1 == "proposal" {
        state.lead_bytes.load(Ordering::Relaxed) as usize
    } else {
        state.other_bytes.load(Ordering::Relaxed) as usize
    };
    let mut text = markdown_padding(size.saturating_sub(reply.len()));
    text.push_str(&reply);
    Some(text)
}

/// What an answer's stream is made of, in a provider's event shape.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    OpenAi,
    Anthropic,
}

impl Shape {
    fn name(self) -> &'static str {
        match self {
            Shape::OpenAi => "openai",
            Shape::Anthropic => "anthropic",
        }
    }

    fn path(self) -> &'static str {
        match self {
            Shape::OpenAi => "/chat/completions",
            Shape::Anthropic => "/messages",
        }
    }

    fn event(self, content: &str) -> Bytes {
        match self {
            Shape::OpenAi => sse_event(content),
            Shape::Anthropic => Bytes::from(format!(
                "event: content_block_delta\ndata: {}\n\n",
                json!({"type": "content_block_delta", "index": 0,
                    "delta": {"type": "text_delta", "text": content}})
            )),
        }
    }

    fn head(self, input_tokens: usize) -> Option<Bytes> {
        (self == Shape::Anthropic).then(|| {
            Bytes::from(format!(
                "event: message_start\ndata: {}\n\nevent: content_block_start\ndata: {}\n\n",
                json!({"type": "message_start", "message": {"id": "msg_bench", "type": "message",
                    "role": "assistant", "model": "test-model", "content": [], "stop_reason": null,
                    "usage": {"input_tokens": input_tokens, "output_tokens": 1}}}),
                json!({"type": "content_block_start", "index": 0,
                    "content_block": {"type": "text", "text": ""}})
            ))
        })
    }

    fn tail(self, input_tokens: usize, output_tokens: u64) -> Bytes {
        Bytes::from(match self {
            Shape::OpenAi => format!(
                "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
                json!({"id": "chatcmpl-bench", "object": "chat.completion.chunk", "model": "test-model",
                    "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
                json!({"id": "chatcmpl-bench", "object": "chat.completion.chunk", "model": "test-model",
                    "choices": [], "usage": {"prompt_tokens": input_tokens, "completion_tokens": output_tokens}}),
            ),
            Shape::Anthropic => format!(
                "event: content_block_stop\ndata: {}\n\nevent: message_delta\ndata: {}\n\nevent: message_stop\ndata: {}\n\n",
                json!({"type": "content_block_stop", "index": 0}),
                json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
                    "usage": {"output_tokens": output_tokens}}),
                json!({"type": "message_stop"}),
            ),
        })
    }
}

async fn complete(state: State<Arc<ServerState>>, request: Request) -> Response {
    answer(state, request, Shape::OpenAi).await
}

async fn messages(state: State<Arc<ServerState>>, request: Request) -> Response {
    answer(state, request, Shape::Anthropic).await
}

async fn answer(State(state): State<Arc<ServerState>>, request: Request, shape: Shape) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let body_bytes = body.len();
    let body: Json = serde_json::from_slice(&body).unwrap_or(Json::Null);
    let named = parts
        .headers
        .get(CALL_HEADER)
        .and_then(|value| value.to_str().ok())
        .and_then(parse_label);
    let prompt = body["messages"][0]["content"].as_str().unwrap_or("");
    // Anthropic's requests put the prompt in the same place.
    let call = named.or_else(|| classify(prompt));
    let Some((call, text)) =
        call.and_then(|call| Some((call.clone(), answer_text(&state, &call, prompt)?)))
    else {
        return Response::builder()
            .status(400)
            .header("content-type", "application/json")
            .body(Body::from(
                r#"{"error": {"message": "bench server: no reply for this prompt"}}"#,
            ))
            .unwrap();
    };
    state.calls.lock().unwrap().push((label(&call), body_bytes));
    state
        .text_bytes
        .fetch_add(text.len() as u64, Ordering::Relaxed);
    let chars: Vec<char> = text.chars().collect();
    let pieces: Vec<String> = chars
        .chunks(CHUNK_CHARS)
        .map(|piece| piece.iter().collect())
        .collect();
    let headings = match call.1.as_str() {
        "proposal" => headings_by_piece(&text, pieces.len()),
        _ => vec![None; pieces.len()],
    };
    let output_tokens = (text.len() / 4) as u64;
    let tail = shape.tail(body_bytes / 4, output_tokens);
    let frames = futures::stream::iter(shape.head(body_bytes / 4).map(|head| (head, None)))
        .chain(
            futures::stream::iter(pieces.into_iter().zip(headings))
                .map(move |(piece, heading)| (shape.event(&piece), heading)),
        )
        .chain(futures::stream::once(async move { (tail, None) }));
    let gap = Duration::from_micros(state.gap_us.load(Ordering::Relaxed));
    let frames: futures::stream::BoxStream<'static, Bytes> = if gap.is_zero() {
        frames.map(|(frame, _)| frame).boxed()
    } else {
        // A real server's pacing: each event written on its own, a gap
        // apart, on a fixed schedule (event n at n gaps from the start).
        // A sleep of the gap after each write would space them wider:
        // tokio's timer rounds each sleep up to its next millisecond, so
        // a 1 ms gap came out near 2 ms, half the rate asked for.
        let state = Arc::clone(&state);
        let start = tokio::time::Instant::now();
        frames
            .enumerate()
            .then(move |(number, (frame, heading))| {
                let state = Arc::clone(&state);
                let due = start + gap * u32::try_from(number + 1).unwrap_or(u32::MAX);
                async move {
                    tokio::time::sleep_until(due).await;
                    if let Some(number) = heading {
                        // The event goes to the socket as this future returns.
                        state.written.lock().unwrap().push((number, Instant::now()));
                    }
                    frame
                }
            })
            .boxed()
    };
    let frames = frames.map(Ok::<_, std::convert::Infallible>);
    Response::builder()
        .status(200)
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(frames))
        .unwrap()
}

struct Server {
    state: Arc<ServerState>,
    base_url: String,
}

impl Server {
    /// When each heading of the proposal was written, by number, since the
    /// last call.
    fn take_written(&self) -> Vec<(u32, Instant)> {
        std::mem::take(&mut *self.state.written.lock().unwrap())
    }

    fn take(&self) -> (u64, Vec<(String, usize)>) {
        let bytes = self.state.text_bytes.swap(0, Ordering::Relaxed);
        let calls = std::mem::take(&mut *self.state.calls.lock().unwrap());
        (bytes, calls)
    }
}

async fn start_server() -> Server {
    let spec = quorum::spec::parse(
        Path::new("demo.yaml"),
        quorum::protocol::decision_review::kind::DEMO_SPEC,
    )
    .expect("the demo spec parses");
    let state = Arc::new(ServerState {
        script: spec.script.expect("the demo has a script"),
        text_bytes: AtomicU64::new(0),
        calls: Mutex::new(Vec::new()),
        gap_us: AtomicU64::new(0),
        lead_bytes: AtomicU64::new(LEAD_TEXT_BYTES as u64),
        other_bytes: AtomicU64::new(OTHER_TEXT_BYTES as u64),
        written: Mutex::new(Vec::new()),
    });
    use axum::serve::{Listener, ListenerExt};
    // Every write its own segment, as a proxy that flushes each event.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0")
        .tap_io(|stream| {
            let _ = stream.set_nodelay(true);
        });
    let port = listener.local_addr().unwrap().port();
    let app = Router::new()
        .route("/v1/chat/completions", post(complete))
        .route("/v1/messages", post(messages))
        .with_state(state.clone());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Server {
        state,
        base_url: format!("http://127.0.0.1:{port}/v1"),
    }
}

// ---- the bare client ----------------------------------------------------------------

#[derive(serde::Deserialize)]
struct WireChunk {
    #[serde(default)]
    choices: Option<Vec<WireChoice>>,
}

#[derive(serde::Deserialize)]
struct WireChoice {
    #[serde(default)]
    delta: Option<WireDelta>,
}

#[derive(serde::Deserialize)]
struct WireDelta {
    #[serde(default)]
    content: Option<String>,
}

#[derive(serde::Deserialize)]
struct AnthropicChunk {
    #[serde(default)]
    delta: Option<AnthropicDelta>,
}

#[derive(serde::Deserialize)]
struct AnthropicDelta {
    #[serde(default)]
    text: Option<String>,
}

/// Requests each call of `calls` (`role/stage/round=body bytes`) in turn
/// with a body of that size and reads its stream to the end, dropping the
/// text. Returns the answer bytes read.
fn bare_client(base_url: &str, shape: Shape, calls: &[String]) -> u64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        let mut read = 0u64;
        for call in calls {
            let (name, body_bytes) = call.split_once('=').expect("call=bytes");
            let body_bytes: usize = body_bytes.parse().expect("bytes");
            let mut body = serde_json::to_vec(&json!({"model": "test-model", "stream": true,
                "messages": [{"role": "user", "content": ""}]}))
            .expect("json");
            // The same request size as quorum's: pad the prompt.
            let pad = body_bytes.saturating_sub(body.len());
            body = serde_json::to_vec(&json!({"model": "test-model", "stream": true,
                "messages": [{"role": "user", "content": "p".repeat(pad)}]}))
            .expect("json");
            let response = client
                .post(format!("{base_url}{}", shape.path()))
                .header(CALL_HEADER, name)
                .header("authorization", "Bearer sk-bench")
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
                .expect("send");
            let mut events = eventsource_stream::EventStream::new(response.bytes_stream()).boxed();
            while let Some(event) = events.next().await {
                let event = event.expect("event");
                if event.data == "[DONE]" || event.event == "message_stop" {
                    break;
                }
                match shape {
                    Shape::OpenAi => {
                        let chunk: WireChunk = serde_json::from_str(&event.data).expect("chunk");
                        for choice in chunk.choices.unwrap_or_default() {
                            if let Some(content) = choice.delta.and_then(|delta| delta.content) {
                                read += content.len() as u64;
                            }
                        }
                    }
                    Shape::Anthropic => {
                        let chunk: AnthropicChunk =
                            serde_json::from_str(&event.data).expect("chunk");
                        if let Some(text) = chunk.delta.and_then(|delta| delta.text) {
                            read += text.len() as u64;
                        }
                    }
                }
            }
        }
        read
    })
}

// ---- running the clients ------------------------------------------------------------

/// CPU time and peak resident set of a process.
#[derive(Clone, Copy, Debug)]
struct Cost {
    cpu: Duration,
    peak_rss_kb: u64,
}

fn timeval(time: libc::timeval) -> Duration {
    Duration::from_secs(time.tv_sec as u64) + Duration::from_micros(time.tv_usec as u64)
}

/// Waits for `child` with `wait4`, for its resource usage.
fn wait_cost(child: std::process::Child) -> (i32, Cost) {
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // The peak is read from /proc while the child runs: wait4's ru_maxrss
    // also counts the memory of this process at the fork (Linux keeps the
    // larger of the two across exec), so a small child reports the bench's
    // own size.
    let mut peak_kb = 0;
    loop {
        peak_kb = peak_kb.max(proc_peak_rss_kb(pid as u32));
        // SAFETY: `pid` is our own child, not yet reaped; the pointers are valid.
        let reaped = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if reaped == pid {
            break;
        }
        assert_eq!(reaped, 0, "wait4");
        std::thread::sleep(Duration::from_millis(5));
    }
    std::mem::forget(child);
    (
        libc::WEXITSTATUS(status),
        Cost {
            cpu: timeval(usage.ru_utime) + timeval(usage.ru_stime),
            peak_rss_kb: peak_kb,
        },
    )
}

/// User + system time of a running process, from `/proc/PID/stat`.
fn proc_cpu(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("proc stat");
    let fields: Vec<&str> = stat[stat.rfind(')').expect("comm") + 2..]
        .split_whitespace()
        .collect();
    // Fields 14 and 15 of stat(5), counted after the command name.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    Duration::from_secs_f64(ticks as f64 / per_second as f64)
}

/// The peak RSS of a running process, from `/proc/PID/status`; 0 once it
/// has exited.
fn proc_peak_rss_kb(pid: u32) -> u64 {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return 0;
    };
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn isolated(command: &mut Command, dir: &Path, base_url: &str) {
    support::isolate(command, dir)
        .env("OPENAI_BASE_URL", base_url)
        .env("OPENAI_API_KEY", "sk-bench")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
}

fn run_bare(base_url: &str, calls: &[(String, usize)]) -> Cost {
    run_bare_shaped(base_url, Shape::OpenAi, calls)
}

fn run_bare_shaped(base_url: &str, shape: Shape, calls: &[(String, usize)]) -> Cost {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut command = Command::new(std::env::current_exe().expect("this bench"));
    isolated(&mut command, dir.path(), base_url);
    command.arg("--bare").arg(base_url).arg(shape.name());
    for (call, bytes) in calls {
        command.arg(format!("{call}={bytes}"));
    }
    let (code, cost) = wait_cost(command.spawn().expect("bare client starts"));
    assert_eq!(code, 0, "the bare client failed");
    cost
}

fn run_headless(base_url: &str) -> Cost {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let mut command = Command::new(env!("CARGO_BIN_EXE_quorum"));
    isolated(&mut command, dir.path(), base_url);
    command.args([
        "review",
        TOPIC,
        "--headless",
        "--out",
        out.to_str().unwrap(),
        "--agent",
        "default=openai:test-model",
    ]);
    let (code, cost) = wait_cost(command.spawn().expect("quorum starts"));
    assert_eq!(code, 0, "the headless debate should end in ADOPT");
    cost
}

fn run_interface(base_url: &str) -> Cost {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut run = PtyRun::spawn_with_env(
        &[
            "review",
            TOPIC,
            "--out",
            "out",
            "--agent",
            "default=openai:test-model",
            "--moderation",
            "accept",
        ],
        dir.path(),
        COLUMNS,
        ROWS,
        &[
            ("OPENAI_BASE_URL", base_url),
            ("OPENAI_API_KEY", "sk-bench"),
        ],
    );
    run.wait_for("Written to", RUN_LIMIT);
    let pid = run.pid();
    let cost = Cost {
        cpu: proc_cpu(pid),
        peak_rss_kb: proc_peak_rss_kb(pid),
    };
    run.send("q");
    run.wait_exit(RUN_LIMIT);
    cost
}

// ---- start-up -----------------------------------------------------------------------

/// From just before the exec of `quorum demo` in a pty to the end of its
/// first frame.
fn startup_once() -> Duration {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    let dir = tempfile::tempdir().expect("tempdir");
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: ROWS,
            cols: COLUMNS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("pty");
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_quorum"));
    command.args(["demo", "--out", "out"]);
    command.cwd(dir.path());
    command.env_clear();
    command.env("TERM", "xterm-256color");
    command.env("LANG", "C.UTF-8");
    command.env("HOME", dir.path());
    command.env("XDG_CONFIG_HOME", dir.path().join(".config"));
    command.env("XDG_STATE_HOME", dir.path().join(".state"));
    let mut reader = pair.master.try_clone_reader().expect("reader");
    let started = Instant::now();
    let mut child = pair.slave.spawn_command(command).expect("quorum starts");
    drop(pair.slave);
    let mut seen = Vec::new();
    let mut buffer = [0u8; 8192];
    let elapsed = loop {
        let read = reader.read(&mut buffer).unwrap_or(0);
        assert!(read > 0, "quorum closed the terminal before drawing");
        seen.extend_from_slice(&buffer[..read]);
        if seen
            .windows(FRAME_END.len())
            .any(|window| window == FRAME_END)
        {
            break started.elapsed();
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    elapsed
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|arg| arg == "--bare") {
        let shape = match args[at + 2].as_str() {
            "anthropic" => Shape::Anthropic,
            _ => Shape::OpenAi,
        };
        bare_client(&args[at + 1], shape, &args[at + 3..]);
        return;
    }
    if args.iter().any(|arg| arg == "paced") {
        paced(&args);
        return;
    }
    // `-- serve [--gap-ms G] [--lead-kb L] [--other-kb O]`: the paced server
    // alone, to watch a client with strace or perf; prints its base URL.
    if args.iter().any(|arg| arg == "serve") {
        let (runtime, server, _) = paced_server(&args);
        println!("{}", server.base_url);
        runtime.block_on(std::future::pending::<()>());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let server = runtime.block_on(start_server());
    // `-- headless` or `-- interface`: one run of that client alone, to profile.
    if let Some(only) = args
        .iter()
        .skip(1)
        .find(|arg| *arg == "headless" || *arg == "interface")
    {
        let cost = if only == "headless" {
            run_headless(&server.base_url)
        } else {
            run_interface(&server.base_url)
        };
        let (bytes, _) = server.take();
        println!(
            "{only}: {:.3} CPU s/MB",
            cost.cpu.as_secs_f64() / (bytes as f64 / MB)
        );
        return;
    }
    println!(
        "streaming: the review demo over OpenAI SSE on 127.0.0.1, {} KB to the proposal and \
         {} KB to each other call, {CHUNK_CHARS}-char events; {REPS} runs of each client",
        LEAD_TEXT_BYTES >> 10,
        OTHER_TEXT_BYTES >> 10
    );
    let mut per_mb = [Vec::new(), Vec::new(), Vec::new()];
    let mut interface_peak = Vec::new();
    let mut calls = Vec::new();
    for rep in 0..REPS {
        let headless = run_headless(&server.base_url);
        let (headless_bytes, headless_calls) = server.take();
        if rep == 0 {
            calls = headless_calls;
        }
        let bare = run_bare(&server.base_url, &calls);
        let (bare_bytes, _) = server.take();
        let interface = run_interface(&server.base_url);
        let (interface_bytes, _) = server.take();
        for (slot, (cost, bytes)) in [
            (bare, bare_bytes),
            (headless, headless_bytes),
            (interface, interface_bytes),
        ]
        .into_iter()
        .enumerate()
        {
            per_mb[slot].push(cost.cpu.as_secs_f64() / (bytes as f64 / MB));
        }
        interface_peak.push(interface.peak_rss_kb as f64 / 1024.0);
        println!(
            "  run {}: CPU s/MB bare {:.3}, headless {:.3}, interface {:.3} \
             ({:.2} MB streamed per run, {} calls)",
            rep + 1,
            per_mb[0][rep],
            per_mb[1][rep],
            per_mb[2][rep],
            headless_bytes as f64 / MB,
            calls.len(),
        );
    }
    // Each run's clients ran back to back, so each run's ratio is taken
    // before the median: a slow spell of the machine moves all three.
    let mut ratios = [1, 2].map(|slot| {
        (0..REPS)
            .map(|rep| per_mb[slot][rep] / per_mb[0][rep])
            .collect::<Vec<_>>()
    });
    let [bare, headless, interface] = per_mb.map(|mut values| median(&mut values));
    println!(
        "  CPU s/MB (medians)   bare {bare:.3}   headless {headless:.3}   interface {interface:.3}"
    );
    println!(
        "  headless / bare = {:.2} (target ≤ 1.3)   interface / bare = {:.2} (target ≤ 2): \
         medians of each run's ratio",
        median(&mut ratios[0]),
        median(&mut ratios[1])
    );
    println!(
        "  interface peak resident set (VmHWM): {:.1} MB",
        median(&mut interface_peak)
    );

    let mut startups: Vec<f64> = (0..STARTUP_RUNS)
        .map(|_| startup_once().as_secs_f64() * 1000.0)
        .collect();
    startups.sort_by(f64::total_cmp);
    println!(
        "  start-up, exec to first frame in a {COLUMNS}×{ROWS} pty: median {:.1} ms, \
         p90 {:.1} ms, min {:.1} ms (target ≤ 30 ms)",
        startups[STARTUP_RUNS / 2],
        startups[STARTUP_RUNS * 9 / 10],
        startups[0],
    );
    drop(runtime);
}

/// The key probe's figures, in one line.
fn print_keys(keys: &mut [f64]) {
    if keys.is_empty() {
        return;
    }
    keys.sort_by(f64::total_cmp);
    let at = |share: f64| keys[((keys.len() - 1) as f64 * share) as usize];
    println!(
        "    {:<42} key → frame of {} keys: median {:.1} ms, p99 {:.1} ms, max {:.1} ms \
         (target p99 ≤ 16 ms)",
        Reader::InterfaceKeys.label(),
        keys.len(),
        at(0.5),
        at(0.99),
        at(1.0),
    );
}

// ---- paced: a real server's pacing (issue 32) ---------------------------------------

/// Who reads a paced stream.
#[derive(Clone, Copy)]
enum Reader {
    /// This bench's reqwest loop, reading each chunk as it arrives.
    Naive,
    /// `curl -N`, dropping the bytes.
    Curl,
    /// quorum headless, reading as soon as bytes arrive (`Some(0)`) or at
    /// its own read interval (`None`).
    Headless(Option<u64>),
    /// quorum in a 200×60 pty, likewise.
    Interface(Option<u64>),
    /// quorum in a 200×60 pty at its default pace, the help opened and
    /// closed by key every [`KEY_PROBE_EVERY`] while answers stream: the
    /// time from each key to the frame that shows its effect (issue 56).
    /// Its CPU is not comparable (the help over the panes is redrawn whole).
    InterfaceKeys,
}

/// How often the key probe presses a key.
const KEY_PROBE_EVERY: Duration = Duration::from_millis(250);
/// The help's title: what the key probe waits to see come and go.
const HELP_TITLE: &str = "Keys — Esc closes";

impl Reader {
    fn label(self) -> String {
        let interval = |ms: Option<u64>| match ms {
            Some(0) => "reading every arrival".to_string(),
            Some(ms) => format!("reading every {ms} ms"),
            None => "paced (its default)".to_string(),
        };
        match self {
            Reader::Naive => "naive reqwest loop".into(),
            Reader::Curl => "curl -N".into(),
            Reader::Headless(ms) => format!("quorum headless, {}", interval(ms)),
            Reader::Interface(ms) => format!("quorum interface, {}", interval(ms)),
            Reader::InterfaceKeys => "quorum interface, keys pressed".into(),
        }
    }
}

/// The environment and arguments that point quorum's agents at the bench
/// server in `shape`, with `read_interval_ms` if given.
fn quorum_setup(
    dir: &Path,
    base_url: &str,
    shape: Shape,
    read_interval_ms: Option<u64>,
) -> (Vec<(String, String)>, Vec<String>) {
    let mut env = vec![
        ("OPENAI_BASE_URL".to_string(), base_url.to_string()),
        ("OPENAI_API_KEY".to_string(), "sk-bench".to_string()),
        ("ANTHROPIC_API_KEY".to_string(), "sk-ant-bench".to_string()),
    ];
    if let Some(ms) = read_interval_ms {
        env.push(("QUORUM_READ_INTERVAL_MS".to_string(), ms.to_string()));
    }
    let mut args = Vec::new();
    match shape {
        Shape::OpenAi => args.extend(["--agent".into(), "default=openai:test-model".into()]),
        Shape::Anthropic => {
            let config = dir.join("config.yaml");
            std::fs::write(
                &config,
                format!(
                    "providers:\n  anthropic: {{ base_url: \"{}\" }}\n",
                    base_url.trim_end_matches("/v1")
                ),
            )
            .expect("write the bench config");
            args.extend([
                "--config".into(),
                config.display().to_string(),
                "--agent".into(),
                "default=anthropic:test-model".into(),
            ]);
        }
    }
    (env, args)
}

fn run_quorum_headless(base_url: &str, shape: Shape, read_interval_ms: Option<u64>) -> Cost {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let (env, extra) = quorum_setup(dir.path(), base_url, shape, read_interval_ms);
    let mut command = Command::new(env!("CARGO_BIN_EXE_quorum"));
    isolated(&mut command, dir.path(), base_url);
    command
        .envs(env)
        .args(["review", TOPIC, "--headless", "--out"]);
    command.arg(&out).args(extra);
    let (code, cost) = wait_cost(command.spawn().expect("quorum starts"));
    assert_eq!(code, 0, "the headless debate should end in ADOPT");
    cost
}

/// When each heading (`Consideration N`) first showed on a screen, by N.
type Seen = std::collections::HashMap<u32, Instant>;

/// Records in `seen` the headings `screen` shows that it had not shown
/// before. A heading whose number is still arriving shows a prefix of it,
/// but the smaller number that prefix reads as has shown long before.
fn note_headings(screen: &vt100::Screen, at: Instant, seen: &mut Seen) {
    let text = screen.contents();
    for (found, _) in text.match_indices(HEADING) {
        let rest = &text[found + HEADING.len()..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if let Ok(number) = rest[..digits].parse() {
            seen.entry(number).or_insert(at);
        }
    }
}

/// The arguments and environment of `quorum review` in a pty against the
/// bench server, moderated by the accept policy.
fn interface_command(
    dir: &Path,
    base_url: &str,
    shape: Shape,
    read_interval_ms: Option<u64>,
) -> (Vec<String>, Vec<(String, String)>) {
    let (env, extra) = quorum_setup(dir, base_url, shape, read_interval_ms);
    let mut args: Vec<String> = ["review", TOPIC, "--out", "out", "--moderation", "accept"]
        .into_iter()
        .map(String::from)
        .collect();
    args.extend(extra);
    (args, env)
}

/// What the key probe saw: when the help was last seen shown and hidden.
#[derive(Default)]
struct HelpSeen {
    shown: Option<Instant>,
    hidden: Option<Instant>,
}

/// quorum in a pty while the key probe presses `?` (open the help) and
/// `?` again (close it) every [`KEY_PROBE_EVERY`] until the verdict: the
/// milliseconds from each key to the first screen showing its effect.
fn run_quorum_keys(base_url: &str, shape: Shape) -> Vec<f64> {
    let dir = tempfile::tempdir().expect("tempdir");
    let (args, env) = interface_command(dir.path(), base_url, shape, None);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let env: Vec<(&str, &str)> = env.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let help = Arc::new(Mutex::new(HelpSeen::default()));
    let watch = {
        let help = Arc::clone(&help);
        move |screen: &vt100::Screen, at: Instant| {
            let shown = screen.contents().contains(HELP_TITLE);
            let mut help = help.lock().unwrap();
            if shown {
                help.shown.get_or_insert(at);
            } else {
                help.hidden.get_or_insert(at);
            }
        }
    };
    let mut run = PtyRun::spawn_watching(&args, dir.path(), COLUMNS, ROWS, &env, watch);
    run.wait_for("Proposer", Duration::from_secs(60));
    let mut latencies = Vec::new();
    let started = Instant::now();
    while !run.screen_text().contains("Written to") && started.elapsed() < RUN_LIMIT {
        for opening in [true, false] {
            std::thread::sleep(KEY_PROBE_EVERY);
            {
                let mut help = help.lock().unwrap();
                if opening {
                    help.shown = None;
                } else {
                    help.hidden = None;
                }
            }
            let pressed = Instant::now();
            run.send("?");
            let deadline = pressed + Duration::from_secs(2);
            loop {
                let seen = {
                    let help = help.lock().unwrap();
                    if opening { help.shown } else { help.hidden }
                };
                if let Some(at) = seen.filter(|at| *at >= pressed) {
                    latencies.push(at.duration_since(pressed).as_secs_f64() * 1000.0);
                    break;
                }
                if Instant::now() > deadline {
                    break;
                }
                std::thread::sleep(Duration::from_micros(200));
            }
        }
    }
    run.send_escape();
    run.wait_for("Written to", Duration::from_secs(1800));
    run.send("q");
    run.wait_exit(RUN_LIMIT);
    latencies
}

fn run_quorum_interface(
    base_url: &str,
    shape: Shape,
    read_interval_ms: Option<u64>,
) -> (Cost, Seen) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (args, env) = interface_command(dir.path(), base_url, shape, read_interval_ms);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let env: Vec<(&str, &str)> = env.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let seen = Arc::new(Mutex::new(Seen::new()));
    let watch = {
        let seen = Arc::clone(&seen);
        move |screen: &vt100::Screen, at: Instant| {
            note_headings(screen, at, &mut seen.lock().unwrap());
        }
    };
    let mut run = PtyRun::spawn_watching(&args, dir.path(), COLUMNS, ROWS, &env, watch);
    run.wait_for("Written to", Duration::from_secs(1800));
    let pid = run.pid();
    let cost = Cost {
        cpu: proc_cpu(pid),
        peak_rss_kb: proc_peak_rss_kb(pid),
    };
    run.send("q");
    run.wait_exit(RUN_LIMIT);
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    (cost, seen)
}

/// Prints what the interface itself costs: its CPU per MB less that of
/// quorum headless reading at the interface's pace, which reads, parses,
/// journals and runs the debate as the interface's process does, and
/// neither lays out nor draws. Per run, then the median; printed when both
/// readers ran (`--readers headless-frames,interface`).
fn own_share(readers: &[Reader], per_mb: &[Vec<f64>]) {
    let slot = |wanted: fn(&Reader) -> bool| readers.iter().position(wanted);
    let (Some(interface), Some(headless)) = (
        slot(|reader| matches!(reader, Reader::Interface(None))),
        slot(|reader| {
            matches!(reader, Reader::Headless(Some(ms))
                if *ms == quorum::agent::http::paced::READ_INTERVAL_MS)
        }),
    ) else {
        return;
    };
    let naive = &per_mb[0];
    let mut own: Vec<f64> = per_mb[interface]
        .iter()
        .zip(&per_mb[headless])
        .map(|(interface, headless)| interface - headless)
        .collect();
    let mut ratios: Vec<f64> = own
        .iter()
        .zip(naive)
        .map(|(own, naive)| own / naive)
        .collect();
    let mut floor: Vec<f64> = per_mb[headless]
        .iter()
        .zip(naive)
        .map(|(headless, naive)| headless / naive)
        .collect();
    println!(
        "    {:<42} {:>7.3} CPU s/MB   {:>5.2}× naive   (the interface less headless at its \
         pace, {:.2}× naive)",
        "the interface's own work",
        median(&mut own),
        median(&mut ratios),
        median(&mut floor),
    );
}

/// Milliseconds from each heading's last byte written to its first showing
/// on screen, sorted; and how many headings never showed.
fn arrival_to_drawn(written: &[(u32, Instant)], seen: &Seen) -> (Vec<f64>, usize) {
    let mut latencies: Vec<f64> = written
        .iter()
        .filter_map(|(number, at)| {
            let shown = seen.get(number)?;
            Some(shown.saturating_duration_since(*at).as_secs_f64() * 1000.0)
        })
        .collect();
    latencies.sort_by(f64::total_cmp);
    let missed = written.len() - latencies.len();
    (latencies, missed)
}

/// `curl -N` on each call in turn, with a body of the same size; the CPU
/// of all of them.
fn run_curl(base_url: &str, shape: Shape, calls: &[(String, usize)]) -> Cost {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut total = Cost {
        cpu: Duration::ZERO,
        peak_rss_kb: 0,
    };
    for (call, body_bytes) in calls {
        let pad = body_bytes.saturating_sub(80);
        let body = serde_json::to_vec(&json!({"model": "test-model", "stream": true,
            "max_tokens": 8192, "messages": [{"role": "user", "content": "p".repeat(pad)}]}))
        .expect("json");
        let file = dir.path().join("body.json");
        std::fs::write(&file, body).expect("write the body");
        let mut command = Command::new("curl");
        command
            .args(["-N", "-s", "-o", "/dev/null", "-X", "POST"])
            .arg("--data-binary")
            .arg(format!("@{}", file.display()))
            .args(["-H", "content-type: application/json"])
            .args(["-H", "authorization: Bearer sk-bench"])
            .args(["-H", "anthropic-version: 2023-06-01"])
            .arg("-H")
            .arg(format!("{CALL_HEADER}: {call}"))
            .arg(format!("{base_url}{}", shape.path()))
            .stdin(Stdio::null());
        let (code, cost) = wait_cost(command.spawn().expect("curl starts"));
        assert_eq!(code, 0, "curl failed");
        total.cpu += cost.cpu;
        total.peak_rss_kb = total.peak_rss_kb.max(cost.peak_rss_kb);
    }
    total
}

fn curl_present() -> bool {
    Command::new("curl")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// The value after `flag` in `args`, if any.
fn flag_value<T: std::str::FromStr>(args: &[String], flag: &str) -> Option<T> {
    let at = args.iter().position(|arg| arg == flag)?;
    args.get(at + 1)?.parse().ok()
}

/// How the paced server writes, from `--gap-ms`, `--lead-kb`, `--other-kb`.
struct Pacing {
    gap_ms: f64,
    lead_kb: u64,
    other_kb: u64,
}

/// The bench server on its runtime, paced as `args` say.
fn paced_server(args: &[String]) -> (tokio::runtime::Runtime, Server, Pacing) {
    let pacing = Pacing {
        gap_ms: flag_value(args, "--gap-ms").unwrap_or(1.0),
        lead_kb: flag_value(args, "--lead-kb").unwrap_or(1024),
        other_kb: flag_value(args, "--other-kb").unwrap_or(32),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let server = runtime.block_on(start_server());
    let state = &server.state;
    state
        .gap_us
        .store((pacing.gap_ms * 1000.0) as u64, Ordering::Relaxed);
    state
        .lead_bytes
        .store(pacing.lead_kb << 10, Ordering::Relaxed);
    state
        .other_bytes
        .store(pacing.other_kb << 10, Ordering::Relaxed);
    (runtime, server, pacing)
}

/// `cargo bench --bench streaming -- paced [--gap-ms 1] [--lead-kb 1024]
/// [--other-kb 32] [--reps 1]`: the review demo streamed by a server that
/// writes each event as its own TCP segment, `--gap-ms` apart, in OpenAI's
/// and Anthropic's event shapes; the CPU per MB of text of each reader, in
/// one run, and each reader's ratio to the naive client's; and for the
/// interface, the time from the server writing the last byte of each of
/// the proposal's headings to the pty first showing it.
fn paced(args: &[String]) {
    let (runtime, server, pacing) = paced_server(args);
    let Pacing {
        gap_ms,
        lead_kb,
        other_kb,
    } = pacing;
    let reps: usize = flag_value(args, "--reps").unwrap_or(1);
    // `--readers curl,headless,...`: the readers to run besides the naive
    // one, which every ratio needs (all of them by default).
    let chosen: Option<String> = flag_value(args, "--readers");
    let mut readers = vec![Reader::Naive];
    for (name, reader) in [
        ("curl", Reader::Curl),
        ("headless-every", Reader::Headless(Some(0))),
        ("headless", Reader::Headless(None)),
        // Headless at the interface's read pace: everything the interface
        // process does but the interface itself (see `own_share`).
        (
            "headless-frames",
            Reader::Headless(Some(quorum::agent::http::paced::READ_INTERVAL_MS)),
        ),
        ("interface-every", Reader::Interface(Some(0))),
        ("interface", Reader::Interface(None)),
        ("keys", Reader::InterfaceKeys),
    ] {
        let wanted = chosen
            .as_deref()
            .is_none_or(|chosen| chosen.split(',').any(|one| one == name));
        if wanted && (name != "curl" || curl_present()) {
            readers.push(reader);
        }
    }
    // `--shape openai` or `--shape anthropic`: one event shape (both by default).
    let shape: Option<String> = flag_value(args, "--shape");
    let shapes: Vec<Shape> = [Shape::OpenAi, Shape::Anthropic]
        .into_iter()
        .filter(|one| {
            shape
                .as_deref()
                .is_none_or(|name| one.name().eq_ignore_ascii_case(name))
        })
        .collect();
    println!(
        "streaming, paced: the review demo, one SSE event of {CHUNK_CHARS} characters per \
         TCP segment, {gap_ms} ms apart on a fixed schedule, {lead_kb} KB \
         to the proposal and {other_kb} KB to each other call; {reps} run(s) of each reader"
    );
    for shape in shapes {
        // The calls quorum makes, for the clients that do not choose them.
        run_quorum_headless(&server.base_url, shape, None);
        let (_, calls) = server.take();
        let mut per_mb: Vec<Vec<f64>> = vec![Vec::new(); readers.len()];
        let mut peaks: Vec<Vec<f64>> = vec![Vec::new(); readers.len()];
        // Arrival → drawn of the proposal's headings, per interface reader.
        let mut drawn: Vec<(Vec<f64>, usize)> = vec![(Vec::new(), 0); readers.len()];
        // Key → frame, of the key probe.
        let mut keys: Vec<f64> = Vec::new();
        for _ in 0..reps {
            for (slot, reader) in readers.iter().enumerate() {
                server.take_written();
                let cost = match *reader {
                    Reader::Naive => run_bare_shaped(&server.base_url, shape, &calls),
                    Reader::Curl => run_curl(&server.base_url, shape, &calls),
                    Reader::Headless(ms) => run_quorum_headless(&server.base_url, shape, ms),
                    Reader::Interface(ms) => {
                        let (cost, seen) = run_quorum_interface(&server.base_url, shape, ms);
                        let (latencies, missed) = arrival_to_drawn(&server.take_written(), &seen);
                        drawn[slot].0.extend(latencies);
                        drawn[slot].1 += missed;
                        cost
                    }
                    Reader::InterfaceKeys => {
                        keys.extend(run_quorum_keys(&server.base_url, shape));
                        server.take();
                        continue;
                    }
                };
                let (bytes, _) = server.take();
                per_mb[slot].push(cost.cpu.as_secs_f64() / (bytes as f64 / MB));
                peaks[slot].push(cost.peak_rss_kb as f64 / 1024.0);
            }
        }
        // Each run's readers ran back to back: ratios per run, then medians.
        let naive: Vec<f64> = per_mb[0].clone();
        println!("  {} event shape:", shape.name());
        for (slot, reader) in readers.iter().enumerate() {
            if per_mb[slot].is_empty() {
                continue;
            }
            let mut ratios: Vec<f64> = per_mb[slot]
                .iter()
                .zip(&naive)
                .map(|(own, naive)| own / naive)
                .collect();
            println!(
                "    {:<42} {:>7.3} CPU s/MB   {:>5.2}× naive   peak RSS {:>5.1} MB",
                reader.label(),
                median(&mut per_mb[slot].clone()),
                median(&mut ratios),
                median(&mut peaks[slot]),
            );
        }
        own_share(&readers, &per_mb);
        for (slot, reader) in readers.iter().enumerate() {
            let (latencies, missed) = &mut drawn[slot];
            if latencies.is_empty() {
                continue;
            }
            latencies.sort_by(f64::total_cmp);
            let at = |share: f64| latencies[((latencies.len() - 1) as f64 * share) as usize];
            println!(
                "    {:<42} arrival → drawn of {} headings: median {:.1} ms, p99 {:.1} ms, \
                 max {:.1} ms (target p99 ≤ 40 ms); {} never shown",
                reader.label(),
                latencies.len(),
                at(0.5),
                at(0.99),
                at(1.0),
                missed,
            );
        }
        print_keys(&mut keys);
    }
    drop(runtime);
}
