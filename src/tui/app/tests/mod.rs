//! Unit tests of the interface's state: updates folded in, keys applied.

use super::*;
use crate::agent::AgentInfo;
use crate::engine::Command;
use crate::protocol::{BoardItem, Input, LogEntry, ModerationItem, OverrideAction};
use crate::tui::keymap::Action;
use crate::tui::layout::Region;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;

mod editors;
mod header;
mod items;
mod paging;
mod replay;
mod screen;
mod scroll;

fn role(slot: &str, title: &str) -> RoleInfo {
    let group = match slot {
        "proposer" => crate::protocol::RoleGroup::Lead,
        "critic" => crate::protocol::RoleGroup::Challenger,
        _ => crate::protocol::RoleGroup::Panel,
    };
    RoleInfo {
        slot: slot.into(),
        title: title.into(),
        group,
        agent: "script:test".into(),
        binding: slot == "judge.analyst",
        marks: Vec::new(),
    }
}

/// A decision review's description, as the interface gets it.
fn info(roles: Vec<RoleInfo>) -> DebateInfo {
    DebateInfo {
        topic: "Should we?".into(),
        protocol: "decision review".into(),
        run_dir: PathBuf::from("/tmp/run"),
        roles,
        deliverable: "summary.md".into(),
        items: Some(crate::protocol::RegionInfo {
            title: "Critique items".into(),
            placeholder: "The critic's items appear here for your decision.".into(),
        }),
        board: Some(crate::protocol::RegionInfo {
            title: "Scores".into(),
            placeholder: "Scores appear here as each judge's answer is parsed.".into(),
        }),
        about: "quorum runs a debate.".into(),
        ending_note: "The decision follows from the scores.".into(),
        words: crate::protocol::ItemWords::default(),
    }
}

/// Stages by id, focused as a decision review focuses them.
fn stages(ids: &[&str]) -> Vec<crate::protocol::StageInfo> {
    use crate::protocol::{StageFocus, StageInfo};
    ids.iter()
        .map(|id| {
            let focus = match *id {
                "proposal" | "revision" => StageFocus::Role("proposer".into()),
                "critique" => StageFocus::Role("critic".into()),
                "moderation" => StageFocus::Items,
                "evaluation" => StageFocus::Board,
                _ => StageFocus::Stay,
            };
            StageInfo::new(id, &crate::tui::capitalise(id), focus)
        })
        .collect()
}

fn app() -> App {
    let info = info(vec![
        role("proposer", "Proposer"),
        role("critic", "Critic"),
        role("judge.analyst", "Analyst"),
    ]);
    let mut app = App::new(info, Theme::builtin("dark").unwrap(), Instant::now());
    app.prepare(Rect::new(0, 0, 200, 60));
    app
}

fn key(app: &mut App, code: KeyCode) -> Vec<Command> {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE), Instant::now())
}

/// An undecided item `id`, a major risk raised against b1.
fn open_item(id: &str) -> BoardItem {
    BoardItem {
        item: ModerationItem {
            id: id.to_string(),
            target: "b1".into(),
            target_text: "id: b1\ntext: one table\n".into(),
            severity: "major".into(),
            category: "risk".into(),
            text: format!("item {id}"),
            ..Default::default()
        },
        decision: None,
        note: None,
        ruler: None,
        resolution: None,
        evidence: Vec::new(),
    }
}

fn items(count: usize) -> Board {
    Board {
        stages: stages(&["proposal", "moderation"]),
        items: (1..=count).map(|n| open_item(&format!("c{n}"))).collect(),
        needs_moderator: true,
        ..Board::default()
    }
}

/// Starts `call_id`, a `role/stage/rN/aN` id as the tests write them.
fn start(app: &mut App, call_id: &str, role: &str) {
    let parts: Vec<&str> = call_id.rsplitn(4, '/').collect();
    let number = |part: &str| part[1..].parse::<u32>().unwrap();
    started(
        app,
        call_id,
        Slot::new(role, parts[2], number(parts[1])),
        number(parts[0]),
    );
}

fn started(app: &mut App, call_id: &str, slot: Slot, attempt: u32) {
    let agent = AgentInfo {
        provider: "script".into(),
        model: "test".into(),
    };
    app.apply(
        Update::CallStarted {
            call_id: call_id.into(),
            slot,
            attempt,
            agent,
        },
        Instant::now(),
    );
}

fn decided(command: &Command) -> (String, ItemDecision, Option<String>) {
    match command {
        Command::Moderator(Input::ItemDecided {
            item_id,
            decision,
            note,
            ruler: Some(crate::protocol::Ruler::Person),
        }) => (item_id.clone(), *decision, note.clone()),
        other => panic!("not a decision: {other:?}"),
    }
}

/// The interface at the moderator's turn, `board` in front of it.
fn moderating(board: Board) -> App {
    let mut app = app();
    app.progress.stage = "moderation".into();
    app.apply(Update::Board(Box::new(board)), Instant::now());
    app
}

