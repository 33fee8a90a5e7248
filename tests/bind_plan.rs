//! Issue 26 for the planning debate, on the pure state machine: the
//! critique log is checked row by row against the items by id (PC-31,
//! PC-33), a deadlock is a real planner/critic disagreement, and the
//! moderator's decisions bind the revisions and the plan (the prompt
//! carries them, quorum checks the answer by id, asks once more, and
//! states what still disagrees).
use crate::support;

use std::sync::Arc;

use quorum::prompts::PromptSet;
use quorum::protocol::Questions;
use quorum::protocol::plan::documents;
use quorum::protocol::plan::{Plan, PlanConfig};
use quorum::protocol::{ItemDecision, Outcome};
use support::harness::t0;
use support::plan::{challenges, draft, proposals, responses, synthesis};

type Harness = support::harness::Harness<Plan>;

fn start() -> Harness {
    let agents = ["planner", "critic", "optimizer", "synthesizer"]
        .iter()
        .map(|slot| (slot.to_string(), "script:scripted".to_string()))
        .collect();
    let config = PlanConfig {
        topic: "Let tenants export their data as CSV".into(),
        context: Vec::new(),
        simple: false,
        seating: support::harness::seated(agents),
        checks_rulings: true,
        docs: None,
    };
    Harness::start(Plan::new(config, Arc::new(PromptSet::builtin())))
}

/// Draft, C1 and C2, I1 and I2 (a third option for C2), the planner's
/// responses `respond` (for C1, C2, I1, I2), then the moderator's
/// `decisions` in the same order.
fn round_one(respond: [&str; 4], decisions: [ItemDecision; 4]) -> Harness {
    let mut harness = start();
    harness.answer("planner/draft/r1", &draft("Export", &[]));
    harness.answer(
        "critic/critique/r1",
        &challenges(
            &[
                ("Operations", "No timeout plan", "HIGH"),
                ("Security", "Tenant leak", "CRITICAL"),
            ],
            &[],
        ),
    );
    harness.answer(
        "optimizer/optimize/r1",
        &proposals(
            &[
                ("Delivery", "One transaction", "HIGH", None),
                ("Operations", "Queue large exports", "MEDIUM", Some("C2")),
            ],
            &[],
        ),
    );
    let ids = ["C1", "C2", "I1", "I2"];
    let answer: Vec<(&str, &str)> = ids.iter().copied().zip(respond).collect();
    harness.answer("planner/respond/r1", &responses(&answer));
    let decided: Vec<(&str, ItemDecision, Option<&str>)> = ids
        .iter()
        .zip(decisions)
        .map(|(id, decision)| (*id, decision, None))
        .collect();
    harness.moderate(&decided);
    harness
}

const ACCEPT: ItemDecision = ItemDecision::Accept;
const REJECT: ItemDecision = ItemDecision::Reject;
const DEFER: ItemDecision = ItemDecision::Defer;

