//! The text a moderation item attacks, as the protocol read it.
//!
//! An item names its target (a block id such as `b2`, a hypothesis `H1`, a
//! finding `F003`) and carries the target's own entry, its keys as YAML
//! ([`ModerationItem::target_text`]). This lays the entry out for the
//! moderator to read beside the item: the card a pane shows, or the YAML
//! when the lead pane shows raw text (`t`). Nothing is looked up in what
//! the agents wrote: the protocol's reading is what counts.

use crate::protocol::ModerationItem;
use crate::tui::cards::Cards;
use crate::tui::markdown::{Segment, StreamDoc};

/// Lines of a target's entry kept at most.
pub const MAX_TARGET_LINES: usize = 80;

/// The text the selected item attacks.
#[derive(Debug)]
pub struct ItemTarget {
    /// The target as the item names it: `b2`.
    pub target: String,
    /// The entry, laid out as a pane shows it: a card, or the YAML when
    /// `raw`.
    pub doc: StreamDoc,
}

/// What `item` attacks, laid out as a card (or as YAML when `raw`); `None`
/// for an item without a target entry.
pub fn of(item: &ModerationItem, raw: bool) -> Option<ItemTarget> {
    if item.target.is_empty() || item.target_text.trim().is_empty() {
        return None;
    }
    let mut entry: String = item
        .target_text
        .lines()
        .take(MAX_TARGET_LINES)
        .collect::<Vec<_>>()
        .join("\n");
    entry.push('\n');
    Some(ItemTarget {
        target: item.target.clone(),
        doc: if raw {
            StreamDoc::yaml_excerpt(&entry)
        } else {
            card(&entry)
        },
    })
}

/// `entry` (a YAML list entry de-indented to its keys) as the card its
/// pane shows for it.
fn card(entry: &str) -> StreamDoc {
    let mut record = String::from("```yaml\n");
    for (index, line) in entry.lines().enumerate() {
        record.push_str(if index == 0 { "- " } else { "  " });
        record.push_str(line);
        record.push('\n');
    }
    record.push_str("```\n");
    let mut cards = Cards::new();
    cards.push(Segment::Answer, &record);
    cards.into_doc()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(target: &str, target_text: &str) -> ModerationItem {
        ModerationItem {
            id: "c1".into(),
            target: target.into(),
            target_text: target_text.into(),
            ..ModerationItem::default()
        }
    }

    const BLOCK: &str = "id: b1\ntype: claim\ntext: One table for events.\nrisks: drift\n";

    /// Issue 62: the text an item attacks reads as the card a pane shows,
    /// not as YAML; as YAML only when the lead pane shows raw text.
    /// Issue 63: it is the entry the protocol read, carried by the item.
    #[test]
    fn the_target_reads_as_a_card_unless_its_pane_shows_raw_text() {
        let theme = crate::tui::theme::Theme::builtin("dark").unwrap();
        let mut doc = of(&item("b1", BLOCK), false).unwrap().doc;
        doc.layout(60, &theme);
        let rows = doc.row_texts(0, doc.line_count()).join("\n");
        assert!(rows.contains("b1"), "{rows}");
        assert!(rows.contains("One table for events."), "{rows}");
        assert!(!rows.contains("text:"), "no raw keys: {rows}");
        assert!(!rows.contains("id:"), "{rows}");
        let mut raw = of(&item("b1", BLOCK), true).unwrap().doc;
        raw.layout(60, &theme);
        assert!(
            raw.row_texts(0, raw.line_count())
                .join("\n")
                .contains("text:")
        );
    }

    /// An item about the whole text, or whose target has no entry, shows
    /// none; a long entry is cut at [`MAX_TARGET_LINES`].
    #[test]
    fn only_an_item_with_a_target_entry_has_one() {
        assert!(of(&item("", BLOCK), false).is_none());
        assert!(of(&item("b1", "  \n"), false).is_none());
        let long = "id: b1\n".to_string() + &"risks: many\n".repeat(200);
        let mut raw = of(&item("b1", &long), true).unwrap().doc;
        raw.layout(60, &crate::tui::theme::Theme::builtin("dark").unwrap());
        assert!(
            raw.line_count() <= MAX_TARGET_LINES + 2,
            "{}",
            raw.line_count()
        );
    }
}
