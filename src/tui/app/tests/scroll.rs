//! Scrolling a pane: the wheel, following the stream, and a long text laid
//! out where the view needs it, the rest on later frames or not kept.

use super::*;

#[test]
fn the_wheel_scrolls_the_pane_under_the_pointer() {
    let mut app = app();
    start(&mut app, "proposer/proposal/r1/a1", "proposer");
    let text: String = (0..200).map(|n| format!("line {n}\n")).collect();
    app.apply(
        Update::Chunk {
            call_id: "proposer/proposal/r1/a1".into(),
            text,
        },
        Instant::now(),
    );
    app.focus = Focus::Transcript;
    app.prepare(Rect::new(0, 0, 200, 60));
    let proposer = app.layout.rect(Region::Pane(0)).unwrap();
    let wheel = |kind| MouseEvent {
        kind,
        column: proposer.x + 2,
        row: proposer.y + 2,
        modifiers: KeyModifiers::NONE,
    };
    app.handle_mouse(wheel(MouseEventKind::ScrollUp));
    assert_eq!(app.focus, Focus::Pane(0));
    assert!(!app.panes[0].scroll.follow, "scrolling up stops following");
    app.handle_mouse(wheel(MouseEventKind::ScrollDown));
    assert!(
        app.panes[0].scroll.follow,
        "back at the bottom it follows again"
    );
    app.handle_mouse(wheel(MouseEventKind::Down(MouseButton::Left)));
}

#[test]
fn scrolling_up_stops_following_and_the_bottom_resumes_it() {
    let mut scroll = Scroll::default();
    assert_eq!(scroll.first_line(100, 10), 90);
    scroll.scroll_by(-5, 100, 10);
    assert!(!scroll.follow);
    assert_eq!(scroll.first_line(100, 10), 85);
    // New text arrives: the view stays where the reader is.
    assert_eq!(scroll.first_line(150, 10), 85);
    scroll.scroll_by(100, 150, 10);
    assert!(scroll.follow);
    assert_eq!(scroll.first_line(200, 10), 190);
    // Paused, then following again from there: the place it was paused at
    // leaves no rows free below the text when the text gets shorter (a
    // wider view re-wraps it); only a jump leaves rows free.
    scroll.scroll_by(-20, 200, 10);
    scroll.to_bottom();
    assert_eq!(scroll.first_line(175, 10), 165);
}

/// Streams one numbered row into the proposer every `row_every` of the
/// debate's time for `seconds`, with a frame every 16 ms; returns, frame by
/// frame, the view's first row, its height and the rows it shows.
fn stream_rows(
    app: &mut App,
    row_every: Duration,
    seconds: u64,
) -> Vec<(usize, usize, Vec<String>)> {
    start(app, "proposer/proposal/r1/a1", "proposer");
    let screen = Rect::new(0, 0, 200, 60);
    let began = Instant::now();
    let frame = Duration::from_millis(16);
    let (mut sent, mut frames) = (0, Vec::new());
    let mut at = Duration::ZERO;
    while at < Duration::from_secs(seconds) {
        at += frame;
        while row_every * (sent + 1) <= at {
            sent += 1;
            app.apply(
                Update::Chunk {
                    call_id: "proposer/proposal/r1/a1".into(),
                    text: format!("row {sent}\n"),
                },
                began + row_every * sent,
            );
        }
        app.prepare(screen);
        let pane = &app.panes[0];
        let first = pane
            .scroll
            .first_line(pane.shown().line_count(), pane.viewport);
        frames.push((first, pane.viewport, visible_rows(app, 0)));
    }
    frames
}

/// A stream far faster than a person reads (200 rows a second here)
/// scrolls by jumps at most every [`FAST_JUMP_EVERY`], each leaving rows
/// free below the text, so the rows above stand still between jumps; every
/// row is on screen in the first frame after it arrived, and never more
/// than five sixths of the view is free.
#[test]
fn a_fast_stream_scrolls_by_jumps_and_shows_each_row_as_it_arrives() {
    let frames = stream_rows(&mut app(), Duration::from_millis(5), 3);
    let moves = frames.windows(2).filter(|two| two[0].0 != two[1].0).count();
    // 600 rows in 3 s, a view of some 50 rows: by the row, nearly every
    // frame would move; by jumps, one each time the free five sixths of the
    // view have filled (100 rows every 500 ms would leave more free), every
    // 210 ms or so: about 14 of them.
    assert!(
        (10..=24).contains(&moves),
        "{moves} of {} frames scrolled",
        frames.len()
    );
    for (frame, (first, height, rows)) in frames.iter().enumerate() {
        let sent = (frame + 1) * 16 / 5;
        assert_eq!(
            rows.last().unwrap(),
            &format!("row {sent}"),
            "frame {frame}: the newest row is the last shown"
        );
        if sent > *height {
            assert!(
                height - rows.len() <= height * 5 / 6,
                "frame {frame}: {} of {height} rows show text",
                rows.len()
            );
            assert_eq!(first + rows.len(), sent);
        }
    }
}

