//! The terminal as the interface draws on it: what it shows, kept cell by
//! cell, and each frame's changes sent in one write.
//!
//! Most frames of a debate only stream text into a pane or two. Such a
//! frame draws those panes alone, and the header where its figures (the
//! clock, the tokens, the money) changed, each into a buffer of its own
//! size, compares them with what the terminal shows there and writes the
//! cells that differ; the rest of the screen is neither drawn nor compared.
//! Where a pane's view has not scrolled since it was last drawn (a
//! following pane scrolls by jumps, a paused one not at all), only the rows
//! from the first its text changed in are drawn and compared, and its top
//! and bottom rows where its frame (title, badge, hint) changed. Anything
//! else (a key, a new stage, a resize, a changed layout, an open dialog)
//! draws the whole screen. Either way the terminal then shows what a whole
//! redraw would: the tests hold partial frames to that.
//!
//! The terminal's size is asked once and then taken from resize events, not
//! asked again each frame (crossterm opens `/dev/tty` to ask it).

use std::io::{self, Write};

use crossterm::cursor::Hide;
use crossterm::queue;
use crossterm::style::{
    Attribute, SetAttribute, SetBackgroundColor, SetForegroundColor, SetUnderlineColor,
};
use crossterm::terminal::{BeginSynchronizedUpdate, Clear, ClearType, EndSynchronizedUpdate};
use ratatui::backend::IntoCrossterm;
use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::{Rect, Size};
use ratatui::style::{Color, Modifier};

use super::app::App;
pub use super::app::Damage;
use super::cell_diff;
use super::layout::{Region, ScreenLayout};
use super::view;

/// The terminal's cells as last drawn, and where frames are written.
pub struct Screen<W: Write> {
    out: W,
    /// One frame's escape sequences, written to `out` at once.
    bytes: Vec<u8>,
    /// What the terminal shows.
    shown: Buffer,
    /// The next whole frame.
    next: Buffer,
    /// Regions drawn on their own since the last whole frame: `shown` is
    /// stale inside them until the next whole frame folds them back in.
    kept: Vec<Kept>,
    /// The layout of the last frame drawn.
    layout: ScreenLayout,
    /// Each pane's view as last drawn: its first row of text and how many
    /// rows the text had (`None`: a person's prompt, drawn whole).
    pane_drawn: Vec<Option<(usize, usize)>>,
    /// Nothing is known of what the terminal shows: the next frame clears
    /// it and draws the whole screen.
    fresh: bool,
    /// Cells the last frame drew and compared.
    compared: usize,
    /// The header's figures as last drawn ([`view::header_figures`]).
    header_figures: Vec<ratatui::text::Span<'static>>,
}

impl<W: Write> Screen<W> {
    pub fn new(out: W, size: Size) -> Self {
        let area = Rect::from((ratatui::layout::Position::ORIGIN, size));
        Screen {
            out,
            bytes: Vec::with_capacity(1 << 16),
            shown: Buffer::empty(area),
            next: Buffer::empty(area),
            kept: Vec::new(),
            layout: ScreenLayout::default(),
            pane_drawn: Vec::new(),
            fresh: true,
            compared: 0,
            header_figures: Vec::new(),
        }
    }

    /// The terminal's area.
    pub fn area(&self) -> Rect {
        self.shown.area
    }

    /// The terminal was resized: the next frame starts afresh.
    pub fn resize(&mut self, size: Size) {
        let area = Rect::from((ratatui::layout::Position::ORIGIN, size));
        self.shown.resize(area);
        self.next.resize(area);
        self.kept.clear();
        self.fresh = true;
    }

