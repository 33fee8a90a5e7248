//! The decision-review protocol, driven as a pure state machine (RULES.md
//! INF, DR-01..51, RF): scripted agent answers go in as `Input`s, and the
//! tests check the `Effect`s that come out, the log, and the documents the
//! protocol says the artifact tree should hold. No engine, no files, no clock.
use crate::support;

use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};
use quorum::prompts::PromptSet;
use quorum::protocol::Questions;
use quorum::protocol::decision_review::documents::summary_lead;
use quorum::protocol::decision_review::model::{
    Criterion, CritiqueMode, ItemDecision, JudgeRole, Verdict, Weight, architecture_panel,
};
use quorum::protocol::decision_review::verdict::Thresholds;
use quorum::protocol::decision_review::{
    ContextDoc, DecisionReview, Participants, ReviewConfig, ReviewMode, ReviewOption, judge_file,
};
use quorum::protocol::payoff::Preceded;
use quorum::protocol::{
    CallFailure, CallSpec, Effect, Input, LogKind, Outcome, OverrideAction, Protocol,
};
use quorum::words::timestamp;
use support::*;
use yaml_serde::Value;

use Criterion::{Clarity, Correctness, Feasibility, Risk, Simplicity};
use ItemDecision::{Accept, Defer, Reject};
use JudgeRole::{Aesthete, Analyst, Strategist, Stylist};

const TOPIC: &str = "Should billing move to event sourcing?";
const CONTEXT_TEXT: &str = "Ledger volume: two million events a day.";
const ALL_ITEMS: [&str; 4] = ["c1", "c2", "c3", "c4"];

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap()
}

/// A review of [`TOPIC`] with the architecture panel and two REVISE loops.
fn config_with(high_stakes: bool) -> ReviewConfig {
    let panel = architecture_panel(high_stakes);
    ReviewConfig {
        topic: TOPIC.into(),
        context: vec![ContextDoc {
            name: "notes.md".into(),
            text: CONTEXT_TEXT.into(),
        }],
        mode: ReviewMode::Architecture,
        options: Vec::new(),
        critique_mode: CritiqueMode::GenerousSteelman,
        high_stakes,
        participants: Participants {
            proposer: "script:proposer-model".into(),
            critic: "script:critic-model".into(),
            judges: panel
                .iter()
                .map(|judge| (judge.role, format!("script:{}-model", judge.role)))
                .collect(),
            prices: Default::default(),
        },
        panel,
        max_rounds: 2,
        thresholds: Thresholds::default(),
        started_at: t0(),
        hold_for_moderator: false,
        checks_rulings: true,
        fairness: Default::default(),
        handed: None,
        sources: Vec::new(),
        checks_evidence: true,
        weighs_payoff: true,
        stability: Default::default(),
        calibration: Vec::new(),
    }
}

fn config() -> ReviewConfig {
    config_with(false)
}

fn final_round_config() -> ReviewConfig {
    ReviewConfig {
        max_rounds: 0,
        ..config()
    }
}

// ---- the driver ---------------------------------------------------------------

/// Feeds a review inputs one second apart and keeps track of its calls.
struct Harness {
    review: DecisionReview,
    now: DateTime<Utc>,
    /// Calls started and not yet answered, failed or cancelled.
    live: Vec<CallSpec>,
    /// Every call ever started, in order.
    started: Vec<CallSpec>,
    /// Every batch of effects, in order (`start` first).
    batches: Vec<Vec<Effect>>,
    /// Times a stage 1–3 call was live alongside another call (DR-04).
    overlaps: usize,
    /// Each answer at its raw-output file, as the engine writes it when the
    /// answer comes (the protocol's documents do not carry answers).
    answers: std::collections::BTreeMap<String, String>,
}

impl Harness {
    fn new(config: ReviewConfig) -> Self {
        let mut review = DecisionReview::new(config, Arc::new(PromptSet::builtin()));
        let effects = review.start(t0());
        let mut harness = Harness {
            review,
            now: t0(),
            live: Vec::new(),
            started: Vec::new(),
            batches: Vec::new(),
            overlaps: 0,
            answers: Default::default(),
        };
        harness.record(effects);
        harness
    }

    /// Proposal and critique collected: the moderator's turn.
    fn at_moderation_with(config: ReviewConfig, critique: &str) -> Self {
        let mut harness = Harness::new(config);
        harness.finish("proposer", &proposal_text());
        harness.finish("critic", critique);
        harness
    }

    fn at_moderation(config: ReviewConfig) -> Self {
        Harness::at_moderation_with(config, &default_critique())
    }

    /// Every item accepted and the revision collected: the judges are working.
    /// `prose` rewrites every agent answer first.
    fn at_evaluation_with(config: ReviewConfig, prose: fn(&str) -> String) -> Self {
        let mut harness = Harness::new(config);
        harness.finish("proposer", &prose(&proposal_text()));
        harness.finish("critic", &prose(&default_critique()));
        harness.decide_all(Accept);
        harness.submit();
        harness.finish("proposer", &prose(&revision_text(&ALL_ITEMS)));
        harness
    }

    fn at_evaluation(config: ReviewConfig) -> Self {
        Harness::at_evaluation_with(config, |text| text.to_string())
    }

    /// A whole run in which the judges answer with `judges`.
    fn judged(config: ReviewConfig, judges: impl Fn(JudgeRole) -> String) -> Self {
        let mut harness = Harness::at_evaluation(config);
        harness.finish_judges(judges);
        harness
    }

    fn record(&mut self, effects: Vec<Effect>) -> Vec<Effect> {
        for effect in &effects {
            match effect {
                Effect::StartCall(spec) => {
                    self.live.push(spec.clone());
                    self.started.push(spec.clone());
                }
                Effect::CancelCall { call_id } => {
                    self.live.retain(|s| &s.request.call_id != call_id)
                }
                _ => {}
            }
        }
        let sequential = self.live.iter().any(|s| s.request.stage != "evaluation");
        if sequential && self.live.len() > 1 {
            self.overlaps += 1;
        }
        self.batches.push(effects.clone());
        effects
    }

    fn send(&mut self, input: Input) -> Vec<Effect> {
        self.now += chrono::Duration::seconds(1);
        if let Input::CallFinished {
            call_id, output, ..
        } = &input
            && let Some(path) = self
                .live
                .iter()
                .find(|s| &s.request.call_id == call_id)
                .and_then(|s| s.raw_output_path.clone())
        {
            self.answers.insert(path, output.clone());
        }
        if let Input::CallFinished { call_id, .. } | Input::CallFailed { call_id, .. } = &input {
            self.live.retain(|s| &s.request.call_id != call_id);
        }
        let effects = self.review.handle(&input, self.now);
        self.record(effects)
    }

    /// The live call of a role slot: `proposer`, `critic`, `judge.analyst`.
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
        self.finish_id(&call_id, text)
    }

    fn finish_id(&mut self, call_id: &str, text: &str) -> Vec<Effect> {
        self.send(Input::CallFinished {
            call_id: call_id.into(),
            output: text.into(),
            usage: None,
            usage_estimated: false,
            ttft_ms: None,
            elapsed_ms: 1_500,
        })
    }

    fn fail(&mut self, role: &str, failure: CallFailure) -> Vec<Effect> {
        let call_id = self.call(role).request.call_id;
        self.send(Input::CallFailed {
            call_id,
            failure,
            partial_chars: 0,
            elapsed_ms: 600_000,
        })
    }

    fn time_out(&mut self, role: &str) -> Vec<Effect> {
        self.fail(
            role,
            CallFailure::TimedOut {
                after_ms: 600_000,
                staged: false,
            },
        )
    }

    fn error(&mut self, role: &str) -> Vec<Effect> {
        let message = "503 overloaded".to_string();
        self.fail(role, CallFailure::Error { message })
    }

    /// Two failures in a row: the slot is given up.
    fn give_up(&mut self, role: &str) -> Vec<Effect> {
        self.time_out(role);
        self.time_out(role)
    }

    fn override_call(&mut self, role: &str, action: OverrideAction) -> Vec<Effect> {
        let call_id = self.call(role).request.call_id;
        self.send(Input::Override { call_id, action })
    }

    fn decide(&mut self, item: &str, decision: ItemDecision) -> Vec<Effect> {
        self.decide_noted(item, decision, None)
    }

    fn decide_noted(
        &mut self,
        item: &str,
        decision: ItemDecision,
        note: Option<&str>,
    ) -> Vec<Effect> {
        self.send(Input::ItemDecided {
            item_id: item.into(),
            decision,
            note: note.map(str::to_string),
            ruler: None,
        })
    }

    fn decide_all(&mut self, decision: ItemDecision) {
        let ids: Vec<String> = self
            .review
            .critique_items()
            .iter()
            .map(|i| i.id.clone())
            .collect();
        for id in ids {
            assert!(
                self.decide(&id, decision).is_empty(),
                "deciding starts nothing"
            );
        }
    }

    fn submit(&mut self) -> Vec<Effect> {
        self.send(Input::ModerationSubmitted)
    }

    /// Answers every live judge with `text(role)`; returns every effect.
    fn finish_judges(&mut self, text: impl Fn(JudgeRole) -> String) -> Vec<Effect> {
        let judges: Vec<CallSpec> = self
            .live
            .iter()
            .filter(|spec| spec.request.stage == "evaluation")
            .cloned()
            .collect();
        assert!(!judges.is_empty(), "no judge is working");
        let mut effects = Vec::new();
        for spec in judges {
            let role = JudgeRole::parse(spec.request.role.trim_start_matches("judge.")).unwrap();
            effects.extend(self.finish_id(&spec.request.call_id, &text(role)));
        }
        effects
    }

    fn started_for(&self, role: &str) -> Vec<&CallSpec> {
        self.started
            .iter()
            .filter(|s| s.request.role == role)
            .collect()
    }

    fn stage(&self) -> String {
        self.review.progress().stage
    }

    fn verdict(&self) -> Option<Verdict> {
        self.review.outcome()?.verdict()
    }

    fn rule(&self) -> String {
        match self.review.outcome() {
            Some(Outcome::Decided { rule, .. }) => rule.clone(),
            other => panic!("no verdict: {other:?}"),
        }
    }

    /// Whether the run folder holds `path`: a document of the protocol, or
    /// an answer the engine wrote as it came.
    fn has_doc(&self, path: &str) -> bool {
        self.review.documents().iter().any(|doc| doc.path == path)
            || self.answers.contains_key(path)
    }

    /// `path` as the run folder holds it: the protocol's document, or the
    /// answer it keeps otherwise (marked), over the answer the engine wrote.
    fn doc(&self, path: &str) -> String {
        let kept = self.review.answer_files();
        self.review
            .documents()
            .into_iter()
            .find(|doc| doc.path == path)
            .map(|doc| doc.contents)
            .or_else(|| {
                kept.into_iter()
                    .find(|file| file.path == path)
                    .map(|file| file.for_disk().into_owned())
            })
            .or_else(|| self.answers.get(path).cloned())
            .unwrap_or_else(|| panic!("no file {path}"))
    }

    fn debate(&self) -> Value {
        yaml_serde::from_str(&self.doc("debate.yaml")).expect("debate.yaml parses")
    }

    fn logged(&self, kind: LogKind, needle: &str) -> bool {
        self.review
            .log()
            .iter()
            .any(|entry| entry.kind == kind && entry.message.contains(needle))
    }

    fn lead(&self) -> String {
        summary_lead(&self.review).expect("a finished review has a lead")
    }
}

// ---- effects and answers --------------------------------------------------------

fn starts(effects: &[Effect]) -> Vec<&CallSpec> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::StartCall(spec) => Some(spec),
            _ => None,
        })
        .collect()
}

/// `role/stage` of every call a batch starts.
fn slots(effects: &[Effect]) -> Vec<String> {
    starts(effects)
        .iter()
        .map(|spec| format!("{}/{}", spec.request.role, spec.request.stage))
        .collect()
}

fn the_start(effects: &[Effect]) -> &CallSpec {
    match effects {
        [Effect::StartCall(spec)] => spec,
        other => panic!("expected exactly one StartCall, got {other:?}"),
    }
}

fn finished(effects: &[Effect]) -> Option<&Outcome> {
    effects.iter().find_map(|effect| match effect {
        Effect::Finished(outcome) => Some(outcome),
        _ => None,
    })
}

/// Builds a harness at some point of a run.
type Setup = fn() -> Harness;

/// What each judge answers.
type Judges = Box<dyn Fn(JudgeRole) -> String>;

fn judge_slot(role: JudgeRole) -> String {
    format!("judge.{role}")
}

/// A judge scoring 4 everywhere except `low`, with synthesis 4.
fn scored(role: JudgeRole, low: &[(&str, Criterion, u8)]) -> String {
    judge_text(&judge_config(role, true), scores(4, low), [4, 4, 4])
}

fn all_fours(role: JudgeRole) -> String {
    flat_judge_text(role, 4)
}

/// `judge` scores `low` (4 elsewhere); every other judge scores 4 everywhere.
fn one_judge(judge: JudgeRole, low: &[(&str, Criterion, u8)]) -> impl Fn(JudgeRole) -> String {
    let low: Vec<(String, Criterion, u8)> = low
        .iter()
        .map(|(b, c, s)| (b.to_string(), *c, *s))
        .collect();
    move |role| {
        let low: Vec<(&str, Criterion, u8)> =
            low.iter().map(|(b, c, s)| (b.as_str(), *c, *s)).collect();
        if role == judge {
            scored(role, &low)
        } else {
            all_fours(role)
        }
    }
}

/// A judge answer that also lists `block` as lacking information.
fn with_insufficient(text: &str, block: &str) -> String {
    text.replacen(
        "synthesis:\n",
        &format!("insufficient_information: [{block}]\nsynthesis:\n"),
        1,
    )
}

fn without_steelman(text: &str) -> String {
    text.lines()
        .filter(|line| !line.contains("steelman:"))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Rewrites the prose of a fixture answer (quoted values only) so that it
/// names no block id and no judge role, as a real agent's prose usually
/// does not; ids in keys (`id: b1`, `target_block: b2`) stay.
fn plain(text: &str) -> String {
    const WORDS: [(&str, &str); 4] = [
        ("b1", "the ledger"),
        ("b2", "the projector"),
        ("b3", "the replay job"),
        ("b4", "the old write path"),
    ];
    let mut out = String::new();
    for line in text.lines() {
        match line.split_once(": \"") {
            Some((key, value)) => {
                let mut value = value.to_string();
                for (id, words) in WORDS {
                    value = value.replace(id, words);
                }
                for role in JudgeRole::ALL {
                    value = value.replace(role.as_str(), "a reviewer");
                }
                out.push_str(&format!("{key}: \"{value}\n"));
            }
            None => out.push_str(&format!("{line}\n")),
        }
    }
    out
}

/// A finished round-1 review ending in `verdict`, with plain-language prose.
fn ending(verdict: Verdict) -> Harness {
    let mut harness = Harness::at_evaluation_with(final_round_config(), plain);
    harness.finish_judges(|role| {
        plain(&match (verdict, role) {
            (Verdict::Revise, Analyst) => scored(role, &[("b2", Feasibility, 2)]),
            (Verdict::Reject, Analyst) => scored(role, &[("b3", Risk, 1)]),
            (Verdict::Escalate, Stylist) => with_insufficient(&scored(role, &[]), "b2"),
            _ => scored(role, &[]),
        })
    });
    assert_eq!(harness.verdict(), Some(verdict), "{}", harness.rule());
    harness
}

const VERDICTS: [Verdict; 4] = [
    Verdict::Adopt,
    Verdict::Revise,
    Verdict::Reject,
    Verdict::Escalate,
];

/// What keeps process detail out of a reader's opening (RF-06, RF-08).
fn provenance_leaks(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let mut leaks: Vec<String> = JudgeRole::ALL
        .iter()
        .map(|role| role.as_str())
        .chain(["judge", "/5", "discarded in favour"])
        .filter(|word| lower.contains(word))
        .map(str::to_string)
        .collect();
    leaks.extend(
        text.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|token| {
                token.len() > 1
                    && token.starts_with('b')
                    && token[1..].chars().all(|c| c.is_ascii_digit())
            })
            .map(|token| format!("block id {token}")),
    );
    if text.chars().any(|c| c.is_ascii_digit()) {
        leaks.push("a number (score?)".into());
    }
    leaks
}

// ---- stage flow (DR-01..07) -----------------------------------------------------

/// DR-01, DR-02, DR-04: proposal → critique → moderation → revision →
/// evaluation → verdict; each call is started by the answer of the stage
/// before it, and no two of stages 1–3 are ever in flight together.
#[test]
fn dr_01_dr_02_dr_04_stages_run_in_order_one_at_a_time() {
    let mut h = Harness::new(config());
    assert_eq!(slots(&h.batches[0]), ["proposer/proposal"]);
    assert_eq!(h.stage(), "proposal");

    let after_proposal = h.finish("proposer", &proposal_text());
    assert_eq!(slots(&after_proposal), ["critic/critique"]);

    let after_critique = h.finish("critic", &default_critique());
    assert!(
        matches!(after_critique.as_slice(), [Effect::AwaitModeration { items }] if items.len() == 4),
        "{after_critique:?}"
    );
    assert_eq!(h.stage(), "moderation");

    h.decide_all(Accept);
    assert_eq!(h.started.len(), 2, "decisions alone start nothing");
    let after_submit = h.submit();
    assert_eq!(slots(&after_submit), ["proposer/revision"]);

    let after_revision = h.finish("proposer", &revision_text(&ALL_ITEMS));
    assert_eq!(
        slots(&after_revision),
        [
            "judge.analyst/evaluation",
            "judge.stylist/evaluation",
            "judge.aesthete/evaluation"
        ]
    );
    h.finish_judges(all_fours);

    let stages: Vec<&str> = h
        .review
        .log()
        .iter()
        .filter(|entry| entry.kind == LogKind::Stage)
        .map(|entry| entry.message.as_str())
        .collect();
    assert_eq!(
        stages,
        [
            "stage: proposal",
            "stage: critique",
            "stage: moderation",
            "stage: revision (round 1)",
            "stage: evaluation (round 1)",
            "stage: verdict"
        ]
    );
    assert_eq!(h.overlaps, 0, "a stage 1–3 call overlapped another call");
    assert!(h.review.progress().finished);
}

