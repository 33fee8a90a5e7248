//! RF-05 on every deliverable quorum writes itself: a verdict or status
//! word (`CONCERNS`, `SURVIVED`, `ADOPT`, …) is defined where a reader
//! first meets it, in the sentence itself, not left for the reader to look
//! up. Checked on the real binary, on every protocol's demo, so a writer
//! that starts using a term bare fails here.
use crate::support;

use support::run::{Sandbox, only_run};

/// The words quorum's deliverables use as terms of art.
const TERMS: [&str; 12] = [
    "ADOPT",
    "REVISE",
    "REJECT",
    "ESCALATE",
    "PASS",
    "CONCERNS",
    "FAIL",
    "SURVIVED",
    "WEAKENED",
    "ELIMINATED",
    "PROVEN",
    "UNPROVEN",
];

/// The terms of `text` whose first use is bare: a whole word in capitals
/// not followed by its meaning, in brackets (`ADOPT (…)`), after a colon
/// (`ADOPT: …`), or as a bold lead that the next sentence explains
/// (`**CONCERNS.** This can go ahead only…`).
fn undefined_terms(text: &str) -> Vec<String> {
    let mut bare = Vec::new();
    for term in TERMS {
        let first = text.match_indices(term).find(|(at, _)| {
            let before = text[..*at].chars().next_back();
            let after = text[at + term.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        });
        let Some((at, _)) = first else {
            continue;
        };
        let rest = text[at + term.len()..].trim_start_matches(['*', '`']);
        let defined = rest.starts_with(" (")
            || rest.starts_with(':')
            || (rest.starts_with(".**") || rest.starts_with(".")) && {
                let next = rest.trim_start_matches(['.', '*']).trim_start();
                next.chars().next().is_some_and(char::is_uppercase) && text[..at].ends_with("**")
            };
        if !defined {
            let line = text[..at].rsplit('\n').next().unwrap_or_default();
            bare.push(format!("{term} in \"{line}{term}…\""));
        }
    }
    bare
}

/// The check is not empty: a bare use is found, a defined one is not.
#[test]
fn rf_05_the_check_finds_a_bare_term() {
    assert_eq!(
        undefined_terms("A high one keeps the council from PASS until someone settles it."),
        ["PASS in \"A high one keeps the council from PASS…\""]
    );
    assert!(undefined_terms("**Go ahead (ADOPT: the proposal is strong).**").is_empty());
    assert!(undefined_terms("**CONCERNS.** This can go ahead only once…").is_empty());
    assert!(undefined_terms("Each ended SURVIVED (every challenge resolved).").is_empty());
    assert!(
        undefined_terms("PASSWORD resets").is_empty(),
        "whole words only"
    );
}

/// RF-05: every protocol's demo deliverable defines each term where it is
/// first used.
#[test]
fn rf_05_every_deliverable_quorum_writes_defines_its_terms_inline() {
    let sandbox = Sandbox::new();
    let demos: [(&str, &[&str], &str); 6] = [
        ("architecture", &[], "summary.md"),
        ("comparative", &["--mode", "comparative"], "summary.md"),
        ("writing", &["--mode", "writing"], "summary.md"),
        ("council", &["--protocol", "council"], "summary.md"),
        (
            "brainstorm",
            &["--protocol", "council", "--mode", "brainstorm"],
            "summary.md",
        ),
        ("rca", &["--protocol", "rca"], "summary.md"),
    ];
    for (name, extra, deliverable) in demos {
        let out = sandbox.path().join(name);
        let mut args = vec!["demo", "--headless", "--speed", "50", "--out"];
        args.push(out.to_str().unwrap());
        args.extend_from_slice(extra);
        sandbox.quorum(&args, &[]);
        let dir = only_run(&out);
        let text = std::fs::read_to_string(dir.join(deliverable)).unwrap();
        assert_eq!(
            undefined_terms(&text),
            Vec::<String>::new(),
            "{name}: {deliverable}\n{text}"
        );
    }
}
