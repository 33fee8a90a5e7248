//! An agent's streaming text, laid out as markdown rows for a pane.
//!
//! Responsible for: keeping the text an agent has streamed so far (answer and
//! reasoning apart), reading it as markdown line by line with the block state
//! (code fences, …) carried from one line to the next, and wrapping it to a
//! pane's width as styled rows. Finished lines are laid out once per width and
//! theme and kept, in chunks of lines; only the live tail (the text after the
//! last newline) is laid out again when more text arrives. After a change of
//! width a pane may lay out the end of its text first and the rest over later
//! frames ([`StreamDoc::layout_from_end`]). Handing out a window of rows takes
//! `&self` and costs only the size of the window.
//!
//! Not responsible for: cleaning the text (it arrives already sanitised, see
//! [`crate::text`]), scrolling or following the stream (the pane keeps its
//! own offset), borders and titles, or deciding when to draw.
//!
//! The markdown is read one line at a time, so a line's rows never depend on
//! the lines after it: headings, lists, block quotes, rules and fenced code
//! blocks are recognised by their own line (plus whether a fence is open);
//! setext headings and lazy paragraph continuation are not. Inline spans
//! (code, strong, emphasis, links) are read by pulldown-cmark.

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use crate::text::is_displayable;
use crate::tui::theme::Theme;

/// Length in bytes the live tail may reach before its head is committed as a
/// finished line. Bounds the work of laying out the tail again on every push
/// when an agent writes one very long line; the rest continues the same block.
pub const LONG_LINE_SPLIT_BYTES: usize = 4096;

/// Finished source lines whose rows are kept together: the unit in which a
/// pane's text is laid out again after a change of width.
const CHUNK_LINES: usize = 128;

/// Bytes of source text the panes of one frame lay out again beyond the rows
/// they show, after a change of width ([`StreamDoc::layout_from_end`]):
/// well under a millisecond of work, so several panes catching up at once
/// still leave a frame quick.
pub const LAYOUT_BUDGET_BYTES: usize = 32 * 1024;

/// Columns of text a row keeps when an indent, a list marker or a quote bar
/// would leave less; the prefix is cut short instead.
const MIN_TEXT_COLUMNS: usize = 8;

/// Columns a continuation row should keep for its text: a hanging indent
/// (under a YAML value, under a list item's text) that would leave fewer
/// (or less than half the width, in a narrow pane) gives way to a small
/// fixed indent, so a long value never wraps one word to a row.
const READABLE_COLUMNS: usize = 20;

/// The small indent continuation rows take instead of a hanging indent that
/// leaves too little room, beyond the line's own indent.
const FALLBACK_HANG_COLUMNS: usize = 2;

/// The mark at the start of a code row that continues the line above.
const CODE_CONTINUATION: &str = "↪ ";

/// Which part of an agent's output a piece of text belongs to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Segment {
    /// The answer itself, rendered as markdown.
    #[default]
    Answer,
    /// Reasoning shown alongside the answer: styled as reasoning, never read
    /// as markdown.
    Reasoning,
}

/// The text of one pane and its rows, laid out for the last width and theme.
#[derive(Debug, Default)]
pub struct StreamDoc {
    finished: SourceLines,
    /// Block state after the last finished answer line.
    blocks: BlockState,
    tail: String,
    tail_segment: Segment,
    source_len: usize,
    /// Width and theme of the rows below.
    laid_for: Option<(usize, Theme)>,
    /// The rows of the finished lines, [`CHUNK_LINES`] source lines to a
    /// chunk (the last may hold fewer). After a change of width only the
    /// chunks from `first_laid` on are laid out: the end of the text, which
    /// is what a following pane shows, comes first.
    chunks: Vec<RowChunk>,
    /// Chunks before this one have no rows at the current width yet.
    first_laid: usize,
    /// How many of `finished` belong to a chunk.
    laid_finished: usize,
    /// Rows the last layout put above rows that existed before it, at the
    /// same width (see [`take_rows_added_above`](Self::take_rows_added_above)).
    rows_added_above: usize,
    tail_rows: Rows,
    tail_changed: bool,
    lines_laid_last_layout: usize,
    /// Provisional text shown after everything else (see
    /// [`trailer`](Self::trailer)).
    trailer: Option<Box<StreamDoc>>,
}

impl StreamDoc {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends text that is already sanitised. A change of segment starts a
    /// new line, so a line never mixes answer and reasoning.
    pub fn push(&mut self, segment: Segment, text: &str) {
        if text.is_empty() {
            return;
        }
        self.source_len += text.len();
        if segment != self.tail_segment {
            if !self.tail.is_empty() {
                self.finish_tail();
            }
            self.tail_segment = segment;
        }
        for piece in text.split_inclusive('\n') {
            let (body, ends_line) = match piece.strip_suffix('\n') {
                Some(body) => (body, true),
                None => (piece, false),
            };
            self.tail.push_str(body);
            while self.tail.len() > LONG_LINE_SPLIT_BYTES {
                self.commit_head_of_long_tail();
            }
            if ends_line {
                self.finish_tail();
            }
        }
        self.tail_changed = true;
    }

    /// Adds a full-width rule carrying `text` (such as "attempt 1 timed out
    /// after 600 s") on a line of its own. What follows is read as a fresh
    /// document: a code block left open by a failed attempt does not swallow
    /// the retry.
    pub fn push_notice(&mut self, text: &str) {
        if !self.tail.is_empty() {
            self.finish_tail();
        }
        let text = text
            .chars()
            .map(|c| if c == '\n' { ' ' } else { c })
            .filter(|&c| is_displayable(c))
            .collect();
        let text: String = text;
        self.finished.push(&text, LineKind::Notice);
        self.blocks = BlockState::default();
        self.tail_changed = true;
    }

    /// Forgets all text and rows.
    pub fn clear(&mut self) {
        *self = StreamDoc {
            laid_for: self.laid_for.take(),
            ..StreamDoc::default()
        };
    }

    /// Forgets all text and rows, and reads what comes next as the inside
    /// of a YAML code block when `yaml_code` is set (as
    /// [`yaml_excerpt`](Self::yaml_excerpt) does), as fresh markdown if not.
    pub fn clear_as(&mut self, yaml_code: bool) {
        self.clear();
        if yaml_code {
            self.blocks = BlockState::yaml_code();
        }
    }

    /// A second document whose rows follow this one's: provisional text
    /// that is replaced as a whole (cleared and written again) while the
    /// text above it only grows. It is laid out with this document, always
    /// in full, so it should stay small; it counts in
    /// [`line_count`](Self::line_count) and [`lines`](Self::lines) but not
    /// in [`source_len`](Self::source_len) or
    /// [`answer_lines`](Self::answer_lines).
    pub fn trailer(&mut self) -> &mut StreamDoc {
        self.trailer.get_or_insert_with(Box::default)
    }

    /// Brings the rows up to date for `width` columns and `theme`: lays out
    /// the lines finished since the last call and the live tail, or every line
    /// when the width or the theme changed. A width of 0 keeps the rows as
    /// they are.
    pub fn layout(&mut self, width: u16, theme: &Theme) {
        self.lay_out_rows(width, theme, None);
    }

