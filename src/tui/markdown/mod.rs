//! An agent's streaming text, laid out as markdown rows for a pane.
//!
//! Responsible for: keeping the text an agent has streamed so far (answer and
//! reasoning apart), reading it as markdown line by line with the block state
//! (code fences, …) carried from one line to the next, and wrapping it to a
//! pane's width as styled rows. Finished lines are laid out once per width and
//! theme and kept, in chunks of lines; only the live tail (the text after the
//! last newline) is laid out again when more text arrives. Rows far from the
//! view are let go, their count kept, and laid out again when a view comes
//! near ([`StreamDoc::keep_rows_near`]). After a change of
//! width a pane lays out its text from the end back only as far as its view
//! needs, and more only when the view goes up
//! ([`StreamDoc::layout_from_end`]). Handing out a window of rows takes
//! `&self` and costs only the size of the window.
//!
//! Not responsible for: cleaning the text (it arrives already sanitised, see
//! [`crate::text`]), scrolling or following the stream (the pane keeps its
//! own offset), borders and titles, or deciding when to draw.
//!
//! The markdown is read one line at a time, so a line's rows never depend on
//! the lines after it: headings, lists, block quotes, rules and fenced code
//! blocks are recognised by their own line (plus whether a fence is open);
//! setext headings and lazy paragraph continuation are not. Tables are the
//! one exception: their rows starting with a pipe are held with the live
//! tail until a line that is not a row arrives, then kept as one line of
//! their own, laid out in columns fitted to all their rows ([`table`]).
//! Inline spans (code, strong, emphasis, links) are read by pulldown-cmark.
//!
//! The work is split by job: [`source`] stores the finished source lines and
//! groups them into chunks, [`blocks`] reads a line's block (heading, list
//! item, quote, fence, …) with the state carried from the line before,
//! [`inline`] turns a line's content into styled glyphs (inline spans, YAML
//! keys and comments), and [`wrap`] lays those glyphs out as rows at a width.
//! This file holds [`StreamDoc`], which ties them together, and the column
//! measure they share.

mod blocks;
mod inline;
mod source;
mod table;
mod wrap;

use ratatui::text::Line;
use unicode_width::UnicodeWidthChar;

use crate::text::is_displayable;
use crate::tui::theme::Theme;

use blocks::{BlockState, LineKind, classify};
use source::{CHUNK_LINES, RowChunk, SourceLines};
use table::{is_table_row, opens_table};
use wrap::{GlyphBuffer, Layouter, Rows};

pub use blocks::{FenceOpening, fence_opening};
pub(super) use inline::yaml_key_end;

/// Length in bytes the live tail may reach before its head is committed as a
/// finished line. Bounds the work of laying out the tail again on every push
/// when an agent writes one very long line; the rest continues the same block.
pub const LONG_LINE_SPLIT_BYTES: usize = 4096;

/// Bytes of rows a table may hold open with the live tail, all laid out
/// again on every push: past it the table so far is kept as it stands, and
/// its further rows are shown as written (a few hundred rows fit).
pub const TABLE_HOLD_BYTES: usize = 64 * 1024;

