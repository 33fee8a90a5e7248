//! Source lines laid out as styled rows at one width.
//!
//! Responsible for: the flat store of styled rows ([`Rows`]), and the
//! [`Layouter`] that turns a line of a given [`LineKind`] into rows: word
//! wrapping of prose, hanging indents under list items and YAML values
//! (giving way to a small indent when they would leave too little room),
//! code wrapped at spaces with a mark on continuation rows, rules and
//! notices across the width.
//!
//! Not responsible for: deciding a line's kind (see [`super::blocks`]),
//! styling its inline spans or YAML (see [`super::inline`]), or which lines
//! are laid out when (the document itself).

use std::ops::Range;

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::theme::Theme;

use super::blocks::{LineKind, classify_prose, without_closing_hashes};
use super::inline::{
    Glyph, InlinePrefix, push_inline, push_inline_resuming, push_plain, push_yaml,
};
use super::table::lay_out_table;
use super::text_width;

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

/// Styled rows stored flat: one string, span ends into it, row ends into the
/// spans. Keeps a chunk of a long transcript to a few allocations.
#[derive(Debug, Default)]
pub(super) struct Rows {
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
#[derive(Clone, Copy, Debug)]
struct StoredSpan {
    text_end: u32,
    style: u16,
}

/// A row offset as stored: text beyond 4 GiB in one pane is not held.
pub(super) fn stored_offset(offset: usize) -> u32 {
    u32::try_from(offset).unwrap_or(u32::MAX)
}

impl Rows {
    pub(super) fn clear(&mut self) {
        self.text.clear();
        self.spans.clear();
        self.styles.clear();
        self.row_ends.clear();
        self.open_row_first_span = 0;
    }

    /// Gives back what a finished chunk's rows will never use.
    pub(super) fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.spans.shrink_to_fit();
        self.styles.shrink_to_fit();
        self.row_ends.shrink_to_fit();
    }

    pub(super) fn len(&self) -> usize {
        self.row_ends.len()
    }

    /// Makes these rows the first `count` of `other` (of which there are at
    /// least as many).
    fn copy_first_rows(&mut self, other: &Rows, count: usize) {
        self.clear();
        let spans = match count {
            0 => 0,
            _ => other.row_ends[count - 1] as usize,
        };
        let text = match spans {
            0 => 0,
            _ => other.spans[spans - 1].text_end as usize,
        };
        self.text.push_str(&other.text[..text]);
        self.spans.extend_from_slice(&other.spans[..spans]);
        self.styles.extend_from_slice(&other.styles);
        self.row_ends.extend_from_slice(&other.row_ends[..count]);
        self.open_row_first_span = spans;
    }

    /// Appends the rows of `other` after these (whose last row is ended).
    pub(super) fn append(&mut self, other: &Rows) {
        let text_base = stored_offset(self.text.len());
        let span_base = stored_offset(self.spans.len());
        self.text.push_str(&other.text);
        for span in &other.spans {
            let style = self.style_index(other.styles[usize::from(span.style)]);
            self.spans.push(StoredSpan {
                text_end: text_base.saturating_add(span.text_end),
                style,
            });
        }
        self.row_ends.extend(
            other
                .row_ends
                .iter()
                .map(|end| span_base.saturating_add(*end)),
        );
        self.open_row_first_span = self.spans.len();
    }

    fn start_row(&mut self) {
        self.open_row_first_span = self.spans.len();
    }

    fn push_char(&mut self, c: char, style: Style) {
        self.text.push(c);
        self.end_span_with(style);
    }

    /// [`push_char`](Self::push_char) for each of `glyphs`, a span's style
    /// looked up once for each run of glyphs that share it.
    fn push_glyphs(&mut self, glyphs: &[Glyph]) {
        let mut rest = glyphs;
        while let Some(first) = rest.first() {
            let run = rest
                .iter()
                .position(|glyph| glyph.style != first.style)
                .unwrap_or(rest.len());
            self.text.extend(rest[..run].iter().map(|glyph| glyph.c));
            self.end_span_with(first.style);
            rest = &rest[run..];
        }
    }

    /// The text pushed last ends a span of `style`: the row's last span
    /// where it has that style, else a new one.
    fn end_span_with(&mut self, style: Style) {
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

    /// Whether row `row` reads the same, text and styles, as row `other_row`
    /// of `other`: what [`line`](Self::line) would make of each, compared
    /// without making it.
    pub(super) fn same_row(&self, row: usize, other: &Rows, other_row: usize) -> bool {
        let (mine, theirs) = (self.span_range(row), other.span_range(other_row));
        mine.len() == theirs.len()
            && mine.zip(theirs).all(|(mine, theirs)| {
                self.span_text(mine) == other.span_text(theirs)
                    && self.styles[usize::from(self.spans[mine].style)]
                        == other.styles[usize::from(other.spans[theirs].style)]
            })
    }

    fn span_text(&self, index: usize) -> &str {
        let start = match index {
            0 => 0,
            _ => self.spans[index - 1].text_end as usize,
        };
        &self.text[start..self.spans[index].text_end as usize]
    }

    pub(super) fn line(&self, row: usize) -> Line<'_> {
        let spans: Vec<Span<'_>> = self
            .span_range(row)
            .map(|index| {
                Span::styled(
                    self.span_text(index),
                    self.styles[usize::from(self.spans[index].style)],
                )
            })
            .collect();
        Line::from(spans)
    }
}