    /// Like [`layout`](Self::layout), but after a change of width or theme
    /// lays out the text from its end back only until the last `rows` rows
    /// exist, and then as long as `budget` lasts (bytes of source text,
    /// shared by the documents of one frame, normally
    /// [`LAYOUT_BUDGET_BYTES`]): a pane's frame after a zoom costs what it
    /// shows, not all it holds. Later calls carry on towards the beginning;
    /// returns whether every row exists. Rows laid out above those already
    /// there are counted for
    /// [`take_rows_added_above`](Self::take_rows_added_above).
    pub fn layout_from_end(
        &mut self,
        width: u16,
        theme: &Theme,
        rows: usize,
        budget: &mut usize,
    ) -> bool {
        self.lay_out_rows(width, theme, Some((rows, budget)));
        self.first_laid == 0
    }

    /// Rows the last layout put above rows that were there before it (at
    /// the same width): what a reader's absolute position moves by.
    pub fn take_rows_added_above(&mut self) -> usize {
        std::mem::take(&mut self.rows_added_above)
    }

    fn lay_out_rows(&mut self, width: u16, theme: &Theme, mut wanted: Option<(usize, &mut usize)>) {
        let width = usize::from(width);
        if width == 0 {
            self.lines_laid_last_layout = 0;
            return;
        }
        let unchanged = self
            .laid_for
            .as_ref()
            .is_some_and(|(laid_width, laid_theme)| *laid_width == width && laid_theme == theme);
        if !unchanged {
            self.laid_for = Some((width, theme.clone()));
            for chunk in &mut self.chunks {
                chunk.rows = Rows::default();
            }
            self.first_laid = self.chunks.len();
            self.tail_changed = true;
        }
        // Rows added above others count only if those were there before,
        // at this width.
        let counted = unchanged;
        self.rows_added_above = 0;
        let mut layouter = Layouter::new(width, theme);
        let mut laid = 0;
        // Lines finished since the last call go to the last chunk, which
        // must be laid out itself first, or to a new one.
        while self.laid_finished < self.finished.len() {
            let open = self
                .chunks
                .last()
                .is_some_and(|chunk| chunk.lines < CHUNK_LINES);
            if !open {
                if let Some(full) = self.chunks.last_mut() {
                    full.rows.shrink_to_fit();
                }
                self.chunks.push(RowChunk::default());
            } else if self.first_laid == self.chunks.len() {
                laid += self.lay_out_chunk(self.chunks.len() - 1, &mut layouter).0;
            }
            if self.first_laid == self.chunks.len() {
                self.first_laid -= 1;
            }
            let last = self.chunks.len() - 1;
            let room = CHUNK_LINES - self.chunks[last].lines;
            let new = (self.finished.len() - self.laid_finished).min(room);
            let chunk = &mut self.chunks[last];
            for (text, kind) in self.finished.from(self.laid_finished).take(new) {
                layouter.lay_out(text, &kind, &mut chunk.rows);
            }
            chunk.lines += new;
            self.laid_finished += new;
            laid += new;
        }
        if self.tail_changed {
            self.tail_rows.clear();
            if !self.tail.is_empty() {
                let kind = self.tail_kind();
                layouter.lay_out(&self.tail, &kind, &mut self.tail_rows);
                laid += 1;
            }
            self.tail_changed = false;
        }
        // Chunks without rows at this width, from the end back: all of them,
        // or those the wanted rows need and then about a budget's worth.
        let mut rows_now = self.line_count();
        while self.first_laid > 0 {
            let view_filled = wanted.as_ref().is_some_and(|(rows, _)| rows_now >= *rows);
            if view_filled && wanted.as_ref().is_some_and(|(_, budget)| **budget == 0) {
                break;
            }
            let (lines, bytes) = self.lay_out_chunk(self.first_laid - 1, &mut layouter);
            self.first_laid -= 1;
            let added = self.chunks[self.first_laid].rows.len();
            rows_now += added;
            if counted {
                self.rows_added_above += added;
            }
            if view_filled && let Some((_, budget)) = wanted.as_mut() {
                **budget = budget.saturating_sub(bytes);
            }
            laid += lines;
        }
        if let Some(trailer) = &mut self.trailer {
            trailer.lay_out_rows(u16::try_from(width).unwrap_or(u16::MAX), theme, None);
            laid += trailer.lines_laid_last_layout;
        }
        self.lines_laid_last_layout = laid;
    }

    /// Lays out the lines of chunk `index` into its (empty) rows; returns
    /// how many lines and bytes of text.
    fn lay_out_chunk(&mut self, index: usize, layouter: &mut Layouter<'_>) -> (usize, usize) {
        let first = index * CHUNK_LINES;
        let chunk = &mut self.chunks[index];
        let mut bytes = 0;
        for (text, kind) in self.finished.from(first).take(chunk.lines) {
            layouter.lay_out(text, &kind, &mut chunk.rows);
            bytes += text.len();
        }
        if chunk.lines == CHUNK_LINES {
            chunk.rows.shrink_to_fit();
        }
        (chunk.lines, bytes)
    }

    /// Rows at the last layout width (after a budgeted layout, those that
    /// exist so far: the end of the text).
    pub fn line_count(&self) -> usize {
        self.own_line_count()
            + self
                .trailer
                .as_ref()
                .map_or(0, |trailer| trailer.line_count())
    }

    fn own_line_count(&self) -> usize {
        self.laid_chunks()
            .map(|chunk| chunk.rows.len())
            .sum::<usize>()
            + self.tail_rows.len()
    }

    fn laid_chunks(&self) -> std::slice::Iter<'_, RowChunk> {
        self.chunks[self.first_laid.min(self.chunks.len())..].iter()
    }

    /// Up to `count` rows from row `start`, as of the last layout.
    pub fn lines(&self, start: usize, count: usize) -> Vec<Line<'_>> {
        let mut lines = Vec::with_capacity(count.min(self.line_count()));
        let mut skip = start;
        for rows in self
            .laid_chunks()
            .map(|chunk| &chunk.rows)
            .chain(std::iter::once(&self.tail_rows))
        {
            if lines.len() == count {
                break;
            }
            if skip >= rows.len() {
                skip -= rows.len();
                continue;
            }
            let take = (rows.len() - skip).min(count - lines.len());
            lines.extend((skip..skip + take).map(|row| rows.line(row)));
            skip = 0;
        }
        if let Some(trailer) = &self.trailer
            && lines.len() < count
        {
            lines.extend(trailer.lines(skip, count - lines.len()));
        }
        lines
    }

    /// Bytes of agent text pushed so far (notices not counted).
    pub fn source_len(&self) -> usize {
        self.source_len
    }

    /// A document read as the inside of a YAML code block, laid out as a
    /// pane lays the YAML an agent fenced: for an excerpt of that YAML.
    pub fn yaml_excerpt(text: &str) -> StreamDoc {
        let mut doc = StreamDoc {
            blocks: BlockState::yaml_code(),
            ..StreamDoc::default()
        };
        doc.push(Segment::Answer, text);
        doc
    }

    /// The answer's source lines, oldest first, the live tail last
    /// (reasoning left out); `None` stands for a notice, the boundary
    /// between two attempts. A line longer than [`LONG_LINE_SPLIT_BYTES`]
    /// comes in pieces.
    pub fn answer_lines(&self) -> Vec<Option<&str>> {
        let tail = (self.tail_segment == Segment::Answer && !self.tail.is_empty())
            .then_some(Some(self.tail.as_str()));
        self.finished
            .from(0)
            .filter_map(|(text, kind)| match kind {
                LineKind::Reasoning => None,
                LineKind::Notice => Some(None),
                _ => Some(Some(text)),
            })
            .chain(tail)
            .collect()
    }

    /// Source lines (finished lines and the live tail) the last
    /// [`layout`](Self::layout) laid out: the measure of its work.
    pub fn lines_laid_last_layout(&self) -> usize {
        self.lines_laid_last_layout
    }

    fn finish_tail(&mut self) {
        let text = std::mem::take(&mut self.tail);
        let kind = self.classify_and_advance(&text);
        self.finished.push(&text, kind);
        // The tail's allocation is reused for the next line.
        self.tail = text;
        self.tail.clear();
    }

    fn commit_head_of_long_tail(&mut self) {
        let cut = long_line_cut(&self.tail);
        let rest = self.tail.split_off(cut);
        let head = std::mem::replace(&mut self.tail, rest);
        let kind = self.classify_and_advance(&head);
        if self.tail_segment == Segment::Answer {
            self.blocks.carry = Some(kind.continuation());
        }
        self.finished.push(&head, kind);
    }

    fn classify_and_advance(&mut self, line: &str) -> LineKind {
        match self.tail_segment {
            Segment::Reasoning => LineKind::Reasoning,
            Segment::Answer => {
                let (kind, next) = classify(&self.blocks, line);
                self.blocks = next;
                kind
            }
        }
    }

    fn tail_kind(&self) -> LineKind {
        match self.tail_segment {
            Segment::Reasoning => LineKind::Reasoning,
            Segment::Answer => classify(&self.blocks, &self.tail).0,
        }
    }
}

