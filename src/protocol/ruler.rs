//! Who made a ruling on an item (issue 55): a person, a policy deciding by
//! itself, the agent that called `quorum mcp`, or a scripted list. Each
//! [`Input::ItemDecided`](super::Input::ItemDecided) and
//! [`Input::ItemResolved`](super::Input::ItemResolved) records it, the
//! item book keeps it with the decision, and the board shows it, so the
//! library counts as labels exactly the rulings a person made, one by
//! one, and a reader of the record sees who ruled when it was not all one
//! ruler ([`rulers_line`]).
//!
//! Not responsible for deciding who rules (the engine's moderators and
//! the interfaces stamp their own rulings) nor for what a ruling without a
//! recorded ruler is taken to be (a debate journaled before issue 55: the
//! library infers it from the debate, as it always did).

use serde::{Deserialize, Serialize};

use super::{BoardItem, ItemDecision};
use crate::words::counted;

/// Who made one ruling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ruler {
    /// A person: at the interface, on stdin (`--moderation ask`), through
    /// `quorum attach` or `quorum open`. A fork that decides an item as
    /// the person did in its origin keeps this ruler.
    Person,
    /// A policy that decides every item by itself (`--moderation accept`,
    /// …), never a person.
    Policy(RulingPolicy),
    /// The agent that called `quorum mcp`, through its `rule` tool.
    Caller,
    /// A list of decisions given to the engine (tests, scripted runs).
    Script,
}

/// The policies that rule without anyone (`--moderation accept|reject|
/// defer|planner`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RulingPolicy {
    Accept,
    Reject,
    Defer,
    Planner,
}

impl RulingPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            RulingPolicy::Accept => "accept",
            RulingPolicy::Reject => "reject",
            RulingPolicy::Defer => "defer",
            RulingPolicy::Planner => "planner",
        }
    }
}

impl Ruler {
    /// Only a person's rulings are labels in the library.
    pub fn is_person(self) -> bool {
        self == Ruler::Person
    }

    /// The ruler as the library files it: `person`, `caller`, `script`,
    /// or the policy's name (`accept`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Ruler::Person => "person",
            Ruler::Policy(policy) => policy.as_str(),
            Ruler::Caller => "caller",
            Ruler::Script => "script",
        }
    }

    /// The ruler as a reader of the debate's record is told it: `you`,
    /// `the accept policy`.
    pub fn words(self) -> String {
        match self {
            Ruler::Person => "you".to_string(),
            Ruler::Policy(policy) => format!("the {} policy", policy.as_str()),
            Ruler::Caller => "the MCP caller".to_string(),
            Ruler::Script => "a scripted list".to_string(),
        }
    }
}

impl BoardItem {
    /// The ruling that stands on the item and who made it: its settlement
    /// after the verdict, when a deferred item was settled, else its
    /// decision; `None` while it is undecided. The ruler is `None` for a
    /// ruling journaled before rulers were recorded.
    pub fn standing_ruling(&self) -> Option<(ItemDecision, Option<Ruler>)> {
        match (&self.resolution, self.decision) {
            (Some(resolution), _) => Some((resolution.decision, resolution.ruler)),
            (None, Some(decision)) => Some((decision, self.ruler)),
            (None, None) => None,
        }
    }
}

/// How many of the standing rulings on `items` each ruler made, in the
/// order they first ruled; a ruling without a recorded ruler counts under
/// `None`.
fn counts(items: &[BoardItem]) -> Vec<(Option<Ruler>, usize)> {
    let mut counts: Vec<(Option<Ruler>, usize)> = Vec::new();
    for (_, ruler) in items.iter().filter_map(BoardItem::standing_ruling) {
        match counts.iter_mut().find(|(seen, _)| *seen == ruler) {
            Some((_, count)) => *count += 1,
            None => counts.push((ruler, 1)),
        }
    }
    counts
}

/// Whether more than one ruler ruled on `items` (the standing ruling of
/// each): only then does a record say who ruled on each.
pub fn several_rulers(items: &[BoardItem]) -> bool {
    counts(items).len() > 1
}

/// Who ruled on `items`, when it was not all one ruler: `12 items ruled by
/// you, 3 by the accept policy` (the standing ruling of each item, the
/// most frequent ruler first); `None` when one ruler, or nobody, ruled.
/// Rulings without a recorded ruler are counted as such only beside
/// recorded ones, so a debate journaled before rulers were recorded reads
/// as it always did.
pub fn rulers_line(items: &[BoardItem]) -> Option<String> {
    let mut counts = counts(items);
    if counts.len() < 2 {
        return None;
    }
    // Stable: rulers with as many rulings keep the order they first ruled in.
    counts.sort_by(|(_, one), (_, other)| other.cmp(one));
    let parts: Vec<String> = counts
        .iter()
        .enumerate()
        .map(|(at, (ruler, count))| {
            let by = match ruler {
                Some(ruler) => format!("by {}", ruler.words()),
                None => "with no record of who ruled".to_string(),
            };
            match at {
                0 => format!("{} ruled {by}", counted(*count, "item", "items")),
                _ => format!("{count} {by}"),
            }
        })
        .collect();
    Some(parts.join(", "))
}

