//! Frames drawn through `Screen`: a frame that only streamed text redraws
//! its panes and the header alone, and leaves the terminal exactly as a
//! whole redraw would.

use super::*;
use crate::tui::screen::{Damage, Screen};
use ratatui::buffer::Buffer;
use ratatui::layout::Size;

const COLUMNS: u16 = 200;
const ROWS: u16 = 60;

/// The screen a whole redraw of `app` draws now.
fn whole(app: &App) -> Buffer {
    let mut buffer = Buffer::empty(Rect::new(0, 0, COLUMNS, ROWS));
    crate::tui::view::draw_screen(app, &mut buffer);
    buffer
}

/// A terminal that received every byte `screen` wrote.
fn terminal(screen: &Screen<Vec<u8>>) -> vt100::Parser {
    let mut parser = vt100::Parser::new(
        std::num::NonZero::new(ROWS).unwrap(),
        std::num::NonZero::new(COLUMNS).unwrap(),
        0,
    );
    parser.process(screen.out());
    parser
}

/// What a terminal that received every byte `screen` wrote shows.
fn terminal_text(screen: &Screen<Vec<u8>>) -> String {
    let contents = terminal(screen).screen().contents();
    let rows: Vec<&str> = contents.lines().map(str::trim_end).collect();
    rows.join("\n").trim_end_matches('\n').to_string()
}

/// Every cell of the terminal `screen` wrote to has the text, colours and
/// attributes of the same cell in `expected`.
fn assert_terminal_shows(screen: &Screen<Vec<u8>>, expected: &Buffer, frame: usize) {
    use ratatui::style::{Color, Modifier};
    let parser = terminal(screen);
    let colour = |colour: Color| match colour {
        Color::Reset => vt100::Color::Default,
        Color::Rgb(r, g, b) => vt100::Color::Rgb(r, g, b),
        Color::Indexed(index) => vt100::Color::Idx(index),
        named => {
            let order = [
                Color::Black,
                Color::Red,
                Color::Green,
                Color::Yellow,
                Color::Blue,
                Color::Magenta,
                Color::Cyan,
                Color::Gray,
                Color::DarkGray,
                Color::LightRed,
                Color::LightGreen,
                Color::LightYellow,
                Color::LightBlue,
                Color::LightMagenta,
                Color::LightCyan,
                Color::White,
            ];
            vt100::Color::Idx(order.iter().position(|c| *c == named).unwrap() as u8)
        }
    };
    for y in 0..ROWS {
        for x in 0..COLUMNS {
            let want = &expected[(x, y)];
            let Some(got) = parser.screen().cell(y, x) else {
                continue;
            };
            if got.is_wide_continuation() {
                continue;
            }
            let symbol = match got.contents() {
                "" => " ",
                text => text,
            };
            let at = format!("frame {frame}, cell ({x}, {y})");
            assert_eq!(symbol, want.symbol(), "{at}: text");
            assert_eq!(got.fgcolor(), colour(want.fg), "{at}: foreground");
            assert_eq!(got.bgcolor(), colour(want.bg), "{at}: background");
            let modifier = want.modifier;
            // The terminal model keeps one intensity: dim after bold (a
            // waiting badge in a bold title) reads as dim alone.
            if !modifier.contains(Modifier::DIM) {
                assert_eq!(got.bold(), modifier.contains(Modifier::BOLD), "{at}: bold");
            }
            assert_eq!(
                got.italic(),
                modifier.contains(Modifier::ITALIC),
                "{at}: italic"
            );
            assert_eq!(
                got.underline(),
                modifier.contains(Modifier::UNDERLINED),
                "{at}: underline"
            );
            assert_eq!(
                got.inverse(),
                modifier.contains(Modifier::REVERSED),
                "{at}: inverse"
            );
        }
    }
}

/// The cells kept and what the terminal shows are a whole redraw's.
fn assert_shows_whole(screen: &Screen<Vec<u8>>, app: &App) {
    assert_eq!(screen.shown(), whole(app));
    assert_eq!(terminal_text(screen), text_of(&whole(app)));
}

