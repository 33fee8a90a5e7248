//! Keys are data: one table maps key presses to typed [`Action`]s per
//! [`Context`] and per [`Mode`], and the same table produces the footer hints
//! and the `?` help overlay, so what the screen says and what the keys do
//! cannot drift. A replay offers no key that would change a debate; an
//! archived debate offers only the keys that settle its deferred items.
//!
//! Not responsible for what an action does: `app` applies actions to state.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Where a key press is interpreted. Layers (help, modals, editors) take
/// keys before the focused region, which takes them before [`Context::Global`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    Global,
    /// An agent pane, the transcript or the verdict report.
    Pane,
    Items,
    Override,
    ChooseAgent,
    ItemDetail,
    ConfirmQuit,
    ConfirmRetry,
    /// Recording a deferred item's settlement after the verdict.
    ConfirmSettle,
    /// A step held at the budget.
    Budget,
    Help,
    /// A text area has the keys: the note editor or a human agent's answer.
    Editor,
    /// The one-line editor of a raised budget.
    BudgetEditor,
}

impl Context {
    pub fn title(self) -> &'static str {
        match self {
            Context::Global => "Everywhere",
            Context::Pane => "Agent panes and the transcript",
            Context::Items => "Critique items",
            Context::Override => "A stuck or failed call",
            Context::ChooseAgent => "Switching a role to another model",
            Context::ItemDetail => "One item in full",
            Context::ConfirmQuit => "Quit?",
            Context::ConfirmRetry => "Retry a call that has written text?",
            Context::ConfirmSettle => "Record a settlement after the verdict?",
            Context::Budget => "A step that would cross the budget",
            Context::Help => "This help",
            Context::Editor => "Writing a note or an answer",
            Context::BudgetEditor => "Writing a larger budget",
        }
    }
}

/// What the interface is attached to; each binding says in which of these
/// it applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A debate running now, with the person as its moderator.
    Live,
    /// A recorded debate played back (`quorum replay`): read-only.
    Replay,
    /// A finished debate opened to browse and settle its deferred items
    /// (`quorum open DIR`).
    Archive,
}

/// A set of [`Mode`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Modes(u8);

impl Modes {
    pub const LIVE: Modes = Modes(1);
    pub const REPLAY: Modes = Modes(2);
    pub const ARCHIVE: Modes = Modes(4);
    pub const ALL: Modes = Modes(7);

    pub const fn and(self, other: Modes) -> Modes {
        Modes(self.0 | other.0)
    }

    pub const fn contains(self, mode: Mode) -> bool {
        let bit = match mode {
            Mode::Live => Modes::LIVE.0,
            Mode::Replay => Modes::REPLAY.0,
            Mode::Archive => Modes::ARCHIVE.0,
        };
        self.0 & bit != 0
    }

    #[cfg(test)]
    const fn overlaps(self, other: Modes) -> bool {
        self.0 & other.0 != 0
    }
}

/// Everything a key can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    FocusNext,
    FocusPrev,
    Zoom,
    ScrollUp,
    ScrollDown,
    PageUp,
    PageDown,
    Top,
    Bottom,
    ToggleFollow,
    /// An agent's pane shows its raw text, or its cards again.
    ToggleRaw,
    Help,
    Quit,
    ToggleVerdict,
    ItemUp,
    ItemDown,
    Accept,
    Reject,
    Defer,
    Note,
    OpenItem,
    Submit,
    RetryCall,
    SkipCall,
    WaitLonger,
    RerunJudge,
    SwitchAgent,
    Answer,
    Close,
    ConfirmYes,
    ConfirmNo,
    SaveText,
    CancelText,
    /// Write a larger budget for the step held.
    RaiseBudget,
    /// Run the step held over the budget; the next is checked again.
    GoOnce,
    /// End the run before the step held, resumable.
    StopHere,
    /// A replay stops or goes on.
    TogglePause,
    /// A replay plays twice as fast.
    Faster,
    /// A replay plays half as fast.
    Slower,
}

/// A key press as the table spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

const fn key(code: KeyCode) -> Key {
    Key {
        code,
        modifiers: KeyModifiers::NONE,
    }
}

const fn ch(c: char) -> Key {
    key(KeyCode::Char(c))
}

