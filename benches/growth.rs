//! Growth (issue 15): whether the time quorum adds per event stays flat as
//! a debate grows. A high-stakes decision review (five judges) over three
//! evaluation rounds against scripted agents whose every answer carries
//! [`ANSWER_BYTES`] of markdown, streamed in [`CHUNK_CHARS`]-character
//! chunks; the engine runs as in the binary (one current-thread runtime).
//!
//! The engine marks its own work with `debug` spans (`quorum_event` around
//! each message it takes from its inbox, `quorum_documents` around each
//! rewrite of the artifact files, `quorum_stream_flush` around journaling
//! streamed batches that fell due); a layer here times them. The debate's
//! events are cut into [`SEGMENTS`] equal runs in order, and each run shows
//! the text streamed by its end, the time per KB of streamed text the
//! engine took (journal batches, updates), the mean time per input (journal
//! fsync, raw file, the protocol) and per rewrite of the artifact files.
//! Flat means the late runs cost what the early ones did; a rewrite of a
//! growing file shows up as a mean that climbs with the text held.
//!
//! Numbers, not assertions. Run with `cargo bench --bench growth`.

#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use quorum::agent::script::{Script, ScriptAgent};
use quorum::artifact::{Journal, RunDir};
use quorum::engine::{Engine, ModerationPolicy, Moderator, RoleAgent, Roster};
use quorum::prompts::PromptSet;
use quorum::protocol::decision_review::model::{CritiqueMode, JudgeRole, architecture_panel};
use quorum::protocol::decision_review::verdict::Thresholds;
use quorum::protocol::decision_review::{
    DecisionReview, Participants, ReviewConfig, ReviewMode, judge_slot_role,
};
use tracing::span;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// Markdown before the structured part of every answer, in bytes.
const ANSWER_BYTES: usize = 1 << 20;
/// Characters per streamed chunk.
const CHUNK_CHARS: usize = 64;
/// Streaming pace of every agent, in characters per second.
const CHARS_PER_SECOND: u32 = 2_000_000;
/// Evaluation rounds: the first ones end in REVISE, the last in ADOPT.
const ROUNDS: u32 = 3;
/// Dissent items a REVISE round of flat 2s leaves (four blocks, five judges).
const DISSENT_ITEMS: usize = 21;
/// Runs of the debate's events shown.
const SEGMENTS: usize = 10;

/// What the layer saw: `(span name, busy time, its `bytes` field)`.
type Spans = Arc<Mutex<Vec<(&'static str, Duration, u64)>>>;

struct Timing(Spans);

struct Entered(Instant, Duration);

/// A span's `bytes` field: the streamed text a message carried.
struct Bytes(u64);

impl tracing::field::Visit for Bytes {
    fn record_u64(&mut self, field: &tracing::field::Field, value: u64) {
        if field.name() == "bytes" {
            self.0 = value;
        }
    }

    fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn std::fmt::Debug) {}
}

impl<S> tracing_subscriber::Layer<S> for Timing
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &span::Attributes<'_>, id: &span::Id, ctx: Context<'_, S>) {
        let mut bytes = Bytes(0);
        attrs.record(&mut bytes);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(bytes);
        }
    }

    fn on_enter(&self, id: &span::Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id) {
            let mut extensions = span.extensions_mut();
            let busy = extensions
                .remove::<Entered>()
                .map_or(Duration::ZERO, |entered| entered.1);
            extensions.insert(Entered(Instant::now(), busy));
        }
    }

    fn on_exit(&self, id: &span::Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(entered) = span.extensions_mut().get_mut::<Entered>()
        {
            entered.1 += entered.0.elapsed();
        }
    }

    fn on_close(&self, id: span::Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(&id) {
            let extensions = span.extensions();
            let busy = extensions
                .get::<Entered>()
                .map_or(Duration::ZERO, |entered| entered.1);
            let bytes = extensions.get::<Bytes>().map_or(0, |bytes| bytes.0);
            self.0.lock().unwrap().push((span.name(), busy, bytes));
        }
    }
}

fn padded(text: &str) -> String {
    let mut out = String::with_capacity(ANSWER_BYTES + text.len());
    let mut section = 0;
    while out.len() < ANSWER_BYTES {
        section += 1;
        out.push_str(&format!(
            "## Note {section}\n\nThe **ledger** keeps `event_id` ordering; the projection \
             replays from the snapshot, and the *outbox* stays idempotent under retry.\n\n\
             - risk: the backfill of tenant {section}\n- check: the proration run\n\n"
        ));
    }
    out.push_str(text);
    out
}

