//! Whether a synthesizer's document holds to what was asked of it, where
//! quorum can tell from the text: the red team's report against the
//! moderator's rulings on its findings (by the ids the report names in
//! brackets), and any mode's opening against the reader-first rules (no
//! process provenance, no verdict: RF-06, RF-08, RF-13, RF-14, QS-01).
//!
//! Not responsible for what happens on a discrepancy (the protocol asks
//! once more, then keeps the document with a warning) or for the rulings
//! themselves (the protocol's triage).

use std::collections::BTreeSet;

use crate::rulings::Ruled;

/// One way a report goes against a ruling on one finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Discrepancy {
    /// It describes a finding the moderator rejected.
    DescribesRejected { id: String, title: String },
    /// It leaves out a finding the moderator accepted or deferred.
    LeavesOut {
        id: String,
        title: String,
        ruled: Ruled,
    },
    /// It describes a deferred finding without marking it unconfirmed.
    NotMarkedUnconfirmed { id: String, title: String },
}

impl Discrepancy {
    /// The discrepancy in a sentence, for the agent asked again and for the
    /// reader of the deliverable alike.
    pub fn describe(&self) -> String {
        match self {
            Discrepancy::DescribesRejected { id, title } => format!(
                "the report describes {id} ({title}), which the moderator rejected: it must be \
                 left out"
            ),
            Discrepancy::LeavesOut { id, title, ruled } => {
                let how = match ruled {
                    Ruled::Deferred => "deferred (it belongs in the report, marked unconfirmed)",
                    _ => "accepted (it belongs in the report)",
                };
                format!("the report leaves out {id} ({title}), which the moderator {how}")
            }
            Discrepancy::NotMarkedUnconfirmed { id, title } => format!(
                "the report does not mark {id} ({title}) as unconfirmed, though the moderator \
                 deferred it"
            ),
        }
    }
}

/// How many discrepancies of one kind are named one by one; more are
/// named as a group, so a report of hundreds of findings gets a readable
/// warning.
const NAMED_ONE_BY_ONE: usize = 5;

/// `discrepancies` in sentences, in order: each on its own, or, where one
/// kind has more than a handful, that kind as one sentence with its first
/// ids and a count.
pub fn summarise(discrepancies: &[Discrepancy]) -> Vec<String> {
    let kind = |discrepancy: &Discrepancy| match discrepancy {
        Discrepancy::DescribesRejected { .. } => 0,
        Discrepancy::LeavesOut {
            ruled: Ruled::Deferred,
            ..
        } => 2,
        Discrepancy::LeavesOut { .. } => 1,
        Discrepancy::NotMarkedUnconfirmed { .. } => 3,
    };
    let mut sentences = Vec::new();
    for group in 0..4 {
        let members: Vec<&Discrepancy> = discrepancies
            .iter()
            .filter(|discrepancy| kind(discrepancy) == group)
            .collect();
        if members.len() <= NAMED_ONE_BY_ONE {
            sentences.extend(members.iter().map(|discrepancy| discrepancy.describe()));
            continue;
        }
        let ids: Vec<&str> = members
            .iter()
            .take(NAMED_ONE_BY_ONE)
            .map(|discrepancy| match discrepancy {
                Discrepancy::DescribesRejected { id, .. }
                | Discrepancy::LeavesOut { id, .. }
                | Discrepancy::NotMarkedUnconfirmed { id, .. } => id.as_str(),
            })
            .collect();
        let which = format!(
            "{} findings ({} and {} more)",
            members.len(),
            ids.join(", "),
            members.len() - ids.len()
        );
        sentences.push(match group {
            0 => format!(
                "the report describes {which} that the moderator rejected: they must be left out"
            ),
            1 => format!(
                "the report leaves out {which} that the moderator accepted (they belong in the \
                 report)"
            ),
            2 => format!(
                "the report leaves out {which} that the moderator deferred (they belong in the \
                 report, marked unconfirmed)"
            ),
            _ => format!(
                "the report does not mark {which} as unconfirmed, though the moderator deferred \
                 them"
            ),
        });
    }
    sentences
}