/// Where to cut a tail longer than [`LONG_LINE_SPLIT_BYTES`]: after the last
/// space in its second half, else at the limit.
fn long_line_cut(tail: &str) -> usize {
    let mut cut = LONG_LINE_SPLIT_BYTES;
    while !tail.is_char_boundary(cut) {
        cut -= 1;
    }
    match tail[..cut].rfind(' ') {
        Some(space) if space >= LONG_LINE_SPLIT_BYTES / 2 => space + 1,
        _ => cut,
    }
}

/// Finished source lines stored flat: one string and, per line, where it
/// ends and what it is, packed in 16 bytes. A line costs its text and those
/// bytes, not an allocation of its own.
#[derive(Debug, Default)]
struct SourceLines {
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

const BULLET: &str = "•";
const HOLLOW_BULLET: &str = "◦";

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
            _ => LineKind::Paragraph {
                indent: first,
                content_start: second,
            },
        }
    }
}

impl SourceLines {
    fn push(&mut self, text: &str, kind: LineKind) {
        self.text.push_str(text);
        let end = stored_offset(self.text.len());
        let packed = PackedKind::pack(&kind, text).unwrap_or_else(|| {
            self.unpacked.insert(self.lines.len(), kind);
            PackedKind::default()
        });
        self.lines.push(PackedLine { end, kind: packed });
    }

    fn len(&self) -> usize {
        self.lines.len()
    }