/// DR-02: the revision's prompt carries the critique items it must answer.
#[test]
fn dr_02_revision_prompt_contains_the_accepted_critique() {
    let mut h = Harness::at_moderation(config());
    h.decide_all(Accept);
    h.submit();
    let prompt = h.prompt("proposer");
    for (id, target, severity) in [
        ("c1", "b1", "major"),
        ("c2", "b2", "minor"),
        ("c4", "b4", "minor"),
    ] {
        assert!(
            prompt.contains(&format!("### {id}: on block {target}")),
            "{id} missing"
        );
        assert!(prompt.contains(&format!("Weakness of {target} ({severity}).")));
    }
    assert!(prompt.contains("at least one entry for each of these ids: c1, c2, c3, c4"));
}

/// DR-04: no judge starts while the revision is still being retried; the
/// judges start only from the revision's answer.
#[test]
fn dr_04_no_judge_starts_before_the_revision_is_collected() {
    let mut h = Harness::at_moderation(config());
    h.decide_all(Accept);
    h.submit();
    let retry = h.time_out("proposer");
    assert_eq!(slots(&retry), ["proposer/revision"]);
    assert!(h.started.iter().all(|s| s.request.stage != "evaluation"));
    let after_revision = h.finish("proposer", &revision_text(&ALL_ITEMS));
    assert_eq!(starts(&after_revision).len(), 3);
    assert_eq!(h.overlaps, 0);
}

/// DR-05: a critique with no items still goes through a revision stage,
/// straight from the critique (nothing to moderate).
#[test]
fn dr_05_revision_runs_even_with_zero_critique_items() {
    let mut h = Harness::new(config());
    h.finish("proposer", &proposal_text());
    let effects = h.finish("critic", &critique_text(&[]));
    assert_eq!(slots(&effects), ["proposer/revision"]);
    assert!(
        !effects
            .iter()
            .any(|e| matches!(e, Effect::AwaitModeration { .. }))
    );
    assert!(
        h.prompt("proposer")
            .contains("No item requires an answer in this round")
    );
    let judges = h.finish("proposer", &revision_text(&[]));
    assert_eq!(starts(&judges).len(), 3);
    assert_eq!(h.review.revisions().len(), 1);
}

/// DR-05, DR-15: with every item rejected the revision still runs and need
/// answer nothing.
#[test]
fn dr_05_revision_runs_when_every_item_is_rejected() {
    let mut h = Harness::at_moderation(config());
    h.decide_all(Reject);
    assert_eq!(slots(&h.submit()), ["proposer/revision"]);
    let prompt = h.prompt("proposer");
    assert!(prompt.contains("No critique item needs an answer in this round"));
    // Issue 26: rejected items are shown, but only as what not to act on.
    let (to_answer, rejected) = prompt
        .split_once("## Items the moderator rejected")
        .expect("a section of rejected items");
    assert!(
        !to_answer.contains("Weakness of"),
        "rejected items are not among those to answer"
    );
    assert!(rejected.contains("Do not act on them") && rejected.contains("Weakness of b1"));
    assert!(prompt.contains("- c1: rejected — do not act on it"));
    let judges = h.finish("proposer", &revision_text(&[]));
    assert_eq!(starts(&judges).len(), 3);
    assert!(h.review.revisions()[0].must_address.is_empty());
}

/// DR-03, INF-03, INF-05: every judge of the panel starts in the same batch
/// (3, or 5 when high stakes), each with its own raw-output file.
#[test]
fn dr_03_inf_03_inf_05_all_judges_start_together_with_their_files() {
    for high_stakes in [false, true] {
        let h = Harness::at_evaluation(config_with(high_stakes));
        let batch = h.batches.last().unwrap();
        let panel = architecture_panel(high_stakes);
        assert_eq!(starts(batch).len(), if high_stakes { 5 } else { 3 });
        assert_eq!(starts(batch).len(), batch.len(), "only StartCalls");
        for (spec, judge) in starts(batch).into_iter().zip(&panel) {
            assert_eq!(spec.request.role, judge_slot(judge.role));
            let path = format!("judges/judge-{}.md", judge.role);
            assert_eq!(spec.raw_output_path.as_deref(), Some(path.as_str()));
        }
        assert_eq!(h.live.len(), panel.len(), "all in flight together");
    }
}

/// DR-03, INF-05, A8: round 2's judges write `judge-{role}-round-2.md`;
/// round 1's files stay in the tree.
#[test]
fn dr_03_inf_05_round_two_judge_files_carry_the_round_suffix() {
    let mut h = Harness::judged(config(), one_judge(Analyst, &[("b2", Feasibility, 2)]));
    let round_two = h.finish("proposer", &revision_text(&["d1"]));
    for spec in starts(&round_two) {
        let role = spec.request.role.trim_start_matches("judge.");
        let path = format!("judges/judge-{role}-round-2.md");
        assert_eq!(spec.raw_output_path.as_deref(), Some(path.as_str()));
        assert_eq!(spec.request.round, 2);
    }
    assert_eq!(starts(&round_two).len(), 3);
    h.finish_judges(all_fours);
    for role in [Analyst, Stylist, Aesthete] {
        assert!(h.has_doc(&judge_file(role, 1)) && h.has_doc(&judge_file(role, 2)));
    }
    assert_eq!(judge_file(Analyst, 2), "judges/judge-analyst-round-2.md");
}

/// DR-06: judges read the revised tree and its change log, not the original.
#[test]
fn dr_06_judges_score_the_revised_tree_and_change_log() {
    let h = Harness::at_evaluation(config());
    for judge in ["judge.analyst", "judge.stylist", "judge.aesthete"] {
        let prompt = h.prompt(judge);
        assert!(
            prompt.contains("Revised claim of b1.") && prompt.contains("Better evidence for b4.")
        );
        assert!(prompt.contains("new for c3"), "{judge}: change log missing");
        assert!(!prompt.contains("Claim of b1.") && !prompt.contains("Evidence for b1."));
    }
}

/// DR-07, DR-41, RF-03, RF-19, A19: the stage files appear as their stages
/// complete; `summary.md` only once the run has finished.
#[test]
fn dr_07_dr_41_documents_hold_every_stage_file() {
    let paths =
        |h: &Harness| -> Vec<String> { h.review.documents().into_iter().map(|d| d.path).collect() };
    let h = Harness::at_moderation(config());
    // What the blocks cite, checked, from the critique on (issue 52).
    assert_eq!(
        paths(&h),
        [
            "proposal.md",
            "critique.md",
            "debate.yaml",
            "transcript.md",
            "evidence.yaml"
        ]
    );
    let mut h = Harness::at_evaluation(config());
    assert!(h.has_doc("revision.md") && !h.has_doc("summary.md"));
    h.finish_judges(all_fours);
    assert_eq!(
        paths(&h),
        [
            "proposal.md",
            "critique.md",
            "revision.md",
            "debate.yaml",
            "transcript.md",
            "summary.md",
            "evidence.yaml"
        ],
        "a judge's answer is no document: the engine wrote it once as it came"
    );
    for role in [Analyst, Stylist, Aesthete] {
        assert!(h.has_doc(&judge_file(role, 1)));
    }
    let revision = h.doc("revision.md");
    assert!(revision.contains("### Change log") && revision.contains("Revised claim of b1."));
    assert!(
        h.doc("proposal.md")
            .contains("### b1 (claim)\n\nClaim of b1.")
    );
}

// ---- debate.yaml (DR-22, DR-43..46) -------------------------------------------------

/// DR-43: `meta` records topic, mode, ISO-8601 timestamp and critique mode.
#[test]
fn dr_43_meta_records_topic_mode_timestamp_and_critique_mode() {
    let meta = Harness::new(config()).debate()["meta"].clone();
    assert_eq!(meta["topic"], TOPIC);
    assert_eq!(meta["mode"], "architecture");
    assert_eq!(meta["critique_mode"], "generous-steelman");
    let stamp = meta["timestamp"].as_str().unwrap();
    assert_eq!(DateTime::parse_from_rfc3339(stamp).unwrap(), t0());
}

/// DR-22, DR-44: proposer (oracle), critic (mephistopheles) and the judges
/// with their agents and weights.
#[test]
fn dr_22_dr_44_participants_record_roles_agents_and_weights() {
    let participants = Harness::new(config()).debate()["participants"].clone();
    assert_eq!(participants["proposer"]["role"], "oracle");
    assert_eq!(participants["proposer"]["agent"], "script:proposer-model");
    assert_eq!(participants["critic"]["role"], "mephistopheles");
    assert_eq!(participants["critic"]["agent"], "script:critic-model");
    let judges = participants["judges"].as_sequence().unwrap();
    assert_eq!(judges.len(), 3);
    for judge in judges {
        let role = judge["role"].as_str().unwrap();
        assert_eq!(judge["agent"], format!("script:{role}-model").as_str());
        assert!(matches!(
            judge["weight"].as_str(),
            Some("binding" | "advisory")
        ));
    }
}

