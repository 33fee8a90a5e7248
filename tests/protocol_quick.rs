//! The quick modes' rules (RULES.md sections 3-8, RF-01..15), checked
//! against the pure state machine: inputs in, effects and documents out, no
//! I/O, no clock, no tokio. Each test names the rules it checks.

use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};
use quorum::prompts::PromptSet;
use quorum::protocol::Questions;
use quorum::protocol::Seating;
use quorum::protocol::fairness::{Fairness, Recusal};
use quorum::protocol::quick::{PANEL, Quick, QuickConfig, QuickMode, roster};
use quorum::protocol::{
    CallFailure, CallSpec, ContextDoc, Document, Effect, Input, ItemDecision, LogKind, Outcome,
    OverrideAction, Protocol,
};

const TOPIC: &str = "How should we fan out notifications to two million users?";
const CONTEXT_TEXT: &str = "Five engineers; one Postgres primary; 2M monthly users.";

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap()
}

fn config(mode: QuickMode) -> QuickConfig {
    let seats = roster(mode);
    let slots = seats.seats().iter().map(|seat| seat.slot.clone());
    QuickConfig {
        mode,
        topic: TOPIC.into(),
        context: vec![ContextDoc {
            name: "team.md".into(),
            text: CONTEXT_TEXT.into(),
        }],
        constraints: if mode == QuickMode::Adversary {
            vec!["Runs in one region".into(), "No new datastore".into()]
        } else {
            Vec::new()
        },
        revision: true,
        seating: Seating {
            agents: slots
                .map(|slot| (slot.clone(), format!("script:{slot}")))
                .collect(),
            started_at: t0(),
            edition: quorum::protocol::Edition::CURRENT,
            ..Default::default()
        },
        checks_rulings: true,
    }
}

/// A synthesizer's reader-first document.
const SYNTHESIS: &str = "The design holds for two million users if fan-out runs through a bounded queue with per-tenant limits.\n\n## What holds\n\nThe queue.\n\n## What is open\n\nBackpressure.\n";

/// A red-team synthesis that follows a triage accepting every finding: the
/// same opening, each finding under a heading naming its id.
const REDTEAM_SYNTHESIS: &str = "The design holds for two million users if fan-out runs through a bounded queue with per-tenant limits.\n\n## Vulnerabilities, most severe first\n\n### Critical: SQL injection in search [v3]\nx\n\n### High: replayable reset links [v1]\nx\n\n### Medium: user enumeration [v2]\nx\n";

/// A red team's report with three findings.
const REPORT: &str = "Report.\n\n```yaml\nvulnerabilities:\n  - title: \"Replayable reset links\"\n    severity: high\n    description: \"Links live for a day.\"\n    exploit: \"Reuse a leaked link.\"\n  - title: \"User enumeration\"\n    severity: medium\n    exploit: \"Compare response times.\"\n  - title: \"SQL injection in search\"\n    severity: critical\n    exploit: \"The search uses bound parameters; this is not real.\"\n```\n\n## Abuse vectors\n\n...\n";

/// Feeds a quick debate inputs one second apart and keeps its calls.
struct Harness {
    quick: Quick,
    now: DateTime<Utc>,
    live: Vec<CallSpec>,
    started: Vec<CallSpec>,
    /// Most calls live at once.
    most_live: usize,
    finished: Option<Outcome>,
}

impl Harness {
    fn new(config: QuickConfig) -> Harness {
        let mut quick = Quick::new(config, Arc::new(PromptSet::builtin()));
        let effects = quick.start(t0());
        let mut harness = Harness {
            quick,
            now: t0(),
            live: Vec::new(),
            started: Vec::new(),
            most_live: 0,
            finished: None,
        };
        harness.record(effects);
        harness
    }

    fn of(mode: QuickMode) -> Harness {
        Harness::new(config(mode))
    }

    fn record(&mut self, effects: Vec<Effect>) -> Vec<Effect> {
        for effect in &effects {
            match effect {
                Effect::StartCall(spec) => {
                    self.live.push(spec.clone());
                    self.started.push(spec.clone());
                }
                Effect::CancelCall { call_id } => {
                    self.live.retain(|spec| &spec.request.call_id != call_id)
                }
                Effect::Finished(outcome) => self.finished = Some(outcome.clone()),
                Effect::AwaitModeration { .. } => {}
            }
        }
        self.most_live = self.most_live.max(self.live.len());
        effects
    }

    fn send(&mut self, input: Input) -> Vec<Effect> {
        self.now += chrono::Duration::seconds(1);
        if let Input::CallFinished { call_id, .. } | Input::CallFailed { call_id, .. } = &input {
            self.live.retain(|spec| &spec.request.call_id != call_id);
        }
        let effects = self.quick.handle(&input, self.now);
        self.record(effects)
    }

    fn call(&self, role: &str) -> CallSpec {
        self.live
            .iter()
            .find(|spec| spec.request.role == role)
            .cloned()
            .unwrap_or_else(|| panic!("no live call for {role}; live: {:?}", self.live))
    }

    fn prompt(&self, role: &str) -> String {
        self.call(role).request.prompt
    }

    fn finish(&mut self, role: &str, text: &str) -> Vec<Effect> {
        let call_id = self.call(role).request.call_id;
        self.send(Input::CallFinished {
            call_id,
            output: text.into(),
            usage: None,
            usage_estimated: false,
            ttft_ms: None,
            elapsed_ms: 1_000,
        })
    }

    fn time_out(&mut self, role: &str) -> Vec<Effect> {
        let call_id = self.call(role).request.call_id;
        self.send(Input::CallFailed {
            call_id,
            failure: CallFailure::TimedOut {
                after_ms: 600_000,
                staged: false,
            },
            partial_chars: 0,
            elapsed_ms: 600_000,
        })
    }

    /// `path` as the protocol has it: a document, or an answer it keeps
    /// marked.
    fn document(&self, path: &str) -> Option<Document> {
        let kept = self.quick.answer_files().into_iter().find_map(|file| {
            (file.path == path).then(|| Document::new(path, file.for_disk().into_owned()))
        });
        self.quick
            .documents()
            .into_iter()
            .find(|document| document.path == path)
            .or(kept)
    }

    fn file(&self, path: &str) -> String {
        self.document(path)
            .unwrap_or_else(|| panic!("no {path}"))
            .contents
    }

    fn roles_started(&self) -> Vec<&str> {
        self.started
            .iter()
            .map(|spec| spec.request.role.as_str())
            .collect()
    }

    fn completed(&self) -> (String, String) {
        match &self.finished {
            Some(Outcome::Completed { deliverable, note }) => (deliverable.clone(), note.clone()),
            other => panic!("expected a completed debate, got {other:?}"),
        }
    }
}

fn review(role: &str) -> String {
    format!(
        "## Strongest aspect\n\nThe {role} likes the queue.\n\n## Biggest concern\n\nBackpressure.\n\n## One improvement\n\nBound it.\n"
    )
}

// ---- shared rules -----------------------------------------------------------

