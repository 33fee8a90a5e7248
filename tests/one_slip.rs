//! One slip costs one item (issue 59), on the real binary: each built-in
//! demo with one item of one scripted answer edited the way a real model
//! slips — a field missing, a closed-set word out of the set or misspelt,
//! an id that does not exist or was never answered, an id or a key given
//! twice, a stray key, the closing fence missing at the very end, a list
//! where text belongs — run twice: once as the script stands, so the agent
//! repeats its slip when asked about it, and once with the agent fixing it
//! on that second attempt.
//!
//! Checked each time: the run never ends in failure (exit 1); when an item
//! is left out, the deliverable's "What could not be read" section names
//! it; when the slip was read with a note, or the agent fixed it, the exit
//! code, the verdict, the rule and the deliverable's opening are those of
//! the unedited demo, and the deliverable has no such section. A judge or
//! a reviewer is never asked again (RULES.md A14), so its slips stay left
//! out either way.
//!
//! The second half is a property: random single-item edits of every demo's
//! scripted answers, from a fixed seed and a bounded count, never end a
//! run in failure, and never change its outcome or its opening unless the
//! deliverable says what could not be read.
use crate::support;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use support::run::{Ran, Sandbox};

/// Where the demos' scripts live.
const DEMOS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo");

/// The heading of the deliverable's section on what could not be read.
const UNREAD: &str = "## What could not be read";

/// What one run ended with, as its `--json` result and its deliverable say.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Ending {
    code: i32,
    verdict: String,
    rule: String,
    opening: String,
}

/// One run: its ending, and the deliverable's section on what could not
/// be read, if it has one.
struct Outcome {
    ending: Ending,
    unread: Option<String>,
    ran: Ran,
}

/// Runs `spec` (a demo's text) headless in a sandbox of its own.
fn run(spec: &str) -> Outcome {
    let sandbox = Sandbox::new();
    let path = sandbox.write("spec.yaml", spec);
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "run",
            path.to_str().unwrap(),
            "--headless",
            "--json",
            "--speed",
            "400",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    let json: Value = serde_json::from_str(&ran.stdout).unwrap_or(Value::Null);
    let text = |key: &str| json[key].as_str().unwrap_or_default().to_string();
    let deliverable = text("deliverable");
    let unread = (!deliverable.is_empty())
        .then(|| std::fs::read_to_string(Path::new(&deliverable)).unwrap_or_default())
        .and_then(|document| {
            let (_, section) = document.split_once(UNREAD)?;
            Some(
                section
                    .split("\n## ")
                    .next()
                    .unwrap_or_default()
                    .to_string(),
            )
        });
    Outcome {
        ending: Ending {
            code: ran.code,
            verdict: text("verdict"),
            rule: text("rule"),
            opening: text("summary"),
        },
        unread,
        ran,
    }
}

/// A demo's script.
fn demo(name: &str) -> String {
    std::fs::read_to_string(format!("{DEMOS}/{name}.yaml")).expect("a demo script")
}

/// The lines of the reply of `role` at `stage` (and `round`, when given)
/// in `script`: the first line of the reply and the line after its last.
fn reply_lines(script: &[&str], role: &str, stage: &str, round: Option<u32>) -> (usize, usize) {
    let starts: Vec<usize> = script
        .iter()
        .enumerate()
        .filter(|(_, line)| line.starts_with("    - role: "))
        .map(|(index, _)| index)
        .collect();
    for (place, &start) in starts.iter().enumerate() {
        let mut end = starts.get(place + 1).copied().unwrap_or(script.len());
        if let Some(top) = (start + 1..end).find(|&i| {
            !script[i].is_empty() && !script[i].starts_with(' ') && !script[i].starts_with('#')
        }) {
            end = top;
        }
        let head = &script[start..end.min(start + 8)];
        if script[start].trim() != format!("- role: {role}")
            || !head.contains(&format!("      stage: {stage}").as_str())
        {
            continue;
        }
        if let Some(round) = round
            && !head.contains(&format!("      round: {round}").as_str())
        {
            continue;
        }
        return (start, end);
    }
    panic!("no reply of {role} at {stage} {round:?}");
}