fn glyphs_width(glyphs: &[Glyph]) -> usize {
    glyphs.iter().map(|glyph| glyph.width).sum()
}

/// Where the rows of a live line can be taken up again at its next layout:
/// the row that begins with glyph `glyph`, the `rows` before it kept as
/// they are. Word wrapping runs left to right, so the rows before a row
/// that begins a word depend only on the glyphs up to the end of that word
/// (whether it fits is decided by its whole width), the width and the
/// prefixes; where all those glyphs are settled ([`InlinePrefix`]: no text
/// to come can change them) and the width and prefixes are the same, so
/// are those rows, and wrapping on from that word gives what wrapping the
/// whole line would.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct WrapResume {
    width: usize,
    first_prefix: Vec<Glyph>,
    rest_prefix: Vec<Glyph>,
    rows: usize,
    glyph: usize,
    /// The glyphs the rows before depend on: up to the space that ends the
    /// word at `glyph`.
    depends_on: usize,
}

impl WrapResume {
    /// The rows before the row taken up.
    #[cfg(test)]
    pub(super) fn rows_kept(&self) -> usize {
        self.rows
    }
}

/// A live line's layout as [`Layouter::wrap_words`] sees it.
struct Live<'a> {
    /// Where to take the rows up again, with the rows of the last layout.
    resume: Option<(WrapResume, &'a Rows)>,
    /// The line's first glyphs that are the same as at the last layout.
    same_as_before: usize,
    /// The line's first glyphs no text to come can change.
    settled: usize,
}

/// The glyphs of the lines a document lays out, kept between its layouts:
/// a live line's glyphs, hundreds at every frame, go into the allocation
/// the last layout left, not into a new one grown a doubling at a time.
#[derive(Debug, Default)]
pub(super) struct GlyphBuffer(Vec<Glyph>);

/// The glyphs a [`GlyphBuffer`] keeps room for between layouts (a line
/// longer than this grows it again when laid out).
const KEPT_GLYPHS: usize = 2048;

/// Lays out source lines at one width with one theme, reusing its buffers.
pub(super) struct Layouter<'t> {
    width: usize,
    theme: &'t Theme,
    content: Vec<Glyph>,
    first_prefix: Vec<Glyph>,
    rest_prefix: Vec<Glyph>,
    /// While a live line is laid out: how far its inline markdown is
    /// settled ([`lay_out_live`](Self::lay_out_live)).
    live: Option<InlinePrefix>,
    /// While a live line is laid out: where its last layout's rows can be
    /// taken up again.
    resume_from: Option<WrapResume>,
    /// Rows the last live line's layout took up from its last layout.
    taken_up: usize,
    /// Where the rows of the live line just laid out can be taken up again
    /// (none where it was not wrapped as inline markdown).
    resume_next: Option<WrapResume>,
}

impl<'t> Layouter<'t> {
    /// A layouter whose glyphs go into `buffer`'s allocation; hand it back
    /// with [`give_back`](Self::give_back).
    pub(super) fn reusing(width: usize, theme: &'t Theme, buffer: &mut GlyphBuffer) -> Self {
        let mut layouter = Layouter::new(width, theme);
        layouter.content = std::mem::take(&mut buffer.0);
        layouter
    }

    /// Returns the glyphs' allocation to `buffer` (no more than
    /// [`KEPT_GLYPHS`] of it).
    pub(super) fn give_back(mut self, buffer: &mut GlyphBuffer) {
        self.content.clear();
        self.content.shrink_to(KEPT_GLYPHS);
        buffer.0 = self.content;
    }

    pub(super) fn new(width: usize, theme: &'t Theme) -> Self {
        Layouter {
            width,
            theme,
            content: Vec::new(),
            first_prefix: Vec::new(),
            rest_prefix: Vec::new(),
            live: None,
            resume_from: None,
            taken_up: 0,
            resume_next: None,
        }
    }

    /// [`lay_out`](Self::lay_out) for a line still streaming, into empty
    /// `rows`, whose inline markdown is read on from where `settled` says
    /// nothing can change any more, and `settled` taken on; and whose rows
    /// are taken up from where `resume` says the last layout's rows,
    /// `before`, can be, and `resume` taken on. The rows are the same.
    /// Returns how many rows were taken up from `before`.
    pub(super) fn lay_out_live(
        &mut self,
        text: &str,
        kind: &LineKind,
        rows: &mut Rows,
        settled: &mut InlinePrefix,
        (resume, before): (&mut Option<WrapResume>, &Rows),
    ) -> usize {
        self.live = Some(std::mem::take(settled));
        self.resume_from = resume.take();
        self.taken_up = 0;
        self.lay_out_with(text, kind, rows, Some(before));
        if let Some(live) = self.live.take() {
            *settled = live;
        }
        // A line laid out otherwise (it reads as code now) leaves nothing
        // to take up.
        self.resume_from = None;
        *resume = self.resume_next.take();
        self.taken_up
    }