const fn ctrl(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        modifiers: KeyModifiers::CONTROL,
    }
}

impl Key {
    fn matches(&self, event: &KeyEvent) -> bool {
        // Shift is part of the character for letters (`R`), and terminals
        // disagree on whether they report it; compare without it.
        let relevant = KeyModifiers::CONTROL | KeyModifiers::ALT;
        event.code == self.code && (event.modifiers & relevant) == (self.modifiers & relevant)
    }

    /// How the footer and help spell the key.
    pub fn label(&self) -> String {
        let base = match self.code {
            KeyCode::Char(' ') => "Space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "S-Tab".into(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            other => format!("{other:?}"),
        };
        if self.modifiers.contains(KeyModifiers::CONTROL) {
            format!("C-{base}")
        } else {
            base
        }
    }
}

/// One row of the key table.
#[derive(Clone, Copy, Debug)]
pub struct Binding {
    pub context: Context,
    pub keys: &'static [Key],
    pub action: Action,
    /// What the key does, in a few words.
    pub hint: &'static str,
    /// Shown in the footer (every binding is in the help overlay).
    pub footer: bool,
    /// Where the binding applies.
    pub modes: Modes,
}

impl Binding {
    /// The binding, applying only in `modes`.
    const fn only(self, modes: Modes) -> Binding {
        Binding { modes, ..self }
    }
}

const fn bind(
    context: Context,
    keys: &'static [Key],
    action: Action,
    hint: &'static str,
    footer: bool,
) -> Binding {
    Binding {
        context,
        keys,
        action,
        hint,
        footer,
        modes: Modes::ALL,
    }
}

use Action as A;
use Context as C;

/// Keys that change a debate: a running one only.
const LIVE: Modes = Modes::LIVE;
/// Keys for the items and the note editor: a running debate's moderation,
/// and settling deferred items after the verdict.
const DECIDING: Modes = Modes::LIVE.and(Modes::ARCHIVE);
const REPLAY: Modes = Modes::REPLAY;