#[test]
fn items_take_focus_and_each_decision_goes_out_at_once() {
    let mut app = moderating(items(3));
    assert_eq!(app.focus, Focus::Items);
    let sent = key(&mut app, KeyCode::Char('a'));
    assert_eq!(decided(&sent[0]), ("c1".into(), ItemDecision::Accept, None));
    assert_eq!(app.item_cursor, 1, "the cursor moves to the next open item");
    let sent = key(&mut app, KeyCode::Char('r'));
    assert_eq!(decided(&sent[0]).1, ItemDecision::Reject);
    assert!(
        key(&mut app, KeyCode::Char('s')).is_empty(),
        "c3 is still open"
    );
    assert!(app.flash.as_ref().unwrap().0.contains("c3"));
    key(&mut app, KeyCode::Char('d'));
    let sent = key(&mut app, KeyCode::Char('s'));
    assert!(matches!(
        sent[..],
        [Command::Moderator(Input::ModerationSubmitted)]
    ));
}

#[test]
fn a_note_written_first_travels_with_the_decision() {
    let mut app = moderating(items(2));
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.contexts(), vec![Context::Editor]);
    for c in "ask finance".chars() {
        assert!(
            key(&mut app, KeyCode::Char(c)).is_empty(),
            "typing sends nothing"
        );
    }
    let saved = app.handle_key(
        KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL),
        Instant::now(),
    );
    assert!(saved.is_empty(), "no decision yet: the note waits");
    let sent = key(&mut app, KeyCode::Char('d'));
    assert_eq!(
        decided(&sent[0]),
        ("c1".into(), ItemDecision::Defer, Some("ask finance".into()))
    );
    // A note on a decided item re-sends the decision with it; Esc cancels.
    app.item_cursor = 0;
    key(&mut app, KeyCode::Char('n'));
    key(&mut app, KeyCode::Esc);
    assert!(app.layers.is_empty());
}

#[test]
fn decisions_wait_for_the_critique() {
    let mut app = app();
    app.progress.stage = "moderation".into();
    let mut board = items(1);
    board.needs_moderator = false;
    app.apply(Update::Board(Box::new(board)), Instant::now());
    app.focus = Focus::Items;
    assert!(key(&mut app, KeyCode::Char('a')).is_empty());
}

#[test]
fn overrides_name_the_live_call_from_the_modal_or_the_pane() {
    let mut app = app();
    analyst_times_out(&mut app);
    assert!(matches!(app.layers.last(), Some(Layer::Override(_))));
    assert_eq!(app.panes[2].status, PaneStatus::TimedOut);
    start(&mut app, "judge.analyst/evaluation/r1/a2", "judge.analyst");
    let sent = key(&mut app, KeyCode::Char('r'));
    assert!(app.layers.is_empty(), "the modal closes");
    let [Command::Moderator(Input::Override { call_id, action })] = &sent[..] else {
        panic!("{sent:?}")
    };
    assert_eq!(call_id, "judge.analyst/evaluation/r1/a2");
    assert_eq!(*action, OverrideAction::RetryNow);
    app.focus = Focus::Pane(2);
    let sent = key(&mut app, KeyCode::Char('W'));
    assert!(matches!(
        &sent[..],
        [Command::Moderator(Input::Override {
            action: OverrideAction::WaitLonger {
                extra_ms: WAIT_LONGER_MS
            },
            ..
        })]
    ));
    app.focus = Focus::Pane(0);
    assert!(
        key(&mut app, KeyCode::Char('S')).is_empty(),
        "the proposer is not running"
    );
}

#[test]
fn switching_a_stuck_role_to_another_model_retries_its_call() {
    let mut app = app();
    app.alternatives = vec!["openai:gpt-4.1".into(), "anthropic:claude".into()];
    start(&mut app, "critic/critique/r1/a2", "critic");
    app.layers.push(Layer::Override(OverridePrompt {
        pane: 1,
        what: "critic failed".into(),
        kind: LogKind::Failure,
    }));
    key(&mut app, KeyCode::Char('c'));
    assert_eq!(app.contexts(), vec![Context::ChooseAgent]);
    key(&mut app, KeyCode::Char('j'));
    let sent = key(&mut app, KeyCode::Enter);
    let [Command::SwitchAgent { role, choice, then }] = &sent[..] else {
        panic!("{sent:?}")
    };
    assert_eq!((role.as_str(), *choice), ("critic", 1));
    assert_eq!(
        then,
        &Some(Input::Override {
            call_id: "critic/critique/r1/a2".into(),
            action: OverrideAction::RetryNow
        })
    );
    assert!(app.layers.is_empty());
}

#[test]
fn a_held_round_focuses_its_judge_and_m_reruns_it() {
    let mut app = app();
    app.apply(
        Update::Progress(Progress {
            stage: "evaluation".into(),
            round: 1,
            finished: false,
            ..Default::default()
        }),
        Instant::now(),
    );
    start(&mut app, "judge.analyst/evaluation/r1/a1", "judge.analyst");
    log(
        &mut app,
        LogKind::Malformed,
        "judge.analyst/evaluation/r1/a1",
        "analyst: output unusable",
    );
    assert!(matches!(app.layers.last(), Some(Layer::Override(_))));
    key(&mut app, KeyCode::Esc);
    let mut held = items(1);
    held.items[0].decision = Some(ItemDecision::Accept);
    held.held_calls = vec!["judge.analyst/evaluation/r1/a1".into()];
    app.focus = Focus::Items;
    app.apply(Update::Board(Box::new(held)), Instant::now());
    assert!(!app.moderating(), "a held round is not the items' turn");
    assert_eq!(
        app.focus,
        Focus::Pane(2),
        "focus goes to the judge it waits on"
    );
    let sent = key(&mut app, KeyCode::Char('M'));
    assert_eq!(
        sent,
        vec![Command::Moderator(Input::Override {
            call_id: "judge.analyst/evaluation/r1/a1".into(),
            action: OverrideAction::Rerun,
        })]
    );
    app.focus = Focus::Items;
    assert!(
        key(&mut app, KeyCode::Char('a')).is_empty(),
        "items are decided already"
    );
}