/// The ids among `known` that `text` names in brackets or parentheses
/// (`[v2]`, `(v2)`, `[v1, v3]`), lower-cased, each with the lines naming it.
fn named_ids<'a>(text: &'a str, known: &BTreeSet<String>) -> Vec<(String, &'a str)> {
    let mut found = Vec::new();
    for line in text.lines() {
        let mut rest = line;
        while let Some(open) = rest.find(['[', '(']) {
            let after = &rest[open + 1..];
            let Some(close) = after.find([']', ')']) else {
                break;
            };
            for token in after[..close].split([',', ' ', ';', '/']) {
                let token = token.trim().to_ascii_lowercase();
                if known.contains(&token) {
                    found.push((token, line));
                }
            }
            rest = &after[close + 1..];
        }
    }
    found
}

/// Where `report` goes against `rulings` (each finding's id, title and
/// ruling, in the order the critic listed them). A finding is named by its
/// id in brackets; a rejected one must not be named at all, an accepted or
/// deferred one must be, and a deferred one on a line that says it is
/// unconfirmed.
pub fn against_rulings(report: &str, rulings: &[(String, String, Ruled)]) -> Vec<Discrepancy> {
    let known: BTreeSet<String> = rulings
        .iter()
        .map(|(id, _, _)| id.to_ascii_lowercase())
        .collect();
    let named = named_ids(report, &known);
    let mut found = Vec::new();
    for (id, title, ruled) in rulings {
        let lines: Vec<&str> = named
            .iter()
            .filter(|(named, _)| named.eq_ignore_ascii_case(id))
            .map(|(_, line)| *line)
            .collect();
        let (id, title) = (id.clone(), crate::words::one_line(title));
        match ruled {
            Ruled::Rejected if !lines.is_empty() => {
                found.push(Discrepancy::DescribesRejected { id, title })
            }
            Ruled::Rejected => {}
            _ if lines.is_empty() => found.push(Discrepancy::LeavesOut {
                id,
                title,
                ruled: *ruled,
            }),
            Ruled::Deferred
                if !lines
                    .iter()
                    .any(|line| line.to_ascii_lowercase().contains("unconfirmed")) =>
            {
                found.push(Discrepancy::NotMarkedUnconfirmed { id, title })
            }
            _ => {}
        }
    }
    found
}

/// The verdict words of the decision protocols; a quick mode gives none
/// (QS-01), and a pre-mortem's or red team's summary states none (RF-13,
/// RF-14).
const VERDICT_WORDS: [&str; 7] = [
    "ADOPT", "REVISE", "REJECT", "ESCALATE", "PASS", "FAIL", "CONCERNS",
];

/// What in `opening` passes a verdict: a verdict word in capitals, or the
/// word "verdict" itself.
pub fn verdicts(opening: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for word in opening.split(|c: char| !c.is_alphanumeric()) {
        let named = if VERDICT_WORDS.contains(&word) {
            format!("the verdict word `{word}`")
        } else if word.eq_ignore_ascii_case("verdict") {
            "a verdict".to_string()
        } else {
            continue;
        };
        if !found.contains(&named) {
            found.push(named);
        }
    }
    found
}

/// The finding ids among `known` that `opening` names in brackets: the
/// opening is for a reader and names none (RF-06). A bare `v2` is not
/// taken for one: prose has versions.
pub fn ids_in_opening(opening: &str, known: &BTreeSet<String>) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for (id, _) in named_ids(opening, known) {
        if !found.contains(&id) {
            found.push(id);
        }
    }
    found
}

/// How an opening that describes itself, or the work, begins instead of
/// giving the result: the reader-first rules want the bottom line first
/// (RF-04, RF-12..RF-15, issue 60). Matched at the start of the opening's
/// first sentence, in any case.
const FRAMING_OPENERS: [&str; 28] = [
    "this report",
    "this document",
    "this pre-mortem",
    "this premortem",
    "this review",
    "this analysis",
    "this summary",
    "this synthesis",
    "this memo",
    "this challenge",
    "in this report",
    "in this document",
    "in this review",
    "in this analysis",
    "below",
    "here is",
    "here's",
    "the following",
    "we ",
    "i ",
    "after reviewing",
    "after reading",
    "after analysing",
    "after analyzing",
    "having reviewed",
    "to summarise",
    "to summarize",
    "in summary",
];