/// A stream a person can still skim along with (10 rows a second) jumps at
/// most every [`JUMP_EVERY`], a few rows at a time: the faster pace of
/// jumps is only for text nobody reads as it comes.
#[test]
fn a_stream_skimmed_along_with_jumps_a_few_rows_four_times_a_second() {
    let frames = stream_rows(&mut app(), Duration::from_millis(100), 10);
    let moves: Vec<(usize, usize)> = frames
        .windows(2)
        .enumerate()
        .filter(|(_, two)| two[0].0 != two[1].0)
        .map(|(frame, two)| (frame + 1, two[1].0 - two[0].0))
        .collect();
    assert!(moves.len() >= 10, "{moves:?}");
    for (frame, rows) in &moves {
        assert!(*rows <= 3, "frame {frame} jumped {rows} rows: {moves:?}");
    }
    // Frames are 16 ms apart: four jumps a second are 15 frames apart.
    for two in moves.windows(2).skip(1) {
        assert!(two[1].0 - two[0].0 >= 14, "{moves:?}");
    }
    for (frame, (_, _, rows)) in frames.iter().enumerate() {
        let sent = (frame + 1) * 16 / 100;
        if sent > 0 {
            assert_eq!(
                rows.last().unwrap(),
                &format!("row {sent}"),
                "frame {frame}"
            );
        }
    }
}

/// When the call that streamed fast has answered, nothing more is coming:
/// the view shows the last page, with no rows kept free below the text.
/// (Zoomed, the pane keeps its area when the call ends.)
#[test]
fn a_finished_stream_leaves_no_rows_free() {
    let mut app = app();
    app.focus = Focus::Pane(0);
    key(&mut app, KeyCode::Char('z'));
    let frames = stream_rows(&mut app, Duration::from_millis(5), 3);
    let (_, height, streamed) = frames.last().unwrap();
    assert!(
        streamed.len() < *height,
        "the fast stream ended with rows free"
    );
    log(
        &mut app,
        LogKind::CallFinished,
        "proposer/proposal/r1/a1",
        "proposer answered",
    );
    let area = app.layout.rect(Region::Pane(0));
    app.prepare(Rect::new(0, 0, 200, 60));
    assert_eq!(app.layout.rect(Region::Pane(0)), area);
    let rows = visible_rows(&app, 0);
    assert_eq!(
        rows.len(),
        app.panes[0].viewport,
        "every row of the view shows text"
    );
    assert_eq!(
        rows.last(),
        streamed.last(),
        "the newest row is the last shown"
    );
}

/// At a pace a person reads along with (3 rows a second), a following
/// view is the last page at every frame, scrolling a row at a time as
/// before there were jumps.
#[test]
fn a_stream_read_along_with_scrolls_a_row_at_a_time() {
    let frames = stream_rows(&mut app(), Duration::from_millis(320), 40);
    for (frame, (_, height, rows)) in frames.iter().enumerate() {
        let sent = (frame + 1) * 16 / 320;
        if sent > *height {
            assert_eq!(rows.len(), *height, "frame {frame}: no row is free");
            assert_eq!(
                rows.last().unwrap(),
                &format!("row {sent}"),
                "frame {frame}"
            );
        }
    }
    let moves = frames.windows(2).filter(|two| two[0].0 != two[1].0);
    assert!(moves.clone().all(|two| two[1].0 == two[0].0 + 1));
    assert!(moves.count() > 40);
}

/// An interface whose proposer has streamed 40,000 numbered lines
/// (`line N: …`), each long enough to wrap in a narrow pane.
fn proposer_with_40_000_lines() -> App {
    let mut app = app();
    start(&mut app, "proposer/proposal/r1/a1", "proposer");
    let text: String = (0..40_000)
        .map(|n| format!("line {n}: a sentence long enough to wrap in a narrow pane\n"))
        .collect();
    app.apply(
        Update::Chunk {
            call_id: "proposer/proposal/r1/a1".into(),
            text,
        },
        Instant::now(),
    );
    app
}