/// DR-45: every stage keeps its parsed data and its raw output verbatim.
#[test]
fn dr_45_stages_keep_parsed_data_and_verbatim_raw_outputs() {
    let h = Harness::judged(config(), all_fours);
    let stages = h.debate()["stages"].clone();
    let proposal = &stages["proposal"];
    assert_eq!(proposal["thesis_tree"].as_sequence().unwrap().len(), 4);
    assert_eq!(proposal["thesis_tree"][0]["text"], "Claim of b1.");
    assert_eq!(
        proposal["raw_output"].as_str(),
        Some(proposal_text().as_str())
    );

    let critique = &stages["critique"];
    let items = critique["critiques"].as_sequence().unwrap();
    let ids: Vec<&str> = items
        .iter()
        .map(|item| item["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ALL_ITEMS);
    assert!(items.iter().all(|item| item["decision"] == "accept"));
    assert_eq!(
        critique["raw_output"].as_str(),
        Some(default_critique().as_str())
    );

    let revision = &stages["revision"];
    assert_eq!(revision["revised_tree"][0]["text"], "Revised claim of b1.");
    assert_eq!(revision["change_log"].as_sequence().unwrap().len(), 4);
    let raw = revision_text(&ALL_ITEMS);
    assert_eq!(revision["raw_output"].as_str(), Some(raw.as_str()));

    let evaluation = &stages["evaluation"];
    // analyst 3 criteria, stylist 2, aesthete 1; four blocks each.
    assert_eq!(evaluation["block_scores"].as_sequence().unwrap().len(), 24);
    assert_eq!(
        evaluation["synthesis_scores"].as_sequence().unwrap().len(),
        3
    );
    assert_eq!(evaluation["verdict"], "ADOPT");
}

/// DR-46, A13: a top-level `decision` block always equals the verdict.
#[test]
fn dr_46_a13_top_level_decision_equals_the_verdict() {
    for verdict in VERDICTS {
        let debate = ending(verdict).debate();
        assert_eq!(debate["decision"]["decision"], verdict.as_str());
        assert_eq!(debate["stages"]["evaluation"]["verdict"], verdict.as_str());
        assert_eq!(debate["outcome"]["verdict"], verdict.as_str());
    }
}

/// DR-42, INF-17: `transcript.md` lists every timeout, cancellation, retry
/// and skip, each with a timestamp and the call id.
#[test]
fn dr_42_inf_17_transcript_lines_carry_timestamp_and_call_id() {
    let mut h = Harness::at_evaluation(config());
    h.give_up("judge.stylist");
    h.finish_judges(all_fours);
    let transcript = h.doc("transcript.md");
    for label in ["TIMEOUT", "CANCEL", "RETRY", "SKIP"] {
        let lines: Vec<&str> = transcript
            .lines()
            .filter(|line| line.contains(&format!("**{label}**")))
            .collect();
        assert!(!lines.is_empty(), "no {label} line");
        for line in lines {
            let stamp = line.split('`').nth(1).unwrap();
            assert!(DateTime::parse_from_rfc3339(stamp).is_ok(), "{line}");
            assert!(line.contains("`judge.stylist/evaluation/r1/a"), "{line}");
        }
    }
}

// ---- critique items and moderation (DR-13, DR-15, A10, A11) ----------------------------

/// DR-13, A10: items are numbered c1..cN by their place in the critic's
/// list; one aimed at an unknown block costs that item alone (issue 59):
/// the critic is asked about it once, then it is left out, noted in
/// critique.md, the transcript and the deliverable, and the others keep
/// their numbers.
#[test]
fn dr_13_a10_items_numbered_in_order_and_unknown_targets_dropped() {
    let critique = critique_text(&[("b2", "major"), ("b9", "minor"), ("b1", "note")]);
    let mut h = Harness::new(config());
    h.finish("proposer", &proposal_text());
    let effects = h.finish("critic", &critique);
    let repair = the_start(&effects);
    assert_eq!(
        (repair.request.role.as_str(), repair.request.attempt),
        ("critic", 2)
    );
    assert!(
        repair.request.prompt.contains("c2: line")
            && repair.request.prompt.contains("no block \"b9\""),
        "{}",
        repair.request.prompt
    );
    let effects = h.finish("critic", &critique);
    let [Effect::AwaitModeration { items }] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    let ids: Vec<(&str, &str)> = items
        .iter()
        .map(|item| (item.id.as_str(), item.target.as_str()))
        .collect();
    assert_eq!(ids, [("c1", "b2"), ("c3", "b1")]);
    assert!(h.logged(
        LogKind::LeftOut,
        "left out critique item c2 of the critic's answer"
    ));
    assert!(
        h.doc("critique.md")
            .contains("Left out, critique item c2: line")
    );
    assert!(h.doc("transcript.md").contains("left out critique item c2"));
    assert_eq!(h.review.board().unread.len(), 1, "the board shows it");
}

/// DR-15, A11: a revision that leaves an accepted item unanswered is asked
/// once about that item, quoting what is missing (issue 59: about that
/// item alone, the rest of the revision read).
#[test]
fn dr_15_a11_unaddressed_item_gets_one_repair_quoting_the_error() {
    let mut h = Harness::at_moderation(config());
    h.decide_all(Accept);
    h.submit();
    let original = h.prompt("proposer");
    let effects = h.finish("proposer", &revision_text(&["c1", "c2", "c3"]));
    let repair = the_start(&effects);
    assert_eq!(repair.request.stage, "revision");
    assert_eq!(repair.request.attempt, 2);
    assert!(
        repair.request.prompt.contains("no entry addresses c4"),
        "the error is quoted"
    );
    assert!(repair.request.prompt.starts_with(original.trim()));
    assert!(h.logged(LogKind::LeftOut, "could not be read"));
    assert!(h.started.iter().all(|s| s.request.stage != "evaluation"));
}

/// DR-15, A11, A18: a second unusable revision stops the debate with a
/// recorded failure and no verdict; the unusable answers stay on record.
/// A revision that still leaves items unanswered after its repair goes on
/// to the judges (issue 59: one slip costs one item), and every record says
/// which items it left unanswered.
#[test]
fn dr_15_a18_second_unusable_revision_stops_without_a_verdict() {
    let mut h = Harness::at_moderation(config());
    h.decide_all(Accept);
    h.submit();
    h.finish("proposer", "I revised it, see above.");
    let effects = h.finish("proposer", "I revised it, see above.");
    assert!(matches!(
        finished(&effects),
        Some(Outcome::Failed { reason }) if reason.contains("even after a repair attempt")
    ));
    assert_eq!(h.verdict(), None);
    assert!(h.started.iter().all(|s| s.request.stage != "evaluation"));
    let debate = h.debate();
    assert!(debate["decision"].is_null() && debate["stages"]["evaluation"].is_null());
    assert_eq!(debate["outcome"]["kind"], "failed");
    assert_eq!(h.doc("revision.md").matches("<!-- MALFORMED:").count(), 2);
    assert!(h.lead().starts_with("**No decision.**"));

    let mut h = Harness::at_moderation(config());
    h.decide_all(Accept);
    h.submit();
    h.finish("proposer", &revision_text(&["c1"]));
    h.finish("proposer", &revision_text(&["c1", "c2"]));
    assert!(
        h.started.iter().any(|s| s.request.stage == "evaluation"),
        "the judges score the revision"
    );
    let unread: Vec<String> = h.review.unread().iter().map(|u| u.what.clone()).collect();
    assert_eq!(unread, ["answer to c3", "answer to c4"]);
    let debate = h.debate();
    assert_eq!(debate["unread"][0]["what"], "answer to c3");
    assert_eq!(debate["unread"][0]["whose"], "proposer");
}

/// DR-15: rejected items are not required, and are shown to the reviser
/// only as what not to act on (issue 26); deferred items are shown as open questions and recorded in debate.yaml.
#[test]
fn dr_15_rejected_items_are_dropped_and_deferred_items_stay_open() {
    let mut h = Harness::at_moderation(config());
    for (id, decision) in [
        ("c1", Accept),
        ("c2", Reject),
        ("c3", Defer),
        ("c4", Accept),
    ] {
        h.decide(id, decision);
    }
    h.submit();
    let prompt = h.prompt("proposer");
    // Issue 26: the rejected item is shown only as what not to act on.
    let (to_answer, rejected) = prompt
        .split_once("## Items the moderator rejected")
        .expect("a section of rejected items");
    assert!(
        !to_answer.contains("Weakness of b2"),
        "rejected item to answer"
    );
    assert!(rejected.contains("### c2: on block b2"), "{rejected}");
    assert!(!rejected.contains("Weakness of b1"), "{rejected}");
    let open = prompt
        .split("## Open questions")
        .nth(1)
        .expect("open questions");
    assert!(open.contains("### c3: on block b3") && open.contains("Weakness of b3 (note)."));
    assert!(prompt.contains("each of these ids: c1, c4."));

    let effects = h.finish("proposer", &revision_text(&["c1", "c4"]));
    assert_eq!(starts(&effects).len(), 3, "c2 and c3 are not required");
    assert_eq!(h.review.revisions()[0].must_address, ["c1", "c4"]);
    let debate = h.debate();
    let deferred = debate["deferred_items"].as_sequence().unwrap();
    assert_eq!(deferred.len(), 1);
    assert_eq!(deferred[0]["id"], "c3");
    assert_eq!(deferred[0]["decision"], "defer");
    assert!(
        h.doc("revision.md")
            .contains("Deferred items, still open: c3")
    );
}

/// Moderation: submitting with items undecided does nothing but log why.
#[test]
fn moderation_submit_with_undecided_items_waits() {
    let mut h = Harness::at_moderation(config());
    h.decide("c1", Accept);
    assert!(h.submit().is_empty());
    assert!(h.logged(
        LogKind::Moderation,
        "cannot submit yet: c2, c3, c4 still undecided"
    ));
    assert_eq!(h.stage(), "moderation");
    assert_eq!(h.started.len(), 2);
    h.decide_all(Reject);
    assert_eq!(slots(&h.submit()), ["proposer/revision"]);
}

/// Moderation: a decision may change until submission and is ignored after.
#[test]
fn moderation_decisions_are_final_once_submitted() {
    let mut h = Harness::at_moderation(config());
    h.decide_all(Accept);
    h.decide("c2", Reject);
    h.decide("c2", Defer);
    h.submit();
    assert!(h.decide("c1", Reject).is_empty());
    assert_eq!(h.review.ruling("c1").unwrap().decision, Accept);
    assert_eq!(h.review.ruling("c2").unwrap().decision, Defer);
    assert!(h.logged(
        LogKind::Note,
        "ignored a decision on c1: moderation is over"
    ));
    assert!(
        h.decide("c9", Accept).is_empty(),
        "unknown items are ignored too"
    );
}

/// Moderation: the moderator's notes reach critique.md, debate.yaml and the
/// reviser's prompt.
#[test]
fn moderation_notes_are_recorded() {
    let note = "Ask the payments team about the backfill.";
    let mut h = Harness::at_moderation(config());
    h.decide_all(Reject);
    h.decide_noted("c1", Accept, Some(note));
    h.submit();
    let critique = h.doc("critique.md");
    assert!(
        critique.contains(&format!("moderator's note: {note}")),
        "{critique}"
    );
    assert!(critique.contains("**ACCEPTED**") && critique.contains("**REJECTED**"));
    assert_eq!(
        h.debate()["stages"]["critique"]["critiques"][0]["note"],
        note
    );
    assert!(
        h.prompt("proposer")
            .contains(&format!("Moderator's note: {note}"))
    );
}

// ---- critique modes (DR-11, DR-16..21) -------------------------------------------------

/// DR-11, DR-16, DR-17, DR-18: one stance per run, stated in the critic's
/// prompt and recorded as `meta.critique_mode`; generous-steelman by default.
#[test]
fn dr_16_dr_17_dr_18_critique_mode_is_stated_and_recorded() {
    assert_eq!(CritiqueMode::default(), CritiqueMode::GenerousSteelman);
    for mode in [
        CritiqueMode::Strict,
        CritiqueMode::GenerousSteelman,
        CritiqueMode::Neutral,
    ] {
        let mut h = Harness::new(ReviewConfig {
            critique_mode: mode,
            ..config()
        });
        h.finish("proposer", &proposal_text());
        let prompt = h.prompt("critic");
        assert!(
            prompt.contains(&format!("CRITIQUE MODE: {}\n", mode.as_str())),
            "{mode:?}"
        );
        assert!(
            prompt.contains("Critique every block, one at a time"),
            "DR-11, {mode:?}"
        );
        assert_eq!(h.debate()["meta"]["critique_mode"], mode.as_str());
    }
}

/// DR-19, DR-20, DR-21, A12: each stance's prompt asks for its own shape.
#[test]
fn dr_19_dr_20_dr_21_each_stance_asks_for_its_own_critique() {
    let cases = [
        (
            CritiqueMode::GenerousSteelman,
            ["most defensible form", "`steelman`"],
        ),
        (
            CritiqueMode::Strict,
            ["Give the proposal no charity", "Name the failure mode"],
        ),
        (
            CritiqueMode::Neutral,
            ["neither generous nor hostile", "\"Strength:\""],
        ),
    ];
    for (mode, phrases) in cases {
        let mut h = Harness::new(ReviewConfig {
            critique_mode: mode,
            ..config()
        });
        h.finish("proposer", &proposal_text());
        let prompt = h.prompt("critic");
        for phrase in phrases {
            assert!(prompt.contains(phrase), "{mode:?}: missing {phrase:?}");
        }
        let asks_steelman = prompt.contains("steelman:");
        assert_eq!(
            asks_steelman,
            mode == CritiqueMode::GenerousSteelman,
            "{mode:?}"
        );
    }
}

/// DR-19: in generous-steelman mode a critique without its steelman is
/// malformed and gets a repair; the strict stance takes the same answer.
#[test]
fn dr_19_steelman_mode_requires_the_steelman() {
    let answer = without_steelman(&default_critique());
    let mut h = Harness::new(config());
    h.finish("proposer", &proposal_text());
    let effects = h.finish("critic", &answer);
    let repair = the_start(&effects);
    assert_eq!(
        (repair.request.role.as_str(), repair.request.attempt),
        ("critic", 2)
    );
    assert!(
        repair
            .request
            .prompt
            .contains("required in generous-steelman mode")
    );

    let strict = Harness::at_moderation_with(
        ReviewConfig {
            critique_mode: CritiqueMode::Strict,
            ..config()
        },
        &answer,
    );
    assert_eq!(strict.stage(), "moderation");
    assert_eq!(strict.review.critique_items().len(), 4);
}

// ---- roles and prompts (DR-22..25, DR-47, DR-48) -----------------------------------------

/// DR-23: agents work under real role labels; judges see the proposer's and
/// critic's labels; no Alpha/Beta blinding anywhere.
#[test]
fn dr_23_prompts_use_real_role_labels_never_alpha_beta() {
    let mut h = Harness::new(config());
    h.finish("proposer", &proposal_text());
    assert!(h.prompt("critic").contains("proposer (oracle)"));
    let mut h = Harness::at_evaluation(config());
    let judge = h.prompt("judge.analyst");
    assert!(judge.contains("proposer (oracle)") && judge.contains("critic (mephistopheles)"));
    h.finish_judges(all_fours);
    for spec in &h.started {
        let prompt = &spec.request.prompt;
        assert!(
            !prompt.contains("Alpha") && !prompt.contains("Beta"),
            "{}",
            spec.request.call_id
        );
    }
}

/// DR-24: the proposer's prompt gives its role, the topic, the attached
/// material, and asks for a tree of blocks with unique ids and every field.
#[test]
fn dr_24_proposer_prompt_states_role_topic_and_tree_fields() {
    let prompt = Harness::new(config()).prompt("proposer");
    assert!(prompt.starts_with("You are the proposer in a quorum decision review"));
    for needle in [
        TOPIC,
        CONTEXT_TEXT,
        "Kind of decision: architecture",
        "No two blocks may share an id",
    ] {
        assert!(prompt.contains(needle), "missing {needle:?}");
    }
    for field in [
        "`id`",
        "`type`",
        "`text`",
        "`evidence`",
        "`tradeoffs`",
        "`risks`",
    ] {
        assert!(prompt.contains(field), "missing {field}");
    }
}

/// DR-25, DR-47, DR-48, A1, INF-22: each judge's prompt gives its role,
/// focus and weight, and only its own criteria, each with its question.
#[test]
fn dr_25_dr_47_dr_48_judge_prompt_has_role_focus_weight_and_own_criteria() {
    let h = Harness::at_evaluation(config_with(true));
    for judge in architecture_panel(true) {
        let prompt = h.prompt(&judge_slot(judge.role));
        let role = judge.role;
        assert!(prompt.contains(&format!("Your role: {role} ({})", role.focus())));
        assert!(prompt.contains(&format!("Your weight: {}", judge.weight.as_str())));
        for criterion in Criterion::ALL {
            let line = format!("- `{criterion}`: {}", criterion.question());
            assert_eq!(
                prompt.contains(&line),
                judge.criteria.contains(&criterion),
                "{role}: {criterion}"
            );
        }
        assert!(prompt.contains(TOPIC));
    }
    let analyst = h.prompt("judge.analyst");
    assert!(
        analyst.contains("- `correctness`:")
            && analyst.contains("- `feasibility`:")
            && analyst.contains("- `risk`:")
    );
    assert!(!analyst.contains("`simplicity`"));
}

// ---- verdicts and loops (DR-28..40, DR-49, A8) -------------------------------------------------

/// DR-28, DR-29, DR-30: good scores on every criterion → ADOPT, and the run
/// finishes with nothing left in flight.
#[test]
fn dr_28_dr_30_all_good_scores_adopt() {
    let mut h = Harness::at_evaluation(config());
    let effects = h.finish_judges(all_fours);
    assert!(matches!(
        effects.last(),
        Some(Effect::Finished(Outcome::Decided {
            verdict: Verdict::Adopt,
            ..
        }))
    ));
    assert_eq!(starts(&effects).len(), 0);
    assert!(h.live.is_empty() && h.review.live_call_ids().is_empty());
    assert_eq!(h.review.outcome().unwrap().exit_code(), 0);
    assert_eq!(h.stage(), "verdict");
}

/// DR-32, DR-35, DR-39, A8: a binding score of 2 → REVISE → back to stage 3
/// only (no new proposal or critique), with directive d1 carrying the
/// analyst's rationale; the second round then ADOPTs.
#[test]
fn dr_35_dr_39_a8_binding_failure_loops_to_revision_with_directives() {
    let mut h = Harness::at_evaluation(config());
    let effects = h.finish_judges(one_judge(Analyst, &[("b2", Feasibility, 2)]));
    assert_eq!(slots(&effects), ["proposer/revision"]);
    assert!(
        finished(&effects).is_none(),
        "REVISE with loops left is not final"
    );
    let spec = the_start(&effects);
    assert_eq!(spec.request.round, 2);
    let prompt = &spec.request.prompt;
    assert!(
        prompt.contains("### d1 (from analyst on b2 feasibility (2))"),
        "{prompt}"
    );
    assert!(
        prompt.contains("analyst on b2 feasibility."),
        "the rationale travels"
    );
    assert!(prompt.contains("each of these ids: d1."));
    assert!(prompt.contains("No critique item needs an answer in this round"));

    let judges = h.finish("proposer", &revision_text(&["d1"]));
    assert_eq!(starts(&judges).len(), 3);
    assert!(h.prompt("judge.analyst").contains("evaluation round 2"));
    h.finish_judges(all_fours);
    assert_eq!(h.verdict(), Some(Verdict::Adopt));
    assert_eq!(h.review.revisions()[1].must_address, ["d1"]);
    assert_eq!(h.started_for("critic").len(), 1, "no new critique");
    assert_eq!(
        h.started
            .iter()
            .filter(|s| s.request.stage == "proposal")
            .count(),
        1
    );
    let revision = h.doc("revision.md");
    assert!(revision.contains("## Round 2") && revision.contains("Directive d1"));
    assert_eq!(
        h.debate()["stages"]["revision"]["rounds"][1]["must_address"][0],
        "d1"
    );
}

/// JM-30, JM-31 (issue 55, did the debate pay): beside the verdict, each
/// judge's own vote from its round-1 scores (the verdict rules on that
/// judge alone), the plain vote they make, and every judge whose vote moved
/// in a later round: after pressure alone when the revision left the
/// blocks behind its low scores as they were.
#[test]
fn jm_30_31_a_review_shows_the_plain_vote_and_a_judge_moved_by_pressure() {
    let mut h = Harness::judged(config(), one_judge(Analyst, &[("b2", Feasibility, 2)]));
    h.finish("proposer", &revision_text(&["d1"]));
    h.finish_judges(all_fours);
    assert_eq!(h.verdict(), Some(Verdict::Adopt));
    let payoff = h.review.payoff().expect("a decided review has the section");
    let votes: Vec<(&str, &str)> = payoff
        .votes
        .iter()
        .map(|vote| (vote.voter.as_str(), vote.decision.as_str()))
        .collect();
    assert_eq!(
        votes,
        [
            ("judge.analyst", "REVISE"),
            ("judge.stylist", "ADOPT"),
            ("judge.aesthete", "ADOPT")
        ]
    );
    assert_eq!(payoff.votes[0].why, "b2 feasibility 2");
    assert_eq!(payoff.plain_vote.as_deref(), Some("ADOPT"));
    assert!(payoff.agrees());
    assert_eq!(payoff.changes.len(), 1);
    let change = &payoff.changes[0];
    assert_eq!(
        (
            change.who.as_str(),
            change.from.as_str(),
            change.to.as_str()
        ),
        ("judge.analyst", "REVISE", "ADOPT")
    );
    assert_eq!(change.when, "round 2");
    assert_eq!(change.preceded_by, Preceded::Pressure);
    assert!(change.why.contains("b2 unchanged"), "{}", change.why);
    // In debate.yaml, the summary's later sections and the board.
    assert_eq!(h.debate()["payoff"]["plain_vote"], "ADOPT");
    assert_eq!(
        h.debate()["payoff"]["changes"][0]["preceded_by"],
        "pressure"
    );
    let summary = h.doc("summary.md");
    let section = summary.find("## Did the debate pay?").expect("the section");
    assert!(section > summary.find("## How this was decided").unwrap());
    assert!(summary[section..].contains("1 after pressure alone"));
    assert_eq!(h.review.board().payoff, payoff.lines());
}

/// JM-31: a judge whose vote moved after the revision rewrote a block
/// behind its low score moved on new evidence; a plain vote the debate
/// overturned says so.
#[test]
fn jm_31_a_judge_moved_by_a_rewritten_block_moved_on_evidence() {
    // Round 1: the analyst (binding) and the stylist (advisory) each score
    // b2 low on a criterion of their own; the aesthete passes it.
    let judges = |role: JudgeRole| match role {
        Analyst => scored(role, &[("b2", Feasibility, 2)]),
        Stylist => scored(role, &[("b2", Clarity, 2)]),
        other => all_fours(other),
    };
    let mut h = Harness::judged(config(), judges);
    let rewritten = revision_text(&["d1"]).replace("Revised claim of b2.", "b2, rewritten.");
    h.finish("proposer", &rewritten);
    h.finish_judges(all_fours);
    assert_eq!(h.verdict(), Some(Verdict::Adopt));
    let payoff = h.review.payoff().expect("the section");
    assert_eq!(payoff.plain_vote.as_deref(), Some("REVISE"));
    assert!(!payoff.agrees());
    assert!(payoff.lines()[0].contains("would have decided REVISE"));
    let moved: Vec<&str> = payoff.changes.iter().map(|c| c.who.as_str()).collect();
    assert_eq!(moved, ["judge.analyst", "judge.stylist"]);
    for change in &payoff.changes {
        assert_eq!(change.preceded_by, Preceded::Evidence);
        assert!(change.why.contains("rewrote b2"), "{}", change.why);
    }
    assert!(payoff.lines()[1].contains("2 positions changed"));
}

/// DR-39, A11: a round-2 revision that ignores its directive is repaired.
#[test]
fn dr_39_round_two_revision_must_answer_its_directives() {
    let mut h = Harness::judged(config(), one_judge(Analyst, &[("b2", Feasibility, 2)]));
    let effects = h.finish("proposer", &revision_text(&["c1"]));
    let repair = the_start(&effects);
    assert_eq!(
        (repair.request.stage.as_str(), repair.request.round),
        ("revision", 2)
    );
    assert!(repair.request.prompt.contains("no entry addresses"));
}

/// A8: REVISE loops back at most `max_rounds` times; after that it is final.
#[test]
fn a8_revise_loops_at_most_max_rounds_times() {
    let failing = one_judge(Analyst, &[("b2", Feasibility, 2)]);
    for max_rounds in [0, 1, 2] {
        let mut h = Harness::at_evaluation(ReviewConfig {
            max_rounds,
            ..config()
        });
        for round in 2..=max_rounds + 1 {
            h.finish_judges(&failing);
            let judges = h.finish("proposer", &revision_text(&["d1"]));
            assert_eq!(starts(&judges).len(), 3, "round {round}");
        }
        let effects = h.finish_judges(&failing);
        assert!(matches!(
            finished(&effects),
            Some(Outcome::Decided {
                verdict: Verdict::Revise,
                ..
            })
        ));
        assert_eq!(h.review.revisions().len() as u32, max_rounds + 1);
        assert!(h.logged(LogKind::Note, "REVISE is final"));
        assert_eq!(h.review.outcome().unwrap().exit_code(), 3);
    }
}

/// DR-31, DR-38: a risk score of 1 from the analyst is a dealbreaker →
/// REJECT, terminal: no further call, whatever input follows.
#[test]
fn dr_31_dr_38_dealbreaker_rejects_and_ends_without_more_calls() {
    let mut h = Harness::at_evaluation(config());
    let effects = h.finish_judges(one_judge(Analyst, &[("b3", Risk, 1)]));
    assert!(matches!(
        finished(&effects),
        Some(Outcome::Decided {
            verdict: Verdict::Reject,
            ..
        })
    ));
    assert!(starts(&effects).is_empty());
    let started = h.started.len();
    let late = [
        Input::ModerationSubmitted,
        Input::ItemDecided {
            item_id: "c1".into(),
            decision: Reject,
            note: None,
            ruler: None,
        },
        Input::Override {
            call_id: "judge.analyst/evaluation/r1/a1".into(),
            action: OverrideAction::RetryNow,
        },
    ];
    for input in late {
        assert!(h.send(input).is_empty());
    }
    assert!(
        h.finish_id("proposer/revision/r2/a1", &revision_text(&[]))
            .is_empty()
    );
    assert_eq!(h.started.len(), started);
    assert_eq!(h.review.outcome().unwrap().exit_code(), 4);
}

/// DR-34, DR-40, A4: a judge that lacks information on a block → ESCALATE,
/// which ends the run with no loop.
#[test]
fn dr_34_dr_40_a4_insufficient_information_escalates_without_a_loop() {
    let mut h = Harness::at_evaluation(config());
    let effects = h.finish_judges(|role| match role {
        Stylist => with_insufficient(&all_fours(role), "b2"),
        _ => all_fours(role),
    });
    assert!(matches!(
        finished(&effects),
        Some(Outcome::Decided {
            verdict: Verdict::Escalate,
            ..
        })
    ));
    assert!(starts(&effects).is_empty());
    assert_eq!(h.review.revisions().len(), 1);
    assert_eq!(h.review.outcome().unwrap().exit_code(), 5);
}

/// DR-37, INF-20, A7: a skipped binding judge (analyst, or the strategist
/// of a high-stakes panel) never lets the run ADOPT.
#[test]
fn dr_37_inf_20_a7_skipped_binding_judge_never_adopts() {
    for (high_stakes, missing) in [(false, Analyst), (true, Strategist), (true, Analyst)] {
        let mut h = Harness::at_evaluation(config_with(high_stakes));
        h.give_up(&judge_slot(missing));
        h.finish_judges(all_fours);
        assert_eq!(
            h.verdict(),
            Some(Verdict::Escalate),
            "{missing} missing: {}",
            h.rule()
        );
        let judges = h.debate()["stages"]["evaluation"]["judges"].clone();
        let record = judges
            .as_sequence()
            .unwrap()
            .iter()
            .find(|j| j["role"] == missing.as_str())
            .unwrap()
            .clone();
        assert_eq!(record["status"], "skipped");
    }
}

/// DR-37, INF-08, A7: a malformed binding judge counts as missing: no ADOPT.
#[test]
fn dr_37_malformed_binding_judge_never_adopts() {
    let h = Harness::judged(config(), |role| match role {
        Analyst => "All blocks look fine to me. 5/5.".to_string(),
        _ => all_fours(role),
    });
    assert_eq!(h.verdict(), Some(Verdict::Escalate), "{}", h.rule());
}

/// DR-36, A6: an advisory judge's low score (not on risk) does not veto.
#[test]
fn dr_36_a6_advisory_low_score_does_not_veto() {
    let h = Harness::judged(config(), one_judge(Stylist, &[("b1", Clarity, 1)]));
    assert_eq!(h.verdict(), Some(Verdict::Adopt), "{}", h.rule());
}

/// DR-49, A5: correctness 5 and simplicity 1 on the same block → REVISE,
/// even though the judges also disagree widely on it (guard before ESCALATE).
#[test]
fn dr_49_a5_overengineering_guard_revises() {
    let h = Harness::judged(final_round_config(), |role| match role {
        Analyst => scored(role, &[("b1", Correctness, 5)]),
        Aesthete => scored(role, &[("b1", Simplicity, 1)]),
        _ => all_fours(role),
    });
    assert_eq!(h.verdict(), Some(Verdict::Revise));
    assert!(h.rule().contains("over-engineered"), "{}", h.rule());
}

// ---- decision record (DR-50, DR-51, A13) -------------------------------------------------

/// DR-50, A13: every decision field is there, derived from the record.
#[test]
fn dr_50_a13_decision_record_fields_are_all_present() {
    let h = Harness::judged(config(), all_fours);
    let decision = h.debate()["decision"].clone();
    for field in [
        "recommendation",
        "strongest_objection",
        "what_changed",
        "remaining_uncertainty",
        "reversal_trigger",
        "deciding_rule",
    ] {
        let text = decision[field].as_str().unwrap_or_default();
        assert!(!text.trim().is_empty(), "{field} is empty");
    }
    assert_eq!(decision["decision"], "ADOPT");
    assert_eq!(decision["strongest_objection"], "Weakness of b1 (major).");
    assert!(
        decision["recommendation"]
            .as_str()
            .unwrap()
            .contains("Revised claim of b1.")
    );
    assert!(
        decision["what_changed"]
            .as_str()
            .unwrap()
            .contains("c1 (accepted): round 1 strengthened b1")
    );
    assert!(
        decision["reversal_trigger"]
            .as_str()
            .unwrap()
            .contains("watch the b1 dashboard")
    );
    let surviving: Vec<&str> = decision["surviving_blocks"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(surviving, BLOCKS);
}

/// DR-51, A13: a block with a binding score below threshold does not survive.
#[test]
fn dr_51_a13_surviving_blocks_exclude_a_failing_block() {
    let h = Harness::judged(
        final_round_config(),
        one_judge(Analyst, &[("b2", Feasibility, 2)]),
    );
    let record = h.review.decision_record().unwrap();
    assert_eq!(record.decision, Verdict::Revise);
    assert_eq!(record.surviving_blocks, ["b1", "b3", "b4"]);
}

/// DR-50: deferred items, with the moderator's note, are remaining uncertainty.
#[test]
fn dr_50_remaining_uncertainty_lists_deferred_items() {
    let mut h = Harness::at_moderation(config());
    h.decide_all(Accept);
    h.decide_noted("c3", Defer, Some("needs load-test data"));
    h.submit();
    h.finish("proposer", &revision_text(&["c1", "c2", "c4"]));
    h.finish_judges(all_fours);
    let record = h.review.decision_record().unwrap();
    assert!(record.remaining_uncertainty.contains("deferred c3"));
    assert!(
        record
            .remaining_uncertainty
            .contains("needs load-test data")
    );
}

// ---- infrastructure (INF) ------------------------------------------------------------------

/// INF-03, INF-05: only judge calls name a raw-output file, so the engine
/// persists their answers before the protocol parses them.
#[test]
fn inf_03_inf_05_judge_calls_name_their_raw_output_file() {
    let h = Harness::judged(config(), all_fours);
    for spec in &h.started {
        let expected = spec
            .request
            .role
            .strip_prefix("judge.")
            .map(|role| judge_file(JudgeRole::parse(role).unwrap(), spec.request.round));
        assert_eq!(spec.raw_output_path, expected, "{}", spec.request.call_id);
    }
}

/// A stylist whose answer has no scores in it.
fn malformed_stylist() -> (Harness, Vec<Effect>, &'static str) {
    const RAW: &str = "The clarity is fine overall -- I'd say 4/5.\n";
    let mut h = Harness::at_evaluation(config());
    let effects = h.finish("judge.stylist", RAW);
    (h, effects, RAW)
}

/// INF-07: a malformed judge's file starts with the MALFORMED marker, then
/// holds the raw answer verbatim.
#[test]
fn inf_07_malformed_judge_file_is_marked_then_verbatim() {
    let (h, _, raw) = malformed_stylist();
    let file = h.doc("judges/judge-stylist.md");
    let (marker, rest) = file.split_once('\n').unwrap();
    assert!(
        marker.starts_with("<!-- MALFORMED: ") && marker.ends_with(" -->"),
        "{marker}"
    );
    assert!(
        !marker[4..marker.len() - 3].contains("--"),
        "the reason cannot close the comment"
    );
    assert_eq!(rest, raw);
}

/// INF-08, INF-18 (A7): malformed output is excluded from scoring and counts
/// as missing; the other two judges still make quorum.
#[test]
fn inf_08_malformed_judge_is_excluded_from_scoring() {
    let (mut h, _, _) = malformed_stylist();
    h.finish_judges(all_fours);
    let evaluation = h.debate()["stages"]["evaluation"].clone();
    let scores = evaluation["block_scores"].as_sequence().unwrap();
    assert_eq!(scores.len(), 16, "analyst 12 + aesthete 4");
    assert!(scores.iter().all(|score| score["judge"] != "stylist"));
    assert_eq!(
        evaluation["synthesis_scores"].as_sequence().unwrap().len(),
        2
    );
    assert_eq!(evaluation["quorum"]["present"].as_u64(), Some(2));
    assert_eq!(
        h.verdict(),
        Some(Verdict::Adopt),
        "an advisory judge missing, quorum met"
    );
}

/// INF-09, INF-10: malformed output is noted in the transcript with its call
/// id, and never retried.
#[test]
fn inf_09_inf_10_malformed_judge_is_noted_and_never_retried() {
    let (mut h, effects, _) = malformed_stylist();
    assert!(effects.is_empty(), "{effects:?}");
    h.finish_judges(all_fours);
    assert_eq!(h.started_for("judge.stylist").len(), 1);
    let transcript = h.doc("transcript.md");
    assert!(transcript.lines().any(|line| {
        line.contains("**MALFORMED** `judge.stylist/evaluation/r1/a1`")
            && line.contains("not retried")
    }));
}

/// INF-12: a timed-out judge is logged (TIMEOUT, CANCEL) and retried once
/// with the byte-identical prompt; the engine, not the protocol, cancels it.
#[test]
fn inf_12_timeout_retries_once_with_the_identical_prompt() {
    let mut h = Harness::at_evaluation(config());
    let first = h.call("judge.analyst");
    let effects = h.time_out("judge.analyst");
    let retry = the_start(&effects);
    assert_eq!(retry.request.prompt, first.request.prompt);
    assert_eq!(retry.raw_output_path, first.raw_output_path);
    assert_eq!(retry.request.call_id, "judge.analyst/evaluation/r1/a2");
    let id = first.request.call_id.as_str();
    let kinds: Vec<LogKind> = h
        .review
        .log()
        .iter()
        .filter(|entry| entry.call_id.as_deref() == Some(id))
        .map(|entry| entry.kind)
        .collect();
    assert_eq!(
        kinds,
        [
            LogKind::CallStarted,
            LogKind::Timeout,
            LogKind::Cancel,
            LogKind::Retry
        ]
    );
}

/// INF-12, A18: a provider error is treated like a timeout.
#[test]
fn inf_12_a18_provider_error_is_retried_like_a_timeout() {
    let mut h = Harness::at_evaluation(config());
    let first = h.call("judge.aesthete");
    let retry = the_start(&h.error("judge.aesthete")).clone();
    assert_eq!(
        (retry.request.attempt, retry.request.prompt),
        (2, first.request.prompt)
    );
    assert!(h.logged(LogKind::Failure, "503 overloaded"));
}

/// INF-13, INF-14: when the retry fails too the judge is skipped, the run
/// goes on, and there is never a third attempt.
#[test]
fn inf_13_inf_14_second_failure_skips_and_never_tries_a_third_time() {
    let mut h = Harness::at_evaluation(config());
    h.time_out("judge.stylist");
    let effects = h.error("judge.stylist");
    assert!(effects.is_empty(), "{effects:?}");
    assert_eq!(h.started_for("judge.stylist").len(), 2);
    assert!(h.logged(LogKind::Skip, "stylist skipped for evaluation round 1"));
    h.finish_judges(all_fours);
    assert!(h.verdict().is_some());
    assert!(
        !h.has_doc("judges/judge-stylist.md"),
        "nothing was collected"
    );
}

/// INF-15: a late answer from the timed-out attempt is ignored, even one
/// that would have changed the verdict.
#[test]
fn inf_15_late_answer_from_the_cancelled_attempt_is_ignored() {
    let mut h = Harness::at_evaluation(config());
    let first = h.call("judge.analyst").request.call_id;
    h.time_out("judge.analyst");
    let late = h.finish_id(&first, &scored(Analyst, &[("b1", Risk, 1)]));
    assert!(late.is_empty(), "{late:?}");
    assert!(h.logged(
        LogKind::Note,
        "late output from a call that is no longer live"
    ));
    h.finish_judges(all_fours);
    assert_eq!(h.verdict(), Some(Verdict::Adopt));
    assert_eq!(
        h.debate()["stages"]["evaluation"]["judges"][0]["call_id"],
        "judge.analyst/evaluation/r1/a2"
    );
}

/// INF-01, INF-16, A18: the proposer, the critic and the reviser get the
/// same single retry with the identical prompt; a second failure stops the
/// debate with a recorded failure, never a fabricated verdict.
#[test]
fn inf_01_inf_16_a18_required_agent_failing_twice_stops_the_debate() {
    let cases: [(&str, Setup); 3] = [
        ("proposer", || Harness::new(config())),
        ("critic", || {
            let mut h = Harness::new(config());
            h.finish("proposer", &proposal_text());
            h
        }),
        ("proposer", || {
            let mut h = Harness::at_moderation(config());
            h.decide_all(Accept);
            h.submit();
            h
        }),
    ];
    for (role, setup) in cases {
        let mut h = setup();
        let first = h.call(role);
        let retry = the_start(&h.time_out(role)).clone();
        assert_eq!(retry.request.prompt, first.request.prompt, "{role}");
        assert_eq!(retry.request.attempt, 2);
        let end = h.error(role);
        assert!(
            matches!(finished(&end), Some(Outcome::Failed { reason }) if reason.contains(role)),
            "{role}: {end:?}"
        );
        assert!(starts(&end).is_empty());
        assert_eq!(h.verdict(), None);
        assert!(h.review.decision_record().is_none());
        let debate = h.debate();
        assert_eq!(debate["outcome"]["kind"], "failed");
        assert!(debate["decision"].is_null());
        assert_eq!(h.review.outcome().unwrap().exit_code(), 1);
    }
}

/// INF-18, INF-19, A7: two of three judges skipped → below quorum; the run
/// still reaches a verdict, but not ADOPT, and the shortfall is recorded.
#[test]
fn inf_18_inf_19_quorum_shortfall_still_decides_but_never_adopts() {
    let mut h = Harness::at_evaluation(config());
    h.give_up("judge.stylist");
    h.give_up("judge.aesthete");
    let effects = h.finish_judges(all_fours);
    assert!(finished(&effects).is_some());
    assert_eq!(h.verdict(), Some(Verdict::Escalate), "{}", h.rule());
    assert!(
        h.doc("transcript.md")
            .contains("quorum shortfall: 1 of 3 judges gave usable output, 2 needed")
    );
    let quorum = h.debate()["stages"]["evaluation"]["quorum"].clone();
    assert_eq!(quorum["met"].as_bool(), Some(false));
    assert_eq!(quorum["required"].as_u64(), Some(2));
}

/// INF-21, INF-23, INF-27, INF-28, INF-29: the fixed roster, the analyst
/// (the Chair, a label only) binding, and each judge's weight recorded.
#[test]
fn inf_21_inf_23_inf_27_inf_28_inf_29_panel_roles_and_weights_are_recorded() {
    let default = [
        ("analyst", "binding"),
        ("stylist", "advisory"),
        ("aesthete", "advisory"),
    ];
    let high = [("strategist", "binding"), ("empiricist", "advisory")];
    for high_stakes in [false, true] {
        let debate = Harness::new(config_with(high_stakes)).debate();
        let recorded: Vec<(&str, &str)> = debate["participants"]["judges"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|j| (j["role"].as_str().unwrap(), j["weight"].as_str().unwrap()))
            .collect();
        let expected: Vec<(&str, &str)> = default
            .iter()
            .chain(if high_stakes { &high[..] } else { &[] })
            .copied()
            .collect();
        assert_eq!(recorded, expected);
    }
}

/// INF-29: weights come from the run's configuration, not from code: a
/// stylist made binding is recorded, prompted and counted as binding.
#[test]
fn inf_29_weights_come_from_the_run_configuration() {
    let mut config = final_round_config();
    config.panel[1].weight = Weight::Binding;
    let mut h = Harness::at_evaluation(config);
    assert_eq!(h.debate()["participants"]["judges"][1]["weight"], "binding");
    assert!(h.prompt("judge.stylist").contains("Your weight: binding"));
    h.finish_judges(one_judge(Stylist, &[("b1", Clarity, 1)]));
    assert_eq!(
        h.verdict(),
        Some(Verdict::Revise),
        "compare dr_36: advisory → ADOPT"
    );
}

/// INF-24, A17: the strategist scores risk and reversibility, the
/// empiricist correctness and feasibility; recorded and prompted so.
#[test]
fn inf_24_a17_strategist_and_empiricist_criteria() {
    let h = Harness::at_evaluation(config_with(true));
    let judges = h.debate()["participants"]["judges"].clone();
    let cases = [
        (3, "strategist", ["risk", "reversibility"], "simplicity"),
        (4, "empiricist", ["correctness", "feasibility"], "risk"),
    ];
    for (index, role, criteria, other) in cases {
        assert_eq!(judges[index]["role"], role);
        let recorded: Vec<&str> = judges[index]["criteria"]
            .as_sequence()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(recorded, criteria);
        let prompt = h.prompt(&format!("judge.{role}"));
        assert!(
            criteria
                .iter()
                .all(|c| prompt.contains(&format!("- `{c}`:")))
        );
        assert!(!prompt.contains(&format!("- `{other}`:")));
    }
}

// ---- moderator overrides -------------------------------------------------------------------

/// Override RetryNow: the live attempt is cancelled and a new one starts
/// with the same prompt and file.
#[test]
fn override_retry_now_cancels_and_restarts_with_the_same_prompt() {
    let mut h = Harness::at_evaluation(config());
    let first = h.call("judge.analyst");
    let effects = h.override_call("judge.analyst", OverrideAction::RetryNow);
    let [Effect::CancelCall { call_id }, Effect::StartCall(again)] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(call_id, &first.request.call_id);
    assert_eq!(again.request.prompt, first.request.prompt);
    assert_eq!(again.raw_output_path, first.raw_output_path);
    assert_eq!(again.request.attempt, 2);
    assert!(h.logged(LogKind::Override, "moderator: retry judge.analyst now"));
}

/// Override Skip: the judge is cancelled and skipped; the run goes on.
#[test]
fn override_skip_cancels_and_skips_the_judge() {
    let mut h = Harness::at_evaluation(config());
    let effects = h.override_call("judge.stylist", OverrideAction::Skip);
    assert!(
        matches!(effects.as_slice(), [Effect::CancelCall { call_id }] if call_id == "judge.stylist/evaluation/r1/a1")
    );
    h.finish_judges(all_fours);
    let judges = h.debate()["stages"]["evaluation"]["judges"].clone();
    assert_eq!(judges[1]["status"], "skipped");
    assert_eq!(judges[1]["reason"], "skipped by the moderator");
    assert_eq!(h.verdict(), Some(Verdict::Adopt));
}

/// Overrides: skipping the proposer stops the run (A18); overriding a call
/// that is not live does nothing.
#[test]
fn override_skip_of_a_required_agent_stops_and_stale_overrides_are_ignored() {
    let mut h = Harness::new(config());
    let stale = h.send(Input::Override {
        call_id: "critic/critique/r1/a1".into(),
        action: OverrideAction::Skip,
    });
    assert!(stale.is_empty());
    assert!(h.logged(LogKind::Note, "override ignored: the call is not live"));
    let effects = h.override_call("proposer", OverrideAction::Skip);
    assert!(matches!(effects.first(), Some(Effect::CancelCall { .. })));
    assert!(matches!(finished(&effects), Some(Outcome::Failed { .. })));
}

/// With a moderator present, a round whose judges are all in but one is
/// malformed waits; the moderator re-runs that judge with the same prompt as
/// a new attempt, and the round concludes on its answer.
#[test]
fn override_rerun_of_a_malformed_judge_while_the_round_is_held() {
    let held = ReviewConfig {
        hold_for_moderator: true,
        checks_rulings: true,
        fairness: Default::default(),
        handed: None,
        sources: Vec::new(),
        checks_evidence: true,
        weighs_payoff: true,
        stability: Default::default(),
        calibration: Vec::new(),
        ..config()
    };
    let mut h = Harness::at_evaluation(held);
    let first = h.call("judge.stylist");
    h.finish("judge.stylist", "No scores here, just prose: 4/5.\n");
    let effects = h.finish_judges(all_fours);
    assert!(effects.is_empty(), "the round waits: {effects:?}");
    assert!(h.review.board().needs_moderator);
    assert_eq!(
        h.review.board().held_calls,
        vec![first.request.call_id.clone()]
    );
    assert!(h.logged(LogKind::Moderation, "re-run stylist or go on without it"));
    assert_eq!(h.verdict(), None);
    let effects = h.send(Input::Override {
        call_id: first.request.call_id.clone(),
        action: OverrideAction::Rerun,
    });
    let [Effect::StartCall(again)] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(again.request.call_id, "judge.stylist/evaluation/r1/a2");
    assert_eq!(again.request.prompt, first.request.prompt);
    assert_eq!(again.raw_output_path, first.raw_output_path);
    assert!(!h.review.board().needs_moderator);
    assert!(h.logged(LogKind::Override, "moderator: re-run stylist"));
    // The malformed answer keeps a file of its own; the re-run's answer
    // takes the judge's usual file.
    let kept = h.doc("judges/judge-stylist-attempt-1.md");
    assert!(kept.starts_with("<!-- MALFORMED: "), "{kept}");
    assert!(
        kept.ends_with("No scores here, just prose: 4/5.\n"),
        "{kept}"
    );
    h.finish_judges(all_fours);
    assert_eq!(h.verdict(), Some(Verdict::Adopt));
    assert_eq!(
        h.doc("judges/judge-stylist.md"),
        all_fours(JudgeRole::Stylist)
    );
    assert!(
        h.doc("judges/judge-stylist-attempt-1.md")
            .starts_with("<!-- MALFORMED")
    );
}

/// A held round goes on without the missing judge when the moderator skips
/// it; a re-run of a judge that is not missing, or of a closed round, is
/// ignored; headless runs (no hold) never wait.
#[test]
fn override_release_of_a_held_round_and_ignored_reruns() {
    let held = ReviewConfig {
        hold_for_moderator: true,
        checks_rulings: true,
        fairness: Default::default(),
        handed: None,
        sources: Vec::new(),
        checks_evidence: true,
        weighs_payoff: true,
        stability: Default::default(),
        calibration: Vec::new(),
        ..config()
    };
    let mut h = Harness::at_evaluation(held);
    let stylist = h.call("judge.stylist").request.call_id;
    let analyst = h.call("judge.analyst").request.call_id;
    h.finish("judge.stylist", "prose only\n");
    h.finish_judges(all_fours);
    let ignored = h.send(Input::Override {
        call_id: analyst,
        action: OverrideAction::Rerun,
    });
    assert!(ignored.is_empty());
    assert!(h.logged(LogKind::Note, "re-run ignored"));
    h.send(Input::Override {
        call_id: stylist.clone(),
        action: OverrideAction::Skip,
    });
    assert!(h.logged(LogKind::Override, "go on without this judge"));
    assert_eq!(h.verdict(), Some(Verdict::Adopt));
    let late = h.send(Input::Override {
        call_id: stylist,
        action: OverrideAction::Rerun,
    });
    assert!(late.is_empty(), "the round is closed");

    let (mut headless, _, _) = malformed_stylist();
    headless.finish_judges(all_fours);
    assert_eq!(
        headless.verdict(),
        Some(Verdict::Adopt),
        "no hold without a moderator"
    );
}

/// A role switched to another agent is recorded as played by it from then
/// on; an unknown role is ignored.
#[test]
fn switching_a_role_to_another_agent_is_recorded() {
    let mut h = Harness::at_evaluation(config());
    let price = quorum::protocol::usage::Price {
        input: 2.0,
        output: 8.0,
    };
    let effects = h.send(Input::AgentSwitched {
        role: "judge.stylist".into(),
        agent: "openai:gpt-4.1".into(),
        price: Some(price),
    });
    assert!(effects.is_empty());
    assert!(h.logged(
        LogKind::Override,
        "moderator: judge.stylist is now played by openai:gpt-4.1 (was script:stylist-model)"
    ));
    assert_eq!(
        h.review.config().participants.judges[&JudgeRole::Stylist],
        "openai:gpt-4.1"
    );
    assert_eq!(
        h.review.config().participants.prices.get("openai:gpt-4.1"),
        Some(&price),
        "the new agent's calls are costed"
    );
    h.send(Input::AgentSwitched {
        role: "judge.nobody".into(),
        agent: "x:y".into(),
        price: None,
    });
    assert!(h.logged(LogKind::Override, "switch ignored"));
}

/// Wait longer is recorded for a live call and changes nothing else.
#[test]
fn override_wait_longer_is_logged_for_live_calls_only() {
    let mut h = Harness::at_evaluation(config());
    let effects = h.override_call(
        "judge.aesthete",
        OverrideAction::WaitLonger { extra_ms: 300_000 },
    );
    assert!(effects.is_empty());
    assert!(h.logged(
        LogKind::Override,
        "moderator: wait 5 min longer for judge.aesthete"
    ));
    let stale = h.send(Input::Override {
        call_id: "critic/critique/r1/a1".into(),
        action: OverrideAction::WaitLonger { extra_ms: 1 },
    });
    assert!(stale.is_empty());
    assert!(h.logged(LogKind::Note, "override ignored"));
}

/// A typed answer is checked with the parser of the live call's stage; the
/// template is the answer shape the prompt ends with.
#[test]
fn typed_answers_are_checked_by_the_stage_parser() {
    let h = Harness::new(config());
    let call = h.call("proposer").request.call_id;
    assert!(h.review.check_answer(&call, &proposal_text()).is_ok());
    let error = h.review.check_answer(&call, "blocks: nope").unwrap_err();
    assert!(!error.is_empty());
    assert!(
        h.review.check_answer("critic/critique/r1/a1", "x").is_err(),
        "not live"
    );
    let template = h.review.answer_template(&call).unwrap();
    assert!(template.contains("blocks:"), "{template}");
    let mut h = Harness::at_evaluation(config());
    let analyst = h.call("judge.analyst").request.call_id;
    let template = h.review.answer_template(&analyst).unwrap();
    assert!(template.contains("block_scores:"), "{template}");
    // One score is not all, but it reads: the verdict escalates on the
    // criteria left unscored (README rule 5), as it does for an agent.
    assert!(h.review.check_answer(&analyst, &template).is_ok());
    let answer = all_fours(JudgeRole::Analyst);
    assert!(h.review.check_answer(&analyst, &answer).is_ok());
    h.finish_judges(all_fours);
}

/// The board: stages, items with decisions, and the scoreboard filling in
/// with the verdict the scores imply so far.
#[test]
fn the_board_shows_items_decisions_and_live_scores() {
    let mut h = Harness::at_moderation(config());
    let board = h.review.board();
    assert_eq!(board.stages.len(), 6);
    assert!(board.needs_moderator);
    assert!(board.items.iter().all(|item| item.decision.is_none()));
    h.decide_noted("c1", ItemDecision::Reject, Some("out of scope"));
    let board = h.review.board();
    assert_eq!(board.items[0].decision, Some(ItemDecision::Reject));
    assert_eq!(board.items[0].note.as_deref(), Some("out of scope"));
    h.decide_all(Accept);
    h.submit();
    h.finish("proposer", &revision_text(&ALL_ITEMS));
    let board = h.review.board().view.scoreboard().cloned().unwrap();
    assert!(board.implied.is_none(), "no judge is in yet");
    h.finish("judge.analyst", &all_fours(JudgeRole::Analyst));
    let board = h.review.board().view.scoreboard().cloned().unwrap();
    let implied = board.implied.unwrap();
    assert_eq!(implied.pending, 2);
    let analyst = &board.judges[0];
    assert!(analyst.binding);
    assert_eq!(analyst.state, quorum::protocol::JudgeState::Scored);
    assert_eq!(analyst.scores[0], vec![Some(4); analyst.criteria.len()]);
}

// ---- reader-first delivery (RF) ------------------------------------------------------------

/// RF-01: no agent prompt carries reader-first instructions.
#[test]
fn rf_01_agent_prompts_carry_no_reader_first_instructions() {
    let mut h = Harness::at_moderation(config());
    h.decide_all(Accept);
    h.submit();
    h.finish("proposer", &revision_text(&["c1"])); // a repair prompt too
    h.finish("proposer", &revision_text(&ALL_ITEMS));
    h.finish_judges(all_fours);
    assert_eq!(h.started.len(), 7);
    for spec in &h.started {
        let prompt = spec.request.prompt.to_lowercase();
        for phrase in [
            "reader",
            "plain language",
            "summary.md",
            "chat summary",
            "deliverable",
        ] {
            assert!(
                !prompt.contains(phrase),
                "{}: {phrase}",
                spec.request.call_id
            );
        }
    }
}

/// RF-02: the audit tier keeps judge labels, scores and retries.
#[test]
fn rf_02_audit_files_keep_judge_labels_and_scores() {
    let mut h = Harness::at_evaluation(config());
    h.time_out("judge.analyst");
    h.finish_judges(all_fours);
    assert_eq!(h.doc("judges/judge-analyst.md"), all_fours(Analyst));
    let debate = h.debate();
    let first = &debate["stages"]["evaluation"]["block_scores"][0];
    assert_eq!(
        (first["judge"].as_str(), first["score"].as_u64()),
        (Some("analyst"), Some(4))
    );
    let transcript = h.doc("transcript.md");
    assert!(transcript.contains("**RETRY** `judge.analyst/evaluation/r1/a1`"));
    assert!(
        transcript.contains("score: 4"),
        "raw judge output is in the transcript"
    );
}

/// RF-03, RF-19, A19: the final decision document `summary.md` exists once
/// the run is over, whether decided or failed.
#[test]
fn rf_03_rf_19_summary_exists_once_finished() {
    let h = Harness::at_evaluation(config());
    assert!(!h.has_doc("summary.md"));
    assert!(ending(Verdict::Adopt).has_doc("summary.md"));
    let mut failed = Harness::new(config());
    failed.give_up("proposer");
    assert!(failed.doc("summary.md").contains("**No decision.**"));
}

/// RF-04, RF-05, RF-16: the lead opens with the verdict word and its plain
/// meaning, then the strongest objection and the next action.
#[test]
fn rf_04_rf_05_rf_16_lead_opens_with_the_verdict_and_its_meaning() {
    let openings = [
        (
            Verdict::Adopt,
            "**Go ahead (ADOPT: the proposal is strong enough to act on).**",
        ),
        (
            Verdict::Revise,
            "**Not yet: revise first (REVISE: the idea has merit but needs changes",
        ),
        (
            Verdict::Reject,
            "**Do not proceed (REJECT: the proposal is flawed beyond revision).**",
        ),
        (
            Verdict::Escalate,
            "**Undecided: more information is needed (ESCALATE:",
        ),
    ];
    for (verdict, opening) in openings {
        let lead = ending(verdict).lead();
        assert!(lead.starts_with(opening), "{verdict}: {lead}");
        assert!(
            lead.contains("The hardest objection was that weakness of the ledger (major)"),
            "{verdict}: {lead}"
        );
        assert!(lead.contains("Next:"), "{verdict}: {lead}");
    }
}

/// RF-06, RF-08, RF-16: with plain-language agent prose, the lead names no
/// judge, no block id, no score, and never "discarded in favour".
#[test]
fn rf_06_rf_08_lead_has_no_judge_labels_block_ids_or_scores() {
    for verdict in VERDICTS {
        let lead = ending(verdict).lead();
        assert_eq!(
            provenance_leaks(&lead),
            Vec::<String>::new(),
            "{verdict}: {lead}"
        );
    }
}

/// RF-06, RF-08, RF-16: the REVISE lead quotes the verdict's directives;
/// those quorum writes itself (anti-overengineering guard, failed synthesis
/// mean) name judges, block ids and scores, so even plain-language agent
/// prose yields a lead full of process detail.
#[test]

fn rf_06_rf_08_revise_lead_keeps_quorum_directives_out() {
    let guard = |role: JudgeRole| match role {
        Analyst => plain(&scored(role, &[("b1", Correctness, 5)])),
        Aesthete => plain(&scored(role, &[("b1", Simplicity, 1)])),
        _ => plain(&all_fours(role)),
    };
    let weak_synthesis = |role: JudgeRole| {
        plain(&judge_text(
            &judge_config(role, true),
            scores(4, &[]),
            [2, 2, 2],
        ))
    };
    let cases: [(&str, Judges); 2] = [
        ("guard", Box::new(guard)),
        ("synthesis", Box::new(weak_synthesis)),
    ];
    let mut found = Vec::new();
    for (case, judges) in cases {
        let mut h = Harness::at_evaluation_with(final_round_config(), plain);
        h.finish_judges(judges);
        assert_eq!(h.verdict(), Some(Verdict::Revise), "{case}");
        let lead = h.lead();
        let leaks = provenance_leaks(&lead);
        if !leaks.is_empty() {
            found.push(format!("{case}: {leaks:?} in {lead}"));
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

/// A18, RF-07, RF-16: a revision that fails for good in a REVISE loop ends
/// the run as a failure (exit 1); the summary must say the review stopped,
/// and why, instead of presenting the earlier round's REVISE as the result.
#[test]

fn a18_rf_07_failure_in_a_revise_loop_is_reported_in_the_summary() {
    let mut h = Harness::judged(config(), one_judge(Analyst, &[("b2", Feasibility, 2)]));
    let effects = h.give_up("proposer");
    let Some(Outcome::Failed { reason }) = finished(&effects).cloned() else {
        panic!("{effects:?}")
    };
    assert_eq!(h.review.outcome().unwrap().exit_code(), 1);
    let lead = h.lead();
    assert!(lead.contains(&reason), "{lead}");
    assert!(h.doc("summary.md").contains(&reason));
}

/// RF-07, RF-10: the end-of-run message (`summary_lead`) is the opening of
/// summary.md word for word, right after its title.
#[test]
fn rf_07_rf_10_summary_md_opens_with_the_lead_verbatim() {
    for verdict in VERDICTS {
        let h = ending(verdict);
        let summary = h.doc("summary.md");
        let body = summary
            .strip_prefix(&format!("# {TOPIC}\n\n"))
            .expect("title first");
        assert!(body.starts_with(&format!("{}\n\n", h.lead())), "{verdict}");
    }
}

/// RF-09: summary.md ends with a one-line pointer to the full record.
#[test]
fn rf_09_summary_ends_with_a_pointer_to_the_full_record() {
    let mut failed = Harness::new(config());
    failed.give_up("proposer");
    for h in [ending(Verdict::Adopt), ending(Verdict::Reject), failed] {
        let summary = h.doc("summary.md");
        let last = summary
            .lines()
            .rev()
            .find(|line| !line.trim().is_empty())
            .unwrap();
        assert!(
            last.starts_with("Full record:")
                && last.contains("debate.yaml")
                && last.contains("transcript.md"),
            "{last}"
        );
    }
}

/// RF-02, RF-06: process detail (judges, weights, scores) appears only in
/// summary.md's later supporting sections, never in the opening.
#[test]
fn rf_06_process_detail_only_after_the_opening() {
    let h = ending(Verdict::Adopt);
    let summary = h.doc("summary.md");
    let (opening, rest) = summary.split_once("\n## ").unwrap();
    assert!(
        provenance_leaks(opening.trim_start_matches(&format!("# {TOPIC}"))).is_empty(),
        "{opening}"
    );
    assert!(
        rest.contains("| analyst | binding |"),
        "the scores table stays in the supporting sections"
    );
}

// ---- deferred items after the verdict, and reopening ------------------------------------

const DEFER_NOTE: &str = "Needs the load-test numbers.";

impl Harness {
    fn resolve(&mut self, item: &str, decision: ItemDecision, note: Option<&str>) -> Vec<Effect> {
        self.send(Input::ItemResolved {
            item_id: item.into(),
            decision,
            note: note.map(str::to_string),
            ruler: None,
        })
    }

    fn reopen(&mut self) -> Vec<Effect> {
        self.send(Input::Reopened)
    }

    /// The time of the latest input, as the record writes it.
    fn stamp(&self) -> String {
        timestamp(self.now)
    }

    fn notes_since(&self, from: usize) -> Vec<String> {
        self.review.log()[from..]
            .iter()
            .map(|entry| format!("{:?}: {}", entry.kind, entry.message))
            .collect()
    }
}

/// A round-1 ADOPT in which `deferred` were deferred (with [`DEFER_NOTE`])
/// and every other item accepted and answered.
fn adopted_with_deferred(config: ReviewConfig, deferred: &[&str]) -> Harness {
    let mut h = Harness::at_moderation(config);
    for id in ALL_ITEMS {
        if deferred.contains(&id) {
            h.decide_noted(id, Defer, Some(DEFER_NOTE));
        } else {
            h.decide(id, Accept);
        }
    }
    h.submit();
    let answered: Vec<&str> = ALL_ITEMS
        .into_iter()
        .filter(|id| !deferred.contains(id))
        .collect();
    h.finish("proposer", &revision_text(&answered));
    h.finish_judges(all_fours);
    assert_eq!(h.verdict(), Some(Verdict::Adopt), "{}", h.rule());
    h
}

/// Accepted after the verdict: the debate is reopened, `Reopened` starts
/// revision round 2 with the item in full, its judges write the round-2
/// files, and a new verdict ends the debate again; every document follows.
#[test]
fn reopen_after_an_item_accepted_after_the_verdict_runs_another_round() {
    let mut h = adopted_with_deferred(config(), &["c3"]);
    let board = h.review.board();
    assert!(board.resolvable);
    assert_eq!(h.review.open_items().len(), 1);
    assert_eq!(h.review.open_items()[0].id, "c3");
    assert!(!h.review.reopen_pending());

    let note = "The load test came back; answer it.";
    assert!(h.resolve("c3", Accept, Some(note)).is_empty());
    let resolved_at = h.stamp();
    assert!(h.logged(
        LogKind::Moderation,
        &format!("c3 deferred → accepted after the verdict: {note}")
    ));
    assert!(h.logged(LogKind::Note, "debate reopened: c3 must be answered"));
    assert!(h.review.reopen_pending());
    assert!(h.review.open_items().is_empty(), "c3 is settled");
    assert!(h.review.progress().finished, "pending, not yet running");
    let board = h.review.board();
    assert!(board.resolvable, "c3 may still be changed to a rejection");
    let resolution = board.items[2].resolution.as_ref().expect("c3 resolved");
    assert_eq!(resolution.decision, Accept);
    assert_eq!(resolution.note.as_deref(), Some(note));
    assert!(board.items[0].resolution.is_none());

    let debate = h.debate();
    assert_eq!(debate["meta"]["reopened"], true);
    assert_eq!(debate["meta"]["reopen_items"][0], "c3");
    let entry = &debate["deferred_items"][0];
    assert_eq!(entry["id"], "c3");
    assert_eq!(entry["decision"], "defer");
    assert_eq!(entry["resolution"]["decision"], "accept");
    assert_eq!(entry["resolution"]["note"], note);
    assert_eq!(entry["resolution"]["at"], resolved_at.as_str());
    assert!(entry["resolution"].get("addressed_in_round").is_none());
    let critique = h.doc("critique.md");
    assert!(
        critique.contains(&format!(
            "→ **ACCEPTED** after the verdict ({resolved_at}) — note: {note}; waits for another revision round"
        )),
        "{critique}"
    );
    assert!(critique.contains("**Reopened.**") && critique.contains("`quorum resume --reopen`"));
    let summary = h.doc("summary.md");
    assert!(
        summary.contains("## Reopened after the verdict"),
        "{summary}"
    );
    assert!(summary.contains("accepted deferred item c3"));
    assert!(summary.contains("Run `quorum resume --reopen` on this folder"));
    assert!(!summary.contains("deferred c3"), "c3 is no longer open");
    assert!(summary.contains("c3, accepted after the verdict, not yet answered by a revision:"));
    assert!(
        summary.contains(&format!("- c3 accepted ({resolved_at})")),
        "{summary}"
    );

    let effects = h.reopen();
    assert!(h.logged(
        LogKind::Note,
        "debate reopened for c3 (accepted after the verdict): revision and evaluation round 2"
    ));
    assert!(h.logged(LogKind::Stage, "stage: revision (round 2)"));
    let spec = the_start(&effects);
    assert_eq!(
        (spec.request.role.as_str(), spec.request.stage.as_str()),
        ("proposer", "revision")
    );
    assert_eq!(spec.request.round, 2);
    assert!(h.review.outcome().is_none());
    assert!(!h.review.progress().finished);
    assert!(!h.review.reopen_pending(), "the round is running");
    let summary = h.doc("summary.md");
    assert!(
        summary.contains("**No decision yet: reopened.** The debate had reached a verdict (ADOPT)"),
        "the earlier verdict no longer stands as the result:\n{summary}"
    );
    assert!(!h.review.board().resolvable);
    let prompt = &spec.request.prompt;
    assert!(prompt.contains("### c3: on block b3"), "{prompt}");
    assert!(prompt.contains("Weakness of b3 (note)."));
    assert!(prompt.contains(&format!("Moderator's note: {note}")));
    assert!(prompt.contains("The judges had already reached a verdict"));
    assert!(prompt.contains("each of these ids: c3."));
    assert!(
        !prompt.contains("Weakness of b1"),
        "round 1's items are done"
    );
    assert!(!prompt.contains("## Open questions"));
    assert!(!prompt.contains("binding judges"));

    let judges = h.finish("proposer", &revision_text(&["c3"]));
    assert_eq!(starts(&judges).len(), 3);
    for spec in starts(&judges) {
        let role = JudgeRole::parse(spec.request.role.trim_start_matches("judge.")).unwrap();
        assert_eq!(
            spec.raw_output_path.as_deref(),
            Some(judge_file(role, 2).as_str())
        );
    }
    let effects = h.finish_judges(all_fours);
    assert!(matches!(
        finished(&effects),
        Some(Outcome::Decided {
            verdict: Verdict::Adopt,
            ..
        })
    ));
    assert_eq!(h.review.evaluations().len(), 2);
    assert_eq!(h.review.revisions()[1].must_address, ["c3"]);
    assert_eq!(h.review.addressed_in_round("c3"), Some(2));
    assert!(!h.review.reopen_pending());
    assert!(!h.review.board().resolvable, "c3 is answered");
    for role in [Analyst, Stylist, Aesthete] {
        assert!(h.has_doc(&judge_file(role, 2)));
    }

    let debate = h.debate();
    assert!(debate["meta"].get("reopened").is_none());
    assert_eq!(
        debate["deferred_items"][0]["resolution"]["addressed_in_round"],
        2
    );
    assert_eq!(debate["stages"]["evaluation"]["round"], 2);
    assert_eq!(debate["decision"]["decision"], "ADOPT");
    let critique = h.doc("critique.md");
    assert!(critique.contains("; answered in revision round 2"));
    assert!(!critique.contains("**Reopened.**"));
    assert!(
        h.doc("revision.md")
            .contains("Reopened after the verdict for c3")
    );
    let summary = h.doc("summary.md");
    assert!(!summary.contains("## Reopened after the verdict"));
    assert!(summary.contains("; answered in revision round 2"));
    assert!(summary.contains("Scores of the final round (2)"));
    assert!(
        h.doc("transcript.md")
            .contains(&format!("c3 deferred → accepted after the verdict: {note}"))
    );
}

/// Rejected after the verdict: recorded with its note and time, the item is
/// no longer open, and nothing reopens.
#[test]
fn deferred_item_rejected_after_the_verdict_is_recorded_without_reopening() {
    let mut h = adopted_with_deferred(config(), &["c3"]);
    let note = "Out of scope for this release.";
    assert!(h.resolve("c3", Reject, Some(note)).is_empty());
    let resolved_at = h.stamp();
    assert!(h.logged(
        LogKind::Moderation,
        &format!("c3 deferred → rejected after the verdict: {note}")
    ));
    assert!(!h.review.reopen_pending());
    assert!(h.review.open_items().is_empty());
    assert!(h.review.progress().finished);
    assert_eq!(h.review.resolution("c3").unwrap().decision, Reject);

    let debate = h.debate();
    assert!(debate["meta"].get("reopened").is_none());
    assert_eq!(
        debate["deferred_items"][0]["resolution"]["decision"],
        "reject"
    );
    assert_eq!(
        debate["deferred_items"][0]["resolution"]["at"],
        resolved_at.as_str()
    );
    let critique = h.doc("critique.md");
    assert!(critique.contains(&format!(
        "→ **REJECTED** after the verdict ({resolved_at}) — note: {note}"
    )));
    assert!(!critique.contains("**Reopened.**"));
    let summary = h.doc("summary.md");
    assert!(!summary.contains("deferred c3"));
    assert!(!summary.contains("quorum resume"));
    assert!(summary.contains(&format!("- c3 rejected ({resolved_at})")));

    let before = h.review.log().len();
    assert!(h.reopen().is_empty());
    assert!(h.review.outcome().is_some());
    assert_eq!(
        h.notes_since(before),
        ["Note: reopen ignored: no item accepted after the verdict waits for a revision"]
    );
}

/// Resolutions that cannot apply are logged with the reason and change
/// nothing: debate still running, ended without a verdict, unknown item,
/// item not deferred, deferring again.
#[test]
fn deferred_invalid_resolutions_are_ignored_with_reasons() {
    let mut running = Harness::at_moderation(config());
    running.decide("c3", Defer);
    let before = running.review.log().len();
    assert!(running.resolve("c3", Accept, None).is_empty());
    assert_eq!(
        running.notes_since(before),
        ["Note: ignored a resolution of c3: the debate is still running"]
    );

    let mut failed = Harness::new(config());
    failed.give_up("proposer");
    assert!(failed.resolve("c1", Accept, None).is_empty());
    assert!(failed.logged(
        LogKind::Note,
        "ignored a resolution of c1: the debate ended without a verdict"
    ));

    let mut h = adopted_with_deferred(config(), &["c3"]);
    for (item, decision, reason) in [
        (
            "c9",
            Accept,
            "ignored a resolution of c9: there is no such item",
        ),
        (
            "c1",
            Reject,
            "ignored a resolution of c1: it was accepted in moderation, not deferred",
        ),
        (
            "c3",
            Defer,
            "ignored a resolution of c3: a deferred item is settled by accepting or rejecting it",
        ),
    ] {
        let before = h.review.log().len();
        assert!(h.resolve(item, decision, Some("note")).is_empty());
        assert_eq!(h.notes_since(before), [format!("Note: {reason}")]);
        assert!(h.review.resolution(item).is_none(), "{item}");
    }
    assert!(!h.review.reopen_pending());
    assert_eq!(h.review.open_items().len(), 1);
    assert!(h.debate()["deferred_items"][0].get("resolution").is_none());
}

/// An item a reopened round has answered cannot be resolved again.
#[test]
fn deferred_item_answered_by_a_reopened_round_cannot_be_resolved_again() {
    let mut h = adopted_with_deferred(config(), &["c3"]);
    h.resolve("c3", Accept, None);
    h.reopen();
    h.finish("proposer", &revision_text(&["c3"]));
    h.finish_judges(all_fours);
    let kept = h.review.resolution("c3").cloned();
    let before = h.review.log().len();
    assert!(h.resolve("c3", Reject, None).is_empty());
    assert_eq!(
        h.notes_since(before),
        [
            "Note: ignored a resolution of c3: it was accepted after the verdict and revision round 2 has answered it"
        ]
    );
    assert_eq!(h.review.resolution("c3").cloned(), kept);
    assert!(!h.review.reopen_pending());
}

/// A later resolution replaces the earlier one; both stay in the record,
/// and a rejection withdraws a pending reopen.
#[test]
fn deferred_resolution_is_replaced_by_a_later_one() {
    let mut h = adopted_with_deferred(config(), &["c3"]);
    h.resolve("c3", Accept, Some("first thought"));
    assert!(h.review.reopen_pending());
    h.resolve("c3", Reject, Some("second thought"));
    let replaced_at = h.stamp();
    assert!(h.logged(
        LogKind::Moderation,
        "c3 deferred → rejected after the verdict, replacing the earlier resolution (accepted): second thought"
    ));
    assert!(h.logged(
        LogKind::Note,
        "no longer reopened: no item accepted after the verdict waits for a revision"
    ));
    assert!(!h.review.reopen_pending());
    let resolution = h.review.resolution("c3").unwrap();
    assert_eq!(resolution.decision, Reject);
    assert_eq!(resolution.note.as_deref(), Some("second thought"));
    assert_eq!(timestamp(resolution.at), replaced_at);
    let transcript = h.doc("transcript.md");
    assert!(transcript.contains("c3 deferred → accepted after the verdict: first thought"));
    assert!(transcript.contains("c3 deferred → rejected after the verdict"));
    assert_eq!(
        h.debate()["deferred_items"][0]["resolution"]["note"],
        "second thought"
    );

    h.resolve("c3", Accept, None);
    assert!(h.review.reopen_pending(), "accepting again reopens it");
    assert_eq!(h.review.resolution("c3").unwrap().note, None);
}

/// `Reopened` does nothing but log why when nothing waits: while the debate
/// runs, after a verdict with no resolution, after a failure.
#[test]
fn reopen_when_not_pending_is_ignored() {
    let mut running = Harness::at_evaluation(config());
    let live = running.live.len();
    assert!(running.reopen().is_empty());
    assert!(running.logged(LogKind::Note, "reopen ignored: the debate is still running"));
    assert_eq!(running.live.len(), live);

    let mut finished_review = adopted_with_deferred(config(), &["c3"]);
    assert!(finished_review.reopen().is_empty());
    assert!(finished_review.logged(
        LogKind::Note,
        "reopen ignored: no item accepted after the verdict waits for a revision"
    ));
    assert_eq!(finished_review.verdict(), Some(Verdict::Adopt));

    let mut failed = Harness::new(config());
    failed.give_up("proposer");
    assert!(failed.reopen().is_empty());
    assert!(failed.review.outcome().is_some());
    assert!(!failed.review.board().resolvable);
}

/// The documents carry every resolution with its time: debate.yaml,
/// critique.md (next to the DEFERRED decision), summary.md and the
/// transcript; an unresolved deferred item stays open everywhere.
#[test]
fn deferred_resolution_documents_carry_the_decision_and_time() {
    let mut h = adopted_with_deferred(config(), &["c2", "c3", "c4"]);
    h.resolve("c2", Reject, Some("not ours"));
    let c2_at = h.stamp();
    h.resolve("c3", Accept, None);
    let c3_at = h.stamp();

    let debate = h.debate();
    let deferred = debate["deferred_items"].as_sequence().unwrap();
    assert_eq!(deferred.len(), 3, "every deferred item stays listed");
    assert_eq!(deferred[0]["resolution"]["decision"], "reject");
    assert_eq!(deferred[0]["resolution"]["at"], c2_at.as_str());
    assert_eq!(deferred[1]["resolution"]["decision"], "accept");
    assert_eq!(deferred[1]["resolution"]["at"], c3_at.as_str());
    assert!(deferred[1]["resolution"].get("note").is_none());
    assert!(deferred[2].get("resolution").is_none(), "c4 is still open");
    assert_eq!(
        debate["meta"]["reopen_items"].as_sequence().unwrap().len(),
        1
    );

    let critique = h.doc("critique.md");
    let c2 = critique.split("### c2 ").nth(1).unwrap();
    let c2_decision = c2.lines().find(|l| l.starts_with("Decision:")).unwrap();
    assert!(
        c2_decision.starts_with("Decision: **DEFERRED** (")
            && c2_decision.contains(&format!("moderator's note: {DEFER_NOTE}"))
            && c2_decision.ends_with(&format!(
                "→ **REJECTED** after the verdict ({c2_at}) — note: not ours"
            )),
        "{c2_decision}"
    );
    let c4 = critique.split("### c4 ").nth(1).unwrap();
    assert!(
        !c4.lines()
            .find(|l| l.starts_with("Decision:"))
            .unwrap()
            .contains("after the verdict")
    );

    let summary = h.doc("summary.md");
    assert!(summary.contains("deferred c4"), "c4 is still uncertain");
    assert!(!summary.contains("deferred c2") && !summary.contains("deferred c3"));
    assert!(summary.contains("## Deferred items settled after the verdict"));
    assert!(summary.contains(&format!(
        "- c2 rejected ({c2_at}): Weakness of b2 (minor). — not ours"
    )));
    assert!(summary.contains(&format!(
        "- c3 accepted ({c3_at}): Weakness of b3 (note).; not answered by a revision yet"
    )));

    let transcript = h.doc("transcript.md");
    assert!(transcript.contains(&format!(
        "- `{c2_at}` **moderator** — c2 deferred → rejected after the verdict: not ours"
    )));
    assert!(transcript.contains(&format!(
        "- `{c3_at}` **moderator** — c3 deferred → accepted after the verdict"
    )));
    assert!(
        h.doc("revision.md")
            .contains("Deferred items, still open: c4\n")
    );
}

/// The reopened round is the moderator's decision: it runs even when the
/// REVISE loops are used up, and a REVISE after it is final under the usual
/// rule (loops used = round − 1). With loops left, a REVISE after it loops.
#[test]
fn reopen_runs_after_a_final_revise_and_then_follows_the_loop_rule() {
    let failing = one_judge(Analyst, &[("b2", Feasibility, 2)]);
    let mut h = Harness::at_moderation(final_round_config());
    h.decide_all(Accept);
    h.decide("c3", Defer);
    h.submit();
    h.finish("proposer", &revision_text(&["c1", "c2", "c4"]));
    h.finish_judges(&failing);
    assert_eq!(h.verdict(), Some(Verdict::Revise));
    assert!(h.logged(LogKind::Note, "REVISE is final"));

    h.resolve("c3", Accept, None);
    let effects = h.reopen();
    let prompt = &the_start(&effects).request.prompt;
    assert!(prompt.contains("each of these ids: c3."));
    assert!(
        !prompt.contains("binding judges"),
        "the final REVISE's directives are not the reopened round's work"
    );
    h.finish("proposer", &revision_text(&["c3"]));
    let effects = h.finish_judges(&failing);
    assert!(matches!(
        finished(&effects),
        Some(Outcome::Decided {
            verdict: Verdict::Revise,
            ..
        })
    ));
    assert_eq!(h.review.revisions().len(), 2);

    // Two loops allowed: a REVISE after the reopened round 2 loops once.
    let mut h = adopted_with_deferred(config(), &["c3"]);
    h.resolve("c3", Accept, None);
    h.reopen();
    h.finish("proposer", &revision_text(&["c3"]));
    let effects = h.finish_judges(&failing);
    let spec = the_start(&effects);
    assert_eq!(
        (spec.request.stage.as_str(), spec.request.round),
        ("revision", 3)
    );
    assert!(spec.request.prompt.contains("each of these ids: d1."));
    h.finish("proposer", &revision_text(&["d1"]));
    let effects = h.finish_judges(&failing);
    assert!(finished(&effects).is_some(), "round 3 used both loops");
    assert_eq!(h.verdict(), Some(Verdict::Revise));
}

/// A debate can be reopened again for another item settled after the new
/// verdict; rounds keep counting and the still-open item stays in the
/// reviser's open questions.
#[test]
fn reopen_twice_numbers_the_rounds_on() {
    let mut h = adopted_with_deferred(config(), &["c3", "c4"]);
    h.resolve("c3", Accept, None);
    let prompt = the_start(&h.reopen()).request.prompt.clone();
    let open = prompt
        .split("## Open questions")
        .nth(1)
        .expect("c4 is open");
    assert!(open.contains("### c4: on block b4"));
    assert!(!open.contains("### c3"));
    h.finish("proposer", &revision_text(&["c3"]));
    h.finish_judges(all_fours);
    assert!(h.review.board().resolvable, "c4 is still deferred");

    h.resolve("c4", Accept, Some("now"));
    assert_eq!(h.debate()["meta"]["reopen_items"][0], "c4");
    let effects = h.reopen();
    let spec = the_start(&effects);
    assert_eq!(spec.request.round, 3);
    assert!(spec.request.prompt.contains("each of these ids: c4."));
    assert!(!spec.request.prompt.contains("### c3"));
    let judges = h.finish("proposer", &revision_text(&["c4"]));
    assert_eq!(
        starts(&judges)[0].raw_output_path.as_deref(),
        Some(judge_file(Analyst, 3).as_str())
    );
    h.finish_judges(all_fours);
    assert_eq!(h.verdict(), Some(Verdict::Adopt));
    assert!(!h.review.board().resolvable);
    assert_eq!(h.review.addressed_in_round("c3"), Some(2));
    assert_eq!(h.review.addressed_in_round("c4"), Some(3));
}

// ---- the comparative mode ------------------------------------------------------

/// Two options: b1 and b2 argue A, b3 and b4 argue B.
fn comparative_config() -> ReviewConfig {
    ReviewConfig {
        mode: ReviewMode::Comparative,
        options: vec![
            ReviewOption {
                id: "A".into(),
                text: "Postgres as the queue".into(),
            },
            ReviewOption {
                id: "B".into(),
                text: "Redis streams".into(),
            },
        ],
        ..config()
    }
}

/// `text` with `option:` added to each block, as `tags` says.
fn tagged(text: &str, tags: &[(&str, &str)]) -> String {
    let mut out = text.to_string();
    for (block, option) in tags {
        let at = out.find(&format!("  - id: {block}\n")).expect("the block");
        let line_end = at + out[at..].find("    type: ").unwrap();
        let after_type = line_end + out[line_end..].find('\n').unwrap() + 1;
        out.insert_str(after_type, &format!("    option: {option}\n"));
    }
    out
}

const TAGS: [(&str, &str); 4] = [("b1", "A"), ("b2", "A"), ("b3", "B"), ("b4", "B")];

fn comparative_at_evaluation() -> Harness {
    comparative_at_evaluation_with(comparative_config())
}

/// A comparison of `config`, its revision in, its judges at work.
fn comparative_at_evaluation_with(config: ReviewConfig) -> Harness {
    let mut h = Harness::new(config);
    h.finish("proposer", &tagged(&proposal_text(), &TAGS));
    h.finish("critic", &default_critique());
    h.decide_all(Accept);
    h.submit();
    h.finish("proposer", &tagged(&revision_text(&ALL_ITEMS), &TAGS));
    h
}

/// DR-52: every block argues one of the options and every option has a
/// block; an option written in another case is read as the option (and
/// noted). Item by item (issue 59): a block naming no option is left out,
/// and an option left without a block is said to be, after one repair; a
/// tree with no block left to read stops the review.
#[test]
fn dr_52_every_block_argues_a_known_option_and_every_option_is_argued() {
    let mut h = Harness::new(comparative_config());
    h.finish("proposer", &proposal_text());
    assert!(
        h.logged(LogKind::LeftOut, "block b1 names no option"),
        "{:?}",
        h.review.log()
    );
    let repair = h.call("proposer");
    assert_eq!(repair.request.attempt, 2);
    h.finish("proposer", &proposal_text());
    assert!(
        matches!(h.review.outcome(), Some(Outcome::Failed { reason }) if reason.contains("no block quorum could read")),
        "a tree with no block left stops the review: {:?}",
        h.review.outcome()
    );

    let mut h = Harness::new(comparative_config());
    let only_a = tagged(
        &proposal_text(),
        &[("b1", "a"), ("b2", "A"), ("b3", "A"), ("b4", "A")],
    );
    h.finish("proposer", &only_a);
    assert_eq!(
        h.call("proposer").request.attempt,
        2,
        "asked about option B"
    );
    h.finish("proposer", &only_a);
    assert!(h.review.outcome().is_none());
    assert!(h.call("critic").request.prompt.contains("option: A"));
    let unread = h.review.unread();
    assert_eq!(unread[0].what, "option B");
    assert!(
        unread[0].effect.contains("ranks without scores"),
        "{unread:?}"
    );

    let mut h = Harness::new(comparative_config());
    let lower = tagged(
        &proposal_text(),
        &[("b1", "a"), ("b2", "A"), ("b3", "b"), ("b4", "B")],
    );
    h.finish("proposer", &lower);
    assert!(
        h.logged(LogKind::Note, "read option \"a\" as A (b1)"),
        "{:?}",
        h.review.log()
    );
    assert!(h.call("critic").request.prompt.contains("option: A"));
}

/// DR-53: the critic of a comparison looks for hidden assumptions, lock-in,
/// migration cost and operational burden; DR-54: judges score every option
/// on its merits per criterion and leave the ranking to quorum.
#[test]
fn dr_53_dr_54_the_comparison_is_in_the_critic_and_judge_prompts() {
    let mut h = Harness::new(comparative_config());
    assert!(h.prompt("proposer").contains("choosing is not your job"));
    h.finish("proposer", &tagged(&proposal_text(), &TAGS));
    let critic = h.prompt("critic");
    for focus in [
        "assumptions nobody stated",
        "lock-in",
        "cost of migrating",
        "running it day to day",
    ] {
        assert!(critic.contains(focus), "{focus}");
    }
    assert!(critic.contains("- **A**: Postgres as the queue"));
    let h = comparative_at_evaluation();
    let judge = h.prompt("judge.analyst");
    assert!(judge.contains("not by how well it is argued"));
    assert!(judge.contains("criterion by criterion"));
    let architecture = Harness::at_evaluation(config());
    assert!(
        !architecture
            .prompt("judge.analyst")
            .contains("criterion by criterion")
    );
}

/// A15: a comparison ends after one evaluation with a ranking and no
/// verdict, even when a binding score would have sent an architecture
/// review back for revision; the board's rows are the options.
#[test]
fn a15_a_comparison_ranks_once_and_never_loops_back() {
    let mut h = comparative_at_evaluation();
    let board = h.review.board();
    let quorum::protocol::BoardView::Scores(scoreboard) = board.view else {
        panic!("a scoreboard");
    };
    assert_eq!(scoreboard.blocks, ["A", "B"]);
    assert!(scoreboard.implied.is_none(), "no verdict in a comparison");
    h.finish_judges(one_judge(
        Analyst,
        &[("b1", Feasibility, 2), ("b3", Risk, 1)],
    ));
    let Some(Outcome::Completed { note, .. }) = h.review.outcome() else {
        panic!("completed, not decided: {:?}", h.review.outcome());
    };
    assert_eq!(note, "recommendation: A");
    assert!(h.live.is_empty(), "no revision round");
    let quorum::protocol::BoardView::Scores(scoreboard) = h.review.board().view else {
        panic!("a scoreboard");
    };
    assert_eq!(
        scoreboard.leader.as_deref(),
        Some("A > B · Choose A: every other option has a dealbreaker.")
    );
}

// ---- a decline is not an answer (issue 60) ----------------------------------------------

/// The proposer's reason for declining, in plain words.
const DECLINE_REASON: &str = "The ledger already keeps every change for seven years.";

/// [`revision_text`] for `ids`, with each of `declined` declined (no
/// change, [`DECLINE_REASON`] as its rationale) instead of strengthened.
fn revision_declining(ids: &[&str], declined: &[&str]) -> String {
    let mut text = revision_text(ids);
    for id in declined {
        let strengthened = format!(
            "  - addresses_critique: {id}\n    block_id: b1\n    change_type: strengthen\n    \
             before: \"old\"\n    after: \"new for {id}\"\n"
        );
        assert!(text.contains(&strengthened), "{text}");
        text = text.replace(
            &strengthened,
            &format!(
                "  - addresses_critique: {id}\n    block_id: b1\n    change_type: decline\n    \
                 rationale: \"{DECLINE_REASON}\"\n"
            ),
        );
    }
    text
}

/// DR-15, A11, RF-16, DR-50: an accepted item the revision declined is
/// declined, with the proposer's reason, never answered: not in the
/// opening (where it is the strongest objection), not in "What changed in
/// revision" or debate.yaml's `what_changed`, not in the rulings the judges
/// read, and not in the report's account of the change log. The items
/// changed for are still answered.
#[test]
fn dr_15_a11_rf_16_a_declined_item_is_reported_declined_with_its_reason_never_answered() {
    let mut h = Harness::at_moderation(config());
    h.decide_all(Accept);
    h.submit();
    h.finish("proposer", &revision_declining(&ALL_ITEMS, &["c1"]));
    // The judges read the rulings as the revision met them.
    let judge = h.started_for("judge.analyst")[0].request.prompt.clone();
    assert!(
        judge.contains(&format!(
            "- c1: accepted — declined in round 1, so no change answers it; the reason given: {DECLINE_REASON}\n"
        )),
        "{judge}"
    );
    assert!(!judge.contains("- c1: accepted — answered"), "{judge}");
    assert!(
        judge.contains("- c2: accepted — answered in round 1: keep that answer\n"),
        "{judge}"
    );
    assert!(
        judge.contains("`change_type: decline` changes nothing"),
        "{judge}"
    );
    h.finish_judges(all_fours);
    assert_eq!(h.verdict(), Some(Verdict::Adopt), "{}", h.rule());

    // c1 (b1, major) is the strongest objection.
    let lead = h.lead();
    assert!(lead.contains("The hardest objection was that"), "{lead}");
    assert!(!lead.contains("answers it"), "{lead}");
    assert!(
        lead.contains(&format!(
            "; it was declined rather than answered, for this reason: {}.",
            DECLINE_REASON.trim_end_matches('.')
        )),
        "{lead}"
    );
    let declined = format!(
        "c1 (accepted): declined, not answered by any change; round 1 declined to change b1, \
         the proposer's reason: {}.",
        DECLINE_REASON.trim_end_matches('.')
    );
    let summary = h.doc("summary.md");
    let section = &summary[summary.find("## What changed in revision").unwrap()..];
    assert!(section.contains(&format!("- {declined}")), "{section}");
    assert!(
        section.contains("- c2 (accepted): round 1 strengthened b1: new for c2."),
        "{section}"
    );
    let what_changed = h.debate()["decision"]["what_changed"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(what_changed.contains(&declined), "{what_changed}");
    // The report's account of each block (`quorum report`).
    let causes: Vec<String> = h
        .review
        .changes()
        .into_iter()
        .flat_map(|part| part.causes)
        .collect();
    let cause = causes
        .iter()
        .find(|cause| cause.contains(" c1, "))
        .expect("the decline is a cause of b1's entry");
    assert!(
        cause.starts_with("round 1, decline: declined, not answering c1, major")
            && cause.ends_with(&format!("— the proposer's reason: {DECLINE_REASON}")),
        "{cause}"
    );
    assert!(
        causes
            .iter()
            .any(|cause| cause.starts_with("round 1, strengthen: answers c2, minor")),
        "{causes:?}"
    );
}

/// DR-15, A11: a deferred item accepted after the verdict that the
/// reopened round declines is recorded as declined, with the reason, in
/// critique.md, summary.md and debate.yaml (`declined_in_round`,
/// `declined_reason`, never `addressed_in_round`); it still cannot be
/// settled again, and nothing reopens.
#[test]
fn dr_15_a11_a_reopened_round_that_declines_an_item_records_it_declined() {
    let mut h = adopted_with_deferred(config(), &["c3"]);
    h.resolve("c3", Accept, None);
    h.reopen();
    let reviser = h.started_for("proposer").last().unwrap().request.clone();
    assert_eq!(reviser.round, 2);
    h.finish("proposer", &revision_declining(&["c3"], &["c3"]));
    h.finish_judges(all_fours);
    assert_eq!(h.verdict(), Some(Verdict::Adopt), "{}", h.rule());
    let said = format!(
        "declined in revision round 2, not answered; the proposer's reason: {DECLINE_REASON}"
    );
    let critique = h.doc("critique.md");
    assert!(critique.contains(&format!("; {said}")), "{critique}");
    assert!(
        !critique.contains("answered in revision round"),
        "{critique}"
    );
    let summary = h.doc("summary.md");
    let settled = &summary[summary
        .find("## Deferred items settled after the verdict")
        .unwrap()..];
    assert!(settled.contains(&format!("; {said}")), "{settled}");
    let resolution = &h.debate()["deferred_items"][0]["resolution"];
    assert!(
        resolution.get("addressed_in_round").is_none(),
        "{resolution:?}"
    );
    assert_eq!(resolution["declined_in_round"], 2);
    assert_eq!(resolution["declined_reason"], DECLINE_REASON);
    assert!(!h.review.reopen_pending());
    let before = h.review.log().len();
    h.resolve("c3", Reject, None);
    assert_eq!(
        h.notes_since(before),
        [
            "Note: ignored a resolution of c3: it was accepted after the verdict and revision round 2 has declined it"
        ]
    );
}

// ---- the stability receipt (issue 55, JM-10..JM-19) ---------------------------------

/// A one-round review that asks for a receipt of `variants`, required or
/// not, and names its missing judges.
fn receipt_config(variants: u32, required: bool) -> ReviewConfig {
    ReviewConfig {
        stability: quorum::protocol::stability::Stability {
            variants,
            required,
            names_missing: true,
        },
        ..final_round_config()
    }
}

impl Harness {
    /// The live calls of the receipt's variant `k`.
    fn variant_calls(&self, k: u32) -> Vec<CallSpec> {
        let stage = quorum::protocol::stability::stage_of_variant(k);
        self.live
            .iter()
            .filter(|spec| spec.request.stage == stage)
            .cloned()
            .collect()
    }

    /// Answers every live judge of variant `k` with `text(role)`.
    fn finish_variant(&mut self, k: u32, text: impl Fn(JudgeRole) -> String) -> Vec<Effect> {
        let calls = self.variant_calls(k);
        assert!(!calls.is_empty(), "no judge of variant {k} is working");
        let mut effects = Vec::new();
        for spec in calls {
            let role = JudgeRole::parse(spec.request.role.trim_start_matches("judge.")).unwrap();
            effects.extend(self.finish_id(&spec.request.call_id, &text(role)));
        }
        effects
    }

    fn variant_rule(&self, k: usize) -> String {
        let debate = self.debate();
        debate["stages"]["evaluation"]["stability"]["variants"][k - 1]["rule"]
            .as_str()
            .unwrap_or_else(|| panic!("variant {k} has no rule"))
            .to_string()
    }
}

/// JM-10: the receipt runs only when asked, only after the verdict that
/// ends the debate (a REVISE with a loop left goes back to revision), with
/// the judges of the deciding round, each variant's answer to a file of
/// its own; until it is in, the debate has not ended.
#[test]
fn jm_10_the_receipt_runs_after_the_final_verdict_and_only_when_asked() {
    let plain = Harness::judged(final_round_config(), all_fours);
    assert_eq!(plain.verdict(), Some(Verdict::Adopt));
    assert!(
        !plain
            .started
            .iter()
            .any(|spec| spec.request.stage.starts_with("stability-")),
        "no receipt was asked for"
    );

    let looping = ReviewConfig {
        max_rounds: 2,
        ..receipt_config(2, false)
    };
    let mut h = Harness::at_evaluation(looping);
    let effects = h.finish_judges(one_judge(Analyst, &[("b2", Feasibility, 2)]));
    assert_eq!(slots(&effects), ["proposer/revision"], "a loop is left");

    let mut h = Harness::at_evaluation(receipt_config(2, false));
    let effects = h.finish_judges(all_fours);
    assert!(finished(&effects).is_none(), "the receipt comes first");
    assert_receipt_started(&effects);
    assert!(h.logged(
        LogKind::Note,
        "the stability receipt judges it again under 2 variants: 6 calls ≈"
    ));
    h.finish_variant(1, all_fours);
    assert_eq!(h.verdict(), None, "variant 2 is still out");
    h.finish_variant(2, all_fours);
    assert_eq!(h.verdict(), Some(Verdict::Adopt));
    assert!(
        h.rule().ends_with("; verdict stable in 2 of 2 → ADOPT"),
        "{}",
        h.rule()
    );
}

/// JM-11: a variant's prompt is the deciding round's in another order and
/// with other, neutral labels for the authors: no line but those that list
/// the blocks in order differs once the labels are put back.
#[test]
fn jm_11_a_variant_prompt_differs_only_in_order_and_labels() {
    let mut h = Harness::at_evaluation(receipt_config(2, false));
    let real = h.prompt("judge.analyst");
    h.finish_judges(all_fours);
    for k in [1, 2] {
        let variant = quorum::protocol::stability::Variant::new(0, k);
        let call = h
            .variant_calls(k)
            .into_iter()
            .find(|spec| spec.request.role == "judge.analyst")
            .unwrap();
        let prompt = call.request.prompt;
        assert!(prompt.contains(&format!("written by the {}", variant.author_label)));
        for name in ["oracle", "mephistopheles"] {
            assert!(!prompt.contains(name), "variant {k} names the {name}");
        }
        let back = prompt
            .replace(&variant.author_label, "proposer (oracle)")
            .replace(&variant.challenger_label, "critic (mephistopheles)");
        let mut ours: Vec<&str> = back.lines().collect();
        let mut theirs: Vec<&str> = real.lines().collect();
        ours.sort_unstable();
        theirs.sort_unstable();
        let differing: Vec<&&str> = ours.iter().filter(|line| !theirs.contains(line)).collect();
        for line in &differing {
            assert!(
                // The answer's example starts with the first block and
                // criterion read.
                line.contains("Score every block (")
                    || line.contains("- block_id: b")
                    || line.trim_start().starts_with("criterion: "),
                "variant {k} changed more than the order: {line}"
            );
        }
        assert_eq!(ours.len(), theirs.len(), "variant {k} reads as much");
    }
}

/// JM-12: each variant's verdict is derived by the code of the real one:
/// the same answers give the same rule, word for word.
#[test]
fn jm_12_a_variant_is_judged_by_the_real_verdicts_code() {
    let low = one_judge(Analyst, &[("b2", Feasibility, 2)]);
    let real = Harness::judged(final_round_config(), &low).rule();
    let mut h = Harness::at_evaluation(receipt_config(2, false));
    h.finish_judges(all_fours);
    h.finish_variant(1, &low);
    h.finish_variant(2, all_fours);
    assert_eq!(h.variant_rule(1), real);
    assert_eq!(h.verdict(), Some(Verdict::Adopt), "not required: it stands");
    assert!(
        h.rule()
            .contains("verdict stable in 1 of 2 (variant 1 gave REVISE)"),
        "{}",
        h.rule()
    );
}

/// JM-15: under `require_stability` an ADOPT that flipped in a variant is
/// ESCALATE, the rule in words; a verdict other than ADOPT is never turned.
#[test]
fn jm_15_require_stability_turns_an_unstable_adopt_to_escalate() {
    let mut h = Harness::at_evaluation(receipt_config(2, true));
    h.finish_judges(all_fours);
    h.finish_variant(1, all_fours);
    h.finish_variant(2, one_judge(Analyst, &[("b2", Feasibility, 2)]));
    assert_eq!(h.verdict(), Some(Verdict::Escalate));
    assert!(
        h.rule().ends_with(
            "; the ADOPT held in only 1 of 2 re-judged variants, and require_stability asks for all 2 (variant 2 gave REVISE) → ESCALATE"
        ),
        "{}",
        h.rule()
    );
    assert_eq!(h.debate()["stages"]["evaluation"]["verdict"], "ESCALATE");

    let mut steady = Harness::at_evaluation(receipt_config(2, true));
    steady.finish_judges(all_fours);
    steady.finish_variant(1, all_fours);
    steady.finish_variant(2, all_fours);
    assert_eq!(steady.verdict(), Some(Verdict::Adopt), "{}", steady.rule());

    let mut revise = Harness::at_evaluation(receipt_config(1, true));
    revise.finish_judges(one_judge(Analyst, &[("b2", Feasibility, 2)]));
    revise.finish_variant(1, all_fours);
    assert_eq!(revise.verdict(), Some(Verdict::Revise), "{}", revise.rule());
}

/// JM-14: a verdict reached with a judge missing names it and says
/// whether it was the slowest, from when each call started and ended; a
/// variant with a judge missing says so in its own rule.
#[test]
fn jm_14_a_missing_judge_is_named_with_whether_it_was_the_slowest() {
    // The aesthete times out after the others answered: the slowest.
    let mut h = Harness::at_evaluation(receipt_config(0, false));
    h.finish("judge.analyst", &all_fours(Analyst));
    h.finish("judge.stylist", &all_fours(Stylist));
    h.give_up("judge.aesthete");
    let rule = h.rule();
    assert!(
        rule.contains("without the aesthete (skipped: ") && rule.contains("it was the slowest"),
        "{rule}"
    );

    // It gives up first: the others took longer.
    let mut h = Harness::at_evaluation(receipt_config(0, false));
    h.give_up("judge.aesthete");
    h.finish("judge.analyst", &all_fours(Analyst));
    h.finish("judge.stylist", &all_fours(Stylist));
    assert!(h.rule().contains("it was not the slowest"), "{}", h.rule());

    // A debate from before issue 55 keeps its rule as it was.
    let mut legacy = Harness::at_evaluation(final_round_config());
    legacy.give_up("judge.aesthete");
    legacy.finish_judges(all_fours);
    assert!(!legacy.rule().contains("without the"), "{}", legacy.rule());

    // In a variant: the stylist of variant 1 gives no answer.
    let mut h = Harness::at_evaluation(receipt_config(1, false));
    h.finish_judges(all_fours);
    let calls = h.variant_calls(1);
    let stylist = calls
        .iter()
        .find(|spec| spec.request.role == "judge.stylist")
        .unwrap();
    for _ in 0..2 {
        let call_id = h
            .live
            .iter()
            .find(|spec| spec.request.role == stylist.request.role)
            .unwrap()
            .request
            .call_id
            .clone();
        h.send(Input::CallFailed {
            call_id,
            failure: CallFailure::TimedOut {
                after_ms: 600_000,
                staged: false,
            },
            partial_chars: 0,
            elapsed_ms: 600_000,
        });
    }
    h.finish_variant(1, all_fours);
    let variant = h.variant_rule(1);
    assert!(
        variant.contains("without the stylist (skipped: "),
        "{variant}"
    );
    assert_eq!(
        h.verdict(),
        Some(Verdict::Adopt),
        "not required: {}",
        h.rule()
    );
    // The stylist is advisory: without it the variant still adopts.
    assert!(variant.ends_with("→ ADOPT"), "{variant}");
    assert!(
        h.rule().contains("verdict stable in 1 of 1"),
        "{}",
        h.rule()
    );
}

/// JM-16: a malformed answer in a variant is kept, marked, at its own file
/// and left out of that variant, as a malformed judge of the real round is.
#[test]
fn jm_16_a_malformed_variant_answer_is_kept_and_left_out() {
    let mut h = Harness::at_evaluation(receipt_config(1, false));
    h.finish_judges(all_fours);
    h.finish_variant(1, |role| match role {
        Analyst => "Everything looks fine. 5/5.".to_string(),
        other => all_fours(other),
    });
    let kept = h.doc("judges/stability/variant-1/judge-analyst.md");
    assert!(kept.contains("Everything looks fine. 5/5."), "{kept}");
    assert!(
        h.review
            .answer_files()
            .iter()
            .any(|file| file.path == "judges/stability/variant-1/judge-analyst.md"),
        "the malformed answer is kept with its mark"
    );
    assert!(
        h.variant_rule(1)
            .contains("analyst is missing (malformed), a binding judge"),
        "{}",
        h.variant_rule(1)
    );
    assert!(h.logged(LogKind::Malformed, "left out of that variant"));
}

// ---- a comparison's stability receipt (issue 55, JM-50..JM-59) -------------------------

/// A comparison ([`comparative_config`]) that asks for a receipt of
/// `variants`, required or not, at its evaluation.
fn comparison_receipt_at_evaluation(variants: u32, required: bool) -> Harness {
    comparative_at_evaluation_with(ReviewConfig {
        stability: receipt_config(variants, required).stability,
        ..comparative_config()
    })
}

/// The analyst marks option A's b1 down on feasibility: B ranks first.
fn b_first(role: JudgeRole) -> String {
    one_judge(Analyst, &[("b1", Feasibility, 2)])(role)
}

/// The note a comparison ended with.
fn completed_note(h: &Harness) -> String {
    match h.review.outcome() {
        Some(Outcome::Completed { note, .. }) => note.clone(),
        other => panic!("a comparison completes: {other:?}"),
    }
}

/// The receipt's calls `effects` started: each of the three judges under
/// both variants, each answer to its variant's own file.
fn assert_receipt_started(effects: &[Effect]) {
    let mut started = slots(effects);
    started.sort();
    assert_eq!(
        started,
        [
            "judge.aesthete/stability-1",
            "judge.aesthete/stability-2",
            "judge.analyst/stability-1",
            "judge.analyst/stability-2",
            "judge.stylist/stability-1",
            "judge.stylist/stability-2",
        ]
    );
    for spec in starts(effects) {
        let k = &spec.request.stage["stability-".len()..];
        let role = spec.request.role.trim_start_matches("judge.");
        assert_eq!(
            spec.raw_output_path.as_deref(),
            Some(format!("judges/stability/variant-{k}/judge-{role}.md").as_str())
        );
    }
}

/// JM-50: a comparison's receipt runs once the ranking is in, with the
/// judges who scored it, each variant's answer to a file of its own; until
/// it is in the comparison has not ended; then the note says in how many
/// variants the recommendation held.
#[test]
fn jm_50_a_comparison_receipt_runs_after_the_ranking() {
    let mut h = comparison_receipt_at_evaluation(2, false);
    let effects = h.finish_judges(all_fours);
    assert!(finished(&effects).is_none(), "the receipt comes first");
    assert_receipt_started(&effects);
    assert!(h.logged(
        LogKind::Note,
        "round 1: recommendation A; the stability receipt judges it again under 2 variants: 6 calls ≈"
    ));
    h.finish_variant(1, all_fours);
    assert!(h.review.outcome().is_none(), "variant 2 is still out");
    h.finish_variant(2, all_fours);
    assert_eq!(
        completed_note(&h),
        "recommendation: A; recommendation stable in 2 of 2"
    );
    let stability = &h.debate()["stages"]["evaluation"]["stability"];
    assert_eq!(stability["recommendation"], "A");
    assert!(
        stability["verdict"].is_null(),
        "a comparison has no verdict"
    );
    assert_eq!(stability["variants"][1]["recommendation"], "A");
}

/// JM-52: each variant is ranked by the code of the real ranking: the
/// same answers give the same ranking, word for word; a variant that
/// recommends another option is counted and named, and, not required,
/// the recommendation stands.
#[test]
fn jm_52_a_variant_is_ranked_by_the_real_rankings_code() {
    let mut real = comparative_at_evaluation();
    real.finish_judges(b_first);
    let decision = &real.debate()["decision"];
    assert_eq!(decision["recommendation"], "B");
    let order: Vec<&str> = decision["ranking"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|option| option["option"].as_str().unwrap())
        .collect();
    let real_rule = format!(
        "ranking {}; {}",
        order.join(" > "),
        decision["conditional_recommendation"].as_str().unwrap()
    );

    let mut h = comparison_receipt_at_evaluation(2, false);
    h.finish_judges(all_fours);
    h.finish_variant(1, b_first);
    h.finish_variant(2, all_fours);
    assert_eq!(h.variant_rule(1), real_rule);
    let stability = &h.debate()["stages"]["evaluation"]["stability"];
    assert_eq!(stability["variants"][0]["recommendation"], "B");
    assert_eq!(
        completed_note(&h),
        "recommendation: A; recommendation stable in 1 of 2 (variant 1 recommended B)"
    );
    assert_eq!(h.debate()["decision"]["recommendation"], "A");
}

/// JM-53: under `require_stability` a recommendation that did not hold in
/// every variant is withdrawn: the comparison ends with no option
/// recommended and the rule in words, the ranking as the judges' scores
/// gave it, and nothing to hand on; one that held stands.
#[test]
fn jm_53_require_stability_withdraws_an_unstable_recommendation() {
    let mut h = comparison_receipt_at_evaluation(2, true);
    h.finish_judges(all_fours);
    h.finish_variant(1, all_fours);
    h.finish_variant(2, b_first);
    let rule = "the recommendation of A held in only 1 of 2 re-judged variants, and require_stability asks for all 2 (variant 2 recommended B) → no option recommended";
    assert_eq!(completed_note(&h), rule);
    assert!(h.logged(LogKind::Verdict, rule));
    let decision = &h.debate()["decision"];
    assert!(decision["recommendation"].is_null(), "{decision:?}");
    assert_eq!(decision["withdrawn"], rule);
    assert_eq!(decision["ranking"][0]["option"], "A", "the ranking stays");
    assert!(h.review.handoff().is_none(), "nothing to hand on");
    let lead = summary_lead(&h.review).unwrap();
    assert!(
        lead.starts_with("**No option is recommended.** A was recommended in only 1 of 2"),
        "{lead}"
    );
    let summary = h.doc("summary.md");
    assert!(
        summary
            .contains("Stability was required for a recommendation, so no option is recommended."),
        "{summary}"
    );
    assert!(summary.contains("## The ranking"), "{summary}");

    let mut steady = comparison_receipt_at_evaluation(2, true);
    steady.finish_judges(all_fours);
    steady.finish_variant(1, all_fours);
    steady.finish_variant(2, all_fours);
    assert_eq!(
        completed_note(&steady),
        "recommendation: A; recommendation stable in 2 of 2"
    );
    assert!(steady.review.handoff().is_some());
}