/// The words of the opening's first sentence that describe the document
/// or the work rather than the result (`This report`), if it begins so.
pub fn framing(opening: &str) -> Option<String> {
    let first = first_sentence(opening);
    let plain = first.trim_start_matches(['*', '_', '#', ' ', '>']);
    let lower = plain.to_lowercase();
    FRAMING_OPENERS
        .iter()
        .find(|opener| lower.starts_with(*opener))
        .map(|opener| plain[..opener.trim_end().len()].to_string())
}

/// The first sentence of `text`: up to the first `.`, `!` or `?` followed
/// by a space or the end, or the first line break.
fn first_sentence(text: &str) -> &str {
    let text = text.trim_start();
    let line = text.lines().next().unwrap_or_default();
    let bytes = line.as_bytes();
    for (index, byte) in bytes.iter().enumerate() {
        if matches!(byte, b'.' | b'!' | b'?')
            && bytes.get(index + 1).is_none_or(|next| *next == b' ')
        {
            return &line[..=index];
        }
    }
    line
}

/// Words too common to show which finding a sentence is about.
const COMMON: [&str; 24] = [
    "that", "this", "with", "from", "into", "their", "there", "they", "have", "which", "when",
    "does", "without", "other", "than", "then", "them", "were", "will", "would", "about", "what",
    "your", "only",
];

/// The words of `text` that can tell one finding from another: four
/// letters or more, lowercased, not among the commonest.
fn telling_words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= 4)
        .map(str::to_lowercase)
        .filter(|word| !COMMON.contains(&word.as_str()))
        .collect()
}

