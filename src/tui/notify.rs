//! Telling a person whose eyes are elsewhere that a debate needs them
//! (issue 54): `quorum attach` watches the updates of the debate it shows
//! ([`RulingWatch`]) and, once for each thing the debate waits on them for,
//! writes a terminal notification ([`notification`]): OSC 9 and OSC 777
//! (each taken by some terminals as a desktop notification: iTerm2,
//! WezTerm, foot, Ghostty, rxvt-unicode's extension…) and a bell for the
//! terminals that show neither.
//!
//! What the debate waits on a person for: items to rule on, a step held at
//! the budget, a round held for a judge to be re-run or let go. A call
//! that timed out and is retried by quorum's own rule needs no one.
//!
//! Not responsible for writing the bytes (the caller owns the terminal)
//! or for anything the interface draws.

use std::collections::BTreeSet;

use crate::engine::Update;

/// Most characters of the topic a notification names.
pub const NOTICE_TOPIC_CHARS: usize = 60;

/// What a debate waits on the person for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wanted {
    /// This many items wait for a ruling.
    Items(usize),
    /// A step would cross the budget.
    Budget,
    /// A round waits on this many calls: re-run them or go on without.
    Held(usize),
}

impl Wanted {
    /// `6 items wait for your ruling`.
    pub fn describe(&self) -> String {
        match self {
            Wanted::Items(1) => "1 item waits for your ruling".into(),
            Wanted::Items(count) => format!("{count} items wait for your ruling"),
            Wanted::Budget => "a step would cross the budget: raise it, go on once or stop".into(),
            Wanted::Held(1) => "a round waits on a judge: re-run it or go on without it".into(),
            Wanted::Held(count) => {
                format!("a round waits on {count} judges: re-run them or go on without them")
            }
        }
    }
}

/// Watches a debate's updates for what it waits on the person for, and
/// says each once: a moderation when it asks, a budget question when it is
/// put, a held round when a call is first held.
#[derive(Debug, Default)]
pub struct RulingWatch {
    held: BTreeSet<String>,
}

impl RulingWatch {
    /// What `update` asks of the person, if it asks anything new.
    pub fn see(&mut self, update: &Update) -> Option<Wanted> {
        match update {
            Update::ModerationNeeded { items } if !items.is_empty() => {
                Some(Wanted::Items(items.len()))
            }
            Update::BudgetReached(_) => Some(Wanted::Budget),
            Update::Board(board) => {
                let new = board
                    .held_calls
                    .iter()
                    .filter(|call_id| self.held.insert((*call_id).clone()))
                    .count();
                (new > 0).then_some(Wanted::Held(board.held_calls.len()))
            }
            _ => None,
        }
    }
}

/// The bytes that notify the terminal that the debate on `topic` wants
/// `wanted`: `quorum: TOPIC — REASON` as OSC 9, the same under the title
/// `quorum` as OSC 777, then a bell. Nothing of the topic can act on the
/// terminal: it is sanitised, kept to one line of displayable characters
/// (no control character can end the sequence early) and shortened.
pub fn notification(topic: &str, wanted: &Wanted) -> Vec<u8> {
    let topic = shortened(&notice_text(topic), NOTICE_TOPIC_CHARS);
    let body = format!("{topic} — {}", notice_text(&wanted.describe()));
    let mut bytes = Vec::with_capacity(2 * body.len() + 40);
    bytes.extend_from_slice(b"\x1b]9;quorum: ");
    bytes.extend_from_slice(body.as_bytes());
    bytes.push(0x07);
    bytes.extend_from_slice(b"\x1b]777;notify;quorum;");
    bytes.extend_from_slice(body.as_bytes());
    bytes.push(0x07);
    bytes.push(0x07);
    bytes
}

