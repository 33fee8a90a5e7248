//! Issue 26: the moderator's rulings bind the decision review's revision,
//! and the deliverables say so. On the real binary, with the built-in demo
//! (a scripted reviser that reads the rulings in its prompt) and with a
//! reviser that ignores them.

use crate::support;

use std::path::PathBuf;

use support::run::{Ran, Sandbox};

/// The demo's critique items, each with a phrase that appears in the
/// revision only when that item is answered.
const ITEMS: [(&str, &str); 6] = [
    ("c1", "We sampled 50 Q2 disputes"),
    ("c2", "Events record results, not requests"),
    ("c3", "JSON Schema"),
    ("c4", "known_at"),
    ("c5", "more than 0.1% of accounts"),
    ("c6", "EventStoreDB would be a second stateful system"),
];

/// The demo run headless with one decision per item read from stdin.
fn demo_with(sandbox: &Sandbox, decisions: &[&str]) -> (Ran, PathBuf) {
    let out = sandbox.out();
    let stdin: String = decisions
        .iter()
        .map(|decision| format!("{decision}\n"))
        .collect();
    let ran = support::run::quorum_in(
        sandbox.path(),
        &[
            "demo",
            "--headless",
            "--speed",
            "200",
            "--moderation",
            "ask",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
        Some(&stdin),
    );
    ran.assert_code(0);
    let run = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.is_dir())
        .expect("a run folder");
    (ran, run)
}

fn read(run: &std::path::Path, name: &str) -> String {
    std::fs::read_to_string(run.join(name)).unwrap_or_else(|error| panic!("{name}: {error}"))
}

/// The revisions' trees and change logs, without the raw answers (which
/// quote the prompt's wording back) or the critique.
fn revised(run: &std::path::Path) -> String {
    let revision = read(run, "revision.md");
    revision
        .split("### Raw output")
        .enumerate()
        .map(|(index, piece)| {
            if index == 0 {
                piece
            } else {
                piece.split_once("\n## Round").map_or("", |(_, rest)| rest)
            }
        })
        .collect()
}

/// Issue 26, "Tests that must exist" for the decision review: for every
/// moderation item of the demo, flipping that one ruling (from accepted to
/// rejected, and from rejected to accepted) changes the deliverable
/// accordingly: no trace of a rejected item as acted upon, an accepted one
/// answered, and the summary's change list written from the rulings.
#[test]
fn issue_26_flipping_any_one_ruling_of_the_demo_changes_its_deliverable_accordingly() {
    for (flipped, (id, marker)) in ITEMS.iter().enumerate() {
        for (base, flip) in [("a", "r"), ("r", "a")] {
            let decisions: Vec<&str> = (0..ITEMS.len())
                .map(|index| if index == flipped { flip } else { base })
                .collect();
            let sandbox = Sandbox::new();
            let (ran, run) = demo_with(&sandbox, &decisions);
            let summary = read(&run, "summary.md");
            let revised = revised(&run);
            let what_changed = summary
                .split("## What changed in revision")
                .nth(1)
                .and_then(|rest| rest.split("\n## ").next())
                .unwrap_or_else(|| panic!("no change list in\n{summary}"));
            assert!(
                !summary.contains("against your ruling")
                    && !ran.stderr.contains("against your rulings"),
                "the demo honours every ruling ({decisions:?}):\n{summary}\n{}",
                ran.stderr
            );
            for (other, (other_id, other_marker)) in ITEMS.iter().enumerate() {
                let accepted = decisions[other] == "a";
                let context = format!("{other_id} with {decisions:?}");
                if accepted {
                    assert!(
                        revised.contains(other_marker),
                        "{context}: accepted, so answered\n{revised}"
                    );
                    // The demo's reviser declines c6, giving its reason:
                    // declined is said as such, never as answered (DR-15).
                    let said = if *other_id == "c6" {
                        format!(
                            "- {other_id} (accepted): declined, not answered by any change; \
                             round 1 declined to change b2, the proposer's reason: "
                        )
                    } else {
                        format!("- {other_id} (accepted): round 1 ")
                    };
                    assert!(what_changed.contains(&said), "{context}\n{what_changed}");
                } else {
                    assert!(
                        !revised.contains(other_marker),
                        "{context}: rejected, so no trace of it in the revision\n{revised}"
                    );
                    assert!(
                        what_changed.contains(&format!(
                            "- {other_id} (rejected): no change, as you ruled."
                        )),
                        "{context}\n{what_changed}"
                    );
                    assert!(
                        !revised
                            .lines()
                            .any(|line| line.starts_with(&format!("| {other_id} |"))),
                        "{context}: no change-log row cites it\n{revised}"
                    );
                }
            }
            let _ = (id, marker);
        }
    }
}

