//! Reading long text on a small terminal: a page turns by the rows the
//! text is shown in, so nothing is skipped (the verdict view's deliverable,
//! the prompt of a role the person plays), and the files written say when
//! some are not listed.

use super::*;

/// A finished debate whose `summary.md` is sixty numbered lines, with
/// twelve files written.
fn finished_app() -> App {
    let mut app = app();
    app.apply(
        Update::Finished(Outcome::Decided {
            verdict: crate::protocol::Verdict::Adopt,
            rule: "all checks passed".into(),
        }),
        Instant::now(),
    );
    // Each line reaches the right edge, where the "more" hint goes.
    let dots = ".".repeat(61);
    let summary: String = (1..=60)
        .map(|n| format!("line {n:02} {dots} end {n:02}\n\n"))
        .collect();
    let paths = (1..=12).map(|n| format!("rounds/file-{n:02}.md")).collect();
    app.show_report(&summary, paths);
    app
}

/// The summary lines on screen whole (their end not hidden), by number.
fn shown_lines(screen: &str) -> Vec<u32> {
    screen
        .split("line ")
        .skip(1)
        .filter_map(|rest| {
            let number: u32 = rest.get(..2)?.parse().ok()?;
            let row = rest.lines().next()?;
            row.contains(&format!("end {number:02}")).then_some(number)
        })
        .collect()
}

/// Page after page at 80×24 shows every line of the deliverable whole, in
/// order, each page starting where the last one ended: a page is the rows
/// the deliverable has, not the whole view's, and the hint to read on has
/// a row of its own.
#[test]
fn paging_the_verdict_on_a_small_terminal_skips_no_line_of_the_summary() {
    let mut app = finished_app();
    let mut seen: Vec<u32> = Vec::new();
    for _ in 0..40 {
        let screen = draw_text(&mut app, 80, 24);
        let lines = shown_lines(&screen);
        assert!(!lines.is_empty(), "{screen}");
        if let (Some(last), Some(first)) = (seen.last(), lines.first()) {
            assert!(*first <= last + 1, "line {} skipped:\n{screen}", last + 1);
        }
        for line in lines {
            if seen.last().is_none_or(|last| line > *last) {
                seen.push(line);
            }
        }
        if seen.last() == Some(&60) {
            assert!(screen.contains("PgUp back ↑"), "{screen}");
            break;
        }
        assert!(screen.contains("PgDn more ↓"), "{screen}");
        key(&mut app, KeyCode::PageDown);
    }
    assert_eq!(seen, (1..=60).collect::<Vec<_>>());
}

/// Files that do not fit are counted, not cut off without a word.
#[test]
fn the_files_written_say_how_many_are_not_listed() {
    let mut app = finished_app();
    let screen = draw_text(&mut app, 80, 24);
    assert!(screen.contains("Written to"), "{screen}");
    let listed = (1..=12)
        .filter(|n| screen.contains(&format!("file-{n:02}.md")))
        .count();
    assert!(listed < 12, "{screen}");
    assert!(
        screen.contains(&format!("… and {} more files in that folder", 12 - listed)),
        "{screen}"
    );
    let screen = draw_text(&mut app, 200, 60);
    assert!(screen.contains("file-12.md"), "{screen}");
    assert!(!screen.contains("more files"), "{screen}");
}

/// A role the person plays shows its prompt from the start, and PgDn
/// reads on through it, a page of the prompt's own rows at a time (the
/// whole pane's height skipped most of it), while
/// the answer is not being written; the answer has a frame of its own.
#[test]
fn the_prompt_of_a_role_the_person_plays_reads_from_its_start_page_by_page() {
    let mut app = app();
    let prompt: String = (1..=80)
        .map(|n| format!("prompt line {n:02}\n\n"))
        .collect();
    app.apply(
        Update::AnswerWanted {
            call_id: "critic/critique/r1/a1".into(),
            role: "critic".into(),
            prompt,
            template: Some("critiques: []".into()),
        },
        Instant::now(),
    );
    app.focus = Focus::Pane(1);
    let lines_on = |screen: &str| -> Vec<u32> {
        screen
            .split("prompt line ")
            .skip(1)
            .filter_map(|rest| rest.get(..2)?.parse().ok())
            .collect()
    };
    let screen = draw_text(&mut app, 80, 24);
    assert_eq!(lines_on(&screen).first(), Some(&1), "{screen}");
    assert!(screen.contains("Your answer · e writes it"), "{screen}");
    let mut seen = lines_on(&screen);
    while seen.last() != Some(&80) {
        key(&mut app, KeyCode::PageDown);
        let screen = draw_text(&mut app, 80, 24);
        let lines = lines_on(&screen);
        let (first, last) = (lines[0], *seen.last().unwrap());
        // A page keeps the last row of the one before, for context.
        assert!(
            first <= last + 1 && lines.last() > seen.last(),
            "a page follows the last ({last}): {screen}"
        );
        seen.extend(lines.into_iter().filter(|line| *line > last));
    }
    assert_eq!(seen, (1..=80).collect::<Vec<_>>());
    // Writing: the frame says how to send it.
    key(&mut app, KeyCode::Char('e'));
    let screen = draw_text(&mut app, 80, 24);
    assert!(screen.contains("Your answer · Ctrl-S sends it"), "{screen}");
}

/// At 80×24 the result view leads with the outcome and the deliverable:
/// most of its rows are the summary's, the note on how the outcome was
/// reached gives way, and a page down moves by the rows shown.
#[test]
fn the_verdict_on_a_small_terminal_is_mostly_the_summary() {
    let mut app = finished_app();
    let screen = draw_text(&mut app, 80, 24);
    let first = shown_lines(&screen);
    assert!(first.len() >= 7, "{first:?}\n{screen}");
    assert!(
        !screen.contains("The decision follows from the scores"),
        "{screen}"
    );
    key(&mut app, KeyCode::PageDown);
    let next = shown_lines(&draw_text(&mut app, 80, 24));
    assert!(next[0] >= first[first.len() - 1], "{first:?} then {next:?}");
    let screen = draw_text(&mut app, 200, 60);
    assert!(
        screen.contains("The decision follows from the scores"),
        "{screen}"
    );
}
