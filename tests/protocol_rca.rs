//! The root-cause critic's rules (RULES.md section 11b, RC-01..RC-18,
//! A28-A30), checked against the pure state machine: inputs in, effects
//! and documents out, no I/O, no clock, no tokio. Each test names the rules
//! it checks.

use crate::support;

use std::sync::Arc;

use quorum::prompts::PromptSet;
use quorum::protocol::Questions;
use quorum::protocol::rca::model::{ChallengeState, Finding, Status};
use quorum::protocol::rca::{Rca, RcaConfig, SeededHypothesis};
use quorum::protocol::{BoardView, ContextDoc, ItemDecision, Outcome, Protocol, Verdict};
use support::rca::{answers, critic, findings};

const PROBLEM: &str = "Checkout p99 rose from 180 ms to 2.4 s at 14:03 UTC";
const CONTEXT_TEXT: &str = "SECRET-CONTEXT: deploy log says v2.31.0 finished 14:02:10.";

fn config(debuggers: &[&str]) -> RcaConfig {
    let mut agents: std::collections::BTreeMap<String, String> = debuggers
        .iter()
        .map(|name| (format!("debugger.{name}"), "script:scripted".to_string()))
        .collect();
    agents.insert("critic".into(), "script:scripted".into());
    RcaConfig {
        topic: PROBLEM.into(),
        context: vec![ContextDoc {
            name: "incident.md".into(),
            text: CONTEXT_TEXT.into(),
        }],
        debuggers: debuggers.iter().map(|name| name.to_string()).collect(),
        seeded: Vec::new(),
        seating: support::harness::seated(agents),
        restates_hedged_claims: true,
    }
}

type Harness = support::harness::Harness<Rca>;

fn harness(config: RcaConfig) -> Harness {
    Harness::start(Rca::new(config, Arc::new(PromptSet::builtin())))
}

fn of(debuggers: &[&str]) -> Harness {
    harness(config(debuggers))
}

/// The final status of `id`.
fn status(harness: &Harness, id: &str) -> Status {
    harness
        .protocol
        .statuses()
        .iter()
        .find(|(hypothesis, _)| hypothesis == id)
        .map(|(_, derived)| derived.status)
        .unwrap_or_else(|| panic!("no status for {id}"))
}

/// The rule that decided `id`'s final status.
fn rule(harness: &Harness, id: &str) -> String {
    harness
        .protocol
        .statuses()
        .iter()
        .find(|(hypothesis, _)| hypothesis == id)
        .map(|(_, derived)| derived.rule.clone())
        .unwrap()
}

/// Alpha presents H1, beta H2; the critic challenges each once, critically.
fn two_hypotheses() -> Harness {
    let mut harness = of(&["alpha", "beta"]);
    harness.answer(
        "debugger.alpha/findings/r1",
        &findings(&["The v2.31.0 deploy added a blocking call."]),
    );
    harness.answer(
        "debugger.beta/findings/r1",
        &findings(&["The pool was exhausted."]),
    );
    harness.answer(
        "critic/challenge/r1",
        &critic(&[], &[("H1", true), ("H2", true)], None),
    );
    harness.accept_all();
    harness
}

/// [`two_hypotheses`] run to its end: H1's challenge resolved, H2's
/// answer contradicting it, every ruling upheld, in round 2.
fn settled_in_round_two() -> Harness {
    let mut harness = two_hypotheses();
    harness.answer(
        "debugger.alpha/answers/r1",
        &answers(&[("X1.1", Some("First slow trace 14:02:31."))]),
    );
    harness.answer(
        "debugger.beta/answers/r1",
        &answers(&[("X2.1", Some("Pool wait rose at 14:04."))]),
    );
    harness.answer(
        "critic/challenge/r2",
        &critic(
            &[("X1.1", "resolved"), ("X2.1", "contradicted")],
            &[],
            Some("Roll back v2.31.0."),
        ),
    );
    harness.accept_all();
    harness
}

// ---- the role of the critic ---------------------------------------------------------

/// RC-01, RC-02, RC-08, RC-11: the critic's prompt names the debuggers,
/// carries their findings and nothing they did not present (no context
/// file), lists the nine tests and the grounds for rejection.
#[test]
fn rc_01_rc_02_rc_08_rc_11_the_critic_sees_only_the_findings() {
    let mut harness = of(&["alpha", "beta"]);
    harness.answer(
        "debugger.alpha/findings/r1",
        &findings(&["The deploy added a blocking call."]),
    );
    harness.answer(
        "debugger.beta/findings/r1",
        &findings(&["The pool was exhausted."]),
    );
    let prompt = harness.call("critic/challenge/r1").request.prompt;
    assert!(prompt.contains("alpha, beta"), "RC-02: names the debuggers");
    assert!(prompt.contains("The deploy added a blocking call."));
    assert!(
        prompt.contains("submit.rs line 212 awaits the fraud call"),
        "with their evidence"
    );
    assert!(!prompt.contains("SECRET-CONTEXT"), "RC-01: no context file");
    assert!(prompt.contains("You run no queries, read no code and fetch no logs"));
    for test in [
        "causation",
        "alternatives",
        "confounders",
        "contradictions",
        "timeline",
        "reachability",
        "sufficiency",
        "culprit_change",
        "release_timing",
    ] {
        assert!(prompt.contains(&format!("`{test}`")), "RC-08: {test}");
    }
    for ground in [
        "takes correlation for causation",
        "without a log entry, trace or stack trace",
        "without a file and line",
        "timing, ordering or concurrency",
        "\"common knowledge\" or \"best practice\"",
        "one data point as proof",
        "leaps a step",
    ] {
        assert!(prompt.contains(ground), "RC-11: {ground}");
    }
    // The debuggers investigate the context; the critic never does.
    let findings_prompt = &harness.started[0].request.prompt;
    assert!(findings_prompt.contains("SECRET-CONTEXT"));
}

