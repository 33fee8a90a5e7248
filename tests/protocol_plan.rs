//! The planning debate's rules (RULES.md section 11a, PC-01..PC-33,
//! A25-A27), checked against the pure state machine. Each test names the
//! rules it checks.

use crate::support;

use std::sync::Arc;

use quorum::prompts::PromptSet;
use quorum::protocol::Questions;
use quorum::protocol::plan::model::{Source, Verification};
use quorum::protocol::plan::{Plan, PlanConfig};
use quorum::protocol::{BoardView, ContextDoc, Input, ItemDecision, Outcome, Protocol, RoleGroup};
use support::plan::{challenges, draft, proposals, reopening, responses, synthesis};

const GOAL: &str = "Let tenants export their data as CSV";
const CONTEXT_TEXT: &str = "The API pods have 1 GiB of memory.";

type Harness = support::harness::Harness<Plan>;

fn config(simple: bool) -> PlanConfig {
    let agents = ["planner", "critic", "optimizer", "synthesizer"]
        .iter()
        .map(|slot| (slot.to_string(), "script:scripted".to_string()))
        .collect();
    PlanConfig {
        topic: GOAL.into(),
        context: vec![ContextDoc {
            name: "notes.md".into(),
            text: CONTEXT_TEXT.into(),
        }],
        simple,
        seating: support::harness::seated(agents),
        checks_rulings: true,
        docs: None,
    }
}

fn start(simple: bool) -> Harness {
    Harness::start(Plan::new(config(simple), Arc::new(PromptSet::builtin())))
}

/// The plan's copy under `docs/plans/`, named by the goal and the start.
const PLAN_FILE: &str = "docs/plans/2026-12-01-let-tenants-export-their-data-as-csv.md";
/// Its decision record.
const ADR_FILE: &str = "docs/adr/0001-let-tenants-export-their-data-as-csv.md";

/// The draft (U1, U2), the critic's C1 (HIGH) and C2 (CRITICAL) with U1
/// verified by a link, the optimizer's I1 and a third option I2 for C2,
/// the planner's responses (C2 rejected, I2 accepted, I1 deferred).
fn round_one() -> Harness {
    let mut harness = start(false);
    harness.answer(
        "planner/draft/r1",
        &draft(
            "Export",
            &["COPY streams 5 GB in 1 GiB.", "Presigned URLs live 24 h."],
        ),
    );
    harness.answer(
        "critic/critique/r1",
        &challenges(
            &[
                ("Operations", "No timeout plan", "HIGH"),
                ("Security", "Tenant leak", "CRITICAL"),
            ],
            &[U1_VERIFIED],
        ),
    );
    harness.answer(
        "optimizer/optimize/r1",
        &proposals(
            &[
                ("Delivery", "One transaction", "HIGH", None),
                ("Operations", "Queue large exports", "MEDIUM", Some("C2")),
            ],
            &["U2: [UNVERIFIED] no access to the bucket"],
        ),
    );
    harness.answer(
        "planner/respond/r1",
        &responses(&[
            ("C1", "accept"),
            ("C2", "reject"),
            ("I1", "defer"),
            ("I2", "accept"),
        ]),
    );
    harness
}

/// The critic's check of U1 in [`round_one`], with its evidence: a link.
const U1_VERIFIED: &str = "U1: [VERIFIED] the COPY docs say rows stream: https://www.postgresql.org/docs/15/sql-copy.html";

/// Round one through a moderation that takes the planner's responses, the
/// revision, and a critic's review that raises nothing: one round.
fn one_round_to_the_end() -> Harness {
    let mut harness = round_one();
    take_planner(&mut harness);
    harness.answer(
        "planner/revise/r1",
        &draft("Export, revised", &["Presigned URLs live 24 h."]),
    );
    harness.answer("critic/review/r2", &challenges(&[], &[]));
    harness.answer(
        "optimizer/final",
        "Final proposals: I1 deferred, I2 accepted.",
    );
    harness
}

/// Confirms every open item as the planner proposed.
fn take_planner(harness: &mut Harness) {
    let items = harness.moderation.clone().expect("a moderation");
    let decisions: Vec<(String, ItemDecision)> = items
        .iter()
        .map(|item| (item.id.clone(), item.suggestion.as_ref().unwrap().decision))
        .collect();
    let refs: Vec<(&str, ItemDecision, Option<&str>)> = decisions
        .iter()
        .map(|(id, decision)| (id.as_str(), *decision, None))
        .collect();
    harness.moderate(&refs);
}

fn log_of(rows: &[(&str, &str, &str)], counts: &[&str]) -> String {
    let mut text = String::from(
        "## Critique Log\n\n| # | Source | Challenge/Proposal | Category | Resolution | Detail |\n|---|---|---|---|---|---|\n",
    );
    for (id, source, resolution) in rows {
        text.push_str(&format!("| {id} | {source} | x | y | {resolution} | z |\n"));
    }
    text.push('\n');
    for line in counts {
        text.push_str(&format!("{line}\n"));
    }
    text
}

/// The log a correct synthesizer writes for [`one_round_to_the_end`].
fn correct_log() -> String {
    log_of(
        &[
            ("C1", "Critic", "Accepted"),
            ("C2", "Critic", "Rejected"),
            ("I1", "Optimizer", "Deferred"),
            ("I2", "Optimizer", "Accepted"),
            ("U2", "Planner", "Unverified"),
        ],
        &[
            "**Debate rounds**: 1",
            "**Critic challenges**: 2 (Accepted: 1 | Rejected: 1 | Deferred: 0)",
            "**Optimizer proposals**: 2 (Accepted: 1 | Rejected: 0 | Deferred: 1)",
            "**Deadlocks resolved by Optimizer**: 1",
            "**Unverified assumptions**: 1",
        ],
    )
}

// ---- roles, stances and order --------------------------------------------------

/// PC-01, PC-28: four roles, or the planner and the synthesizer in simple
/// mode, laid out by group.
#[test]
fn pc_01_pc_28_the_roles() {
    let roles: Vec<(String, RoleGroup)> = start(false)
        .protocol
        .describe()
        .roles
        .into_iter()
        .map(|role| (role.slot, role.group))
        .collect();
    assert_eq!(
        roles,
        [
            ("planner".to_string(), RoleGroup::Lead),
            ("critic".to_string(), RoleGroup::Challenger),
            ("optimizer".to_string(), RoleGroup::Panel),
            ("synthesizer".to_string(), RoleGroup::Synthesizer)
        ]
    );
    let simple: Vec<String> = start(true)
        .protocol
        .describe()
        .roles
        .into_iter()
        .map(|role| role.slot)
        .collect();
    assert_eq!(simple, ["planner", "synthesizer"]);
}