/// Issue 26, "Done means": every item rejected, the summary claims no
/// change for any of them and says the strongest objection was set aside,
/// not answered.
#[test]
fn issue_26_a_demo_with_every_item_rejected_claims_no_change_for_any() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "demo",
            "--headless",
            "--speed",
            "200",
            "--moderation",
            "reject",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(0);
    let run = std::fs::read_dir(&out)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.is_dir())
        .unwrap();
    let summary = read(&run, "summary.md");
    for (id, _) in ITEMS {
        assert!(
            summary.contains(&format!("- {id} (rejected): no change, as you ruled.")),
            "{summary}"
        );
        assert!(!summary.contains(&format!("for {id}")), "{summary}");
    }
    assert!(summary.contains("you set it aside"), "{summary}");
    assert!(
        !summary.contains("the revised proposal answers it"),
        "{summary}"
    );
    let revision = read(&run, "revision.md");
    assert!(
        revision.contains("| d1 | b2 | replace |"),
        "the verdict's requirement is still answered\n{revision}"
    );
}

/// Runs `spec` headless with one decision per item from stdin.
fn run_spec(sandbox: &Sandbox, script: quorum::agent::script::Script, decisions: &str) -> PathBuf {
    let spec = support::scripted_spec("Which database should the ledger use?", script);
    let spec_path = sandbox.write("spec.yaml", &support::spec_yaml(&spec));
    let out = sandbox.out();
    let ran = support::run::quorum_in(
        sandbox.path(),
        &[
            "run",
            spec_path.to_str().unwrap(),
            "--headless",
            "--moderation",
            "ask",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
        Some(decisions),
    );
    ran.assert_code(0);
    sandbox.run_dir()
}

/// Issue 26: a reviser that ignores the rulings (it changes b1 for c2,
/// which the moderator rejected) is asked once more with the discrepancy
/// named; when the second answer still goes against the ruling, the
/// revision, the summary and the transcript say so plainly, and the change
/// is not presented as done.
#[test]
fn issue_26_a_revision_against_the_rulings_is_asked_again_then_stated_plainly() {
    let sandbox = Sandbox::new();
    // A reviser that answers c1..c4 whatever the rulings say.
    let careless = support::ScriptBuilder::adopt_path().reply(
        "proposer",
        "revision",
        Some(1),
        None,
        &support::revision_text(&["c1", "c2", "c3", "c4"]),
    );
    let run = run_spec(&sandbox, careless.build(), "a\nr: wrong premise\na\na\n");
    let journal = read(&run, "journal.jsonl");
    assert!(
        journal.contains("proposer/revision/r1/a2"),
        "asked once more"
    );
    assert!(
        !journal.contains("proposer/revision/r1/a3"),
        "and only once"
    );
    let second_prompt = journal
        .lines()
        .find(|line| line.contains("proposer/revision/r1/a2") && line.contains("call_started"))
        .expect("the second call's start");
    assert!(
        second_prompt.contains("goes against the moderator's rulings")
            && second_prompt
                .contains("the revision strengthened b1 for c2, which the moderator rejected"),
        "{second_prompt}"
    );
    let revision = read(&run, "revision.md");
    assert!(revision.contains("**Against your rulings.**"), "{revision}");
    let summary = read(&run, "summary.md");
    assert!(
        summary.contains(
            "- c2 (rejected): no change was to be made, but the revision made one anyway, against your ruling: round 1 strengthened b1: new for c2."
        ),
        "{summary}"
    );
    assert!(
        summary.contains(
            "- revision round 1 went against your rulings: the revision strengthened b1 for c2, which the moderator rejected"
        ),
        "{summary}"
    );
    let transcript = read(&run, "transcript.md");
    assert!(
        transcript.contains("still goes against your rulings after being asked again"),
        "{transcript}"
    );
    let debate = read(&run, "debate.yaml");
    assert!(debate.contains("against_rulings:"), "{debate}");
}

/// Issue 26: the reviser's prompt carries the rulings: accepted items to
/// answer, rejected ones with the moderator's note as what not to act on,
/// in the one section every acting agent reads.
#[test]
fn issue_26_the_revisers_prompt_carries_every_ruling_with_its_note() {
    let sandbox = Sandbox::new();
    let run = run_spec(
        &sandbox,
        support::ScriptBuilder::adopt_path()
            .reply(
                "proposer",
                "revision",
                Some(1),
                None,
                &support::revision_text(&["c1", "c3"]),
            )
            .build(),
        "a\nr: wrong premise\na\nd\n",
    );
    let journal = read(&run, "journal.jsonl");
    let prompt = journal
        .lines()
        .find(|line| line.contains("proposer/revision/r1/a1") && line.contains("call_started"))
        .expect("the revision call's start");
    for expected in [
        "## The moderator's rulings",
        "- c1: accepted — address it",
        "- c2: rejected — do not act on it. Moderator's note: wrong premise",
        "- c4: deferred — an open question",
        "## Items the moderator rejected",
    ] {
        assert!(prompt.contains(expected), "{expected}\n{prompt}");
    }
    assert!(
        !journal.contains("proposer/revision/r1/a2"),
        "an answer that follows the rulings is not asked again"
    );
}

/// RULES.md A6 through the engine: an advisory judge's low score never
/// revises on its own, but when a binding judge sends the proposal back it
/// reaches the reviser as an advisory note that needs no change-log entry,
/// and the run still adopts in round 2.
#[test]
fn a6_an_advisory_low_reaches_the_next_reviser_as_a_note_through_the_engine() {
    use quorum::protocol::decision_review::model::{Criterion, JudgeRole};
    let analyst = support::judge_config(JudgeRole::Analyst, true);
    let stylist = support::judge_config(JudgeRole::Stylist, true);
    let script = support::ScriptBuilder::adopt_path()
        .reply(
            "judge.analyst",
            "evaluation",
            Some(1),
            None,
            &support::judge_text(
                &analyst,
                support::scores(4, &[("b2", Criterion::Feasibility, 2)]),
                [4, 4, 4],
            ),
        )
        .reply(
            "judge.stylist",
            "evaluation",
            Some(1),
            None,
            &support::judge_text(
                &stylist,
                support::scores(4, &[("b1", Criterion::Clarity, 2)]),
                [4, 4, 4],
            ),
        )
        .reply(
            "proposer",
            "revision",
            Some(2),
            None,
            &support::revision_text(&["d1"]),
        )
        .build();
    let sandbox = Sandbox::new();
    let run = run_spec(&sandbox, script, "a\na\na\na\n");
    let journal = read(&run, "journal.jsonl");
    let round_two = journal
        .lines()
        .find(|line| line.contains("proposer/revision/r2/a1") && line.contains("call_started"))
        .expect("a second revision round");
    assert!(round_two.contains("## Advisory notes"), "{round_two}");
    assert!(
        round_two.contains("- stylist on b1 clarity (2) (advisory)"),
        "{round_two}"
    );
    assert!(
        round_two.contains("at least one entry for each of these ids: d1."),
        "the advisory note is not a requirement: {round_two}"
    );
    let debate = read(&run, "debate.yaml");
    assert!(debate.contains("verdict: REVISE"), "{debate}");
    assert!(debate.contains("decision: ADOPT"), "{debate}");
}

/// Issue 26 for the comparison's demo: flipping any one of its three
/// rulings changes what the revised comparison says, and nothing a
/// rejected item asked for appears in it.
#[test]
fn issue_26_flipping_any_one_ruling_of_the_comparison_demo_changes_its_revision() {
    const MARKERS: [(&str, &str); 3] = [
        ("c1", "daily partitions are dropped once empty"),
        ("c2", "WAIT 1 after each XADD"),
        ("c3", "the platform team offers to run MSK for us"),
    ];
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/demo/review-comparative.yaml");
    for flipped in 0..MARKERS.len() {
        for (base, flip) in [("a", "r"), ("r", "a")] {
            let decisions: Vec<&str> = (0..MARKERS.len())
                .map(|index| if index == flipped { flip } else { base })
                .collect();
            let sandbox = Sandbox::new();
            let out = sandbox.out();
            let stdin: String = decisions.iter().map(|d| format!("{d}\n")).collect();
            let ran = support::run::quorum_in(
                sandbox.path(),
                &[
                    "run",
                    demo,
                    "--headless",
                    "--speed",
                    "200",
                    "--moderation",
                    "ask",
                    "--out",
                    out.to_str().unwrap(),
                ],
                &[],
                Some(&stdin),
            );
            ran.assert_code(0);
            let run = sandbox.run_dir();
            let revised = revised(&run);
            assert!(
                !ran.stderr.contains("against your rulings"),
                "{}",
                ran.stderr
            );
            for (index, (id, marker)) in MARKERS.iter().enumerate() {
                let accepted = decisions[index] == "a";
                assert_eq!(
                    revised.contains(marker),
                    accepted,
                    "{id} with {decisions:?}\n{revised}"
                );
                assert_eq!(
                    revised
                        .lines()
                        .any(|line| line.starts_with(&format!("| {id} |"))),
                    accepted,
                    "{id}'s change-log row with {decisions:?}\n{revised}"
                );
            }
        }
    }
}