/// QS-01, QM-08, QM-17: no quick mode derives a verdict; each ends with its
/// document and exits 0.
#[test]
fn qs_01_qm_08_qm_17_no_quick_mode_derives_a_verdict() {
    for mode in QuickMode::ALL {
        let mut h = Harness::of(mode);
        run_to_the_end(&mut h);
        let (deliverable, _) = h.completed();
        assert_eq!(deliverable, mode.deliverable(), "{mode:?}");
        let outcome = h.quick.outcome().unwrap();
        assert_eq!(outcome.verdict(), None);
        assert_eq!(outcome.exit_code(), 0);
        assert!(
            h.quick.board().view.is_none(),
            "{mode:?}: no scores, no score matrix"
        );
        assert!(h.document(mode.deliverable()).is_some(), "{mode:?}");
    }
}

/// Answers every call of a mode's happy path.
fn run_to_the_end(h: &mut Harness) {
    match h.quick.mode() {
        QuickMode::Challenge => {
            h.finish(
                "critic",
                "Points.\n\nBottom line: it holds with a rollback plan.",
            );
        }
        QuickMode::Panel => {
            for role in PANEL {
                h.finish(&format!("judge.{role}"), &review(role.as_str()));
            }
            h.finish("synthesizer", SYNTHESIS);
        }
        QuickMode::Premortem => {
            h.finish("critic", "1. It failed.\n2. Because.\n");
            h.finish("synthesizer", SYNTHESIS);
        }
        QuickMode::Redteam => {
            h.finish("critic", REPORT);
            for id in ["v1", "v2", "v3"] {
                h.send(Input::ItemDecided {
                    item_id: id.into(),
                    decision: ItemDecision::Accept,
                    note: None,
                    ruler: None,
                });
            }
            h.send(Input::ModerationSubmitted);
            h.finish("synthesizer", REDTEAM_SYNTHESIS);
        }
        QuickMode::Adversary => {
            h.finish("proposer", "A queue and workers.");
            h.finish("critic", "The queue is unbounded.");
            h.finish("proposer", "Bounded now.");
            h.finish("synthesizer", SYNTHESIS);
        }
    }
}

/// QS-03, RULES.md A19: each mode's tone line is fixed, literal prompt text.
#[test]
fn qs_03_tone_lines_are_literal_prompt_text() {
    let tone = |mode: QuickMode, role: &str, after: &[(&str, &str)]| {
        let mut h = Harness::of(mode);
        for (role, text) in after {
            h.finish(role, text);
        }
        h.prompt(role)
    };
    assert!(
        tone(QuickMode::Challenge, "critic", &[])
            .contains("TONE: Collaborative-challenge (intensity: 40%)")
    );
    assert!(
        tone(QuickMode::Premortem, "critic", &[]).contains("TONE: Catastrophist (intensity: 80%)")
    );
    assert!(
        tone(QuickMode::Redteam, "critic", &[])
            .contains("TONE: Maximum-adversary (intensity: 90%)")
    );
    assert!(
        tone(QuickMode::Adversary, "critic", &[("proposer", "A design.")])
            .contains("TONE: Generous-adversary (intensity: 60%)")
    );
}

/// QS-04, RULES.md A19: a single agent's raw answer is in the transcript,
/// verbatim, before the reader-first file exists.
#[test]
fn qs_04_raw_single_agent_output_is_kept_before_the_reader_file() {
    let raw = "1. The failure.\n2. ```odd``` fences and all.\n";
    let mut h = Harness::of(QuickMode::Premortem);
    h.finish("critic", raw);
    assert!(h.file("transcript.md").contains(raw.trim_end()));
    assert!(
        h.document("pre-mortem.md").is_none(),
        "the reader file waits for the synthesis"
    );
    h.finish("synthesizer", SYNTHESIS);
    assert!(h.document("pre-mortem.md").is_some());
}

// ---- 1:1 challenge -------------------------------------------------------------

/// QM-01, INF-25: one critic call, no judges, no rounds.
#[test]
fn qm_01_inf_25_a_challenge_is_one_critic_call() {
    let mut h = Harness::of(QuickMode::Challenge);
    assert_eq!(h.roles_started(), ["critic"]);
    h.finish("critic", "Points.\n\nBottom line: it does not hold.");
    assert_eq!(h.roles_started(), ["critic"]);
    assert!(h.finished.is_some());
}

/// QM-02: the challenge prompt carries the position, the context, the tone
/// and the four things to look for, generously.
#[test]
fn qm_02_challenge_prompt_content() {
    let h = Harness::of(QuickMode::Challenge);
    let prompt = h.prompt("critic");
    for needle in [
        TOPIC,
        CONTEXT_TEXT,
        "TONE: Collaborative-challenge (intensity: 40%)",
        "reasoning that does not hold",
        "assumptions the position needs but never states",
        "other explanations",
        "go wrong in practice",
        "Be thorough, and be generous",
    ] {
        assert!(prompt.contains(needle), "lacks {needle:?}:\n{prompt}");
    }
}

/// QM-03, RF-11: the output is transcript.md, headed by the challenge's
/// bottom line, which is also the end-of-run summary.
#[test]
fn qm_03_rf_11_challenge_writes_its_transcript_led_by_the_bottom_line() {
    let mut h = Harness::of(QuickMode::Challenge);
    h.finish(
        "critic",
        "Strong start.\n\nBottom line: the position holds only with a staged rollout.",
    );
    let transcript = h.file("transcript.md");
    let lead = h.quick.summary_lead().unwrap();
    assert_eq!(
        lead,
        "**Bottom line:** the position holds only with a staged rollout."
    );
    assert!(transcript.contains(&lead));
    assert!(transcript.find(&lead) < transcript.find("## Events"));
    assert!(h.document("panel-review.md").is_none());
    let (deliverable, note) = h.completed();
    assert_eq!(deliverable, "transcript.md");
    assert_eq!(note, "the critic's challenge, with its bottom line");

    let mut h = Harness::of(QuickMode::Challenge);
    h.finish("critic", "Points, but no conclusion.");
    assert!(
        h.quick
            .summary_lead()
            .unwrap()
            .starts_with("**No bottom line.**")
    );
}

/// A challenge's transcript reads as its result: the bottom line, then the
/// critique as Markdown (no ```text fence, its headings kept inside its
/// section, raw HTML shown as text), and the event log last.
#[test]
fn a_challenge_transcript_leads_with_the_bottom_line_then_the_critique_then_the_log() {
    let mut h = Harness::of(QuickMode::Challenge);
    h.finish(
        "critic",
        "# My review\n\n**Weak spot:** the rollback is untested.\n\n<!-- note to self\n\n\
         Bottom line: the position holds only with a staged rollout.",
    );
    let transcript = h.file("transcript.md");
    let at = |needle: &str| {
        transcript
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} missing:\n{transcript}"))
    };
    let bottom = at("**Bottom line:** the position holds only with a staged rollout.");
    let critique = at("## The critique");
    let weak_spot = at("**Weak spot:** the rollback is untested.");
    let events = at("## Events");
    assert!(
        bottom < critique && critique < weak_spot && weak_spot < events,
        "{transcript}"
    );
    assert!(
        transcript.rfind("## ").unwrap() == events,
        "the log is the last section"
    );
    assert!(
        transcript[events..].contains("**stage** — stage: challenge"),
        "the events are under their heading:\n{transcript}"
    );
    assert!(!transcript.contains("```text"), "{transcript}");
    assert!(transcript.contains("\n### My review\n"), "{transcript}");
    assert!(!transcript.contains("\n# My review"), "{transcript}");
    assert!(transcript.contains("&lt;!-- note to self"), "{transcript}");
}