/// Round one decided as the planner proposed (C1 accepted, C2 rejected, I1
/// deferred, I2 accepted), a revision citing its items, a review that
/// raises nothing, the optimizer's final words: the synthesizer is next.
fn to_the_synthesis() -> Harness {
    let mut harness = round_one(
        ["accept", "reject", "defer", "accept"],
        [ACCEPT, REJECT, DEFER, ACCEPT],
    );
    harness.answer(
        "planner/revise/r1",
        "# Export\n\nShip it.\n\n## Steps\n1. SET LOCAL (C1).\n2. Queue large exports (I2).\n",
    );
    harness.answer("critic/review/r2", &challenges(&[], &[]));
    harness.answer("optimizer/final", "Final proposals: none.");
    harness
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

const COUNTS: [&str; 5] = [
    "**Debate rounds**: 1",
    "**Critic challenges**: 2 (Accepted: 1 | Rejected: 1 | Deferred: 0)",
    "**Optimizer proposals**: 2 (Accepted: 1 | Rejected: 0 | Deferred: 1)",
    "**Deadlocks resolved by Optimizer**: 1",
    "**Unverified assumptions**: 0",
];

/// A plan whose steps cite the accepted items, with `log` under it.
fn plan_with(log: &str) -> String {
    synthesis(log).replace(
        "1. Export.",
        "1. Export with SET LOCAL (C1), large ones queued (I2).",
    )
}

/// PC-31, PC-33: the log's rows are matched to the items by id. Swapping
/// the resolutions of C1 and C2 keeps every (source, resolution) pair and
/// every count, and is still caught and corrected.
#[test]
fn pc_31_pc_33_swapped_resolutions_are_caught_by_id() {
    let correct = [
        ("C1", "Critic", "Accepted"),
        ("C2", "Critic", "Rejected"),
        ("I1", "Optimizer", "Deferred"),
        ("I2", "Optimizer", "Accepted"),
    ];
    let mut harness = to_the_synthesis();
    harness.answer(
        "synthesizer/synthesis",
        &plan_with(&log_of(&correct, &COUNTS)),
    );
    let plan = harness.document("plan.md");
    assert!(!plan.contains("quorum recomputed"), "{plan}");

    let swapped = [
        ("C1", "Critic", "Rejected"),
        ("C2", "Critic", "Accepted"),
        ("I1", "Optimizer", "Deferred"),
        ("I2", "Optimizer", "Accepted"),
    ];
    let mut harness = to_the_synthesis();
    harness.answer(
        "synthesizer/synthesis",
        &plan_with(&log_of(&swapped, &COUNTS)),
    );
    let plan = harness.document("plan.md");
    assert!(
        plan.contains(
            "*quorum recomputed this log from the recorded decisions: the Critique Log's resolutions differ from the recorded decisions; it gives C1 as Rejected where the record has Accepted; it gives C2 as Accepted where the record has Rejected.*"
        ),
        "{plan}"
    );
    // Read most severe first: C1 is the CRITICAL tenant leak.
    assert!(
        plan.contains("| C1 | Critic | Tenant leak | Security | Accepted |"),
        "{plan}"
    );
    assert!(
        plan.contains("| C2 | Critic | No timeout plan | Operations | Rejected |"),
        "{plan}"
    );
    assert_eq!(plan.matches("## Critique Log").count(), 1);
    assert!(harness.log_text().contains("it gives C1 as Rejected"));

    // A row under an id the debate never raised, and one left out.
    let renamed = [
        ("C1", "Critic", "Accepted"),
        ("C9", "Critic", "Rejected"),
        ("I1", "Optimizer", "Deferred"),
        ("I2", "Optimizer", "Accepted"),
    ];
    let mut harness = to_the_synthesis();
    harness.answer(
        "synthesizer/synthesis",
        &plan_with(&log_of(&renamed, &COUNTS)),
    );
    let plan = harness.document("plan.md");
    assert!(
        plan.contains("the Critique Log has no row for C2"),
        "{plan}"
    );
    assert!(plan.contains("a row `C9` that names no item"), "{plan}");
}

/// PC-13, PC-32: the optimizer breaks a deadlock with a third option, and
/// the log's `Deadlocks resolved by Optimizer` counts it only when the
/// planner and the critic disagreed on its challenge: the planner proposed
/// to reject or defer it. A challenge the planner conceded is no deadlock.
#[test]
fn pc_13_pc_32_a_deadlock_is_a_challenge_the_planner_did_not_concede() {
    let deadlocks = |respond: [&str; 4]| {
        let harness = round_one(respond, [ACCEPT, ACCEPT, ACCEPT, ACCEPT]);
        documents::counts(&harness.protocol).deadlocks
    };
    assert_eq!(deadlocks(["accept", "reject", "accept", "accept"]), 1);
    assert_eq!(deadlocks(["accept", "defer", "accept", "accept"]), 1);
    assert_eq!(
        deadlocks(["accept", "accept", "accept", "accept"]),
        0,
        "the planner conceded C2: nothing to break"
    );
    // A third option the moderator rejected broke nothing.
    let harness = round_one(
        ["accept", "reject", "accept", "accept"],
        [ACCEPT, ACCEPT, ACCEPT, REJECT],
    );
    assert_eq!(documents::counts(&harness.protocol).deadlocks, 0);
}

/// The revision's prompt carries the moderator's rulings; a revision whose
/// step acts on a rejected item (I1) and leaves an accepted one (C1) out
/// is asked once more, naming both; what still disagrees is logged and
/// recorded.
#[test]
fn rulings_bind_the_revision_and_it_is_asked_once_more() {
    let mut harness = round_one(
        ["accept", "reject", "accept", "defer"],
        [ACCEPT, REJECT, REJECT, DEFER],
    );
    let prompt = harness.prompt_of("planner/revise/r1");
    for line in [
        "## The moderator's rulings",
        "- C1: accepted — address it",
        "- C2: rejected — do not act on it",
        "- I1: rejected — do not act on it",
        "- I2: deferred — an open question",
    ] {
        assert!(prompt.contains(line), "{line}\n{prompt}");
    }
    let against =
        "# Export\n\n## Steps\n1. One REPEATABLE READ transaction (I1).\n2. Stream the zip.\n";
    harness.answer("planner/revise/r1", against);
    let again = harness.call("planner/revise/r1/a2");
    assert!(
        again.request.prompt.contains(
            "- the step \"1. One REPEATABLE READ transaction (I1).\" acts on I1, which the moderator rejected"
        ),
        "{}",
        again.request.prompt
    );
    assert!(
        again
            .request
            .prompt
            .contains("- C1 was accepted, but no step of the plan cites it")
    );
    assert!(harness.log_text().contains("asking once more"));
    // Asked once only: the second answer goes on, its departures recorded.
    harness.answer("planner/revise/r1/a2", against);
    assert!(harness.is_live("critic/review/r2"));
    assert!(
        harness.log_text().contains(
            "the revision 1 still goes against your decisions after being asked once more"
        )
    );
    assert_eq!(harness.protocol.departures().len(), 2);
    assert!(harness.document("debate.yaml").contains("departures:"));
}

/// The plan itself: a step acting on a rejected item after it was asked
/// once more is stated plainly in plan.md, after the opening, and in the
/// lead the run prints; a corrected answer leaves no such section.
#[test]
fn a_plan_still_against_the_rulings_says_so_plainly() {
    let correct = [
        ("C1", "Critic", "Accepted"),
        ("C2", "Critic", "Rejected"),
        ("I1", "Optimizer", "Deferred"),
        ("I2", "Optimizer", "Accepted"),
    ];
    let good = plan_with(&log_of(&correct, &COUNTS));
    let bad = good.replace(
        "1. Export with",
        "1. Keep the request path for all tenants (C2); export with",
    );

    let mut harness = to_the_synthesis();
    let prompt = harness.prompt_of("synthesizer/synthesis");
    assert!(
        prompt.contains("- C2: rejected — do not act on it"),
        "{prompt}"
    );
    harness.answer("synthesizer/synthesis", &bad);
    assert!(
        harness.is_live("synthesizer/synthesis/r1/a2") || harness.is_live("synthesizer/synthesis")
    );
    harness.answer("synthesizer/synthesis", &good);
    assert!(matches!(harness.finished, Some(Outcome::Completed { .. })));
    let plan = harness.document("plan.md");
    assert!(!plan.contains(documents::DEPARTURES_HEADING), "{plan}");

    let mut harness = to_the_synthesis();
    harness.answer("synthesizer/synthesis", &bad);
    harness.answer("synthesizer/synthesis", &bad);
    assert!(matches!(harness.finished, Some(Outcome::Completed { .. })));
    let plan = harness.document("plan.md");
    let section = format!(
        "Admins export their tenant's data as CSV.\n\n{}\n\nquorum checked this plan",
        documents::DEPARTURES_HEADING
    );
    assert!(plan.contains(&section), "{plan}");
    assert!(
        plan.contains("acts on C2, which the moderator rejected."),
        "{plan}"
    );
    let lead = harness.protocol.summary_lead().unwrap();
    assert!(
        lead.contains("The plan still goes against the moderator's decisions in 1 place"),
        "{lead}"
    );
}

/// The rulings check is part of a debate's definition: a debate journaled
/// before it (no `checks_rulings`) goes on from a revision against the
/// rulings as it did then, with no second call it never had.
#[test]
fn a_debate_journaled_before_the_check_folds_as_it_ran() {
    let agents = ["planner", "critic", "optimizer", "synthesizer"]
        .iter()
        .map(|slot| (slot.to_string(), "script:scripted".to_string()))
        .collect();
    let mut config: PlanConfig = yaml_serde::from_str(&format!(
        "topic: Export\nagents: {{}}\nstarted_at: {}\n",
        t0().to_rfc3339()
    ))
    .expect("an old definition reads");
    assert!(!config.checks_rulings);
    config.seating.agents = agents;
    let mut harness = Harness::start(Plan::new(config, Arc::new(PromptSet::builtin())));
    harness.answer("planner/draft/r1", &draft("Export", &[]));
    harness.answer(
        "critic/critique/r1",
        &challenges(&[("Security", "Tenant leak", "CRITICAL")], &[]),
    );
    harness.answer("optimizer/optimize/r1", &proposals(&[], &[]));
    harness.answer("planner/respond/r1", &responses(&[("C1", "accept")]));
    harness.moderate(&[("C1", REJECT, None)]);
    harness.answer(
        "planner/revise/r1",
        "# Export\n\n## Steps\n1. SET LOCAL (C1).\n",
    );
    assert!(!harness.was_started("planner/revise/r1/a2"));
    assert!(harness.is_live("critic/review/r2"));
    assert!(harness.protocol.departures().is_empty());
}

/// Issue 26: a plan that cites no item id cannot be checked against the
/// decisions by id; plan.md says so after its opening, so it is not
/// presented as following them, and debate.yaml records it.
#[test]
fn a_plan_citing_no_item_is_marked_unchecked_in_the_deliverable() {
    let correct = [
        ("C1", "Critic", "Accepted"),
        ("C2", "Critic", "Rejected"),
        ("I1", "Optimizer", "Deferred"),
        ("I2", "Optimizer", "Accepted"),
    ];
    let mut harness = to_the_synthesis();
    harness.answer(
        "synthesizer/synthesis",
        &synthesis(&log_of(&correct, &COUNTS)),
    );
    assert!(matches!(harness.finished, Some(Outcome::Completed { .. })));
    let plan = harness.document("plan.md");
    assert!(
        plan.contains(&format!(
            "Admins export their tenant's data as CSV.\n\n{}",
            documents::UNCHECKED_SECTION
        )),
        "{plan}"
    );
    let record = harness.document("debate.yaml");
    assert!(record.contains("unchecked:\n- plan"), "{record}");

    let mut harness = to_the_synthesis();
    harness.answer(
        "synthesizer/synthesis",
        &plan_with(&log_of(&correct, &COUNTS)),
    );
    let plan = harness.document("plan.md");
    assert!(
        !plan.contains("## Not checked against"),
        "a plan citing ids is checked\n{plan}"
    );
}
