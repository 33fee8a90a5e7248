//! Issue 26 for the decision review's writing mode (RULES.md A16): the
//! moderator's rulings on the critic's items bind the rewrites and the
//! merge, and the deliverables say so. On the real binary, with the
//! built-in demo (scripted judges and merge that read the rulings in their
//! prompts) and with a merge that ignores them.

use crate::support;

use std::path::{Path, PathBuf};

use support::run::{Ran, Sandbox};

/// The demo's critique items, each with a phrase the revised text holds
/// only when the item is answered, and one it holds only when it is not
/// (the draft's own wording).
const ITEMS: [(&str, &str, &str); 5] = [
    (
        "c1",
        "Subject: Incident reviews are blameless from 1 March",
        "As many of you will be aware",
    ),
    (
        "c2",
        "it never names a person as the cause",
        "This means people will not be blamed.",
    ),
    (
        "c3",
        "3 repeat incidents in the six months after the change",
        "by 40% at other companies",
    ),
    (
        "c4",
        "What the on-call engineer does:",
        "the new template which is in the wiki",
    ),
    (
        "c5",
        "Ask in #incident-process",
        "Please reach out with any questions.",
    ),
];

fn read(run: &Path, name: &str) -> String {
    std::fs::read_to_string(run.join(name)).unwrap_or_else(|error| panic!("{name}: {error}"))
}

fn run_folder(out: &Path) -> PathBuf {
    std::fs::read_dir(out)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.is_dir())
        .expect("a run folder")
}

/// The writing demo run headless with one decision per item from stdin.
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
            "--mode",
            "writing",
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
    (ran, run_folder(&out))
}

/// The summary's change list, between its heading and the closing section.
fn change_list(summary: &str) -> &str {
    let start = summary
        .find("## What changed and why")
        .unwrap_or_else(|| panic!("no change list in\n{summary}"));
    let end = summary.find("## How this was made").unwrap();
    &summary[start..end]
}

/// Checks one run of the demo against its decisions: every accepted item
/// answered in the revised text and in the change list, every other one
/// left as the draft had it, with no change citing it.
fn assert_follows(decisions: &[&str], ran: &Ran, run: &Path) {
    let revised = read(run, "revised-draft.md");
    let summary = read(run, "summary.md");
    let list = change_list(&summary);
    let debate = read(run, "debate.yaml");
    assert!(
        !summary.contains("against your ruling")
            && !ran.stderr.contains("against your rulings")
            && !debate.contains("against_rulings"),
        "the demo honours every ruling ({decisions:?}):\n{summary}\n{}",
        ran.stderr
    );
    assert!(
        !read(run, "journal.jsonl").contains("synthesizer/merge/r1/a2"),
        "the demo's merge is never asked again ({decisions:?})"
    );
    assert!(
        !summary.contains("**Not in the revised text.**")
            && !summary.contains("not in the revised draft")
            && !debate.contains("not_in_revised_draft"),
        "the demo's revised text bears out every change ({decisions:?}):\n{summary}"
    );
    for (index, (id, answered, untouched)) in ITEMS.iter().enumerate() {
        let context = format!("{id} with {decisions:?}");
        match decisions[index] {
            "a" => {
                assert!(revised.contains(answered), "{context}: answered\n{revised}");
                assert!(!revised.contains(untouched), "{context}\n{revised}");
                assert!(
                    list.contains(&format!("- {id} (accepted): answered.")),
                    "{context}\n{list}"
                );
                assert!(debate.contains(&format!("answers: {id}")), "{context}");
            }
            decision => {
                assert!(
                    !revised.contains(answered),
                    "{context}: no trace of it in the revised text\n{revised}"
                );
                assert!(revised.contains(untouched), "{context}\n{revised}");
                // Every item's location but c1's ("subject line and first
                // paragraph") quotes the draft, and the revised text is
                // checked to still hold that wording (issue 60).
                let said = match (decision, *id) {
                    ("r", "c1") => format!("- {id} (rejected): no change names it, as you ruled"),
                    ("r", _) => format!("- {id} (rejected): no change, as you ruled."),
                    (_, "c1") => {
                        format!("- {id} (deferred): no change names it, left open as you ruled")
                    }
                    _ => format!("- {id} (deferred): left open, as you ruled."),
                };
                assert!(list.contains(&said), "{context}\n{list}");
                assert!(
                    !debate.contains(&format!("answers: {id}")),
                    "{context}: no change names it\n{debate}"
                );
            }
        }
    }
}