/// RC-03: the critic starts only once every debugger's findings are in,
/// and must challenge every hypothesis; an answer that leaves one out is
/// repaired.
#[test]
fn rc_03_the_critic_starts_after_all_findings_and_challenges_each() {
    let mut harness = of(&["alpha", "beta"]);
    harness.answer("debugger.alpha/findings/r1", &findings(&["A."]));
    assert!(
        !harness.was_started("critic/"),
        "beta is still investigating"
    );
    harness.answer("debugger.beta/findings/r1", &findings(&["B.", "C."]));
    let ids: Vec<&str> = harness
        .protocol
        .hypotheses()
        .iter()
        .map(|h| h.id.as_str())
        .collect();
    assert_eq!(ids, ["H1", "H2", "H3"], "numbered in debugger order");
    assert_eq!(harness.protocol.hypotheses()[2].owner, "beta");
    harness.answer(
        "critic/challenge/r1",
        &critic(&[], &[("H1", true), ("H2", true)], None),
    );
    let repair = harness.call("critic/challenge/r1/a2");
    assert!(
        repair.request.prompt.contains("none for H3"),
        "the repair quotes the error"
    );
}

/// RC-04, RC-05: each challenge goes to the owner of its hypothesis and to
/// no one else; the board tracks each hypothesis as active or settled.
#[test]
fn rc_04_rc_05_challenges_go_only_to_their_owner() {
    let mut harness = of(&["alpha", "beta", "gamma"]);
    harness.answer("debugger.alpha/findings/r1", &findings(&["A."]));
    harness.answer("debugger.beta/findings/r1", &findings(&["B."]));
    harness.answer("debugger.gamma/findings/r1", &findings(&[]));
    harness.answer(
        "critic/challenge/r1",
        &critic(&[], &[("H1", true), ("H2", false)], None),
    );
    harness.accept_all();
    let alpha = harness.call("debugger.alpha/answers/r1").request.prompt;
    let beta = harness.call("debugger.beta/answers/r1").request.prompt;
    assert!(alpha.contains("X1.1") && !alpha.contains("X2.1"), "{alpha}");
    assert!(beta.contains("X2.1") && !beta.contains("X1.1"));
    assert!(
        !harness.was_started("debugger.gamma/answers"),
        "gamma owns nothing"
    );
    let BoardView::Rulings(rows) = harness.protocol.board().view else {
        panic!("a hypotheses board");
    };
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|row| row.word.is_none()), "both active");
    assert!(
        rows[0].rule.starts_with("active: X1.1 open"),
        "{}",
        rows[0].rule
    );
    assert!(
        rows[0]
            .facts
            .iter()
            .any(|f| f.label == "owner" && f.value == "alpha")
    );
}

// ---- rounds and convergence ---------------------------------------------------------

/// RC-06: once every hypothesis SURVIVED or was ELIMINATED the loop stops,
/// here after the ruling of round 2; A28: the one survivor is the root cause.
#[test]
fn rc_06_the_loop_stops_when_every_hypothesis_is_settled() {
    let harness = settled_in_round_two();
    assert_eq!(harness.verdict(), Verdict::Proven);
    assert!(!harness.was_started("critic/challenge/r3"));
    assert_eq!(status(&harness, "H1"), Status::Survived);
    assert_eq!(status(&harness, "H2"), Status::Eliminated);
    assert_eq!(
        harness.protocol.stopped(),
        Some("every hypothesis SURVIVED or was ELIMINATED by round 2 of 5")
    );
    assert_eq!(harness.protocol.progress().round, 2);
}