fn text_of(buffer: &Buffer) -> String {
    let mut text = String::new();
    for y in 0..buffer.area.height {
        let mut row = String::new();
        let mut x = 0;
        while x < buffer.area.width {
            let cell = &buffer[(x, y)];
            row.push_str(cell.symbol());
            x += unicode_width::UnicodeWidthStr::width(cell.symbol()).max(1) as u16;
        }
        text.push_str(row.trim_end());
        text.push('\n');
    }
    text.trim_end_matches('\n').to_string()
}

/// A paragraph of markdown `n` with a word long enough to wrap the pane.
fn paragraph(n: usize) -> String {
    format!(
        "Point {n}: the **ledger** keeps `event_id` honest, and the outbox replays \
         each projection in order; a tenant's snapshot is rebuilt from the log.\n\n"
    )
}

/// Draws a frame and holds it to a whole redraw; counts it in `frames`
/// (streamed frames, and those of them that compared at most `most`
/// cells).
fn draw_counted(
    screen: &mut Screen<Vec<u8>>,
    app: &mut App,
    most: usize,
    frames: &mut (usize, usize),
    at: usize,
) {
    if screen.draw(app).unwrap() {
        frames.0 += 1;
        if screen.cells_compared() <= most {
            frames.1 += 1;
        }
    }
    assert_eq!(screen.shown(), whole(app), "piece {at}: the cells kept");
}

/// At least 3 in 4 of the streamed frames [`draw_counted`] counted were
/// small.
fn assert_three_in_four((streamed, small): (usize, usize), what: &str) {
    assert!(
        small * 4 >= streamed * 3,
        "{small} of {streamed} streamed frames {what}"
    );
}

/// An interface whose `role` has started `call_id`, drawn once, whole.
fn started_and_drawn(call_id: &str, role: &str) -> (App, Screen<Vec<u8>>) {
    let mut app = app();
    let mut screen = Screen::new(Vec::new(), Size::new(COLUMNS, ROWS));
    start(&mut app, call_id, role);
    screen.draw(&mut app).unwrap();
    (app, screen)
}

fn chunk(app: &mut App, call_id: &str, text: &str) {
    app.apply(
        Update::Chunk {
            call_id: call_id.into(),
            text: text.into(),
        },
        Instant::now(),
    );
}

#[test]
fn streamed_frames_redraw_their_panes_and_leave_the_screen_a_whole_redraw_would() {
    let mut app = app();
    let mut screen = Screen::new(Vec::new(), Size::new(COLUMNS, ROWS));
    start(&mut app, "proposer/proposal/r1/a1", "proposer");
    assert!(!screen.draw(&mut app).unwrap(), "the first frame is whole");
    let mut partial = 0;
    for n in 0..120 {
        // A paragraph in uneven pieces, as a stream splits it.
        let text = paragraph(n);
        let (head, tail) = text.split_at(text.len() / 3);
        chunk(&mut app, "proposer/proposal/r1/a1", head);
        chunk(&mut app, "proposer/proposal/r1/a1", tail);
        assert_eq!(
            app.damage,
            Damage::Streamed {
                panes: vec![0],
                header: false
            }
        );
        if screen.draw(&mut app).unwrap() {
            partial += 1;
        }
        let expected = whole(&app);
        assert_eq!(screen.shown(), expected, "frame {n}: the cells kept");
        assert_eq!(
            terminal_text(&screen),
            text_of(&expected),
            "frame {n}: what the terminal shows"
        );
        if n % 10 == 0 {
            assert_terminal_shows(&screen, &expected, n);
        }
    }
    assert!(
        partial >= 110,
        "frames that only streamed text are partial ({partial} of 120)"
    );
}