/// PC-02, PC-03, PC-04, PC-05, PC-22, PC-24, A25: each role's stance in
/// its prompt.
#[test]
fn pc_02_pc_03_pc_04_pc_05_pc_22_pc_24_each_prompt_states_its_stance() {
    let mut harness = round_one();
    let draft_prompt = harness.prompt_of("planner/draft/r1");
    assert!(
        draft_prompt.contains("[UNVERIFIED]") && draft_prompt.contains("Do not stop to verify")
    );
    assert!(draft_prompt.contains("Do not ask the user questions"));
    assert!(draft_prompt.contains("docs/plans/"));
    let critic = harness.prompt_of("critic/critique/r1");
    assert!(critic.contains("You look for problems only"));
    assert!(critic.contains("the one exception is the concrete fix for a problem you raise"));
    assert!(critic.contains("Do not ask the user questions") && critic.contains("docs/plans/"));
    let optimizer = harness.prompt_of("optimizer/optimize/r1");
    assert!(optimizer.contains("You look for improvements only"));
    assert!(optimizer.contains("third option"));
    take_planner(&mut harness);
    harness.answer("planner/revise/r1", &draft("Export", &[]));
    harness.answer("critic/review/r2", &challenges(&[], &[]));
    harness.answer("optimizer/final", "Final.");
    let synthesizer = harness.prompt_of("synthesizer/synthesis");
    assert!(synthesizer.contains("Be neutral: favour none of the participants"));
    assert!(synthesizer.contains("make the final call on the evidence"));
}

/// PC-07, PC-08, PC-10, PC-11, PC-12: the planner drafts first; the
/// critic gets the whole draft; the optimizer starts only after the
/// critic finished, with the draft and the challenges; the planner gets
/// the challenges, most severe first, then the proposals.
#[test]
fn pc_07_pc_08_pc_09_pc_10_pc_11_pc_12_the_order() {
    let mut harness = start(false);
    let first: Vec<&str> = harness
        .started
        .iter()
        .map(|s| s.request.call_id.as_str())
        .collect();
    assert_eq!(first, ["planner/draft/r1/a1"], "PC-07");
    let plan = draft("Export", &["COPY streams 5 GB in 1 GiB."]);
    harness.answer("planner/draft/r1", &plan);
    assert!(harness.is_live("critic/critique/r1"));
    assert!(
        !harness.was_started("optimizer/"),
        "PC-11: not before the critic"
    );
    assert!(
        harness
            .prompt_of("critic/critique/r1")
            .contains(plan.trim()),
        "PC-08"
    );
    harness.answer(
        "critic/critique/r1",
        &challenges(
            &[
                ("Data", "Quoting", "MEDIUM"),
                ("Security", "Tenant leak", "CRITICAL"),
            ],
            &[],
        ),
    );
    let optimizer = harness.prompt_of("optimizer/optimize/r1");
    assert!(optimizer.contains(plan.trim()), "PC-08");
    assert!(
        optimizer.contains("Tenant leak") && optimizer.contains("Quoting"),
        "PC-10"
    );
    harness.answer(
        "optimizer/optimize/r1",
        &proposals(&[("Delivery", "One transaction", "HIGH", None)], &[]),
    );
    let respond = harness.prompt_of("planner/respond/r1");
    let at = |text: &str| {
        respond
            .find(text)
            .unwrap_or_else(|| panic!("{text} in the prompt"))
    };
    assert!(
        at("C1 (CRITICAL)") < at("C2 (MEDIUM)"),
        "PC-09: most severe first"
    );
    assert!(
        at("C2 (MEDIUM)") < at("I1 (HIGH)"),
        "PC-12: challenges, then proposals"
    );
    let ids: Vec<&str> = harness
        .protocol
        .items()
        .iter()
        .map(|i| i.id.as_str())
        .collect();
    assert_eq!(ids, ["C1", "C2", "I1"]);
    assert_eq!(harness.protocol.items()[0].summary, "Tenant leak");
}

/// PC-14, A26: the planner proposes a response to each item, shown to the
/// moderator, who confirms or overrides it; the log records who decided.
#[test]
fn pc_14_pc_15_a26_the_moderator_confirms_or_overrides_the_planner() {
    let mut harness = round_one();
    let items = harness.moderation.clone().expect("a moderation");
    let proposed: Vec<(String, ItemDecision)> = items
        .iter()
        .map(|item| {
            let suggestion = item.suggestion.as_ref().expect("the planner's proposal");
            assert_eq!(suggestion.by, "planner");
            (item.id.clone(), suggestion.decision)
        })
        .collect();
    assert_eq!(proposed[1], ("C2".to_string(), ItemDecision::Reject));
    harness.moderate(&[
        ("C2", ItemDecision::Accept, Some("the 60 s timeout is real")),
        ("I1", ItemDecision::Defer, None),
        ("I2", ItemDecision::Accept, None),
    ]);
    let c2 = harness.protocol.decision("C2").unwrap();
    assert_eq!(c2.decision, ItemDecision::Accept);
    assert_eq!(c2.by, quorum::protocol::plan::model::DecidedBy::Moderator);
    assert_eq!(
        harness.protocol.decision("C1").unwrap().by,
        quorum::protocol::plan::model::DecidedBy::Planner
    );
    assert!(
        harness
            .log_text()
            .contains("C2 accepted (the planner proposed to reject): the 60 s timeout is real")
    );
    // PC-15: the planner revises to the final decisions, overrides included.
    let revise = harness.prompt_of("planner/revise/r1");
    assert!(
        revise.contains("**accepted** by the moderator, where you proposed to reject"),
        "{revise}"
    );
    assert!(revise.contains("the 60 s timeout is real"));
}

/// Issue 62: the board's reason follows the ruling. An item the moderator
/// decided against the planner's proposal says so, with the moderator's
/// note, never the planner's reason (which argues the opposite); the report
/// titles that column for what it holds.
#[test]
fn the_boards_reason_follows_the_ruling_not_the_planners_overruled_reason() {
    let mut harness = round_one();
    harness.moderate(&[
        ("C1", ItemDecision::Reject, None),
        ("C2", ItemDecision::Accept, Some("the 60 s timeout is real")),
        ("I1", ItemDecision::Defer, None),
        ("I2", ItemDecision::Accept, None),
    ]);
    let c2 = board_row(&harness, "C2");
    assert!(!c2.rule.contains("because of C2"), "{}", c2.rule);
    assert!(
        c2.rule.contains("the moderator") && c2.rule.contains("the 60 s timeout is real"),
        "{}",
        c2.rule
    );
    let c1 = board_row(&harness, "C1");
    assert!(!c1.rule.contains("because of C1"), "{}", c1.rule);
    assert!(
        c1.rule.contains("the planner proposed to accept"),
        "{}",
        c1.rule
    );
    assert_eq!(board_row(&harness, "I2").rule, "because of I2");
    let report = quorum::share::Report::of(&harness.protocol);
    let markdown = quorum::share::markdown::render(&report);
    assert!(!markdown.contains("by the rule"), "{markdown}");
    assert!(
        markdown.contains("| id | about | ruling | why |"),
        "{markdown}"
    );
    let html = quorum::share::html::render(&report);
    assert!(html.contains("<th>why</th>"), "the column's title");
}

/// Issue 62: the usage line's time is the time agent calls ran (their
/// union), never the idle time between them: an hour the moderator took
/// to decide adds nothing.
#[test]
fn usage_time_counts_the_calls_not_an_idle_hour() {
    let mut harness = round_one();
    let before = harness.protocol.usage_line().expect("calls finished");
    harness.now += chrono::Duration::hours(1);
    harness.moderate(&[]);
    let after = harness.protocol.usage_line().expect("calls finished");
    let time = |line: &str| line.rsplit(" · ").next().unwrap().to_string();
    assert_eq!(time(&after), time(&before), "{before} → {after}");
    assert!(!after.contains(" h"), "{after}");
}