/// Issue 26, A16, "Tests that must exist" for the writing mode: for every
/// moderation item of the writing demo, flipping that one ruling (from
/// accepted to rejected, and from rejected to accepted) changes the
/// deliverable accordingly: an accepted item answered and named by its
/// change, a rejected one with no trace in the revised text and "no change,
/// as you ruled" in the change list quorum writes from the rulings.
#[test]
fn a16_flipping_any_one_ruling_of_the_writing_demo_changes_its_deliverable_accordingly() {
    for flipped in 0..ITEMS.len() {
        for (base, flip) in [("a", "r"), ("r", "a")] {
            let decisions: Vec<&str> = (0..ITEMS.len())
                .map(|index| if index == flipped { flip } else { base })
                .collect();
            let sandbox = Sandbox::new();
            let (ran, run) = demo_with(&sandbox, &decisions);
            assert_follows(&decisions, &ran, &run);
        }
    }
}

/// A16: deferred items stay open in the revised text, mixed with accepted
/// and rejected ones; the moderator's note is in the change list.
#[test]
fn a16_the_writing_demo_leaves_deferred_items_open_in_any_mix() {
    for decisions in [["d", "a", "r", "d", "a"], ["a", "d", "d", "r", "d"]] {
        let sandbox = Sandbox::new();
        let mut lines: Vec<String> = decisions.iter().map(|d| d.to_string()).collect();
        lines[0] = format!("{}: ask the leads first", decisions[0]);
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (ran, run) = demo_with(&sandbox, &lines);
        assert_follows(&decisions, &ran, &run);
        let summary = read(&run, "summary.md");
        assert!(
            change_list(&summary).contains("Your note: ask the leads first."),
            "{summary}"
        );
    }
}

/// A spec for a writing review whose merge ignores the rulings: it names
/// c2 whatever the moderator said, and never c1.
const CARELESS: &str = r#"protocol: decision-review
mode: writing
topic: The Friday deploy rule
draft:
  name: friday.md
  text: "We would prefer that deploys do not happen late on Fridays. Ask someone if unsure.\n"
agents:
  default: script
script:
  pace: { first_token_ms: 5, chars_per_second: 20000, chunk_chars: 40 }
  replies:
    - role: critic
      text: |
        ```yaml
        items:
          - location: first sentence
            type: clarity
            severity: major
            text: A preference is not a rule; give the time.
          - location: second sentence
            type: clarity
            severity: minor
            text: Name whom to ask.
        ```
    - role: judge.aesthete
      text: "```yaml\nrewrite: Deploys stop at 16:00 on Fridays.\n```\n"
    - role: judge.stylist
      text: "```yaml\nrewrite: Deploys stop at 16:00 on Fridays.\n```\n"
    - role: judge.analyst
      text: "```yaml\nrewrite: Deploys stop at 16:00 on Fridays.\n```\n"
    - role: synthesizer
      text: |
        ```yaml
        summary: Questions now go to a named channel.
        revised_draft: |
          We would prefer that deploys do not happen late on Fridays. Ask in #deploys if unsure.
        changes:
          - location: second sentence
            type: clarity
            before: Ask someone if unsure.
            after: Ask in #deploys if unsure.
            rationale: A channel is someone to ask.
            answers: c2
        ```
"#;

