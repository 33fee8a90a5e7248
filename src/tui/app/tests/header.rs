//! The header's second line at every width: what asks for the moderator
//! stays whole, and the figures and the stages ahead give way whole, never
//! cut inside a word.

use super::*;

/// A debate at the moderator's turn, seven stages long, with a budget and
/// spending to show.
fn waiting_app() -> App {
    let mut app = app();
    let mut board = items(3);
    board.stages = stages(&[
        "proposal",
        "critique",
        "moderation",
        "revision",
        "evaluation",
        "synthesis",
        "verdict",
    ]);
    app.apply(Update::Board(Box::new(board)), Instant::now());
    app.progress.stage = "moderation".into();
    app.progress.round = 1;
    app.progress.max_round = 3;
    app.progress.budget = Some((7, 28));
    app.totals = Totals {
        input_tokens: 8_300,
        output_tokens: 1_200,
        estimated_output: 0,
        cost_usd: Some(0.42),
    };
    app
}

/// The header's second row as drawn at `width` columns.
fn second_row(app: &mut App, width: u16) -> String {
    let screen = draw_text(app, width, 40);
    let row = screen.lines().nth(1).expect("a second row");
    row.trim_matches('"').trim_end().to_string()
}

#[test]
fn the_header_fits_its_second_line_whole_at_every_width() {
    let mut app = waiting_app();
    // Each piece the line may show, whole.
    let pieces = [
        "round 1/3",
        "budget 7/28",
        "8.3k in / 1.2k out tok",
        "$0.42",
        "needs moderator",
    ];
    for width in 60..=220u16 {
        let row = second_row(&mut app, width);
        assert!(
            row.contains("Moderation"),
            "{width}: the current stage is always named: {row}"
        );
        if width >= 70 {
            assert!(
                row.contains(" needs moderator"),
                "{width}: the moderator's turn is shown: {row}"
            );
        }
        assert!(
            !row.ends_with('·'),
            "{width}: a separator left hanging: {row}"
        );
        // A piece is there whole or not at all: its first word never
        // stands without the rest.
        for piece in pieces {
            let first = piece.split(' ').next().unwrap();
            if row.contains(&format!(" {first}")) {
                assert!(row.contains(piece), "{width}: {piece:?} cut: {row}");
            }
        }
        if width >= 200 {
            assert!(
                row.contains("Proposal ▸ Critique ▸ Moderation"),
                "{width}: wide enough for every stage by name: {row}"
            );
        }
    }
}

/// A replay's label and a paused replay's stay whole too, and the figures
/// give way to them.
#[test]
fn a_replays_label_stays_whole_in_a_narrow_header() {
    let app = waiting_app();
    let mut app = app.replaying(50.0, Instant::now());
    for width in 70..=120u16 {
        let row = second_row(&mut app, width);
        assert!(row.contains(" replay ×50 "), "{width}: {row}");
        assert!(
            !row.contains("needs moderator"),
            "{width}: a replay's moderation is history: {row}"
        );
    }
}

/// The header's first row as drawn at `width` columns.
fn first_row(app: &mut App, width: u16) -> String {
    let screen = draw_text(app, width, 40);
    let row = screen.lines().next().expect("a first row");
    row.trim_matches('"').trim_end().to_string()
}

/// The first row never cuts a word: the protocol's settings go whole
/// first, then the end of the topic at a word (with an ellipsis), then
/// the program's name; the protocol is named down to narrow terminals.
#[test]
fn the_header_never_cuts_a_word_of_the_topic_or_the_protocol() {
    let mut app = waiting_app();
    app.info.topic =
        "The payment-provider webhook handler (POST /webhooks/payments) before the launch".into();
    app.info.protocol = "council cr-12 · review · standard · security preset".into();
    let (topic, protocol) = (app.info.topic.clone(), app.info.protocol.clone());
    let words: Vec<&str> = topic
        .split(' ')
        .chain(protocol.split([' ', '·']))
        .chain(["quorum", "│", "·", ""])
        .collect();
    for width in 40..=220u16 {
        let row = first_row(&mut app, width);
        for word in row.split(' ') {
            let word = word.strip_suffix('…').unwrap_or(word);
            assert!(words.contains(&word), "{width}: {word:?} is cut: {row}");
        }
        if width >= 50 {
            assert!(row.contains("│ council cr-12"), "{width}: {row}");
        }
        if width >= 80 {
            assert!(
                row.starts_with(" quorum │ The payment-provider"),
                "{width}: {row}"
            );
        }
    }
    let row = first_row(&mut app, 80);
    assert_eq!(
        row,
        " quorum │ The payment-provider webhook handler (POST… │ council cr-12"
    );
}

/// At 80 columns the tabs are named in full, as many as fit around the
/// one in focus, with how many are hidden on each side; the items tab is
/// named as the region it opens is titled.
#[test]
fn tabs_are_never_cut_and_the_items_tab_is_named_as_its_region() {
    let titles = [
        "Security expert",
        "Performance expert",
        "Reliability expert",
        "Data expert",
        "Integration expert",
        "Devil's advocate",
    ];
    let mut roles: Vec<RoleInfo> = titles
        .iter()
        .enumerate()
        .map(|(n, title)| role(&format!("expert.{n}"), title))
        .collect();
    roles.insert(0, role("proposer", "Lead"));
    let mut info = info(roles);
    info.items.as_mut().unwrap().title = "Challenges".into();
    let mut app = App::new(info, Theme::builtin("dark").unwrap(), Instant::now());
    app.apply(Update::Board(Box::new(items(4))), Instant::now());
    let labels = [
        "Lead",
        "Security expert",
        "Performance expert",
        "Reliability expert",
        "Data expert",
        "Integration expert",
        "Devil's advocate",
        "Challenges (4 open)",
        "Scores",
        "Transcript",
    ];
    for focus in [
        Focus::Pane(0),
        Focus::Pane(4),
        Focus::Items,
        Focus::Transcript,
    ] {
        app.focus = focus;
        let screen = draw_text(&mut app, 80, 24);
        let row = screen
            .lines()
            .nth(2)
            .unwrap()
            .trim_matches('"')
            .trim_end()
            .to_string();
        let mut parts: Vec<&str> = row.split('│').map(str::trim).collect();
        if let Some(first) = parts.first_mut()
            && let Some((_, rest)) = first.split_once(' ')
            && first.starts_with('‹')
        {
            *first = rest;
        }
        if let Some(last) = parts.last_mut()
            && last.ends_with('›')
        {
            *last = last.rsplit_once(' ').map_or("", |(kept, _)| kept);
        }
        for part in &parts {
            assert!(labels.contains(part), "{focus:?}: {part:?} is cut: {row}");
        }
        let active = match focus {
            Focus::Pane(index) => labels[index],
            Focus::Items => "Challenges (4 open)",
            _ => "Transcript",
        };
        assert!(parts.contains(&active), "{focus:?}: {row}");
        assert!(!row.contains("Items"), "{row}");
        assert!(parts.len() >= 3, "{focus:?}: {row}");
    }
}
