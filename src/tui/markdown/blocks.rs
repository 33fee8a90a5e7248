//! What a line of markdown is, read on its own with the block state carried
//! from the line before.
//!
//! Responsible for: classifying one answer line as a heading, list item,
//! quote, rule, code fence, code or paragraph ([`LineKind`]), the state that
//! carries from line to line (an open fence, the rest of a line cut for
//! length), and the small readers of block syntax (fence openings, list
//! markers, rules, heading markers) that the cards and the inline reader
//! share.
//!
//! Not responsible for: how a line looks (see [`super::wrap`] and
//! [`super::inline`]), storing lines (see [`super::source`]), or anything
//! that needs the lines after this one: setext headings and lazy paragraph
//! continuation are not recognised.

use std::borrow::Cow;

use super::text_width;

pub(super) const BULLET: &str = "•";
pub(super) const HOLLOW_BULLET: &str = "◦";

/// What one source line is, decided when it is read. Offsets are bytes into
/// the line; indents are columns.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum LineKind {
    Reasoning,
    Notice,
    Blank,
    Heading {
        content_start: usize,
    },
    ListItem {
        indent: usize,
        marker: Cow<'static, str>,
        content_start: usize,
    },
    Quote {
        depth: usize,
        content_start: usize,
    },
    Rule,
    /// An opening or closing code fence, shown as written.
    Fence,
    Code {
        yaml: bool,
    },
    Paragraph {
        indent: usize,
        content_start: usize,
    },
    /// A whole table: its rows, header and alignment row first, one to a
    /// line of the text (see [`super::table`]).
    Table,
}

impl LineKind {
    /// How the rest of a line that was cut for length continues.
    pub(super) fn continuation(&self) -> LineKind {
        match self {
            LineKind::Reasoning => LineKind::Reasoning,
            LineKind::Heading { .. } => LineKind::Heading { content_start: 0 },
            LineKind::ListItem { indent, marker, .. } => LineKind::Paragraph {
                indent: indent + text_width(marker) + 1,
                content_start: 0,
            },
            LineKind::Quote { depth, .. } => LineKind::Quote {
                depth: *depth,
                content_start: 0,
            },
            LineKind::Code { yaml } => LineKind::Code { yaml: *yaml },
            LineKind::Paragraph { indent, .. } => LineKind::Paragraph {
                indent: *indent,
                content_start: 0,
            },
            LineKind::Notice
            | LineKind::Blank
            | LineKind::Rule
            | LineKind::Fence
            | LineKind::Table => LineKind::Paragraph {
                indent: 0,
                content_start: 0,
            },
        }
    }
}

/// Markdown state carried from one answer line to the next.
#[derive(Clone, Debug, Default)]
pub(super) struct BlockState {
    fence: Option<Fence>,
    /// The kind of the next line when the previous one was cut for length.
    pub(super) carry: Option<LineKind>,
}

impl BlockState {
    /// Outside any code block, with nothing carried from a line cut for
    /// length: where a table may start or go on.
    pub(super) fn is_prose(&self) -> bool {
        self.fence.is_none() && self.carry.is_none()
    }

    /// Inside a YAML code block.
    pub(super) fn yaml_code() -> BlockState {
        BlockState {
            fence: Some(Fence {
                marker: '`',
                len: 3,
                yaml: true,
            }),
            carry: None,
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct Fence {
    marker: char,
    len: usize,
    yaml: bool,
}

/// An opening code fence: its character, its length and the first word of
/// its info string (the language, maybe empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenceOpening<'a> {
    pub marker: char,
    pub len: usize,
    pub language: &'a str,
}

impl FenceOpening<'_> {
    /// Whether `line` closes this fence.
    pub fn closed_by(&self, line: &str) -> bool {
        let trimmed = line.trim();
        trimmed.len() >= self.len && trimmed.chars().all(|c| c == self.marker)
    }
}

/// The code fence `line` opens, if it opens one (read as the markdown of
/// a pane reads it).
pub fn fence_opening(line: &str) -> Option<FenceOpening<'_>> {
    let trimmed = line.trim_start();
    let marker = trimmed.chars().next().filter(|&c| c == '`' || c == '~')?;
    let len = trimmed.chars().take_while(|&c| c == marker).count();
    if len < 3 {
        return None;
    }
    // The fence characters are ASCII: `len` is also a byte offset.
    let info = trimmed[len..].trim();
    if marker == '`' && info.contains('`') {
        return None;
    }
    let language = info
        .split(|c: char| c.is_whitespace() || c == '{' || c == '}' || c == ',')
        .find(|word| !word.is_empty())
        .unwrap_or("");
    Some(FenceOpening {
        marker,
        len,
        language,
    })
}

/// Reads one answer line in `state`; returns its kind and the next state.
pub(super) fn classify(state: &BlockState, line: &str) -> (LineKind, BlockState) {
    let mut next = state.clone();
    if let Some(kind) = next.carry.take() {
        return (kind, next);
    }
    if let Some(fence) = &state.fence {
        if closes_fence(line, fence) {
            next.fence = None;
            return (LineKind::Fence, next);
        }
        return (LineKind::Code { yaml: fence.yaml }, next);
    }
    if let Some(fence) = opens_fence(line) {
        next.fence = Some(fence);
        return (LineKind::Fence, next);
    }
    (classify_prose(line), next)
}