// ---- panel review --------------------------------------------------------------

/// QM-04, INF-26: three reviewers, all started at once, none sees another's
/// review (their prompts carry none of it).
#[test]
fn qm_04_inf_26_reviewers_run_in_parallel_and_blind() {
    let mut h = Harness::of(QuickMode::Panel);
    assert_eq!(
        h.roles_started(),
        ["judge.aesthete", "judge.stylist", "judge.analyst"]
    );
    assert_eq!(h.most_live, 3, "all three in flight together");
    h.finish(
        "judge.aesthete",
        "AESTHETE-ONLY-TEXT\n## Strongest aspect\nx",
    );
    for role in ["judge.stylist", "judge.analyst"] {
        assert!(!h.prompt(role).contains("AESTHETE-ONLY-TEXT"));
    }
    assert!(h.live.iter().all(|spec| spec.request.role != "synthesizer"));
}

/// QM-05, INF-22: each reviewer's prompt asks for the three parts from its
/// own perspective.
#[test]
fn qm_05_inf_22_reviewer_prompts_ask_for_three_parts() {
    let h = Harness::of(QuickMode::Panel);
    for (role, focus) in [
        ("judge.aesthete", "elegance"),
        ("judge.stylist", "clarity"),
        ("judge.analyst", "logical rigor"),
    ] {
        let prompt = h.prompt(role);
        for needle in [
            focus,
            "## Strongest aspect",
            "## Biggest concern",
            "## One improvement",
            TOPIC,
        ] {
            assert!(prompt.contains(needle), "{role} lacks {needle:?}");
        }
    }
}

/// QM-06, QM-07, INF-11: each review is persisted to judges/judge-{role}.md
/// (no round suffix) before the synthesis; the output is panel-review.md.
#[test]
fn qm_06_qm_07_inf_11_reviews_are_persisted_before_the_synthesis() {
    let mut h = Harness::of(QuickMode::Panel);
    for spec in &h.live {
        let role = spec.request.role.trim_start_matches("judge.");
        assert_eq!(
            spec.raw_output_path.as_deref(),
            Some(format!("judges/judge-{role}.md").as_str()),
            "the engine writes it before the protocol reads it"
        );
    }
    for role in PANEL {
        h.finish(&format!("judge.{role}"), &review(role.as_str()));
    }
    assert!(
        h.document("judges/judge-analyst.md").is_none(),
        "a review is the engine's file, written once as it came, not a document"
    );
    let synthesis = h.prompt("synthesizer");
    assert!(synthesis.contains("The analyst likes the queue."));
    h.finish("synthesizer", SYNTHESIS);
    let panel = h.file("panel-review.md");
    assert!(panel.starts_with(&format!("# Panel review — {TOPIC}\n\n")));
    assert!(panel.contains("`judges/judge-stylist.md`"));
}

/// QM-09, INF-13, INF-17: a reviewer that times out twice is skipped and
/// noted; the synthesis goes on with the others and says one is missing.
#[test]
fn qm_09_inf_13_a_skipped_reviewer_does_not_stop_the_synthesis() {
    let mut h = Harness::of(QuickMode::Panel);
    h.finish("judge.aesthete", &review("aesthete"));
    h.time_out("judge.stylist");
    assert!(
        h.call("judge.stylist").request.attempt == 2,
        "INF-12: retried once"
    );
    h.time_out("judge.stylist");
    assert!(
        h.live
            .iter()
            .all(|spec| spec.request.role != "judge.stylist")
    );
    assert!(h.live.is_empty() || h.live.iter().all(|s| s.request.role == "judge.analyst"));
    h.finish("judge.analyst", &review("analyst"));
    let prompt = h.prompt("synthesizer");
    assert!(prompt.contains("Reviews that did not come in"), "{prompt}");
    assert!(prompt.contains("clarity"));
    h.finish("synthesizer", SYNTHESIS);
    let (_, note) = h.completed();
    assert_eq!(note, "2 of 3 reviews, synthesized");
    let transcript = h.file("transcript.md");
    assert!(transcript.contains("**SKIP** `judge.stylist/reviews/r1/a2`"));
    assert!(
        h.file("panel-review.md")
            .contains("no review (skipped: timed out twice")
    );
}

/// INF-07..10: an empty review is persisted with the MALFORMED marker,
/// left out of the synthesis, noted, and never retried.
#[test]
fn inf_07_inf_10_an_empty_review_is_marked_and_left_out() {
    let mut h = Harness::of(QuickMode::Panel);
    h.finish("judge.aesthete", "   \n");
    assert!(
        h.live
            .iter()
            .all(|spec| spec.request.role != "judge.aesthete")
    );
    assert!(
        h.file("judges/judge-aesthete.md")
            .starts_with("<!-- MALFORMED: the review is empty -->")
    );
    h.finish("judge.stylist", &review("stylist"));
    h.finish("judge.analyst", &review("analyst"));
    assert!(
        h.prompt("synthesizer")
            .contains("Reviews that did not come in")
    );
    assert_eq!(
        h.started
            .iter()
            .filter(|spec| spec.request.role == "judge.aesthete")
            .count(),
        1
    );
    assert!(
        h.quick
            .log()
            .iter()
            .any(|entry| entry.kind == LogKind::Malformed)
    );
}

/// With no usable review at all there is nothing to synthesize: the debate
/// fails with no fabricated document (A18).
#[test]
fn a18_no_review_at_all_fails_the_panel() {
    let mut h = Harness::of(QuickMode::Panel);
    for role in PANEL {
        let slot = format!("judge.{role}");
        h.time_out(&slot);
        h.time_out(&slot);
    }
    assert!(matches!(h.finished, Some(Outcome::Failed { .. })));
    assert!(
        h.quick
            .summary_lead()
            .unwrap()
            .starts_with("**No result.** The panel review stopped")
    );
    assert!(h.file("panel-review.md").contains("No result"));
}

// ---- pre-mortem ----------------------------------------------------------------

/// QM-10, QM-11, QM-12: one critic call with the pre-mortem prompt, then the
/// synthesizer; the output is pre-mortem.md.
#[test]
fn qm_10_qm_11_qm_12_premortem() {
    let mut h = Harness::of(QuickMode::Premortem);
    assert_eq!(h.roles_started(), ["critic"]);
    let prompt = h.prompt("critic");
    for needle in [
        "PRE-MORTEM ANALYSIS",
        "TONE: Catastrophist (intensity: 80%)",
        "six months later",
        "**What went wrong**",
        "**Why**",
        "**When it became unavoidable**",
        "**What it dragged down with it**",
        "**What should have been done**",
        TOPIC,
        CONTEXT_TEXT,
    ] {
        assert!(prompt.contains(needle), "lacks {needle:?}");
    }
    h.finish("critic", "It failed because of load.");
    assert_eq!(h.roles_started(), ["critic", "synthesizer"]);
    h.finish("synthesizer", SYNTHESIS);
    assert_eq!(h.completed().0, "pre-mortem.md");
}

