//! Answers in the root-cause analysis's formats, for the state-machine and
//! end-to-end tests: a debugger's findings and answers, the critic's
//! rulings and challenges; and the built-in demo moderated on stdin.

use std::path::Path;

use super::run::{Ran, quorum_in};

/// A debugger's findings: one hypothesis per claim, with two pieces of
/// evidence and a line of reasoning.
pub fn findings(claims: &[&str]) -> String {
    let mut yaml = String::from("hypotheses:\n");
    if claims.is_empty() {
        yaml = "hypotheses: []\n".into();
    }
    for claim in claims {
        yaml.push_str(&format!(
            "  - claim: \"{claim}\"\n    evidence:\n      - \"trace 7f3a at 14:02:31\"\n      - \"submit.rs line 212 awaits the fraud call\"\n    reasoning: \"The call blocks the request.\"\n"
        ));
    }
    format!("My findings.\n\n```yaml\n{yaml}```\n")
}

/// A critic answer: rulings `(challenge, word)`, challenges
/// `(hypothesis, critical)`, and an assessment when `recommendation` is set.
pub fn critic(
    rulings: &[(&str, &str)],
    challenges: &[(&str, bool)],
    recommendation: Option<&str>,
) -> String {
    let mut yaml = String::new();
    if !rulings.is_empty() {
        yaml.push_str("rulings:\n");
        for (id, word) in rulings {
            yaml.push_str(&format!(
                "  - challenge: {id}\n    ruling: {word}\n    reason: \"Reason for {id}.\"\n"
            ));
            if *word == "unresolved" {
                yaml.push_str("    missing: \"A timestamp.\"\n    evidence_needed: \"The first slow trace.\"\n    alternative: \"A regional network fault.\"\n");
            }
        }
    }
    if !challenges.is_empty() {
        yaml.push_str("challenges:\n");
        for (hypothesis, critical) in challenges {
            yaml.push_str(&format!(
                "  - hypothesis: {hypothesis}\n    test: timeline\n    critical: {critical}\n    quote: \"the claim of {hypothesis}\"\n    why: \"Minutes apart is not an order.\"\n    evidence_needed: \"Timestamps for {hypothesis}.\"\n    alternative: \"It began before.\"\n"
            ));
        }
    }
    if let Some(recommendation) = recommendation {
        yaml.push_str(&format!(
            "assessment:\n  recommendation: \"{recommendation}\"\n  open_questions: [\"Why no timeout?\"]\n"
        ));
    }
    if yaml.is_empty() {
        yaml = "rulings: []\n".into();
    }
    format!("```yaml\n{yaml}```\n")
}

/// A debugger's answers: `(challenge, None)` concedes it.
pub fn answers(entries: &[(&str, Option<&str>)]) -> String {
    let mut yaml = String::from(if entries.is_empty() {
        "answers: []\n"
    } else {
        "answers:\n"
    });
    for (id, answer) in entries {
        match answer {
            Some(text) => yaml.push_str(&format!(
                "  - challenge: {id}\n    answer: \"{text}\"\n    evidence: [\"trace 1c07e2\"]\n"
            )),
            None => yaml.push_str(&format!("  - challenge: {id}\n    concede: true\n")),
        }
    }
    format!("```yaml\n{yaml}```\n")
}

/// How many moderation items the built-in rca demo asks when every one is
/// accepted, the last being the rival H4 offered to be ruled out.
pub const DEMO_ITEMS: usize = 16;

/// Stdin for the built-in rca demo under `--moderation ask`: a person who
/// delivers every challenge and upholds every ruling, then rules out H4 —
/// the rival left WEAKENED because the log line it cites is not in the
/// log (EV-07) — with a note, so H1 is proven (A28 as revised).
pub fn demo_ruling_out_h4() -> String {
    let mut lines = "a\n".repeat(DEMO_ITEMS - 1);
    lines.push_str(
        "r: the fraud service's p99 is 1.8 to 2.0 s every afternoon; the rollback fixed checkout with the service unchanged\n",
    );
    lines
}

/// The built-in rca demo run headless from `dir` into `out`, its items put
/// on stderr and answered by `answers` on stdin (`--moderation ask`).
pub fn demo_asked(dir: &Path, out: &Path, answers: &str) -> Ran {
    quorum_in(
        dir,
        &[
            "demo",
            "--protocol",
            "rca",
            "--headless",
            "--speed",
            "50",
            "--moderation",
            "ask",
            "--out",
            out.to_str().expect("a UTF-8 path"),
        ],
        &[],
        Some(answers),
    )
}