/// PC-13, PC-15, PC-16, PC-17, A26: the critic reviews the responses;
/// what it disputes starts round 2, where the optimizer gets the disputed
/// items to break; after round 2 the debate stops.
#[test]
fn pc_13_pc_15_pc_16_pc_17_a26_two_rounds_then_stop() {
    let mut harness = round_one();
    take_planner(&mut harness);
    let revised = draft("Export, revised", &["Presigned URLs live 24 h."]);
    harness.answer("planner/revise/r1", &revised);
    let review = harness.prompt_of("critic/review/r2");
    assert!(
        review.contains(revised.trim()),
        "PC-15: the revised plan goes to the critic"
    );
    assert!(
        review.contains("C2 (Critic, HIGH) Operations: No timeout plan. The planner proposed to reject (because of C2); final decision: rejected."),
        "PC-16: {review}"
    );
    harness.answer("critic/review/r2", &reopening("Tenants still leak", "C2"));
    let optimizer = harness.prompt_of("optimizer/optimize/r2");
    assert!(
        optimizer.contains("C3 (HIGH) Operations: Tenants still leak")
            && optimizer.contains("Reopens: C2"),
        "PC-13: {optimizer}"
    );
    assert!(optimizer.contains(revised.trim()), "PC-15");
    harness.answer(
        "optimizer/optimize/r2",
        &proposals(&[("Security", "Scoped views", "HIGH", Some("C3"))], &[]),
    );
    harness.answer(
        "planner/respond/r2",
        &responses(&[("C3", "reject"), ("I3", "accept")]),
    );
    take_planner(&mut harness);
    harness.answer("planner/revise/r2", &draft("Export, final", &[]));
    // PC-17: no third round; the final words instead.
    assert!(!harness.was_started("critic/review/r3"));
    assert!(harness.is_live("critic/final/r2") && harness.is_live("optimizer/final/r2"));
    assert_eq!(harness.protocol.rounds_run(), 2);
    assert_eq!(harness.protocol.progress().round, 2);
}

/// PC-18, PC-19, PC-20: the synthesizer starts only once the critic's
/// final assessment and the optimizer's final proposals are in, and gets
/// both with the final plan.
#[test]
fn pc_18_pc_19_pc_20_the_synthesizer_waits_for_all_three() {
    let mut harness = round_one();
    take_planner(&mut harness);
    harness.answer("planner/revise/r1", &draft("Export, revised", &[]));
    harness.answer("critic/review/r2", &reopening("Still leaks", "C2"));
    harness.answer("optimizer/optimize/r2", &proposals(&[], &[]));
    harness.answer("planner/respond/r2", &responses(&[("C3", "accept")]));
    take_planner(&mut harness);
    harness.answer("planner/revise/r2", &draft("Export, final", &[]));
    harness.answer("critic/final/r2", "Resolved: C1, C3. Open: none.");
    assert!(
        !harness.was_started("synthesizer/"),
        "the optimizer is still writing"
    );
    harness.answer("optimizer/final/r2", "I1 deferred, I2 accepted.");
    let prompt = harness.prompt_of("synthesizer/synthesis");
    assert!(prompt.contains("Resolved: C1, C3. Open: none."), "PC-18");
    assert!(prompt.contains("I1 deferred, I2 accepted."), "PC-19");
    assert!(prompt.contains("# Export, final"), "PC-20: the final plan");
}

/// A critic review that disputes nothing is its final assessment: one
/// round, and the optimizer's final proposals only.
#[test]
fn a_review_without_disputes_ends_after_one_round() {
    let harness = one_round_to_the_end();
    assert_eq!(harness.protocol.rounds_run(), 1);
    assert!(!harness.was_started("critic/final"));
    assert!(harness.is_live("synthesizer/synthesis"));
    assert!(
        harness
            .protocol
            .assessment()
            .unwrap()
            .contains("No challenges.")
    );
}

// ---- unverified assumptions, files and the log -----------------------------------------

/// PC-24, PC-25, PC-26, PC-27: every marker is tracked; the critic's and
/// optimizer's checks are recorded; what stays unverified is a log row,
/// an investigation task and an open question.
#[test]
fn pc_24_pc_25_pc_26_pc_27_unverified_assumptions_are_tracked_to_the_end() {
    let mut harness = one_round_to_the_end();
    let statuses: Vec<(String, Verification)> = harness
        .protocol
        .assumptions()
        .iter()
        .map(|a| (a.id.clone(), a.status()))
        .collect();
    assert_eq!(
        statuses,
        [
            ("U1".to_string(), Verification::Verified),
            ("U2".to_string(), Verification::Unverified)
        ]
    );
    // The synthesizer forgets the investigation task: quorum adds it.
    harness.answer("synthesizer/synthesis", &synthesis(&correct_log()));
    let plan = harness.document("plan.md");
    assert!(
        plan.contains("- [ ] Investigate: Presigned URLs live 24 h. (U2)"),
        "{plan}"
    );
    assert_eq!(
        harness.protocol.open_questions(),
        ["U2 [UNVERIFIED] Presigned URLs live 24 h."]
    );
    assert!(
        harness
            .protocol
            .summary_lead()
            .unwrap()
            .ends_with("One assumption is still unverified: investigate it before implementing (see Progress Tracking).")
    );
    let BoardView::Rulings(rows) = harness.protocol.board().view else {
        panic!("a critique-log board");
    };
    let u1 = rows.iter().find(|row| row.subject == "U1").unwrap();
    assert_eq!(u1.word.as_deref(), Some("VERIFIED"));
    assert!(
        u1.rule
            .contains("critic (round 1): the COPY docs say rows stream")
    );
    // U2 was left unverified with a note: the note is its log row's detail.
    let u2 = quorum::protocol::plan::documents::log_rows(&harness.protocol)
        .into_iter()
        .find(|row| row.id == "U2")
        .unwrap();
    assert_eq!(u2.detail, "optimizer: no access to the bucket");
}

/// PC-21, PC-23, PC-31, PC-32, A27: only the synthesizer's answer becomes a
/// file, `plan.md`; a log that matches the decisions is kept as written.
#[test]
fn pc_21_pc_23_pc_31_pc_32_a27_the_plan_keeps_a_correct_log() {
    let mut harness = one_round_to_the_end();
    // Its steps cite the accepted items, so quorum can check it against the
    // decisions (issue 26) and keeps it as written.
    let written = synthesis(&correct_log())
        .replace(
            "- [ ] Export\n",
            "- [ ] Export\n- [ ] Investigate: Presigned URLs live 24 h. (U2)\n",
        )
        .replace(
            "1. Export.",
            "1. Export with the tenant check (C1), large ones queued (I2).",
        );
    harness.answer("synthesizer/synthesis", &written);
    assert!(
        matches!(harness.finished, Some(Outcome::Completed { ref deliverable, .. }) if deliverable == "plan.md")
    );
    let paths: Vec<String> = harness
        .protocol
        .documents()
        .into_iter()
        .map(|d| d.path)
        .collect();
    assert_eq!(
        paths,
        [
            "plan.md",
            PLAN_FILE,
            "docs/plans/README.md",
            ADR_FILE,
            "transcript.md",
            "debate.yaml",
            "evidence.yaml"
        ],
        "PC-21: the synthesizer's files, and the record"
    );
    // The plan as written, then what its debate's citations were found
    // to be (issue 52: the critic cites a file nobody gave).
    let plan = harness.document("plan.md");
    assert!(
        plan.starts_with(&(written.trim_end().to_string() + "\n\n## Evidence\n")),
        "{plan}"
    );
    assert!(
        plan.contains("- ✗ api/export.py:L12 (unknown source: no source of that name was given)"),
        "{plan}"
    );
    assert_eq!(harness.document(PLAN_FILE), harness.document("plan.md"));
    let transcript = harness.document("transcript.md");
    assert!(
        transcript.contains("Final proposals: I1 deferred, I2 accepted."),
        "every answer is kept raw"
    );
}

