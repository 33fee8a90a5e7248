//! The finished source lines of a [`StreamDoc`](super::StreamDoc), stored
//! flat, and the chunks their rows are kept in.
//!
//! Responsible for: holding every finished line's text and [`LineKind`] in
//! one string and a packed record per line, handing them back in order, and
//! the [`RowChunk`] that groups [`CHUNK_LINES`] of them with their rows.
//!
//! Not responsible for: deciding a line's kind (see [`super::blocks`]),
//! laying lines out (see [`super::wrap`]), or the live tail and when a
//! chunk is laid out again (the document itself).

use std::borrow::Cow;

use super::blocks::{BULLET, HOLLOW_BULLET, LineKind};
use super::wrap::{Rows, stored_offset};

/// Finished source lines whose rows are kept together: the unit in which a
/// pane's text is laid out again after a change of width.
pub(super) const CHUNK_LINES: usize = 128;

/// Finished source lines stored flat: one string and, per line, where it
/// ends and what it is, packed in 16 bytes. A line costs its text and those
/// bytes, not an allocation of its own.
#[derive(Debug, Default)]
pub(super) struct SourceLines {
    text: String,
    lines: Vec<PackedLine>,
    /// The kinds that do not pack (none in practice), by line number.
    unpacked: std::collections::HashMap<usize, LineKind>,
}

/// Where a line ends in [`SourceLines::text`], and its kind.
#[derive(Clone, Copy, Debug)]
struct PackedLine {
    end: u32,
    kind: PackedKind,
}

/// A [`LineKind`] in fixed fields: `tag` names the variant; `first` and
/// `second` are its numbers in declaration order (indent or depth, then
/// content start); an ordered list marker is the line's own text at
/// `marker_at`, `marker_len` bytes long, and a bullet is told by `flag`.
#[derive(Clone, Copy, Debug, Default)]
struct PackedKind {
    tag: u8,
    flag: u8,
    marker_len: u8,
    marker_at: u16,
    first: u16,
    second: u16,
}

impl PackedKind {
    /// `kind` of `line` packed, or `None` when a field does not fit.
    fn pack(kind: &LineKind, line: &str) -> Option<PackedKind> {
        let number = |value: usize| u16::try_from(value).ok();
        let packed = |tag, first, second| PackedKind {
            tag,
            first,
            second,
            ..PackedKind::default()
        };
        Some(match kind {
            LineKind::Reasoning => packed(0, 0, 0),
            LineKind::Notice => packed(1, 0, 0),
            LineKind::Blank => packed(2, 0, 0),
            LineKind::Heading { content_start } => packed(3, number(*content_start)?, 0),
            LineKind::ListItem {
                indent,
                marker,
                content_start,
            } => {
                let mut item = packed(4, number(*indent)?, number(*content_start)?);
                match marker.as_ref() {
                    BULLET => item.flag = 0,
                    HOLLOW_BULLET => item.flag = 1,
                    ordered => {
                        let at = line.len() - line.trim_start().len();
                        if !line[at..].starts_with(ordered) {
                            return None;
                        }
                        item.flag = 2;
                        item.marker_at = u16::try_from(at).ok()?;
                        item.marker_len = u8::try_from(ordered.len()).ok()?;
                    }
                }
                item
            }
            LineKind::Quote {
                depth,
                content_start,
            } => packed(5, number(*depth)?, number(*content_start)?),
            LineKind::Rule => packed(6, 0, 0),
            LineKind::Fence => packed(7, 0, 0),
            LineKind::Code { yaml } => PackedKind {
                flag: u8::from(*yaml),
                ..packed(8, 0, 0)
            },
            LineKind::Paragraph {
                indent,
                content_start,
            } => packed(9, number(*indent)?, number(*content_start)?),
            LineKind::Table => packed(10, 0, 0),
        })
    }

