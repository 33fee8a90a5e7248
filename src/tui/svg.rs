//! A drawn screen as an SVG picture: the cells of a ratatui [`Buffer`] (the
//! same buffer the snapshot tests read) with their colours and weights, for
//! the pictures in `docs/screens/` that the README shows.
//!
//! Responsible for: turning cells into rows of text runs of one style each,
//! background rectangles where a run has a background, and colours as the
//! terminal would show them (the 16 named colours as xterm's, the 256
//! indexed ones, true colour as is). Not responsible for choosing what is
//! drawn: the caller draws the interface into the buffer first.
//!
//! The output depends on nothing but the buffer, so a picture regenerated
//! from the same screen is byte for byte the same.

use std::fmt::Write;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

/// Width of a cell, in SVG units (pixels at 100%).
const CELL_WIDTH: f32 = 8.4;
/// Height of a row, in SVG units.
const ROW_HEIGHT: f32 = 17.0;
/// Distance from a row's top to its text's baseline.
const BASELINE: f32 = 13.0;
/// The terminal's own colours, for cells that keep the default.
const DEFAULT_FOREGROUND: &str = "#d8dee9";
const DEFAULT_BACKGROUND: &str = "#1d2128";

/// The SVG picture of `buffer`, titled `title` (for screen readers).
pub fn render(buffer: &Buffer, title: &str) -> String {
    let area = buffer.area;
    let width = f32::from(area.width) * CELL_WIDTH;
    let height = f32::from(area.height) * ROW_HEIGHT;
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width:.1} {height:.1}\" \
         width=\"{width:.0}\" height=\"{height:.0}\" role=\"img\" aria-label=\"{}\">\n\
         <title>{}</title>\n\
         <style>text{{font-family:'DejaVu Sans Mono','Menlo','Consolas',monospace;\
         font-size:14px;white-space:pre}}.b{{font-weight:bold}}.i{{font-style:italic}}\
         .u{{text-decoration:underline}}.d{{opacity:0.6}}</style>\n\
         <rect width=\"100%\" height=\"100%\" fill=\"{DEFAULT_BACKGROUND}\"/>\n",
        escape(title),
        escape(title),
    );
    for y in 0..area.height {
        let runs = row_runs(buffer, area.y + y);
        let top = f32::from(y) * ROW_HEIGHT;
        for run in runs
            .iter()
            .filter(|run| run.background != DEFAULT_BACKGROUND)
        {
            let _ = writeln!(
                svg,
                "<rect x=\"{:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{ROW_HEIGHT:.1}\" fill=\"{}\"/>",
                f32::from(run.column) * CELL_WIDTH,
                f32::from(run.columns) * CELL_WIDTH,
                run.background,
            );
        }
        for run in &runs {
            let path = box_path(run, top);
            if !path.is_empty() {
                let _ = writeln!(
                    svg,
                    "<path d=\"{path}\" stroke=\"{}\" fill=\"none\"/>",
                    run.foreground
                );
            }
        }
        for run in runs.iter().filter(|run| !run.text.trim().is_empty()) {
            let mut class = String::new();
            for (flag, name) in [
                (Modifier::BOLD, "b"),
                (Modifier::ITALIC, "i"),
                (Modifier::UNDERLINED, "u"),
                (Modifier::DIM, "d"),
            ] {
                if run.modifiers.contains(flag) {
                    class.push_str(if class.is_empty() { "" } else { " " });
                    class.push_str(name);
                }
            }
            let class = if class.is_empty() {
                String::new()
            } else {
                format!(" class=\"{class}\"")
            };
            // Each cell is placed where the terminal puts it, so that a
            // font a little wider or narrower than the grid cannot move
            // the columns (box drawing, wide characters).
            let _ = writeln!(
                svg,
                "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"{}\"{class} textLength=\"{:.1}\" lengthAdjust=\"spacingAndGlyphs\">{}</text>",
                f32::from(run.column) * CELL_WIDTH,
                top + BASELINE,
                run.foreground,
                f32::from(run.columns) * CELL_WIDTH,
                escape(&run.text),
            );
        }
    }
    svg.push_str("</svg>\n");
    svg
}

