//! Sources an agent asked to be shown, answered in its next turn (issue
//! 52): a large tree is listed, not pasted, so an agent that wants to cite
//! a line of a file it was not shown asks for the file (or its lines) in a
//! `request` block ([`crate::parse::requests`]), and its next prompt shows
//! them with their line numbers.
//!
//! Nothing is opened: each name is looked up among the sources loaded when
//! the debate started. What was asked is read from the answer, which is
//! journaled, and what was shown is in the prompt, which is kept with the
//! call: a resume or a replay asks and shows the same.

use super::Evidence;
use crate::parse::citations::Lines;
use crate::parse::requests::{MAX_REQUESTS, requests};

/// The most bytes of sources one prompt shows for what was asked.
pub const MAX_SHOWN_BYTES: usize = 48 << 10;

/// What one answer asked to be shown: the sources found, each with the
/// lines wanted, and what was refused, in words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Asked {
    shown: Vec<(String, Option<Lines>)>,
    refused: Vec<String>,
}

impl Evidence {
    /// Reads what `answer`, by `whose`, asks to be shown, and keeps it for
    /// `whose`'s next prompt (in place of anything it asked before and was
    /// not yet shown). The transcript's line for it; `None` when nothing
    /// was asked or the debate checks nothing.
    pub fn file_requests(&mut self, whose: &str, answer: &str) -> Option<String> {
        if !self.active {
            return None;
        }
        let read = requests(answer);
        if read.wanted.is_empty() && read.refused.is_empty() {
            return None;
        }
        let mut asked = Asked {
            refused: read.refused,
            ..Asked::default()
        };
        for request in read.wanted {
            let Some((name, text)) = self.sources.found(&request.name) else {
                asked.refused.push(format!(
                    "{}: no source of that name (only loaded sources are shown)",
                    request.name
                ));
                continue;
            };
            let length = text.lines().count() as u32;
            match request.lines {
                Some(lines) if lines.first > length.max(1) => asked.refused.push(format!(
                    "{name}:{lines}: out of range, it has {length} lines"
                )),
                lines => asked.shown.push((name.to_string(), lines)),
            }
        }
        let names: Vec<String> = asked
            .shown
            .iter()
            .map(|(name, lines)| match lines {
                Some(lines) => format!("{name}:{lines}"),
                None => name.clone(),
            })
            .collect();
        let mut line = match names.is_empty() {
            true => format!("{whose} asked to be shown sources; none could be"),
            false => format!(
                "{whose} asked to be shown {}; shown in its next prompt",
                names.join(", ")
            ),
        };
        if !asked.refused.is_empty() {
            line.push_str(&format!(" (refused: {})", asked.refused.join("; ")));
        }
        self.asked.retain(|(role, _)| role != whose);
        self.asked.push((whose.to_string(), asked));
        Some(line)
    }

    /// The section of `whose`'s next prompt that shows what it asked for,
    /// numbered, within [`MAX_SHOWN_BYTES`]; taken, so it is shown once.
    /// `None` when it asked for nothing.
    pub fn take_requested(&mut self, whose: &str) -> Option<String> {
        let index = self.asked.iter().position(|(role, _)| role == whose)?;
        let (_, asked) = self.asked.remove(index);
        let mut out = String::from(
            "## The sources you asked for\n\nAs quorum loaded them, with their line numbers: cite them like any other source.\n",
        );
        let mut room = MAX_SHOWN_BYTES;
        for (name, lines) in &asked.shown {
            let text = self.sources.text(name).unwrap_or_default();
            let length = text.lines().count() as u32;
            let (first, last) = lines.map_or((1, length), |l| (l.first, l.last.min(length)));
            out.push_str(&format!(
                "\n### `{name}`, lines {first} to {last} of {length}\n\n"
            ));
            let (mut rows, cut) = super::numbered(text, first, last, &mut room);
            if cut {
                rows.push_str(&format!(
                    "… (cut here: a prompt shows at most {} KiB of what was asked; ask for fewer lines)\n",
                    MAX_SHOWN_BYTES >> 10
                ));
                room = 0;
            }
            out.push_str(&crate::words::fenced(&rows, ""));
            out.push('\n');
            if room == 0 {
                break;
            }
        }
        for refused in &asked.refused {
            out.push_str(&format!("\nNot shown: {refused}.\n"));
        }
        Some(out)
    }