    /// Lays `app` out and draws what its damage says changed; returns
    /// whether the frame was partial.
    pub fn draw(&mut self, app: &mut App) -> io::Result<bool> {
        app.prepare(self.area());
        let damage = std::mem::take(&mut app.damage);
        // Only a frame of the same layout with nothing laid over the panes
        // (a pop-up, a message wrapped up from the footer) may leave the
        // rest of the screen as it is.
        let streamed = match damage {
            Damage::Streamed { panes, header }
                if !self.fresh
                    && app.layout == self.layout
                    && app.layers.is_empty()
                    && view::flash_rows(app) == 1 =>
            {
                Some((panes, header))
            }
            _ => None,
        };
        // Which rows of each pane's view to draw, where the last frame
        // left the others standing: from the first row whose text changed
        // since, to the last that had or has text. A pane not drawn now
        // goes on counting its changes.
        let panes = app.panes.len();
        let drawn = (0..panes).filter(|index| {
            streamed
                .as_ref()
                .is_none_or(|(panes, _)| panes.contains(index))
        });
        self.pane_drawn.resize(panes, None);
        let mut changed = vec![None; panes];
        for index in drawn {
            let pane = &mut app.panes[index];
            let (total, rows) = (pane.shown().line_count(), pane.viewport);
            let first = pane
                .human
                .is_none()
                .then(|| pane.scroll.first_line(total, rows));
            let unchanged = pane.shown_mut().take_unchanged_rows();
            if let (Some(first), Some((first_before, total_before))) =
                (first, self.pane_drawn[index])
                && first == first_before
            {
                let row = |line: usize| line.saturating_sub(first).min(rows);
                changed[index] = Some(row(unchanged)..row(total.max(total_before)));
            }
            self.pane_drawn[index] = first.map(|first| (first, total));
        }
        self.bytes.clear();
        self.compared = 0;
        queue!(self.bytes, BeginSynchronizedUpdate)?;
        let partial = streamed.is_some();
        match streamed {
            Some((panes, header)) => self.draw_streamed(app, header, &panes, &changed)?,
            None => self.draw_whole(app)?,
        }
        self.layout.clone_from(&app.layout);
        queue!(self.bytes, EndSynchronizedUpdate)?;
        self.out.write_all(&self.bytes)?;
        self.out.flush()?;
        Ok(partial)
    }

    fn draw_whole(&mut self, app: &App) -> io::Result<()> {
        if self.fresh {
            queue!(self.bytes, Clear(ClearType::All), Hide)?;
            self.shown.reset();
            self.fresh = false;
        }
        for kept in self.kept.drain(..) {
            paste_cells(&kept.shown, &mut self.shown);
        }
        self.next.reset();
        view::draw_screen(app, &mut self.next);
        self.header_figures = view::header_figures(app);
        self.compared += self.next.content.len();
        encode(&mut self.bytes, cell_diff::diff(&self.shown, &self.next))?;
        std::mem::swap(&mut self.shown, &mut self.next);
        Ok(())
    }

    /// The header (where `header` says its figures may have changed, and
    /// they did) and each pane in `panes`, each compared only with its own
    /// cells on screen; of a pane with rows
    /// `changed[pane]` of its view to draw, only those, and its top and
    /// bottom rows (its title, and a paused view's hint) where its frame
    /// changed.
    fn draw_streamed(
        &mut self,
        app: &App,
        header: bool,
        panes: &[usize],
        changed: &[Option<std::ops::Range<usize>>],
    ) -> io::Result<()> {
        let layout = &app.layout;
        let header = header.then_some((None, layout.header));
        let rects = header.into_iter().chain(
            panes
                .iter()
                .filter_map(|&index| Some((Some(index), layout.rect(Region::Pane(index))?))),
        );
        for (pane, rect) in rects {
            let rect = rect.intersection(self.shown.area);
            if rect.is_empty() {
                continue;
            }
            // The clock's second and the tokens' rounded figure change
            // less often than the tick comes.
            if pane.is_none() {
                let figures = view::header_figures(app);
                if figures == self.header_figures {
                    continue;
                }
                self.header_figures = figures;
            }
            let at = match self.kept.iter().position(|kept| kept.shown.area == rect) {
                Some(at) => at,
                None => {
                    self.kept.push(Kept::of(&self.shown, rect));
                    self.kept.len() - 1
                }
            };
            let kept = &mut self.kept[at];
            let rows = pane.and_then(|index| changed.get(index).cloned().flatten());
            let frame = pane.and_then(|index| view::pane_frame(app, index));
            let (Some(index), Some(rows)) = (pane, rows.filter(|_| rect.height >= 3)) else {
                kept.drawn.reset();
                match (pane, &frame) {
                    (None, _) => view::draw_header(app, &mut kept.drawn),
                    (Some(index), Some(block)) => {
                        view::draw_pane_framed(app, index, &mut kept.drawn, block, 0);
                    }
                    // A pane is drawn only where the layout has it.
                    (Some(_), None) => {}
                }
                kept.frame = frame;
                self.compared += kept.drawn.content.len();
                encode(&mut self.bytes, cell_diff::diff(&kept.shown, &kept.drawn))?;
                std::mem::swap(&mut kept.shown, &mut kept.drawn);
                continue;
            };
            // The view's rows sit inside the frame, a row below its top.
            let y = |row: usize| {
                let row = u16::try_from(row).unwrap_or(u16::MAX);
                rect.top().saturating_add(1).saturating_add(row)
            };
            let text = y(rows.start).min(rect.bottom() - 1)..y(rows.end).min(rect.bottom() - 1);
            if frame.is_some() && kept.frame == frame {
                // The frame stands as drawn (its title, badge and hint
                // unchanged; its borders change only in whole frames):
                // the rows of text alone, inside their border cells.
                kept.reset_inside(text.clone());
                view::draw_pane_body(app, index, &mut kept.drawn, rows.start);
                self.compared += kept.send_rows(&mut self.bytes, text)?;
                continue;
            }
            // The frame's title, badge or hint changed: its top and bottom
            // rows are drawn again with the rows of text (its sides change
            // only in whole frames).
            let bands = [
                rect.top()..rect.top() + 1,
                text,
                rect.bottom() - 1..rect.bottom(),
            ];
            kept.reset_rows(bands[0].clone());
            kept.reset_inside(bands[1].clone());
            kept.reset_rows(bands[2].clone());
            if let Some(block) = &frame {
                view::draw_pane_frame_edges(app, index, &mut kept.drawn, block);
                view::draw_pane_body(app, index, &mut kept.drawn, rows.start);
            }
            kept.frame = frame;
            for band in bands {
                self.compared += kept.send_rows(&mut self.bytes, band)?;
            }
        }
        Ok(())
    }