/// RF-13: the pre-mortem's synthesizer is asked to lead with the top
/// failure mode and to give no verdict (what its document opens with is
/// checked on a real run in `tests/bind_quick.rs`).
#[test]
fn rf_13_the_premortem_synthesis_prompt_asks_to_lead_with_the_top_failure() {
    let mut h = Harness::of(QuickMode::Premortem);
    h.finish("critic", "It failed.");
    let prompt = h.prompt("synthesizer");
    assert!(prompt.contains("leads with the most likely way this fails"));
    assert!(prompt.contains("do not give one"));
}

/// RF-04, RF-13 (issue 60): quorum checks what a quick-mode deliverable
/// opens with, not only the prompt: an opening that begins by describing
/// the document ("This report…") is sent back once, naming the problem;
/// the second attempt, with the result first, is the document. Still
/// wrong after that, it is kept with a warning the reader sees first.
#[test]
fn rf_04_rf_13_an_opening_that_does_not_lead_with_the_result_is_asked_again() {
    let framed = "This report sets out how the migration could fail.\n\n## Why\n\nDrift.\n";
    let mut h = Harness::of(QuickMode::Premortem);
    h.finish("critic", "It failed because the copies drifted.");
    h.finish("synthesizer", framed);
    assert!(h.finished.is_none(), "asked again");
    let redo = h.call("synthesizer");
    assert_eq!(redo.request.attempt, 2);
    assert!(
        redo.request.prompt.contains(
            "does not put the bottom line first (it begins \"This report…\", describing the document or the work instead of giving the result)"
        ),
        "{}",
        redo.request.prompt
    );
    h.finish("synthesizer", SYNTHESIS);
    let document = h.file("pre-mortem.md");
    assert!(!document.contains("**Warning:**"), "{document}");
    assert!(document.contains("The design holds for two million users"));

    let mut h = Harness::of(QuickMode::Premortem);
    h.finish("critic", "It failed because the copies drifted.");
    h.finish("synthesizer", framed);
    h.finish("synthesizer", framed);
    let document = h.file("pre-mortem.md");
    assert!(
        document.contains("does not put the bottom line first"),
        "kept with a warning: {document}"
    );
}

// ---- red team ------------------------------------------------------------------

/// QM-13, QM-14: one critic call with the red-team prompt and its four
/// sections, assuming malice.
#[test]
fn qm_13_qm_14_red_team_prompt() {
    let h = Harness::of(QuickMode::Redteam);
    assert_eq!(h.roles_started(), ["critic"]);
    let prompt = h.prompt("critic");
    for needle in [
        "RED TEAM ANALYSIS",
        "TONE: Maximum-adversary (intensity: 90%)",
        "Break the target",
        "**Vulnerability list**",
        "exploit scenario",
        "**Abuse vectors**",
        "**Failure modes**",
        "**Recommendations**",
        "means harm",
        CONTEXT_TEXT,
    ] {
        assert!(prompt.contains(needle), "lacks {needle:?}");
    }
}