fn script() -> Script {
    let ids: Vec<String> = support::critique_ids(4);
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut builder = support::ScriptBuilder::default()
        .reply(
            "proposer",
            "proposal",
            None,
            None,
            &padded(&support::proposal_text()),
        )
        .reply(
            "critic",
            "critique",
            None,
            None,
            &padded(&support::default_critique()),
        )
        .reply(
            "proposer",
            "revision",
            None,
            None,
            &padded(&support::revision_text(&ids)),
        );
    // A REVISE round leaves the judges' dissent (d1, d2, …) to address.
    let dissent: Vec<String> = (1..=DISSENT_ITEMS).map(|n| format!("d{n}")).collect();
    let dissent: Vec<&str> = dissent.iter().map(String::as_str).collect();
    for round in 2..=ROUNDS {
        builder = builder.reply(
            "proposer",
            "revision",
            Some(round),
            None,
            &padded(&support::revision_text(&dissent)),
        );
    }
    for role in JudgeRole::ALL {
        builder = builder.reply(
            &format!("judge.{role}"),
            "evaluation",
            None,
            None,
            &padded(&support::flat_judge_text(role, 4)),
        );
        for round in 1..ROUNDS {
            builder = builder.reply(
                &format!("judge.{role}"),
                "evaluation",
                Some(round),
                None,
                &padded(&support::flat_judge_text(role, 2)),
            );
        }
    }
    let mut script = builder.build();
    script.pace.first_token_ms = 5;
    script.pace.chars_per_second = CHARS_PER_SECOND;
    script.pace.chunk_chars = CHUNK_CHARS;
    script
}

async fn debate(root: &std::path::Path) -> String {
    let panel = architecture_panel(true);
    let script = Arc::new(script());
    let mut roster = Roster::default();
    let roles = ["proposer".to_string(), "critic".to_string()]
        .into_iter()
        .chain(panel.iter().map(|judge| judge_slot_role(judge.role)));
    for role in roles {
        roster.insert(
            role,
            RoleAgent {
                agent: Arc::new(ScriptAgent::new(script.clone(), 1.0)),
                timeout: Duration::from_secs(600),
            },
        );
    }
    let config = ReviewConfig {
        topic: "Does the record stay cheap as the debate grows?".into(),
        context: Vec::new(),
        mode: ReviewMode::Architecture,
        options: Vec::new(),
        critique_mode: CritiqueMode::GenerousSteelman,
        high_stakes: true,
        panel,
        max_rounds: ROUNDS,
        thresholds: Thresholds::default(),
        participants: Participants::default(),
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
    let run_dir = RunDir::create(root, "growth", chrono::Local::now()).expect("run dir");
    let journal = Journal::create(&run_dir.path().join("journal.jsonl")).expect("journal");
    let (updates, mut watch) = tokio::sync::mpsc::unbounded_channel();
    // An interface would read the updates; here they are only drained.
    tokio::spawn(async move { while watch.recv().await.is_some() {} });
    let engine = Engine::new(
        Box::new(DecisionReview::new(config, Arc::new(PromptSet::builtin()))),
        run_dir,
        journal,
        roster,
        Moderator::policy(ModerationPolicy::Accept),
        updates,
    );
    let (outcome, _) = engine.run().await.expect("debate");
    format!("{outcome:?}")
}

fn mean_us(values: &[Duration]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.iter().map(Duration::as_secs_f64).sum::<f64>() * 1e6 / values.len() as f64
}

fn main() {
    let spans: Spans = Arc::default();
    let subscriber = tracing_subscriber::registry()
        .with(Timing(spans.clone()))
        .with(tracing_subscriber::filter::LevelFilter::DEBUG);
    let _guard = tracing::subscriber::set_default(subscriber);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let root = tempfile::tempdir().expect("tempdir");
    let started = Instant::now();
    let outcome = runtime.block_on(debate(root.path()));
    let wall = started.elapsed();
    let spans = spans.lock().unwrap().clone();
    let events: Vec<_> = spans
        .iter()
        .filter(|(name, ..)| name.starts_with("quorum_"))
        .cloned()
        .collect();
    let total: Duration = events.iter().map(|(_, busy, _)| *busy).sum();
    println!(
        "growth: high-stakes review, 5 judges, {ROUNDS} rounds, {} KB per answer in \
         {CHUNK_CHARS}-char chunks; outcome {outcome}; {} engine events, {:.0} ms of engine \
         time in {:.1} s",
        ANSWER_BYTES >> 10,
        events.len(),
        total.as_secs_f64() * 1000.0,
        wall.as_secs_f64()
    );
    println!(
        "  segment  MB held  events   µs per KB streamed (messages)   mean µs: per input   per documents rewrite   per flush"
    );
    let per_segment = events.len().div_ceil(SEGMENTS);
    let mut held = 0u64;
    for (index, segment) in events.chunks(per_segment).enumerate() {
        let of = |name: &str| -> Vec<Duration> {
            segment
                .iter()
                .filter(|(span, ..)| *span == name)
                .map(|(_, busy, _)| *busy)
                .collect()
        };
        let stream_bytes: u64 = segment
            .iter()
            .filter(|(span, ..)| *span == "quorum_stream")
            .map(|(_, _, bytes)| *bytes)
            .sum();
        held += stream_bytes;
        let (streams, inputs, documents, flushes) = (
            of("quorum_stream"),
            of("quorum_input"),
            of("quorum_documents"),
            of("quorum_stream_flush"),
        );
        println!(
            "  {:>7}  {:>7.1}  {:>6}   {:>8.2} ({:>5})   {:>8.0} ({:>3})   {:>8.0} ({:>3})   {:>8.1} ({:>4})",
            index + 1,
            held as f64 / (1u64 << 20) as f64,
            segment.len(),
            streams.iter().map(Duration::as_secs_f64).sum::<f64>() * 1e6
                / (stream_bytes as f64 / 1024.0).max(f64::MIN_POSITIVE),
            streams.len(),
            mean_us(&inputs),
            inputs.len(),
            mean_us(&documents),
            documents.len(),
            mean_us(&flushes),
            flushes.len(),
        );
    }
}