/// The key table, in the order the footer and help show it.
#[rustfmt::skip]
pub const BINDINGS: &[Binding] = &[
    // Layers first: they take keys before anything else.
    bind(C::ConfirmQuit, &[ch('y'), key(KeyCode::Enter)], A::ConfirmYes, "quit", true).only(LIVE),
    bind(C::ConfirmQuit, &[ch('n'), key(KeyCode::Esc)], A::ConfirmNo, "keep going", true).only(LIVE),
    bind(C::ConfirmRetry, &[ch('y'), key(KeyCode::Enter)], A::ConfirmYes, "retry, dropping its text", true).only(LIVE),
    bind(C::ConfirmRetry, &[ch('n'), key(KeyCode::Esc)], A::ConfirmNo, "let it finish", true).only(LIVE),
    bind(C::ConfirmSettle, &[ch('y'), key(KeyCode::Enter)], A::ConfirmYes, "record it", true).only(Modes::ARCHIVE),
    bind(C::ConfirmSettle, &[ch('n'), key(KeyCode::Esc)], A::ConfirmNo, "not now", true).only(Modes::ARCHIVE),
    bind(C::Budget, &[ch('r')], A::RaiseBudget, "raise it", true).only(LIVE),
    bind(C::Budget, &[ch('s')], A::StopHere, "stop here", true).only(LIVE),
    bind(C::Budget, &[ch('o')], A::GoOnce, "go on once", true).only(LIVE),
    bind(C::BudgetEditor, &[key(KeyCode::Enter), ctrl('s')], A::SaveText, "save", true).only(LIVE),
    bind(C::BudgetEditor, &[key(KeyCode::Esc)], A::CancelText, "back", true).only(LIVE),
    bind(C::Help, &[key(KeyCode::Esc), ch('?'), ch('q')], A::Close, "close help", true),
    bind(C::Help, &[ch('j'), key(KeyCode::Down)], A::ScrollDown, "scroll", false),
    bind(C::Help, &[ch('k'), key(KeyCode::Up)], A::ScrollUp, "scroll", false),
    bind(C::Editor, &[ctrl('s')], A::SaveText, "save", true).only(DECIDING),
    bind(C::Editor, &[key(KeyCode::Esc)], A::CancelText, "cancel", true).only(DECIDING),
    bind(C::Override, &[ch('r')], A::RetryCall, "retry now", true).only(LIVE),
    bind(C::Override, &[ch('s')], A::SkipCall, "skip", true).only(LIVE),
    bind(C::Override, &[ch('w')], A::WaitLonger, "wait longer", true).only(LIVE),
    bind(C::Override, &[ch('m')], A::RerunJudge, "re-run anyway", true).only(LIVE),
    bind(C::Override, &[ch('c')], A::SwitchAgent, "switch model", true).only(LIVE),
    bind(C::Override, &[key(KeyCode::Esc)], A::Close, "let quorum decide", true).only(LIVE),
    bind(C::ChooseAgent, &[ch('j'), key(KeyCode::Down)], A::ItemDown, "next", false).only(LIVE),
    bind(C::ChooseAgent, &[ch('k'), key(KeyCode::Up)], A::ItemUp, "previous", false).only(LIVE),
    bind(C::ChooseAgent, &[key(KeyCode::Enter)], A::ConfirmYes, "switch and retry", true).only(LIVE),
    bind(C::ChooseAgent, &[key(KeyCode::Esc)], A::Close, "cancel", true).only(LIVE),
    bind(C::ItemDetail, &[ch('a')], A::Accept, "accept", true).only(DECIDING),
    bind(C::ItemDetail, &[ch('r')], A::Reject, "reject", true).only(DECIDING),
    bind(C::ItemDetail, &[ch('d')], A::Defer, "defer", true).only(LIVE),
    bind(C::ItemDetail, &[ch('n')], A::Note, "note", true).only(DECIDING),
    bind(C::ItemDetail, &[key(KeyCode::Esc), key(KeyCode::Enter)], A::Close, "back", true),
    bind(C::ItemDetail, &[ch('j'), key(KeyCode::Down)], A::ScrollDown, "scroll down", false),
    bind(C::ItemDetail, &[ch('k'), key(KeyCode::Up)], A::ScrollUp, "scroll up", false),
    bind(C::ItemDetail, &[key(KeyCode::PageDown), ctrl('d')], A::PageDown, "page down", false),
    bind(C::ItemDetail, &[key(KeyCode::PageUp), ctrl('u')], A::PageUp, "page up", false),
    // The focused region.
    bind(C::Items, &[ch('a')], A::Accept, "accept", true).only(DECIDING),
    bind(C::Items, &[ch('r')], A::Reject, "reject", true).only(DECIDING),
    bind(C::Items, &[ch('d')], A::Defer, "defer", true).only(LIVE),
    bind(C::Items, &[ch('n')], A::Note, "note", true).only(DECIDING),
    bind(C::Items, &[ch('s')], A::Submit, "submit", true).only(LIVE),
    bind(C::Items, &[key(KeyCode::Enter)], A::OpenItem, "open", true),
    bind(C::Items, &[ch('j'), key(KeyCode::Down)], A::ItemDown, "next item", false),
    bind(C::Items, &[ch('k'), key(KeyCode::Up)], A::ItemUp, "previous item", false),
    bind(C::Items, &[key(KeyCode::PageDown), ctrl('d')], A::PageDown, "scroll the item down", false),
    bind(C::Items, &[key(KeyCode::PageUp), ctrl('u')], A::PageUp, "scroll the item up", false),
    bind(C::Pane, &[ch('e')], A::Answer, "write the answer", true).only(LIVE),
    bind(C::Pane, &[ch('R')], A::RetryCall, "retry call", true).only(LIVE),
    bind(C::Pane, &[ch('S')], A::SkipCall, "skip call", true).only(LIVE),
    bind(C::Pane, &[ch('W')], A::WaitLonger, "wait longer", false).only(LIVE),
    bind(C::Pane, &[ch('M')], A::RerunJudge, "re-run this judge", true).only(LIVE),
    bind(C::Pane, &[ch('j'), key(KeyCode::Down)], A::ScrollDown, "scroll down", false),
    bind(C::Pane, &[ch('k'), key(KeyCode::Up)], A::ScrollUp, "scroll up", false),
    bind(C::Pane, &[key(KeyCode::PageDown), ctrl('d')], A::PageDown, "page down", false),
    bind(C::Pane, &[key(KeyCode::PageUp), ctrl('u')], A::PageUp, "page up", false),
    bind(C::Pane, &[ch('g'), key(KeyCode::Home)], A::Top, "top", false),
    bind(C::Pane, &[ch('G'), key(KeyCode::End)], A::Bottom, "bottom (follow)", false),
    bind(C::Pane, &[ch('f')], A::ToggleFollow, "follow", true),
    bind(C::Pane, &[ch('t')], A::ToggleRaw, RAW_TEXT, true),
    // Everywhere.
    bind(C::Global, &[ch(' ')], A::TogglePause, "pause / go on", true).only(REPLAY),
    bind(C::Global, &[ch('+'), ch('=')], A::Faster, "faster", true).only(REPLAY),
    bind(C::Global, &[ch('-')], A::Slower, "slower", true).only(REPLAY),
    bind(C::Global, &[key(KeyCode::Tab)], A::FocusNext, "next pane", true),
    bind(C::Global, &[key(KeyCode::BackTab)], A::FocusPrev, "previous pane", false),
    bind(C::Global, &[ch('z')], A::Zoom, "zoom", true),
    bind(C::Global, &[ch('v')], A::ToggleVerdict, "verdict", false),
    bind(C::Global, &[ch('s')], A::Submit, "submit the decisions", false).only(LIVE),
    bind(C::Global, &[ch('?')], A::Help, "help", true),
    bind(C::Global, &[ch('q'), ctrl('c')], A::Quit, "quit", true),
];