#[test]
fn a_role_given_to_a_model_drops_the_persons_editor() {
    let mut app = app();
    app.apply(
        Update::AnswerWanted {
            call_id: "critic/critique/r1/a1".into(),
            role: "critic".into(),
            prompt: "critique this".into(),
            template: Some("critiques:\n  - target_block: b1\u{1b}[31m".into()),
        },
        Instant::now(),
    );
    let human = app.panes[1].human.as_ref().unwrap();
    assert!(
        !human.editor.lines().join("\n").contains('\u{1b}'),
        "templates are sanitised too"
    );
    start(&mut app, "critic/critique/r1/a2", "critic");
    assert!(app.panes[1].human.is_none());
    assert_eq!(app.panes[1].status, PaneStatus::Retrying);
}

#[test]
fn agent_text_is_made_inert_on_arrival() {
    let mut app = app();
    start(&mut app, "proposer/proposal/r1/a1", "proposer");
    app.apply(
        Update::Chunk {
            call_id: "proposer/proposal/r1/a1".into(),
            text: "safe \u{1b}]52;c;ZXZpbA==\u{7}text \u{1b}[2J\u{202e}end\n".into(),
        },
        Instant::now(),
    );
    app.prepare(Rect::new(0, 0, 200, 60));
    let text: String = app.panes[0]
        .shown()
        .lines(0, 10)
        .iter()
        .flat_map(|line| line.spans.iter().map(|span| span.content.to_string()))
        .collect();
    assert!(text.contains("safe text end"), "{text:?}");
    assert!(!text.chars().any(|c| c.is_control() || c == '\u{202e}'));
}

#[test]
fn stale_chunks_of_a_replaced_attempt_are_dropped() {
    let mut app = app();
    start(&mut app, "critic/critique/r1/a1", "critic");
    start(&mut app, "critic/critique/r1/a2", "critic");
    app.apply(
        Update::Chunk {
            call_id: "critic/critique/r1/a1".into(),
            text: "late".into(),
        },
        Instant::now(),
    );
    assert_eq!(app.panes[1].doc.source_len(), 0);
}

#[test]
fn the_token_estimate_does_not_depend_on_how_the_text_was_split() {
    let call_id = "proposer/proposal/r1/a1";
    let estimate = |pieces: &[&str]| {
        let mut app = app();
        start(&mut app, call_id, "proposer");
        for piece in pieces {
            let text = piece.to_string();
            let call_id = call_id.into();
            app.apply(Update::Chunk { call_id, text }, Instant::now());
        }
        // The header takes the estimate at the tick.
        app.tick(Instant::now());
        app.totals.estimated_output
    };
    // 40 characters are 10 tokens, however they arrive: rounding each
    // 2-character piece on its own would make them 20.
    let whole = "ab".repeat(20);
    let pairs: Vec<&str> = (0..20).map(|_| "ab").collect();
    assert_eq!(estimate(&[&whole]), 10);
    assert_eq!(estimate(&pairs), 10);
}

#[test]
fn quit_asks_while_running_and_not_after_the_verdict() {
    let mut app = app();
    key(&mut app, KeyCode::Char('q'));
    assert!(!app.quit);
    key(&mut app, KeyCode::Char('n'));
    assert!(app.layers.is_empty() && !app.quit);
    app.apply(
        Update::Finished(Outcome::Decided {
            verdict: crate::protocol::Verdict::Adopt,
            rule: "all checks passed".into(),
        }),
        Instant::now(),
    );
    key(&mut app, KeyCode::Char('q'));
    assert!(app.quit);
}

fn app_with_items(ids: &[&str]) -> App {
    let info = info(Vec::new());
    let mut app = App::new(info, Theme::default(), Instant::now());
    app.progress.stage = "moderation".into();
    let items = ids.iter().map(|id| open_item(id)).collect();
    app.apply(
        Update::Board(Box::new(Board {
            items,
            needs_moderator: true,
            ..Board::default()
        })),
        Instant::now(),
    );
    app
}

fn press(app: &mut App, c: char) -> Vec<Command> {
    key(app, KeyCode::Char(c))
}

#[test]
fn a_late_moderation_request_keeps_the_cursor_where_the_keys_left_it() {
    let mut app = app_with_items(&["c1", "c2", "c3"]);
    assert_eq!((app.focus, app.item_cursor), (Focus::Items, 0));
    press(&mut app, 'a');
    // The engine's request follows the board that already showed the
    // items; the person has decided c1 in between.
    app.apply(
        Update::ModerationNeeded { items: Vec::new() },
        Instant::now(),
    );
    let commands = press(&mut app, 'r');
    let [
        Command::Moderator(Input::ItemDecided {
            item_id, decision, ..
        }),
    ] = commands.as_slice()
    else {
        panic!("one decision, got {commands:?}");
    };
    assert_eq!((item_id.as_str(), *decision), ("c2", ItemDecision::Reject));
}

