//! A debate recorded at the interface, where a round with a malformed judge
//! waits for the person to re-run it or go on, resumed headless: nobody is
//! there to answer, so the round goes on without the judge (the rule a
//! headless run follows from the start), and the debate reaches a verdict.
use crate::support;

use support::run::Sandbox;

#[test]
fn a_held_round_resumed_headless_goes_on_without_the_malformed_judge() {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    sandbox
        .quorum(
            &[
                "demo",
                "--headless",
                "--speed",
                "50",
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        )
        .assert_code(0);
    let dir = sandbox.run_dir();
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let mut lines: Vec<String> = journal.lines().map(str::to_string).collect();
    // As if a person had been at the interface: rounds wait for them.
    lines[0] = lines[0].replace(
        r#""started_at":"#,
        r#""hold_for_moderator":true,"started_at":"#,
    );
    assert!(lines[0].contains("hold_for_moderator"));
    // The last judge of round 1 answered nonsense, and the crash came next.
    let last_judge = lines
        .iter()
        .position(|line| {
            line.contains(r#""type":"call_finished""#) && line.contains("/evaluation/r1/")
        })
        .map(|first| {
            (first..lines.len())
                .take_while(|&index| !lines[index].contains("/revision/r2/"))
                .filter(|&index| {
                    lines[index].contains(r#""type":"call_finished""#)
                        && lines[index].contains("/evaluation/r1/")
                })
                .last()
                .unwrap()
        })
        .unwrap();
    let mut record: serde_json::Value = serde_json::from_str(&lines[last_judge]).unwrap();
    let judge = record["event"]["input"]["call_id"]
        .as_str()
        .unwrap()
        .to_string();
    record["event"]["input"]["output"] = "no scores today".into();
    lines[last_judge] = record.to_string();
    lines.truncate(last_judge + 1);
    std::fs::write(dir.join("journal.jsonl"), lines.join("\n") + "\n").unwrap();

    let resumed = sandbox.quorum(&["resume", dir.to_str().unwrap(), "--headless"], &[]);
    assert!(
        [0, 3].contains(&resumed.code),
        "a verdict\n{}\n{}",
        resumed.stdout,
        resumed.stderr
    );
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let skip = format!(r#""type":"override","call_id":"{judge}","action":"skip""#);
    assert_eq!(
        journal.matches(&skip).count(),
        1,
        "one skip of {judge}:\n{journal}"
    );
    assert!(journal.trim_end().ends_with('}') && journal.contains(r#""event":"finished""#));
}
