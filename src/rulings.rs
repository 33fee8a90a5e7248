//! The moderator's rulings as the agent that acts on them reads them.
//!
//! Every prompt of an agent that acts on rulings (a reviser, a report
//! writer, a synthesizer, a merge) carries one section in one shape: a
//! heading, then a line per item saying whether the moderator accepted it
//! (address it), rejected it (do not act on it) or deferred it (an open
//! question), with the moderator's note. A person reads it as a list; a
//! program reads it back with [`read`]. The scripted agents do exactly
//! that to choose the reply a careful agent would give under those rulings
//! (`when:` in a script), so a demo honours whatever the person decided.
//!
//! This module knows no protocol and no provider: the protocols render the
//! section, the scripted provider reads it.

use std::collections::{BTreeMap, BTreeSet};

/// The heading the section opens with; [`read`] looks for exactly this line.
pub const HEADING: &str = "## The moderator's rulings";

/// What the moderator decided about one item, as the acting agent reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ruled {
    Accepted,
    Rejected,
    Deferred,
}

impl Ruled {
    pub fn word(self) -> &'static str {
        match self {
            Ruled::Accepted => "accepted",
            Ruled::Rejected => "rejected",
            Ruled::Deferred => "deferred",
        }
    }

    fn from_word(word: &str) -> Option<Ruled> {
        match word {
            "accepted" => Some(Ruled::Accepted),
            "rejected" => Some(Ruled::Rejected),
            "deferred" => Some(Ruled::Deferred),
            _ => None,
        }
    }

    /// What the agent is to do about an item so ruled.
    fn instruction(self) -> &'static str {
        match self {
            Ruled::Accepted => "address it",
            Ruled::Rejected => "do not act on it",
            Ruled::Deferred => "an open question: do not settle it",
        }
    }
}

/// One item's ruling, with the moderator's note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ruling {
    pub id: String,
    pub ruled: Ruled,
    pub note: Option<String>,
    /// An accepted item an earlier round already answered: the agent keeps
    /// that answer rather than answering it again.
    pub answered_in: Option<u32>,
    /// An accepted item that round [`answered_in`](Self::answered_in)
    /// declined rather than answered, with the reason given: no change
    /// answers it, and the section says so rather than "answered".
    pub declined: Option<String>,
}

impl Ruling {
    pub fn new(id: impl Into<String>, ruled: Ruled, note: Option<&str>) -> Ruling {
        Ruling {
            id: id.into(),
            ruled,
            note: note
                .map(|note| note.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|note| !note.is_empty()),
            answered_in: None,
            declined: None,
        }
    }

    /// The same ruling on an accepted item that round `round` answered.
    pub fn answered_in(mut self, round: u32) -> Ruling {
        self.answered_in = Some(round);
        self
    }

    /// The same ruling on an accepted item that round `round` declined to
    /// change anything for, giving `reason`.
    pub fn declined_in(mut self, round: u32, reason: &str) -> Ruling {
        self.answered_in = Some(round);
        self.declined = Some(one_line(reason));
        self
    }
}

/// The section: the heading, one line of guidance, and a line per ruling
/// (`- c2: rejected — do not act on it. Moderator's note: out of scope`),
/// in the order given. Empty when there is no ruling.
pub fn section(rulings: &[Ruling]) -> String {
    listing(
        rulings,
        "These bind your answer: address every accepted item, act on no rejected item (do not \
         cite it as the reason for any change), and leave every deferred item open.",
    )
}

/// The same section for an agent that reads the rulings without acting on
/// them (a judge scoring a revision that was bound by them), `lead` saying
/// why it is shown.
pub fn listing(rulings: &[Ruling], lead: &str) -> String {
    if rulings.is_empty() {
        return String::new();
    }
    let mut text = format!("{HEADING}\n\n{lead}\n\n");
    for ruling in rulings {
        let id = one_line(&ruling.id);
        let instruction = match (ruling.ruled, ruling.answered_in, &ruling.declined) {
            (Ruled::Accepted, Some(round), Some(reason)) if reason.is_empty() => {
                format!("{DECLINED} {round}, so no change answers it")
            }
            (Ruled::Accepted, Some(round), Some(reason)) => {
                format!("{DECLINED} {round}, so no change answers it; the reason given: {reason}")
            }
            (Ruled::Accepted, Some(round), None) => {
                format!("{ANSWERED} {round}: keep that answer")
            }
            (ruled, _, _) => ruled.instruction().to_string(),
        };
        text.push_str(&format!("- {id}: {} — {instruction}", ruling.ruled.word()));
        if let Some(note) = &ruling.note {
            text.push_str(&format!(". Moderator's note: {}", one_line(note)));
        }
        text.push('\n');
    }
    text
}