    /// How many cells the last frame drew and compared with what the
    /// terminal showed.
    pub fn cells_compared(&self) -> usize {
        self.compared
    }

    /// The writer frames go to.
    #[cfg(test)]
    pub fn out(&self) -> &W {
        &self.out
    }

    /// What the terminal shows, cell by cell.
    #[cfg(test)]
    pub fn shown(&self) -> Buffer {
        let mut shown = self.shown.clone();
        for kept in &self.kept {
            paste_cells(&kept.shown, &mut shown);
        }
        shown
    }
}

/// Writes changed `cells` into `bytes` as escape sequences: the cursor
/// moved where a run of cells breaks, colours and attributes set where they
/// change, and each cell's text copied in as it is. (ratatui's crossterm
/// backend formats each cell's text through `Display`; in a frame that
/// scrolls a pane, that was most of the cost of writing it.) Attributes are
/// set afresh, after a reset, wherever they change.
fn encode<'a>(
    bytes: &mut Vec<u8>,
    cells: impl Iterator<Item = (u16, u16, &'a Cell)>,
) -> io::Result<()> {
    let attributes = attribute_sequences();
    // `None`: not known, so the next cell sets it.
    let mut colours: Option<(Color, Color, Color)> =
        Some((Color::Reset, Color::Reset, Color::Reset));
    let mut sequences = Sequences::default();
    let mut modifier = Modifier::empty();
    let mut next_at = None;
    for (x, y, cell) in cells {
        if next_at != Some((x, y)) {
            move_to(bytes, x, y);
        }
        next_at = Some((x.saturating_add(1), y));
        if cell.modifier != modifier {
            // A reset clears the colours too.
            bytes.extend_from_slice(&attributes.reset);
            for (flag, sequence) in &attributes.set {
                if cell.modifier.contains(*flag) {
                    bytes.extend_from_slice(sequence);
                }
            }
            modifier = cell.modifier;
            colours = None;
        }
        let (fg, bg, underline) = colours.unwrap_or((Color::Reset, Color::Reset, Color::Reset));
        let unknown = colours.is_none();
        if unknown || cell.fg != fg {
            sequences.put(bytes, Layer::Foreground, cell.fg)?;
        }
        if unknown || cell.bg != bg {
            sequences.put(bytes, Layer::Background, cell.bg)?;
        }
        if unknown || cell.underline_color != underline {
            sequences.put(bytes, Layer::Underline, cell.underline_color)?;
        }
        colours = Some((cell.fg, cell.bg, cell.underline_color));
        bytes.extend_from_slice(cell.symbol().as_bytes());
    }
    queue!(
        bytes,
        SetForegroundColor(crossterm::style::Color::Reset),
        SetBackgroundColor(crossterm::style::Color::Reset),
        SetUnderlineColor(crossterm::style::Color::Reset),
        SetAttribute(Attribute::Reset),
    )
}