/// Rows either side of a pane's view whose layout is kept
/// ([`StreamDoc::keep_rows_near`]); rows more than twice as far are let go.
/// Several pages of scrolling each way, a few hundred kilobytes a pane,
/// where keeping every row held about 1.4 bytes per byte of text.
pub const KEEP_ROWS_AROUND_VIEW: usize = 1024;

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
    /// The finished answer lines of a table still open (or of a line that
    /// may open one), one to a line: held with the live tail until a line
    /// that is not a row ends it, since every row decides its columns.
    table: String,
    /// A table went past [`TABLE_HOLD_BYTES`]: its further rows are not
    /// held, until a line that is not a row.
    table_overflowed: bool,
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
    /// The live line's rows before its last layout, kept to find the
    /// first row a layout changed (and for their allocations).
    tail_rows_before: Rows,
    tail_changed: bool,
    /// How far the live line's inline markdown is settled: it is read on
    /// from there at the next layout ([`inline::InlinePrefix`]).
    tail_settled: inline::InlinePrefix,
    /// Where the live line's rows (`tail_rows`) can be taken up at its
    /// next layout ([`wrap::WrapResume`]).
    tail_resume: Option<wrap::WrapResume>,
    /// The finished line the live line became (or its head, cut from a
    /// long line) since the last layout: it is laid out from the live
    /// line's rows, again only from its last settled row, not from its
    /// start. Without this every streamed line was laid out whole once
    /// more when it ended (in the card view, after the trailer had laid
    /// it out live).
    tail_finished_as: Option<usize>,
    /// Rows of finished lines taken up from the live line's layout.
    #[cfg(test)]
    finished_rows_taken_up: usize,
    /// The glyphs' allocation its layouts reuse.
    glyphs: GlyphBuffer,
    lines_laid_last_layout: usize,
    /// Provisional text shown after everything else (see
    /// [`trailer`](Self::trailer)).
    trailer: Option<Box<StreamDoc>>,
    /// Rows from the top that no layout has changed since the last
    /// [`take_unchanged_rows`](Self::take_unchanged_rows).
    unchanged_rows: usize,
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
            self.finish_table();
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
        self.finish_table();
        self.table_overflowed = false;
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
            // An allocation, not text: a trailer cleared at every line
            // keeps it.
            glyphs: std::mem::take(&mut self.glyphs),
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
    /// exist: a pane's frame after a zoom costs what it shows, not all it
    /// holds, and the text above is laid out only when a later call wants
    /// more rows (a view scrolled up). Returns whether every row exists.
    /// Rows laid out above those already there are counted for
    /// [`take_rows_added_above`](Self::take_rows_added_above).
    ///
    /// Before issue 56 the rest was laid out too, 32 KB a frame: a 1 MB
    /// answer was laid out again whole at every change of the panes'
    /// widths, a fifth of the interface's work after a long proposal, for
    /// rows nobody had asked to see.
    pub fn layout_from_end(&mut self, width: u16, theme: &Theme, rows: usize) -> bool {
        self.lay_out_rows(width, theme, Some(rows));
        self.first_laid == 0
    }

    /// Rows from the top that no layout has changed (in text or style)
    /// since the last call: a view that shows some of them need not draw
    /// them again. Finished lines keep their rows until the width or the
    /// theme changes; what changes is the live last line, rows laid out
    /// above the others, and the trailer. (Rows that
    /// [`keep_rows_near`](Self::keep_rows_near) lets go or lays out again
    /// are never in the view it keeps them for.)
    pub fn take_unchanged_rows(&mut self) -> usize {
        let count = self.line_count();
        std::mem::replace(&mut self.unchanged_rows, count).min(count)
    }

    /// Rows the last layout put above rows that were there before it (at
    /// the same width): what a reader's absolute position moves by.
    pub fn take_rows_added_above(&mut self) -> usize {
        std::mem::take(&mut self.rows_added_above)
    }

    fn lay_out_rows(&mut self, width: u16, theme: &Theme, wanted: Option<usize>) {
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
            self.tail_settled.clear();
            self.tail_resume = None;
            for chunk in &mut self.chunks {
                *chunk = chunk.unlaid();
            }
            self.first_laid = self.chunks.len();
            self.tail_changed = true;
            self.unchanged_rows = 0;
        }
        // The rows before the live line's, as they stand now.
        let above_tail = self.own_line_count() - self.tail_rows.len();
        let lines_added = self.laid_finished < self.finished.len();
        if lines_added {
            // New lines go after the last chunk's rows, where the live
            // line's rows were.
            self.unchanged_rows = self.unchanged_rows.min(above_tail);
        }
        // Rows added above others count only if those were there before,
        // at this width.
        let counted = unchanged;
        self.rows_added_above = 0;
        let mut layouter = Layouter::reusing(width, theme, &mut self.glyphs);
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
                laid += self.lay_out_chunk(self.chunks.len() - 1, &mut layouter);
            }
            if self.first_laid == self.chunks.len() {
                self.first_laid -= 1;
            }
            let last = self.chunks.len() - 1;
            let room = CHUNK_LINES - self.chunks[last].lines;
            let new = (self.finished.len() - self.laid_finished).min(room);
            let chunk = &mut self.chunks[last];
            let lines = self.finished.from(self.laid_finished).take(new);
            for (line, (text, kind)) in (self.laid_finished..).zip(lines) {
                if self.tail_finished_as != Some(line) {
                    layouter.lay_out(text, &kind, &mut chunk.rows);
                    continue;
                }
                // The live line's rows before, and the rows before those
                // free to lay this line out into on its own.
                self.tail_rows_before.clear();
                let _taken_up = layouter.lay_out_live(
                    text,
                    &kind,
                    &mut self.tail_rows_before,
                    &mut self.tail_settled,
                    (&mut self.tail_resume, &self.tail_rows),
                );
                #[cfg(test)]
                {
                    self.finished_rows_taken_up += _taken_up;
                }
                // What it leaves to take up belongs to these rows, not to
                // the live line's.
                self.tail_resume = None;
                chunk.rows.append(&self.tail_rows_before);
            }
            chunk.row_count = chunk.rows.len();
            chunk.lines += new;
            self.laid_finished += new;
            laid += new;
        }
        self.tail_finished_as = None;
        if self.tail_changed {
            std::mem::swap(&mut self.tail_rows, &mut self.tail_rows_before);
            self.tail_rows.clear();
            laid += self.lay_out_tail(&mut layouter);
            // Text added to a long live line changes its last rows, not
            // the first: those that come out the same still stand.
            let standing = match lines_added {
                true => 0,
                false => (0..self.tail_rows.len().min(self.tail_rows_before.len()))
                    .take_while(|&row| self.tail_rows.same_row(row, &self.tail_rows_before, row))
                    .count(),
            };
            self.unchanged_rows = self.unchanged_rows.min(above_tail + standing);
            self.tail_changed = false;
        }
        // Chunks without rows at this width, from the end back: all of them,
        // or those the wanted rows need.
        let mut rows_now = self.line_count();
        while self.first_laid > 0 && wanted.is_none_or(|rows| rows_now < rows) {
            let lines = self.lay_out_chunk(self.first_laid - 1, &mut layouter);
            self.first_laid -= 1;
            let added = self.chunks[self.first_laid].rows.len();
            rows_now += added;
            if counted {
                self.rows_added_above += added;
            }
            if added > 0 {
                self.unchanged_rows = 0;
            }
            laid += lines;
        }
        layouter.give_back(&mut self.glyphs);
        if let Some(trailer) = &mut self.trailer {
            trailer.lay_out_rows(u16::try_from(width).unwrap_or(u16::MAX), theme, None);
            laid += trailer.lines_laid_last_layout;
        }
        // The trailer's rows follow the document's own.
        if let Some(kept) = self.trailer.as_mut().map(|t| t.take_unchanged_rows()) {
            let above = self.own_line_count();
            self.unchanged_rows = self.unchanged_rows.min(above + kept);
        }
        self.lines_laid_last_layout = laid;
    }

    /// Lays out the lines of chunk `index` into its (empty) rows; returns
    /// how many lines.
    fn lay_out_chunk(&mut self, index: usize, layouter: &mut Layouter<'_>) -> usize {
        let first = index * CHUNK_LINES;
        let chunk = &mut self.chunks[index];
        for (text, kind) in self.finished.from(first).take(chunk.lines) {
            layouter.lay_out(text, &kind, &mut chunk.rows);
        }
        if chunk.lines == CHUNK_LINES {
            chunk.rows.shrink_to_fit();
        }
        chunk.row_count = chunk.rows.len();
        chunk.let_go = false;
        chunk.lines
    }

    /// Keeps rows only near a view of `count` rows from row `first`, at the
    /// width and theme of the last layout: the full chunks within
    /// [`KEEP_ROWS_AROUND_VIEW`] rows of it whose rows were let go are laid
    /// out again, and those more than twice that far let their rows go,
    /// keeping only how many there are. What a pane holds beyond its text
    /// is then its view's neighbourhood, not a copy of all of it laid out;
    /// scrolling lays out again what it comes near, a chunk at a time.
    /// Returns how many lines were laid out again.
    pub fn keep_rows_near(&mut self, first: usize, count: usize, theme: &Theme) -> usize {
        let width = match &self.laid_for {
            // Rows of another theme are laid out afresh by the next layout.
            Some((width, laid_theme)) if laid_theme == theme => *width,
            _ => return 0,
        };
        let view_end = first.saturating_add(count);
        let near = first.saturating_sub(KEEP_ROWS_AROUND_VIEW)
            ..view_end.saturating_add(KEEP_ROWS_AROUND_VIEW);
        let kept = first.saturating_sub(2 * KEEP_ROWS_AROUND_VIEW)
            ..view_end.saturating_add(2 * KEEP_ROWS_AROUND_VIEW);
        let overlaps = |range: &std::ops::Range<usize>, start: usize, end: usize| {
            start < range.end && end > range.start
        };
        let mut layouter = Layouter::reusing(width, theme, &mut self.glyphs);
        let mut relaid = 0;
        let mut at = 0;
        // The last chunk may still be filling: it always keeps its rows.
        let full = self.chunks.len().saturating_sub(1);
        for index in self.first_laid.min(full)..full {
            let (start, end) = (at, at + self.chunks[index].row_count);
            at = end;
            if self.chunks[index].let_go {
                if overlaps(&near, start, end) {
                    relaid += self.lay_out_chunk(index, &mut layouter);
                }
            } else if !overlaps(&kept, start, end) {
                let chunk = &mut self.chunks[index];
                chunk.rows = Rows::default();
                chunk.let_go = true;
            }
        }
        layouter.give_back(&mut self.glyphs);
        relaid
    }

    /// Rows at the last layout width (after a layout from the end, those
    /// that exist so far: the end of the text).
    pub fn line_count(&self) -> usize {
        self.own_line_count()
            + self
                .trailer
                .as_ref()
                .map_or(0, |trailer| trailer.line_count())
    }

    fn own_line_count(&self) -> usize {
        self.laid_chunks()
            .map(|chunk| chunk.row_count)
            .sum::<usize>()
            + self.tail_rows.len()
    }

    fn laid_chunks(&self) -> std::slice::Iter<'_, RowChunk> {
        self.chunks[self.first_laid.min(self.chunks.len())..].iter()
    }

    /// Up to `count` rows from row `start`, as of the last layout. Rows
    /// let go ([`keep_rows_near`](Self::keep_rows_near)) come out blank:
    /// a view keeps the rows it shows.
    pub fn lines(&self, start: usize, count: usize) -> Vec<Line<'_>> {
        let mut lines = Vec::with_capacity(count.min(self.line_count()));
        let mut skip = start;
        let chunks = self
            .laid_chunks()
            .map(|chunk| (chunk.row_count, (!chunk.let_go).then_some(&chunk.rows)));
        let tail = std::iter::once((self.tail_rows.len(), Some(&self.tail_rows)));
        for (row_count, rows) in chunks.chain(tail) {
            if lines.len() == count {
                break;
            }
            if skip >= row_count {
                skip -= row_count;
                continue;
            }
            let take = (row_count - skip).min(count - lines.len());
            match rows {
                Some(rows) => lines.extend((skip..skip + take).map(|row| rows.line(row))),
                None => lines.extend(std::iter::repeat_n(Line::default(), take)),
            }
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
        let table = self.held_table_lines().map(Some);
        self.finished
            .from(0)
            .flat_map(|(text, kind)| {
                let lines: Vec<Option<&str>> = match kind {
                    LineKind::Reasoning => Vec::new(),
                    LineKind::Notice => vec![None],
                    LineKind::Table => text.split('\n').map(Some).collect(),
                    _ => vec![Some(text)],
                };
                lines
            })
            .chain(table)
            .chain(tail)
            .collect()
    }

    /// The lines of the table held open, if any.
    fn held_table_lines(&self) -> impl Iterator<Item = &str> {
        self.table.split('\n').filter(|_| !self.table.is_empty())
    }

    /// Lays out the live tail, with the table held open before it; returns
    /// how many source lines that was.
    fn lay_out_tail(&mut self, layouter: &mut Layouter<'_>) -> usize {
        let mut laid = 0;
        let mut tail_in_table = false;
        let mut blocks = self.blocks.clone();
        // Kept only where the live line is laid out as a line of its own
        // below (not as a row of a table held open).
        let resume = self.tail_resume.take();
        if !self.table.is_empty() {
            let held = self.table.split('\n').count();
            if held >= 2 {
                // An open table: a partial row already goes in its columns.
                tail_in_table = !self.tail.is_empty() && is_table_row(&self.tail);
                if tail_in_table {
                    let text = format!("{}\n{}", self.table, self.tail);
                    layouter.lay_out(&text, &LineKind::Table, &mut self.tail_rows);
                } else {
                    layouter.lay_out(&self.table, &LineKind::Table, &mut self.tail_rows);
                }
            } else {
                // One line that may yet open a table: shown as written.
                let (kind, next) = classify(&blocks, &self.table);
                layouter.lay_out(&self.table, &kind, &mut self.tail_rows);
                blocks = next;
            }
            laid += held;
        }
        if !self.tail.is_empty() && !tail_in_table {
            let kind = match self.tail_segment {
                Segment::Reasoning => LineKind::Reasoning,
                Segment::Answer => classify(&blocks, &self.tail).0,
            };
            self.tail_resume = resume;
            layouter.lay_out_live(
                &self.tail,
                &kind,
                &mut self.tail_rows,
                &mut self.tail_settled,
                (&mut self.tail_resume, &self.tail_rows_before),
            );
            laid += 1;
        }
        laid
    }

    /// The text of up to `count` rows from row `start`, without their styles.
    #[cfg(test)]
    pub fn row_texts(&self, start: usize, count: usize) -> Vec<String> {
        self.lines(start, count)
            .iter()
            .map(|line| {
                line.spans
                    .iter()
                    .map(|span| span.content.as_ref())
                    .collect()
            })
            .collect()
    }

    /// Rows held laid out, not counting those let go.
    #[cfg(test)]
    pub(crate) fn rows_held(&self) -> usize {
        self.laid_chunks()
            .filter(|chunk| !chunk.let_go)
            .map(|chunk| chunk.rows.len())
            .sum::<usize>()
            + self.tail_rows.len()
    }

    /// Source lines (finished lines and the live tail) the last
    /// [`layout`](Self::layout) laid out: the measure of its work.
    pub fn lines_laid_last_layout(&self) -> usize {
        self.lines_laid_last_layout
    }

    fn finish_tail(&mut self) {
        let text = std::mem::take(&mut self.tail);
        let before = self.finished.len();
        self.finish_line(&text);
        self.note_tail_finished(before);
        // The tail's allocation is reused for the next line.
        self.tail = text;
        self.tail.clear();
    }

    /// Stores a finished line, or holds it when it opens or continues a
    /// table (whose layout needs all its rows).
    fn finish_line(&mut self, line: &str) {
        let may_be_row = self.tail_segment == Segment::Answer && self.blocks.is_prose();
        if self.table_overflowed {
            if may_be_row && is_table_row(line) {
                let kind = self.classify_and_advance(line);
                self.finished.push(line, kind);
                return;
            }
            self.table_overflowed = false;
        }
        if may_be_row && !self.table.is_empty() {
            let opened = self.table.contains('\n');
            let goes_on = match opened {
                true => is_table_row(line),
                false => opens_table(&self.table, line),
            };
            if goes_on {
                self.table.push('\n');
                self.table.push_str(line);
                if opened && self.table.len() > TABLE_HOLD_BYTES {
                    self.finish_table();
                    self.table_overflowed = true;
                }
                return;
            }
            self.finish_table();
        }
        if may_be_row && is_table_row(line) {
            self.table.push_str(line);
            return;
        }
        let kind = self.classify_and_advance(line);
        self.finished.push(line, kind);
    }

    /// Stores the table held open as one finished line, or the one line
    /// held that did not open a table as what it is.
    fn finish_table(&mut self) {
        if self.table.is_empty() {
            return;
        }
        let table = std::mem::take(&mut self.table);
        if table.contains('\n') {
            self.finished.push(&table, LineKind::Table);
        } else {
            let kind = self.classify_and_advance(&table);
            self.finished.push(&table, kind);
        }
    }

    fn commit_head_of_long_tail(&mut self) {
        self.finish_table();
        let cut = long_line_cut(&self.tail);
        let rest = self.tail.split_off(cut);
        let head = std::mem::replace(&mut self.tail, rest);
        let kind = self.classify_and_advance(&head);
        if self.tail_segment == Segment::Answer {
            self.blocks.carry = Some(kind.continuation());
        }
        let before = self.finished.len();
        self.finished.push(&head, kind);
        self.note_tail_finished(before);
    }

    /// The live line as last laid out ended, and lines from `before` on
    /// were finished: the first time since that layout, the last of them is
    /// the line it became ([`tail_finished_as`](Self::tail_finished_as)).
    /// Any line would do (laying out from another line's rows checks what
    /// it takes up), but only this one gains.
    fn note_tail_finished(&mut self, before: usize) {
        if self.finished.len() > before {
            self.tail_finished_as.get_or_insert(self.finished.len() - 1);
        }
    }

    /// Rows of finished lines taken up from a live line's layout.
    #[cfg(test)]
    pub(crate) fn finished_rows_taken_up(&self) -> usize {
        self.finished_rows_taken_up
    }

    /// This document's last line, just finished, is the line its trailer
    /// showed live and has just finished too (the card view writes each
    /// prose line it showed in the trailer): the trailer's layout of it is
    /// taken over, so that the line is laid out here from its last settled
    /// row, as a line that streamed here would be. Does nothing unless both
    /// are laid out for the same width and theme and this line is the
    /// first finished here since the last layout.
    pub fn take_over_trailer_line(&mut self) {
        let Some(trailer) = self.trailer.as_deref_mut() else {
            return;
        };
        let last = self.finished.len().checked_sub(1);
        let ours = last.is_some() && self.tail_finished_as == last && self.tail.is_empty();
        let theirs = trailer.tail_finished_as.is_some() && trailer.laid_for == self.laid_for;
        if ours && theirs {
            std::mem::swap(&mut self.tail_rows, &mut trailer.tail_rows);
            self.tail_settled = std::mem::take(&mut trailer.tail_settled);
            self.tail_resume = trailer.tail_resume.take();
            trailer.tail_finished_as = None;
        }
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

/// Display columns of `text`.
fn text_width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

/// Display columns of `c` (none for a control character).
fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use ratatui::style::Style;

    use super::*;

    fn theme() -> Theme {
        Theme::builtin("dark").unwrap()
    }

    fn laid_out(doc: &mut StreamDoc, width: u16) -> Vec<String> {
        doc.layout(width, &theme());
        doc.row_texts(0, doc.line_count())
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
    fn rows_compared_in_place_agree_with_the_lines_they_make() {
        let texts = [
            "plain words that wrap over a row or two of the pane",
            "**bold** and `code` and *stressed* words that wrap over rows",
            "plain words that wrap over a row or two of the pane, longer",
            "- a list item with `code` in it that wraps",
        ];
        let (theme, width) = (theme(), 18);
        let laid: Vec<Rows> = texts
            .iter()
            .map(|text| {
                let mut rows = Rows::default();
                let (kind, _) = classify(&BlockState::default(), text);
                Layouter::new(width, &theme).lay_out(text, &kind, &mut rows);
                rows
            })
            .collect();
        let mut same = 0;
        for (mine, theirs) in laid.iter().flat_map(|a| laid.iter().map(move |b| (a, b))) {
            for row in 0..mine.len() {
                for other_row in 0..theirs.len() {
                    let expected = mine.line(row) == theirs.line(other_row);
                    assert_eq!(mine.same_row(row, theirs, other_row), expected);
                    same += usize::from(expected);
                }
            }
        }
        assert!(
            same > laid.iter().map(Rows::len).sum::<usize>(),
            "some rows of two texts match"
        );
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

    /// Every row, text and style, of `doc` as laid out last.
    fn all_styled_rows(doc: &StreamDoc) -> Vec<Vec<(String, Style)>> {
        (0..doc.line_count())
            .map(|row| styles_of(doc, row))
            .collect()
    }

    /// Where the next piece of `text` pushed after byte `from` ends: fewer
    /// than `most` bytes on, at a character's boundary.
    fn next_cut(text: &str, from: usize, random: &mut fastrand::Rng, most: usize) -> usize {
        let mut end = (from + random.usize(1..most)).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        end
    }

    /// Holds the rows `streamed` has, text and style, to those of `text`
    /// laid out at once at `width`.
    /// Streams `text` into a new document in pieces cut by
    /// [`next_cut`] (up to `most` bytes), lays it out after each at
    /// `width_at(end)`, holds every layout to the text so far laid out at
    /// once, and shows `after` the document after each; returns it.
    fn stream_as_whole(
        text: &str,
        (random, most): (&mut fastrand::Rng, usize),
        width_at: impl Fn(usize) -> u16,
        label: &str,
        mut after: impl FnMut(&StreamDoc),
    ) -> StreamDoc {
        let theme = theme();
        let mut streamed = StreamDoc::new();
        let mut end = 0;
        while end < text.len() {
            let from = end;
            end = next_cut(text, end, random, most);
            let width = width_at(end);
            streamed.push(Segment::Answer, &text[from..end]);
            streamed.layout(width, &theme);
            let context = format!("{label}, after {end} bytes");
            assert_lays_out_as_whole(&streamed, &text[..end], width, &context);
            after(&streamed);
        }
        streamed
    }

    fn assert_lays_out_as_whole(streamed: &StreamDoc, text: &str, width: u16, context: &str) {
        let mut whole = doc_of(text);
        whole.layout(width, &theme());
        assert_eq!(
            all_styled_rows(streamed),
            all_styled_rows(&whole),
            "{context}"
        );
    }

    /// A document streamed a few bytes at a time, laid out after every
    /// push (its live line read on from where it settled, and a line that
    /// ends read on from its live line's settled start), has the rows of
    /// the same text laid out at once, at every point and at the end.
    #[test]
    fn a_document_streamed_in_pieces_lays_out_as_it_would_whole() {
        let pieces = [
            "word",
            "**bold**",
            "*it*",
            "_em_",
            "snake_case",
            "`code`",
            "[link](http://u)",
            "<b>",
            "\\*",
            "&amp;",
            "~~gone~~",
            "*",
            "**",
            "`",
            "[",
            "]",
            "<",
            "*open",
            "close*",
            "**open",
            "close**",
            "中文",
            "é",
        ];
        let starts = [
            "",
            "",
            "",
            "# ",
            "- ",
            "1. ",
            "> ",
            "  ",
            "```\n",
            "| a | b |\n",
        ];
        let (theme, width) = (theme(), 23);
        let mut random = fastrand::Rng::with_seed(56);
        let mut text = String::new();
        for _ in 0..300 {
            text.push_str(starts[random.usize(0..starts.len())]);
            for _ in 0..random.usize(1..24) {
                text.push_str(pieces[random.usize(0..pieces.len())]);
                text.push_str([" ", " ", "  ", ""][random.usize(0..4)]);
            }
            text.push('\n');
        }
        let mut streamed = StreamDoc::new();
        let mut end = 0;
        let mut checked = 0;
        while end < text.len() {
            let start = end;
            end = next_cut(&text, end, &mut random, 40);
            streamed.push(Segment::Answer, &text[start..end]);
            streamed.layout(width, &theme);
            if random.usize(0..20) == 0 || end == text.len() {
                assert_lays_out_as_whole(
                    &streamed,
                    &text[..end],
                    width,
                    &format!("after {end} bytes"),
                );
                checked += 1;
            }
        }
        assert!(checked > 20, "{checked} points compared");
    }

    /// A long live line is wrapped again at each layout only from its last
    /// row begun by a settled word: the rows before are kept, and every row
    /// is what laying the text out at once gives. Paragraphs, list items
    /// (a hanging indent), quotes and headings; a line that starts as the
    /// last one did (its settled text read on across the two); a width
    /// change in the middle.
    #[test]
    fn a_long_live_line_is_wrapped_again_only_from_its_last_settled_row() {
        let words = [
            "ledger",
            "**invoice**",
            "replay",
            "`event_id`",
            "snake_case",
            "*shadow*",
            "upcaster",
            "中文",
            "idempotent",
            "x",
            "[link](http://u)",
            "rollback",
        ];
        let mut random = fastrand::Rng::with_seed(5656);
        let line = |random: &mut fastrand::Rng| {
            let mut line = String::new();
            for at in 0..90 {
                if at > 0 {
                    line.push_str([" ", " ", "  "][random.usize(0..3)]);
                }
                line.push_str(words[random.usize(0..words.len())]);
            }
            line
        };
        let (mut pushes, mut taken_up) = (0, 0);
        for start in ["", "- ", "> ", "## ", "12. "] {
            let first = line(&mut random);
            let second = match random.bool() {
                true => first.clone(),
                false => line(&mut random),
            };
            let text = format!("{start}{first}\n{start}{second}\n");
            // One width change, in the first line.
            let width_at = |end: usize| if end > text.len() / 4 { 31 } else { 44 };
            let pieces = (&mut random, 14);
            stream_as_whole(&text, pieces, width_at, &format!("{start:?}"), |streamed| {
                pushes += 1;
                taken_up += usize::from(
                    streamed
                        .tail_resume
                        .as_ref()
                        .is_some_and(|resume| resume.rows_kept() > 0),
                );
            });
        }
        assert!(
            taken_up * 4 > pushes * 3,
            "rows taken up at {taken_up} of {pushes} layouts"
        );
    }

    /// Lines of several rows that end while they stream: prose, list
    /// items, quotes, headings, a line cut from an overlong one, a table
    /// row, a fence and code.
    fn lines_that_end_while_they_stream(random: &mut fastrand::Rng) -> String {
        let words = [
            "ledger",
            "**invoice**",
            "replay",
            "`event_id`",
            "*shadow*",
            "upcaster",
            "中文",
            "idempotent",
            "[link](http://u)",
            "snake_case",
        ];
        let mut text = String::new();
        for line in 0..30 {
            let start = ["", "", "- ", "> ", "## ", "1. "][random.usize(..6)];
            text.push_str(start);
            for at in 0..random.usize(3..40) {
                if at > 0 {
                    text.push(' ');
                }
                text.push_str(words[random.usize(..words.len())]);
            }
            text.push('\n');
            match line % 13 {
                5 => text.push_str("| a | b |\n|---|---|\n| c | d |\n"),
                9 => text.push_str("```\nlet x = 1; // a line of code that wraps at spaces\n```\n"),
                11 => text.push_str(&format!("{}\n", "word ".repeat(LONG_LINE_SPLIT_BYTES / 4))),
                _ => {}
            }
        }
        text
    }

    #[test]
    fn a_line_that_ends_is_laid_out_from_its_live_rows_as_it_would_whole() {
        let mut random = fastrand::Rng::with_seed(5657);
        let (mut taken_up, mut finished_rows) = (0, 0);
        for round in 0..2 {
            let text = lines_that_end_while_they_stream(&mut random);
            // A width change halfway.
            let width_at = |end: usize| if end > text.len() / 2 { 29 } else { 41 };
            let pieces = (&mut random, 24);
            let streamed =
                stream_as_whole(&text, pieces, width_at, &format!("round {round}"), |_| {});
            taken_up += streamed.finished_rows_taken_up;
            finished_rows += streamed.line_count();
        }
        // A line of a few rows ends with most of them as its last live
        // layout had them (short lines, code and tables have none).
        assert!(
            taken_up * 5 > finished_rows * 3,
            "{taken_up} of {finished_rows} rows taken up"
        );
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
    fn rows_far_from_the_view_are_let_go_and_laid_out_again_when_it_comes_near() {
        let text = long_document(40 * CHUNK_LINES + 17);
        let mut whole = doc_of(&text);
        let expected = laid_out(&mut whole, 30);
        let total = expected.len();
        let mut doc = doc_of(&text);
        doc.layout(30, &theme());
        let view = 40;

        // Following the end: only the end's neighbourhood keeps its rows.
        assert_eq!(doc.keep_rows_near(total - view, view, &theme()), 0);
        assert_eq!(doc.line_count(), total, "the count stands");
        let held = doc.rows_held();
        assert!(
            held >= view + KEEP_ROWS_AROUND_VIEW
                && held < 2 * KEEP_ROWS_AROUND_VIEW + view + 2 * 128 * 2,
            "{held} of {total} rows held"
        );
        assert!(total > 4 * held, "{total} rows in all");
        assert_eq!(
            doc.lines(total - view, view),
            whole.lines(total - view, view)
        );

        // Sent to the top, to the middle and back: each view is laid out
        // again, row for row and style for style, and what it left is let go.
        for first in [0, total / 2, total / 2 - 600, total - view] {
            doc.keep_rows_near(first, view, &theme());
            assert_eq!(
                doc.lines(first, view),
                whole.lines(first, view),
                "from row {first}"
            );
            assert_eq!(doc.line_count(), total);
            assert!(doc.rows_held() < total / 3, "{} rows held", doc.rows_held());
        }
        assert_eq!(
            doc.keep_rows_near(total - view, view, &theme()),
            0,
            "a view that stays lays nothing out again"
        );
        let light = Theme::builtin("light").unwrap();
        assert_eq!(
            doc.keep_rows_near(0, view, &light),
            0,
            "rows of another theme wait for the next layout"
        );
        assert_eq!(
            doc.lines(total - view, view),
            whole.lines(total - view, view)
        );

        // More text and a change of width keep working on what was let go.
        doc.push(Segment::Answer, "\nthe end, after all\n");
        assert_eq!(
            laid_out(&mut doc, 44),
            laid_out(&mut doc_of(&format!("{text}\nthe end, after all\n")), 44)
        );
    }

    #[test]
    fn after_a_width_change_only_the_rows_wanted_are_laid_out_from_the_end() {
        let lines = 40 * CHUNK_LINES + 17;
        let text = long_document(lines);
        let mut doc = doc_of(&text);
        doc.layout(90, &theme());
        assert_eq!(doc.lines_laid_last_layout(), lines);

        // Zoomed: the last 40 rows are wanted, and about that is laid out.
        assert!(!doc.layout_from_end(30, &theme(), 40));
        let first = doc.lines_laid_last_layout();
        assert!(first <= 2 * CHUNK_LINES + 1, "{first} lines laid out");
        let mut whole = doc_of(&text);
        let expected = laid_out(&mut whole, 30);
        let partial = doc.row_texts(0, doc.line_count());
        assert!(partial.len() >= 40 && partial.len() < expected.len() / 10);
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

        // The same view again lays out nothing more: the rest waits until
        // it is wanted.
        for _ in 0..5 {
            assert!(!doc.layout_from_end(30, &theme(), 40));
            assert_eq!(doc.lines_laid_last_layout(), 0);
            assert_eq!(doc.row_texts(0, doc.line_count()), partial);
        }

        // A view gone up wants more rows: they are laid out above, counted.
        let wanted = partial.len() + 400;
        assert!(!doc.layout_from_end(30, &theme(), wanted));
        let more = doc.line_count();
        assert!(more >= wanted && more < expected.len(), "{more} rows");
        assert_eq!(doc.take_rows_added_above(), more - partial.len());
        assert_eq!(
            doc.row_texts(0, more)[..],
            expected[expected.len() - more..]
        );

        // Wanting them all (a view sent to the top) completes the layout.
        assert!(doc.layout_from_end(30, &theme(), usize::MAX));
        assert_eq!(doc.take_rows_added_above(), expected.len() - more);
        assert_eq!(doc.row_texts(0, doc.line_count()), expected);
    }

    #[test]
    fn text_streamed_while_a_layout_is_unfinished_lands_at_the_end() {
        let text = long_document(12 * CHUNK_LINES);
        let mut doc = doc_of(&text);
        doc.layout(90, &theme());
        assert!(!doc.layout_from_end(30, &theme(), 10));
        let more = "\nlate line one\nlate line two, still streaming";
        for piece in more.as_bytes().chunks(7) {
            doc.push(Segment::Answer, std::str::from_utf8(piece).unwrap());
            doc.layout_from_end(30, &theme(), 10);
        }
        assert_eq!(
            laid_out(&mut doc, 30),
            laid_out(&mut doc_of(&(text + more)), 30)
        );
        // A complete layout after an unfinished one gives the same rows.
        doc.layout_from_end(50, &theme(), 10);
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
            let window = doc.row_texts(start, 7);
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

    const SCORE_TABLE: &str = "\
| Criterion | Score | Threshold | Notes |
|:----------|:-----:|----------:|-------|
| **Correctness** | 8 | 7 | Handles the `retry` path and the empty input; one edge case around time zones is left to a follow-up. |
| Clarity | 6 | 7 | Dense in places \\| split the second section. |
";

    #[test]
    fn tables_lay_out_in_columns_within_the_width() {
        let mut doc = doc_of(SCORE_TABLE);
        let rows = laid_out(&mut doc, 80);
        assert_eq!(
            rows,
            [
                "Criterion   │ Score │ Threshold │ Notes",
                &format!("────────────┼───────┼───────────┼{}", "─".repeat(47)),
                "Correctness │   8   │         7 │ Handles the retry path and the empty input;",
                "            │       │           │ one edge case around time zones is left to a",
                "            │       │           │ follow-up.",
                "Clarity     │   6   │         7 │ Dense in places | split the second section.",
            ]
        );
        // The header is bold; the alignment row is not shown.
        let header = styles_of(&doc, 0);
        assert!(header.iter().any(|(text, style)| text.contains("Criterion")
            && style.add_modifier.contains(ratatui::style::Modifier::BOLD)));
        assert!(rows.iter().all(|row| !row.contains("---")));
        // Inline markup is rendered in the cells.
        assert!(
            styles_of(&doc, 2)
                .iter()
                .any(|(text, style)| text.contains("Correctness") && *style != theme().text)
        );
    }

    #[test]
    fn narrow_tables_shrink_their_widest_columns_and_wrap_cells() {
        let mut doc = doc_of(SCORE_TABLE);
        // The notes give way first, down to their longest word.
        let rows = laid_out(&mut doc, 48);
        assert_eq!(
            rows,
            [
                "Criterion   │ Score │ Threshold │ Notes",
                "────────────┼───────┼───────────┼───────────────",
                "Correctness │   8   │         7 │ Handles the",
                "            │       │           │ retry path and",
                "            │       │           │ the empty",
                "            │       │           │ input; one",
                "            │       │           │ edge case",
                "            │       │           │ around time",
                "            │       │           │ zones is left",
                "            │       │           │ to a",
                "            │       │           │ follow-up.",
                "Clarity     │   6   │         7 │ Dense in",
                "            │       │           │ places | split",
                "            │       │           │ the second",
                "            │       │           │ section.",
            ]
        );
        // Then every column shrinks, widest first, cutting words.
        let rows = laid_out(&mut doc, 40);
        assert!(rows.iter().all(|row| text_width(row) <= 40), "{rows:#?}");
        assert_eq!(
            &rows[..5],
            [
                "Criterio │ Score │ Threshold │ Notes",
                "n        │       │           │",
                "─────────┼───────┼───────────┼──────────",
                "Correctn │   8   │         7 │ Handles",
                "ess      │       │           │ the retry",
            ]
        );
    }

    #[test]
    fn a_table_too_narrow_for_its_columns_is_shown_as_written() {
        let text = "| a1 | b2 | c3 | d4 | e5 | f6 |\n|---|---|---|---|---|---|\n| 1 | 2 | 3 | 4 | 5 | 6 |\n";
        let mut doc = doc_of(text);
        assert_eq!(
            laid_out(&mut doc, 20),
            [
                "| a1 | b2 | c3 | d4",
                "| e5 | f6 |",
                "|---|---|---|---|---",
                "|---|",
                "| 1 | 2 | 3 | 4 | 5",
                "| 6 |",
            ]
        );
        assert_eq!(laid_out(&mut doc, 40)[0], "a1 │ b2 │ c3 │ d4 │ e5 │ f6");
    }

    #[test]
    fn a_pipe_line_without_an_alignment_row_stays_a_paragraph() {
        let mut doc = doc_of("| not | a table |\nplain\n");
        assert_eq!(laid_out(&mut doc, 80), ["| not | a table |", "plain"]);
        assert_eq!(
            doc.answer_lines(),
            [Some("| not | a table |"), Some("plain")]
        );
    }
    #[test]
    fn a_table_past_the_hold_limit_keeps_its_rows_and_shows_the_rest_as_written() {
        let mut text = String::from("| n | word |\n|---|---|\n");
        let mut rows = 0;
        while text.len() <= TABLE_HOLD_BYTES + 100 {
            text.push_str(&format!("| {rows} | w |\n"));
            rows += 1;
        }
        text.push_str("after\n| a | b |\n|---|---|\n| 1 | 2 |\n");
        let mut doc = doc_of(&text);
        let laid = laid_out(&mut doc, 40);
        // Header, rule, then rows in columns up to the limit.
        assert_eq!(laid[0], "n    │ word");
        assert_eq!(laid[2], "0    │ w");
        // The rows after the limit as written; the next table in columns.
        let last = laid.len();
        assert!(laid[last - 5].starts_with("| "), "{:?}", &laid[last - 6..]);
        assert_eq!(laid[last - 4], "after");
        assert_eq!(&laid[last - 3..], ["a │ b", "──┼──", "1 │ 2"]);
        // The held table is bounded: a push lays out little.
        doc.push(Segment::Answer, "x");
        doc.layout(40, &theme());
        assert!(doc.lines_laid_last_layout() < 10);
        assert_eq!(doc.answer_lines().len(), text.lines().count() + 1);
    }
    #[test]
    fn table_cells_cannot_smuggle_controls() {
        let mut doc = doc_of("| a | b |\n|---|---|\n| &#x1b;[31mred | &#7;`x` |\n");
        let rows = laid_out(&mut doc, 40);
        assert!(
            rows.iter()
                .all(|row| row.chars().all(crate::text::is_displayable)),
            "{rows:?}"
        );
        assert!(rows[2].contains("[31mred"), "{rows:?}");
    }
}

#[cfg(test)]
mod hanging_indent_tests {
    use super::*;

    fn rows_at(text: &str, width: u16) -> Vec<String> {
        let mut doc = StreamDoc::yaml_excerpt(text);
        doc.layout(width, &Theme::builtin("dark").unwrap());
        doc.row_texts(0, doc.line_count())
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