#[test]
fn a_board_sent_before_a_decision_arrived_does_not_undo_it() {
    let mut app = app_with_items(&["c1", "c2"]);
    let stale = app.board.clone();
    press(&mut app, 'a');
    press(&mut app, 'r');
    // The board the engine published before it saw either decision.
    app.apply(Update::Board(Box::new(stale.clone())), Instant::now());
    let shown: Vec<_> = app.board.items.iter().map(|entry| entry.decision).collect();
    assert_eq!(
        shown,
        [Some(ItemDecision::Accept), Some(ItemDecision::Reject)]
    );
    assert!(matches!(
        press(&mut app, 's').as_slice(),
        [Command::Moderator(Input::ModerationSubmitted)]
    ));
    // Once the engine's board shows a decision, the board is believed
    // again: a later change made elsewhere is not masked.
    let mut confirmed = stale;
    confirmed.items[0].decision = Some(ItemDecision::Accept);
    confirmed.items[1].decision = Some(ItemDecision::Reject);
    app.apply(Update::Board(Box::new(confirmed.clone())), Instant::now());
    confirmed.items[0].decision = Some(ItemDecision::Defer);
    app.apply(Update::Board(Box::new(confirmed)), Instant::now());
    assert_eq!(app.board.items[0].decision, Some(ItemDecision::Defer));
}

#[test]
fn a_started_call_is_shown_by_its_slot_never_by_parsing_its_id() {
    let mut app = app();
    started(
        &mut app,
        "an opaque id",
        Slot::new("proposer", "proposal", 3),
        2,
    );
    let pane = &app.panes[app.pane_index("proposer").unwrap()];
    assert_eq!(pane.stage, "proposal");
    assert_eq!(pane.status, PaneStatus::Retrying, "a second attempt");
}

/// A protocol that moderates every round (a root-cause analysis) lists the
/// earlier rounds' decided items first: a new moderation puts the cursor on
/// the first item still to decide.
#[test]
fn a_new_moderation_starts_at_the_first_item_to_decide() {
    let mut app = app();
    let mut board = items(4);
    for entry in &mut board.items[..2] {
        entry.decision = Some(ItemDecision::Accept);
    }
    app.apply(Update::Board(Box::new(board)), Instant::now());
    assert_eq!(app.focus, Focus::Items);
    assert_eq!(app.item_cursor, 2);
}

/// Logs `message` of `kind`, about `call_id` unless it is empty.
fn log(app: &mut App, kind: LogKind, call_id: &str, message: &str) {
    app.apply(
        Update::Log(LogEntry {
            at: chrono::Utc::now(),
            kind,
            call_id: (!call_id.is_empty()).then(|| call_id.to_string()),
            details: Vec::new(),
            message: message.into(),
        }),
        Instant::now(),
    );
}

/// Starts the analyst's first evaluation call and logs that it timed out.
fn analyst_times_out(app: &mut App) {
    start(app, "judge.analyst/evaluation/r1/a1", "judge.analyst");
    log(
        app,
        LogKind::Timeout,
        "judge.analyst/evaluation/r1/a1",
        "judge.analyst produced no answer within 6 s",
    );
}

/// The transcript's rows, laid out wide enough that no line wraps.
fn transcript_rows(app: &mut App) -> Vec<String> {
    app.prepare(Rect::new(0, 0, 600, 60));
    app.transcript.row_texts(0, app.transcript.line_count())
}

fn override_open(app: &App) -> bool {
    app.layers
        .iter()
        .any(|layer| matches!(layer, Layer::Override(_)))
}

#[test]
fn a_timeout_prompt_closes_itself_once_the_automatic_retry_answers() {
    let mut app = app();
    analyst_times_out(&mut app);
    log(
        &mut app,
        LogKind::Retry,
        "judge.analyst/evaluation/r1/a1",
        "retrying judge.analyst once",
    );
    start(&mut app, "judge.analyst/evaluation/r1/a2", "judge.analyst");
    assert!(override_open(&app), "the retry runs: r, w and c act on it");
    // Another role answering changes nothing for this prompt.
    start(&mut app, "critic/critique/r1/a1", "critic");
    log(
        &mut app,
        LogKind::CallFinished,
        "critic/critique/r1/a1",
        "critic answered",
    );
    assert!(override_open(&app));

    log(
        &mut app,
        LogKind::CallFinished,
        "judge.analyst/evaluation/r1/a2",
        "judge.analyst answered in 2 s",
    );
    assert!(
        !override_open(&app),
        "the retry answered: nothing is left to decide"
    );
    assert_eq!(app.panes[2].status, PaneStatus::Done);
    let rows = transcript_rows(&mut app);
    let closed = rows
        .iter()
        .find(|row| row.contains("closed by itself"))
        .expect("a line says the prompt closed");
    assert!(
        closed.ends_with(
            "· \"Analyst timed out\" closed by itself: judge.analyst/evaluation/r1/a2 answered"
        ),
        "{closed}"
    );
}