    /// What every evidence-asking prompt says of asking for sources.
    pub(super) fn how_to_ask() -> String {
        format!(
            "To cite a file you were not shown, or to see a source's line numbers, ask for it: end your answer with a block fenced as `request`, one source a line, a name and optionally its lines (`src/retry.go`, `src/retry.go:L40-L120`). quorum shows them in your next prompt, at most {MAX_REQUESTS} sources and {} KiB; a name it did not load is never opened.\n",
            MAX_SHOWN_BYTES >> 10
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{SourceKind, Sources};
    use std::sync::Arc;

    fn evidence() -> Evidence {
        let log: String = (1..=200)
            .map(|n| format!("line {n} of the log\n"))
            .collect();
        let documents = vec![
            ("app.log".to_string(), SourceKind::Log, log),
            (
                "src/retry.go".to_string(),
                SourceKind::Context,
                "package retry\nfunc Do() {}\n".to_string(),
            ),
        ];
        Evidence {
            active: true,
            sources: Arc::new(Sources::new(documents, None)),
            ..Evidence::default()
        }
    }

    /// EV-10: what an agent asks for is shown in its next prompt, numbered,
    /// once; a name quorum did not load and a span past the end are refused
    /// in words, never opened.
    #[test]
    fn ev_10_asked_sources_are_shown_numbered_in_the_next_prompt_once() {
        let mut evidence = evidence();
        let answer = "I need more.\n```request\n- retry.go\n- app.log:L150-L152\n- ../../etc/passwd\n- app.log:L900-L910\n```\n";
        let line = evidence.file_requests("critic", answer).unwrap();
        assert!(
            line.starts_with("critic asked to be shown src/retry.go, app.log:L150-L152"),
            "{line}"
        );
        assert!(
            line.contains("../../etc/passwd: no source of that name"),
            "{line}"
        );
        assert!(line.contains("out of range, it has 200 lines"), "{line}");
        assert_eq!(evidence.take_requested("judge"), None, "another role's");
        let shown = evidence.take_requested("critic").unwrap();
        assert!(shown.contains("    1  package retry"), "{shown}");
        assert!(shown.contains("  150  line 150 of the log"), "{shown}");
        assert!(shown.contains("  152  line 152 of the log"), "{shown}");
        assert!(!shown.contains("line 153 of"), "{shown}");
        assert!(shown.contains("Not shown: ../../etc/passwd"), "{shown}");
        assert_eq!(evidence.take_requested("critic"), None, "shown once");
        assert_eq!(evidence.file_requests("critic", "no block here"), None);
    }

    /// EV-10: what one prompt shows is bounded in bytes, however much is
    /// asked, and the cut says so.
    #[test]
    fn ev_10_what_is_shown_is_bounded() {
        let big: String = (1..=20_000)
            .map(|n| format!("row {n} {}\n", "x".repeat(40)))
            .collect();
        let mut evidence = Evidence {
            active: true,
            sources: Arc::new(Sources::new(
                vec![("big.log".to_string(), SourceKind::Log, big)],
                None,
            )),
            ..Evidence::default()
        };
        evidence.file_requests("debugger.alpha", "```request\nbig.log\nbig.log\n```");
        let shown = evidence.take_requested("debugger.alpha").unwrap();
        assert!(shown.len() < MAX_SHOWN_BYTES + 2_000, "{}", shown.len());
        assert!(shown.contains("cut here"), "says so");
    }
}