/// RC-06, RC-07: a hypothesis that stays unresolved keeps the loop going;
/// it stops unconditionally after round 5, with a closing ruling of the
/// last answers, and WEAKENED is an end state only.
#[test]
fn rc_06_rc_07_the_loop_stops_after_round_five() {
    let mut harness = of(&["alpha"]);
    harness.answer("debugger.alpha/findings/r1", &findings(&["A."]));
    harness.answer("critic/challenge/r1", &critic(&[], &[("H1", true)], None));
    harness.accept_all();
    for round in 1..=5 {
        harness.answer(
            &format!("debugger.alpha/answers/r{round}"),
            &answers(&[("X1.1", Some("Another sample."))]),
        );
        if round < 5 {
            harness.answer(
                &format!("critic/challenge/r{}", round + 1),
                &critic(&[("X1.1", "unresolved")], &[], None),
            );
            assert!(
                harness.finished.is_none(),
                "RC-07: round {round} is not the end"
            );
            harness.accept_all();
        }
    }
    harness.answer(
        "critic/ruling/r5",
        &critic(&[("X1.1", "unresolved")], &[], None),
    );
    harness.accept_all();
    assert_eq!(harness.verdict(), Verdict::Unproven);
    assert_eq!(status(&harness, "H1"), Status::Weakened);
    assert!(!harness.was_started("critic/challenge/r6"));
    assert_eq!(
        harness.protocol.stopped(),
        Some("round 5 ended with H1 still unsettled")
    );
    assert_eq!(
        rule(&harness, "H1"),
        "H1: critical challenge X1.1 still unresolved after the ruling of round 5 → WEAKENED"
    );
    let ids: Vec<String> = harness
        .protocol
        .items()
        .iter()
        .map(|r| r.item.id.clone())
        .collect();
    assert!(ids.contains(&"X1.1-r5".to_string()) && ids.contains(&"X1.1-final".to_string()));
}

/// RC-13, RC-15, A28: two survivors prove no root cause.
#[test]
fn rc_15_a28_two_survivors_prove_nothing() {
    let mut harness = two_hypotheses();
    harness.answer(
        "debugger.alpha/answers/r1",
        &answers(&[("X1.1", Some("Shown."))]),
    );
    harness.answer(
        "debugger.beta/answers/r1",
        &answers(&[("X2.1", Some("Shown too."))]),
    );
    harness.answer(
        "critic/challenge/r2",
        &critic(&[("X1.1", "resolved"), ("X2.1", "resolved")], &[], None),
    );
    harness.accept_all();
    assert_eq!(harness.verdict(), Verdict::Unproven);
    assert_eq!(status(&harness, "H1"), Status::Survived);
    assert_eq!(status(&harness, "H2"), Status::Survived);
    let summary = harness.document("summary.md");
    assert!(
        summary.starts_with("# Root-cause analysis — ")
            && summary.contains("**No root cause is proven.** H1 and H2 all survived"),
        "{summary}"
    );
}

/// RC-13, A28: a critical challenge conceded eliminates at once; one left
/// out of an answer and never answered eliminates at the end.
#[test]
fn rc_13_a28_unanswered_critical_challenges_eliminate() {
    let mut harness = two_hypotheses();
    harness.answer("debugger.alpha/answers/r1", &answers(&[("X1.1", None)]));
    harness.answer("debugger.beta/answers/r1", &answers(&[]));
    assert_eq!(
        harness.protocol.status_of("H1").map(|d| d.status),
        Some(Status::Eliminated),
        "conceded: final at once"
    );
    // Beta left X2.1 out: still open, and the loop runs to the end.
    assert_eq!(harness.protocol.challenges()[1].state, ChallengeState::Open);
    for round in 2..=5 {
        harness.answer(
            &format!("critic/challenge/r{round}"),
            &critic(&[], &[], None),
        );
        harness.answer(&format!("debugger.beta/answers/r{round}"), &answers(&[]));
    }
    assert_eq!(status(&harness, "H1"), Status::Eliminated);
    assert_eq!(
        rule(&harness, "H2"),
        "H2: critical challenge X2.1 never answered (left out in round 1, 2, 3, 4, 5) → ELIMINATED"
    );
    assert_eq!(harness.verdict(), Verdict::Unproven);
}

