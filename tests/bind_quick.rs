//! The moderator's word binds the quick modes (issue 26), on the real
//! binary: the red team's demo gives a report that follows any triage of
//! its six findings; quorum's own lists of the findings come from the
//! rulings; a synthesizer that goes against the rulings, narrates the
//! process or passes a verdict is asked once more, and what it still gets
//! wrong is said at the top of the document and in the end-of-run message.
//! The modes without a triage have nothing to rule on, and their documents
//! do not move with `--moderation`.

use crate::support;

use std::path::{Path, PathBuf};

use support::run::{Ran, Sandbox, only_run, quorum_in};

/// The red-team demo's findings: id, severity, title as the critic listed
/// it, and words only the opening that leads with it uses.
const FINDINGS: [(&str, &str, &str, &str); 6] = [
    (
        "v1",
        "critical",
        "Reset and sign-in links are built from the attacker-controlled Host header",
        "Anyone on the internet can take over any account",
    ),
    (
        "v2",
        "high",
        "A password reset does not end existing sessions or other outstanding tokens",
        "keeps it after the customer resets their password",
    ),
    (
        "v3",
        "high",
        "Reset tokens are sent to Segment and Intercom from the reset page",
        "Live password-reset links leak to two outside companies",
    ),
    (
        "v4",
        "medium",
        "Sign-in by GET lets email scanners use up links and enables login CSRF",
        "Opening a sign-in link is enough to sign in",
    ),
    (
        "v5",
        "medium",
        "Account enumeration and email flooding through the request endpoints",
        "Anyone can find out which email addresses belong",
    ),
    (
        "v6",
        "low",
        "Token lookup leaks timing that allows the token to be guessed byte by byte",
        "The one weakness that stands is minor",
    ),
];

/// A run's deliverable, its stdout and its folder.
struct Report {
    ran: Ran,
    dir: PathBuf,
    text: String,
}

/// Runs `quorum demo --protocol MODE --headless` into its own folder under
/// the sandbox, deciding items from `stdin` (`--moderation ask`) or by
/// `policy`.
fn demo(sandbox: &Sandbox, mode: &str, label: &str, moderation: Moderation<'_>) -> Report {
    let out = sandbox.path().join(format!("out-{label}"));
    let mut args = vec![
        "demo",
        "--protocol",
        mode,
        "--headless",
        "--speed",
        "1000",
        "--out",
        out.to_str().unwrap(),
        "--moderation",
    ];
    let stdin = match moderation {
        Moderation::Policy(policy) => {
            args.push(policy);
            None
        }
        Moderation::Ask(lines) => {
            args.push("ask");
            Some(lines)
        }
    };
    let ran = quorum_in(sandbox.path(), &args, &[], stdin);
    ran.assert_code(0);
    let dir = only_run(&out);
    let deliverable = match mode {
        "redteam" => "red-team-report.md",
        "panel" => "panel-review.md",
        "premortem" => "pre-mortem.md",
        "adversary" => "architecture-challenge.md",
        _ => "transcript.md",
    };
    let text = read(&dir, deliverable);
    Report { ran, dir, text }
}

enum Moderation<'a> {
    Policy(&'a str),
    Ask(&'a str),
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|_| panic!("{name} is written"))
}

/// One `--moderation ask` line per finding: `a`, `r` (with a note) or `d`.
fn answers(decisions: &[char; 6]) -> String {
    decisions
        .iter()
        .map(|decision| match decision {
            'r' => "r: not a real weakness here\n".to_string(),
            other => format!("{other}\n"),
        })
        .collect()
}