pub(super) fn classify_prose(line: &str) -> LineKind {
    let trimmed = line.trim_start();
    let content_offset = line.len() - trimmed.len();
    let indent = text_width(&line[..content_offset]);
    if trimmed.is_empty() {
        return LineKind::Blank;
    }
    if indent <= 3 {
        if is_rule(trimmed) {
            return LineKind::Rule;
        }
        if let Some(heading_content) = heading_content(trimmed) {
            return LineKind::Heading {
                content_start: line.len() - heading_content.len(),
            };
        }
        if trimmed.starts_with('>') {
            let mut rest = trimmed;
            let mut depth = 0;
            while let Some(after) = rest.strip_prefix('>') {
                depth += 1;
                rest = after.strip_prefix(' ').unwrap_or(after);
            }
            return LineKind::Quote {
                depth,
                content_start: line.len() - rest.len(),
            };
        }
    }
    if let Some((marker, marker_len)) = list_marker(trimmed) {
        let content = trimmed[marker_len..].trim_start();
        let marker = if marker.len() == 1 {
            // Bullets alternate with nesting (two columns per level).
            Cow::Borrowed(if (indent / 2).is_multiple_of(2) {
                BULLET
            } else {
                HOLLOW_BULLET
            })
        } else {
            Cow::Owned(marker.to_string())
        };
        return LineKind::ListItem {
            indent,
            marker,
            content_start: line.len() - content.len(),
        };
    }
    LineKind::Paragraph {
        indent,
        content_start: content_offset,
    }
}

pub(super) fn opens_fence(line: &str) -> Option<Fence> {
    let opening = fence_opening(line)?;
    let language = opening.language;
    Some(Fence {
        marker: opening.marker,
        len: opening.len,
        yaml: language.eq_ignore_ascii_case("yaml") || language.eq_ignore_ascii_case("yml"),
    })
}

fn closes_fence(line: &str, fence: &Fence) -> bool {
    let trimmed = line.trim();
    trimmed.len() >= fence.len && trimmed.chars().all(|c| c == fence.marker)
}

/// `---`, `***`, `___`, spaces allowed between.
pub(super) fn is_rule(trimmed: &str) -> bool {
    let mut marks = trimmed.chars().filter(|c| !c.is_whitespace());
    let Some(first) = marks.next() else {
        return false;
    };
    matches!(first, '-' | '*' | '_')
        && trimmed.chars().filter(|&c| c == first).count() >= 3
        && trimmed.chars().all(|c| c == first || c == ' ')
}

/// The text of an ATX heading (`#` to `######`), without its markers.
fn heading_content(trimmed: &str) -> Option<&str> {
    let level = trimmed.chars().take_while(|&c| c == '#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &trimmed[level..];
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some(rest.trim_start())
}

/// Drops a heading's closing `#` run (`## Title ##` → `Title`).
pub(super) fn without_closing_hashes(content: &str) -> &str {
    let trimmed = content.trim_end();
    let before_hashes = trimmed.trim_end_matches('#');
    if before_hashes.len() == trimmed.len() {
        return trimmed;
    }
    if before_hashes.is_empty() || before_hashes.ends_with(' ') {
        before_hashes.trim_end()
    } else {
        trimmed
    }
}

/// A list marker at the start of `trimmed` (`-`, `*`, `+`, `12.`, `3)`)
/// followed by a space or the end of the line; the marker and its length.
pub(super) fn list_marker(trimmed: &str) -> Option<(&str, usize)> {
    let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
    let marker_len = match trimmed.as_bytes().get(digits) {
        Some(b'-' | b'*' | b'+') if digits == 0 => 1,
        Some(b'.' | b')') if (1..=9).contains(&digits) => digits + 1,
        _ => return None,
    };
    let after = &trimmed[marker_len..];
    (after.is_empty() || after.starts_with(' ')).then_some((&trimmed[..marker_len], marker_len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_block_starts() {
        let state = BlockState::default();
        let kind = |line: &str| classify(&state, line).0;
        assert_eq!(kind("## Title ##"), LineKind::Heading { content_start: 3 });
        assert_eq!(
            kind("#hashtag"),
            LineKind::Paragraph {
                indent: 0,
                content_start: 0
            }
        );
        assert_eq!(kind("---"), LineKind::Rule);
        assert_eq!(kind(" * * *"), LineKind::Rule);
        assert_eq!(
            kind("> > deep"),
            LineKind::Quote {
                depth: 2,
                content_start: 4
            }
        );
        assert!(
            matches!(kind("  - nested"), LineKind::ListItem { indent: 2, ref marker, content_start: 4 } if marker == "◦")
        );
        assert!(
            matches!(kind("12. twelve"), LineKind::ListItem { indent: 0, ref marker, content_start: 4 } if marker == "12.")
        );
        assert_eq!(
            kind("-5 degrees"),
            LineKind::Paragraph {
                indent: 0,
                content_start: 0
            }
        );
        assert_eq!(
            kind("2024.05 was a release"),
            LineKind::Paragraph {
                indent: 0,
                content_start: 0
            }
        );
        assert_eq!(kind("   "), LineKind::Blank);
    }

    #[test]
    fn fences_open_and_close_with_their_own_marker() {
        let (kind, state) = classify(&BlockState::default(), "```yaml");
        assert_eq!(kind, LineKind::Fence);
        assert!(state.fence.as_ref().unwrap().yaml);
        assert_eq!(classify(&state, "~~~").0, LineKind::Code { yaml: true });
        assert_eq!(
            classify(&state, "# not a heading").0,
            LineKind::Code { yaml: true }
        );
        let (kind, state) = classify(&state, "````");
        assert_eq!(kind, LineKind::Fence);
        assert!(state.fence.is_none());
        assert!(opens_fence("``` not`valid").is_none());
        assert!(opens_fence("~~~ yml").unwrap().yaml);
        assert!(opens_fence("```{yaml}").unwrap().yaml);
    }
}