/// The lines of the box-drawing characters in `run` (row top `top`), as
/// SVG path data: drawn as lines, they join up whatever font shows the
/// picture.
fn box_path(run: &Run, top: f32) -> String {
    let mut path = String::new();
    let middle_y = top + ROW_HEIGHT / 2.0;
    for (offset, c) in run.boxes.iter() {
        let Some(arms) = box_arms(*c) else {
            continue;
        };
        let left = f32::from(run.column + offset) * CELL_WIDTH;
        let middle_x = left + CELL_WIDTH / 2.0;
        // Each arm runs from the middle of the cell to an edge; a double
        // line is two lines a little apart, a heavy one is wider apart.
        for (arm, weight) in arms.iter().enumerate() {
            let offsets: &[f32] = match weight {
                0 => continue,
                1 => &[0.0],
                2 => &[-0.5, 0.0, 0.5],
                _ => &[-1.5, 1.5],
            };
            for shift in offsets {
                let (from, to) = match arm {
                    0 => ((middle_x, middle_y + shift), (left, middle_y + shift)),
                    1 => (
                        (middle_x, middle_y + shift),
                        (left + CELL_WIDTH, middle_y + shift),
                    ),
                    2 => ((middle_x + shift, middle_y), (middle_x + shift, top)),
                    _ => (
                        (middle_x + shift, middle_y),
                        (middle_x + shift, top + ROW_HEIGHT),
                    ),
                };
                // A double line's parallel strokes meet at the corner.
                let _ = write!(path, "M{:.1} {:.1}L{:.1} {:.1}", from.0, from.1, to.0, to.1);
            }
        }
    }
    path
}

/// The arms of a box-drawing character, `[left, right, up, down]`: 0 none,
/// 1 light, 2 heavy, 3 double.
fn box_arms(c: char) -> Option<[u8; 4]> {
    Some(match c {
        '─' => [1, 1, 0, 0],
        '│' => [0, 0, 1, 1],
        '╭' | '┌' => [0, 1, 0, 1],
        '╮' | '┐' => [1, 0, 0, 1],
        '╰' | '└' => [0, 1, 1, 0],
        '╯' | '┘' => [1, 0, 1, 0],
        '├' => [0, 1, 1, 1],
        '┤' => [1, 0, 1, 1],
        '┬' => [1, 1, 0, 1],
        '┴' => [1, 1, 1, 0],
        '┼' => [1, 1, 1, 1],
        '━' => [2, 2, 0, 0],
        '┃' => [0, 0, 2, 2],
        '┏' => [0, 2, 0, 2],
        '┓' => [2, 0, 0, 2],
        '┗' => [0, 2, 2, 0],
        '┛' => [2, 0, 2, 0],
        '═' => [3, 3, 0, 0],
        '║' => [0, 0, 3, 3],
        '╔' => [0, 3, 0, 3],
        '╗' => [3, 0, 0, 3],
        '╚' => [0, 3, 3, 0],
        '╝' => [3, 0, 3, 0],
        _ => return None,
    })
}

/// Cells side by side in one style.
struct Run {
    column: u16,
    columns: u16,
    text: String,
    foreground: String,
    background: String,
    modifiers: Modifier,
    /// Box-drawing characters, by cell offset in the run: drawn as lines,
    /// and as spaces in the text.
    boxes: Vec<(u16, char)>,
}

/// The runs of row `y`, left to right.
fn row_runs(buffer: &Buffer, y: u16) -> Vec<Run> {
    let area = buffer.area;
    let mut runs: Vec<Run> = Vec::new();
    for x in area.x..area.x + area.width {
        let cell = &buffer[(x, y)];
        let mut modifiers = cell.modifier;
        let (mut foreground, mut background) = (
            color(cell.fg, DEFAULT_FOREGROUND),
            color(cell.bg, DEFAULT_BACKGROUND),
        );
        if modifiers.contains(Modifier::REVERSED) {
            std::mem::swap(&mut foreground, &mut background);
            modifiers.remove(Modifier::REVERSED);
        }
        // The cell after a wide character is part of it.
        let mut symbol = cell.symbol();
        let continuation = symbol.is_empty();
        let drawn = symbol
            .chars()
            .next()
            .filter(|c| symbol.chars().count() == 1 && box_arms(*c).is_some());
        if drawn.is_some() {
            symbol = " ";
        }
        let run = match runs.last_mut() {
            Some(run)
                if continuation
                    || (run.foreground == foreground
                        && run.background == background
                        && run.modifiers == modifiers) =>
            {
                run.columns += 1;
                run.text.push_str(symbol);
                run
            }
            _ => {
                runs.push(Run {
                    column: x - area.x,
                    columns: 1,
                    text: symbol.to_string(),
                    foreground,
                    background,
                    modifiers,
                    boxes: Vec::new(),
                });
                runs.last_mut().expect("just pushed")
            }
        };
        if let Some(c) = drawn {
            run.boxes.push((run.columns - 1, c));
        }
    }
    runs
}