    fn unpack(self, line: &str) -> LineKind {
        let (first, second) = (usize::from(self.first), usize::from(self.second));
        match self.tag {
            0 => LineKind::Reasoning,
            1 => LineKind::Notice,
            2 => LineKind::Blank,
            3 => LineKind::Heading {
                content_start: first,
            },
            4 => LineKind::ListItem {
                indent: first,
                marker: match self.flag {
                    0 => Cow::Borrowed(BULLET),
                    1 => Cow::Borrowed(HOLLOW_BULLET),
                    _ => {
                        let at = usize::from(self.marker_at);
                        Cow::Owned(line[at..at + usize::from(self.marker_len)].to_string())
                    }
                },
                content_start: second,
            },
            5 => LineKind::Quote {
                depth: first,
                content_start: second,
            },
            6 => LineKind::Rule,
            7 => LineKind::Fence,
            8 => LineKind::Code {
                yaml: self.flag == 1,
            },
            10 => LineKind::Table,
            _ => LineKind::Paragraph {
                indent: first,
                content_start: second,
            },
        }
    }
}

impl SourceLines {
    pub(super) fn push(&mut self, text: &str, kind: LineKind) {
        self.text.push_str(text);
        let end = stored_offset(self.text.len());
        let packed = PackedKind::pack(&kind, text).unwrap_or_else(|| {
            self.unpacked.insert(self.lines.len(), kind);
            PackedKind::default()
        });
        self.lines.push(PackedLine { end, kind: packed });
    }

    pub(super) fn len(&self) -> usize {
        self.lines.len()
    }

    /// Lines from number `first` on: their text and kind.
    pub(super) fn from(&self, first: usize) -> impl Iterator<Item = (&str, LineKind)> {
        let first = first.min(self.lines.len());
        let mut at = if first == 0 {
            0
        } else {
            self.lines[first - 1].end as usize
        };
        self.lines[first..]
            .iter()
            .enumerate()
            .map(move |(offset, line)| {
                let text = &self.text[at..line.end as usize];
                at = line.end as usize;
                let kind = match self.unpacked.get(&(first + offset)) {
                    Some(kind) => kind.clone(),
                    None => line.kind.unpack(text),
                };
                (text, kind)
            })
    }
}

/// The rows of up to [`CHUNK_LINES`] finished source lines.
#[derive(Debug, Default)]
pub(super) struct RowChunk {
    /// Source lines in the chunk.
    pub(super) lines: usize,
    /// Their rows at the current width; empty until laid out, and again
    /// once let go.
    pub(super) rows: Rows,
    /// How many rows they make at the current width, which stays when the
    /// rows are let go.
    pub(super) row_count: usize,
    /// The rows were let go, far from any view: `row_count` stands, and the
    /// rows are laid out again when a view comes near.
    pub(super) let_go: bool,
}

impl RowChunk {
    /// The same lines with no rows: after a change of width or theme.
    pub(super) fn unlaid(&self) -> RowChunk {
        RowChunk {
            lines: self.lines,
            ..RowChunk::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::blocks::{BlockState, classify};
    use super::*;

    #[test]
    fn every_kind_packs_and_unpacks_to_itself() {
        let lines = [
            "",
            "# Title #",
            "  - nested",
            "- top",
            "12. twelve",
            "   3) three",
            "> quoted",
            ">> > deep",
            "---",
            "```yaml",
            "key: value",
            "plain text",
            "    indented",
            "* star",
            "+ plus",
            "1.",
            "\t- tabbed",
        ];
        let mut state = BlockState::default();
        for line in lines {
            let (kind, next) = classify(&state, line);
            state = next;
            let packed = PackedKind::pack(&kind, line).expect("packs");
            assert_eq!(packed.unpack(line), kind, "{line:?}");
            let continued = kind.continuation();
            assert_eq!(
                PackedKind::pack(&continued, line)
                    .expect("packs")
                    .unpack(line),
                continued
            );
        }
        for kind in [LineKind::Reasoning, LineKind::Notice] {
            assert_eq!(PackedKind::pack(&kind, "x").unwrap().unpack("x"), kind);
        }
        let mut lines = SourceLines::default();
        let odd = LineKind::ListItem {
            indent: 0,
            marker: Cow::Owned("9.".to_string()),
            content_start: 0,
        };
        lines.push("not a marker here", odd.clone());
        lines.push("- next", LineKind::Blank);
        let kinds: Vec<LineKind> = lines.from(0).map(|(_, kind)| kind).collect();
        assert_eq!(
            kinds,
            [odd, LineKind::Blank],
            "what does not pack is kept as it is"
        );
    }
}
