//! Which cells of a frame differ from what the terminal shows: the cells
//! ratatui's [`Buffer::diff_iter`] yields, in its order, with its rules for
//! wide characters, with less work a cell.
//!
//! A frame compares a pane's changed rows, or all its rows after a jump,
//! and about half the cells it compares are equal (blanks stay blank, a
//! row's frame stays). ratatui compares each pair in full through a call,
//! and measures the width of every cell's symbol first, equal or not. Here
//! a pair is compared field by field, a one-byte symbol by its byte, and a
//! symbol's width is measured only where it is needed: for a cell that
//! differs, or an equal one whose symbol is longer than a byte (a wide
//! character whose next columns are passed over); and the last symbol
//! measured is kept, so a border's `─` is measured once, not once a cell.
//! In the paced bench's frames (release build) that is a sixth less work
//! comparing than ratatui's diff, and 4% of a frame's.
//!
//! The test holds this to ratatui's own diff on random buffers with wide
//! characters, emoji with VS16, combining marks, skipped and forced-width
//! cells.

use ratatui::buffer::{Buffer, Cell, CellDiffOption, CellWidth};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};

/// Styles a blank cell still shows: a wide character replaced by a narrow
/// one under them leaves its trailing columns to be written again.
const VISIBLE_ON_BLANK: Modifier = Modifier::REVERSED
    .union(Modifier::UNDERLINED)
    .union(Modifier::SLOW_BLINK)
    .union(Modifier::RAPID_BLINK)
    .union(Modifier::CROSSED_OUT);

/// The cells of `next` to write where the terminal shows `prev`, with
/// their positions: what `prev.diff_iter(next)` yields.
pub fn diff<'p, 'n>(prev: &'p Buffer, next: &'n Buffer) -> CellDiff<'p, 'n> {
    // ratatui compares buffers of different heights over the rows both
    // have; the screen never needs that.
    assert_eq!(prev.area, next.area, "the buffers compared cover one area");
    diff_cells(&prev.content, &next.content, prev.area)
}

/// [`diff`] of the cells of `area`'s rows, in order, where they lie (rows
/// of a larger buffer, compared without copying them into buffers of their
/// own).
pub fn diff_cells<'p, 'n>(prev: &'p [Cell], next: &'n [Cell], area: Rect) -> CellDiff<'p, 'n> {
    assert!(
        prev.len() == next.len() && prev.len() == area.area() as usize,
        "the cells compared are the area's: {} and {} cells for {area:?}",
        prev.len(),
        next.len(),
    );
    CellDiff {
        next,
        prev,
        area,
        pos: 0,
        trailing: None,
        measured: Measured::default(),
    }
}

/// See [`diff`].
pub struct CellDiff<'p, 'n> {
    next: &'n [Cell],
    prev: &'p [Cell],
    area: Rect,
    pos: usize,
    trailing: Option<Trailing>,
    measured: Measured,
}

/// The columns after a wide character still to look at: up to `end`,
/// written whatever they hold where `force`, else where their symbol
/// changed.
struct Trailing {
    next_index: usize,
    end: usize,
    force: bool,
}

/// The last symbol longer than a byte whose width was measured.
#[derive(Default)]
struct Measured {
    symbol: [u8; 16],
    len: usize,
    width: u16,
}

impl Measured {
    /// The width ratatui gives `cell`.
    fn width(&mut self, cell: &Cell) -> usize {
        if let CellDiffOption::ForcedWidth(width) = cell.diff_option {
            return usize::from(width.get());
        }
        let symbol = cell.symbol().as_bytes();
        if symbol.len() == 1 {
            return 1;
        }
        if symbol.len() == self.len && symbol == &self.symbol[..self.len] {
            return usize::from(self.width);
        }
        let width = cell.symbol().cell_width();
        if symbol.len() <= self.symbol.len() {
            self.symbol[..symbol.len()].copy_from_slice(symbol);
            self.len = symbol.len();
            self.width = width;
        }
        usize::from(width)
    }
}

/// `a == b` for cells, as ratatui's `PartialEq` has it (no symbol and a
/// space are the same), a one-byte symbol compared by its byte.
#[allow(deprecated)] // `skip` still counts in ratatui's comparison.
fn same(a: &Cell, b: &Cell) -> bool {
    let symbols = match (a.symbol().as_bytes(), b.symbol().as_bytes()) {
        ([a], [b]) => a == b,
        (a, b) => a == b,
    };
    symbols
        && a.fg == b.fg
        && a.bg == b.bg
        && a.underline_color == b.underline_color
        && a.modifier == b.modifier
        && a.diff_option == b.diff_option
        && a.skip == b.skip
}