/// A debugger whose call fails keeps its hypotheses active, and the report
/// says why they are not settled: a failed call is not a concession.
/// A28 (revised 2026-12-06, issue 60): such a rival, never examined, keeps
/// the one survivor from being proven: before the conclusion the moderator
/// is asked to keep it standing or rule it out. Kept (the headless
/// default), the analysis is unproven and says which rival and why; ruled
/// out, with a reason, the survivor is proven and the rule carries it.
#[test]
fn a28_revised_a_rival_never_examined_leaves_the_cause_unproven_unless_ruled_out() {
    let run = |rule_out: bool| {
        let mut harness = two_hypotheses();
        harness.answer(
            "debugger.alpha/answers/r1",
            &answers(&[("X1.1", Some("Shown."))]),
        );
        harness.time_out("debugger.beta/answers/r1");
        assert!(
            harness
                .log_text()
                .contains("beta gave no usable answer in round 1")
        );
        harness.answer(
            "critic/challenge/r2",
            &critic(&[("X1.1", "resolved")], &[], None),
        );
        harness.accept_all();
        assert!(harness.finished.is_none(), "H2 is still active");
        // Round 2: beta is asked again, and fails again; every round after too.
        for round in 2..=5 {
            harness.time_out(&format!("debugger.beta/answers/r{round}"));
            if round < 5 {
                harness.answer(
                    &format!("critic/challenge/r{}", round + 1),
                    &critic(&[], &[], None),
                );
            }
        }
        assert_eq!(status(&harness, "H2"), Status::Weakened);
        assert_eq!(
            rule(&harness, "H2"),
            "H2: critical challenge X2.1 unanswered: its owner gave no answer in round 5 → WEAKENED"
        );
        assert!(harness.finished.is_none(), "the moderator is asked first");
        let items = harness.moderation.clone().expect("a closing moderation");
        assert_eq!(
            items.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(),
            ["H2-rival"]
        );
        if rule_out {
            harness.moderate(&[(
                "H2-rival",
                ItemDecision::Reject,
                Some("The pool graphs were flat all afternoon; checked by hand."),
            )]);
        } else {
            harness.accept_all();
        }
        harness
    };
    let kept = run(false);
    assert_eq!(kept.verdict(), Verdict::Unproven, "a rival still stands");
    let Some(Outcome::Decided { rule, .. }) = &kept.finished else {
        panic!("no verdict");
    };
    assert_eq!(
        rule,
        "H1 is the only hypothesis that SURVIVED, but H2 was left WEAKENED and not ruled out (critical challenge X2.1 unanswered: its owner gave no answer in round 5): a rival neither eliminated nor ruled out leaves the cause unproven → no root cause proven"
    );
    let summary = kept.document("summary.md");
    assert!(summary.contains("**No root cause is proven.** H1 alone survived cross-examination, but H2 was left WEAKENED (neither shown nor eliminated) and not ruled out"), "{summary}");
    assert!(summary.contains("its owner gave no answer"), "{summary}");

    let ruled = run(true);
    assert_eq!(
        ruled.verdict(),
        Verdict::Proven,
        "H1 alone survived, H2 ruled out"
    );
    let Some(Outcome::Decided { rule, .. }) = &ruled.finished else {
        panic!("no verdict");
    };
    assert!(
        rule.contains("H2 WEAKENED, ruled out by the moderator: The pool graphs were flat all afternoon; checked by hand."),
        "{rule}"
    );
    let summary = ruled.document("summary.md");
    assert!(
        summary.contains(
            "The moderator ruled out H2 (The pool graphs were flat all afternoon; checked by hand)"
        ),
        "{summary}"
    );
    let record = ruled.document("rca.yaml");
    assert!(record.contains("ruled_out:"), "{record}");
}

/// A debugger that gives no findings at all is left out; the others go on.
#[test]
fn a_debugger_without_findings_is_left_out() {
    let mut harness = of(&["alpha", "beta"]);
    harness.time_out("debugger.beta/findings/r1");
    harness.answer("debugger.alpha/findings/r1", &findings(&["A."]));
    assert_eq!(harness.protocol.hypotheses().len(), 1);
    assert!(harness.is_live("critic/challenge/r1"));
    assert!(harness.log_text().contains("beta presents no hypotheses"));
}

/// A29, RC-10: hedge words in a claim are flagged for the critic and on the
/// board; "could not reproduce" is not one.
#[test]
fn rc_10_a29_hedges_are_shown_to_the_critic_and_the_moderator() {
    let mut harness = of(&["alpha", "beta"]);
    harness.answer(
        "debugger.alpha/findings/r1",
        &findings(&["The pool was probably exhausted."]),
    );
    harness.answer(
        "debugger.beta/findings/r1",
        &findings(&["We could not reproduce it without the deploy."]),
    );
    let prompt = harness.call("critic/challenge/r1").request.prompt;
    assert!(
        prompt.contains("Hedge words quorum flagged in it: probably."),
        "{prompt}"
    );
    assert_eq!(prompt.matches("Hedge words quorum flagged").count(), 1);
    let BoardView::Rulings(rows) = harness.protocol.board().view else {
        panic!("a board");
    };
    let hedges: Vec<_> = rows[0].facts.iter().filter(|fact| fact.warn).collect();
    assert_eq!(hedges.len(), 1);
    assert_eq!(hedges[0].value, "probably");
    assert!(rows[1].facts.iter().all(|fact| !fact.warn));
    assert!(
        harness
            .log_text()
            .contains("hedge words flagged: H1 (probably)")
    );
}

/// RC-16: a recommendation that hedges is sent back once, then refused.
#[test]
fn rc_16_a_hedged_recommendation_is_refused() {
    let mut harness = two_hypotheses();
    harness.answer(
        "debugger.alpha/answers/r1",
        &answers(&[("X1.1", Some("Shown."))]),
    );
    harness.answer(
        "debugger.beta/answers/r1",
        &answers(&[("X2.1", Some("Shown."))]),
    );
    let hedged = critic(
        &[("X1.1", "resolved"), ("X2.1", "contradicted")],
        &[],
        Some("H1 is likely the cause."),
    );
    harness.answer("critic/challenge/r2", &hedged);
    let repair = harness.call("critic/challenge/r2/a2");
    assert!(repair.request.prompt.contains("uses hedge words (likely)"));
    harness.answer("critic/challenge/r2/a2", &hedged);
    harness.accept_all();
    assert_eq!(harness.verdict(), Verdict::Proven);
    assert!(harness.protocol.assessment().is_none());
    let summary = harness.document("summary.md");
    assert!(
        summary.contains(
            "None: the critic's recommendation used hedge words (likely) and was refused."
        ),
        "{summary}"
    );
}