/// Issue 26, A16: a merge that goes against the rulings (it changes the
/// text for c2, which the moderator rejected, and answers no change to c1,
/// which they accepted) is asked once more with each discrepancy named;
/// when the second answer still goes against them, summary.md says so in
/// its opening and its change list, the log shows it, and debate.yaml keeps
/// it. The run still completes: the text is delivered, not passed as done.
#[test]
fn a16_a_merge_against_the_rulings_is_asked_again_then_stated_plainly() {
    let sandbox = Sandbox::new();
    let spec = sandbox.write("careless.yaml", CARELESS);
    let out = sandbox.out();
    let ran = support::run::quorum_in(
        sandbox.path(),
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--moderation",
            "ask",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
        Some("a\nr: we know who to ask\n"),
    );
    ran.assert_code(0);
    let run = run_folder(&out);
    let journal = read(&run, "journal.jsonl");
    let second = journal
        .lines()
        .find(|line| line.contains("synthesizer/merge/r1/a2") && line.contains("call_started"))
        .expect("asked once more");
    assert!(
        second.contains("the merge changed “second sentence” for c2, which the moderator rejected")
            && second
                .contains("no change answers c1 (first sentence), which the moderator accepted"),
        "{second}"
    );
    assert!(!journal.contains("synthesizer/merge/r1/a3"), "only once");
    assert!(
        ran.stdout.contains("**Against your rulings.**")
            && ran
                .stdout
                .contains("the merge changed “second sentence” for c2, which you rejected"),
        "the end of the run says it:\n{}",
        ran.stdout
    );
    assert!(
        ran.stderr
            .contains("still goes against your rulings after being asked again"),
        "{}",
        ran.stderr
    );
    let summary = read(&run, "summary.md");
    let list = change_list(&summary);
    assert!(
        list.contains("- c1 (accepted): no change answers it, although you accepted it."),
        "{list}"
    );
    assert!(
        list.contains(
            "- c2 (rejected): the merge changed the text for it anyway, against your ruling."
        ) && list.contains("Your note: we know who to ask."),
        "{list}"
    );
    let debate = read(&run, "debate.yaml");
    assert!(
        debate.contains("against_rulings:") && debate.contains("for c2, which you rejected"),
        "{debate}"
    );
    assert!(
        debate.contains("\n  critic:\n    agent: script:scripted\n    role: mephistopheles\n"),
        "the critic is a participant\n{debate}"
    );
    assert!(
        debate.contains("decision: rejected\n") && debate.contains("note: we know who to ask"),
        "{debate}"
    );
    let transcript = read(&run, "transcript.md");
    assert!(
        transcript.contains("(asked again: against the rulings:"),
        "{transcript}"
    );
}

/// A16: `--agent critic=...` seats the writing review's critic, like the
/// architecture mode's: here a critic with no answer ends the run failed,
/// with no revised draft invented (A18).
#[test]
fn a18_the_writing_critic_is_required() {
    let sandbox = Sandbox::new();
    let spec = sandbox.write(
        "silent.yaml",
        &CARELESS.replace(
            "    - role: critic\n      text: |",
            "    - role: critic\n      fault: error\n      error: the provider is down\n      text: |",
        ),
    );
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    assert_ne!(ran.code, 0);
    let run = run_folder(&out);
    let summary = read(&run, "summary.md");
    assert!(summary.contains("**No revised draft.**"), "{summary}");
    assert!(summary.contains("the critic gave no answer"), "{summary}");
    assert!(!run.join("revised-draft.md").exists());
}

/// DR-60, A16, issue 60, on the real binary: a merge whose every change
/// names an accepted item, but whose revised draft keeps the first
/// sentence it claims to replace, is not asked again (its labels follow
/// the rulings), and is never reported as answering that item: the end of
/// the run, the change list and debate.yaml say the text does not show it.
#[test]
fn dr_60_a16_a_labelled_change_the_revised_draft_does_not_show_is_not_answered() {
    let sandbox = Sandbox::new();
    let unshown = CARELESS
        .replace(
            "          - location: second sentence\n            type: clarity\n            before: Ask someone if unsure.",
            "          - location: first sentence\n            type: clarity\n            before: We would prefer that deploys do not happen late on Fridays.\n            after: Deploys stop at 16:00 on Fridays.\n            rationale: A rule, with its time.\n            answers: c1\n          - location: second sentence\n            type: clarity\n            before: Ask someone if unsure.",
        );
    assert_ne!(unshown, CARELESS);
    let spec = sandbox.write("unshown.yaml", &unshown);
    let out = sandbox.out();
    let ran = sandbox.quorum(
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    ran.assert_code(0);
    let run = run_folder(&out);
    assert!(
        !read(&run, "journal.jsonl").contains("synthesizer/merge/r1/a2"),
        "by its labels the merge follows the rulings: not asked again"
    );
    let said = "the change to “first sentence” is labelled as answering c1, but the revised draft still has the old text";
    assert!(
        ran.stdout.contains("**Not in the revised text.**") && ran.stdout.contains(said),
        "the end of the run says it:\n{}",
        ran.stdout
    );
    let summary = read(&run, "summary.md");
    let list = change_list(&summary);
    assert!(
        list.contains("- c1 (accepted): not answered, although you accepted it:")
            && list.contains("- c2 (accepted): answered."),
        "{list}"
    );
    assert!(read(&run, "debate.yaml").contains(said));
}