#[test]
fn a_prompt_about_a_role_with_nothing_running_closes_when_the_debate_moves_on() {
    let mut app = app();
    start(&mut app, "critic/critique/r1/a1", "critic");
    analyst_times_out(&mut app);
    start(&mut app, "judge.analyst/evaluation/r1/a2", "judge.analyst");
    log(
        &mut app,
        LogKind::CallFinished,
        "critic/critique/r1/a1",
        "critic answered",
    );
    log(
        &mut app,
        LogKind::Malformed,
        "critic/critique/r1/a1",
        "critic: output unusable",
    );
    // Under the critic's prompt, the analyst's: its retry is still running.
    assert_eq!(app.layers.len(), 2);
    log(&mut app, LogKind::Stage, "", "stage: moderation");
    let [Layer::Override(prompt)] = app.layers.as_slice() else {
        panic!("only the analyst's prompt is left")
    };
    assert_eq!(prompt.pane, 2);
    assert!(transcript_rows(&mut app).iter().any(|row| {
        row.ends_with("\"Critic: unusable answer\" closed by itself: the debate moved on")
    }),);
}

#[test]
fn the_moderation_layout_sets_idle_panes_aside_until_their_roles_start() {
    let mut app = app();
    start(&mut app, "proposer/proposal/r1/a1", "proposer");
    app.apply(
        Update::Chunk {
            call_id: "proposer/proposal/r1/a1".into(),
            text: "blocks:\n  - id: b1\n    text: one table\n  - id: b2\n".into(),
        },
        Instant::now(),
    );
    start(&mut app, "critic/critique/r1/a1", "critic");
    let wide = Rect::new(0, 0, 160, 48);
    app.prepare(wide);
    assert!(
        app.layout.rect(Region::Pane(2)).is_some(),
        "not moderating yet"
    );

    app.apply(Update::Board(Box::new(items(3))), Instant::now());
    app.prepare(wide);
    assert_eq!(app.focus, Focus::Items);
    assert_eq!(app.layout.rect(Region::Pane(2)), None, "the analyst waits");
    let items_rect = app.layout.rect(Region::Items).unwrap();
    let proposer = app.layout.rect(Region::Pane(0)).unwrap();
    assert_eq!(
        items_rect.x, proposer.x,
        "the items take the agents' column"
    );
    assert!(items_rect.height > proposer.height);
    let target = app
        .item_target
        .as_ref()
        .expect("the item carries b1's entry");
    assert_eq!(target.target, "b1");
    assert!(
        layout::items_areas(&app.items_shape(), items_rect)
            .target
            .is_some()
    );
    // Tab skips the pane set aside.
    let ring: Vec<Focus> = (0..5)
        .map(|_| {
            key(&mut app, KeyCode::Tab);
            app.focus
        })
        .collect();
    assert_eq!(
        ring,
        [
            Focus::Board,
            Focus::Transcript,
            Focus::Pane(0),
            Focus::Pane(1),
            Focus::Items
        ]
    );

    start(&mut app, "judge.analyst/evaluation/r1/a1", "judge.analyst");
    app.prepare(wide);
    assert!(
        app.layout.rect(Region::Pane(2)).is_some(),
        "back once it starts"
    );
    // Narrow screens keep their tabs.
    app.prepare(Rect::new(0, 0, 80, 24));
    assert!(app.layout.tabs.is_some());
}

/// The text a pane shows in its view, as plain rows.
fn visible_rows(app: &App, index: usize) -> Vec<String> {
    let pane = &app.panes[index];
    let first = pane
        .scroll
        .first_line(pane.shown().line_count(), pane.viewport);
    pane.shown().row_texts(first, pane.viewport)
}

/// Issue 26: the words of the moderator's decisions come from the
/// protocol, in one place: the footer, the help and the item list all say
/// a council's "deliver / drop / hold back", and the keys stay a / r / d.
#[test]
fn a_protocols_words_for_its_decisions_reach_the_footer_the_help_and_the_items() {
    let mut info = info(vec![role("expert.a", "Expert A")]);
    info.words = crate::protocol::ItemWords {
        accept: "deliver",
        reject: "drop",
        defer: "hold back",
        about: Some("Each item is a challenge to a finding."),
    };
    let mut app = App::new(info, Theme::builtin("dark").unwrap(), Instant::now());
    app.prepare(Rect::new(0, 0, 120, 40));
    app.progress.stage = "moderation".into();
    app.apply(Update::Board(Box::new(items(3))), Instant::now());
    app.focus = Focus::Items;
    press(&mut app, 'd');
    let draw = |app: &App| {
        let mut terminal =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).unwrap();
        terminal
            .draw(|frame| crate::tui::view::draw(app, frame))
            .unwrap();
        terminal.backend().to_string()
    };
    let screen = draw(&app);
    assert!(screen.contains("a deliver"), "{screen}");
    assert!(screen.contains("r drop"), "{screen}");
    assert!(screen.contains("d hold back"), "{screen}");
    assert!(
        screen.contains("hold back"),
        "the decided item says so\n{screen}"
    );
    assert!(!screen.contains("a accept"), "{screen}");
    assert_eq!(
        app.board.items[0].decision,
        Some(ItemDecision::Defer),
        "the key is still d"
    );
    press(&mut app, '?');
    let help = draw(&app);
    assert!(
        help.contains("Each item is a challenge to a finding."),
        "{help}"
    );
    assert!(help.contains("hold back"), "{help}");
}