/// A red-team report's opening that leads with a lesser finding than the
/// most severe one still standing (RF-14, issue 60): the first sentence
/// that names a standing finding (two or more of its title's telling
/// words, more than it shares with any other) names one below the top
/// severity. `standing` is (rank, title), the lowest rank the most
/// severe. `None` when it leads with a top one, or names none, since
/// quorum cannot tell then and does not guess.
pub fn lesser_lead(opening: &str, standing: &[(u8, &str)]) -> Option<String> {
    let top = standing.iter().map(|(rank, _)| *rank).min()?;
    let titles: Vec<(u8, &str, BTreeSet<String>)> = standing
        .iter()
        .map(|(rank, title)| (*rank, *title, telling_words(title)))
        .collect();
    for sentence in opening.split_inclusive(['.', '!', '?']) {
        let words = telling_words(sentence);
        let shared: Vec<usize> = titles
            .iter()
            .map(|(_, _, title)| title.intersection(&words).count())
            .collect();
        let best = shared.iter().copied().max().unwrap_or(0);
        if best < 2 {
            continue;
        }
        let named: Vec<&(u8, &str, BTreeSet<String>)> = titles
            .iter()
            .zip(&shared)
            .filter(|(_, count)| **count == best)
            .map(|(title, _)| title)
            .collect();
        if named.iter().any(|(rank, _, _)| *rank == top) {
            return None;
        }
        let lead = named.first().map_or("", |(_, title, _)| *title);
        let most: Vec<String> = titles
            .iter()
            .filter(|(rank, _, _)| *rank == top)
            .map(|(_, title, _)| format!("\"{title}\""))
            .collect();
        return Some(format!(
            "it leads with \"{lead}\" rather than the most severe finding still standing ({})",
            most.join(" or ")
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use Ruled::{Accepted, Deferred, Rejected};

    fn rulings(list: &[(&str, Ruled)]) -> Vec<(String, String, Ruled)> {
        list.iter()
            .map(|(id, ruled)| (id.to_string(), format!("finding {id}"), *ruled))
            .collect()
    }

    #[test]
    fn a_report_that_follows_the_rulings_has_no_discrepancy() {
        let report = "Opening.\n\n## Vulnerabilities\n\n### High: links [v1]\ntext\n\n### Medium, unconfirmed: flooding (V3)\ntext\n\nSee also [v1, v3].";
        let found = against_rulings(
            report,
            &rulings(&[("v1", Accepted), ("v2", Rejected), ("v3", Deferred)]),
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn each_kind_of_discrepancy_is_named_with_its_id_and_title() {
        let report = "### High: links [v2]\n\n### Medium: flooding [v3]\n\nAPI v1 is fine, v4 too.";
        let found = against_rulings(
            report,
            &rulings(&[
                ("v1", Accepted),
                ("v2", Rejected),
                ("v3", Deferred),
                ("v4", Rejected),
            ]),
        );
        let described: Vec<String> = found.iter().map(Discrepancy::describe).collect();
        assert_eq!(
            described,
            [
                "the report leaves out v1 (finding v1), which the moderator accepted (it belongs in the report)",
                "the report describes v2 (finding v2), which the moderator rejected: it must be left out",
                "the report does not mark v3 (finding v3) as unconfirmed, though the moderator deferred it",
            ],
            "an id outside brackets (API v1, v4) names no finding"
        );
    }

    #[test]
    fn many_discrepancies_of_one_kind_are_named_as_a_group() {
        let list: Vec<(String, String, Ruled)> = (1..=8)
            .map(|n| (format!("v{n}"), format!("finding {n}"), Accepted))
            .chain([("v9".to_string(), "finding 9".to_string(), Rejected)])
            .collect();
        let found = against_rulings("Nothing named but [v9].", &list);
        assert_eq!(found.len(), 9);
        assert_eq!(
            summarise(&found),
            [
                "the report describes v9 (finding 9), which the moderator rejected: it must be left out",
                "the report leaves out 8 findings (v1, v2, v3, v4, v5 and 3 more) that the moderator accepted (they belong in the report)",
            ]
        );
    }

    /// RF-13, RF-14, QS-01: a verdict word in capitals or the word verdict.
    #[test]
    fn rf_13_rf_14_verdicts_in_an_opening_are_found() {
        assert_eq!(
            verdicts("Verdict: PASS. The plan holds; pass the salt."),
            ["a verdict", "the verdict word `PASS`"]
        );
        assert!(verdicts("The most likely failure is silent drift.").is_empty());
    }

    #[test]
    fn ids_in_an_opening_are_found_in_brackets() {
        let known: BTreeSet<String> = ["v1".to_string(), "v2".to_string()].into();
        assert_eq!(
            ids_in_opening(
                "Links leak [v1]; so does (V2); the v1 API and [v10] do not count.",
                &known
            ),
            ["v1", "v2"]
        );
    }

    /// RF-04, RF-12..RF-15 (issue 60): an opening that begins by
    /// describing itself is found; one that gives the result is not.
    #[test]
    fn rf_04_an_opening_that_describes_the_document_is_found() {
        assert_eq!(
            framing("This report summarises what the panel found. The runbook is unsafe."),
            Some("This report".to_string())
        );
        assert_eq!(
            framing("**Below** are the failure modes."),
            Some("Below".to_string())
        );
        assert_eq!(framing("We reviewed the plan."), Some("We".to_string()));
        assert_eq!(
            framing("The most likely way this migration fails is drift."),
            None
        );
        assert_eq!(framing("Weak links everywhere."), None, "a word, not `we `");
        assert_eq!(framing("Build the fan-out on AWS."), None);
    }

    /// RF-14 (issue 60): a red-team opening that leads with a lesser
    /// finding is found; one that leads with the most severe, or names no
    /// finding quorum can tell, is not.
    #[test]
    fn rf_14_a_red_team_opening_that_leads_with_a_lesser_finding_is_found() {
        let standing = [
            (
                0,
                "Reset links are built from the attacker-controlled Host header",
            ),
            (2, "Sign-in requests are not rate limited per address"),
        ];
        let lesser = lesser_lead(
            "Sign-in requests can be flooded: nothing rate limited per address. Reset links also trust the Host header.",
            &standing,
        );
        assert_eq!(
            lesser.as_deref(),
            Some(
                "it leads with \"Sign-in requests are not rate limited per address\" rather than the most severe finding still standing (\"Reset links are built from the attacker-controlled Host header\")"
            )
        );
        assert_eq!(
            lesser_lead(
                "Anyone can take over any account. Reset links are built from the Host header.",
                &standing
            ),
            None
        );
        assert_eq!(lesser_lead("Everything is on fire.", &standing), None);
        assert_eq!(lesser_lead("Anything.", &[]), None);
    }
}