/// Issue 32: a pane whose view stands (a fast stream between its jumps, a
/// paused reader) draws and compares only its title row and the rows from
/// the first its text changed in, and the terminal still shows what a
/// whole redraw would: markdown whose live line changes its look as it
/// grows (a heading, a list, a fence) and records whose provisional lines
/// are replaced by a card when they complete.
#[test]
fn a_standing_view_draws_only_the_rows_its_text_changed_in() {
    let (mut app, mut screen) = started_and_drawn("critic/critique/r1/a1", "critic");
    let mut text = String::new();
    for n in 0..40 {
        text.push_str(&format!(
            "## Finding {n}\n\n{}- a point under it, **bold** and `code`\n\n\
             ```yaml\n- id: c{n}\n  severity: major\n  text: \"the ledger drifts when \
             replays overlap, so the snapshot is rebuilt\"\n```\n\n",
            paragraph(n)
        ));
    }
    let began = Instant::now();
    let pane = app.layout.rect(Region::Pane(1)).unwrap();
    let pane_cells = usize::from(pane.width) * usize::from(pane.height);
    let (mut frames, mut at) = ((0, 0), Duration::ZERO);
    let pieces: Vec<String> = text
        .chars()
        .collect::<Vec<_>>()
        .chunks(7)
        .map(|piece| piece.iter().collect())
        .collect();
    for (n, piece) in pieces.iter().enumerate() {
        // A piece a millisecond, a frame every 16.
        at += Duration::from_millis(1);
        app.apply(
            Update::Chunk {
                call_id: "critic/critique/r1/a1".into(),
                text: piece.clone(),
            },
            began + at,
        );
        if n % 16 != 15 {
            continue;
        }
        draw_counted(&mut screen, &mut app, pane_cells / 3, &mut frames, n);
        if n % 320 == 15 {
            assert_terminal_shows(&screen, &whole(&app), n);
        }
    }
    screen.draw(&mut app).unwrap();
    assert_eq!(terminal_text(&screen), text_of(&whole(&app)));
    // Between jumps, and before the text fills the pane, a frame compares
    // the header and a few rows of the pane (with every row drawn, none
    // of the 113 does).
    assert_three_in_four(frames, "compared a third of the pane or less");
}

/// Issue 32: the other ways a pane's text stands or changes keep the
/// terminal a whole redraw's too: a paused reader (its view still, the
/// hint on its bottom row appearing as text runs past it), reasoning
/// streamed beside the answer, the raw text switched to and back while it
/// streams, and following again.
#[test]
fn a_paused_reader_reasoning_and_the_raw_view_keep_the_terminal_whole() {
    let (mut app, mut screen) = started_and_drawn("proposer/proposal/r1/a1", "proposer");
    let began = Instant::now();
    let mut at = Duration::ZERO;
    let mut stream = |app: &mut App, screen: &mut Screen<Vec<u8>>, frames: usize, step: &str| {
        for frame in 0..frames {
            for piece in 0..16 {
                at += Duration::from_millis(1);
                // A paragraph a frame, in 16 pieces of 9 bytes and its end.
                let paragraph = paragraph(frame);
                let text = match piece {
                    15 => paragraph[135..].to_string(),
                    _ => paragraph[piece * 9..piece * 9 + 9].to_string(),
                };
                let update = if piece % 7 == 3 {
                    Update::Reasoning {
                        call_id: "proposer/proposal/r1/a1".into(),
                        text,
                    }
                } else {
                    Update::Chunk {
                        call_id: "proposer/proposal/r1/a1".into(),
                        text,
                    }
                };
                app.apply(update, began + at);
            }
            screen.draw(app).unwrap();
            assert_eq!(screen.shown(), whole(app), "{step}, frame {frame}");
        }
    };
    stream(&mut app, &mut screen, 80, "following");
    key(&mut app, KeyCode::PageUp);
    assert!(!app.panes[0].scroll.follow);
    stream(&mut app, &mut screen, 60, "paused");
    assert!(
        text_of(&whole(&app)).contains("paused"),
        "the hint is on the bottom row"
    );
    key(&mut app, KeyCode::Char('t'));
    stream(&mut app, &mut screen, 40, "raw, paused");
    key(&mut app, KeyCode::Char('G'));
    stream(&mut app, &mut screen, 40, "raw, following");
    key(&mut app, KeyCode::Char('t'));
    stream(&mut app, &mut screen, 40, "cards, following");
    assert_terminal_shows(&screen, &whole(&app), 0);
}