/// `R` on a call that has written text asks first, since the text is paid
/// for and a retry drops it; `n` keeps the call, `y` retries it. A call
/// that has written nothing yet is retried at once.
#[test]
fn retrying_a_call_that_has_written_text_asks_first() {
    let mut app = app();
    let call = "proposer/proposal/r1/a1";
    start(&mut app, call, "proposer");
    app.focus = Focus::Pane(0);
    let sent = key(&mut app, KeyCode::Char('R'));
    assert!(
        matches!(
            &sent[..],
            [Command::Moderator(Input::Override {
                action: OverrideAction::RetryNow,
                ..
            })]
        ),
        "nothing written yet: retried at once ({sent:?})"
    );
    let retry = "proposer/proposal/r1/a2";
    start(&mut app, retry, "proposer");
    app.apply(
        Update::Chunk {
            call_id: retry.into(),
            text: "A thesis tree, half written".into(),
        },
        Instant::now(),
    );
    assert!(
        key(&mut app, KeyCode::Char('R')).is_empty(),
        "it asks first"
    );
    assert!(matches!(
        app.layers.last(),
        Some(Layer::ConfirmRetry { pane: 0 })
    ));
    assert_eq!(app.contexts(), vec![Context::ConfirmRetry]);
    assert!(key(&mut app, KeyCode::Char('n')).is_empty(), "kept");
    assert!(app.layers.is_empty());
    key(&mut app, KeyCode::Char('R'));
    let sent = key(&mut app, KeyCode::Char('y'));
    let [Command::Moderator(Input::Override { call_id, action })] = &sent[..] else {
        panic!("{sent:?}")
    };
    assert_eq!(
        (call_id.as_str(), *action),
        (retry, OverrideAction::RetryNow)
    );
    assert!(app.layers.is_empty());
}

/// What the footer says about open items is true when it shows: deciding
/// the items a message named updates it, `s` from another region submits,
/// and a decision key after the submission says the decisions are in, not
/// that the critique is still to come.
#[test]
fn messages_about_the_items_stay_true() {
    let mut app = app();
    app.progress.stage = "moderation".into();
    app.apply(Update::Board(Box::new(items(3))), Instant::now());
    assert!(key(&mut app, KeyCode::Char('s')).is_empty());
    assert_eq!(
        app.flash.as_ref().unwrap().0,
        "decide every item first: c1, c2, c3 open"
    );
    key(&mut app, KeyCode::Char('a'));
    assert_eq!(
        app.flash.as_ref().unwrap().0,
        "decide every item first: c2, c3 open"
    );
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(
        app.flash.as_ref().unwrap().0,
        "decide c3 first, then s submits"
    );
    key(&mut app, KeyCode::Char('d'));
    assert_eq!(
        app.flash.as_ref().unwrap().0,
        "every item is decided: s submits"
    );
    // From a pane, `s` submits too.
    app.focus = Focus::Pane(0);
    let sent = key(&mut app, KeyCode::Char('s'));
    assert!(matches!(
        sent[..],
        [Command::Moderator(Input::ModerationSubmitted)]
    ));
    // The protocol takes the decisions: the items no longer wait.
    let mut board = items(3);
    board.needs_moderator = false;
    for entry in &mut board.items {
        entry.decision = Some(ItemDecision::Accept);
    }
    app.apply(Update::Board(Box::new(board)), Instant::now());
    app.focus = Focus::Items;
    assert!(key(&mut app, KeyCode::Char('a')).is_empty());
    let message = &app.flash.as_ref().unwrap().0;
    assert!(
        message.starts_with("these decisions are submitted"),
        "{message}"
    );
    assert!(key(&mut app, KeyCode::Char('s')).is_empty());
    assert!(
        app.flash
            .as_ref()
            .unwrap()
            .0
            .starts_with("these decisions are submitted")
    );
}

/// Before any item is raised, a decision key says there is nothing yet.
#[test]
fn a_decision_key_before_any_item_says_there_is_nothing_yet() {
    let mut app = app();
    app.focus = Focus::Items;
    assert!(key(&mut app, KeyCode::Char('a')).is_empty());
    assert!(
        app.flash
            .as_ref()
            .unwrap()
            .0
            .starts_with("nothing to decide yet")
    );
}

/// In a round reopened after the verdict, an item deferred in moderation
/// and accepted afterwards shows as accepted: that is what the round acts
/// on. The archive keeps its own column for settlements.
#[test]
fn a_reopened_round_shows_a_settled_item_as_settled() {
    let mut app = app();
    let mut board = items(3);
    board.needs_moderator = false;
    board.items[2].decision = Some(ItemDecision::Defer);
    board.items[2].resolution = Some(crate::protocol::ItemResolution {
        decision: ItemDecision::Accept,
        note: None,
        at: chrono::Utc::now(),
        ruler: None,
    });
    app.apply(Update::Board(Box::new(board)), Instant::now());
    app.focus = Focus::Items;
    let screen = draw_text(&mut app, 200, 60);
    let row = screen
        .lines()
        .find(|line| line.contains("c3  b1"))
        .expect("c3's row");
    assert!(row.contains("accept"), "{row}");
    assert!(!row.contains("defer"), "{row}");
}

fn draw_text(app: &mut App, width: u16, height: u16) -> String {
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(width, height)).unwrap();
    app.prepare(Rect::new(0, 0, width, height));
    terminal
        .draw(|frame| crate::tui::view::draw(app, frame))
        .unwrap();
    terminal.backend().to_string()
}