/// The text of the `## {heading}` section of `document`, empty if absent.
fn section<'a>(document: &'a str, heading: &str) -> &'a str {
    let marker = format!("\n## {heading}\n");
    let Some(start) = document.find(&marker) else {
        return "";
    };
    let rest = &document[start + marker.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// The paragraph after the title: the deliverable's opening.
fn opening(document: &str) -> &str {
    document.split("\n\n").nth(1).unwrap_or_default()
}

/// Every finding of the red-team demo appears in its report as its ruling
/// says: described (and listed as standing) when accepted, described as
/// unconfirmed (and listed as open) when deferred, described nowhere (and
/// listed as set aside) when rejected; and quorum had nothing to warn of.
fn assert_follows(report: &str, decisions: &[char; 6], label: &str) {
    let standing = section(report, "Findings that stand");
    let set_aside = section(report, "Findings set aside");
    assert!(!standing.is_empty(), "{label}: quorum lists what stands");
    assert!(
        !report.contains("**Warning:**"),
        "{label}: the demo follows its rulings, so quorum has nothing to warn of:\n{report}"
    );
    for ((id, severity, title, _), decision) in FINDINGS.iter().zip(decisions) {
        let tag = format!("[{id}]");
        let described: Vec<&str> = report.lines().filter(|line| line.contains(&tag)).collect();
        match decision {
            'a' => {
                assert!(
                    described.iter().any(|line| !line.contains("unconfirmed")),
                    "{label}: accepted {id} is described as confirmed:\n{report}"
                );
                assert!(
                    standing.contains(&format!("- **{title}** ({severity}, confirmed)")),
                    "{label}: {id} stands:\n{standing}"
                );
                assert!(!set_aside.contains(title), "{label}: {id} not set aside");
            }
            'd' => {
                assert!(
                    !described.is_empty()
                        && described.iter().all(|line| line.contains("unconfirmed")),
                    "{label}: deferred {id} is described as unconfirmed:\n{report}"
                );
                assert!(
                    standing.contains(&format!("- **{title}** ({severity}, open, not confirmed)")),
                    "{label}: {id} is open:\n{standing}"
                );
                assert!(!set_aside.contains(title), "{label}: {id} not set aside");
            }
            _ => {
                assert!(
                    described.is_empty(),
                    "{label}: rejected {id} is described nowhere:\n{described:?}"
                );
                assert!(
                    !standing.contains(title),
                    "{label}: rejected {id} does not stand:\n{standing}"
                );
                assert!(
                    set_aside.contains(&format!("- **{title}** ({severity}): not a real weakness")),
                    "{label}: {id} is set aside with the note:\n{set_aside}"
                );
            }
        }
    }
}

/// Conformance, red team: from every finding accepted, flipping any one
/// finding to rejected or to deferred changes the report, and the report
/// still follows every ruling (the demo honours any triage; quorum's lists
/// come from the rulings).
#[test]
fn conformance_red_team_each_ruling_moves_the_report() {
    let sandbox = Sandbox::new();
    let all = ['a'; 6];
    let base = demo(&sandbox, "redteam", "base", Moderation::Ask(&answers(&all)));
    assert_follows(&base.text, &all, "all accepted");
    for index in 0..6 {
        for flipped in ['r', 'd'] {
            let mut decisions = all;
            decisions[index] = flipped;
            let label = format!("{} {flipped}", FINDINGS[index].0);
            let run = demo(
                &sandbox,
                "redteam",
                &label.replace(' ', "-"),
                Moderation::Ask(&answers(&decisions)),
            );
            assert_ne!(run.text, base.text, "{label}: the ruling moves the report");
            assert_follows(&run.text, &decisions, &label);
        }
    }
}

/// Issue 26, done means: the red-team demo under `--moderation reject`
/// lists no standing vulnerability, in the synthesizer's sections or in
/// quorum's; every finding is listed once, as set aside.
#[test]
fn a_red_team_under_moderation_reject_lists_no_standing_vulnerability() {
    let sandbox = Sandbox::new();
    let run = demo(&sandbox, "redteam", "reject", Moderation::Policy("reject"));
    let report = &run.text;
    assert!(
        section(report, "Findings that stand")
            .contains("None: the moderator set aside every finding"),
        "{report}"
    );
    assert!(
        section(report, "Vulnerabilities, most severe first")
            .trim()
            .starts_with("None stands."),
        "{report}"
    );
    for (id, severity, title, _) in FINDINGS {
        assert!(!report.contains(&format!("[{id}]")), "{id}:\n{report}");
        assert_eq!(
            report.matches(title).count(),
            1,
            "{id} is named once, as set aside:\n{report}"
        );
        assert!(
            section(report, "Findings set aside").contains(&format!("- **{title}** ({severity})"))
        );
    }
    assert!(!report.contains("**Warning:**"), "{report}");
    assert!(
        run.ran.stdout.starts_with("None of the weaknesses"),
        "{}",
        run.ran.stdout
    );
}

/// RF-14, end to end: the report leads with the most severe finding still
/// standing, whichever the moderator set aside, and passes no verdict.
#[test]
fn rf_14_the_red_team_report_leads_with_the_most_severe_finding_standing() {
    let sandbox = Sandbox::new();
    for rejected in 0..=6 {
        let mut decisions = ['a'; 6];
        for decision in decisions.iter_mut().take(rejected) {
            *decision = 'r';
        }
        let run = demo(
            &sandbox,
            "redteam",
            &format!("lead-{rejected}"),
            Moderation::Ask(&answers(&decisions)),
        );
        let lead = opening(&run.text);
        let expected = FINDINGS
            .get(rejected)
            .map_or("None of the weaknesses", |finding| finding.3);
        assert!(
            lead.starts_with(expected) || lead.contains(expected),
            "{rejected} rejected: the opening leads with {expected:?}:\n{lead}"
        );
        for (_, _, _, other) in FINDINGS.iter().skip(rejected + 1) {
            assert!(!lead.contains(other), "one finding leads: {lead}");
        }
        assert_no_verdict(lead);
        assert!(
            run.ran.stdout.starts_with(lead),
            "RF-07: {}",
            run.ran.stdout
        );
    }
}

fn assert_no_verdict(text: &str) {
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        assert!(
            !["ADOPT", "REVISE", "REJECT", "ESCALATE", "PASS", "FAIL"].contains(&word)
                && !word.eq_ignore_ascii_case("verdict"),
            "no verdict: {text}"
        );
    }
}