/// Issue 56: after a change of width a pane lays out its text from the end
/// as far as its view needs and no further; going up lays out what comes
/// near, always ahead of the view, and `g` the whole.
#[test]
fn a_zoomed_pane_lays_out_what_it_shows_and_the_rest_only_when_wanted() {
    let mut app = proposer_with_40_000_lines();
    let screen = Rect::new(0, 0, 200, 60);
    app.prepare(screen);
    assert_eq!(
        app.panes[0].shown().lines_laid_last_layout(),
        40_000,
        "a first layout is whole"
    );
    app.focus = Focus::Pane(0);
    key(&mut app, KeyCode::Char('z'));
    app.prepare(screen);
    assert!(app.panes[0].shown().lines_laid_last_layout() < 1_000);
    let bottom = visible_rows(&app, 0);
    assert!(
        bottom.last().unwrap().starts_with("line 39999"),
        "{bottom:?}"
    );
    // Later frames of the same view lay out nothing.
    for _ in 0..3 {
        app.prepare(screen);
        assert_eq!(app.panes[0].shown().lines_laid_last_layout(), 0);
        assert_eq!(visible_rows(&app, 0), bottom);
    }

    // Paged up: each page shows the lines above the last, laid out as the
    // view comes near them.
    let mut last_first = bottom[0].clone();
    for page in 0..20 {
        key(&mut app, KeyCode::PageUp);
        app.prepare(screen);
        let rows = visible_rows(&app, 0);
        let number = |row: &str| -> usize {
            row.trim_start_matches("line ")
                .split(':')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        assert!(
            number(&rows[0]) < number(&last_first),
            "page {page}: {} after {last_first}",
            rows[0]
        );
        assert!(app.panes[0].shown().lines_laid_last_layout() < 1_000);
        last_first = rows[0].clone();
    }
    key(&mut app, KeyCode::Char('g'));
    app.prepare(screen);
    assert!(visible_rows(&app, 0)[0].starts_with("line 0:"));

    // Sent to the top straight after a zoom: the top.
    key(&mut app, KeyCode::Char('G'));
    key(&mut app, KeyCode::Char('z'));
    app.prepare(screen);
    assert!(app.panes[0].shown().lines_laid_last_layout() < 1_000);
    key(&mut app, KeyCode::Char('g'));
    app.prepare(screen);
    assert!(visible_rows(&app, 0)[0].starts_with("line 0:"));
}

/// A pane keeps laid out only the rows near its view: 40,000 lines held,
/// a few thousand rows kept, and every view it is sent to still shows its
/// own lines, in order.
#[test]
fn a_pane_keeps_the_rows_near_its_view_and_shows_every_place_it_is_sent() {
    let mut app = proposer_with_40_000_lines();
    let screen = Rect::new(0, 0, 200, 60);
    app.prepare(screen);
    let doc = app.panes[0].shown();
    assert!(
        doc.rows_held() * 10 < doc.line_count(),
        "{} of {} rows held",
        doc.rows_held(),
        doc.line_count()
    );
    let number =
        |row: &str| -> Option<usize> { row.strip_prefix("line ")?.split(':').next()?.parse().ok() };
    let shown_lines = |app: &App| -> Vec<usize> {
        visible_rows(app, 0)
            .iter()
            .filter_map(|row| number(row))
            .collect()
    };
    assert_eq!(shown_lines(&app).last(), Some(&39_999));

    app.focus = Focus::Pane(0);
    key(&mut app, KeyCode::Char('g'));
    app.prepare(screen);
    let mut last_seen = None;
    for page in 0..40 {
        let lines = shown_lines(&app);
        assert!(!lines.is_empty(), "page {page} shows lines");
        assert!(
            lines.windows(2).all(|pair| pair[1] == pair[0] + 1),
            "page {page}: {lines:?}"
        );
        if let Some(seen) = last_seen {
            assert!(lines[0] > seen, "page {page} moves on from line {seen}");
        } else {
            assert_eq!(lines[0], 0);
        }
        last_seen = lines.last().copied();
        // Two pages at a time: the view soon leaves what was kept at the top.
        for _ in 0..2 {
            key(&mut app, KeyCode::PageDown);
        }
        app.prepare(screen);
    }
    key(&mut app, KeyCode::Char('G'));
    app.prepare(screen);
    assert_eq!(shown_lines(&app).last(), Some(&39_999));
    let doc = app.panes[0].shown();
    assert!(doc.rows_held() * 10 < doc.line_count());
}