/// PC-32, PC-33, A27: the count lines under the table, which the
/// synthesizer got wrong, are recomputed from the decisions, corrected in
/// plan.md and noted; never trusted.
#[test]
fn pc_32_pc_33_a27_a_wrong_log_is_corrected_and_noted() {
    let mut harness = one_round_to_the_end();
    let wrong = correct_log()
        .replace(
            "| C2 | Critic | x | y | Rejected |",
            "| C2 | Critic | x | y | Accepted |",
        )
        .replace(
            "(Accepted: 1 | Rejected: 1 | Deferred: 0)",
            "(Accepted: 2 | Rejected: 0 | Deferred: 0)",
        )
        .replace(
            "**Deadlocks resolved by Optimizer**: 1",
            "**Deadlocks resolved by Optimizer**: 0",
        );
    harness.answer("synthesizer/synthesis", &synthesis(&wrong));
    let plan = harness.document("plan.md");
    for expected in [
        "| C2 | Critic | No timeout plan | Operations | Rejected |",
        "**Critic challenges**: 2 (Accepted: 1 | Rejected: 1 | Deferred: 0)",
        "**Deadlocks resolved by Optimizer**: 1",
        "*quorum recomputed this log from the recorded decisions: the Critique Log's resolutions differ from the recorded decisions; the log said `**Critic challenges**: 2 (Accepted: 2 | Rejected: 0 | Deferred: 0)`",
    ] {
        assert!(plan.contains(expected), "{expected}\n{plan}");
    }
    assert_eq!(plan.matches("## Critique Log").count(), 1);
    assert!(
        harness
            .log_text()
            .contains("the Critique Log's resolutions differ")
    );
    // A plan with no log at all gets quorum's.
    let mut harness = one_round_to_the_end();
    harness.answer("synthesizer/synthesis", &synthesis(""));
    let plan = harness.document("plan.md");
    assert!(plan.contains("## Critique Log") && plan.contains("no Critique Log; quorum added it"));
}

/// PC-28, A27: simple mode is the planner and the synthesizer; every
/// marker is listed for investigation.
#[test]
fn pc_28_simple_mode() {
    let mut harness = start(true);
    harness.answer(
        "planner/draft/r1",
        &draft("Export", &["COPY streams 5 GB in 1 GiB."]),
    );
    assert!(harness.is_live("synthesizer/synthesis"));
    assert!(!harness.was_started("critic/"));
    let prompt = harness.prompt_of("synthesizer/synthesis");
    assert!(
        !prompt.contains("The critic's final assessment"),
        "{prompt}"
    );
    harness.answer(
        "synthesizer/synthesis",
        "# Export\n\nShip it.\n\n## Steps\n1. Go.\n",
    );
    let plan = harness.document("plan.md");
    assert!(
        plan.contains(
            "## Progress Tracking\n\n- [ ] Investigate: COPY streams 5 GB in 1 GiB. (U1)"
        ),
        "{plan}"
    );
    assert!(plan.contains("**Unverified assumptions**: 1"));
    assert_eq!(harness.protocol.progress().max_round, 0);
}

/// A deferred item is settled after the debate; plan.md says so.
#[test]
fn a_deferred_item_is_settled_after_the_debate() {
    let mut harness = one_round_to_the_end();
    harness.answer("synthesizer/synthesis", &synthesis(&correct_log()));
    assert_eq!(harness.protocol.open_items().len(), 1);
    assert!(
        harness
            .protocol
            .resolution_refusal("C1", ItemDecision::Accept)
            .is_some()
    );
    assert!(
        harness
            .protocol
            .resolution_refusal("I1", ItemDecision::Defer)
            .is_some()
    );
    assert_eq!(
        harness
            .protocol
            .resolution_refusal("I1", ItemDecision::Accept),
        None
    );
    harness.send(quorum::protocol::Input::ItemResolved {
        item_id: "I1".into(),
        decision: ItemDecision::Accept,
        note: Some("product agreed".into()),
        ruler: None,
    });
    assert!(harness.protocol.open_items().is_empty());
    // The shared item book logs it as every protocol does, and a plan's
    // settlement is final.
    let log = harness.protocol.log();
    assert_eq!(
        log.last().map(|entry| entry.message.as_str()),
        Some("I1 deferred → accepted after the debate: product agreed")
    );
    harness.send(quorum::protocol::Input::ItemResolved {
        item_id: "I1".into(),
        decision: ItemDecision::Reject,
        note: None,
        ruler: None,
    });
    assert_eq!(
        harness
            .protocol
            .log()
            .last()
            .map(|entry| entry.message.as_str()),
        Some("ignored a resolution of I1: it was settled already")
    );
    let plan = harness.document("plan.md");
    assert!(
        plan.contains(
            "| I1 | Optimizer | One transaction | Delivery | Accepted (after the debate) |"
        )
    );
    assert!(plan.contains("Settled after the debate, so the plan above does not reflect them yet: I1 accepted on 2026-12-01 (product agreed)"));
    assert!(
        !plan.contains("quorum recomputed"),
        "the synthesizer was right at the time"
    );
}

/// An answer with no challenge to read gets one repair quoting the error,
/// then a clear stop with no plan invented. A challenge that breaks the
/// format costs that challenge alone (issue 59): asked about once, then
/// left out, and the round goes on with the others, saying so.
#[test]
fn malformed_challenges_are_repaired_once_then_stop() {
    let mut harness = start(false);
    harness.answer("planner/draft/r1", &draft("Export", &[]));
    harness.answer("critic/critique/r1", "```yaml\nchallenges: [leak]\n```");
    let repair = harness.call("critic/critique/r1/a2");
    assert!(
        repair
            .request
            .prompt
            .contains("no `**Challenge N**: Category - summary` block was found")
    );
    harness.answer("critic/critique/r1/a2", "```yaml\nchallenges: [leak]\n```");
    let Some(Outcome::Failed { reason }) = &harness.finished else {
        panic!("a clear stop: {:?}", harness.finished);
    };
    assert!(reason.contains("no `**Challenge N**"), "{reason}");
    assert!(harness.document("plan.md").starts_with("# No plan — "));

    let mut harness = start(false);
    harness.answer("planner/draft/r1", &draft("Export", &[]));
    let low = "**Challenge 1**: Security - Leak\nProblem: x\nEvidence: y\nSuggestion: z\nSeverity: LOW\n\n**Challenge 2**: Data - Stale rows\nProblem: p\nEvidence: e\nSuggestion: s\nSeverity: HIGH\n";
    harness.answer("critic/critique/r1", low);
    let repair = harness.call("critic/critique/r1/a2");
    assert!(
        repair
            .request
            .prompt
            .contains("Challenge 1: line 5, Challenge 1.Severity: LOW is not a challenge severity"),
        "{}",
        repair.request.prompt
    );
    harness.answer("critic/critique/r1/a2", low);
    assert!(harness.finished.is_none(), "the round goes on");
    assert!(harness.is_live("optimizer/optimize/r1"));
    let ids: Vec<&str> = harness
        .protocol
        .items()
        .iter()
        .map(|i| i.id.as_str())
        .collect();
    assert_eq!(ids, ["C1"], "Stale rows is C1; Leak is left out");
    assert!(
        harness
            .log_text()
            .contains("left out Challenge 1 of the critic's answer")
    );
}