/// What crossterm writes to reset the attributes and to set each one a
/// [`Modifier`] names.
struct AttributeSequences {
    reset: Vec<u8>,
    set: Vec<(Modifier, Vec<u8>)>,
}

/// [`AttributeSequences`], formatted by crossterm once: text with
/// emphasis changes them every few cells.
fn attribute_sequences() -> &'static AttributeSequences {
    static SEQUENCES: std::sync::OnceLock<AttributeSequences> = std::sync::OnceLock::new();
    SEQUENCES.get_or_init(|| {
        let sequence = |attribute: Attribute| {
            let mut bytes = Vec::new();
            queue!(bytes, SetAttribute(attribute)).expect("writing to a Vec cannot fail");
            bytes
        };
        let set = [
            (Modifier::BOLD, Attribute::Bold),
            (Modifier::DIM, Attribute::Dim),
            (Modifier::ITALIC, Attribute::Italic),
            (Modifier::UNDERLINED, Attribute::Underlined),
            (Modifier::SLOW_BLINK, Attribute::SlowBlink),
            (Modifier::RAPID_BLINK, Attribute::RapidBlink),
            (Modifier::REVERSED, Attribute::Reverse),
            (Modifier::HIDDEN, Attribute::Hidden),
            (Modifier::CROSSED_OUT, Attribute::CrossedOut),
        ];
        AttributeSequences {
            reset: sequence(Attribute::Reset),
            set: set
                .into_iter()
                .map(|(flag, attribute)| (flag, sequence(attribute)))
                .collect(),
        }
    })
}

/// What crossterm's `MoveTo(x, y)` writes (`CSI row ; column H`, counted
/// from 1), without going through `fmt`: a scrolling pane moves the cursor
/// once a row.
fn move_to(bytes: &mut Vec<u8>, x: u16, y: u16) {
    let mut digits = itoa::Buffer::new();
    bytes.extend_from_slice(b"\x1b[");
    bytes.extend_from_slice(digits.format(u32::from(y) + 1).as_bytes());
    bytes.push(b';');
    bytes.extend_from_slice(digits.format(u32::from(x) + 1).as_bytes());
    bytes.push(b'H');
}

/// Which colour of a cell a sequence sets.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layer {
    Foreground,
    Background,
    Underline,
}

impl Layer {
    /// What crossterm writes to set this layer to `colour`.
    fn sequence(self, colour: Color) -> io::Result<Vec<u8>> {
        let mut sequence = Vec::new();
        let colour = colour.into_crossterm();
        match self {
            Layer::Foreground => queue!(sequence, SetForegroundColor(colour))?,
            Layer::Background => queue!(sequence, SetBackgroundColor(colour))?,
            Layer::Underline => queue!(sequence, SetUnderlineColor(colour))?,
        }
        Ok(sequence)
    }
}

/// The escape sequences of the colours one [`encode`] sets, each formatted
/// by crossterm once and copied after that: a pane's cells set a handful of
/// colours hundreds of times.
#[derive(Default)]
struct Sequences(Vec<(Layer, Color, Vec<u8>)>);

impl Sequences {
    fn put(&mut self, bytes: &mut Vec<u8>, layer: Layer, colour: Color) -> io::Result<()> {
        let known = self.0.iter().find(|(known_layer, known_colour, _)| {
            *known_layer == layer && *known_colour == colour
        });
        if let Some((_, _, sequence)) = known {
            bytes.extend_from_slice(sequence);
            return Ok(());
        }
        let sequence = layer.sequence(colour)?;
        bytes.extend_from_slice(&sequence);
        self.0.push((layer, colour, sequence));
        Ok(())
    }
}

/// A region drawn on its own: what the terminal shows there, and a buffer
/// of its size to draw the next frame's cells into.
struct Kept {
    shown: Buffer,
    drawn: Buffer,
    /// A pane's frame as `shown` has it ([`view::pane_frame`]).
    frame: Option<ratatui::widgets::Block<'static>>,
}

impl Kept {
    /// The region `rect` of `screen`, as it shows now.
    fn of(screen: &Buffer, rect: Rect) -> Self {
        let mut shown = Buffer::empty(rect);
        let width = usize::from(rect.width);
        for (row, y) in (rect.top()..rect.bottom()).enumerate() {
            let start = screen.index_of(rect.x, y);
            shown.content[row * width..(row + 1) * width]
                .clone_from_slice(&screen.content[start..start + width]);
        }
        Kept {
            shown,
            drawn: Buffer::empty(rect),
            frame: None,
        }
    }