/// The hint of `t` while a pane shows its cards; [`CARDS`] while it shows
/// its raw text.
pub const RAW_TEXT: &str = "raw text";
/// The hint of `t` while a pane shows its raw text.
pub const CARDS: &str = "cards";

/// The action `event` means in `context` in `mode`, if any.
pub fn lookup(context: Context, mode: Mode, event: &KeyEvent) -> Option<Action> {
    BINDINGS
        .iter()
        .filter(|binding| binding.context == context && binding.modes.contains(mode))
        .find(|binding| binding.keys.iter().any(|key| key.matches(event)))
        .map(|binding| binding.action)
}

/// Whether some key asks for `action` in `mode`: what no key offers, the
/// interface does not do.
pub fn allowed(action: Action, mode: Mode) -> bool {
    BINDINGS
        .iter()
        .any(|binding| binding.action == action && binding.modes.contains(mode))
}

/// Footer hints for the given contexts in `mode`, most specific first:
/// `(keys, hint)` pairs, deduplicated by action.
pub fn footer(contexts: &[Context], mode: Mode, hidden: &[Action]) -> Vec<(String, &'static str)> {
    let mut seen: Vec<Action> = Vec::new();
    let mut hints = Vec::new();
    for context in contexts {
        for binding in BINDINGS.iter().filter(|binding| {
            binding.context == *context && binding.footer && binding.modes.contains(mode)
        }) {
            if seen.contains(&binding.action) || hidden.contains(&binding.action) {
                continue;
            }
            seen.push(binding.action);
            hints.push((binding.keys[0].label(), binding.hint));
        }
    }
    hints
}

