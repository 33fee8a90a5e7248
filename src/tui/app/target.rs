//! The text a moderation item attacks, found in what the lead role wrote.
//!
//! An item names its target (a block id such as `b2`, a hypothesis `H1`);
//! the board carries the name, not the text. The lead role, which put the
//! case the items attack, wrote that text in its answer as a YAML list entry
//! with that `id:`. This finds the latest such entry in the lead panes, for
//! the moderator to read beside the item.
//!
//! Not responsible for reading the answer as the protocol does (its parse is
//! what counts): this is the text as written, and nothing is shown when the
//! entry cannot be found.

use super::AgentPane;
use crate::protocol::RoleGroup;
use crate::tui::cards::Cards;
use crate::tui::markdown::{Segment, StreamDoc};

/// Lines of a target's entry kept at most.
pub const MAX_TARGET_LINES: usize = 80;

/// The text the selected item attacks.
#[derive(Debug)]
pub struct ItemTarget {
    /// The target as the item names it: `b2`.
    pub target: String,
    /// The title of the pane it was found in: `Proposer`.
    pub source: String,
    /// The entry, laid out as its pane shows it: a card, or the YAML as
    /// written when the pane shows the raw text (`t`).
    pub doc: StreamDoc,
}

/// The latest entry declaring `id: {target}` in a lead pane's answer.
pub fn find(panes: &[AgentPane], target: &str) -> Option<ItemTarget> {
    panes
        .iter()
        .filter(|pane| pane.role.group == RoleGroup::Lead)
        .find_map(|pane| {
            let entry = entry_text(&pane.doc.answer_lines(), target)?;
            Some(ItemTarget {
                target: target.to_string(),
                source: pane.role.title.clone(),
                doc: if pane.raw {
                    StreamDoc::yaml_excerpt(&entry)
                } else {
                    card(&entry)
                },
            })
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

/// The YAML entry whose `id:` is `id` (ASCII case ignored, quotes allowed),
/// the last one written: its lines de-indented to its keys. `lines` are an
/// answer's lines, with `None` between attempts (an entry never spans one).
pub fn entry_text(lines: &[Option<&str>], id: &str) -> Option<String> {
    let at = lines
        .iter()
        .rposition(|line| line.is_some_and(|line| declares(line, Some(id))))?;
    let (column, rest, opens) = key_start(lines[at]?);
    let mut entry: Vec<&str> = Vec::new();
    // Keys written before `id:` in the same list entry.
    if !opens {
        let mut before = Vec::new();
        for line in lines[..at].iter().rev() {
            let Some(line) = *line else { break };
            if line.trim().is_empty() || is_fence(line) {
                break;
            }
            let (line_column, line_rest, line_opens) = key_start(line);
            if line_opens && line_column == column {
                before.push(line_rest);
                entry.extend(before.iter().rev().copied());
                break;
            }
            if line_opens || indent(line) < column {
                break;
            }
            before.push(dedent(line, column));
        }
    }
    entry.push(rest);
    for line in lines[at + 1..].iter() {
        let Some(line) = *line else { break };
        if entry.len() >= MAX_TARGET_LINES || is_fence(line) {
            break;
        }
        let sibling_id = key_start(line).0 == column && declares(line, None);
        if !line.trim().is_empty() && (indent(line) < column || sibling_id) {
            break;
        }
        entry.push(dedent(line, column));
    }
    while entry.last().is_some_and(|line| line.trim().is_empty()) {
        entry.pop();
    }
    let mut text = entry.join("\n");
    text.push('\n');
    Some(text)
}

/// Leading spaces (tabs were expanded when the text was cleaned).
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn dedent(line: &str, column: usize) -> &str {
    &line[indent(line).min(column)..]
}

/// Where a line's key starts, the text from there, and whether the line
/// opens a list entry (`  - id: b1` → `(4, "id: b1", true)`).
fn key_start(line: &str) -> (usize, &str, bool) {
    let rest = &line[indent(line)..];
    match rest.strip_prefix("- ") {
        Some(after) => {
            let key = after.trim_start_matches(' ');
            (line.len() - key.len(), key, true)
        }
        None => (indent(line), rest, false),
    }
}

/// The line is `id: {id}`, in or opening a list entry (any id for `None`).
fn declares(line: &str, id: Option<&str>) -> bool {
    let (_, rest, _) = key_start(line);
    let Some((key, value)) = rest.split_once(':') else {
        return false;
    };
    if !key.trim_end().eq_ignore_ascii_case("id") {
        return false;
    }
    let value = value.split(" #").next().unwrap_or_default().trim();
    let value = value.trim_matches(|c| matches!(c, '"' | '\'' | '`'));
    id.is_none_or(|id| !id.is_empty() && value.eq_ignore_ascii_case(id))
}

fn is_fence(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed.starts_with("```") || trimmed.starts_with("~~~")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<Option<&str>> {
        text.lines().map(Some).collect()
    }

    const TREE: &str = "Here is the tree.\n\n```yaml\nblocks:\n  - id: b1\n    type: claim\n    text: \"One table\n      for events.\"\n\n    risks: drift\n  - id: \"B2\"  # the core\n    type: fallback\n    text: keep the log\n```\nThe main bet is b2.\n";

    /// Issue 62: the text an item attacks reads as the card its pane
    /// shows, not as YAML; as written only when the pane shows raw text.
    #[test]
    fn the_target_reads_as_a_card_unless_its_pane_shows_raw_text() {
        let entry = entry_text(&lines(TREE), "b1").unwrap();
        let mut doc = card(&entry);
        doc.layout(60, &crate::tui::theme::Theme::builtin("dark").unwrap());
        let rows = doc.row_texts(0, doc.line_count()).join("\n");
        assert!(rows.contains("b1"), "{rows}");
        assert!(rows.contains("One table for events."), "{rows}");
        assert!(!rows.contains("text:"), "no raw keys: {rows}");
        assert!(!rows.contains("id:"), "{rows}");
        let mut raw = StreamDoc::yaml_excerpt(&entry);
        raw.layout(60, &crate::tui::theme::Theme::builtin("dark").unwrap());
        assert!(
            raw.row_texts(0, raw.line_count())
                .join("\n")
                .contains("text:")
        );
    }

    #[test]
    fn an_entry_runs_from_its_id_to_the_next_entry() {
        assert_eq!(
            entry_text(&lines(TREE), "b1").as_deref(),
            Some("id: b1\ntype: claim\ntext: \"One table\n  for events.\"\n\nrisks: drift\n")
        );
        assert_eq!(
            entry_text(&lines(TREE), "b2").as_deref(),
            Some("id: \"B2\"  # the core\ntype: fallback\ntext: keep the log\n")
        );
        assert_eq!(entry_text(&lines(TREE), "b3"), None);
        assert_eq!(entry_text(&lines(TREE), ""), None);
    }

    #[test]
    fn keys_before_the_id_belong_to_the_entry() {
        let text =
            "- type: claim\n  text: first\n  id: b1\n  risks: none\n- type: claim\n  id: b2\n";
        assert_eq!(
            entry_text(&lines(text), "b1").as_deref(),
            Some("type: claim\ntext: first\nid: b1\nrisks: none\n")
        );
    }

    #[test]
    fn the_latest_attempt_that_has_the_entry_wins() {
        let mut answer = lines("blocks:\n  - id: b1\n    text: first draft\n");
        answer.push(None);
        answer.extend(lines("blocks:\n  - id: b1\n    text: revised\n"));
        answer.push(None);
        answer.extend(lines("blocks:\n  - id: b1\n"));
        answer.push(None);
        assert_eq!(entry_text(&answer, "b1").as_deref(), Some("id: b1\n"));
        answer.truncate(answer.len() - 4);
        assert_eq!(
            entry_text(&answer, "b1").as_deref(),
            Some("id: b1\ntext: revised\n")
        );
    }
}