/// `text` sanitised, on one line of displayable characters, without the
/// `;` that separates an OSC 777's fields.
fn notice_text(text: &str) -> String {
    let clean = crate::text::sanitize(text);
    let mapped: String = clean
        .chars()
        .map(|c| match c {
            ';' => ',',
            c if crate::text::is_displayable(c) => c,
            _ => ' ',
        })
        .collect();
    mapped.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` in at most `most` characters, with an ellipsis when cut.
fn shortened(text: &str, most: usize) -> String {
    if text.chars().count() <= most {
        return text.to_string();
    }
    let kept: String = text.chars().take(most.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Board, ModerationItem};

    /// The text between an OSC's introducer and its BEL, for each OSC.
    fn osc_texts(bytes: &[u8]) -> Vec<String> {
        let text = String::from_utf8(bytes.to_vec()).unwrap();
        text.split("\x1b]")
            .skip(1)
            .map(|osc| osc.split('\x07').next().unwrap().to_string())
            .collect()
    }

    /// Issue 54: OSC 9, OSC 777 and a bell, naming the debate and why.
    #[test]
    fn a_notification_names_the_debate_and_why() {
        let bytes = notification("Should billing move to event sourcing?", &Wanted::Items(6));
        assert_eq!(
            osc_texts(&bytes),
            [
                "9;quorum: Should billing move to event sourcing? — 6 items wait for your ruling",
                "777;notify;quorum;Should billing move to event sourcing? — 6 items wait for your ruling",
            ]
        );
        assert!(bytes.ends_with(b"\x07\x07"), "a bell after the OSCs");
        assert_eq!(bytes.iter().filter(|&&byte| byte == 0x1b).count(), 2);
    }

    /// Issue 54: no control character of a topic reaches the terminal: it
    /// cannot end the sequence early, start another, or add a field.
    #[test]
    fn a_hostile_topic_cannot_act_on_the_terminal() {
        let hostile =
            "Ship it?\x07\x1b]0;owned\x07\x1b[2J\u{9c}\u{9b}31m\nsecond line;extra\u{202e}";
        let bytes = notification(hostile, &Wanted::Budget);
        assert_eq!(bytes.iter().filter(|&&byte| byte == 0x1b).count(), 2);
        assert_eq!(bytes.iter().filter(|&&byte| byte == 0x07).count(), 3);
        let texts = osc_texts(&bytes);
        assert_eq!(texts.len(), 2);
        for text in &texts {
            assert!(text.chars().all(crate::text::is_displayable), "{text:?}");
            assert!(!text.contains('\u{9c}') && !text.contains('\u{9b}'));
        }
        assert_eq!(texts[1].matches(';').count(), 3, "{}", texts[1]);
    }

    #[test]
    fn a_long_topic_is_shortened() {
        let topic = "word ".repeat(40);
        let bytes = notification(&topic, &Wanted::Held(2));
        let text = &osc_texts(&bytes)[0];
        let shown = text
            .strip_prefix("9;quorum: ")
            .and_then(|rest| rest.split(" — ").next())
            .unwrap();
        assert!(shown.chars().count() <= NOTICE_TOPIC_CHARS, "{shown}");
        assert!(shown.ends_with('…'), "{shown}");
        assert!(
            text.ends_with("re-run them or go on without them"),
            "{text}"
        );
    }

    /// Issue 54: each thing the debate waits on the person for is said
    /// once: a moderation as it asks, a budget question, a call when it is
    /// first held; streamed text and progress are not.
    #[test]
    fn each_wait_for_the_person_is_said_once() {
        let mut watch = RulingWatch::default();
        let items = |count| Update::ModerationNeeded {
            items: (0..count)
                .map(|n| ModerationItem {
                    id: format!("c{n}"),
                    ..Default::default()
                })
                .collect(),
        };
        assert_eq!(watch.see(&items(3)), Some(Wanted::Items(3)));
        assert_eq!(watch.see(&items(0)), None);
        let held = |calls: &[&str]| {
            Update::Board(Box::new(Board {
                held_calls: calls.iter().map(|call| call.to_string()).collect(),
                ..Default::default()
            }))
        };
        assert_eq!(watch.see(&held(&["j1"])), Some(Wanted::Held(1)));
        assert_eq!(watch.see(&held(&["j1"])), None, "the same call, again");
        assert_eq!(watch.see(&held(&[])), None);
        assert_eq!(watch.see(&held(&["j1", "j2"])), Some(Wanted::Held(2)));
        assert_eq!(
            watch.see(&Update::Chunk {
                call_id: "c".into(),
                text: "t".into()
            }),
            None
        );
    }
}