/// The optimizer is not required: without its proposals the round goes on.
#[test]
fn a_missing_optimizer_costs_only_its_proposals() {
    let mut harness = start(false);
    harness.answer("planner/draft/r1", &draft("Export", &[]));
    harness.answer(
        "critic/critique/r1",
        &challenges(&[("Security", "Leak", "HIGH")], &[]),
    );
    harness.time_out("optimizer/optimize/r1");
    assert!(harness.is_live("planner/respond/r1"));
    assert_eq!(
        harness
            .protocol
            .items()
            .iter()
            .filter(|i| i.source == Source::Optimizer)
            .count(),
        0
    );
    assert!(harness.protocol.missing()[0].starts_with("round 1: no proposals from the optimizer"));
}

/// Issue 26: the plan's moderation is the shared item book's. A decision
/// can be changed until the moderation is submitted (the board shows the
/// latest), a submission with an item undecided is refused naming it, and
/// only the submission settles what the planner's proposal was confirmed or
/// overridden by.
#[test]
fn issue_26_the_plans_moderation_decides_and_submits_through_the_item_book() {
    let mut harness = round_one();
    let items = harness.moderation.take().expect("a moderation");
    let ids: Vec<String> = items.iter().map(|item| item.id.clone()).collect();
    harness.send(Input::ItemDecided {
        item_id: "C2".into(),
        decision: ItemDecision::Reject,
        note: None,
        ruler: None,
    });
    harness.send(Input::ItemDecided {
        item_id: "C2".into(),
        decision: ItemDecision::Accept,
        note: Some("  changed my mind  ".into()),
        ruler: None,
    });
    let board = harness.protocol.board();
    let c2 = board
        .items
        .iter()
        .find(|entry| entry.item.id == "C2")
        .unwrap();
    assert_eq!(
        c2.decision,
        Some(ItemDecision::Accept),
        "the latest decision"
    );
    assert_eq!(c2.note.as_deref(), Some("changed my mind"));
    assert!(
        harness.protocol.decision("C2").is_none(),
        "nothing settled yet"
    );
    harness.send(Input::ModerationSubmitted);
    let undecided: Vec<&str> = ids
        .iter()
        .map(String::as_str)
        .filter(|id| *id != "C2")
        .collect();
    assert!(
        harness.log_text().contains(&format!(
            "cannot submit yet: {} still undecided",
            undecided.join(", ")
        )),
        "{}",
        harness.log_text()
    );
    for id in &undecided {
        harness.send(Input::ItemDecided {
            item_id: (*id).into(),
            decision: ItemDecision::Accept,
            note: None,
            ruler: None,
        });
    }
    harness.send(Input::ModerationSubmitted);
    let c2 = harness.protocol.decision("C2").expect("settled");
    assert_eq!(c2.decision, ItemDecision::Accept);
    assert_eq!(c2.note.as_deref(), Some("changed my mind"));
    assert_eq!(c2.by, quorum::protocol::plan::model::DecidedBy::Moderator);
    harness.send(Input::ItemDecided {
        item_id: "C2".into(),
        decision: ItemDecision::Reject,
        note: None,
        ruler: None,
    });
    assert!(
        harness.log_text().contains("ignored a decision on C2"),
        "a settled item is not decided again"
    );
    assert_eq!(
        harness.protocol.decision("C2").unwrap().decision,
        ItemDecision::Accept
    );
}

// ---- issue 60: a verification needs evidence; who raised an assumption -----------

/// A debate like [`round_one`] whose critic checks U1 with `u1_check`, up
/// to the first moderation.
fn round_one_checking(u1_check: &str) -> Harness {
    round_one_of(start(false), u1_check)
}

fn round_one_of(mut harness: Harness, u1_check: &str) -> Harness {
    harness.answer(
        "planner/draft/r1",
        &draft(
            "Export",
            &["COPY streams 5 GB in 1 GiB.", "Presigned URLs live 24 h."],
        ),
    );
    harness.answer(
        "critic/critique/r1",
        &challenges(
            &[
                ("Operations", "No timeout plan", "HIGH"),
                ("Security", "Tenant leak", "CRITICAL"),
            ],
            &[u1_check],
        ),
    );
    harness.answer(
        "optimizer/optimize/r1",
        &proposals(
            &[("Delivery", "One transaction", "HIGH", None)],
            &["U2: [UNVERIFIED] no access to the bucket"],
        ),
    );
    harness.answer(
        "planner/respond/r1",
        &responses(&[("C1", "accept"), ("C2", "reject"), ("I1", "accept")]),
    );
    harness
}

/// From the first moderation (decided by `decide`) to the synthesizer's
/// call: a revision, a review raising nothing, the optimizer's final
/// words.
fn to_the_synthesis(mut harness: Harness, decide: impl FnOnce(&mut Harness)) -> Harness {
    decide(&mut harness);
    harness.answer(
        "planner/revise/r1",
        &draft(
            "Export, revised",
            &["COPY streams 5 GB in 1 GiB.", "Presigned URLs live 24 h."],
        ),
    );
    harness.answer("critic/review/r2", &challenges(&[], &[]));
    harness.answer("optimizer/final", "Final proposals: I1 accepted.");
    harness
}

fn status_of(harness: &Harness, id: &str) -> Verification {
    harness
        .protocol
        .assumptions()
        .iter()
        .find(|assumption| assumption.id == id)
        .unwrap()
        .status()
}

fn board_row(harness: &Harness, id: &str) -> quorum::protocol::Ruling {
    let BoardView::Rulings(rows) = harness.protocol.board().view else {
        panic!("a critique-log board");
    };
    rows.into_iter().find(|row| row.subject == id).unwrap()
}

fn log_row(harness: &Harness, id: &str) -> Option<quorum::protocol::plan::documents::LogRow> {
    quorum::protocol::plan::documents::log_rows(&harness.protocol)
        .into_iter()
        .find(|row| row.id == id)
}