/// Issue 32: text added to a long paragraph (one source line, many rows)
/// changes its last rows only, and a frame draws and compares those, not
/// every row of the paragraph.
#[test]
fn a_growing_paragraph_redraws_its_last_rows_only() {
    let (mut app, mut screen) = started_and_drawn("proposer/proposal/r1/a1", "proposer");
    let pane = app.layout.rect(Region::Pane(0)).unwrap();
    // About 2,400 characters: some 30 rows, inside the pane.
    let paragraph: String = (0..16)
        .map(|n| format!("{} ", paragraph(n).trim_end()))
        .collect();
    let pieces: Vec<&str> = paragraph
        .as_bytes()
        .chunks(8)
        .map(|piece| std::str::from_utf8(piece).unwrap())
        .collect();
    // The header and three rows of text: the pane's top and bottom rows
    // stand with its frame (its title and badge unchanged).
    let most = usize::from(COLUMNS) * 2 + 3 * usize::from(pane.width);
    let mut frames = (0, 0);
    for (n, piece) in pieces.iter().enumerate() {
        chunk(&mut app, "proposer/proposal/r1/a1", piece);
        if n % 16 == 15 {
            draw_counted(&mut screen, &mut app, most, &mut frames, n);
        }
    }
    assert_three_in_four(frames, "compared three rows of text or fewer");
}

/// Issue 32: the clock's second is in the header alone. A tick that
/// turns it draws the header, with the title row of a pane whose rate it
/// changed, and the terminal still shows what a whole redraw would.
#[test]
fn the_clocks_second_redraws_the_header_and_the_rates_alone() {
    let (mut app, mut screen) = started_and_drawn("proposer/proposal/r1/a1", "proposer");
    chunk(&mut app, "proposer/proposal/r1/a1", &paragraph(0));
    screen.draw(&mut app).unwrap();
    let began = Instant::now();
    let pane = app.layout.rect(Region::Pane(0)).unwrap();
    let most = app.layout.header.area() as usize + 2 * usize::from(pane.width);
    for second in 1..=3 {
        app.tick(began + Duration::from_millis(1000 * second + 10));
        assert_eq!(
            app.damage,
            Damage::Streamed {
                panes: vec![0],
                header: true
            },
            "second {second}: the clock and the proposer's rate"
        );
        assert!(
            screen.draw(&mut app).unwrap(),
            "second {second}: a partial frame"
        );
        assert!(
            screen.cells_compared() <= most,
            "second {second}: {} cells compared",
            screen.cells_compared()
        );
        assert_shows_whole(&screen, &app);
        assert_terminal_shows(&screen, &whole(&app), second as usize);
    }
    // Within the second, at the same rate: nothing to draw.
    app.tick(began + Duration::from_millis(3020));
    assert_eq!(app.damage, Damage::None);
    // Once no call streams, the clock's second is the header's alone.
    log(
        &mut app,
        LogKind::CallFinished,
        "proposer/proposal/r1/a1",
        "proposer answered",
    );
    screen.draw(&mut app).unwrap();
    app.tick(began + Duration::from_millis(4010));
    assert_eq!(
        app.damage,
        Damage::Streamed {
            panes: vec![],
            header: true
        }
    );
    assert!(screen.draw(&mut app).unwrap());
    assert!(screen.cells_compared() <= app.layout.header.area() as usize);
    assert_shows_whole(&screen, &app);
}