// ---- moderation -----------------------------------------------------------------

/// The moderator drops a challenge (never delivered), holds one back
/// (offered again at the next moderation) and overturns a ruling, each
/// with a note, journaled through the items.
#[test]
fn the_moderator_decides_challenges_and_overrides_rulings() {
    let mut harness = of(&["alpha"]);
    harness.answer("debugger.alpha/findings/r1", &findings(&["A."]));
    harness.answer(
        "critic/challenge/r1",
        &critic(&[], &[("H1", true), ("H1", false), ("H1", false)], None),
    );
    harness.moderate(&[
        ("X1.2", ItemDecision::Reject, Some("irrelevant here")),
        ("X1.3", ItemDecision::Defer, None),
    ]);
    let prompt = harness.call("debugger.alpha/answers/r1").request.prompt;
    assert!(prompt.contains("X1.1") && !prompt.contains("X1.2") && !prompt.contains("X1.3"));
    harness.answer(
        "debugger.alpha/answers/r1",
        &answers(&[("X1.1", Some("Shown."))]),
    );
    // The critic resolves X1.1; the moderator overturns that.
    harness.answer(
        "critic/challenge/r2",
        &critic(&[("X1.1", "resolved")], &[], None),
    );
    let offered: Vec<String> = harness
        .moderation
        .as_ref()
        .unwrap()
        .iter()
        .map(|item| item.id.clone())
        .collect();
    assert_eq!(
        offered,
        ["X1.3", "X1.1-r2"],
        "the held challenge is offered again"
    );
    harness.moderate(&[(
        "X1.1-r2",
        ItemDecision::Reject,
        Some("the trace is from staging"),
    )]);
    let challenge = |id: &str| {
        harness
            .protocol
            .challenges()
            .iter()
            .find(|c| c.id == id)
            .unwrap()
            .clone()
    };
    assert_eq!(
        challenge("X1.1").state,
        ChallengeState::Open,
        "overturned: unresolved"
    );
    assert_eq!(challenge("X1.2").state, ChallengeState::Withdrawn);
    assert_eq!(challenge("X1.3").state, ChallengeState::Open);
    let prompt = harness.call("debugger.alpha/answers/r2").request.prompt;
    assert!(prompt.contains("X1.1") && prompt.contains("X1.3"));
    let yaml = harness.document("rca.yaml");
    assert!(yaml.contains("the trace is from staging") && yaml.contains("irrelevant here"));
    assert!(
        harness
            .log_text()
            .contains("X1.1-r2 ruling overturned: the trace is from staging")
    );
}

/// A ruling sent back (deferred) is ruled again by the critic next round.
#[test]
fn a_ruling_sent_back_is_ruled_again() {
    let mut harness = of(&["alpha"]);
    harness.answer("debugger.alpha/findings/r1", &findings(&["A."]));
    harness.answer("critic/challenge/r1", &critic(&[], &[("H1", true)], None));
    harness.accept_all();
    harness.answer(
        "debugger.alpha/answers/r1",
        &answers(&[("X1.1", Some("Shown."))]),
    );
    harness.answer(
        "critic/challenge/r2",
        &critic(&[("X1.1", "contradicted")], &[], None),
    );
    harness.moderate(&[("X1.1-r2", ItemDecision::Defer, None)]);
    assert!(
        !harness.was_started("debugger.alpha/answers/r2"),
        "nothing to answer"
    );
    let prompt = harness.call("critic/challenge/r3").request.prompt;
    assert!(
        prompt.contains("Answers waiting for your ruling"),
        "{prompt}"
    );
    assert_eq!(harness.protocol.status_of("H1"), None, "not eliminated");
}

// ---- the record -------------------------------------------------------------------