/// Whether the diff passes over `cell`.
#[allow(deprecated)] // ratatui still honours the old flag.
fn is_skip(cell: &Cell) -> bool {
    matches!(cell.diff_option, CellDiffOption::Skip)
        || (cell.skip && matches!(cell.diff_option, CellDiffOption::None))
}

impl CellDiff<'_, '_> {
    fn place(&self, index: usize) -> (u16, u16) {
        let width = usize::from(self.area.width);
        let x = index % width + usize::from(self.area.x);
        let y = index / width + usize::from(self.area.y);
        (
            u16::try_from(x).unwrap_or(u16::MAX),
            u16::try_from(y).unwrap_or(u16::MAX),
        )
    }
}

impl<'n> Iterator for CellDiff<'_, 'n> {
    type Item = (u16, u16, &'n Cell);

    fn next(&mut self) -> Option<Self::Item> {
        let (next, prev) = (self.next, self.prev);
        let len = next.len().min(prev.len());
        if let Some(trailing) = &mut self.trailing {
            while trailing.next_index < trailing.end {
                let at = trailing.next_index;
                trailing.next_index += self.measured.width(&next[at]).max(1);
                trailing.end = trailing.end.max(trailing.next_index).min(len);
                if !is_skip(&next[at]) && (trailing.force || prev[at].symbol() != next[at].symbol())
                {
                    let (x, y) = self.place(at);
                    return Some((x, y, &next[at]));
                }
            }
            self.pos = trailing.end;
            self.trailing = None;
        }
        while self.pos < len {
            let at = self.pos;
            self.pos += 1;
            let (current, previous) = (&next[at], &prev[at]);
            match current.diff_option {
                CellDiffOption::Skip => {}
                _ if is_skip(current) => {}
                CellDiffOption::ForcedWidth(width) => {
                    self.pos = self
                        .pos
                        .saturating_add(usize::from(width.get()).saturating_sub(1));
                    if !same(current, previous) {
                        let (x, y) = self.place(at);
                        return Some((x, y, current));
                    }
                }
                CellDiffOption::None | CellDiffOption::AlwaysUpdate => {
                    let always = matches!(current.diff_option, CellDiffOption::AlwaysUpdate);
                    if !always && same(current, previous) {
                        // An equal wide character's columns are passed over.
                        if current.symbol().len() > 1 {
                            self.pos += self.measured.width(current).saturating_sub(1);
                        }
                        continue;
                    }
                    let width = self.measured.width(current);
                    let previous_width = self.measured.width(previous);
                    // Some terminals leave the trailing column of an emoji
                    // with VS16 as it was: those columns are written too.
                    let vs16 = width > 1 && current.symbol().contains('\u{FE0F}');
                    if vs16 {
                        self.trailing = Some(Trailing {
                            next_index: at + 1,
                            end: (at + width).min(len),
                            force: false,
                        });
                    } else if width > 1 {
                        self.pos += width - 1;
                    } else if previous_width > width
                        && (previous.bg != Color::Reset
                            || previous.modifier.intersects(VISIBLE_ON_BLANK))
                    {
                        self.trailing = Some(Trailing {
                            next_index: at + 1,
                            // ratatui reads past the last cell here when
                            // a wide character ended the buffer.
                            end: (at + previous_width).min(len),
                            force: true,
                        });
                    }
                    let (x, y) = self.place(at);
                    return Some((x, y, current));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU16;

    use super::*;

    /// Symbols of every kind the diff treats apart: blanks, letters, two
    /// bytes of one and of two columns, box drawing, wide characters, emoji
    /// with and without VS16, a combining mark, the empty symbol, halfwidth
    /// sound marks.
    const SYMBOLS: [&str; 16] = [
        " ",
        " ",
        " ",
        "a",
        "b",
        "é",
        "ab",
        "─",
        "│",
        "あ",
        "語",
        "👍",
        "👍\u{FE0F}",
        "e\u{301}",
        "",
        "ﾊﾞ",
    ];

    fn random_cell(random: &mut fastrand::Rng) -> Cell {
        let mut cell = Cell::default();
        cell.set_symbol(SYMBOLS[random.usize(..SYMBOLS.len())]);
        let colours = [
            Color::Reset,
            Color::Red,
            Color::Indexed(7),
            Color::Rgb(1, 2, 3),
        ];
        cell.fg = colours[random.usize(..colours.len())];
        if random.u8(..4) == 0 {
            cell.bg = colours[random.usize(..colours.len())];
        }
        if random.u8(..8) == 0 {
            cell.underline_color = colours[random.usize(..colours.len())];
        }
        let modifiers = [
            Modifier::empty(),
            Modifier::BOLD,
            Modifier::REVERSED,
            Modifier::UNDERLINED | Modifier::ITALIC,
        ];
        cell.modifier = modifiers[random.usize(..modifiers.len())];
        cell.diff_option = match random.u8(..40) {
            0 => CellDiffOption::Skip,
            1 => CellDiffOption::AlwaysUpdate,
            2 => CellDiffOption::ForcedWidth(NonZeroU16::new(random.u16(1..4)).unwrap()),
            _ => CellDiffOption::None,
        };
        #[allow(deprecated)]
        if random.u8(..40) == 0 {
            cell.skip = true;
        }
        cell
    }

    /// A random buffer, or `base` with a few of its cells changed.
    fn random_buffer(random: &mut fastrand::Rng, area: Rect, base: Option<&Buffer>) -> Buffer {
        let mut buffer = Buffer::empty(area);
        for (index, cell) in buffer.content.iter_mut().enumerate() {
            *cell = match base.and_then(|base| base.content.get(index)) {
                Some(kept) if random.u8(..4) != 0 => kept.clone(),
                _ => random_cell(random),
            };
        }
        buffer
    }

    #[test]
    fn the_cells_written_are_those_ratatui_s_diff_writes() {
        let mut random = fastrand::Rng::with_seed(56);
        let mut skipped = 0;
        for case in 0..3_000 {
            let width = random.u16(1..24);
            let area = Rect::new(random.u16(..5), random.u16(..5), width, random.u16(1..6));
            let prev = random_buffer(&mut random, area, None);
            let next = random_buffer(&mut random, area, Some(&prev));
            let ours: Vec<_> = diff(&prev, &next)
                .map(|(x, y, cell)| (x, y, std::ptr::from_ref(cell)))
                .collect();
            // ratatui panics on a wide character in the last cell whose
            // trailing columns it must write: those buffers are not held
            // against it (ours stops at the last cell).
            let theirs = std::panic::catch_unwind(|| {
                prev.diff_iter(&next)
                    .map(|(x, y, cell)| (x, y, std::ptr::from_ref(cell)))
                    .collect::<Vec<_>>()
            });
            match theirs {
                Ok(theirs) => assert_eq!(ours, theirs, "case {case}: {prev:?} then {next:?}"),
                Err(_) => skipped += 1,
            }
            // A band of rows compared where it lies, against ratatui's diff
            // of buffers holding those rows alone.
            let first = random.u16(..area.height);
            let band = Rect::new(
                area.x,
                area.y + first,
                width,
                random.u16(1..=area.height - first),
            );
            let cells = usize::from(first) * usize::from(width)
                ..usize::from(first + band.height) * usize::from(width);
            let alone = |buffer: &Buffer| Buffer {
                area: band,
                content: buffer.content[cells.clone()].to_vec(),
            };
            let (prev_band, next_band) = (alone(&prev), alone(&next));
            let ours: Vec<_> = diff_cells(
                &prev.content[cells.clone()],
                &next.content[cells.clone()],
                band,
            )
            .map(|(x, y, cell)| (x, y, cell.clone()))
            .collect();
            let theirs = std::panic::catch_unwind(|| {
                prev_band
                    .diff_iter(&next_band)
                    .map(|(x, y, cell)| (x, y, cell.clone()))
                    .collect::<Vec<_>>()
            });
            if let Ok(theirs) = theirs {
                assert_eq!(ours, theirs, "case {case}, rows {band:?}");
            }
        }
        assert!(skipped < 300, "{skipped} of 3,000 cases not compared");
    }

    #[test]
    fn equal_frames_write_nothing_and_one_changed_cell_writes_itself() {
        let prev = Buffer::with_lines(["hello あ─", "world 👍\u{FE0F}│"]);
        assert_eq!(diff(&prev, &prev.clone()).count(), 0);
        let mut next = prev.clone();
        next[(1, 1)].set_symbol("a");
        let written: Vec<_> = diff(&prev, &next)
            .map(|(x, y, cell)| (x, y, cell.symbol().to_string()))
            .collect();
        assert_eq!(written, [(1, 1, "a".to_string())]);
    }
}