/// Issues 32 and 56: streamed text moves the tokens the header shows at
/// the tick, as it moves the clock, not with each chunk; and the figures
/// read to a hundred above a thousand. A frame of streamed text alone
/// draws and compares no header; a tick's frame draws it only where its
/// figures changed.
#[test]
fn streamed_text_draws_the_header_only_when_its_figures_change() {
    let (mut app, mut screen) = started_and_drawn("proposer/proposal/r1/a1", "proposer");
    // About 1,250 tokens of text first (≈1.2k), and a reader paused at
    // the top: the text that follows lands below the view, so a frame
    // compares the header if drawn, and little or nothing of the pane.
    chunk(&mut app, "proposer/proposal/r1/a1", &"word ".repeat(1000));
    app.panes[0].scroll = Scroll {
        top: 0,
        follow: false,
        held: None,
    };
    app.damage = Damage::Whole;
    screen.draw(&mut app).unwrap();
    let header = app.layout.header.area() as usize;
    let pane = usize::from(app.layout.rect(Region::Pane(0)).unwrap().width);
    let (mut drew_header, mut changed) = (0, 0);
    let began = Instant::now();
    // Two tokens a chunk, a tick every eight chunks (within one second of
    // the clock): the figure moves a hundred every 50 chunks.
    for n in 0..200u64 {
        let figures = crate::tui::view::header_figures(&app);
        chunk(&mut app, "proposer/proposal/r1/a1", "word ab ");
        let ticked = n % 8 == 7;
        if ticked {
            app.tick(began + Duration::from_millis(100 + n));
        }
        assert!(screen.draw(&mut app).unwrap(), "chunk {n}: a partial frame");
        // The pane compares its top and bottom rows where its frame is new
        // to the region, and nothing else.
        match screen.cells_compared() {
            compared if compared <= 2 * pane => {}
            compared if compared - header <= 2 * pane => {
                assert!(ticked, "chunk {n}: the header drawn without a tick");
                drew_header += 1;
            }
            compared => panic!("chunk {n}: {compared} cells compared"),
        }
        if figures != crate::tui::view::header_figures(&app) {
            assert!(ticked, "chunk {n}: the figures moved without a tick");
            changed += 1;
            assert_terminal_shows(&screen, &whole(&app), n as usize);
        }
        assert_eq!(screen.shown(), whole(&app), "chunk {n}: the cells kept");
    }
    assert!(changed >= 3, "the figure moved {changed} times");
    assert_eq!(drew_header, changed, "the header is drawn when it changed");
    assert_eq!(terminal_text(&screen), text_of(&whole(&app)));
}

/// Issue 56: after a change of width (a zoom here), a long text is laid
/// out from its end as far as the view needs, and nothing more is wanted:
/// no frame follows the zoom's until something changes, and the terminal
/// shows what a whole redraw would.
#[test]
fn a_zoom_on_a_long_text_wants_no_frame_after_its_own() {
    let (mut app, mut screen) = started_and_drawn("proposer/proposal/r1/a1", "proposer");
    let text: String = (0..20_000)
        .map(|n| format!("line {n}: {}\n", "word ".repeat(12)))
        .collect();
    chunk(&mut app, "proposer/proposal/r1/a1", &text);
    screen.draw(&mut app).unwrap();
    app.focus = Focus::Pane(0);
    key(&mut app, KeyCode::Char('z'));
    assert!(!screen.draw(&mut app).unwrap(), "the zoom's frame is whole");
    assert!(app.panes[0].shown().lines_laid_last_layout() < 1_000);
    assert_eq!(app.damage, Damage::None);
    assert_shows_whole(&screen, &app);
    assert_terminal_shows(&screen, &whole(&app), 0);
    // Text streamed after that draws its rows as before.
    chunk(&mut app, "proposer/proposal/r1/a1", "the last line\n");
    assert!(screen.draw(&mut app).unwrap());
    assert_shows_whole(&screen, &app);
    assert_terminal_shows(&screen, &whole(&app), 1);
}