/// QM-15, RF-14: the moderator triages the findings; rejected ones are left
/// out of the synthesis and listed as set aside; the synthesizer leads with
/// the most severe finding standing; the output is red-team-report.md.
#[test]
fn qm_15_rf_14_red_team_findings_are_triaged_then_reported() {
    let mut h = Harness::of(QuickMode::Redteam);
    let effects = h.finish("critic", REPORT);
    let Some(Effect::AwaitModeration { items }) = effects.first() else {
        panic!("the findings go to the moderator: {effects:?}");
    };
    assert_eq!(
        items
            .iter()
            .map(|item| item.id.as_str())
            .collect::<Vec<_>>(),
        ["v1", "v2", "v3"]
    );
    assert!(h.quick.board().needs_moderator);
    for (id, decision) in [
        ("v1", ItemDecision::Accept),
        ("v2", ItemDecision::Defer),
        ("v3", ItemDecision::Reject),
    ] {
        h.send(Input::ItemDecided {
            item_id: id.into(),
            decision,
            note: (id == "v3").then(|| "search uses bound parameters".into()),
            ruler: None,
        });
    }
    assert!(
        h.live.is_empty(),
        "nothing runs until the triage is submitted"
    );
    h.send(Input::ModerationSubmitted);
    let prompt = h.prompt("synthesizer");
    assert!(prompt.contains("v1 (high, confirmed): Replayable reset links"));
    assert!(prompt.contains("v2 (medium, unconfirmed): User enumeration"));
    assert!(
        !prompt.contains("v3 (critical"),
        "rejected findings are left out"
    );
    assert!(prompt.contains("1 finding(s) were set aside"));
    assert!(prompt.contains("leads with the most severe finding still standing"));
    for line in [
        "- v1: accepted — address it",
        "- v2: deferred — an open question: do not settle it",
        "- v3: rejected — do not act on it. Moderator's note: search uses bound parameters",
    ] {
        assert!(
            prompt.contains(line),
            "the rulings bind the synthesis: {line}"
        );
    }
    h.finish(
        "synthesizer",
        "Reset links can be replayed.\n\n## Vulnerabilities\n\n### High: replayable reset links [v1]\nx\n\n### Medium, unconfirmed: user enumeration [v2]\nx\n",
    );
    let report = h.file("red-team-report.md");
    assert!(!report.contains("**Warning:**"), "{report}");
    let standing = report
        .split("## Findings that stand\n\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("quorum lists what stands");
    assert!(standing.contains("- **Replayable reset links** (high, confirmed)\n"));
    assert!(standing.contains("- **User enumeration** (medium, open, not confirmed)\n"));
    assert!(!standing.contains("SQL injection"), "{standing}");
    assert!(report.contains("## Findings set aside"));
    assert!(
        report.contains("**SQL injection in search** (critical): search uses bound parameters")
    );
    let yaml = h.file("debate.yaml");
    assert!(yaml.contains("decision: reject"), "{yaml}");
    assert_eq!(h.completed().0, "red-team-report.md");
}

/// RF-14 (issue 60): a red-team report that leads with a lesser finding
/// while a more severe one stands is sent back once, naming both.
#[test]
fn rf_14_a_red_team_report_leading_with_a_lesser_finding_is_asked_again() {
    let mut h = Harness::of(QuickMode::Redteam);
    h.finish("critic", REPORT);
    for id in ["v1", "v2", "v3"] {
        h.send(Input::ItemDecided {
            item_id: id.into(),
            decision: ItemDecision::Accept,
            note: None,
            ruler: None,
        });
    }
    h.send(Input::ModerationSubmitted);
    h.finish(
        "synthesizer",
        "Reset links can be replayed for a day after they are sent.\n\n## Vulnerabilities\n\n### Critical: SQL injection in search [v3]\nx\n\n### High: replayable reset links [v1]\nx\n\n### Medium: user enumeration [v2]\nx\n",
    );
    let redo = h.call("synthesizer");
    assert_eq!(redo.request.attempt, 2, "asked again");
    assert!(
        redo.request.prompt.contains(
            "it leads with \"Replayable reset links\" rather than the most severe finding still standing (\"SQL injection in search\")"
        ),
        "{}",
        redo.request.prompt
    );
    h.finish(
        "synthesizer",
        "Search is open to SQL injection through its query parameter.\n\n## Vulnerabilities\n\n### Critical: SQL injection in search [v3]\nx\n\n### High: replayable reset links [v1]\nx\n\n### Medium: user enumeration [v2]\nx\n",
    );
    let report = h.file("red-team-report.md");
    assert!(!report.contains("**Warning:**"), "{report}");
}

/// A red-team report whose list cannot be read still gets its synthesis,
/// from the report as written; nothing is triaged.
#[test]
fn an_unreadable_vulnerability_list_skips_the_triage() {
    let mut h = Harness::of(QuickMode::Redteam);
    let effects = h.finish("critic", "Prose only: the reset flow is weak.");
    assert!(effects.iter().any(
        |effect| matches!(effect, Effect::StartCall(spec) if spec.request.role == "synthesizer")
    ));
    assert!(h.quick.vulnerability_error().is_some());
    h.finish("synthesizer", SYNTHESIS);
    assert!(h.file("red-team-report.md").contains("could not be read"));
}

// ---- architecture adversary ----------------------------------------------------

/// QM-16, QM-17: proposer, critic, proposer again, strictly in sequence,
/// never two calls at once; no judges.
#[test]
fn qm_16_qm_17_adversary_runs_strictly_in_sequence() {
    let mut h = Harness::of(QuickMode::Adversary);
    run_to_the_end(&mut h);
    assert_eq!(
        h.roles_started(),
        ["proposer", "critic", "proposer", "synthesizer"]
    );
    assert_eq!(h.most_live, 1);
    assert!(
        h.roles_started()
            .iter()
            .all(|role| !role.starts_with("judge."))
    );
}

/// QM-18, QM-19, QM-20: the three prompts, each carrying what came before
/// verbatim.
#[test]
fn qm_18_qm_19_qm_20_adversary_prompts() {
    let mut h = Harness::of(QuickMode::Adversary);
    let proposal_prompt = h.prompt("proposer");
    for needle in [
        "ARCHITECTURE PROPOSAL",
        TOPIC,
        "- Runs in one region",
        "- No new datastore",
        "**The proposed architecture**",
        "**The trade-offs you made**",
        "**Why this and not the alternatives**",
    ] {
        assert!(proposal_prompt.contains(needle), "lacks {needle:?}");
    }
    h.finish("proposer", "PROPOSAL-VERBATIM with a queue.");
    let challenge = h.prompt("critic");
    for needle in [
        "ARCHITECTURE CHALLENGE",
        "TONE: Generous-adversary (intensity: 60%)",
        "PROPOSAL-VERBATIM with a queue.",
        "**Hidden assumptions**",
        "**Failure under load and scale**",
        "**Coupling and dependencies**",
        "**Better alternatives**",
        "**Where it breaks down**",
        "what the design gets right",
    ] {
        assert!(challenge.contains(needle), "lacks {needle:?}");
    }
    h.finish("critic", "CRITIQUE-VERBATIM: unbounded.");
    let revision = h.prompt("proposer");
    for needle in [
        "ARCHITECTURE REVISION",
        "PROPOSAL-VERBATIM with a queue.",
        "CRITIQUE-VERBATIM: unbounded.",
        "defend your design",
        "revise the design",
    ] {
        assert!(revision.contains(needle), "lacks {needle:?}");
    }
}

/// QM-21, RULES.md A19: the revision runs by default; started without it
/// (`--no-revision`) it is left out and the document says so.
#[test]
fn qm_21_the_revision_runs_by_default_and_can_be_left_out() {
    let mut config = config(QuickMode::Adversary);
    config.revision = false;
    let mut h = Harness::new(config);
    h.finish("proposer", "A design.");
    h.finish("critic", "An attack.");
    assert_eq!(h.roles_started(), ["proposer", "critic", "synthesizer"]);
    assert!(
        h.prompt("synthesizer")
            .contains("the revision step was left out")
    );
    h.finish("synthesizer", SYNTHESIS);
    assert!(
        h.file("architecture-challenge.md")
            .contains("the proposer's answer to it is missing")
    );
    let stages: Vec<String> = h
        .quick
        .board()
        .stages
        .iter()
        .map(|stage| stage.id.clone())
        .collect();
    assert_eq!(stages, ["proposal", "challenge", "synthesis", "done"]);
}

/// QM-21: the moderator skips the running revision; the proposer may be
/// skipped then (not before), and the synthesis goes on without it.
#[test]
fn qm_21_the_moderator_skips_the_revision() {
    let mut h = Harness::of(QuickMode::Adversary);
    assert!(h.quick.board().required_roles.contains(&"proposer".into()));
    h.finish("proposer", "A design.");
    h.finish("critic", "An attack.");
    assert!(!h.quick.board().required_roles.contains(&"proposer".into()));
    let call_id = h.call("proposer").request.call_id;
    let effects = h.send(Input::Override {
        call_id: call_id.clone(),
        action: OverrideAction::Skip,
    });
    assert_eq!(effects[0], Effect::CancelCall { call_id });
    assert!(
        h.prompt("synthesizer")
            .contains("the moderator skipped the proposer's answer")
    );
    h.finish("synthesizer", SYNTHESIS);
    assert_eq!(
        h.completed().1,
        "proposal and challenge, synthesized; no revision"
    );
}

/// QM-22, RF-15: the output is architecture-challenge.md; its synthesizer
/// leads with the revised position or the unresolved tension.
#[test]
fn qm_22_rf_15_adversary_deliverable() {
    let mut h = Harness::of(QuickMode::Adversary);
    run_to_the_end(&mut h);
    assert_eq!(h.completed().0, "architecture-challenge.md");
    let document = h.file("architecture-challenge.md");
    assert!(document.starts_with(&format!(
        "# Architecture challenge — {TOPIC}\n\n{}",
        SYNTHESIS.lines().next().unwrap()
    )));
    let synthesis_prompt = &h
        .started
        .iter()
        .find(|spec| spec.request.role == "synthesizer")
        .unwrap()
        .request
        .prompt;
    assert!(synthesis_prompt.contains("leads with where the design stands now"));
    assert!(synthesis_prompt.contains("Do not frame it as one option discarded"));
}

/// A required role that fails twice stops the debate with no document
/// invented (A18, INF-16); the critic is retried once first (INF-12).
#[test]
fn a18_inf_16_a_required_role_failing_twice_stops_the_debate() {
    let mut h = Harness::of(QuickMode::Premortem);
    h.time_out("critic");
    assert_eq!(h.call("critic").request.attempt, 2);
    h.time_out("critic");
    let Some(Outcome::Failed { reason }) = &h.finished else {
        panic!("expected a failure");
    };
    assert!(reason.contains("the critic gave no answer"), "{reason}");
    assert_eq!(h.quick.outcome().unwrap().exit_code(), 1);
}

// ---- reader-first --------------------------------------------------------------

/// RF-01: the raw agents' prompts carry no reader-first instruction; only
/// the synthesizer's do.
#[test]
fn rf_01_raw_prompts_carry_no_reader_instructions() {
    let reader_words = ["reader", "plain words", "plain-language", "newcomer"];
    for mode in QuickMode::ALL {
        let mut h = Harness::of(mode);
        run_to_the_end(&mut h);
        for spec in &h.started {
            let prompt = spec.request.prompt.to_ascii_lowercase();
            let reader_first = reader_words.iter().any(|word| prompt.contains(word));
            assert_eq!(
                reader_first,
                spec.request.role == "synthesizer",
                "{mode:?} {}",
                spec.request.role
            );
        }
    }
}

/// RF-03, RF-04, RF-07, RF-10: the deliverable opens with the result, and
/// the end-of-run summary is that opening, word for word.
#[test]
fn rf_03_rf_04_rf_07_the_summary_is_the_deliverables_opening() {
    for mode in [
        QuickMode::Panel,
        QuickMode::Premortem,
        QuickMode::Redteam,
        QuickMode::Adversary,
    ] {
        let mut h = Harness::of(mode);
        run_to_the_end(&mut h);
        let lead = h.quick.summary_lead().unwrap();
        assert_eq!(lead, SYNTHESIS.lines().next().unwrap(), "{mode:?}");
        let document = h.file(mode.deliverable());
        let opening = document.split("\n\n").nth(1).unwrap();
        assert_eq!(opening, lead, "{mode:?}");
    }
}

/// RF-06, RF-08: an opening that narrates the debate is sent back once,
/// quoting what it named; a second one is kept, with a note.
#[test]
fn rf_06_rf_08_a_narrating_opening_is_redone_once() {
    let mut h = Harness::of(QuickMode::Panel);
    for role in PANEL {
        h.finish(&format!("judge.{role}"), &review(role.as_str()));
    }
    let narrating = "All three reviewers agree the Analyst was right.\n\n## Detail\n\nx";
    h.finish("synthesizer", narrating);
    let redo = h.call("synthesizer");
    assert_eq!(redo.request.attempt, 2);
    assert!(redo.request.prompt.contains("`reviewers`"));
    assert!(redo.request.prompt.contains("`Analyst`"));
    assert!(
        redo.request
            .prompt
            .contains(narrating.lines().next().unwrap())
    );
    h.finish("synthesizer", narrating);
    assert!(
        h.finished.is_some(),
        "the reader gets a document either way"
    );
    assert!(
        h.quick
            .log()
            .iter()
            .any(|entry| entry.message.contains("reader-first check"))
    );
    // ...but never as a clean result: the warning comes first, in the
    // document and in the end-of-run message (RF-07).
    let lead = h.quick.summary_lead().unwrap();
    assert!(lead.starts_with("> **Warning:**"), "{lead}");
    assert!(lead.contains("`reviewers`, `Analyst`"), "{lead}");
    assert!(lead.ends_with(narrating.lines().next().unwrap()), "{lead}");
    let document = h.file("panel-review.md");
    assert!(document.contains(&lead), "{document}");
    assert!(h.completed().1.contains("WARNING"), "{:?}", h.completed());
}

/// A red-team synthesis that describes a rejected finding and leaves out an
/// accepted one is asked once more, naming both; a second one just as wrong
/// is kept with both stated first, and logged.
#[test]
fn a_synthesis_against_the_rulings_is_asked_once_more_then_stated() {
    let mut h = Harness::of(QuickMode::Redteam);
    h.finish("critic", REPORT);
    for (id, decision) in [
        ("v1", ItemDecision::Accept),
        ("v2", ItemDecision::Accept),
        ("v3", ItemDecision::Reject),
    ] {
        h.send(Input::ItemDecided {
            item_id: id.into(),
            decision,
            note: None,
            ruler: None,
        });
    }
    h.send(Input::ModerationSubmitted);
    let wrong = "Search is open to SQL injection.\n\n## Vulnerabilities\n\n### Critical: SQL injection [v3]\nx\n\n### High: replayable links [v1]\nx\n";
    h.finish("synthesizer", wrong);
    let again = h.call("synthesizer");
    assert_eq!(again.request.attempt, 2);
    for named in [
        "the report describes v3 (SQL injection in search), which the moderator rejected",
        "the report leaves out v2 (User enumeration), which the moderator accepted",
    ] {
        assert!(again.request.prompt.contains(named), "{named}");
    }
    h.finish("synthesizer", wrong);
    let lead = h.quick.summary_lead().unwrap();
    assert!(lead.starts_with("> **Warning:**"), "{lead}");
    assert!(
        lead.contains("describes v3 (SQL injection in search)"),
        "{lead}"
    );
    assert!(lead.contains("leaves out v2 (User enumeration)"), "{lead}");
    assert!(h.quick.log().iter().any(|entry| {
        entry
            .message
            .starts_with("rulings check: the report describes v3")
    }));
    let report = h.file("red-team-report.md");
    assert!(report.contains(&lead));
    assert!(h.file("debate.yaml").contains("synthesis_warnings:"));
}

/// When the one more attempt never answers, the first, readable synthesis
/// is the document, with what was wrong in it and the missing answer stated.
#[test]
fn a_second_attempt_that_never_answers_keeps_the_first_with_a_warning() {
    let mut h = Harness::of(QuickMode::Panel);
    for role in PANEL {
        h.finish(&format!("judge.{role}"), &review(role.as_str()));
    }
    let narrating = "All three reviewers agree.\n\n## Detail\n\nx";
    h.finish("synthesizer", narrating);
    h.time_out("synthesizer");
    h.time_out("synthesizer");
    let (deliverable, _) = h.completed();
    assert_eq!(deliverable, "panel-review.md");
    let lead = h.quick.summary_lead().unwrap();
    assert!(lead.contains("gave no answer"), "{lead}");
    assert!(lead.ends_with("All three reviewers agree."), "{lead}");
}

/// RF-12: the panel's synthesizer is asked for the consensus first, then
/// the main disagreement, then a recommendation only if the reviews support
/// one (the document's opening is checked on a real run in
/// `tests/bind_quick.rs`).
#[test]
fn rf_12_the_panel_synthesis_prompt_asks_for_consensus_first() {
    let mut h = Harness::of(QuickMode::Panel);
    for role in PANEL {
        h.finish(&format!("judge.{role}"), &review(role.as_str()));
    }
    let prompt = h.prompt("synthesizer");
    let consensus = prompt.find("what the reviews agree on").unwrap();
    let disagreement = prompt.find("the main point where they pull apart").unwrap();
    let recommendation = prompt
        .find("only if the reviews together support one")
        .unwrap();
    assert!(consensus < disagreement && disagreement < recommendation);
}

/// Journaled and folded, a quick debate rebuilds the same documents: the
/// protocol reads time only from its inputs.
#[test]
fn the_same_inputs_give_the_same_documents() {
    let documents = |mode| {
        let mut h = Harness::of(mode);
        run_to_the_end(&mut h);
        h.quick.documents()
    };
    for mode in QuickMode::ALL {
        assert_eq!(documents(mode), documents(mode), "{mode:?}");
    }
}

/// The red team's triage is the shared moderator book: a decision before
/// the triage opens or on an unknown finding is logged as ignored, a
/// submission waits for every finding, and a finding's decision and note
/// can change until the triage is submitted, the latest word counting. Its
/// words are the report's: confirm, set aside, leave open.
#[test]
fn the_triage_decides_and_submits_as_every_protocol_does() {
    let mut h = Harness::of(QuickMode::Redteam);
    let decide = |h: &mut Harness, id: &str, decision, note: Option<&str>| {
        h.send(Input::ItemDecided {
            item_id: id.into(),
            decision,
            note: note.map(str::to_string),
            ruler: None,
        });
    };
    decide(&mut h, "v1", ItemDecision::Accept, None);
    h.finish("critic", REPORT);
    decide(&mut h, "v9", ItemDecision::Accept, None);
    decide(&mut h, "v1", ItemDecision::Reject, Some("first thought"));
    decide(
        &mut h,
        "v1",
        ItemDecision::Accept,
        Some("  confirmed on staging  "),
    );
    h.send(Input::ModerationSubmitted);
    assert!(h.live.is_empty(), "not submitted while v2 and v3 are open");
    decide(&mut h, "v2", ItemDecision::Defer, None);
    decide(&mut h, "v3", ItemDecision::Reject, None);
    h.send(Input::ModerationSubmitted);
    let messages: Vec<&str> = h
        .quick
        .log()
        .iter()
        .map(|entry| entry.message.as_str())
        .collect();
    for expected in [
        "ignored a decision on v1: no moderation is open",
        "ignored a decision on v9: it is not open",
        "v1 set aside: first thought",
        "v1 confirmed: confirmed on staging",
        "cannot submit yet: v2, v3 still undecided",
        "triage submitted: 1 accepted, 1 rejected, 1 deferred",
    ] {
        assert!(messages.contains(&expected), "{expected}: {messages:#?}");
    }
    let board = h.quick.board();
    let v1 = board
        .items
        .iter()
        .find(|item| item.item.id == "v1")
        .unwrap();
    assert_eq!(v1.decision, Some(ItemDecision::Accept));
    assert_eq!(v1.note.as_deref(), Some("confirmed on staging"));
    assert!(
        h.prompt("synthesizer")
            .contains("- v1: accepted — address it. Moderator's note: confirmed on staging")
    );
}

/// A triage that sets every finding aside leaves the synthesizer nothing to
/// lead with: its prompt says so, with every ruling, and asks for no ids.
#[test]
fn a_triage_rejecting_everything_tells_the_synthesizer_nothing_stands() {
    let mut h = Harness::of(QuickMode::Redteam);
    h.finish("critic", REPORT);
    for id in ["v1", "v2", "v3"] {
        h.send(Input::ItemDecided {
            item_id: id.into(),
            decision: ItemDecision::Reject,
            note: None,
            ruler: None,
        });
    }
    h.send(Input::ModerationSubmitted);
    let prompt = h.prompt("synthesizer");
    assert!(prompt.contains("none of the weaknesses the attack reported stands"));
    assert!(prompt.contains("- v2: rejected — do not act on it"));
    assert!(!prompt.contains("square brackets"), "no finding to head");
    h.finish("synthesizer", SYNTHESIS);
    let report = h.file("red-team-report.md");
    assert!(!report.contains("**Warning:**"), "{report}");
    assert!(report.contains("None: the moderator set aside every finding"));
}

/// JM-61: a red team whose findings a person and a policy triaged says who
/// ruled in its report's closing section; one a single ruler triaged does
/// not.
#[test]
fn jm_61_a_red_team_triaged_by_two_rulers_says_who_ruled() {
    use quorum::protocol::{Ruler, RulingPolicy};
    let report = |rulers: [Ruler; 3]| {
        let mut h = Harness::of(QuickMode::Redteam);
        h.finish("critic", REPORT);
        for (id, ruler) in ["v1", "v2", "v3"].into_iter().zip(rulers) {
            h.send(Input::ItemDecided {
                item_id: id.into(),
                decision: ItemDecision::Accept,
                note: None,
                ruler: Some(ruler),
            });
        }
        h.send(Input::ModerationSubmitted);
        h.finish("synthesizer", REDTEAM_SYNTHESIS);
        h.file("red-team-report.md")
    };
    let accept = Ruler::Policy(RulingPolicy::Accept);
    let mixed = report([Ruler::Person, accept, Ruler::Person]);
    let closing = &mixed[mixed.find("## How this was made").expect("the closing")..];
    assert!(
        closing.contains("Rulings: 2 items ruled by you, 1 by the accept policy.\n"),
        "{closing}"
    );
    let one = report([Ruler::Person; 3]);
    assert!(!one.contains("Rulings:"), "{one}");
}

/// A red team journaled before the rulings check (its definition has no
/// `checks_rulings`) folds as it ran: a synthesis that leaves findings out
/// is taken as it was, with no call it never had.
#[test]
fn a_debate_journaled_before_the_check_folds_as_it_ran() {
    let mut config = config(QuickMode::Redteam);
    config.checks_rulings = false;
    let definition: QuickConfig = serde_json::from_value(
        serde_json::to_value(&config)
            .unwrap()
            .as_object()
            .map(|map| {
                let mut map = map.clone();
                map.remove("checks_rulings");
                serde_json::Value::Object(map)
            })
            .unwrap(),
    )
    .unwrap();
    assert!(!definition.checks_rulings, "absent means the old behaviour");
    let mut h = Harness::new(definition);
    h.finish("critic", REPORT);
    for id in ["v1", "v2", "v3"] {
        h.send(Input::ItemDecided {
            item_id: id.into(),
            decision: ItemDecision::Accept,
            note: None,
            ruler: None,
        });
    }
    h.send(Input::ModerationSubmitted);
    h.finish("synthesizer", SYNTHESIS);
    assert_eq!(h.completed().0, "red-team-report.md");
    assert_eq!(
        h.roles_started(),
        ["critic", "synthesizer"],
        "no second synthesis call"
    );
}

// ---- fair judging (issue 29) ---------------------------------------------------

/// A panel review judged fairly: blind, in the synthesizer's own order
/// drawn from `seed`, with `agents` (slot → `provider:model`) seated.
fn fair_panel(seed: u64, agents: &[(&str, &str)]) -> Harness {
    let mut config = config(QuickMode::Panel);
    for (slot, agent) in agents {
        config
            .seating
            .agents
            .insert(slot.to_string(), agent.to_string());
    }
    config.seating.fairness = Fairness::new(true, seed, Recusal::Off, Default::default());
    Harness::new(config)
}

/// A review that ends with a reading.
fn read_review(role: &str, reading: [u8; 3]) -> String {
    format!(
        "{}\n## Your reading\n\nelegance: {}\nclarity: {}\nrigour: {}\n",
        review(role),
        reading[0],
        reading[1],
        reading[2]
    )
}

/// The perspectives of the reviews a synthesis prompt carries, in order.
fn synthesis_order(prompt: &str) -> Vec<String> {
    prompt
        .lines()
        .filter_map(|line| line.strip_prefix("### Looking at "))
        .map(str::to_string)
        .collect()
}

/// Issue 29: a fair panel's reviewers are asked for a reading of the work
/// on every lens; a panel from before fair judging is asked exactly what it
/// was asked then.
#[test]
fn issue_29_a_fair_panels_reviewers_give_a_reading_on_every_lens() {
    let fair = fair_panel(3, &[]);
    let legacy = Harness::of(QuickMode::Panel);
    for role in ["judge.aesthete", "judge.stylist", "judge.analyst"] {
        let prompt = fair.prompt(role);
        for needle in ["## Your reading", "elegance: N", "clarity: N", "rigour: N"] {
            assert!(prompt.contains(needle), "{role} lacks {needle:?}");
        }
        let before = legacy.prompt(role);
        assert!(!before.contains("reading"), "{before}");
        assert!(
            prompt.starts_with(before.trim_end()),
            "{role}: the rest is as it was"
        );
    }
}

/// Issue 29: the synthesizer reads the reviews without their readings, in
/// an order of its own drawn from the debate's seed (another seed, another
/// order; the same seed, the same prompt), and the agreement of the
/// readings goes into debate.yaml, the deliverable and on the board.
#[test]
fn issue_29_the_synthesizer_reads_in_its_own_order_and_the_readings_agreement_is_recorded() {
    let readings = [
        ("judge.aesthete", [6, 7, 5]),
        ("judge.stylist", [7, 5, 5]),
        ("judge.analyst", [6, 6, 3]),
    ];
    let run = |seed: u64| {
        let mut h = fair_panel(seed, &[]);
        for (role, reading) in readings {
            h.finish(role, &read_review(role, reading));
        }
        h
    };
    let orders: std::collections::BTreeSet<Vec<String>> = (0..8)
        .map(|seed| synthesis_order(&run(seed).prompt("synthesizer")))
        .collect();
    assert!(orders.len() > 1, "one order for every seed: {orders:?}");
    assert_eq!(run(5).prompt("synthesizer"), run(5).prompt("synthesizer"));

    let mut h = run(5);
    let prompt = h.prompt("synthesizer");
    assert!(!prompt.contains("Your reading"), "{prompt}");
    assert!(!prompt.contains("rigour: 3"), "{prompt}");
    assert_eq!(synthesis_order(&prompt).len(), 3);
    h.finish("synthesizer", SYNTHESIS);
    let yaml = h.file("debate.yaml");
    assert!(yaml.contains("agreement:\n    alpha:"), "{yaml}");
    assert!(yaml.contains("reviewers: 3"), "{yaml}");
    assert!(yaml.contains("reading:\n      clarity: 5"), "{yaml}");
    let deliverable = h.file("panel-review.md");
    assert!(
        deliverable.contains("- Analyst: elegance 6 · clarity 6 · rigour 3"),
        "{deliverable}"
    );
    assert!(deliverable.contains("judges' agreement"), "{deliverable}");
    let board = h.quick.board();
    assert!(
        board
            .agreement
            .as_deref()
            .is_some_and(|line| line.starts_with("The reviewers' readings: judges' agreement")),
        "{:?}",
        board.agreement
    );
    let synthesizer = h
        .quick
        .describe()
        .roles
        .into_iter()
        .find(|role| role.slot == "synthesizer")
        .unwrap();
    assert_eq!(synthesizer.marks, ["blind", "own order"]);

    // A panel from before: no reading asked, none measured, none recorded.
    let mut legacy = Harness::of(QuickMode::Panel);
    for role in ["judge.aesthete", "judge.stylist", "judge.analyst"] {
        legacy.finish(role, &review(role));
    }
    legacy.finish("synthesizer", SYNTHESIS);
    assert!(!legacy.file("debate.yaml").contains("agreement"));
    assert!(!legacy.file("panel-review.md").contains("agreement"));
    assert_eq!(legacy.quick.board().agreement, None);
}

/// Issue 29: readings in lockstep make a panel worth fewer than two
/// independent votes, and the deliverable says so.
#[test]
fn issue_29_a_panel_reading_in_lockstep_says_it_is_fewer_than_two_votes() {
    let mut h = fair_panel(5, &[]);
    for (role, reading) in [
        ("judge.aesthete", [4, 6, 8]),
        ("judge.stylist", [4, 6, 8]),
        ("judge.analyst", [3, 5, 7]),
    ] {
        h.finish(role, &read_review(role, reading));
    }
    h.finish("synthesizer", SYNTHESIS);
    let deliverable = h.file("panel-review.md");
    assert!(
        deliverable.contains("worth fewer than two independent votes"),
        "{deliverable}"
    );
}

/// Models a reviewer may be played by, of several families.
const AGENTS: [&str; 6] = [
    "anthropic:claude-sonnet-4-5",
    "openai:gpt-4.1-mini",
    "gemini:gemini-2.5-pro",
    "ollama:llama3.1:8b",
    "mistral:mistral-large-2411",
    "deepseek:deepseek-r1",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Issue 29: when the panel is blind, the synthesizer's prompt holds
    /// the model of no participant, however the reviewers signed.
    #[test]
    fn issue_29_a_blind_synthesizer_reads_no_participants_model(
        picks in proptest::collection::vec(0..AGENTS.len(), 4),
        signer in 0..3usize,
    ) {
        let slots = ["judge.aesthete", "judge.stylist", "judge.analyst", "synthesizer"];
        let seated: Vec<(&str, &str)> =
            slots.iter().zip(&picks).map(|(slot, pick)| (*slot, AGENTS[*pick])).collect();
        let mut h = fair_panel(9, &seated);
        for (index, role) in slots[..3].iter().enumerate() {
            let mut text = read_review(role, [5, 6, 7]);
            if index == signer {
                let model = AGENTS[picks[index]].split_once(':').unwrap().1;
                text = format!("As {model}, I reviewed this.\n\n{text}");
            }
            h.finish(role, &text);
        }
        let prompt = h.prompt("synthesizer").to_lowercase();
        for pick in &picks {
            let model = AGENTS[*pick].split_once(':').unwrap().1.to_lowercase();
            proptest::prop_assert!(!prompt.contains(&model), "reads `{}`:\n{}", model, prompt);
        }
        let transcript = h.file("transcript.md");
        proptest::prop_assert!(
            transcript.contains("in what the synthesizer reads"),
            "the masking is noted"
        );
    }
}