/// PC-25 (issue 60): the critic and the optimizer verify, refute or leave
/// unverified, each as reported: a `[VERIFIED]` with a link, a quoted
/// passage or a file and line counts, its evidence recorded; a
/// `[REFUTED]` stands refuted; an `[UNVERIFIED]` keeps its note as the
/// log's detail. None of them goes before the moderator.
#[test]
fn pc_25_verified_with_evidence_refuted_or_left_unverified_each_as_reported() {
    use quorum::protocol::plan::model::Evidence;
    for (check, evidence) in [
        (
            "U1: [VERIFIED] https://www.postgresql.org/docs/15/sql-copy.html, rows stream",
            Evidence::Link("https://www.postgresql.org/docs/15/sql-copy.html".into()),
        ),
        (
            "U1: [VERIFIED] the manual: \"COPY TO STDOUT sends rows as they are read\"",
            Evidence::Quote("\"COPY TO STDOUT sends rows as they are read\"".into()),
        ),
        (
            "U1: [VERIFIED] api/export.py:41-57 streams with copy_expert",
            Evidence::Place("api/export.py:41-57".into()),
        ),
    ] {
        let harness = round_one_checking(check);
        assert_eq!(status_of(&harness, "U1"), Verification::Verified, "{check}");
        let u1 = &harness.protocol.assumptions()[0];
        assert_eq!(u1.checks[0].evidence.as_ref(), Some(&evidence), "{check}");
        let items: Vec<String> = harness
            .moderation
            .as_ref()
            .unwrap()
            .iter()
            .map(|item| item.id.clone())
            .collect();
        assert_eq!(items, ["C1", "C2", "I1"], "{check}: nothing to confirm");
    }
    let harness = round_one_checking("U1: [REFUTED] MERGE came in Postgres 15 (see Challenge 2)");
    assert_eq!(status_of(&harness, "U1"), Verification::Refuted);
    assert_eq!(board_row(&harness, "U1").word.as_deref(), Some("REFUTED"));
    assert!(
        log_row(&harness, "U1").is_none(),
        "a refuted one is no open row"
    );
    assert_eq!(status_of(&harness, "U2"), Verification::Unverified);
    assert_eq!(
        log_row(&harness, "U2").unwrap().detail,
        "optimizer: no access to the bucket"
    );
}

/// PC-25 (issue 60): a `[VERIFIED]` with no link, quote or file and line
/// verifies nothing. The assumption stays unverified everywhere its status
/// shows, saying why: the board, the Critique Log, the open questions
/// (`quorum open`), the record, the prompts that follow. It goes before the
/// moderator with quorum's suggestion to leave it unverified, which the
/// headless `planner` policy follows, so nothing turns VERIFIED without
/// evidence or a person.
#[test]
fn pc_25_a_bare_verified_stays_unverified_everywhere_the_status_shows() {
    const WHY: &str = "marked VERIFIED by the critic without an evidence link or quote";
    let harness = round_one_checking("U1: [VERIFIED] the COPY docs say rows stream");
    assert_eq!(status_of(&harness, "U1"), Verification::Unverified);
    let items = harness.moderation.clone().unwrap();
    let u1 = items
        .iter()
        .find(|item| item.id == "U1")
        .expect("U1 to confirm");
    let suggestion = u1.suggestion.as_ref().unwrap();
    assert_eq!(suggestion.by, "quorum");
    assert_eq!(suggestion.decision, ItemDecision::Defer);
    assert!(
        u1.text.contains("the COPY docs say rows stream"),
        "{}",
        u1.text
    );
    let mut harness = to_the_synthesis(harness, take_planner);
    assert_eq!(status_of(&harness, "U1"), Verification::Unverified);
    let why = format!("{WHY}; the moderator left it to investigate");
    let row = board_row(&harness, "U1");
    assert_eq!(row.word.as_deref(), Some("UNVERIFIED"));
    assert_eq!(row.rule, why);
    assert_eq!(log_row(&harness, "U1").unwrap().detail, why);
    assert_eq!(
        harness.protocol.open_questions()[0],
        format!("U1 [UNVERIFIED] COPY streams 5 GB in 1 GiB. ({why})")
    );
    assert!(
        harness
            .prompt_of("synthesizer/synthesis")
            .contains(&format!(
                "U1 (UNVERIFIED: {why}): COPY streams 5 GB in 1 GiB."
            )),
        "the synthesizer is told"
    );
    harness.answer("synthesizer/synthesis", &synthesis(""));
    let plan = harness.document("plan.md");
    assert!(
        plan.contains("- [ ] Investigate: COPY streams 5 GB in 1 GiB. (U1)"),
        "{plan}"
    );
    assert!(
        plan.contains(&format!("| U1 | Planner | COPY streams 5 GB in 1 GiB. | Unverified assumption | Unverified | {why} |")),
        "{plan}"
    );
    let record = harness.document("debate.yaml");
    assert!(record.contains(&format!("why: {why}")), "{record}");
    assert!(record.contains("confirmation: deferred"), "{record}");
    assert!(
        harness
            .log_text()
            .contains("critic checked U1 VERIFIED without an evidence link or quote")
    );
}

/// PC-25 (issue 60): the moderator can confirm a bare `[VERIFIED]`; the
/// confirmation, with its note, is recorded as the evidence. Rejected, it
/// stays unverified and says the moderator did not confirm it.
#[test]
fn pc_25_the_moderator_confirms_a_bare_verified_or_leaves_it_unverified() {
    use quorum::protocol::plan::model::Evidence;
    let harness = round_one_checking("U1: [VERIFIED] the COPY docs say rows stream");
    let harness = to_the_synthesis(harness, |harness| {
        harness.moderate(&[
            ("C2", ItemDecision::Reject, None),
            ("U1", ItemDecision::Accept, Some("I ran it on staging")),
        ])
    });
    assert_eq!(status_of(&harness, "U1"), Verification::Verified);
    let check = &harness.protocol.assumptions()[0].checks[0];
    assert_eq!(
        check.evidence,
        Some(Evidence::Moderator(Some("I ran it on staging".into())))
    );
    assert!(
        board_row(&harness, "U1")
            .rule
            .ends_with("(confirmed by the moderator: I ran it on staging)")
    );
    assert!(log_row(&harness, "U1").is_none());
    assert!(
        harness
            .log_text()
            .contains("U1 confirmed verified by the moderator: I ran it on staging")
    );

    let harness = round_one_checking("U1: [VERIFIED] the COPY docs say rows stream");
    let harness = to_the_synthesis(harness, |harness| {
        harness.moderate(&[
            ("C2", ItemDecision::Reject, None),
            ("U1", ItemDecision::Reject, None),
        ])
    });
    assert_eq!(status_of(&harness, "U1"), Verification::Unverified);
    assert_eq!(
        board_row(&harness, "U1").rule,
        "marked VERIFIED by the critic without an evidence link or quote; the moderator did not confirm it"
    );
}

/// PC-25 (issue 60): a bare `[VERIFIED]` in the final words, after the
/// last round's moderation, gets a moderation of its own before the
/// synthesizer starts.
#[test]
fn pc_25_a_bare_verified_in_the_final_words_is_confirmed_before_the_synthesis() {
    let mut harness = round_one_checking(U1_VERIFIED);
    take_planner(&mut harness);
    harness.answer(
        "planner/revise/r1",
        &draft("Export, revised", &["Presigned URLs live 24 h."]),
    );
    harness.answer("critic/review/r2", &challenges(&[], &[]));
    harness.answer(
        "optimizer/final",
        "Final proposals: I1 accepted.\n- U2: [VERIFIED] the bucket allows it\n",
    );
    assert!(!harness.was_started("synthesizer/"), "the moderator first");
    let items = harness
        .moderation
        .clone()
        .expect("a moderation before the synthesis");
    let ids: Vec<&str> = items.iter().map(|item| item.id.as_str()).collect();
    assert_eq!(ids, ["U2"]);
    assert!(
        items[0]
            .text
            .contains("The optimizer (round 1) marked it VERIFIED"),
        "{}",
        items[0].text
    );
    harness.moderate(&[("U2", ItemDecision::Accept, Some("checked the policy"))]);
    assert!(harness.is_live("synthesizer/synthesis"));
    assert_eq!(status_of(&harness, "U2"), Verification::Verified);
    assert!(
        harness
            .prompt_of("synthesizer/synthesis")
            .contains("U2 (VERIFIED): Presigned URLs live 24 h.")
    );
}