/// `script` with the first `from` in the reply of `role` at `stage`
/// (`round`) replaced by `to`; with `fixed`, the reply as it was follows,
/// for the second attempt only: the agent fixes its slip when asked.
fn edited(
    script: &str,
    (role, stage, round): (&str, &str, Option<u32>),
    (from, to): (&str, &str),
    fixed: bool,
) -> String {
    let lines: Vec<&str> = script.lines().collect();
    let (start, end) = reply_lines(&lines, role, stage, round);
    let reply = lines[start..end].join("\n");
    assert!(
        reply.contains(from),
        "{from:?} is not in {role}'s {stage} reply"
    );
    let mut replaced = reply.replacen(from, to, 1);
    if fixed {
        let mut again: Vec<String> = lines[start..end].iter().map(|l| l.to_string()).collect();
        let after_head = (1..again.len())
            .find(|&i| {
                !again[i].starts_with("      stage:") && !again[i].starts_with("      round:")
            })
            .unwrap_or(again.len());
        again.insert(after_head, "      attempt: 2".to_string());
        replaced = format!("{replaced}\n{}", again.join("\n"));
    }
    let mut out = lines[..start].join("\n");
    out.push('\n');
    out.push_str(&replaced);
    out.push('\n');
    out.push_str(&lines[end..].join("\n"));
    out.push('\n');
    out
}