/// Conformance, the modes with no triage (challenge, panel, pre-mortem,
/// architecture challenge): their demos put nothing before the moderator,
/// and their documents do not move with `--moderation`.
#[test]
fn conformance_modes_without_items_do_not_move_with_moderation() {
    let sandbox = Sandbox::new();
    for mode in ["challenge", "panel", "premortem", "adversary"] {
        let accepted = demo(
            &sandbox,
            mode,
            &format!("{mode}-a"),
            Moderation::Policy("accept"),
        );
        let rejected = demo(
            &sandbox,
            mode,
            &format!("{mode}-r"),
            Moderation::Policy("reject"),
        );
        let yaml = read(&rejected.dir, "debate.yaml");
        assert!(!yaml.contains("findings:"), "{mode}: nothing to rule on");
        assert!(
            !read(&rejected.dir, "transcript.md").contains("needs moderator"),
            "{mode}"
        );
        if mode == "challenge" {
            let result = |ran: &Ran| {
                ran.stdout
                    .split("\n\nFull record: ")
                    .next()
                    .unwrap()
                    .to_string()
            };
            assert_eq!(result(&accepted.ran), result(&rejected.ran), "{mode}");
        } else {
            assert_eq!(accepted.text, rejected.text, "{mode}");
        }
    }
}

// ---- quorum checks what the synthesizer wrote --------------------------------

const PACE: &str = "  pace: { first_token_ms: 5, chars_per_second: 20000, chunk_chars: 40 }\n";

/// A red team with two findings, whose synthesizer describes both whatever
/// the rulings say; `second` is more script (a reply for its second attempt).
fn stubborn_red_team(second: &str) -> String {
    format!(
        r#"protocol: quick
mode: redteam
topic: The password-reset flow
agents:
  default: script
script:
{PACE}  replies:
    - role: critic
      text: |
        Two findings.

        ```yaml
        vulnerabilities:
          - title: Replayable reset links
            severity: high
            exploit: Reuse a leaked link within a day.
          - title: User enumeration
            severity: medium
            exploit: Compare the answers for known and unknown addresses.
        ```
    - role: synthesizer
      text: |
        A leaked reset link can be used again for a whole day.

        ## Vulnerabilities, most severe first

        ### High: replayable reset links [v1]
        Links live for a day.

        ### Medium: user enumeration [v2]
        Known addresses get a different answer.
{second}"#
    )
}