/// A hint in the protocol's words: the three decision keys say what the
/// protocol calls them (`deliver`, `drop`, `hold back`); every other hint
/// as it is.
pub fn worded(hint: &'static str, words: &crate::protocol::ItemWords) -> &'static str {
    match hint {
        "accept" => words.accept,
        "reject" => words.reject,
        "defer" => words.defer,
        other => other,
    }
}

/// Every binding of `mode` grouped by context, for the help overlay;
/// contexts without a key in `mode` are left out.
pub fn help_sections(mode: Mode) -> Vec<(Context, Vec<(String, &'static str)>)> {
    let order = [
        C::Global,
        C::Pane,
        C::Items,
        C::ItemDetail,
        C::Editor,
        C::Override,
        C::ChooseAgent,
        C::ConfirmRetry,
        C::ConfirmSettle,
        C::Budget,
        C::BudgetEditor,
        C::ConfirmQuit,
    ];
    order
        .iter()
        .map(|context| {
            let rows: Vec<(String, &'static str)> = BINDINGS
                .iter()
                .filter(|binding| binding.context == *context && binding.modes.contains(mode))
                .map(|binding| {
                    let keys = binding
                        .keys
                        .iter()
                        .map(Key::label)
                        .collect::<Vec<_>>()
                        .join(" / ");
                    (keys, binding.hint)
                })
                .collect();
            (*context, rows)
        })
        .filter(|(_, rows)| !rows.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn keys_resolve_per_context() {
        let a = press(KeyCode::Char('a'), KeyModifiers::NONE);
        assert_eq!(lookup(Context::Items, Mode::Live, &a), Some(Action::Accept));
        assert_eq!(lookup(Context::Pane, Mode::Live, &a), None);
        let r = press(KeyCode::Char('R'), KeyModifiers::SHIFT);
        assert_eq!(
            lookup(Context::Pane, Mode::Live, &r),
            Some(Action::RetryCall)
        );
        let ctrl_c = press(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(
            lookup(Context::Global, Mode::Live, &ctrl_c),
            Some(Action::Quit)
        );
        let plain_c = press(KeyCode::Char('c'), KeyModifiers::NONE);
        assert_eq!(lookup(Context::Global, Mode::Live, &plain_c), None);
    }

    #[test]
    fn a_replay_offers_no_key_that_changes_the_debate() {
        let changing = [
            Action::Accept,
            Action::Reject,
            Action::Defer,
            Action::Note,
            Action::Submit,
            Action::RetryCall,
            Action::SkipCall,
            Action::WaitLonger,
            Action::RerunJudge,
            Action::SwitchAgent,
            Action::Answer,
            Action::SaveText,
            Action::RaiseBudget,
            Action::GoOnce,
            Action::StopHere,
        ];
        for action in changing {
            assert!(!allowed(action, Mode::Replay), "{action:?} in a replay");
        }
        for action in [Action::Accept, Action::Reject, Action::Note] {
            assert!(allowed(action, Mode::Archive), "{action:?} settles an item");
        }
        for action in [Action::Defer, Action::Submit, Action::RetryCall] {
            assert!(
                !allowed(action, Mode::Archive),
                "{action:?} after the verdict"
            );
        }
        for action in [Action::TogglePause, Action::Faster, Action::Slower] {
            assert!(allowed(action, Mode::Replay));
            assert!(!allowed(action, Mode::Live));
        }
        let a = press(KeyCode::Char('a'), KeyModifiers::NONE);
        assert_eq!(lookup(Context::Items, Mode::Replay, &a), None);
        let space = press(KeyCode::Char(' '), KeyModifiers::NONE);
        assert_eq!(
            lookup(Context::Global, Mode::Replay, &space),
            Some(Action::TogglePause)
        );
        let plus = press(KeyCode::Char('+'), KeyModifiers::SHIFT);
        assert_eq!(
            lookup(Context::Global, Mode::Replay, &plus),
            Some(Action::Faster)
        );
    }

    #[test]
    fn no_key_means_two_things_in_one_context() {
        for (index, binding) in BINDINGS.iter().enumerate() {
            for other in &BINDINGS[index + 1..] {
                if binding.context != other.context || !binding.modes.overlaps(other.modes) {
                    continue;
                }
                for key in binding.keys {
                    assert!(
                        !other.keys.contains(key),
                        "{:?} is bound twice in {:?}",
                        key,
                        binding.context
                    );
                }
            }
        }
    }

    #[test]
    fn footer_and_help_come_from_the_table() {
        let hints = footer(&[Context::Items, Context::Global], Mode::Live, &[]);
        assert_eq!(hints[0], ("a".to_string(), "accept"));
        assert!(
            hints
                .iter()
                .any(|(key, hint)| key == "q" && *hint == "quit")
        );
        for mode in [Mode::Live, Mode::Replay, Mode::Archive] {
            let help = help_sections(mode);
            let total: usize = help.iter().map(|(_, rows)| rows.len()).sum();
            let listed = BINDINGS
                .iter()
                .filter(|binding| binding.context != Context::Help && binding.modes.contains(mode))
                .count();
            assert_eq!(total, listed, "every binding of {mode:?} is in its help");
        }
        let replay = footer(&[Context::Items, Context::Global], Mode::Replay, &[]);
        assert!(replay.iter().all(|(_, hint)| *hint != "accept"));
        assert!(
            replay
                .iter()
                .any(|(key, hint)| key == "Space" && *hint == "pause / go on")
        );
    }
}