/// What a case expects of its two runs.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// Read with a note: both runs end as the unedited demo, saying
    /// nothing could not be read.
    Noted,
    /// The item is left out, and the deliverable says so naming this; the
    /// agent asked again fixes it and the run ends as the unedited demo.
    LeftOut(&'static str),
    /// Left out and never asked again (a judge, a reviewer): both runs
    /// say so, naming this.
    NeverAsked(&'static str),
}

/// One slip of one demo: what kind it is, whose reply, and the edit.
struct Case {
    demo: &'static str,
    kind: &'static str,
    reply: (&'static str, &'static str, Option<u32>),
    edit: (&'static str, &'static str),
    expect: Expect,
}

/// Runs every case of `cases` (all of one demo) twice and checks them.
fn check(cases: &[Case]) {
    let name = cases[0].demo;
    let script = demo(name);
    let clean = run(&script);
    assert_ne!(
        clean.ending.code, 1,
        "{name} itself fails: {}",
        clean.ran.stderr
    );
    assert!(clean.unread.is_none(), "{name} reads whole");
    let mut failures = Vec::new();
    for case in cases {
        for fixed in [false, true] {
            let outcome = run(&edited(&script, case.reply, case.edit, fixed));
            let label = format!(
                "{name}, {} in {}'s {} answer{}",
                case.kind,
                case.reply.0,
                case.reply.1,
                if fixed { ", fixed when asked" } else { "" }
            );
            if outcome.ending.code == 1 {
                failures.push(format!("{label}: exit 1\n{}", outcome.ran.stderr));
                continue;
            }
            let names = |what: &str, outcome: &Outcome| {
                outcome.unread.as_deref().is_some_and(|s| s.contains(what))
            };
            match (case.expect, fixed) {
                (Expect::Noted, _) | (Expect::LeftOut(_), true) => {
                    if outcome.ending != clean.ending {
                        failures.push(format!(
                            "{label}: ended {:?}, the demo {:?}",
                            outcome.ending, clean.ending
                        ));
                    }
                    if let Some(section) = &outcome.unread {
                        failures.push(format!("{label}: says it could not read\n{section}"));
                    }
                }
                (Expect::LeftOut(what), false) | (Expect::NeverAsked(what), _) => {
                    if !names(what, &outcome) {
                        failures.push(format!(
                            "{label}: the deliverable does not name {what:?} as left out: {:?}",
                            outcome.unread
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

const fn case(
    demo: &'static str,
    kind: &'static str,
    reply: (&'static str, &'static str, Option<u32>),
    edit: (&'static str, &'static str),
    expect: Expect,
) -> Case {
    Case {
        demo,
        kind,
        reply,
        edit,
        expect,
    }
}

#[test]
fn issue_59_a_decision_reviews_slips_cost_one_item() {
    const DEMO: &str = "billing-event-sourcing";
    const PROPOSAL: (&str, &str, Option<u32>) = ("proposer", "proposal", None);
    const CRITIQUE: (&str, &str, Option<u32>) = ("critic", "critique", None);
    check(&[
        case(
            DEMO,
            "a missing field",
            PROPOSAL,
            (
                "            tradeoffs: \"Writes get harder",
                "            notes: \"Writes get harder",
            ),
            Expect::LeftOut("block b1"),
        ),
        case(
            DEMO,
            "a duplicate id",
            PROPOSAL,
            ("  - id: b3", "  - id: b2"),
            Expect::LeftOut("block b2"),
        ),
        case(
            DEMO,
            "a closed-set word out of the set",
            CRITIQUE,
            ("severity: major", "severity: EXTREME"),
            Expect::LeftOut("critique item c1"),
        ),
        case(
            DEMO,
            "a closed-set word misspelt",
            CRITIQUE,
            ("flaw_type: assumption", "flaw_type: asumption"),
            Expect::Noted,
        ),
        case(
            DEMO,
            "an unknown id",
            CRITIQUE,
            ("target_block: b1", "target_block: b9"),
            Expect::LeftOut("critique item c1"),
        ),
        case(
            DEMO,
            "a stray key",
            CRITIQUE,
            (
                "    severity: major\n",
                "    severity: major\n            confidence: high\n",
            ),
            Expect::Noted,
        ),
        case(
            DEMO,
            "the final fence missing",
            CRITIQUE,
            (
                "            description: \"The proposal does not say why it passes over a purpose-built store such as EventStoreDB, which comes with subscriptions, snapshots and stream tooling that this plan would otherwise build by hand. One line of reasoning would put the choice on record.\"\n        ```",
                "            description: \"The proposal does not say why it passes over a purpose-built store such as EventStoreDB, which comes with subscriptions, snapshots and stream tooling that this plan would otherwise build by hand. One line of reasoning would put the choice on record.\"",
            ),
            Expect::Noted,
        ),
        case(
            DEMO,
            "a list where text belongs",
            CRITIQUE,
            (
                "            description: \"The week-6 go/no-go has no criteria.",
                "            description: [\"criteria\"]\n            notes: \"The week-6 go/no-go has no criteria.",
            ),
            Expect::LeftOut("critique item c5"),
        ),
    ]);
}

#[test]
fn issue_59_a_comparisons_judges_are_never_asked_again() {
    const DEMO: &str = "review-comparative";
    const ANALYST: (&str, &str, Option<u32>) = ("judge.analyst", "evaluation", None);
    const SCORE: &str =
        "          - block_id: a1\n            criterion: correctness\n            score: 4\n";
    check(&[
        case(
            DEMO,
            "a missing rationale",
            ANALYST,
            (
                "            rationale: \"Sound on risk for what this part of the option has to do.\"\n",
                "",
            ),
            Expect::NeverAsked("reason for its a1 risk score"),
        ),
        case(
            DEMO,
            "a stray key",
            ANALYST,
            (
                SCORE,
                "          - block_id: a1\n            criterion: correctness\n            score: 4\n            judge: analyst\n",
            ),
            Expect::Noted,
        ),
        case(
            DEMO,
            "a score of a block that does not exist",
            ANALYST,
            (
                SCORE,
                "          - block_id: a9\n            criterion: correctness\n            score: 2\n            rationale: x\n          - block_id: a1\n            criterion: correctness\n            score: 4\n",
            ),
            Expect::Noted,
        ),
        case(
            DEMO,
            "the same score twice",
            ANALYST,
            (
                SCORE,
                "          - block_id: a1\n            criterion: correctness\n            score: 4\n            rationale: again\n          - block_id: a1\n            criterion: correctness\n            score: 4\n",
            ),
            Expect::Noted,
        ),
        case(
            DEMO,
            "a score given twice with different values",
            ANALYST,
            (
                SCORE,
                "          - block_id: a1\n            criterion: correctness\n            score: 2\n            rationale: x\n          - block_id: a1\n            criterion: correctness\n            score: 4\n",
            ),
            Expect::NeverAsked("scores"),
        ),
    ]);
}

#[test]
fn issue_59_a_writing_reviews_slips_cost_one_item() {
    const DEMO: &str = "review-writing";
    check(&[
        case(
            DEMO,
            "a closed-set word misspelt",
            ("critic", "critique", None),
            ("            type: tone", "            type: tonne"),
            Expect::Noted,
        ),
        case(
            DEMO,
            "a closed-set word out of the set",
            ("critic", "critique", None),
            ("            type: tone", "            type: grammar"),
            Expect::LeftOut("critique item c5"),
        ),
        case(
            DEMO,
            "a score out of range",
            ("judge.aesthete", "rewrites", None),
            ("clarity: 3\\n  structure: 2", "clarity: 9\\n  structure: 2"),
            Expect::NeverAsked("score clarity"),
        ),
        case(
            DEMO,
            "a change's type out of the set",
            ("synthesizer", "merge", None),
            ("    type: evidence\\n", "    type: grammar\\n"),
            Expect::LeftOut("change"),
        ),
    ]);
}

#[test]
fn issue_59_the_quick_modes_slips_cost_one_item() {
    check(&[case(
        "quick-challenge",
        "two bottom lines that differ",
        ("critic", "challenge", None),
        (
            "        Bottom line: The position",
            "        Bottom line: It does not hold at all.\n\n        Bottom line: The position",
        ),
        Expect::LeftOut("bottom line"),
    )]);
    check(&[case(
        "quick-panel",
        "a reading given twice with different numbers",
        ("judge.analyst", "reviews", None),
        ("        rigour: 3", "        rigour: 3\n        rigour: 8"),
        Expect::NeverAsked("reading on rigour"),
    )]);
    const RED_TEAM: (&str, &str, Option<u32>) = ("critic", "red-team", None);
    check(&[
        case(
            "quick-redteam",
            "a closed-set word out of the set",
            RED_TEAM,
            ("severity: high", "severity: EXTREME"),
            Expect::LeftOut("finding v2"),
        ),
        case(
            "quick-redteam",
            "a closed-set word misspelt",
            RED_TEAM,
            ("severity: medium", "severity: meduim"),
            Expect::Noted,
        ),
        case(
            "quick-redteam",
            "a stray key",
            RED_TEAM,
            (
                "severity: critical",
                "severity: critical\n            cvss: 9.8",
            ),
            Expect::Noted,
        ),
    ]);
}

#[test]
fn issue_59_a_councils_slips_cost_one_item() {
    const DEMO: &str = "council-webhooks";
    const SECURITY: (&str, &str, Option<u32>) = ("expert.security", "independent", None);
    const FIRST: &str = "{\"id\": \"security-1\", \"severity\": \"HIGH\", ";
    const PERFORMANCE: (&str, &str, Option<u32>) = ("expert.performance", "final", None);
    const STANCE: &str = "{\"id\": \"F004\", \"stance\": \"endorse\"}";
    check(&[
        case(
            DEMO,
            "a missing field",
            SECURITY,
            (FIRST, "{\"id\": \"security-1\", "),
            Expect::LeftOut("finding F001"),
        ),
        case(
            DEMO,
            "a closed-set word out of the set",
            SECURITY,
            ("\"severity\": \"MEDIUM\"", "\"severity\": \"EXTREME\""),
            Expect::LeftOut("finding F002"),
        ),
        case(
            DEMO,
            "a key given twice the same",
            SECURITY,
            (
                FIRST,
                "{\"id\": \"security-1\", \"severity\": \"HIGH\", \"severity\": \"HIGH\", ",
            ),
            Expect::Noted,
        ),
        case(
            DEMO,
            "a key given twice with different values",
            SECURITY,
            (
                FIRST,
                "{\"id\": \"security-1\", \"severity\": \"HIGH\", \"severity\": \"LOW\", ",
            ),
            Expect::LeftOut("finding F001"),
        ),
        case(
            DEMO,
            "a devil's-advocate challenge without its text",
            ("devil-advocate", "challenge", Some(1)),
            (
                "\"challenge\": \"Line 14 already uses hmac.Equal, which compares in constant time; the timing attack this finding describes does not apply to this code.\",",
                "",
            ),
            Expect::LeftOut("challenge of F001"),
        ),
        case(
            DEMO,
            "a stance misspelt",
            PERFORMANCE,
            (STANCE, "{\"id\": \"F004\", \"stance\": \"endrose\"}"),
            Expect::Noted,
        ),
        case(
            DEMO,
            "a stance out of the set",
            PERFORMANCE,
            (STANCE, "{\"id\": \"F004\", \"stance\": \"maybe\"}"),
            Expect::LeftOut("stance on F004"),
        ),
        case(
            DEMO,
            "a stance on a finding that does not exist",
            PERFORMANCE,
            (STANCE, "{\"id\": \"F099\", \"stance\": \"endorse\"}"),
            Expect::LeftOut("stance on F099"),
        ),
        case(
            DEMO,
            "an id given twice with different words",
            PERFORMANCE,
            (
                STANCE,
                "{\"id\": \"F004\", \"stance\": \"endorse\"}, {\"id\": \"F004\", \"stance\": \"dispute\"}",
            ),
            Expect::LeftOut("stance on F004"),
        ),
    ]);
}

#[test]
fn issue_59_a_planning_debates_slips_cost_one_item() {
    const DEMO: &str = "plan-tenant-export";
    const CRITIC: (&str, &str, Option<u32>) = ("critic", "critique", Some(1));
    const PLANNER: (&str, &str, Option<u32>) = ("planner", "respond", Some(1));
    check(&[
        case(
            DEMO,
            "a closed-set word out of the set",
            CRITIC,
            ("Severity: HIGH", "Severity: EXTREME"),
            Expect::LeftOut("Challenge 2"),
        ),
        case(
            DEMO,
            "a closed-set word misspelt",
            CRITIC,
            ("Severity: MEDIUM", "Severity: MEDUIM"),
            Expect::Noted,
        ),
        case(
            DEMO,
            "a missing field",
            CRITIC,
            (
                "        Evidence: \"requests time out at the load balancer after 60 s\" — export-notes.md.\n",
                "",
            ),
            Expect::LeftOut("Challenge 2"),
        ),
        case(
            DEMO,
            "a check of an assumption that does not exist",
            CRITIC,
            ("- U1: [VERIFIED]", "- U9: [VERIFIED]"),
            Expect::LeftOut("check of U9"),
        ),
        case(
            DEMO,
            "a marker misspelt",
            CRITIC,
            ("- U2: [UNVERIFIED]", "- U2: [UNVERIFID]"),
            Expect::Noted,
        ),
        case(
            DEMO,
            "a decision word misspelt",
            PLANNER,
            ("- C3: accept", "- C3: acept"),
            Expect::Noted,
        ),
        case(
            DEMO,
            "an answer to a challenge never raised, and one answered twice",
            PLANNER,
            (
                "- C3: accept — keep COPY",
                "- C3: reject — no.\n        - C9: accept — something never raised.\n        - C3: accept — keep COPY",
            ),
            Expect::LeftOut("response to C3"),
        ),
        case(
            DEMO,
            "a reference to an item never raised",
            ("optimizer", "optimize", Some(1)),
            (
                "        Priority: HIGH\n",
                "        Priority: HIGH\n        Resolves: C9\n",
            ),
            Expect::LeftOut("Improvement 1's Resolves"),
        ),
    ]);
}

#[test]
fn issue_59_a_root_cause_analysis_slips_cost_one_item() {
    const DEMO: &str = "rca-latency";
    const CRITIC: (&str, &str, Option<u32>) = ("critic", "challenge", Some(1));
    const BETA: (&str, &str, Option<u32>) = ("debugger.beta", "answers", Some(1));
    check(&[
        case(
            DEMO,
            "a closed-set word misspelt",
            CRITIC,
            ("test: timeline", "test: timelnie"),
            Expect::Noted,
        ),
        case(
            DEMO,
            "a closed-set word out of the set",
            CRITIC,
            ("test: culprit_change", "test: vibes"),
            Expect::LeftOut("challenge to H1"),
        ),
        case(
            DEMO,
            "a missing field",
            CRITIC,
            (
                "            why: \"If CPU were saturated, the checkout pods would be throttled and every endpoint would slow, not checkout alone.\"\n",
                "",
            ),
            Expect::LeftOut("challenge to H3"),
        ),
        case(
            DEMO,
            "an answer to a challenge never put",
            BETA,
            (
                "          - challenge: X3.1\n",
                "          - challenge: X9.9\n",
            ),
            Expect::LeftOut("answer to X9.9"),
        ),
        case(
            DEMO,
            "an answer without its text",
            BETA,
            (
                "            answer: \"Node pool b CPU peaked",
                "            answr: \"Node pool b CPU peaked",
            ),
            Expect::LeftOut("answer to X3.1"),
        ),
        case(
            DEMO,
            "a ruling out of the set",
            ("critic", "challenge", Some(2)),
            ("ruling: contradicted", "ruling: unknown-word"),
            Expect::LeftOut("ruling on X3.1"),
        ),
        case(
            DEMO,
            "a ruling on a challenge nobody answered",
            ("critic", "challenge", Some(3)),
            (
                "        - text: \"```\\n\"",
                "        - text: \"  - challenge: X1.1\\n    ruling: resolved\\n    reason: said again\\n```\\n\"",
            ),
            Expect::Noted,
        ),
    ]);
}

// ---- the property --------------------------------------------------------------

/// Edits per demo the property makes: a bounded count, so CI runs it.
const EDITS_PER_DEMO: usize = 6;

/// The property's seed: fixed, so a failure is the same on every run.
const SEED: u64 = 59;

/// Every built-in demo of a single protocol and mode.
const ALL_DEMOS: [&str; 12] = [
    "billing-event-sourcing",
    "review-comparative",
    "review-writing",
    "quick-challenge",
    "quick-panel",
    "quick-premortem",
    "quick-redteam",
    "quick-adversary",
    "council-webhooks",
    "council-brainstorm",
    "plan-tenant-export",
    "rca-latency",
];

/// The demos whose agents answer in prose alone: nothing of theirs is an
/// item to slip.
const PROSE_ONLY: [&str; 2] = ["quick-premortem", "quick-adversary"];

/// Words of closed sets an answer may use, and ids it may name: what an
/// edit misspells, swaps out or invents.
const CLOSED_KEYS: [&str; 12] = [
    "type",
    "flaw_type",
    "severity",
    "change_type",
    "criterion",
    "test",
    "ruling",
    "stance",
    "proposal_type",
    "maturity",
    "Severity",
    "Priority",
];
const ID_KEYS: [&str; 8] = [
    "id",
    "block_id",
    "target_block",
    "addresses_critique",
    "finding_id",
    "hypothesis",
    "challenge",
    "proposal_id",
];

/// One single-item edit of a script: the line it changes (in the whole
/// file) and what it becomes (several lines, or none).
#[derive(Clone, Debug)]
struct Edit {
    line: usize,
    becomes: Vec<String>,
    what: String,
}

/// Every single-item edit of `script`'s `text: |` replies: inside their
/// fenced blocks, a field of a list item (indented past the list) deleted,
/// given twice the same or with another value, its closed-set word
/// misspelt or put out of the set, its id invented; a plan's labelled
/// field deleted or its level put out of the set; a reply's closing fence
/// dropped when it ends the reply.
fn edits_of(script: &str) -> Vec<Edit> {
    let lines: Vec<&str> = script.lines().collect();
    let field = regex::Regex::new(r"^(\s+)([A-Za-z_]+): (.+)$").unwrap();
    let json_pair = regex::Regex::new(r#""([a-z_]+)": "([^"\\]*)""#).unwrap();
    let mut edits = Vec::new();
    let mut in_text = false;
    let mut text_indent = 0;
    let mut fence: Option<(usize, bool)> = None;
    for (index, line) in lines.iter().enumerate() {
        let indent = line.len() - line.trim_start().len();
        if line.trim_end().ends_with("text: |") {
            in_text = true;
            text_indent = indent;
            fence = None;
            continue;
        }
        if in_text && !line.trim().is_empty() && indent <= text_indent {
            in_text = false;
        }
        if !in_text {
            continue;
        }
        let body = line.trim_start();
        if body.starts_with("```") {
            match fence {
                None => fence = Some((indent, body.contains("json"))),
                Some(_) => {
                    let last = lines[index + 1..]
                        .iter()
                        .find(|next| !next.trim().is_empty())
                        .is_none_or(|next| next.len() - next.trim_start().len() <= text_indent);
                    if last {
                        edits.push(Edit {
                            line: index,
                            becomes: Vec::new(),
                            what: "the closing fence dropped".into(),
                        });
                    }
                    fence = None;
                }
            }
            continue;
        }
        let Some((fence_indent, json)) = fence else {
            // A challenge's bottom line, given twice.
            if body.starts_with("Bottom line:") {
                edits.push(Edit {
                    line: index,
                    becomes: vec![line.to_string(), String::new(), line.to_string()],
                    what: "the bottom line given twice the same".into(),
                });
                edits.push(Edit {
                    line: index,
                    becomes: vec![
                        format!("{}Bottom line: It does not hold.", &line[..indent]),
                        String::new(),
                        line.to_string(),
                    ],
                    what: "two bottom lines that differ".into(),
                });
            }
            // A reviewer's reading of one lens, given twice.
            if let Some(caps) = field.captures(line)
                && ["elegance", "clarity", "rigour"].contains(&&caps[2])
            {
                edits.push(Edit {
                    line: index,
                    becomes: vec![line.to_string(), format!("{}{}: 10", &caps[1], &caps[2])],
                    what: format!("the reading on {} given twice", &caps[2]),
                });
            }
            // A planning debate's labelled fields, outside any fence.
            if let Some(caps) = field.captures(line)
                && ["Severity", "Priority", "Evidence", "Problem", "Benefit"].contains(&&caps[2])
            {
                edits.push(Edit {
                    line: index,
                    becomes: Vec::new(),
                    what: format!("{} deleted", &caps[2]),
                });
                if ["Severity", "Priority"].contains(&&caps[2]) {
                    edits.push(Edit {
                        line: index,
                        becomes: vec![format!("{}{}: EXTREME", &caps[1], &caps[2])],
                        what: format!("{} out of the set", &caps[2]),
                    });
                }
            }
            continue;
        };
        if json {
            for caps in json_pair.captures_iter(line) {
                let (key, value) = (&caps[1], &caps[2]);
                let whole = caps.get(0).unwrap().as_str();
                let mut push = |to: String, what: String| {
                    edits.push(Edit {
                        line: index,
                        becomes: vec![line.replacen(whole, &to, 1)],
                        what,
                    });
                };
                if CLOSED_KEYS.contains(&key) {
                    push(
                        format!("\"{key}\": \"zzz\""),
                        format!("{key} out of the set"),
                    );
                    push(
                        format!("{whole}, \"{key}\": \"{value}\""),
                        format!("{key} given twice the same"),
                    );
                }
                if ID_KEYS.contains(&key) && !value.is_empty() {
                    push(
                        format!("\"{key}\": \"{value}99\""),
                        format!("{key} invented"),
                    );
                }
            }
            continue;
        }
        let Some(caps) = field.captures(line) else {
            continue;
        };
        let (spaces, key, value) = (&caps[1], &caps[2], caps[3].trim());
        let nested = spaces.len() >= fence_indent + 4;
        let continues = value.ends_with('|')
            || value.ends_with('>')
            || value.starts_with('"') && !value.ends_with('"');
        if !nested || continues {
            continue;
        }
        if CLOSED_KEYS.contains(&key) && value.chars().all(|c| c.is_ascii_alphabetic() || c == '_')
        {
            let mut misspelt: Vec<char> = value.chars().collect();
            if misspelt.len() >= 6 {
                misspelt.swap(2, 3);
                edits.push(Edit {
                    line: index,
                    becomes: vec![line.replacen(value, &misspelt.iter().collect::<String>(), 1)],
                    what: format!("{key} misspelt"),
                });
            }
            edits.push(Edit {
                line: index,
                becomes: vec![line.replacen(value, "zzz", 1)],
                what: format!("{key} out of the set"),
            });
        }
        if ID_KEYS.contains(&key) {
            edits.push(Edit {
                line: index,
                becomes: vec![line.replacen(value, &format!("{value}99"), 1)],
                what: format!("{key} invented"),
            });
        }
        if !line.trim_start().starts_with("- ") {
            edits.push(Edit {
                line: index,
                becomes: Vec::new(),
                what: format!("{key} deleted"),
            });
            edits.push(Edit {
                line: index,
                becomes: vec![line.to_string(), line.to_string()],
                what: format!("{key} given twice the same"),
            });
            edits.push(Edit {
                line: index,
                becomes: vec![line.to_string(), format!("{spaces}{key}: another value")],
                what: format!("{key} given twice with another value"),
            });
        }
    }
    edits
}

/// `script` with `edit` made.
fn apply(script: &str, edit: &Edit) -> String {
    let mut lines: Vec<String> = script.lines().map(str::to_string).collect();
    lines.splice(edit.line..=edit.line, edit.becomes.iter().cloned());
    lines.join("\n") + "\n"
}

/// Issue 59's property: random single-item edits of every demo's scripted
/// answers never end a run in failure, and never change its exit code,
/// verdict, rule or opening unless its deliverable says what could not be
/// read. Fixed seed, [`EDITS_PER_DEMO`] edits a demo.
#[test]
fn issue_59_one_edited_item_never_fails_a_run_nor_changes_it_unsaid() {
    // `QUORUM_SLIP_SEED` and `QUORUM_SLIP_EDITS` try other edits locally.
    let number = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let mut rng = fastrand::Rng::with_seed(number("QUORUM_SLIP_SEED").unwrap_or(SEED));
    let per_demo = number("QUORUM_SLIP_EDITS").map_or(EDITS_PER_DEMO, |n| n as usize);
    let mut failures = Vec::new();
    let mut tried: BTreeMap<&str, usize> = BTreeMap::new();
    for name in ALL_DEMOS {
        let script = demo(name);
        let clean = run(&script);
        assert_ne!(clean.ending.code, 1, "{name}: {}", clean.ran.stderr);
        let edits = edits_of(&script);
        // A pre-mortem's and an adversary's answers are prose: no item of
        // theirs is read, so none can slip.
        if edits.is_empty() {
            assert!(PROSE_ONLY.contains(&name), "{name} offers nothing to edit");
            continue;
        }
        for _ in 0..per_demo {
            let edit = &edits[rng.usize(..edits.len())];
            *tried.entry(name).or_default() += 1;
            let outcome = run(&apply(&script, edit));
            let label = format!("{name}, line {}: {}", edit.line + 1, edit.what);
            if outcome.ending.code == 1 {
                failures.push(format!("{label}: exit 1\n{}", outcome.ran.stderr));
            } else if outcome.ending != clean.ending && outcome.unread.is_none() {
                failures.push(format!(
                    "{label}: ended {:?} where the demo ended {:?}, and the deliverable does not say what could not be read",
                    outcome.ending, clean.ending
                ));
            }
        }
    }
    assert_eq!(tried.len(), ALL_DEMOS.len() - PROSE_ONLY.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
