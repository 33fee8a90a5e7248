//! What binds the planner's revisions and the synthesizer's plan: the
//! moderator's decisions on the critique items, and how quorum checks a
//! plan against them (issue 26).
//!
//! The acting agent's prompt carries the decisions as the one rulings
//! section every protocol uses ([`crate::rulings`]): accepted items to carry
//! out, rejected ones (with the moderator's note) to leave alone, deferred
//! ones as open questions. The prompts ask that every step carrying out an
//! item cite its id in parentheses, `(C1)`, which is what makes a plan
//! checkable:
//!
//! - a step (a list line outside the Critique Log) that cites a rejected
//!   item acts on it, unless the line itself says it was rejected;
//! - an accepted item that no line outside the Critique Log cites was left
//!   out, once the plan cites items at all.
//!
//! A plan that cites no item is not checkable by id: quorum says so in its
//! record rather than guessing from the wording. Deferred items are not
//! checked: a plan may mention an open question in any words.
//!
//! Not responsible for asking again or for what is written where: the
//! protocol asks once more with what [`departures`] found, and states what
//! still disagrees.

use crate::protocol::ItemDecision;
use crate::rulings::{Ruled, Ruling};

use super::parse::critique_log;

/// The rulings section's entry for a decision.
pub fn ruled(decision: ItemDecision) -> Ruled {
    decision.into()
}

/// The rulings section for `decided`: `(id, decision, note)` in item order.
pub fn section(decided: &[(String, ItemDecision, Option<String>)]) -> String {
    let rulings: Vec<Ruling> = decided
        .iter()
        .map(|(id, decision, note)| Ruling::new(id.clone(), ruled(*decision), note.as_deref()))
        .collect();
    crate::rulings::section(&rulings)
}

/// What a plan's checking found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// Where the plan goes against the decisions, each as a sentence.
    pub departures: Vec<String>,
    /// The plan cites no item at all, so nothing could be checked by id.
    pub uncited: bool,
}

/// Checks `plan` (a revision or the synthesizer's document) against
/// `decided`, `(id, decision)` for every item decided so far.
pub fn departures(plan: &str, decided: &[(String, ItemDecision)]) -> Checked {
    let body = without_log(plan);
    let known = |word: &str| decided.iter().find(|(id, _)| id.eq_ignore_ascii_case(word));
    let mut cited: Vec<&str> = Vec::new();
    let mut departures = Vec::new();
    for line in body.lines() {
        let ids: Vec<&(String, ItemDecision)> = words(line).filter_map(known).collect();
        if ids.is_empty() {
            continue;
        }
        cited.extend(ids.iter().map(|(id, _)| id.as_str()));
        if !is_step(line) || line.to_lowercase().contains("reject") {
            continue;
        }
        for (id, _) in ids
            .iter()
            .filter(|(_, decision)| *decision == ItemDecision::Reject)
        {
            let departure = format!(
                "the step \"{}\" acts on {id}, which the moderator rejected",
                excerpt(line.trim())
            );
            if !departures.contains(&departure) {
                departures.push(departure);
            }
        }
    }
    if cited.is_empty() {
        return Checked {
            departures,
            uncited: decided.iter().any(|(_, d)| *d == ItemDecision::Accept),
        };
    }
    for (id, _) in decided
        .iter()
        .filter(|(_, decision)| *decision == ItemDecision::Accept)
    {
        if !cited.iter().any(|c| c == id) {
            departures.push(format!(
                "{id} was accepted, but no step of the plan cites it"
            ));
        }
    }
    Checked {
        departures,
        uncited: false,
    }
}

/// `plan` without its `## Critique Log` section, whose rows cite every
/// item whatever became of it.
fn without_log(plan: &str) -> String {
    match critique_log(plan) {
        Some(log) => {
            let (start, end) = log.span;
            format!("{}{}", &plan[..start], &plan[end..])
        }
        None => plan.to_string(),
    }
}

/// The words of `line`, split at anything but letters and digits.
fn words(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
}

/// A list line: `- `, `* `, `+ `, `1. ` or `1) `, after any indentation.
fn is_step(line: &str) -> bool {
    let trimmed = line.trim_start();
    if ["- ", "* ", "+ "]
        .iter()
        .any(|marker| trimmed.starts_with(marker))
    {
        return true;
    }
    let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && (trimmed[digits..].starts_with(". ") || trimmed[digits..].starts_with(") "))
}

/// At most 80 characters of `text`, cut at a character boundary.
fn excerpt(text: &str) -> String {
    let mut chars = text.chars();
    let cut: String = chars.by_ref().take(80).collect();
    if chars.next().is_some() {
        format!("{cut}…")
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decided(entries: &[(&str, ItemDecision)]) -> Vec<(String, ItemDecision)> {
        entries
            .iter()
            .map(|(id, decision)| (id.to_string(), *decision))
            .collect()
    }

    /// A step citing a rejected item acts on it; an accepted item no step
    /// cites was left out; the Critique Log's rows do not count.
    #[test]
    fn a_plan_is_checked_against_the_rulings_by_id() {
        let rulings = decided(&[
            ("C1", ItemDecision::Accept),
            ("C2", ItemDecision::Reject),
            ("I1", ItemDecision::Reject),
            ("I2", ItemDecision::Defer),
        ]);
        let plan = "# Export\n\nOne zip (I1 aside).\n\n## Steps\n1. SET LOCAL in one transaction (C1, I1).\n2. Stream the zip.\n- C2 was rejected: exports stay in the request.\n\n## Critique Log\n\n| # | Source | x | y | Resolution | z |\n|---|---|---|---|---|---|\n| I1 | Optimizer | x | y | Rejected | z |\n";
        let checked = departures(plan, &rulings);
        assert_eq!(
            checked.departures,
            [
                "the step \"1. SET LOCAL in one transaction (C1, I1).\" acts on I1, which the moderator rejected"
            ]
        );
        let left_out = departures("## Steps\n1. Stream it (I2 is open).\n", &rulings);
        assert_eq!(
            left_out.departures,
            ["C1 was accepted, but no step of the plan cites it"]
        );
        let none = departures("## Steps\n1. Stream it.\n", &rulings);
        assert!(none.departures.is_empty() && none.uncited);
        let fine = departures("## Steps\n1. SET LOCAL (C1).\n", &rulings);
        assert_eq!(fine, Checked::default());
    }
}