/// RC-14, RC-17, RC-18, A30: the final assessment names every hypothesis
/// with its status and the challenges raised and whether each was
/// resolved, the root cause and the open questions; the files are the
/// run's raw answers per round, rca.yaml, transcript.md and summary.md,
/// and what its citations were found to be (evidence.yaml, issue 52).
#[test]
fn rc_14_rc_17_rc_18_a30_the_final_assessment_and_its_files() {
    let harness = settled_in_round_two();
    let paths: Vec<String> = harness
        .protocol
        .documents()
        .into_iter()
        .map(|d| d.path)
        .collect();
    assert_eq!(
        paths,
        ["rca.yaml", "transcript.md", "summary.md", "evidence.yaml"]
    );
    // Every answer goes to its round file, the engine's to write once as
    // it comes.
    let round_files: Vec<&str> = harness
        .started
        .iter()
        .filter_map(|spec| spec.raw_output_path.as_deref())
        .collect();
    for path in [
        "rounds/round-1/debugger-alpha-findings.md",
        "rounds/round-1/debugger-beta-findings.md",
        "rounds/round-1/critic-challenge.md",
        "rounds/round-1/debugger-alpha-answers.md",
        "rounds/round-2/critic-challenge.md",
    ] {
        assert!(round_files.contains(&path), "{path} in {round_files:?}");
    }
    let summary = harness.document("summary.md");
    let lead = harness.protocol.summary_lead().unwrap();
    assert!(summary.contains(&lead));
    assert!(
        lead.starts_with("**Root cause: The v2.31.0 deploy added a blocking call.**"),
        "{lead}"
    );
    for expected in [
        "| H1 | SURVIVED |",
        "| H2 | ELIMINATED |",
        "Rule: H1: its one challenge resolved → SURVIVED.",
        "**X1.1** (timeline, critical)",
        "*resolved in round 2*",
        "## Open questions",
        "Why no timeout?",
        "## The critic's recommendation\n\nRoll back v2.31.0.",
    ] {
        assert!(summary.contains(expected), "{expected}\n{summary}");
    }
    let yaml: yaml_serde::Value = yaml_serde::from_str(&harness.document("rca.yaml")).unwrap();
    assert_eq!(yaml["root_cause"]["hypothesis"].as_str(), Some("H1"));
    assert_eq!(yaml["hypotheses"][1]["status"].as_str(), Some("ELIMINATED"));
    assert_eq!(yaml["challenges"][0]["state"].as_str(), Some("resolved"));
    assert!(
        harness
            .log_text()
            .contains("critic: final assessment delivered; task completed")
    );
    // Every answer is in the transcript, raw.
    let transcript = harness.document("transcript.md");
    assert!(transcript.contains("First slow trace 14:02:31."));
}

/// RC-17 (issue 60): the critic's task is marked completed only once it
/// sent its final assessment; an analysis that ends without one (the
/// critic's last answer gave no recommendation) says so instead, so the
/// log line is no longer written whatever happens.
#[test]
fn rc_17_the_task_is_completed_only_after_a_final_assessment() {
    let mut harness = two_hypotheses();
    harness.answer(
        "debugger.alpha/answers/r1",
        &answers(&[("X1.1", Some("First slow trace 14:02:31."))]),
    );
    harness.answer(
        "debugger.beta/answers/r1",
        &answers(&[("X2.1", Some("Pool wait rose at 14:04."))]),
    );
    harness.answer(
        "critic/challenge/r2",
        &critic(&[("X1.1", "resolved"), ("X2.1", "contradicted")], &[], None),
    );
    harness.accept_all();
    assert!(harness.finished.is_some());
    let log = harness.log_text();
    assert!(!log.contains("task completed"), "{log}");
    assert!(
        log.contains("critic: no final assessment was read; the task ends without one"),
        "{log}"
    );
    // With one, as in every other test of the ending.
    let log = settled_in_round_two().log_text();
    assert!(log.contains("critic: final assessment delivered; task completed"));
}

/// A28 (revised, issue 60): SURVIVED needs every challenge that reached the
/// hypothesis resolved, at least one; evidence in an answer is optional,
/// so the summary says "answered with evidence" only of answers that cited
/// some, and says plainly when the critic resolved one on an answer that
/// cited none.
#[test]
fn a28_the_summary_says_with_evidence_only_when_the_answers_gave_some() {
    let mut harness = two_hypotheses();
    harness.answer(
        "debugger.alpha/answers/r1",
        "```yaml\nanswers:\n  - challenge: X1.1\n    answer: \"The first slow trace is at 14:02:31.\"\n```\n",
    );
    harness.answer(
        "debugger.beta/answers/r1",
        &answers(&[("X2.1", Some("Pool wait rose at 14:04."))]),
    );
    harness.answer(
        "critic/challenge/r2",
        &critic(
            &[("X1.1", "resolved"), ("X2.1", "contradicted")],
            &[],
            Some("Roll back v2.31.0."),
        ),
    );
    harness.accept_all();
    let lead = harness.protocol.summary_lead().unwrap();
    assert!(
        lead.contains("1 challenge put to it, resolved on an answer that cited no evidence."),
        "{lead}"
    );
    assert!(!lead.contains("with evidence"), "{lead}");
    let lead = settled_in_round_two().protocol.summary_lead().unwrap();
    assert!(
        lead.contains("1 challenge put to it, every one answered with evidence and resolved."),
        "{lead}"
    );
}