/// The rulings of the section in `prompt`, by item id; empty when the
/// prompt has none. Reads the first section only, up to its first blank
/// line after the list; lines it cannot read are passed over.
pub fn read(prompt: &str) -> BTreeMap<String, Ruled> {
    let mut rulings = BTreeMap::new();
    for entry in entries(prompt) {
        let Some((id, rest)) = entry.split_once(':') else {
            continue;
        };
        let word = rest.split_whitespace().next().unwrap_or_default();
        if let Some(ruled) = Ruled::from_word(word) {
            rulings.insert(id.trim().to_string(), ruled);
        }
    }
    rulings
}

/// The list entries (each without its `- `) of the first section in
/// `prompt`: up to the first other line after the list, or a heading before
/// it; none when the prompt has no section.
fn entries(prompt: &str) -> impl Iterator<Item = &str> {
    let mut listing = false;
    prompt
        .lines()
        .skip_while(|line| line.trim_end() != HEADING)
        .skip(1)
        .map_while(move |line| match line.strip_prefix("- ") {
            Some(entry) => {
                listing = true;
                Some(Some(entry))
            }
            None if listing || line.starts_with('#') => None,
            None => Some(None),
        })
        .flatten()
}

/// How a line says its accepted item was answered already.
const ANSWERED: &str = "answered in round";

/// How a line says its accepted item was declined, not answered, already.
const DECLINED: &str = "declined in round";

/// The accepted items of the section in `prompt` that an earlier round
/// already met: answered, or declined with a reason. Either way that round
/// had its say, so the item is no longer newly accepted.
pub fn read_answered(prompt: &str) -> BTreeSet<String> {
    let mut answered = BTreeSet::new();
    for entry in entries(prompt) {
        if let Some((id, rest)) = entry.split_once(':')
            && [ANSWERED, DECLINED]
                .iter()
                .any(|said| rest.starts_with(&format!(" {} — {said} ", Ruled::Accepted.word())))
        {
            answered.insert(id.trim().to_string());
        }
    }
    answered
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_reads_back_as_the_rulings_it_was_made_from() {
        let rulings = vec![
            Ruling::new("c1", Ruled::Accepted, None),
            Ruling::new(
                "c2",
                Ruled::Rejected,
                Some("out of scope:\n  billing is fixed"),
            ),
            Ruling::new("F003", Ruled::Deferred, Some("  ")),
        ];
        let text = section(&rulings);
        assert!(text.starts_with(HEADING), "{text}");
        assert!(
            text.contains("- c2: rejected — do not act on it. Moderator's note: out of scope: billing is fixed\n"),
            "{text}"
        );
        assert_eq!(rulings[2].note, None);
        let prompt = format!("# Task\n\nsome text\n\n{text}\n## Answer format\n\n- c9: accepted\n");
        let read = read(&prompt);
        assert_eq!(
            read.into_iter().collect::<Vec<_>>(),
            vec![
                ("F003".to_string(), Ruled::Deferred),
                ("c1".to_string(), Ruled::Accepted),
                ("c2".to_string(), Ruled::Rejected),
            ]
        );
    }

    #[test]
    fn an_accepted_item_answered_earlier_reads_back_as_answered() {
        let rulings = vec![
            Ruling::new("c1", Ruled::Accepted, None).answered_in(1),
            Ruling::new("c2", Ruled::Accepted, None),
            Ruling::new(
                "c3",
                Ruled::Rejected,
                Some("answered in round 2 — not this"),
            ),
        ];
        let text = section(&rulings);
        assert!(
            text.contains("- c1: accepted — answered in round 1: keep that answer\n"),
            "{text}"
        );
        assert_eq!(read(&text).get("c1"), Some(&Ruled::Accepted));
        assert_eq!(
            read_answered(&text).into_iter().collect::<Vec<_>>(),
            vec!["c1".to_string()]
        );
    }

    /// DR-15, A11: an accepted item an earlier round declined is said to
    /// be declined, with the reason given, never answered; it is no longer
    /// newly accepted.
    #[test]
    fn dr_15_a11_an_accepted_item_declined_earlier_reads_as_declined_not_answered() {
        let rulings = vec![
            Ruling::new("c1", Ruled::Accepted, None)
                .declined_in(1, "Out of scope:\n  the ledger stays."),
            Ruling::new("c2", Ruled::Accepted, None).declined_in(2, " "),
        ];
        let text = section(&rulings);
        assert!(
            text.contains(
                "- c1: accepted — declined in round 1, so no change answers it; the reason given: Out of scope: the ledger stays.\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("- c2: accepted — declined in round 2, so no change answers it\n"),
            "{text}"
        );
        assert!(!text.contains("answered in round"), "{text}");
        assert_eq!(read(&text).get("c1"), Some(&Ruled::Accepted));
        assert_eq!(
            read_answered(&text).into_iter().collect::<Vec<_>>(),
            vec!["c1".to_string(), "c2".to_string()]
        );
    }

    #[test]
    fn no_section_means_no_rulings() {
        assert_eq!(section(&[]), "");
        assert!(read("## Critique items\n\n- c1: accepted\n").is_empty());
    }
}