    /// Lines from number `first` on: their text and kind.
    fn from(&self, first: usize) -> impl Iterator<Item = (&str, LineKind)> {
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

/// What one source line is, decided when it is read. Offsets are bytes into
/// the line; indents are columns.
#[derive(Clone, Debug, PartialEq)]
enum LineKind {
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
}

impl LineKind {
    /// How the rest of a line that was cut for length continues.
    fn continuation(&self) -> LineKind {
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
            LineKind::Notice | LineKind::Blank | LineKind::Rule | LineKind::Fence => {
                LineKind::Paragraph {
                    indent: 0,
                    content_start: 0,
                }
            }
        }
    }
}

/// Markdown state carried from one answer line to the next.
#[derive(Clone, Debug, Default)]
struct BlockState {
    fence: Option<Fence>,
    /// The kind of the next line when the previous one was cut for length.
    carry: Option<LineKind>,
}

impl BlockState {
    /// Inside a YAML code block.
    fn yaml_code() -> BlockState {
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
struct Fence {
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
fn classify(state: &BlockState, line: &str) -> (LineKind, BlockState) {
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

fn classify_prose(line: &str) -> LineKind {
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

fn opens_fence(line: &str) -> Option<Fence> {
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
fn is_rule(trimmed: &str) -> bool {
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
fn without_closing_hashes(content: &str) -> &str {
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
fn list_marker(trimmed: &str) -> Option<(&str, usize)> {
    let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
    let marker_len = match trimmed.as_bytes().get(digits) {
        Some(b'-' | b'*' | b'+') if digits == 0 => 1,
        Some(b'.' | b')') if (1..=9).contains(&digits) => digits + 1,
        _ => return None,
    };
    let after = &trimmed[marker_len..];
    (after.is_empty() || after.starts_with(' ')).then_some((&trimmed[..marker_len], marker_len))
}

fn text_width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// The rows of up to [`CHUNK_LINES`] finished source lines.
#[derive(Debug, Default)]
struct RowChunk {
    /// Source lines in the chunk.
    lines: usize,
    /// Their rows at the current width; empty until laid out.
    rows: Rows,
}

/// Styled rows stored flat: one string, span ends into it, row ends into the
/// spans. Keeps a chunk of a long transcript to a few allocations.
#[derive(Debug, Default)]
struct Rows {
    text: String,
    spans: Vec<StoredSpan>,
    /// The styles the spans use, each once; a span names one by index.
    styles: Vec<Style>,
    /// For each row, the end of its spans in `spans`.
    row_ends: Vec<u32>,
    /// The first span of the row being written.
    open_row_first_span: usize,
}

/// A span: where its text ends in [`Rows::text`] and its style's index in
/// [`Rows::styles`]. Eight bytes, for rows that are mostly spans.
#[derive(Debug)]
struct StoredSpan {
    text_end: u32,
    style: u16,
}

/// A row offset as stored: text beyond 4 GiB in one pane is not held.
fn stored_offset(offset: usize) -> u32 {
    u32::try_from(offset).unwrap_or(u32::MAX)
}

impl Rows {
    fn clear(&mut self) {
        self.text.clear();
        self.spans.clear();
        self.styles.clear();
        self.row_ends.clear();
        self.open_row_first_span = 0;
    }

    /// Gives back what a finished chunk's rows will never use.
    fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.spans.shrink_to_fit();
        self.styles.shrink_to_fit();
        self.row_ends.shrink_to_fit();
    }

    fn len(&self) -> usize {
        self.row_ends.len()
    }

    fn start_row(&mut self) {
        self.open_row_first_span = self.spans.len();
    }

    fn push_char(&mut self, c: char, style: Style) {
        self.text.push(c);
        let text_end = stored_offset(self.text.len());
        let row_has_spans = self.spans.len() > self.open_row_first_span;
        match self.spans.last_mut() {
            Some(last) if row_has_spans && self.styles[usize::from(last.style)] == style => {
                last.text_end = text_end;
            }
            _ => {
                let style = self.style_index(style);
                self.spans.push(StoredSpan { text_end, style });
            }
        }
    }

    /// The index of `style` in the palette, added when new.
    fn style_index(&mut self, style: Style) -> u16 {
        if let Some(index) = self.styles.iter().rposition(|known| *known == style) {
            return u16::try_from(index).unwrap_or(u16::MAX);
        }
        if self.styles.len() > usize::from(u16::MAX) {
            // A theme has a few dozen styles; this cannot be reached, and
            // would only show a later style as the last one kept.
            return u16::MAX;
        }
        self.styles.push(style);
        u16::try_from(self.styles.len() - 1).unwrap_or(u16::MAX)
    }

    fn end_row(&mut self) {
        self.row_ends.push(stored_offset(self.spans.len()));
    }

    fn span_range(&self, row: usize) -> Range<usize> {
        let start = if row == 0 {
            0
        } else {
            self.row_ends[row - 1] as usize
        };
        start..self.row_ends[row] as usize
    }

    fn line(&self, row: usize) -> Line<'_> {
        let spans: Vec<Span<'_>> = self
            .span_range(row)
            .map(|index| {
                let start = if index == 0 {
                    0
                } else {
                    self.spans[index - 1].text_end as usize
                };
                let span = &self.spans[index];
                Span::styled(
                    &self.text[start..span.text_end as usize],
                    self.styles[usize::from(span.style)],
                )
            })
            .collect();
        Line::from(spans)
    }
}

/// One character to place, with its style and display width.
#[derive(Clone, Copy, Debug)]
struct Glyph {
    c: char,
    width: usize,
    style: Style,
}

fn push_plain(glyphs: &mut Vec<Glyph>, text: &str, style: Style) {
    glyphs.extend(text.chars().filter(|&c| is_displayable(c)).map(|c| Glyph {
        c,
        width: char_width(c),
        style,
    }));
}

fn glyphs_width(glyphs: &[Glyph]) -> usize {
    glyphs.iter().map(|glyph| glyph.width).sum()
}

/// Lays out source lines at one width with one theme, reusing its buffers.
struct Layouter<'t> {
    width: usize,
    theme: &'t Theme,
    content: Vec<Glyph>,
    first_prefix: Vec<Glyph>,
    rest_prefix: Vec<Glyph>,
}

impl<'t> Layouter<'t> {
    fn new(width: usize, theme: &'t Theme) -> Self {
        Layouter {
            width,
            theme,
            content: Vec::new(),
            first_prefix: Vec::new(),
            rest_prefix: Vec::new(),
        }
    }

    fn lay_out(&mut self, text: &str, kind: &LineKind, rows: &mut Rows) {
        let theme = self.theme;
        self.content.clear();
        self.first_prefix.clear();
        self.rest_prefix.clear();
        match kind {
            LineKind::Blank => {
                rows.start_row();
                rows.end_row();
            }
            LineKind::Rule => {
                rows.start_row();
                for _ in 0..self.width {
                    rows.push_char('─', theme.dim);
                }
                rows.end_row();
            }
            LineKind::Notice => self.notice(text, rows),
            LineKind::Fence => {
                push_plain(&mut self.content, text, theme.dim);
                self.hard_wrap(rows);
            }
            LineKind::Code { yaml: true } => {
                // YAML wraps at spaces with its continuation under the value,
                // so a long value still reads as one value of one key.
                let item = text.trim_start();
                let indent = &text[..text.len() - item.len()];
                push_plain(&mut self.first_prefix, indent, theme.md_code);
                let value_column = push_yaml(&mut self.content, item, theme);
                let base = text_width(indent);
                let hang = readable_hang(self.width, base, base + value_column);
                push_plain(&mut self.rest_prefix, &" ".repeat(hang), theme.md_code);
                self.wrap_words(rows);
            }
            LineKind::Code { yaml: false } => {
                // Wrapped at spaces where it can be, each continuation row
                // marked, so no word is cut at the pane's edge unseen.
                let code = text.trim_start();
                let indent = &text[..text.len() - code.len()];
                push_plain(&mut self.first_prefix, indent, theme.md_code);
                let mark = text_width(CODE_CONTINUATION);
                let hang = readable_hang(self.width, 0, text_width(indent) + mark);
                push_plain(
                    &mut self.rest_prefix,
                    &" ".repeat(hang.saturating_sub(mark)),
                    theme.md_code,
                );
                push_plain(&mut self.rest_prefix, CODE_CONTINUATION, theme.dim);
                push_plain(&mut self.content, code, theme.md_code);
                self.wrap_words(rows);
            }
            LineKind::Reasoning => {
                let content = text.trim_start();
                self.indent_both(
                    text_width(&text[..text.len() - content.len()]),
                    theme.reasoning,
                );
                push_plain(&mut self.content, content, theme.reasoning);
                self.wrap_words(rows);
            }
            LineKind::Heading { content_start } => {
                let content = without_closing_hashes(&text[*content_start..]);
                push_inline(&mut self.content, content, theme.md_heading, theme);
                self.wrap_words(rows);
            }
            LineKind::Paragraph {
                indent,
                content_start,
            } => {
                self.indent_both(*indent, theme.text);
                push_inline(
                    &mut self.content,
                    &text[*content_start..],
                    theme.text,
                    theme,
                );
                self.wrap_words(rows);
            }
            LineKind::ListItem {
                indent,
                marker,
                content_start,
            } => {
                push_plain(&mut self.first_prefix, &" ".repeat(*indent), theme.text);
                push_plain(&mut self.first_prefix, marker, theme.md_list_marker);
                push_plain(&mut self.first_prefix, " ", theme.text);
                let hanging = glyphs_width(&self.first_prefix);
                let hang = readable_hang(self.width, *indent, hanging);
                push_plain(&mut self.rest_prefix, &" ".repeat(hang), theme.text);
                push_inline(
                    &mut self.content,
                    &text[*content_start..],
                    theme.text,
                    theme,
                );
                self.wrap_words(rows);
            }
            LineKind::Quote {
                depth,
                content_start,
            } => {
                let bar = "│ ".repeat(*depth);
                push_plain(&mut self.first_prefix, &bar, theme.md_quote);
                push_plain(&mut self.rest_prefix, &bar, theme.md_quote);
                push_inline(
                    &mut self.content,
                    &text[*content_start..],
                    theme.md_quote,
                    theme,
                );
                self.wrap_words(rows);
            }
        }
    }

    fn indent_both(&mut self, indent: usize, style: Style) {
        let spaces = " ".repeat(indent);
        push_plain(&mut self.first_prefix, &spaces, style);
        push_plain(&mut self.rest_prefix, &spaces, style);
    }

    /// `── text ─────` across the width, or the text alone, wrapped, when it
    /// leaves no room for the rule.
    fn notice(&mut self, text: &str, rows: &mut Rows) {
        let dim = self.theme.dim;
        let text_columns = text_width(text);
        if text_columns + 6 > self.width {
            push_plain(&mut self.content, text, dim);
            self.wrap_words(rows);
            return;
        }
        rows.start_row();
        let lead = if text.is_empty() {
            String::new()
        } else {
            format!("── {text} ")
        };
        for c in lead.chars() {
            rows.push_char(c, dim);
        }
        for _ in text_width(&lead)..self.width {
            rows.push_char('─', dim);
        }
        rows.end_row();
    }

    /// Code: cut at the width wherever it falls, never at words.
    fn hard_wrap(&mut self, rows: &mut Rows) {
        rows.start_row();
        let mut column = 0;
        for glyph in &self.content {
            if column + glyph.width > self.width && column > 0 {
                rows.end_row();
                rows.start_row();
                column = 0;
            }
            rows.push_char(glyph.c, glyph.style);
            column += glyph.width;
        }
        rows.end_row();
    }

    /// Prose: fills rows word by word; a word is broken only when it is wider
    /// than a whole row.
    fn wrap_words(&mut self, rows: &mut Rows) {
        let width = self.width;
        let max_prefix = width.saturating_sub(MIN_TEXT_COLUMNS);
        fit_prefix(&mut self.first_prefix, max_prefix);
        fit_prefix(&mut self.rest_prefix, max_prefix);
        let fresh_row_room = width.saturating_sub(glyphs_width(&self.rest_prefix));
        let mut row = RowCursor::begin(rows, &self.first_prefix);
        let glyphs = &self.content;
        let mut spaces = 0..0;
        let mut at = 0;
        while at < glyphs.len() {
            let start = at;
            if glyphs[at].c == ' ' {
                while at < glyphs.len() && glyphs[at].c == ' ' {
                    at += 1;
                }
                spaces = start..at;
                continue;
            }
            while at < glyphs.len() && glyphs[at].c != ' ' {
                at += 1;
            }
            let word = &glyphs[start..at];
            let word_width = glyphs_width(word);
            let space_width = if row.has_content {
                glyphs_width(&glyphs[spaces.clone()])
            } else {
                0
            };
            if row.column + space_width + word_width <= width {
                if row.has_content {
                    row.emit(&glyphs[spaces.clone()]);
                }
                row.emit(word);
            } else if word_width > fresh_row_room {
                // Too wide for any row: it is cut anyway, so start it here.
                if row.has_content && row.column + space_width < width {
                    row.emit(&glyphs[spaces.clone()]);
                }
                for glyph in word {
                    if row.column + glyph.width > width && row.has_content {
                        row.next_row(&self.rest_prefix);
                    }
                    row.emit(std::slice::from_ref(glyph));
                }
            } else {
                if row.has_content {
                    row.next_row(&self.rest_prefix);
                }
                row.emit(word);
            }
            spaces = 0..0;
        }
        row.finish();
    }
}

/// The indent of a continuation row that would hang at column `hanging`
/// (under a value, under a list item's text) in a row `width` wide, for a
/// line indented `base` columns: `hanging` while it leaves the text a
/// readable width ([`READABLE_COLUMNS`], or half the width in a narrow
/// pane), else a small fixed indent past `base`.
fn readable_hang(width: usize, base: usize, hanging: usize) -> usize {
    let wanted = READABLE_COLUMNS.min(width / 2);
    if width.saturating_sub(hanging) >= wanted {
        hanging
    } else {
        (base + FALLBACK_HANG_COLUMNS).min(hanging)
    }
}

/// Shortens a prefix (indent, marker, quote bar) to at most `max_columns`.
fn fit_prefix(prefix: &mut Vec<Glyph>, max_columns: usize) {
    let mut columns = 0;
    let keep = prefix
        .iter()
        .take_while(|glyph| {
            columns += glyph.width;
            columns <= max_columns
        })
        .count();
    prefix.truncate(keep);
}

/// The row being filled by [`Layouter::wrap_words`].
struct RowCursor<'r> {
    rows: &'r mut Rows,
    column: usize,
    /// Whether the row holds any content beyond its prefix.
    has_content: bool,
}

impl<'r> RowCursor<'r> {
    fn begin(rows: &'r mut Rows, prefix: &[Glyph]) -> Self {
        rows.start_row();
        let mut cursor = RowCursor {
            rows,
            column: 0,
            has_content: false,
        };
        cursor.place(prefix);
        cursor
    }

    fn place(&mut self, glyphs: &[Glyph]) {
        for glyph in glyphs {
            self.rows.push_char(glyph.c, glyph.style);
            self.column += glyph.width;
        }
    }

    fn emit(&mut self, glyphs: &[Glyph]) {
        self.place(glyphs);
        self.has_content = true;
    }

    fn next_row(&mut self, prefix: &[Glyph]) {
        self.rows.end_row();
        self.rows.start_row();
        self.column = 0;
        self.has_content = false;
        self.place(prefix);
    }

    fn finish(self) {
        self.rows.end_row();
    }
}

/// Inline markdown (code, strong, emphasis, strikethrough, links) over
/// `base`.
fn push_inline(glyphs: &mut Vec<Glyph>, content: &str, base: Style, theme: &Theme) {
    if is_plain_prose(content) {
        // Read as markdown, it would be one paragraph of this very text.
        push_plain(glyphs, content, base);
    } else {
        push_inline_parsed(glyphs, content, base, theme);
    }
}

/// [`push_inline`] through the markdown parser.
fn push_inline_parsed(glyphs: &mut Vec<Glyph>, content: &str, base: Style, theme: &Theme) {
    let source = neutralize_block_syntax(content);
    let mut styles = vec![base];
    let mut open_links: Vec<(usize, pulldown_cmark::CowStr<'_>)> = Vec::new();
    for event in Parser::new_ext(&source, Options::ENABLE_STRIKETHROUGH) {
        let current = styles.last().copied().unwrap_or(base);
        match event {
            Event::Start(Tag::Strong) => styles.push(current.patch(theme.md_strong)),
            Event::Start(Tag::Emphasis) => styles.push(current.patch(theme.md_emphasis)),
            Event::Start(Tag::Strikethrough) => {
                styles.push(current.add_modifier(Modifier::CROSSED_OUT));
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                styles.push(current.add_modifier(Modifier::UNDERLINED));
                open_links.push((glyphs.len(), dest_url));
            }
            Event::End(TagEnd::Strong | TagEnd::Emphasis | TagEnd::Strikethrough)
                if styles.len() > 1 =>
            {
                styles.pop();
            }
            Event::End(TagEnd::Link) => {
                if styles.len() > 1 {
                    styles.pop();
                }
                if let Some((start, url)) = open_links.pop() {
                    let shown: String = glyphs[start..].iter().map(|glyph| glyph.c).collect();
                    if !url.is_empty() && shown != *url {
                        push_plain(glyphs, &format!(" ({url})"), theme.dim);
                    }
                }
            }
            Event::Text(text) | Event::Html(text) | Event::InlineHtml(text) => {
                push_plain(glyphs, &text, current);
            }
            Event::Code(code) => push_plain(glyphs, &code, current.patch(theme.md_code)),
            Event::SoftBreak | Event::HardBreak => push_plain(glyphs, " ", current),
            Event::FootnoteReference(label) => {
                push_plain(glyphs, &format!("[^{label}]"), current);
            }
            Event::TaskListMarker(done) => {
                push_plain(glyphs, if done { "[x] " } else { "[ ] " }, current);
            }
            _ => {}
        }
    }
}

/// Whether `content` holds no markdown at all: it starts with a letter,
/// neither starts nor ends with a space, and has none of the characters that
/// open an inline span, an escape, an entity, HTML or a link. Such a line
/// reads as a paragraph of exactly its text, without the parser.
fn is_plain_prose(content: &str) -> bool {
    let bytes = content.as_bytes();
    bytes.first().is_some_and(u8::is_ascii_alphabetic)
        && bytes.last().is_some_and(|byte| !byte.is_ascii_whitespace())
        && bytes.iter().all(|byte| {
            !matches!(
                byte,
                b'\\'
                    | b'`'
                    | b'*'
                    | b'_'
                    | b'~'
                    | b'['
                    | b']'
                    | b'!'
                    | b'<'
                    | b'>'
                    | b'&'
                    | b'\t'
                    | b'\n'
                    | b'\r'
            )
        })
}

/// Escapes what would make pulldown-cmark read `content` as a block (a list,
/// a heading, a quote, a rule, a fence, a link definition): the line's block
/// was already decided, so only its inline spans are wanted.
fn neutralize_block_syntax(content: &str) -> Cow<'_, str> {
    let trimmed = content.trim_start();
    if let Some((marker, _)) = list_marker(trimmed) {
        let punctuation_at = content.len() - trimmed.len() + marker.len() - 1;
        return Cow::Owned(format!(
            "{}\\{}",
            &content[..punctuation_at],
            &content[punctuation_at..]
        ));
    }
    let starts_block = trimmed.starts_with(['#', '>'])
        || is_rule(trimmed)
        || opens_fence(trimmed).is_some()
        || (trimmed.starts_with('[') && trimmed.contains("]:"));
    if starts_block {
        Cow::Owned(format!("\\{trimmed}"))
    } else {
        Cow::Borrowed(content)
    }
}

/// A line of YAML without its indentation: keys, values, list dashes and
/// comments told apart. Returns the column where its value starts.
fn push_yaml(glyphs: &mut Vec<Glyph>, item: &str, theme: &Theme) -> usize {
    if item == "---" || item == "..." {
        push_plain(glyphs, item, theme.dim);
        return 0;
    }
    let mut rest = item;
    while rest == "-" || rest.starts_with("- ") {
        let after_dash = rest[1..].trim_start();
        push_plain(
            glyphs,
            &rest[..rest.len() - after_dash.len()],
            theme.md_list_marker,
        );
        rest = after_dash;
    }
    let (body, comment) = split_yaml_comment(rest);
    let mut value_column = text_width(&item[..item.len() - rest.len()]);
    match yaml_key_end(body) {
        Some(key_end) => {
            push_plain(glyphs, &body[..key_end], theme.md_heading);
            push_plain(glyphs, &body[key_end..], theme.md_code);
            let value = body[key_end + 1..].trim_start();
            value_column += text_width(&body[..body.len() - value.len()]);
        }
        None => push_plain(glyphs, body, theme.md_code),
    }
    push_plain(glyphs, comment, theme.dim);
    value_column
}

/// Splits at a `#` comment that is outside quotes and starts the text or
/// follows whitespace.
fn split_yaml_comment(text: &str) -> (&str, &str) {
    let mut quote = None;
    let mut previous = ' ';
    for (at, c) in text.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(open), _) if c == open => quote = None,
            (None, '#') if previous.is_whitespace() => return text.split_at(at),
            _ => {}
        }
        previous = c;
    }
    (text, "")
}

/// The end of a mapping key (`key:` followed by a space or the end), if the
/// text starts with one.
pub(super) fn yaml_key_end(body: &str) -> Option<usize> {
    let colon_ends_key =
        |at: usize| body[at + 1..].is_empty() || body[at + 1..].starts_with([' ', '\t']);
    if let Some(quote) = body.chars().next().filter(|&c| c == '"' || c == '\'') {
        let close = body[1..].find(quote)? + 1;
        return (body[close + 1..].starts_with(':') && colon_ends_key(close + 1))
            .then_some(close + 1);
    }
    if body.starts_with(['{', '[', '|', '>', '&', '*', '!']) {
        return None;
    }
    body.char_indices()
        .find(|&(at, c)| c == ':' && colon_ends_key(at))
        .map(|(at, _)| at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_prose_reads_the_same_without_the_parser() {
        let theme = theme();
        let pieces = [
            "a",
            "Word",
            " ",
            "  ",
            "é",
            "中文",
            "1",
            "12.",
            ":",
            ",",
            ".",
            "-",
            "+",
            "#",
            "|",
            "(x)",
            "'q'",
            "\"",
            "?",
            "/",
            "=",
            "%",
            "$",
            "@",
            "^",
            "{",
            "}",
            "👍",
            "http://x.y",
        ];
        let mut random = fastrand::Rng::with_seed(15);
        let mut plain = 0;
        for _ in 0..5000 {
            let content: String = (0..random.usize(1..12))
                .map(|_| pieces[random.usize(0..pieces.len())])
                .collect();
            if !is_plain_prose(&content) {
                continue;
            }
            plain += 1;
            let (mut fast, mut parsed) = (Vec::new(), Vec::new());
            push_plain(&mut fast, &content, theme.text);
            push_inline_parsed(&mut parsed, &content, theme.text, &theme);
            let shown = |glyphs: &[Glyph]| -> Vec<(char, Style)> {
                glyphs.iter().map(|glyph| (glyph.c, glyph.style)).collect()
            };
            assert_eq!(shown(&fast), shown(&parsed), "{content:?}");
        }
        assert!(plain > 500, "the sample holds plain lines ({plain})");
    }

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

    fn theme() -> Theme {
        Theme::builtin("dark").unwrap()
    }

    fn laid_out(doc: &mut StreamDoc, width: u16) -> Vec<String> {
        doc.layout(width, &theme());
        doc.lines(0, doc.line_count())
            .iter()
            .map(|line| {
                line.spans
                    .iter()
                    .map(|span| span.content.as_ref())
                    .collect()
            })
            .collect()
    }

    fn doc_of(text: &str) -> StreamDoc {
        let mut doc = StreamDoc::new();
        doc.push(Segment::Answer, text);
        doc
    }

    fn styles_of(doc: &StreamDoc, row: usize) -> Vec<(String, Style)> {
        doc.lines(row, 1)[0]
            .spans
            .iter()
            .map(|span| (span.content.to_string(), span.style))
            .collect()
    }

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

    #[test]
    fn prose_wraps_at_words_by_display_width() {
        let mut doc = doc_of("the quick brown fox jumps over the lazy dog\n");
        assert_eq!(
            laid_out(&mut doc, 16),
            ["the quick brown", "fox jumps over", "the lazy dog"]
        );
    }

    #[test]
    fn wide_characters_count_two_columns() {
        let mut doc = doc_of("漢字漢字漢字 ab\n");
        assert_eq!(laid_out(&mut doc, 8), ["漢字漢字", "漢字 ab"]);
        // An odd width never splits a wide character.
        assert_eq!(laid_out(&mut doc, 5), ["漢字", "漢字", "漢字", "ab"]);
    }

    #[test]
    fn only_words_wider_than_a_row_are_broken() {
        let mut doc = doc_of("see abcdefghijklmnop end\n");
        assert_eq!(laid_out(&mut doc, 8), ["see abcd", "efghijkl", "mnop end"]);
    }

    #[test]
    fn list_items_hang_their_continuation_under_the_text() {
        let mut doc = doc_of("- one two three four five\n  1. six seven eight nine\n");
        assert_eq!(
            laid_out(&mut doc, 14),
            [
                "• one two",
                "  three four",
                "  five",
                "  1. six seven",
                "     eight",
                "     nine"
            ]
        );
        assert_eq!(
            styles_of(&doc, 0)[0],
            ("•".to_string(), theme().md_list_marker)
        );
    }

    #[test]
    fn headings_hide_markers_and_quotes_get_a_bar() {
        let mut doc = doc_of("### Plan ###\n> quoted words here\n");
        assert_eq!(laid_out(&mut doc, 12), ["Plan", "│ quoted", "│ words here"]);
        assert_eq!(
            styles_of(&doc, 0),
            [("Plan".to_string(), theme().md_heading)]
        );
        assert_eq!(styles_of(&doc, 1)[0].1, theme().md_quote);
    }

    #[test]
    fn inline_spans_are_styled() {
        let theme = theme();
        let mut doc = doc_of("use `cargo` **now** or *later*\n");
        laid_out(&mut doc, 80);
        assert_eq!(
            styles_of(&doc, 0),
            [
                ("use ".to_string(), theme.text),
                ("cargo".to_string(), theme.text.patch(theme.md_code)),
                (" ".to_string(), theme.text),
                ("now".to_string(), theme.text.patch(theme.md_strong)),
                (" or ".to_string(), theme.text),
                ("later".to_string(), theme.text.patch(theme.md_emphasis)),
            ]
        );
    }

    #[test]
    fn snake_case_and_arithmetic_are_not_emphasis() {
        let mut doc = doc_of("call snake_case_name with 2 * 3 * 4\n");
        laid_out(&mut doc, 80);
        assert_eq!(styles_of(&doc, 0).len(), 1);
    }

    #[test]
    fn list_like_text_inside_a_quote_keeps_its_marker() {
        let mut doc = doc_of("> - item\n> 1. first\n> [a]: b\n");
        assert_eq!(
            laid_out(&mut doc, 40),
            ["│ - item", "│ 1. first", "│ [a]: b"]
        );
    }

    #[test]
    fn character_references_cannot_smuggle_controls() {
        let mut doc = doc_of("a&#x1b;[31mb &#x202e;c &#7;\n");
        let rows = laid_out(&mut doc, 40);
        assert!(
            rows.iter().flat_map(|row| row.chars()).all(is_displayable),
            "{rows:?}"
        );
        assert_eq!(rows, ["a[31mb c"]);
    }

    #[test]
    fn links_show_their_destination_when_it_differs() {
        let mut doc = doc_of("see [the docs](https://x.test/d) or <https://y.test>\n");
        assert_eq!(
            laid_out(&mut doc, 80),
            ["see the docs (https://x.test/d) or https://y.test"]
        );
    }

    #[test]
    fn code_wraps_at_spaces_with_a_mark_on_continuation_rows() {
        let mut doc = doc_of("```\n  let answer = compute(42);\n```\n");
        assert_eq!(
            laid_out(&mut doc, 18),
            ["```", "  let answer =", "  ↪ compute(42);", "```"]
        );
        assert_eq!(
            styles_of(&doc, 2),
            [
                ("  ".to_string(), theme().md_code),
                ("↪ ".to_string(), theme().dim),
                ("compute(42);".to_string(), theme().md_code),
            ]
        );
        assert_eq!(styles_of(&doc, 0)[0].1, theme().dim);
        // A word wider than a row is cut, and every piece says it goes on.
        let mut doc = doc_of("```\nabcdefghijklmnopqrstuvwxyz\n```\n");
        assert_eq!(
            laid_out(&mut doc, 12),
            ["```", "abcdefghijkl", "↪ mnopqrstuv", "↪ wxyz", "```"]
        );
        // Deep code in a narrow pane continues under a small indent.
        let mut doc = doc_of("```\n                if ready { go(now) }\n```\n");
        let rows = laid_out(&mut doc, 24);
        assert_eq!(rows[1], "                if ready");
        assert!(
            rows[2..rows.len() - 1]
                .iter()
                .all(|row| row.starts_with("↪ ")),
            "{rows:?}"
        );
    }

    #[test]
    fn yaml_keys_values_dashes_and_comments_are_told_apart() {
        let theme = theme();
        let mut doc = doc_of("```yaml\n- id: C1 # first\n  url: \"a#b\"\n```\n");
        laid_out(&mut doc, 40);
        assert_eq!(
            styles_of(&doc, 1),
            [
                ("- ".to_string(), theme.md_list_marker),
                ("id".to_string(), theme.md_heading),
                (": C1 ".to_string(), theme.md_code),
                ("# first".to_string(), theme.dim),
            ]
        );
        assert_eq!(
            styles_of(&doc, 2),
            [
                ("  ".to_string(), theme.md_code),
                ("url".to_string(), theme.md_heading),
                (": \"a#b\"".to_string(), theme.md_code),
            ]
        );
    }

    #[test]
    fn yaml_keys_are_found_only_where_yaml_puts_them() {
        assert_eq!(yaml_key_end("key: value"), Some(3));
        assert_eq!(yaml_key_end("key:"), Some(3));
        assert_eq!(yaml_key_end("\"a: b\": c"), Some(6));
        assert_eq!(yaml_key_end("http://example"), None);
        assert_eq!(yaml_key_end("{a: b}"), None);
        assert_eq!(yaml_key_end("plain text"), None);
    }

    #[test]
    fn rules_and_notices_span_the_width() {
        let mut doc = doc_of("---\n");
        doc.push_notice("attempt 1 timed out");
        assert_eq!(
            laid_out(&mut doc, 30),
            [
                "─".repeat(30),
                format!("── attempt 1 timed out {}", "─".repeat(7))
            ]
        );
    }

    #[test]
    fn a_notice_starts_a_new_line_and_closes_an_open_fence() {
        let mut doc = doc_of("```yaml\nscore: 4");
        doc.push_notice("retrying");
        doc.push(Segment::Answer, "**fresh** start\n");
        let rows = laid_out(&mut doc, 30);
        assert_eq!(rows[1], "score: 4");
        assert!(rows[2].starts_with("── retrying ──"), "{rows:?}");
        assert_eq!(rows[3], "fresh start");
        assert_eq!(
            styles_of(&doc, 3)[0].1,
            theme().text.patch(theme().md_strong)
        );
    }

    #[test]
    fn reasoning_is_styled_as_reasoning_and_not_read_as_markdown() {
        let mut doc = StreamDoc::new();
        doc.push(Segment::Reasoning, "# thinking about **this**");
        doc.push(Segment::Answer, "# Answer\n");
        assert_eq!(
            laid_out(&mut doc, 40),
            ["# thinking about **this**", "Answer"]
        );
        assert_eq!(
            styles_of(&doc, 0),
            [("# thinking about **this**".to_string(), theme().reasoning)]
        );
        assert_eq!(styles_of(&doc, 1)[0].1, theme().md_heading);
    }

    #[test]
    fn only_the_tail_is_laid_out_again_after_a_push() {
        let mut doc = doc_of("# Title\nfirst line\nsecond line\npartial");
        doc.layout(40, &theme());
        assert_eq!(doc.lines_laid_last_layout(), 4);
        doc.push(Segment::Answer, " more");
        doc.layout(40, &theme());
        assert_eq!(doc.lines_laid_last_layout(), 1);
        doc.push(Segment::Answer, " done\nnext");
        doc.layout(40, &theme());
        assert_eq!(doc.lines_laid_last_layout(), 2);
        doc.layout(40, &theme());
        assert_eq!(doc.lines_laid_last_layout(), 0);
    }

    #[test]
    fn a_width_or_theme_change_lays_out_everything_again() {
        let text = "# Title\nsome words that wrap at a narrow width\ntail";
        let mut doc = doc_of(text);
        let wide = laid_out(&mut doc, 80);
        let narrow = laid_out(&mut doc, 12);
        assert_eq!(doc.lines_laid_last_layout(), 3);
        assert!(narrow.len() > wide.len());
        assert_eq!(narrow, laid_out(&mut doc_of(text), 12));
        doc.layout(12, &Theme::builtin("light").unwrap());
        assert_eq!(doc.lines_laid_last_layout(), 3);
    }

    fn rows_text(doc: &StreamDoc) -> Vec<String> {
        doc.lines(0, doc.line_count())
            .iter()
            .map(|line| {
                line.spans
                    .iter()
                    .map(|span| span.content.as_ref())
                    .collect()
            })
            .collect()
    }

    /// Many short markdown lines (a code block among them), each wrapping
    /// differently at 30 and 90 columns.
    fn long_document(lines: usize) -> String {
        (0..lines)
            .map(|n| match n % 50 {
                10 => "```rust".to_string(),
                20 => "```".to_string(),
                0 => format!("## Part {n}"),
                _ => format!("- line {n} says **something** long enough to wrap at thirty"),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn after_a_width_change_the_end_is_laid_out_first_and_the_rest_on_later_calls() {
        let lines = 40 * CHUNK_LINES + 17;
        let text = long_document(lines);
        let mut doc = doc_of(&text);
        doc.layout(90, &theme());
        assert_eq!(doc.lines_laid_last_layout(), lines);

        // Zoomed: the last 40 rows are wanted; only about a budget is done.
        assert!(!doc.layout_from_end(30, &theme(), 40, &mut LAYOUT_BUDGET_BYTES.clone()));
        let first = doc.lines_laid_last_layout();
        // Every line of the document is 7 to 60 bytes long.
        let most_per_call = LAYOUT_BUDGET_BYTES / 7 + 2 * CHUNK_LINES;
        assert!(
            first <= most_per_call && first < lines / 4,
            "{first} lines laid out"
        );
        let mut whole = doc_of(&text);
        let expected = laid_out(&mut whole, 30);
        let partial = rows_text(&doc);
        assert!(partial.len() >= 40 && partial.len() < expected.len());
        assert_eq!(
            partial[..],
            expected[expected.len() - partial.len()..],
            "the end, exactly"
        );
        assert_eq!(
            doc.take_rows_added_above(),
            0,
            "nothing was there before at 30 columns"
        );

        // Later calls carry on towards the beginning, counting what they add above.
        let (mut calls, mut added, mut complete) = (1, 0, false);
        while !complete {
            complete = doc.layout_from_end(30, &theme(), 40, &mut LAYOUT_BUDGET_BYTES.clone());
            added += doc.take_rows_added_above();
            calls += 1;
            assert!(doc.lines_laid_last_layout() <= most_per_call);
        }
        assert_eq!(added, expected.len() - partial.len());
        assert!(calls > 3, "{calls} calls");
        assert_eq!(rows_text(&doc), expected);
    }

    #[test]
    fn text_streamed_while_a_layout_is_unfinished_lands_at_the_end() {
        let text = long_document(12 * CHUNK_LINES);
        let mut doc = doc_of(&text);
        doc.layout(90, &theme());
        assert!(!doc.layout_from_end(30, &theme(), 10, &mut LAYOUT_BUDGET_BYTES.clone()));
        let more = "\nlate line one\nlate line two, still streaming";
        for piece in more.as_bytes().chunks(7) {
            doc.push(Segment::Answer, std::str::from_utf8(piece).unwrap());
            doc.layout_from_end(30, &theme(), 10, &mut LAYOUT_BUDGET_BYTES.clone());
        }
        while !doc.layout_from_end(30, &theme(), 10, &mut LAYOUT_BUDGET_BYTES.clone()) {}
        assert_eq!(rows_text(&doc), laid_out(&mut doc_of(&(text + more)), 30));
        // A complete layout after an unfinished one gives the same rows.
        doc.layout_from_end(50, &theme(), 10, &mut LAYOUT_BUDGET_BYTES.clone());
        assert_eq!(
            laid_out(&mut doc, 50),
            laid_out(&mut doc_of(&(long_document(12 * CHUNK_LINES) + more)), 50)
        );
    }

    #[test]
    fn a_window_of_rows_spans_chunks_and_the_tail() {
        let text = long_document(3 * CHUNK_LINES) + "\nthe unfinished tail";
        let mut doc = doc_of(&text);
        let all = laid_out(&mut doc, 30);
        for start in [0, 5, all.len() / 2, all.len() - 3] {
            let window: Vec<String> = doc
                .lines(start, 7)
                .iter()
                .map(|line| {
                    line.spans
                        .iter()
                        .map(|span| span.content.as_ref())
                        .collect()
                })
                .collect();
            let end = (start + 7).min(all.len());
            assert_eq!(window[..], all[start..end]);
        }
        assert!(doc.lines(all.len(), 5).is_empty());
    }

    #[test]
    fn a_long_line_without_newline_keeps_the_tail_bounded() {
        let word = "lorem ipsum ";
        let long: String = word.repeat(3 * LONG_LINE_SPLIT_BYTES / word.len());
        let mut chunked = StreamDoc::new();
        for piece in long.as_bytes().chunks(64) {
            chunked.push(Segment::Answer, std::str::from_utf8(piece).unwrap());
            assert!(chunked.tail.len() <= LONG_LINE_SPLIT_BYTES);
        }
        let mut whole = doc_of(&long);
        assert_eq!(laid_out(&mut chunked, 50), laid_out(&mut whole, 50));
        assert!(chunked.finished.len() >= 2);
    }

    #[test]
    fn a_long_list_item_continues_under_its_text() {
        let long = format!("- {}\n", "word ".repeat(LONG_LINE_SPLIT_BYTES / 4));
        let mut doc = doc_of(&long);
        let rows = laid_out(&mut doc, 40);
        assert!(rows[0].starts_with("• word"));
        assert!(
            rows[1..].iter().all(|row| row.starts_with("  word")),
            "{rows:?}"
        );
    }

    #[test]
    fn window_is_clamped_and_clear_forgets_everything() {
        let mut doc = doc_of("a\nb\nc");
        laid_out(&mut doc, 10);
        assert_eq!(doc.lines(2, 10).len(), 1);
        assert!(doc.lines(7, 3).is_empty());
        assert_eq!(doc.source_len(), 5);
        doc.clear();
        assert_eq!(laid_out(&mut doc, 10), Vec::<String>::new());
        assert_eq!(doc.source_len(), 0);
    }

    #[test]
    fn narrow_panes_keep_room_for_text() {
        let mut doc = doc_of("            deeply indented words\n");
        let rows = laid_out(&mut doc, 10);
        assert!(rows.iter().all(|row| text_width(row) <= 10), "{rows:?}");
        assert!(rows.iter().any(|row| row.contains("deeply")), "{rows:?}");
    }
}

#[cfg(test)]
mod hanging_indent_tests {
    use super::*;

    fn rows_at(text: &str, width: u16) -> Vec<String> {
        let mut doc = StreamDoc::yaml_excerpt(text);
        doc.layout(width, &Theme::builtin("dark").unwrap());
        doc.lines(0, doc.line_count())
            .iter()
            .map(|line| {
                line.spans
                    .iter()
                    .map(|span| span.content.as_ref())
                    .collect()
            })
            .collect()
    }

    const LONG_KEY: &str =
        "  - addresses_critique: anyone who can read the log can share this login.\n";

    #[test]
    fn a_hanging_indent_that_leaves_room_is_kept() {
        assert_eq!(
            rows_at(LONG_KEY, 60),
            [
                "  - addresses_critique: anyone who can read the log can",
                "                        share this login.",
            ]
        );
    }

    #[test]
    fn a_hanging_indent_that_leaves_too_little_room_gives_way_to_a_small_one() {
        // Under the value, 16 columns would be left at 40 and none at 24:
        // the text continues just past the list's dash instead.
        assert_eq!(
            rows_at(LONG_KEY, 40),
            [
                "  - addresses_critique: anyone who can",
                "    read the log can share this login.",
            ]
        );
        assert_eq!(
            rows_at(LONG_KEY, 24),
            [
                "  - addresses_critique:",
                "    anyone who can read",
                "    the log can share",
                "    this login.",
            ]
        );
        // At 18 the key itself is cut, and the words still share rows.
        let narrow = rows_at(LONG_KEY, 18);
        assert_eq!(
            narrow[1..],
            [
                "    ique: anyone",
                "    who can read",
                "    the log can",
                "    share this",
                "    login."
            ]
        );
    }

    #[test]
    fn a_top_level_key_continues_two_columns_in_when_narrow() {
        let text = "rationale: share this login with the whole team now.\n";
        // At 24 columns, 13 are left under the value: over half the width.
        assert_eq!(
            rows_at(text, 24),
            [
                "rationale: share this",
                "           login with",
                "           the whole",
                "           team now."
            ]
        );
        // At 18, 7 would be.
        assert_eq!(
            rows_at(text, 18),
            [
                "rationale: share",
                "  this login with",
                "  the whole team",
                "  now."
            ]
        );
    }
}