/// RC-16, issue 60: a restated claim is examined before it is printed as
/// the root cause. The critic rules it; before the conclusion the moderator
/// upholds or overturns that ruling (and is asked about every rival left
/// standing, here none). Upheld "supported", the restated claim is the
/// root cause; overturned, the original hedged claim stands, unproven.
#[test]
fn rc_16_the_restatement_is_examined_by_the_critic_and_the_moderator() {
    let run = |decision: ItemDecision| {
        let mut harness = of(&["alpha"]);
        harness.answer(
            "debugger.alpha/findings/r1",
            &findings(&["The v2.31.0 deploy probably added a blocking call."]),
        );
        harness.answer("critic/challenge/r1", &critic(&[], &[("H1", true)], None));
        harness.accept_all();
        harness.answer(
            "debugger.alpha/answers/r1",
            &answers(&[("X1.1", Some("First slow trace 14:02:31."))]),
        );
        harness.answer(
            "critic/challenge/r2",
            &critic(&[("X1.1", "resolved")], &[], Some("Roll back v2.31.0.")),
        );
        harness.accept_all();
        harness.answer(
            "debugger.alpha/restate/",
            "```yaml\nclaim: \"The v2.31.0 deploy added a blocking call.\"\n```\n",
        );
        let prompt = harness.prompt_of("critic/examine/");
        assert!(
            prompt.contains("The v2.31.0 deploy added a blocking call.")
                && prompt.contains("First slow trace 14:02:31."),
            "{prompt}"
        );
        harness.answer(
            "critic/examine/",
            "```yaml\nruling: supported\nreason: \"The trace follows the deploy.\"\n```\n",
        );
        assert!(harness.finished.is_none(), "the moderator is asked first");
        let items = harness.moderation.clone().expect("a closing moderation");
        assert_eq!(
            items.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(),
            ["H1-restated"]
        );
        harness.moderate(&[("H1-restated", decision, Some("The trace is from staging."))]);
        harness
    };
    let upheld = run(ItemDecision::Accept);
    assert_eq!(upheld.verdict(), Verdict::Proven);
    assert_eq!(
        upheld.protocol.claim_of("H1"),
        Some("The v2.31.0 deploy added a blocking call.")
    );
    let overturned = run(ItemDecision::Reject);
    assert_eq!(overturned.verdict(), Verdict::Unproven);
    assert_eq!(
        overturned.protocol.claim_of("H1"),
        Some("The v2.31.0 deploy probably added a blocking call."),
        "the original claim stays"
    );
    let lead = overturned.protocol.summary_lead().unwrap();
    assert!(
        lead.contains(
            "the moderator overturned the critic's ruling that its owner's restatement is supported"
        ),
        "{lead}"
    );
    let record = overturned.document("rca.yaml");
    assert!(record.contains("examination:"), "{record}");
}

/// Hypotheses a team brings are on the board from the start; a debugger
/// that owns one is not asked for findings.
#[test]
fn seeded_hypotheses_skip_their_owners_findings() {
    let mut config = config(&["alpha", "beta"]);
    config.seeded = vec![SeededHypothesis {
        owner: "alpha".into(),
        finding: Finding {
            claim: "The deploy.".into(),
            evidence: vec!["deploy log".into()],
            reasoning: String::new(),
        },
    }];
    let mut harness = harness(config);
    assert!(!harness.was_started("debugger.alpha/findings"));
    let prompt = harness.call("debugger.beta/findings/r1").request.prompt;
    assert!(prompt.contains("H1 (alpha): The deploy."), "{prompt}");
    harness.answer("debugger.beta/findings/r1", &findings(&["The pool."]));
    let ids: Vec<(String, String)> = harness
        .protocol
        .hypotheses()
        .iter()
        .map(|h| (h.id.clone(), h.source.clone()))
        .collect();
    assert_eq!(
        ids,
        [
            ("H1".to_string(), "hypotheses file".to_string()),
            ("H2".to_string(), "round 1 findings".to_string())
        ]
    );
}

/// A18: the critic is required; a critic that gives no answer ends the
/// analysis with a failure, never a fabricated verdict.
#[test]
fn a_critic_that_fails_ends_the_analysis() {
    let mut harness = of(&["alpha"]);
    harness.answer("debugger.alpha/findings/r1", &findings(&["A."]));
    harness.time_out("critic/challenge/r1");
    assert!(matches!(harness.finished, Some(Outcome::Failed { .. })));
    assert!(
        harness
            .protocol
            .summary_lead()
            .unwrap()
            .starts_with("**No result.**")
    );
}

/// No hypothesis at all: nothing to prove.
#[test]
fn no_hypothesis_means_no_root_cause() {
    let mut harness = of(&["alpha"]);
    harness.answer("debugger.alpha/findings/r1", &findings(&[]));
    assert_eq!(harness.verdict(), Verdict::Unproven);
    assert!(!harness.was_started("critic/"));
    assert!(
        harness
            .protocol
            .summary_lead()
            .unwrap()
            .starts_with("**No root cause is proven.** No debugger presented a hypothesis.")
    );
}

/// A person playing a role gets a skeleton to fill and has it checked.
#[test]
fn a_person_playing_a_debugger_gets_a_template_and_a_check() {
    let harness = two_hypotheses();
    let call = harness.call("debugger.alpha/answers/r1").request.call_id;
    let template = harness.protocol.answer_template(&call).unwrap();
    assert!(template.contains("challenge: X1.1"), "{template}");
    let error = harness
        .protocol
        .check_answer(&call, &answers(&[("X2.1", Some("not mine"))]))
        .unwrap_err();
    assert!(
        error.contains("no challenge \"X2.1\" was put to you"),
        "{error}"
    );
}

// ---- verified evidence (issue 52) --------------------------------------------