    pub(super) fn lay_out(&mut self, text: &str, kind: &LineKind, rows: &mut Rows) {
        self.lay_out_with(text, kind, rows, None);
    }

    /// [`lay_out`](Self::lay_out), with the rows of a live line's last
    /// layout where it is one.
    fn lay_out_with(
        &mut self,
        text: &str,
        kind: &LineKind,
        rows: &mut Rows,
        before: Option<&Rows>,
    ) {
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
                self.wrap_inline(content, theme.md_heading, rows, before);
            }
            LineKind::Paragraph {
                indent,
                content_start,
            } => {
                self.indent_both(*indent, theme.text);
                self.wrap_inline(&text[*content_start..], theme.text, rows, before);
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
                self.wrap_inline(&text[*content_start..], theme.text, rows, before);
            }
            LineKind::Table => match lay_out_table(text, self.width, theme) {
                Some(table) => {
                    for row in table {
                        rows.start_row();
                        for glyph in row {
                            rows.push_char(glyph.c, glyph.style);
                        }
                        rows.end_row();
                    }
                }
                // Too narrow for its columns: each row as written.
                None => {
                    for line in text.split('\n') {
                        self.lay_out(line, &classify_prose(line), rows);
                    }
                }
            },
            LineKind::Quote {
                depth,
                content_start,
            } => {
                let bar = "│ ".repeat(*depth);
                push_plain(&mut self.first_prefix, &bar, theme.md_quote);
                push_plain(&mut self.rest_prefix, &bar, theme.md_quote);
                self.wrap_inline(&text[*content_start..], theme.md_quote, rows, before);
            }
        }
    }

    /// Wraps `content`, read as inline markdown over `base`, after the
    /// prefixes set so far; taking a live line's rows up from its last
    /// layout's, `before`, where they can be.
    fn wrap_inline(&mut self, content: &str, base: Style, rows: &mut Rows, before: Option<&Rows>) {
        let Some(settled) = &mut self.live else {
            push_inline(&mut self.content, content, base, self.theme);
            self.wrap_words(rows);
            return;
        };
        let same_as_before =
            push_inline_resuming(&mut self.content, content, base, self.theme, settled);
        let live = Live {
            resume: self.resume_from.take().zip(before),
            same_as_before,
            settled: settled.settled_glyphs(),
        };
        self.resume_next = self.wrap_words_live(rows, live);
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
        self.wrap_words_live(
            rows,
            Live {
                resume: None,
                same_as_before: 0,
                settled: 0,
            },
        );
    }

    /// [`wrap_words`](Self::wrap_words) for a live line, into empty `rows`:
    /// from where `live` says its last layout's rows can be taken up, if
    /// they can. Returns where these rows can be taken up at the next.
    fn wrap_words_live(&mut self, rows: &mut Rows, live: Live<'_>) -> Option<WrapResume> {
        let width = self.width;
        let max_prefix = width.saturating_sub(MIN_TEXT_COLUMNS);
        fit_prefix(&mut self.first_prefix, max_prefix);
        fit_prefix(&mut self.rest_prefix, max_prefix);
        let fresh_row_room = width.saturating_sub(glyphs_width(&self.rest_prefix));
        // Only rows of the line alone are kept or taken up.
        let alone = rows.len() == 0;
        let resume = live.resume.filter(|(resume, before)| {
            alone
                && resume.depends_on <= live.same_as_before
                && resume.rows <= before.len()
                && resume.width == width
                && resume.first_prefix == self.first_prefix
                && resume.rest_prefix == self.rest_prefix
        });
        // Where the next layout can take these rows up: the last row begun
        // by a word whose glyphs, and the space after it, are settled. The
        // row taken up from is one (what it depends on is settled for
        // good); before, a layout that found no later one left the next
        // nothing to take up, and every other frame wrapped a long live
        // line whole.
        let mut next_resume = None;
        let (mut row, mut at) = match resume {
            Some((resume, before)) => {
                rows.copy_first_rows(before, resume.rows);
                self.taken_up = resume.rows;
                next_resume = Some((resume.rows, resume.glyph, resume.depends_on));
                (RowCursor::begin(rows, &self.rest_prefix), resume.glyph)
            }
            None => (RowCursor::begin(rows, &self.first_prefix), 0),
        };
        let glyphs = &self.content;
        let mut spaces = 0..0;
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
                    if alone && at < live.settled {
                        next_resume = Some((row.rows.len(), start, at + 1));
                    }
                }
                row.emit(word);
            }
            spaces = 0..0;
        }
        row.finish();
        let (rows, glyph, depends_on) = next_resume?;
        Some(WrapResume {
            width,
            first_prefix: self.first_prefix.clone(),
            rest_prefix: self.rest_prefix.clone(),
            rows,
            glyph,
            depends_on,
        })
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
        self.rows.push_glyphs(glyphs);
        self.column += glyphs_width(glyphs);
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