fn run_spec(sandbox: &Sandbox, spec: &str, stdin: Option<&str>) -> (Ran, PathBuf) {
    let path = sandbox.write("spec.yaml", spec);
    let out = sandbox.out();
    let mut args = vec![
        "run",
        path.to_str().unwrap(),
        "--headless",
        "--out",
        out.to_str().unwrap(),
    ];
    if stdin.is_some() {
        args.extend(["--moderation", "ask"]);
    }
    let ran = quorum_in(sandbox.path(), &args, &[], stdin);
    (ran, sandbox.run_dir())
}

/// A report that still describes a rejected finding after one more ask is
/// kept, but says so first, in the document and at the end of the run, and
/// the log says so on screen; the second ask named the discrepancy.
#[test]
fn a_rejected_finding_the_synthesizer_keeps_describing_is_stated_plainly() {
    let sandbox = Sandbox::new();
    let (ran, dir) = run_spec(
        &sandbox,
        &stubborn_red_team(""),
        Some("a\nr: not on this site\n"),
    );
    ran.assert_code(0);
    let report = read(&dir, "red-team-report.md");
    let warning = "the report describes v2 (User enumeration), which the moderator rejected";
    assert!(
        report.starts_with("# Red-team report — The password-reset flow\n\n> **Warning:**"),
        "{report}"
    );
    assert!(report.contains(warning), "{report}");
    assert!(ran.stdout.starts_with("> **Warning:**"), "{}", ran.stdout);
    assert!(ran.stdout.contains(warning), "{}", ran.stdout);
    assert!(
        ran.stderr
            .contains("rulings check: the report describes v2"),
        "{}",
        ran.stderr
    );
    // Quorum's own lists follow the rulings whatever the synthesizer wrote.
    let standing = section(&report, "Findings that stand");
    assert!(standing.contains("**Replayable reset links** (high, confirmed)"));
    assert!(!standing.contains("User enumeration"), "{standing}");
    let set_aside = section(&report, "Findings set aside");
    assert!(set_aside.contains("**User enumeration** (medium): not on this site"));
    assert!(
        set_aside.contains("should have been left out above, and some were not"),
        "the document does not claim what it did not do: {set_aside}"
    );
    let journal = read(&dir, "journal.jsonl");
    let second = journal
        .lines()
        .find(|line| {
            line.contains(r#""call_id":"synthesizer/synthesis/r1/a2""#)
                && line.contains("call_started")
        })
        .expect("the synthesizer is asked once more");
    assert!(second.contains(warning), "{second}");
    assert!(
        !journal.contains("synthesizer/synthesis/r1/a3"),
        "asked once more, not twice"
    );
    let yaml = read(&dir, "debate.yaml");
    assert!(yaml.contains("synthesis_warnings:"), "{yaml}");
}

/// The synthesizer's prompt carries the rulings in the shared section
/// (accepted: address; rejected, with the note: do not act on; deferred:
/// open), and a second attempt that follows them is taken with no warning;
/// the first stays in the transcript.
#[test]
fn a_synthesis_fixed_on_the_second_ask_is_taken_without_a_warning() {
    let sandbox = Sandbox::new();
    let second = "    - role: synthesizer\n      attempt: 2\n      text: |\n        A leaked reset link can be used again for a whole day.\n\n        ## Vulnerabilities, most severe first\n\n        ### High: replayable reset links [v1]\n        Links live for a day.\n";
    let (ran, dir) = run_spec(
        &sandbox,
        &stubborn_red_team(second),
        Some("a\nr: not on this site\n"),
    );
    ran.assert_code(0);
    let report = read(&dir, "red-team-report.md");
    assert!(!report.contains("**Warning:**"), "{report}");
    assert!(!report.contains("[v2]"), "{report}");
    let journal = read(&dir, "journal.jsonl");
    let first = journal
        .lines()
        .find(|line| {
            line.contains(r#""call_id":"synthesizer/synthesis/r1/a1""#)
                && line.contains("call_started")
        })
        .expect("the synthesis started");
    for needle in [
        "## The moderator's rulings",
        "- v1: accepted — address it",
        "- v2: rejected — do not act on it. Moderator's note: not on this site",
    ] {
        assert!(first.contains(needle), "{needle}: {first}");
    }
    assert!(
        read(&dir, "transcript.md").contains("went against the moderator's rulings"),
        "the first answer is kept for the record"
    );
}

/// RF-06, RF-07, RF-08: a synthesis whose opening still narrates the
/// process after its one redo is not printed as the result without a
/// warning, in the document and in the end-of-run message.
#[test]
fn rf_06_rf_08_an_opening_still_narrating_after_its_redo_is_printed_with_a_warning() {
    let sandbox = Sandbox::new();
    let review = |role: &str| {
        format!(
            "    - role: judge.{role}\n      text: \"The {role} likes the table; one concern; one fix.\"\n"
        )
    };
    let spec = format!(
        "protocol: quick\nmode: panel\ntopic: The on-call handbook\nagents:\n  default: script\nscript:\n{PACE}  replies:\n{}{}{}    - role: synthesizer\n      text: |\n        All three reviewers agree the Analyst was right about paging.\n\n        ## Detail\n\n        Paging.\n",
        review("aesthete"),
        review("stylist"),
        review("analyst"),
    );
    let (ran, dir) = run_spec(&sandbox, &spec, None);
    ran.assert_code(0);
    let document = read(&dir, "panel-review.md");
    assert!(
        document.starts_with("# Panel review — The on-call handbook\n\n> **Warning:**"),
        "{document}"
    );
    assert!(
        document.contains(
            "its opening still names how the result was reached (`reviewers`, `Analyst`)"
        ),
        "{document}"
    );
    assert!(ran.stdout.starts_with("> **Warning:**"), "{}", ran.stdout);
    assert!(
        ran.stdout.contains("All three reviewers agree"),
        "{}",
        ran.stdout
    );
    let journal = read(&dir, "journal.jsonl");
    assert!(journal.contains("synthesizer/synthesis/r1/a2"));
    assert!(!journal.contains("synthesizer/synthesis/r1/a3"));
}

/// RF-13, QS-01: a pre-mortem synthesis that passes a verdict is asked
/// again; the second, verdict-free opening is the document's.
#[test]
fn rf_13_a_premortem_opening_with_a_verdict_is_asked_again() {
    let sandbox = Sandbox::new();
    let spec = format!(
        "protocol: quick\nmode: premortem\ntopic: The catalogue migration\nagents:\n  default: script\nscript:\n{PACE}  replies:\n    - role: critic\n      text: \"It failed because the two copies drifted.\"\n    - role: synthesizer\n      text: \"Verdict: FAIL. The migration drifts.\\n\\n## Why\\n\\nDrift.\\n\"\n    - role: synthesizer\n      attempt: 2\n      text: \"The most likely failure is silent drift between the two copies.\\n\\n## Why\\n\\nDrift.\\n\"\n"
    );
    let (ran, dir) = run_spec(&sandbox, &spec, None);
    ran.assert_code(0);
    let document = read(&dir, "pre-mortem.md");
    assert_eq!(
        opening(&document),
        "The most likely failure is silent drift between the two copies."
    );
    let journal = read(&dir, "journal.jsonl");
    let redo = journal
        .lines()
        .find(|line| {
            line.contains(r#""call_id":"synthesizer/synthesis/r1/a2""#)
                && line.contains("call_started")
        })
        .expect("asked again");
    assert!(redo.contains("the verdict word `FAIL`"), "{redo}");
}

// ---- RF-12..15: the deliverable's opening, on the demos ----------------------

/// The sentences of an opening, in order.
fn sentences(text: &str) -> Vec<&str> {
    text.split_inclusive(". ").map(str::trim).collect()
}

/// Which sentence of `opening` first contains `needle`.
fn sentence_with(opening: &str, needle: &str) -> usize {
    sentences(opening)
        .iter()
        .position(|sentence| sentence.contains(needle))
        .unwrap_or_else(|| panic!("no sentence says {needle:?}:\n{opening}"))
}

/// RF-12: the panel review's document opens with what the reviews agree
/// on, then the main disagreement, then the recommendation; no reviewer,
/// score or verdict in it; the end-of-run message is that opening.
#[test]
fn rf_12_the_panel_review_opens_with_consensus_then_disagreement_then_recommendation() {
    let sandbox = Sandbox::new();
    let run = demo(&sandbox, "panel", "panel", Moderation::Policy("accept"));
    assert!(run.text.starts_with("# Panel review — "));
    let lead = opening(&run.text);
    let consensus = sentence_with(lead, "has the right bones");
    let disagreement = sentence_with(lead, "main open question");
    let recommendation = sentence_with(lead, "Fix the order first");
    assert!(
        consensus < disagreement && disagreement < recommendation,
        "{consensus} < {disagreement} < {recommendation}:\n{lead}"
    );
    for label in ["Aesthete", "Stylist", "Analyst", "reviewer", "/5"] {
        assert!(!lead.contains(label), "{label}: {lead}");
    }
    assert_no_verdict(lead);
    assert!(run.ran.stdout.starts_with(lead), "RF-07");
}

/// RF-13: the pre-mortem's document opens with the top failure mode, then
/// its warning sign and the preventive action, with no verdict.
#[test]
fn rf_13_the_premortem_opens_with_the_top_failure_mode_and_no_verdict() {
    let sandbox = Sandbox::new();
    let run = demo(
        &sandbox,
        "premortem",
        "premortem",
        Moderation::Policy("accept"),
    );
    assert!(run.text.starts_with("# Pre-mortem — "));
    let lead = opening(&run.text);
    assert!(
        sentences(lead)[0].starts_with("The most likely way this migration fails is"),
        "{lead}"
    );
    assert!(sentence_with(lead, "early warning sign") > 0);
    assert_no_verdict(lead);
    assert!(run.ran.stdout.starts_with(lead), "RF-07");
}

/// RF-15: the architecture challenge's document opens with the revised
/// position (what the answer to the attack changed: pre-scaling, the
/// read replica), then the tension left open.
#[test]
fn rf_15_the_architecture_challenge_opens_with_the_revised_position() {
    let sandbox = Sandbox::new();
    let run = demo(
        &sandbox,
        "adversary",
        "adversary",
        Moderation::Policy("accept"),
    );
    assert!(run.text.starts_with("# Architecture challenge — "));
    let lead = opening(&run.text);
    let position = sentence_with(lead, "Build the fan-out");
    let revised = sentence_with(lead, "read replica");
    let tension = sentence_with(lead, "What remains in doubt");
    assert_eq!(position, 0, "{lead}");
    assert!(revised < tension, "{lead}");
    for role in ["proposer", "critic", "oracle", "mephistopheles"] {
        assert!(!lead.to_lowercase().contains(role), "{role}: {lead}");
    }
    assert!(run.ran.stdout.starts_with(lead), "RF-07");
}

/// Every `when:` of the quick demos names a finding the red team's critic
/// reports (v1..v6), so no part of a reply hangs on an item that can never
/// be ruled on; only the red team, the one mode with a triage, has any.
#[test]
fn the_quick_demos_condition_only_on_findings_they_report() {
    fn whens(value: &yaml_serde::Value, found: &mut Vec<String>) {
        match value {
            yaml_serde::Value::Mapping(map) => {
                for (key, inner) in map {
                    if key.as_str() == Some("when")
                        && let Some(conditions) = inner.as_mapping()
                    {
                        found.extend(
                            conditions
                                .keys()
                                .filter_map(|id| id.as_str().map(str::to_string)),
                        );
                    }
                    whens(inner, found);
                }
            }
            yaml_serde::Value::Sequence(list) => list.iter().for_each(|inner| whens(inner, found)),
            _ => {}
        }
    }
    let demos = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo");
    for mode in ["challenge", "panel", "premortem", "redteam", "adversary"] {
        let text = std::fs::read_to_string(demos.join(format!("quick-{mode}.yaml"))).unwrap();
        let yaml: yaml_serde::Value = yaml_serde::from_str(&text).unwrap();
        let mut found = Vec::new();
        whens(&yaml, &mut found);
        if mode == "redteam" {
            let known: Vec<&str> = FINDINGS.iter().map(|finding| finding.0).collect();
            assert!(!found.is_empty());
            for id in &found {
                assert!(known.contains(&id.as_str()), "{mode}: `when` names {id}");
            }
        } else {
            assert!(found.is_empty(), "{mode} has nothing to rule on: {found:?}");
        }
    }
}