/// One debugger's hypothesis whose evidence quotes `quote` from the
/// context's `incident.md`, challenged once and answered.
fn one_hypothesis_citing(quote: &str) -> Harness {
    let mut harness = of(&["alpha"]);
    let answer = format!(
        "```yaml\nhypotheses:\n  - claim: \"The v2.31.0 deploy added a blocking call.\"\n    evidence:\n      - '\"{quote}\" — incident.md'\n    reasoning: \"The call blocks the request.\"\n```\n"
    );
    harness.answer("debugger.alpha/findings/r1", &answer);
    harness.answer("critic/challenge/r1", &critic(&[], &[("H1", true)], None));
    harness.accept_all();
    harness.answer(
        "debugger.alpha/answers/r1",
        &answers(&[("X1.1", Some("First slow trace 14:02:31."))]),
    );
    harness
}

/// Answers every call still live the way a critic with nothing more to
/// ask would, accepting every moderation, until the analysis ends.
fn run_out(harness: &mut Harness) {
    for _ in 0..20 {
        if harness.finished.is_some() {
            return;
        }
        if harness.moderation.is_some() {
            harness.accept_all();
            continue;
        }
        let Some(live) = harness
            .live
            .first()
            .map(|spec| spec.request.call_id.clone())
        else {
            return;
        };
        let reply = if live.starts_with("critic/") {
            critic(&[], &[], Some("Roll back v2.31.0."))
        } else {
            answers(&[])
        };
        harness.answer(&live, &reply);
    }
}

/// EV-04, EV-07: a hypothesis whose evidence quotes a line that is not in
/// its source cannot SURVIVE: its one challenge resolved, it stays active
/// (the critic is told what did not verify) and ends WEAKENED, the rule
/// naming the citation; the analysis proves no root cause, and the
/// summary's Evidence section marks the quote ✗.
#[test]
fn ev_07_a_hypothesis_misquoting_its_source_ends_weakened() {
    let mut harness = one_hypothesis_citing("deploy log says v2.31.0 finished 14:09:59");
    let prompt = harness.call("critic/challenge/r2").request.prompt;
    assert!(
        prompt.contains("these did not verify")
            && prompt.contains("not found in incident.md nor in any other source"),
        "EV-04: the critic is shown the check: {prompt}"
    );
    assert!(!prompt.contains("SECRET-CONTEXT"), "RC-01 still holds");
    harness.answer(
        "critic/challenge/r2",
        &critic(&[("X1.1", "resolved")], &[], Some("Roll back v2.31.0.")),
    );
    assert_eq!(harness.protocol.status_of("H1"), None, "not settled");
    run_out(&mut harness);
    assert!(harness.finished.is_some());
    assert_eq!(status(&harness, "H1"), Status::Weakened);
    assert_eq!(
        rule(&harness, "H1"),
        "H1: its one challenge resolved, but it cites \"deploy log says v2.31.0 finished 14:09:59\" — incident.md, not found in incident.md nor in any other source: a cause stands only on evidence that verified → WEAKENED"
    );
    assert_eq!(harness.verdict(), Verdict::Unproven);
    let summary = harness.document("summary.md");
    assert!(
        summary.contains("## Evidence")
            && summary.contains(
                "- ✗ \"deploy log says v2.31.0 finished 14:09:59\" — incident.md (not found"
            ),
        "{summary}"
    );
    let evidence = harness.document("evidence.yaml");
    assert!(evidence.contains("status: not_found"), "{evidence}");
}

/// EV-03, EV-07: the same analysis quoting its source exactly proves the
/// root cause, and the Evidence section marks the quote ✓ with its line.
#[test]
fn ev_07_a_hypothesis_quoting_its_source_exactly_survives() {
    let mut harness = one_hypothesis_citing("deploy log says v2.31.0 finished 14:02:10");
    let prompt = harness.call("critic/challenge/r2").request.prompt;
    assert!(!prompt.contains("did not verify"), "{prompt}");
    harness.answer(
        "critic/challenge/r2",
        &critic(&[("X1.1", "resolved")], &[], Some("Roll back v2.31.0.")),
    );
    run_out(&mut harness);
    assert_eq!(status(&harness, "H1"), Status::Survived);
    assert_eq!(harness.verdict(), Verdict::Proven);
    let summary = harness.document("summary.md");
    assert!(
        summary.contains(
            "- ✓ \"deploy log says v2.31.0 finished 14:02:10\" — incident.md (verified at incident.md:L1)"
        ),
        "{summary}"
    );
}

/// EV-02: the debuggers' prompts teach the one shape of a citation and
/// name the sources.
#[test]
fn ev_02_the_debuggers_prompts_name_the_sources_and_the_citation_shape() {
    let harness = of(&["alpha"]);
    let prompt = harness.call("debugger.alpha/findings/r1").request.prompt;
    assert!(prompt.contains("## Citing evidence"), "{prompt}");
    assert!(
        prompt.contains("- `incident.md` (context, 1 lines)"),
        "{prompt}"
    );
    assert!(
        prompt.contains("a span: the source and its lines"),
        "{prompt}"
    );
}
