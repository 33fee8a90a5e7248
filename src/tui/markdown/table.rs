//! Markdown tables: telling their rows apart, and laying a whole table out
//! as aligned columns at one width.
//!
//! Responsible for: whether a line can be a table row or the alignment row
//! under a header (`|---|:--:|`), splitting a row into trimmed cells
//! (an escaped pipe `\|` stays in its cell as text), and the layout of a
//! table: column widths from all its rows, the widest columns shrunk first
//! to fit the width, cells wrapped inside their column, the header in bold
//! with a rule under it, the alignment row not shown. A table that cannot
//! fit even at [`MIN_COLUMN_WIDTH`] columns a column is shown as written.
//!
//! Not responsible for: deciding when a table's rows are all known (the
//! document holds an open table in its live tail), or styling a cell's
//! inline spans (see [`super::inline`]).

use ratatui::style::Style;

use crate::tui::theme::Theme;

use super::inline::{Glyph, push_inline};

/// Columns a column may be shrunk to (fewer if its widest cell is
/// narrower); a table whose columns cannot all keep this many falls back to
/// its text as written.
pub(super) const MIN_COLUMN_WIDTH: usize = 6;

/// What separates two columns.
const COLUMN_GAP: &str = " │ ";
/// Where the rule under the header crosses a column gap.
const RULE_CROSSING: &str = "─┼─";

/// How a column's cells sit in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Align {
    Left,
    Center,
    Right,
}

/// Whether `line` can be a row of a table: it starts with a pipe (after at
/// most three spaces of indent).
pub(super) fn is_table_row(line: &str) -> bool {
    let trimmed = line.trim_start_matches(' ');
    line.len() - trimmed.len() <= 3 && trimmed.starts_with('|')
}

/// The alignments an alignment row (`|---|:--:|--:|`) gives its columns, or
/// `None` when `line` is not one.
pub(super) fn alignment_row(line: &str) -> Option<Vec<Align>> {
    if !line.contains('|') {
        return None;
    }
    split_cells(line)
        .iter()
        .map(|cell| {
            let left = cell.starts_with(':');
            let right = cell.len() > 1 && cell.ends_with(':');
            let dashes = cell.trim_start_matches(':').trim_end_matches(':');
            if dashes.is_empty() || !dashes.chars().all(|c| c == '-') {
                return None;
            }
            Some(match (left, right) {
                (true, true) => Align::Center,
                (false, true) => Align::Right,
                _ => Align::Left,
            })
        })
        .collect()
}

/// The trimmed cells of a row: split at each pipe not escaped by a
/// backslash, the pipes at either end of the row dropped.
pub(super) fn split_cells(line: &str) -> Vec<&str> {
    let row = line.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = match row.strip_suffix('|') {
        Some(inner) if !inner.ends_with('\\') => inner,
        _ => row,
    };
    let mut cells = Vec::new();
    let mut start = 0;
    let mut escaped = false;
    for (at, c) in row.char_indices() {
        match c {
            '\\' => escaped = !escaped,
            '|' if !escaped => {
                cells.push(row[start..at].trim());
                start = at + 1;
            }
            _ => escaped = false,
        }
    }
    cells.push(row[start..].trim());
    cells
}

/// Whether the lines held so far (`header`, then `second`) open a table:
/// the second is an alignment row with as many cells as the header.
pub(super) fn opens_table(header: &str, second: &str) -> bool {
    alignment_row(second).is_some_and(|aligns| aligns.len() == split_cells(header).len())
}

/// A table laid out at one width: the rows of glyphs to place, or `None`
/// when it cannot fit and is to be shown as written.
pub(super) fn lay_out_table(text: &str, width: usize, theme: &Theme) -> Option<Vec<Vec<Glyph>>> {
    let mut lines = text.split('\n');
    let header = lines.next()?;
    let aligns = alignment_row(lines.next()?)?;
    let columns = aligns.len();
    let header_style = theme.text.patch(theme.md_strong);
    let cells_of = |line: &str, style: Style| -> Vec<Vec<Glyph>> {
        let mut cells: Vec<Vec<Glyph>> = split_cells(line)
            .into_iter()
            .take(columns)
            .map(|cell| {
                let mut glyphs = Vec::new();
                push_inline(&mut glyphs, cell, style, theme);
                glyphs
            })
            .collect();
        cells.resize(columns, Vec::new());
        cells
    };
    let mut table = vec![cells_of(header, header_style)];
    table.extend(lines.map(|line| cells_of(line, theme.text)));
    let widths = column_widths(&table, width)?;
    let dim = theme.dim;
    let mut rows = Vec::new();
    for (index, cells) in table.iter().enumerate() {
        let wrapped: Vec<Vec<&[Glyph]>> = cells
            .iter()
            .zip(&widths)
            .map(|(cell, &column)| wrap_cell(cell, column))
            .collect();
        let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
        for line in 0..height {
            let mut row = Vec::new();
            for (column, pieces) in wrapped.iter().enumerate() {
                if column > 0 {
                    push_str(&mut row, COLUMN_GAP, dim);
                }
                let piece = pieces.get(line).copied().unwrap_or(&[]);
                let room = widths[column].saturating_sub(glyphs_width(piece));
                let before = match aligns[column] {
                    Align::Left => 0,
                    Align::Center => room / 2,
                    Align::Right => room,
                };
                push_str(&mut row, &" ".repeat(before), theme.text);
                row.extend_from_slice(piece);
                if column + 1 < columns {
                    push_str(&mut row, &" ".repeat(room - before), theme.text);
                }
            }
            let end = row
                .iter()
                .rposition(|glyph| glyph.c != ' ')
                .map_or(0, |last| last + 1);
            row.truncate(end);
            rows.push(row);
        }
        if index == 0 {
            let mut rule = Vec::new();
            for (column, &cells) in widths.iter().enumerate() {
                if column > 0 {
                    push_str(&mut rule, RULE_CROSSING, dim);
                }
                push_str(&mut rule, &"─".repeat(cells), dim);
            }
            rows.push(rule);
        }
    }
    Some(rows)
}