/// PC-24, PC-31 (issue 60): an assumption the critic or the optimizer
/// marks `[UNVERIFIED]` in its own answer is tracked like the planner's,
/// and its Critique Log row names who raised it, not "Planner". A
/// verification line (`U2: [UNVERIFIED] …`) raises nothing new.
#[test]
fn pc_24_pc_31_an_assumption_the_critic_or_optimizer_marks_names_it_in_the_log() {
    let mut harness = start(false);
    harness.answer(
        "planner/draft/r1",
        &draft("Export", &["Presigned URLs live 24 h."]),
    );
    let critic = challenges(
        &[("Security", "Tenant leak", "CRITICAL")],
        &["U1: [UNVERIFIED] no access"],
    ) + "- [UNVERIFIED] Every tenant table enables the tenant_isolation policy.\n";
    harness.answer("critic/critique/r1", &critic);
    let optimizer = proposals(&[("Delivery", "One transaction", "HIGH", None)], &[])
        + "[UNVERIFIED] REPEATABLE READ holds a 5 GB snapshot without bloat.\n";
    harness.answer("optimizer/optimize/r1", &optimizer);
    let raised: Vec<(String, String, String)> = harness
        .protocol
        .assumptions()
        .iter()
        .map(|a| (a.id.clone(), a.raised_by.clone(), a.from.clone()))
        .collect();
    assert_eq!(
        raised,
        [
            ("U1".to_string(), "planner".to_string(), "draft".to_string()),
            (
                "U2".to_string(),
                "critic".to_string(),
                "critique, round 1".to_string()
            ),
            (
                "U3".to_string(),
                "optimizer".to_string(),
                "optimize, round 1".to_string()
            ),
        ]
    );
    let sources: Vec<(String, String)> =
        quorum::protocol::plan::documents::log_rows(&harness.protocol)
            .into_iter()
            .filter(|row| row.id.starts_with('U'))
            .map(|row| (row.id, row.source))
            .collect();
    assert_eq!(
        sources,
        [
            ("U1".to_string(), "Planner".to_string()),
            ("U2".to_string(), "Critic".to_string()),
            ("U3".to_string(), "Optimizer".to_string()),
        ]
    );
    assert!(
        board_row(&harness, "U2")
            .facts
            .iter()
            .any(|fact| fact.value == "critic"),
        "the board says who raised it"
    );
    assert!(
        harness
            .log_text()
            .contains("[UNVERIFIED] marked by the critic (critique, round 1): U2"),
        "{}",
        harness.log_text()
    );
}

/// PC-31: the Critique Log's Summary, Category and Detail columns, row by
/// row: the item's summary and category as raised; the planner's reason
/// when the moderator ruled as it proposed, the moderator's override and
/// note otherwise, a third option named; an assumption's text, "Unverified
/// assumption" and why it is still unverified.
#[test]
fn pc_31_the_logs_summary_category_and_detail_columns() {
    use quorum::protocol::plan::documents::LogRow;
    let harness = round_one_of(start(false), "U1: [VERIFIED] the COPY docs say rows stream");
    let harness = to_the_synthesis(harness, |harness| {
        harness.moderate(&[
            ("C2", ItemDecision::Accept, Some("the 60 s timeout is real")),
            ("U1", ItemDecision::Defer, None),
        ])
    });
    let row =
        |id: &str, source: &str, summary: &str, category: &str, resolution: &str, detail: &str| {
            LogRow {
                id: id.into(),
                source: source.into(),
                summary: summary.into(),
                category: category.into(),
                resolution: resolution.into(),
                detail: detail.into(),
            }
        };
    assert_eq!(
        quorum::protocol::plan::documents::log_rows(&harness.protocol),
        [
            row(
                "C1",
                "Critic",
                "Tenant leak",
                "Security",
                "Accepted",
                "because of C1"
            ),
            row(
                "C2",
                "Critic",
                "No timeout plan",
                "Operations",
                "Accepted",
                "decided by the moderator (the planner proposed to reject) — note: the 60 s timeout is real"
            ),
            row(
                "I1",
                "Optimizer",
                "One transaction",
                "Delivery",
                "Accepted",
                "because of I1"
            ),
            row(
                "U1",
                "Planner",
                "COPY streams 5 GB in 1 GiB.",
                "Unverified assumption",
                "Unverified",
                "marked VERIFIED by the critic without an evidence link or quote; the moderator left it to investigate"
            ),
            row(
                "U2",
                "Planner",
                "Presigned URLs live 24 h.",
                "Unverified assumption",
                "Unverified",
                "optimizer: no access to the bucket"
            ),
        ]
    );
}

/// PC-25 (issue 60): a debate journaled before evidence was asked for
/// folds as it ran: a bare `[VERIFIED]` verifies, nothing goes before the
/// moderator, the critic's own markers are not tracked, and the synthesizer
/// writes plan.md alone.
#[test]
fn pc_25_a_debate_from_before_issue_60_verifies_as_it_ran() {
    let mut config = config(false);
    config.seating.edition = quorum::protocol::Edition::FIRST;
    let harness = Harness::start(Plan::new(config, Arc::new(PromptSet::builtin())));
    let harness = round_one_of(harness, "U1: [VERIFIED] the COPY docs say rows stream");
    assert_eq!(status_of(&harness, "U1"), Verification::Verified);
    let ids: Vec<String> = harness
        .moderation
        .as_ref()
        .unwrap()
        .iter()
        .map(|item| item.id.clone())
        .collect();
    assert_eq!(ids, ["C1", "C2", "I1"]);
    assert!(
        !harness
            .prompt_of("critic/critique/r1")
            .contains("verifies nothing"),
        "the prompts it ran with"
    );
    let mut harness = to_the_synthesis(harness, take_planner);
    assert!(
        !harness
            .prompt_of("synthesizer/synthesis")
            .contains("Decision Record"),
        "it was never asked for one"
    );
    harness.answer("synthesizer/synthesis", &synthesis(""));
    let paths: Vec<String> = harness
        .protocol
        .documents()
        .into_iter()
        .map(|d| d.path)
        .collect();
    assert_eq!(paths, ["plan.md", "transcript.md", "debate.yaml"]);
    assert!(!harness.document("debate.yaml").contains("why:"));
}

// ---- PC-21, PC-22: only the synthesizer writes, and only it is told of docs/ --------

/// The synthesizer's answer for [`to_the_synthesis`], with its decision
/// record.
const DECIDED: &str = "## Decision Record\n\nTitle: Export with a tenant check\nContext: Tenants' data must never mix.\nDecision: Every export runs in one transaction scoped to its tenant.\nConsequences: Slower exports for the largest tenants.\nAlternatives: A schema per tenant, set aside as too costly.\n";

