//! What one debate hands to the next (`--from DIR`): a structured result
//! another protocol takes as its input, with where it came from.
//!
//! Three hand-offs exist, each from the protocols that produce it:
//! - **findings** (a council's confirmed and disputed findings, a red
//!   team's findings still standing after triage, a pre-mortem's root
//!   causes) become a decision review's critique items, `f1`, `f2`, … after
//!   the critic's own, which the moderator rules on as usual;
//! - a **proven cause** (a root-cause analysis that ended PROVEN) becomes a
//!   planning debate's goal;
//! - a **recommendation** (a comparative review's) becomes the topic of an
//!   architecture review.
//!
//! Each hand-off also reads as a context document ([`Handoff::context_text`]),
//! so the receiving debate's agents and its record say what was handed on
//! and from where.
//!
//! Not responsible for reading a debate folder (the CLI folds it) or for
//! what a receiving protocol does with the items (its own rules).

use serde::{Deserialize, Serialize};

/// One finding handed on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandedFinding {
    /// Its id where it came from: `F002`, `v3`, `root cause 2`.
    pub source_id: String,
    /// Where it stood there: `confirmed`, `disputed`, `failure mode`, …
    pub standing: String,
    /// The source's own severity word (`high`, `critical`), if it has one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub severity: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// What a debate hands on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Handed {
    Findings { findings: Vec<HandedFinding> },
    Cause { problem: String, cause: String },
    Recommendation { question: String, option: String },
}

/// A debate's structured result, and where it came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Handoff {
    /// The source's protocol, as a person reads it (`council`, `red team`).
    pub from: String,
    /// The source's topic.
    pub topic: String,
    /// The source's folder name (set by the CLI).
    #[serde(default)]
    pub dir: String,
    /// The source's ending in a few words (`CONCERNS`, `PROVEN`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ending: String,
    pub handed: Handed,
}

/// What a receiving protocol can take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Takes {
    /// Findings, as critique items (a decision review in architecture mode).
    Findings,
    /// A proven cause, as the goal (a planning debate).
    Cause,
    /// A recommendation, as the topic (an architecture review).
    Recommendation,
}

impl Handed {
    pub fn takes(&self) -> Takes {
        match self {
            Handed::Findings { .. } => Takes::Findings,
            Handed::Cause { .. } => Takes::Cause,
            Handed::Recommendation { .. } => Takes::Recommendation,
        }
    }
}

impl Takes {
    /// The command that receives this hand-off, for messages.
    pub fn receiver(self) -> &'static str {
        match self {
            Takes::Findings | Takes::Recommendation => {
                "a decision review in architecture mode (`quorum review --from DIR`)"
            }
            Takes::Cause => "a planning debate (`quorum plan --from DIR`)",
        }
    }

    pub fn what(self) -> &'static str {
        match self {
            Takes::Findings => "findings",
            Takes::Cause => "a proven cause",
            Takes::Recommendation => "a recommendation",
        }
    }
}

/// The id a handed finding gets in the receiving review: `f1`, `f2`, …
pub fn item_id(index: usize) -> String {
    format!("f{}", index + 1)
}

impl HandedFinding {
    /// The finding as a critique item's description: what it says, then
    /// where it came from.
    pub fn description(&self, from: &str) -> String {
        let mut text = self.title.trim().trim_end_matches('.').to_string();
        if !self.detail.trim().is_empty() {
            text.push_str(". ");
            text.push_str(self.detail.trim());
        }
        let severity = match self.severity.trim() {
            "" => String::new(),
            severity => format!(", {severity}"),
        };
        format!(
            "{text} (from the {from}: {} {}{severity})",
            self.source_id, self.standing
        )
    }
}

impl Handoff {
    /// A default topic for the receiving debate when none is given.
    pub fn topic_for_receiver(&self) -> String {
        match &self.handed {
            Handed::Findings { .. } => format!(
                "Should we go ahead with {}, with the {}'s findings answered?",
                lower_first(&self.topic),
                self.from
            ),
            Handed::Cause { cause, .. } => format!("Fix the proven root cause: {}", cause.trim()),
            Handed::Recommendation { question, option } => {
                format!(
                    "{} Build it as recommended: {}",
                    question.trim(),
                    option.trim()
                )
            }
        }
    }

