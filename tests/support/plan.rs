//! Answers in the planning debate's formats (the seed's markdown), for the
//! state-machine and end-to-end tests.

/// A plan with one `[UNVERIFIED]` line per entry of `unverified`.
pub fn draft(title: &str, unverified: &[&str]) -> String {
    let mut text = format!(
        "# {title}\n\nShip a CSV export of every tenant table.\n\n## Steps\n1. Add POST /admin/export.\n2. Stream each table with COPY.\n"
    );
    if !unverified.is_empty() {
        text.push_str("\n## Assumptions\n");
        for assumption in unverified {
            text.push_str(&format!("- [UNVERIFIED] {assumption}\n"));
        }
    }
    text
}

/// Challenges `(category, summary, severity)` in the seed's format, then
/// the verification lines.
pub fn challenges(items: &[(&str, &str, &str)], checks: &[&str]) -> String {
    let mut text = String::from("My challenges.\n\n");
    if items.is_empty() {
        text.push_str("No challenges.\n");
    }
    for (index, (category, summary, severity)) in items.iter().enumerate() {
        text.push_str(&format!(
            "**Challenge {}**: {category} - {summary}\nProblem: The plan gets {summary} wrong.\nEvidence: api/export.py:12\nSuggestion: Fix {summary}.\nSeverity: {severity}\n\n",
            index + 1
        ));
    }
    for check in checks {
        text.push_str(&format!("- {check}\n"));
    }
    text
}

/// A round-2 challenge that reopens `reopens`.
pub fn reopening(summary: &str, reopens: &str) -> String {
    format!(
        "**Challenge 1**: Operations - {summary}\nProblem: The rejection does not hold.\nEvidence: export-notes.md\nSuggestion: Give it another path.\nSeverity: HIGH\nReopens: {reopens}\n"
    )
}

/// Proposals `(category, summary, priority, resolves)` in the seed's format.
pub fn proposals(items: &[(&str, &str, &str, Option<&str>)], checks: &[&str]) -> String {
    let mut text = String::new();
    if items.is_empty() {
        text.push_str("No improvements.\n");
    }
    for (index, (category, summary, priority, resolves)) in items.iter().enumerate() {
        text.push_str(&format!(
            "**Improvement {}**: {category} - {summary}\nCurrent: The plan does it the slow way.\nProposed: {summary}.\nBenefit: Faster.\nPriority: {priority}\n",
            index + 1
        ));
        if let Some(challenge) = resolves {
            text.push_str(&format!("Resolves: {challenge}\n"));
        }
        text.push('\n');
    }
    for check in checks {
        text.push_str(&format!("- {check}\n"));
    }
    text
}

/// The planner's responses `(id, accept|reject|defer)`.
pub fn responses(items: &[(&str, &str)]) -> String {
    items
        .iter()
        .map(|(id, word)| format!("- {id}: {word} — because of {id}\n"))
        .collect()
}

/// A synthesizer's plan.md with the given critique log section.
pub fn synthesis(log: &str) -> String {
    format!(
        "# Tenant export\n\nAdmins export their tenant's data as CSV.\n\n## Steps\n1. Export.\n\n## Progress Tracking\n- [ ] Export\n\n{log}"
    )
}