/// Issue 28: a pane reads a structured answer as cards; `t` shows the text
/// the agent wrote, row for row as streamed, and `t` again the cards.
#[test]
fn t_switches_a_pane_between_its_cards_and_the_raw_text() {
    let mut app = app();
    start(&mut app, "proposer/proposal/r1/a1", "proposer");
    let answer = "Two blocks follow.\n\n```yaml\nblocks:\n  - id: a1\n    type: claim\n    text: \"Use a jobs table.\"\n  - id: a2\n    type: risk\n    text: \"Bloat # not a comment.\"\n```\n";
    for piece in answer.as_bytes().chunks(5) {
        app.apply(
            Update::Chunk {
                call_id: "proposer/proposal/r1/a1".into(),
                text: std::str::from_utf8(piece).unwrap().into(),
            },
            Instant::now(),
        );
    }
    app.focus = Focus::Pane(0);
    let screen = Rect::new(0, 0, 200, 60);
    app.prepare(screen);
    let all_rows = |app: &App| -> Vec<String> {
        let doc = app.panes[0].shown();
        doc.row_texts(0, doc.line_count())
    };
    let cards = all_rows(&app);
    assert_eq!(
        cards,
        [
            "Two blocks follow.",
            "",
            "blocks",
            "a1 · type claim",
            "Use a jobs table.",
            "",
            "a2 · type risk",
            "Bloat # not a comment.",
            ""
        ]
    );
    key(&mut app, KeyCode::Char('t'));
    assert!(app.panes[0].raw);
    app.prepare(screen);
    assert_eq!(all_rows(&app), answer.lines().collect::<Vec<_>>());
    assert_eq!(visible_rows(&app, 0), answer.lines().collect::<Vec<_>>());
    key(&mut app, KeyCode::Char('t'));
    app.prepare(screen);
    assert_eq!(visible_rows(&app, 0), cards);
    // Elsewhere the key says what it is for.
    app.focus = Focus::Transcript;
    key(&mut app, KeyCode::Char('t'));
    assert!(app.flash.as_ref().unwrap().0.contains("raw text"));
}

/// Issue 30: a step held at the budget asks; each of the three answers
/// goes out as its command, a raise is written in an editor that starts
/// from the suggested limit, and a bad figure is said, not sent.
#[test]
fn a_step_held_at_the_budget_asks_raise_stop_or_go_on_once() {
    use crate::engine::{BudgetDecision, BudgetQuestion};
    use crate::protocol::budget::{Budget, Forecast, Spend};
    let question = BudgetQuestion {
        limit: Budget {
            usd: None,
            tokens: Some(12_000),
        },
        spent: Spend {
            usd: 0.0,
            tokens: 11_000,
        },
        running: Spend::default(),
        step: Forecast {
            calls: 3,
            input_tokens: 9_000,
            output_tokens: 3_000,
            ..Forecast::default()
        },
        crossed: Vec::new(),
    };
    let mut app = app();
    app.apply(Update::BudgetReached(question.clone()), Instant::now());
    assert_eq!(app.contexts(), vec![Context::Budget]);
    // Keys of the main view do nothing while the step is held.
    assert!(key(&mut app, KeyCode::Char('a')).is_empty());
    assert_eq!(
        key(&mut app, KeyCode::Char('o')),
        vec![Command::Budget(BudgetDecision::GoOnce)]
    );
    assert!(app.layers.is_empty());

    app.apply(Update::BudgetReached(question.clone()), Instant::now());
    assert!(key(&mut app, KeyCode::Char('r')).is_empty());
    let Some(Layer::BudgetEditor { editor, .. }) = app.layers.last() else {
        panic!("the editor opens");
    };
    // 23,000 committed, half again, rounded up to 10,000: 40,000.
    assert_eq!(editor.lines(), ["40,000 tokens"]);
    // Esc goes back to the question: the step is still held.
    key(&mut app, KeyCode::Esc);
    assert!(matches!(app.layers.last(), Some(Layer::Budget(_))));
    key(&mut app, KeyCode::Char('r'));
    for _ in 0.."40,000 tokens".len() {
        key(&mut app, KeyCode::Backspace);
    }
    for c in "lots".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    assert!(key(&mut app, KeyCode::Enter).is_empty(), "not a figure");
    assert!(
        app.flash
            .as_ref()
            .unwrap()
            .0
            .contains("`lots` is not a budget")
    );
    for _ in 0..4 {
        key(&mut app, KeyCode::Backspace);
    }
    for c in "50k tokens".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    let limit = Budget {
        usd: None,
        tokens: Some(50_000),
    };
    assert_eq!(
        key(&mut app, KeyCode::Enter),
        vec![Command::Budget(BudgetDecision::Raise { limit })]
    );
    assert!(app.layers.is_empty());
    app.apply(
        Update::BudgetDecided {
            decision: BudgetDecision::Raise { limit },
        },
        Instant::now(),
    );
    assert_eq!(app.budget.tokens, Some(50_000));

    app.apply(Update::BudgetReached(question), Instant::now());
    assert_eq!(
        key(&mut app, KeyCode::Char('s')),
        vec![Command::Budget(BudgetDecision::Stop)]
    );
}