    /// The hand-off as a context document for the receiving debate: where
    /// it came from and what it says, in Markdown.
    pub fn context_text(&self) -> String {
        let mut text = format!(
            "# Handed on from a {}\n\nSource: `{}` ({}{})\n\nIts topic: {}\n\n",
            self.from,
            self.dir,
            self.from,
            match self.ending.as_str() {
                "" => String::new(),
                ending => format!(", ended {ending}"),
            },
            self.topic.trim()
        );
        match &self.handed {
            Handed::Findings { findings } => {
                text.push_str(&format!(
                    "Its {} become critique items {} here, after the critic's own; the moderator \
                     rules on them as on any other.\n\n",
                    match findings.len() {
                        1 => "finding".to_string(),
                        count => format!("{count} findings"),
                    },
                    match findings.len() {
                        0 => String::new(),
                        1 => "f1".into(),
                        count => format!("f1–f{count}"),
                    }
                ));
                for (index, finding) in findings.iter().enumerate() {
                    text.push_str(&format!(
                        "- **{}** ({} {}{}): {}",
                        item_id(index),
                        finding.source_id,
                        finding.standing,
                        match finding.severity.as_str() {
                            "" => String::new(),
                            severity => format!(", {severity}"),
                        },
                        finding.title.trim()
                    ));
                    if !finding.detail.trim().is_empty() {
                        text.push_str(&format!(". {}", finding.detail.trim()));
                    }
                    text.push('\n');
                }
            }
            Handed::Cause { problem, cause } => {
                text.push_str(&format!(
                    "The problem: {}\n\nThe proven root cause: {}\n",
                    problem.trim(),
                    cause.trim()
                ));
            }
            Handed::Recommendation { question, option } => {
                text.push_str(&format!(
                    "The question compared: {}\n\nThe recommendation: {}\n",
                    question.trim(),
                    option.trim()
                ));
            }
        }
        text
    }

    /// The context document's name.
    pub fn context_name(&self) -> String {
        format!("handed-on-from-{}.md", self.dir)
    }
}

fn lower_first(text: &str) -> String {
    let text = text.trim();
    let mut chars = text.chars();
    match chars.next() {
        // "The payment handler" reads "the payment handler" mid-sentence;
        // an acronym ("API") stays.
        Some(first) if chars.next().is_some_and(char::is_lowercase) => {
            first.to_lowercase().chain(text.chars().skip(1)).collect()
        }
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn council() -> Handoff {
        Handoff {
            from: "council".into(),
            topic: "The payment-provider webhook handler".into(),
            dir: "the-payment-provider-webhook-20261203-150000".into(),
            ending: "CONCERNS".into(),
            handed: Handed::Findings {
                findings: vec![HandedFinding {
                    source_id: "F002".into(),
                    standing: "confirmed".into(),
                    severity: "high".into(),
                    title: "Replayed events are applied twice.".into(),
                    detail: "No idempotency key is stored.".into(),
                }],
            },
        }
    }

    #[test]
    fn a_handed_finding_reads_as_a_critique_item_that_names_its_source() {
        let handoff = council();
        let Handed::Findings { findings } = &handoff.handed else {
            unreachable!()
        };
        assert_eq!(
            findings[0].description(&handoff.from),
            "Replayed events are applied twice. No idempotency key is stored. \
             (from the council: F002 confirmed, high)"
        );
        assert_eq!(item_id(0), "f1");
    }

    #[test]
    fn the_context_document_says_where_it_came_from_and_what_it_hands_on() {
        let text = council().context_text();
        assert!(text.starts_with("# Handed on from a council"), "{text}");
        assert!(text.contains("the-payment-provider-webhook-20261203-150000"));
        assert!(text.contains("ended CONCERNS"));
        assert!(text.contains("- **f1** (F002 confirmed, high): Replayed events"));
        assert_eq!(
            council().topic_for_receiver(),
            "Should we go ahead with the payment-provider webhook handler, with the council's \
             findings answered?"
        );
    }
}