/// PC-22: the planner, the critic and the optimizer neither read nor write
/// `docs/plans/`: every prompt of theirs says so, carries the plan quorum
/// gives them instead, and names no docs file nor the folder the docs go
/// to. Only the synthesizer's prompt names its files under `docs/plans/`
/// and `docs/adr/`.
#[test]
fn pc_22_only_the_synthesizer_is_told_of_the_docs_the_others_get_the_plan() {
    let root = "/srv/repositories/billing";
    let mut config = config(false);
    config.docs = Some(quorum::protocol::plan::docs::DocsTarget {
        root: root.into(),
        adr_number: 7,
    });
    let harness = Harness::start(Plan::new(config, Arc::new(PromptSet::builtin())));
    let mut harness = round_one_of(harness, U1_VERIFIED);
    let draft_text = draft(
        "Export",
        &["COPY streams 5 GB in 1 GiB.", "Presigned URLs live 24 h."],
    );
    let harness_calls = |harness: &Harness| -> Vec<(String, String)> {
        harness
            .started
            .iter()
            .map(|spec| (spec.request.call_id.clone(), spec.request.prompt.clone()))
            .collect()
    };
    harness = to_the_synthesis(harness, take_planner);
    for (call, prompt) in harness_calls(&harness) {
        if call.starts_with("synthesizer/") {
            continue;
        }
        assert!(
            prompt.contains("do not read or write `docs/plans/`"),
            "{call}: {prompt}"
        );
        assert!(!prompt.contains("docs/adr"), "{call}");
        assert!(!prompt.contains(root), "{call}");
        assert!(!prompt.contains("Decision Record"), "{call}");
        if !call.starts_with("planner/draft") {
            // The orchestrator gives them the plan content they need.
            assert!(
                prompt.contains("Ship a CSV export of every tenant table."),
                "{call}: the plan is in the prompt"
            );
        }
    }
    assert!(
        harness
            .prompt_of("critic/critique/r1")
            .contains(draft_text.trim()),
        "the critic has the whole draft from quorum"
    );
    let synthesizer = harness.prompt_of("synthesizer/synthesis");
    assert!(
        synthesizer.contains(
            "the plan in `docs/plans/2026-12-01-let-tenants-export-their-data-as-csv.md`"
        ),
        "{synthesizer}"
    );
    assert!(
        synthesizer.contains("`docs/adr/0007-let-tenants-export-their-data-as-csv.md`"),
        "{synthesizer}"
    );
    assert!(synthesizer.contains("## Decision Record"));
    assert!(
        !synthesizer.contains(root),
        "the folder is quorum's business"
    );
}

/// PC-21, PC-22 (issue 60): what lands under `docs/` is the synthesizer's
/// answer alone, in the seed's layout: the plan (plan.md, without the
/// decision record), the index line, and the decision record rendered
/// whole around the synthesizer's fields; no other role's answer. In the
/// person's folder (`--write-docs`) the same files land, inside it, the
/// index by its line alone.
#[test]
fn pc_21_pc_22_only_the_synthesizers_answer_lands_in_docs() {
    let root = tempfile::tempdir().unwrap();
    let mut config = config(false);
    config.docs = Some(quorum::protocol::plan::docs::DocsTarget {
        root: root.path().display().to_string(),
        adr_number: 7,
    });
    let harness = Harness::start(Plan::new(config, Arc::new(PromptSet::builtin())));
    let harness = round_one_of(harness, U1_VERIFIED);
    let mut harness = to_the_synthesis(harness, take_planner);
    let answer = format!("{}\n{DECIDED}", synthesis(""));
    harness.answer("synthesizer/synthesis", &answer);
    let adr_file = "docs/adr/0007-let-tenants-export-their-data-as-csv.md";
    let documents = harness.protocol.documents();
    let docs: Vec<&quorum::protocol::Document> = documents
        .iter()
        .filter(|document| document.path.starts_with("docs/"))
        .collect();
    let paths: Vec<&str> = docs.iter().map(|document| document.path.as_str()).collect();
    assert_eq!(paths, [PLAN_FILE, "docs/plans/README.md", adr_file]);
    let plan = harness.document("plan.md");
    assert!(
        !plan.contains("Decision Record"),
        "a file of its own: {plan}"
    );
    assert_eq!(harness.document(PLAN_FILE), plan);
    let adr = harness.document(adr_file);
    for expected in [
        "# 7. Export with a tenant check\n",
        "Status: Proposed",
        "## Context\n\nTenants' data must never mix.",
        "## Decision\n\nEvery export runs in one transaction scoped to its tenant.",
        "## Consequences\n\nSlower exports for the largest tenants.",
        "## Alternatives considered\n\nA schema per tenant, set aside as too costly.",
        "the plan is [Tenant export](../plans/2026-12-01-let-tenants-export-their-data-as-csv.md)",
        "- Rejected: C2 No timeout plan.",
    ] {
        assert!(adr.contains(expected), "{expected}\n{adr}");
    }
    assert!(!adr.contains("quorum filled in"), "{adr}");
    assert!(
        harness.document("docs/plans/README.md").contains(
            "- 2026-12-01 [Tenant export](2026-12-01-let-tenants-export-their-data-as-csv.md) — decision record [0007](../adr/0007-let-tenants-export-their-data-as-csv.md)"
        )
    );
    // No other role's answer: the draft's, the critic's, the optimizer's.
    let others: Vec<String> = harness
        .protocol
        .kept()
        .iter()
        .filter(|kept| kept.role != "synthesizer")
        .flat_map(|kept| kept.raw.lines().map(str::to_string).collect::<Vec<_>>())
        .filter(|line| line.len() > 20 && !answer.contains(line.as_str()))
        .collect();
    assert!(!others.is_empty());
    for document in &docs {
        for line in &others {
            assert!(
                !document.contents.contains(line.as_str()),
                "{}: `{line}` is not the synthesizer's",
                document.path
            );
        }
    }
    // The person's folder gets the same files, inside it.
    let publications = harness.protocol.publications();
    let landed: Vec<String> = publications
        .iter()
        .map(|publication| {
            assert_eq!(publication.within.as_deref(), Some(root.path()));
            publication
                .path
                .strip_prefix(root.path())
                .unwrap()
                .display()
                .to_string()
        })
        .collect();
    assert_eq!(landed, [PLAN_FILE, "docs/plans/README.md", adr_file]);
    let index = &publications[1];
    let existing = "# Plans\n\n- 2026-11-02 [Billing](2026-11-02-billing.md)\n";
    assert_eq!(
        index.landed(Some(existing)),
        format!("{existing}{}\n", index.entry.as_ref().unwrap().line),
        "an index line is added to the index there, the rest kept"
    );
    let again = index.landed(Some(&index.landed(Some(existing))));
    assert_eq!(again, index.landed(Some(existing)), "and never twice");
}

/// PC-21 (issue 60): a synthesizer that writes no decision record still
/// gets a whole one: every field from the debate's record, and the file
/// says so.
#[test]
fn pc_21_a_decision_record_left_out_is_filled_from_the_record_and_said_so() {
    let harness = round_one_of(start(false), U1_VERIFIED);
    let mut harness = to_the_synthesis(harness, take_planner);
    harness.answer("synthesizer/synthesis", &synthesis(""));
    let adr = harness.document(ADR_FILE);
    for expected in [
        "# 1. Tenant export\n",
        "## Context\n\nThe goal: Let tenants export their data as CSV.",
        "## Decision\n\nAdmins export their tenant's data as CSV.",
        "## Consequences\n\n- Tenant leak (C1)\n- One transaction (I1)\n- Still unverified, to investigate before implementing: Presigned URLs live 24 h. (U2)",
        "*quorum filled in the title, the context, the decision, the consequences from the debate's record: the synthesizer's decision record gave none.*",
    ] {
        assert!(adr.contains(expected), "{expected}\n{adr}");
    }
    assert!(
        harness.protocol.publications().is_empty(),
        "no folder named"
    );
}