/// EV-05: what an answer cited is marked under it in its pane, each
/// citation with its check, and tallied at the pane's foot; a tally for a
/// call the pane no longer shows is not drawn into the new one.
#[test]
fn ev_05_an_answers_citations_are_marked_under_it_in_its_pane() {
    let mut app = app();
    let call = "critic/critique/r1/a1";
    start(&mut app, call, "critic");
    app.apply(
        Update::Chunk {
            call_id: call.into(),
            text: "The pool \"ran dry\" — app.log\n".into(),
        },
        Instant::now(),
    );
    let cited = |app: &mut App, call_id: &str| {
        app.apply(
            Update::Log(LogEntry {
                at: chrono::Utc::now(),
                kind: LogKind::Cited,
                call_id: Some(call_id.into()),
                message: "critic cited 2: 1 verified, 1 failed".into(),
                details: vec![
                    "✓ \"ran dry\" — app.log (verified at app.log:L3)".into(),
                    "✗ \"pool 900\" — app.log (not found in app.log nor in any other source)"
                        .into(),
                ],
            }),
            Instant::now(),
        )
    };
    cited(&mut app, call);
    let index = app.pane_index("critic").unwrap();
    assert_eq!(app.panes[index].cited, Some((1, 1)));
    app.prepare(Rect::new(0, 0, 200, 50));
    let doc = app.panes[index].shown();
    let rows = doc.row_texts(0, doc.line_count()).join("\n");
    assert!(rows.contains("as quorum checked them"), "{rows}");
    assert!(
        rows.contains("✓ \"ran dry\" — app.log (verified at app.log:L3)"),
        "{rows}"
    );
    assert!(rows.contains("✗ \"pool 900\""), "{rows}");
    assert!(
        transcript_rows(&mut app)
            .iter()
            .any(|row| row.contains("§ critic cited 2")),
        "the transcript keeps the tally"
    );
    let mut screen = ratatui::buffer::Buffer::empty(Rect::new(0, 0, 200, 50));
    crate::tui::view::draw_screen(&app, &mut screen);
    let drawn: String = screen.content().iter().map(|cell| cell.symbol()).collect();
    // The pane is narrow here: its foot shows the tally's start.
    assert!(drawn.contains("cited 1 ✓ ·"), "at the pane's foot");

    // The next round starts: the tally is the new answer's to make, and a
    // late tally of the old call does not mark the new one.
    start(&mut app, "critic/critique/r2/a1", "critic");
    assert_eq!(app.panes[index].cited, None);
    cited(&mut app, call);
    assert_eq!(app.panes[index].cited, None);
}

/// Issue 54: attached to a debate another process drives, the keys rule
/// as at a live run, and quitting leaves at once: the debate goes on there.
#[test]
fn attached_the_keys_rule_and_quitting_leaves_the_debate_running() {
    let mut app = app_with_items(&["c1"]);
    app.attached = Some(Attached::default());
    assert!(matches!(
        press(&mut app, 'a').as_slice(),
        [Command::Moderator(Input::ItemDecided { .. })]
    ));
    press(&mut app, 'q');
    assert!(app.quit, "no question: quitting stops nothing");
    assert!(app.layers.is_empty());
}

/// Issue 54: a second attach only watches: the keys that would rule are
/// refused with the reason, nothing goes out, and no question about a
/// held step or a stuck call opens; reading keys still work.
#[test]
fn a_read_only_attach_refuses_the_keys_that_rule() {
    let why = "another quorum attach (pid 7) moderates this debate";
    let mut app = app_with_items(&["c1", "c2"]);
    app.attached = Some(Attached {
        read_only: Some(why.into()),
    });
    for c in ['a', 'r', 'd', 'n', 's'] {
        assert!(press(&mut app, c).is_empty(), "{c}");
        let (message, _) = app.flash.as_ref().expect("a flash says why");
        assert_eq!(message, &format!("read-only: {why}"));
    }
    assert_eq!(
        app.board.items[0].decision, None,
        "nothing shown as decided"
    );
    press(&mut app, 'j');
    assert_eq!(app.item_cursor, 1, "moving about still works");
    let question = crate::engine::BudgetQuestion {
        limit: Budget::default(),
        spent: Default::default(),
        running: Default::default(),
        step: Default::default(),
        crossed: Vec::new(),
    };
    app.apply(Update::BudgetReached(question), Instant::now());
    assert!(app.layers.is_empty(), "no budget question to answer here");
}

/// Issue 56: the regions are laid out again only when what they are laid
/// out for changes (the panes' shapes, the focus, the board's room, the
/// area), not at every frame of streamed text.
#[test]
fn the_layout_is_kept_while_what_it_is_laid_out_for_stands() {
    let mut app = app();
    let area = Rect::new(0, 0, 200, 60);
    // Marked, to see whether the next frame lays it out again.
    start(&mut app, "proposer/proposal/r1/a1", "proposer");
    app.prepare(area);
    let laid_out = app.layout.clone();
    app.layout.regions.clear();
    app.apply(
        Update::Chunk {
            call_id: "proposer/proposal/r1/a1".into(),
            text: "more text".into(),
        },
        Instant::now(),
    );
    app.prepare(area);
    assert!(app.layout.regions.is_empty(), "the same input keeps it");
    app.zoomed = true;
    app.prepare(area);
    assert_eq!(app.layout.regions.len(), 1, "zoomed: one region");
    app.zoomed = false;
    app.prepare(Rect::new(0, 0, 200, 50));
    assert_ne!(app.layout, laid_out, "another area");
    app.prepare(area);
    assert_eq!(app.layout, laid_out);
}
