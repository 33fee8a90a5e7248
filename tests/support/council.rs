//! Answers in the five-phase council's formats (FP-16, FP-25, FP-27,
//! FP-37), for the end-to-end tests: a participant's Phase 1 findings, the
//! devil's advocate's challenges, a round's responses and a final position,
//! each as the ```json block the prompts ask for.

use serde_json::{Value, json};

/// `value` as an answer: a line of prose and a fenced JSON block.
pub fn answer(value: &Value) -> String {
    format!(
        "My answer.\n\n```json\n{}\n```\n",
        serde_json::to_string_pretty(value).unwrap()
    )
}

/// One finding (FP-16) with a description made of `title` so that no two
/// findings of a test overlap enough to be merged.
pub fn finding(severity: &str, title: &str, domains: &[&str]) -> Value {
    json!({
        "severity": severity,
        "title": title,
        "description": format!("{title}: what goes wrong, and when."),
        "evidence": format!("Where {title} shows."),
        "recommendation": format!("Fix {title}."),
        "domains": domains,
    })
}

/// A Phase 1 answer of `participant` with `findings`.
pub fn findings(participant: &str, findings: &[Value]) -> String {
    answer(&json!({"participant": participant, "phase": 1, "findings": findings}))
}

/// The devil's advocate's round: one challenge per `(to, finding_id)`.
pub fn devil(challenges: &[(&str, &str)]) -> String {
    let challenges: Vec<Value> = challenges
        .iter()
        .map(|(to, id)| {
            json!({
                "type": "challenge",
                "from": "devil-advocate",
                "to": to,
                "finding_id": id,
                "basis": "missing-assumption",
                "challenge": format!("{id} assumes the load it describes; the traffic shows otherwise."),
                "severity_challenge": "",
            })
        })
        .collect();
    answer(&json!({"challenges": challenges, "discoveries": []}))
}

/// A round's responses: a defense of each of `ids`.
pub fn defenses(ids: &[&str]) -> String {
    let responses: Vec<Value> = ids
        .iter()
        .map(|id| {
            json!({
                "type": "defense",
                "finding_id": id,
                "response": format!("{id} holds: the trace shows it."),
                "evidence": "trace 7f3a",
            })
        })
        .collect();
    answer(&json!({"responses": responses}))
}

/// A final position (FP-37): `(id, stance)` pairs.
pub fn position(participant: &str, stances: &[(&str, &str)]) -> String {
    let positions: Vec<Value> = stances
        .iter()
        .map(|(id, stance)| json!({"id": id, "stance": stance}))
        .collect();
    answer(&json!({
        "participant": participant,
        "positions": positions,
        "merges": [],
        "summary": format!("{participant} has spoken."),
    }))
}