/// Each column's width: its widest cell, the widest columns shrunk first
/// until the table fits in `width`, none below [`MIN_COLUMN_WIDTH`] (or its
/// widest cell); `None` when it cannot fit.
pub(super) fn column_widths(table: &[Vec<Vec<Glyph>>], width: usize) -> Option<Vec<usize>> {
    let columns = table.first().map_or(0, Vec::len);
    if columns == 0 {
        return None;
    }
    let mut widths: Vec<usize> = (0..columns)
        .map(|column| {
            table
                .iter()
                .map(|row| glyphs_width(&row[column]))
                .max()
                .unwrap_or(0)
                .max(1)
        })
        .collect();
    let floors: Vec<usize> = widths.iter().map(|w| (*w).min(MIN_COLUMN_WIDTH)).collect();
    let gaps = (columns - 1) * COLUMN_GAP.chars().count();
    if floors.iter().sum::<usize>() + gaps > width {
        return None;
    }
    // First down to each column's longest word, so no word is cut while
    // shrinking another column would do; then down to the floors.
    let words: Vec<usize> = (0..columns)
        .map(|column| {
            let longest = table
                .iter()
                .map(|row| longest_word(&row[column]))
                .max()
                .unwrap_or(0);
            longest.max(floors[column]).min(widths[column])
        })
        .collect();
    for floors in [&words, &floors] {
        while widths.iter().sum::<usize>() + gaps > width {
            let Some(widest) = (0..columns)
                .filter(|&column| widths[column] > floors[column])
                .max_by_key(|&column| (widths[column], std::cmp::Reverse(column)))
            else {
                break;
            };
            widths[widest] -= 1;
        }
    }
    Some(widths)
}

/// A cell's glyphs in pieces at most `width` columns wide, broken at
/// spaces (a word wider than the column is cut); at least one piece.
fn wrap_cell(cell: &[Glyph], width: usize) -> Vec<&[Glyph]> {
    let mut pieces = Vec::new();
    let mut rest = cell;
    while !rest.is_empty() {
        while rest.first().is_some_and(|glyph| glyph.c == ' ') {
            rest = &rest[1..];
        }
        if rest.is_empty() {
            break;
        }
        let mut columns = 0;
        let mut fit = 0;
        while fit < rest.len() && columns + rest[fit].width <= width {
            columns += rest[fit].width;
            fit += 1;
        }
        if fit == rest.len() {
            pieces.push(rest);
            break;
        }
        // Break at the last space that fits, else cut the word (at least
        // one glyph, so a glyph wider than the column still moves on).
        let cut = match rest[..=fit].iter().rposition(|glyph| glyph.c == ' ') {
            Some(space) if space > 0 => space,
            _ => fit.max(1),
        };
        let piece = &rest[..cut];
        let trimmed = piece
            .iter()
            .rposition(|glyph| glyph.c != ' ')
            .map_or(piece, |last| &piece[..=last]);
        pieces.push(trimmed);
        rest = &rest[cut..];
    }
    if pieces.is_empty() {
        pieces.push(&[]);
    }
    pieces
}

/// Columns of the widest word among `glyphs`.
fn longest_word(glyphs: &[Glyph]) -> usize {
    glyphs
        .split(|glyph| glyph.c == ' ')
        .map(glyphs_width)
        .max()
        .unwrap_or(0)
}

fn glyphs_width(glyphs: &[Glyph]) -> usize {
    glyphs.iter().map(|glyph| glyph.width).sum()
}

fn push_str(glyphs: &mut Vec<Glyph>, text: &str, style: Style) {
    super::inline::push_plain(glyphs, text, style);
}