#[test]
fn anything_but_streamed_text_redraws_the_whole_screen() {
    let (mut app, mut screen) = started_and_drawn("proposer/proposal/r1/a1", "proposer");
    chunk(&mut app, "proposer/proposal/r1/a1", &paragraph(0));
    assert!(screen.draw(&mut app).unwrap());
    // A key: the footer, the focus, a dialog may change.
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.damage, Damage::Whole);
    chunk(&mut app, "proposer/proposal/r1/a1", &paragraph(1));
    assert!(!screen.draw(&mut app).unwrap(), "a key's frame is whole");
    assert_shows_whole(&screen, &app);
    // A dialog over the panes: streamed text under it redraws everything.
    key(&mut app, KeyCode::Char('?'));
    screen.draw(&mut app).unwrap();
    chunk(&mut app, "proposer/proposal/r1/a1", &paragraph(2));
    assert!(
        !screen.draw(&mut app).unwrap(),
        "nothing is drawn over a dialog"
    );
    assert_shows_whole(&screen, &app);
    key(&mut app, KeyCode::Esc);
    screen.draw(&mut app).unwrap();
    // A second role starts: the layout changes, so the frame is whole.
    start(&mut app, "critic/critique/r1/a1", "critic");
    chunk(&mut app, "critic/critique/r1/a1", &paragraph(3));
    assert!(
        !screen.draw(&mut app).unwrap(),
        "a new call's frame is whole"
    );
    assert_shows_whole(&screen, &app);
    // A resize starts afresh: the terminal is cleared and drawn whole.
    screen.resize(Size::new(COLUMNS, ROWS));
    chunk(&mut app, "critic/critique/r1/a1", &paragraph(4));
    assert!(
        !screen.draw(&mut app).unwrap(),
        "the frame after a resize is whole"
    );
    assert_eq!(terminal_text(&screen), text_of(&whole(&app)));
}

#[test]
fn a_streamed_frame_writes_a_fraction_of_a_whole_one() {
    let mut app = app();
    let mut screen = Screen::new(Vec::new(), Size::new(COLUMNS, ROWS));
    start(&mut app, "proposer/proposal/r1/a1", "proposer");
    for n in 0..40 {
        chunk(&mut app, "proposer/proposal/r1/a1", &paragraph(n));
    }
    chunk(&mut app, "proposer/proposal/r1/a1", "Next");
    screen.draw(&mut app).unwrap();
    let first = screen.out().len();
    // One short piece that fits on the pane's last line.
    chunk(&mut app, "proposer/proposal/r1/a1", " word");
    assert!(screen.draw(&mut app).unwrap());
    let streamed = screen.out().len() - first;
    assert!(
        streamed * 20 < first,
        "a word streamed costs {streamed} bytes, the whole screen {first}"
    );
}

/// A message too long for the footer wraps upward over the screen's last
/// rows; while it shows, a frame of streamed text draws the whole screen,
/// so no pane is drawn over it.
#[test]
fn a_message_too_long_for_the_footer_is_shown_whole_over_streaming_panes() {
    let mut app = app();
    // The proposer's pane alone, zoomed: it reaches the rows above the footer.
    app.zoomed = true;
    let mut screen = Screen::new(Vec::new(), Size::new(COLUMNS, ROWS));
    start(&mut app, "proposer/proposal/r1/a1", "proposer");
    screen.draw(&mut app).unwrap();
    let words: Vec<String> = (1..=60).map(|n| format!("word{n:02}")).collect();
    app.flash(words.join(" "), Instant::now());
    for n in 0..20 {
        chunk(&mut app, "proposer/proposal/r1/a1", &paragraph(n));
        screen.draw(&mut app).unwrap();
        let shown = terminal_text(&screen);
        for word in &words {
            assert!(
                shown.contains(word.as_str()),
                "frame {n}: {word} hidden:\n{shown}"
            );
        }
        assert_shows_whole(&screen, &app);
    }
}

/// A long message on a terminal too small for it is cut, never a panic:
/// down to no rows at all.
#[test]
fn a_long_message_on_a_tiny_terminal_is_drawn_as_far_as_it_fits() {
    let mut app = app();
    app.flash(
        "a message far longer than any of these terminals is wide".repeat(3),
        Instant::now(),
    );
    for (columns, rows) in [(80, 0), (0, 24), (1, 1), (20, 2), (20, 3), (40, 6)] {
        let mut screen = Screen::new(Vec::new(), Size::new(columns, rows));
        screen.draw(&mut app).unwrap();
        app.damage = Damage::Whole;
    }
}