/// A colour as `#rrggbb`; `default` for the terminal's own.
fn color(color: Color, default: &str) -> String {
    let (r, g, b) = match color {
        Color::Reset => return default.to_string(),
        Color::Rgb(r, g, b) => (r, g, b),
        Color::Indexed(index) => indexed(index),
        named => indexed(match named {
            Color::Black => 0,
            Color::Red => 1,
            Color::Green => 2,
            Color::Yellow => 3,
            Color::Blue => 4,
            Color::Magenta => 5,
            Color::Cyan => 6,
            Color::Gray => 7,
            Color::DarkGray => 8,
            Color::LightRed => 9,
            Color::LightGreen => 10,
            Color::LightYellow => 11,
            Color::LightBlue => 12,
            Color::LightMagenta => 13,
            Color::LightCyan => 14,
            _ => 15,
        }),
    };
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// xterm's 256-colour palette.
fn indexed(index: u8) -> (u8, u8, u8) {
    const SIXTEEN: [(u8, u8, u8); 16] = [
        (0x00, 0x00, 0x00),
        (0xcd, 0x00, 0x00),
        (0x00, 0xcd, 0x00),
        (0xcd, 0xcd, 0x00),
        (0x00, 0x00, 0xee),
        (0xcd, 0x00, 0xcd),
        (0x00, 0xcd, 0xcd),
        (0xe5, 0xe5, 0xe5),
        (0x7f, 0x7f, 0x7f),
        (0xff, 0x00, 0x00),
        (0x00, 0xff, 0x00),
        (0xff, 0xff, 0x00),
        (0x5c, 0x5c, 0xff),
        (0xff, 0x00, 0xff),
        (0x00, 0xff, 0xff),
        (0xff, 0xff, 0xff),
    ];
    match index {
        0..16 => SIXTEEN[usize::from(index)],
        16..232 => {
            let cube = index - 16;
            let level = |value: u8| if value == 0 { 0 } else { 55 + value * 40 };
            (level(cube / 36), level(cube / 6 % 6), level(cube % 6))
        }
        _ => {
            let grey = 8 + (index - 232) * 10;
            (grey, grey, grey)
        }
    }
}

/// Text made safe inside an SVG element or attribute.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            // Control characters are not allowed in XML; the interface
            // never draws them, but a picture must stay valid.
            c if c.is_control() => escaped.push(' '),
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    #[test]
    fn cells_become_runs_of_one_style_with_their_colours() {
        let mut buffer = Buffer::empty(Rect::new(0, 0, 12, 2));
        buffer.set_string(0, 0, "ab<c", Style::default().fg(Color::Red));
        buffer.set_string(4, 0, "de", Style::default().add_modifier(Modifier::BOLD));
        buffer.set_string(
            0,
            1,
            "sel",
            Style::default()
                .fg(Color::Rgb(1, 2, 3))
                .bg(Color::Indexed(196))
                .add_modifier(Modifier::REVERSED),
        );
        let svg = render(&buffer, "a \"screen\"");
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.contains("aria-label=\"a &quot;screen&quot;\""));
        assert!(svg.contains("fill=\"#cd0000\" textLength=\"33.6\" lengthAdjust=\"spacingAndGlyphs\">ab&lt;c</text>"), "{svg}");
        assert!(svg.contains("class=\"b\""), "{svg}");
        // Reversed: the foreground is the background and the reverse.
        assert!(svg.contains("fill=\"#010203\"/>"), "{svg}");
        assert!(svg.contains("fill=\"#ff0000\""), "{svg}");
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg, render(&buffer, "a \"screen\""), "the same every time");
    }

    #[test]
    fn the_palette_is_xterms() {
        assert_eq!(indexed(16), (0, 0, 0));
        assert_eq!(indexed(21), (0, 0, 255));
        assert_eq!(indexed(231), (255, 255, 255));
        assert_eq!(indexed(232), (8, 8, 8));
        assert_eq!(indexed(255), (238, 238, 238));
        assert_eq!(color(Color::Reset, "#123456"), "#123456");
    }
}