/// [`rulers_line`] as a paragraph of a summary's closing section
/// (`Rulings: 12 items ruled by you, 3 by the accept policy.`); empty when
/// one ruler, or nobody, ruled.
pub fn rulers_md(items: &[BoardItem]) -> String {
    rulers_line(items)
        .map(|line| format!("Rulings: {line}.\n\n"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ItemResolution, ModerationItem};

    fn ruled(id: &str, decision: ItemDecision, ruler: Option<Ruler>) -> BoardItem {
        BoardItem {
            item: ModerationItem {
                id: id.into(),
                ..ModerationItem::default()
            },
            decision: Some(decision),
            note: None,
            ruler,
            resolution: None,
            evidence: Vec::new(),
        }
    }

    /// JM-60: the ruler is journaled as a word (`person`) or the policy it
    /// names (`{"policy":"accept"}`), and reads back the same.
    #[test]
    fn jm_60_a_ruler_is_written_as_a_word_and_read_back() {
        for (ruler, json) in [
            (Ruler::Person, r#""person""#),
            (Ruler::Caller, r#""caller""#),
            (Ruler::Script, r#""script""#),
            (
                Ruler::Policy(RulingPolicy::Accept),
                r#"{"policy":"accept"}"#,
            ),
        ] {
            assert_eq!(serde_json::to_string(&ruler).unwrap(), json);
            assert_eq!(serde_json::from_str::<Ruler>(json).unwrap(), ruler);
        }
        // A decision journaled before rulers were recorded reads as none,
        // and is written back as it was.
        let legacy = r#"{"type":"item_decided","item_id":"c1","decision":"accept"}"#;
        let read: crate::protocol::Input = serde_json::from_str(legacy).unwrap();
        assert!(matches!(
            read,
            crate::protocol::Input::ItemDecided { ruler: None, .. }
        ));
        assert_eq!(serde_json::to_string(&read).unwrap(), legacy);
        let settled =
            r#"{"type":"item_resolved","item_id":"c1","decision":"reject","ruler":"person"}"#;
        let read: crate::protocol::Input = serde_json::from_str(settled).unwrap();
        assert!(matches!(
            read,
            crate::protocol::Input::ItemResolved {
                ruler: Some(Ruler::Person),
                ..
            }
        ));
        assert_eq!(serde_json::to_string(&read).unwrap(), settled);
        assert!(Ruler::Person.is_person());
        assert!(!Ruler::Caller.is_person());
        assert!(!Ruler::Policy(RulingPolicy::Planner).is_person());
    }

    /// JM-61: who ruled is said only when it was not all one ruler, the
    /// most frequent first; a settlement after the verdict stands for its
    /// item; a ruling with no recorded ruler is named only beside
    /// recorded ones.
    #[test]
    fn jm_61_who_ruled_is_said_only_when_it_was_not_all_one_ruler() {
        let accept = Some(Ruler::Policy(RulingPolicy::Accept));
        let person = Some(Ruler::Person);
        let mut items = vec![
            ruled("c1", ItemDecision::Accept, accept),
            ruled("c2", ItemDecision::Reject, person),
            ruled("c3", ItemDecision::Reject, person),
        ];
        assert_eq!(
            rulers_line(&items).as_deref(),
            Some("2 items ruled by you, 1 by the accept policy")
        );
        items[0].resolution = Some(ItemResolution {
            decision: ItemDecision::Reject,
            note: None,
            at: chrono::DateTime::UNIX_EPOCH,
            ruler: person,
        });
        assert_eq!(rulers_line(&items), None, "the settlement stands");
        let legacy = vec![
            ruled("c1", ItemDecision::Accept, None),
            ruled("c2", ItemDecision::Accept, None),
        ];
        assert_eq!(rulers_line(&legacy), None);
        let mixed = vec![
            ruled("c1", ItemDecision::Accept, None),
            ruled("c2", ItemDecision::Defer, Some(Ruler::Caller)),
        ];
        assert_eq!(
            rulers_line(&mixed).as_deref(),
            Some("1 item ruled with no record of who ruled, 1 by the MCP caller")
        );
        assert_eq!(rulers_line(&[]), None);
    }
}