    /// Where the screen's rows `rows` (cut to the region's) lie in the
    /// region's buffers: whole rows of cells.
    fn cells_of(&self, rows: &std::ops::Range<u16>) -> std::ops::Range<usize> {
        let area = self.shown.area;
        let width = usize::from(area.width);
        let row = |y: u16| usize::from(y.clamp(area.top(), area.bottom()) - area.top());
        row(rows.start) * width..row(rows.end).max(row(rows.start)) * width
    }

    /// Clears the screen's rows `rows` of `drawn`, to draw them afresh.
    fn reset_rows(&mut self, rows: std::ops::Range<u16>) {
        let cells = self.cells_of(&rows);
        for cell in &mut self.drawn.content[cells] {
            cell.reset();
        }
    }

    /// Clears the screen's rows `rows` of `drawn` inside the region's
    /// border, and takes the border's cells there from `shown`, to draw
    /// what is inside afresh.
    fn reset_inside(&mut self, rows: std::ops::Range<u16>) {
        let cells = self.cells_of(&rows);
        let width = usize::from(self.shown.area.width);
        if width < 2 {
            return;
        }
        for (drawn, shown) in self.drawn.content[cells.clone()]
            .chunks_mut(width)
            .zip(self.shown.content[cells].chunks(width))
        {
            drawn[0].clone_from(&shown[0]);
            drawn[width - 1].clone_from(&shown[width - 1]);
            for cell in &mut drawn[1..width - 1] {
                cell.reset();
            }
        }
    }

    /// Writes what changed in the screen's rows `rows` from `shown` to
    /// `drawn` into `bytes`, as a whole frame's comparison would, and takes
    /// those rows of `drawn` as what the terminal shows; returns how many
    /// cells it compared. The rows are compared where they lie and then
    /// swapped, not copied: `drawn` is left with stale cells there, which
    /// no frame reads before it clears them.
    fn send_rows(&mut self, bytes: &mut Vec<u8>, rows: std::ops::Range<u16>) -> io::Result<usize> {
        let cells = self.cells_of(&rows);
        let width = self.shown.area.width;
        let Ok(height) = u16::try_from(cells.len() / usize::from(width.max(1))) else {
            return Ok(0);
        };
        if height == 0 {
            return Ok(0);
        }
        let top =
            self.shown.area.top() + u16::try_from(cells.start / usize::from(width)).unwrap_or(0);
        let area = Rect::new(self.shown.area.x, top, width, height);
        let (shown, drawn) = (
            &mut self.shown.content[cells.clone()],
            &mut self.drawn.content[cells],
        );
        encode(bytes, cell_diff::diff_cells(shown, drawn, area))?;
        shown.swap_with_slice(drawn);
        Ok(shown.len())
    }
}

/// Writes the cells of `from` into `into`, at the same places.
fn paste_cells(from: &Buffer, into: &mut Buffer) {
    let rect = from.area;
    let width = usize::from(rect.width);
    for (row, y) in (rect.top()..rect.bottom()).enumerate() {
        let start = into.index_of(rect.x, y);
        into.content[start..start + width]
            .clone_from_slice(&from.content[row * width..(row + 1) * width]);
    }
}

#[cfg(test)]
mod tests {
    use crossterm::cursor::MoveTo;

    use super::*;

    #[test]
    fn cursor_moves_and_colours_are_written_as_crossterm_writes_them() {
        for (x, y) in [(0, 0), (9, 9), (10, 99), (199, 59), (1000, 65534)] {
            let (mut ours, mut theirs) = (Vec::new(), Vec::new());
            move_to(&mut ours, x, y);
            queue!(theirs, MoveTo(x, y)).unwrap();
            assert_eq!(ours, theirs, "({x}, {y})");
        }
        let colours = [
            Color::Reset,
            Color::Red,
            Color::LightCyan,
            Color::Indexed(208),
            Color::Rgb(1, 20, 255),
        ];
        let mut sequences = Sequences::default();
        for round in 0..2 {
            for colour in colours {
                for layer in [Layer::Foreground, Layer::Background, Layer::Underline] {
                    let mut ours = Vec::new();
                    sequences.put(&mut ours, layer, colour).unwrap();
                    let theirs = layer.sequence(colour).unwrap();
                    assert_eq!(ours, theirs, "{colour:?}, round {round}");
                }
            }
        }
        assert_eq!(sequences.0.len(), colours.len() * 3, "each formatted once");
    }
}
