//! Protocol state machines: every rule of a debate, and nothing else.
//!
//! A protocol is a deterministic, sans-IO state machine in the manner of
//! quinn-proto: it is fed [`Input`]s (an agent finished with this text, a call
//! failed, the moderator decided an item) together with the time they happened,
//! and answers with [`Effect`]s (start this call, cancel that one, ask the
//! moderator, the debate is over). It never touches a file, a socket, a clock
//! or tokio; the engine does all of that and journals every input before the
//! protocol sees it, so folding a journal back through a protocol rebuilds the
//! exact state.
//!
//! What a protocol is not responsible for: timing calls out (the engine arms the
//! timer and reports [`CallFailure::TimedOut`]), writing files (it only says what
//! the documents contain, through [`Protocol::documents`]), or drawing anything.

pub mod decision_record;
pub mod decision_review;
pub mod supervision;
pub mod usage;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::agent::{CallRequest, Usage};
use crate::model::{ItemDecision, Verdict};

/// Wall-clock time as the engine saw it; passed in, never read.
pub type Timestamp = DateTime<Utc>;

/// Everything that can change a debate. Journaled before it is applied.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Input {
    /// A call finished with `output`, its answer verbatim: journaled first,
    /// then (for calls with a raw-output file) written to that file and read
    /// back unchanged, and only then parsed.
    CallFinished {
        call_id: String,
        output: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
        /// `usage` is quorum's estimate, not the provider's count.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        usage_estimated: bool,
        /// Time from the start of the call to its first answer text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ttft_ms: Option<u64>,
        elapsed_ms: u64,
    },
    /// What a provider said about a call besides its answer (a local
    /// program's stderr), journaled just before the call's result.
    CallDiagnostic { call_id: String, text: String },
    /// A call ended without an answer.
    CallFailed {
        call_id: String,
        failure: CallFailure,
        /// How much text had streamed before it failed.
        partial_chars: usize,
        elapsed_ms: u64,
    },
    /// The moderator decided one critique item (may be changed until submitted).
    ItemDecided {
        item_id: String,
        decision: ItemDecision,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// The moderator is done with the items; the revision may start.
    ModerationSubmitted,
    /// The moderator gave a role to another agent (`provider:model`); the
    /// role's next call goes to it.
    AgentSwitched {
        role: String,
        agent: String,
        /// The new agent's configured price, so its calls are costed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        price: Option<usage::Price>,
    },
    /// The moderator overrides the automatic supervision of a call.
    Override {
        call_id: String,
        action: OverrideAction,
    },
    /// After the verdict, someone settled an item that was deferred during
    /// moderation: accepted (the proposal must now address it) or rejected.
    ItemResolved {
        item_id: String,
        decision: ItemDecision,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// A finished debate goes back to revision for the items accepted after
    /// its verdict, then is judged again (`quorum resume --reopen`).
    Reopened,
}

/// Why a call produced no answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CallFailure {
    /// No complete answer before the role's deadline.
    TimedOut { after_ms: u64 },
    /// The provider reported an error.
    Error { message: String },
}

/// A moderator's override of a call (RULES.md preamble: overrides win over the
/// automatic rule, and are journaled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverrideAction {
    /// Cancel the running attempt and start a fresh one with the same prompt.
    RetryNow,
    /// Cancel the call and go on without it.
    Skip,
    /// Run a malformed or skipped judge again, with the same prompt, while
    /// its round is still open.
    Rerun,
    /// Keep the running attempt and push its deadline back by `extra_ms`
    /// (the engine owns the timer; the protocol records the decision).
    WaitLonger { extra_ms: u64 },
}

/// One call the engine must start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSpec {
    pub request: CallRequest,
    /// Where the engine writes the raw answer, verbatim and fsynced, before
    /// the protocol sees it (persist-on-collect). Relative to the run folder.
    pub raw_output_path: Option<String>,
}

/// What the protocol asks the engine to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    StartCall(CallSpec),
    CancelCall {
        call_id: String,
    },
    /// Every item needs an accept / reject / defer before the run goes on.
    AwaitModeration {
        items: Vec<ModerationItem>,
    },
    Finished(Outcome),
}

/// Something the moderator accepts, rejects or defers: a critique item of a
/// decision review, and in other protocols a planning challenge or a
/// challenged finding. Protocol-neutral, so every interface shows it alike.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModerationItem {
    pub id: String,
    /// What the item is about: a block id, a finding id, a plan section.
    pub target: String,
    /// The protocol's own severity word (`major`, `HIGH`, ...).
    pub severity: String,
    /// The protocol's own kind of item (`assumption`, `security`, ...).
    pub category: String,
    /// The item itself.
    pub text: String,
    /// What the author conceded first, such as a steelman; may be empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preface: String,
}

/// How a debate ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// A verdict was derived from the scores.
    Decided { verdict: Verdict, rule: String },
    /// A required agent could not produce usable output; no verdict exists.
    Failed { reason: String },
}

impl Outcome {
    /// The process exit code for this outcome (see the README).
    pub fn exit_code(&self) -> i32 {
        match self {
            Outcome::Decided { verdict, .. } => verdict_exit_code(*verdict),
            Outcome::Failed { .. } => 1,
        }
    }
}

/// Exit codes: 0 ADOPT, 3 REVISE, 4 REJECT, 5 ESCALATE (1 failure, 2 usage).
pub fn verdict_exit_code(verdict: Verdict) -> i32 {
    match verdict {
        Verdict::Adopt => 0,
        Verdict::Revise => 3,
        Verdict::Reject => 4,
        Verdict::Escalate => 5,
    }
}

/// One line of the human-readable record (`transcript.md`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogEntry {
    pub at: Timestamp,
    pub kind: LogKind,
    /// The call this entry is about, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    pub message: String,
}

/// What a log entry records; supervision events are called out (INF-17).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogKind {
    Stage,
    CallStarted,
    CallFinished,
    Timeout,
    Cancel,
    Retry,
    Skip,
    Failure,
    Malformed,
    Moderation,
    Override,
    Verdict,
    Note,
}

impl LogKind {
    pub fn label(self) -> &'static str {
        match self {
            LogKind::Stage => "stage",
            LogKind::CallStarted => "call",
            LogKind::CallFinished => "done",
            LogKind::Timeout => "TIMEOUT",
            LogKind::Cancel => "CANCEL",
            LogKind::Retry => "RETRY",
            LogKind::Skip => "SKIP",
            LogKind::Failure => "FAILURE",
            LogKind::Malformed => "MALFORMED",
            LogKind::Moderation => "moderator",
            LogKind::Override => "OVERRIDE",
            LogKind::Verdict => "verdict",
            LogKind::Note => "note",
        }
    }
}

/// A file of the artifact tree, as the protocol would have it now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    /// Relative to the run folder, e.g. `judges/judge-analyst-round-2.md`.
    pub path: String,
    pub contents: String,
}

/// Where a debate stands, for progress display.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    pub stage: String,
    pub round: u32,
    pub finished: bool,
}

/// What the interfaces show of a debate right now, in protocol-neutral
/// terms: the stage strip, the scoreboard of the current evaluation round and
/// the moderation items with their decisions. Derived from the protocol's
/// state, so a resumed or replayed debate shows the same board.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Board {
    /// The protocol's stages in order, e.g. `proposal`, `critique`, ...
    pub stages: Vec<String>,
    pub scoreboard: Option<Scoreboard>,
    pub items: Vec<BoardItem>,
    /// The moderator's decisions are needed before the debate can go on.
    pub needs_moderator: bool,
    /// Calls of judges a held round waits on: re-run them or go on
    /// without them. Empty when the wait is for the items.
    pub held_calls: Vec<String>,
    /// Role slots the debate cannot go on without: skipping one ends it.
    pub required_roles: Vec<String>,
    /// The debate has a verdict and deferred items that can still be
    /// accepted or rejected ([`Input::ItemResolved`]).
    pub resolvable: bool,
    /// Items accepted after the verdict wait for another round
    /// ([`Protocol::reopen_pending`]).
    pub reopen_pending: bool,
}

/// One moderation item and what the moderator made of it so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardItem {
    pub item: ModerationItem,
    pub decision: Option<ItemDecision>,
    pub note: Option<String>,
    /// How a deferred item was settled after the verdict, if it was.
    pub resolution: Option<ItemResolution>,
}

/// How a deferred item was settled after the verdict ([`Input::ItemResolved`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemResolution {
    /// Accept or reject; a resolution never defers again.
    pub decision: ItemDecision,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub at: Timestamp,
}

/// Blocks × criteria × judges of one evaluation round.
#[derive(Clone, Debug, PartialEq)]
pub struct Scoreboard {
    pub round: u32,
    pub blocks: Vec<String>,
    pub judges: Vec<ScoreColumn>,
    /// A binding judge's score below this fails the proposal.
    pub binding_threshold: u8,
    /// The verdict the scores so far imply, with the rule that decides it.
    pub implied: Option<ImpliedVerdict>,
}

/// One judge's column group on the scoreboard.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreColumn {
    pub judge: String,
    pub binding: bool,
    pub criteria: Vec<String>,
    pub state: JudgeState,
    /// `scores[block][criterion]`, in the order of `blocks` and `criteria`.
    pub scores: Vec<Vec<Option<u8>>>,
    /// Mean of the three synthesis values, once scored.
    pub synthesis: Option<f64>,
}

/// Where a judge is in the current round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JudgeState {
    Pending,
    Scored,
    Malformed(String),
    Skipped(String),
}

/// The verdict the scores imply before every judge is in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImpliedVerdict {
    pub verdict: Verdict,
    pub rule: String,
    /// Judges still working; the verdict can change until this is 0.
    pub pending: usize,
}

/// The interface every protocol family shares with the engine, the journal
/// and the user interfaces.
pub trait Protocol: Send {
    /// The first effects of a new debate.
    fn start(&mut self, now: Timestamp) -> Vec<Effect>;

    /// Applies one journaled input.
    fn handle(&mut self, input: &Input, now: Timestamp) -> Vec<Effect>;

    fn progress(&self) -> Progress;

    /// The human-readable record so far, oldest first.
    fn log(&self) -> &[LogEntry];

    /// The artifact files as they should read now.
    fn documents(&self) -> Vec<Document>;

    fn outcome(&self) -> Option<&Outcome>;

    /// Token, latency and cost figures of the finished calls, for protocols
    /// that keep them.
    fn usage(&self) -> Option<&usage::UsageLedger> {
        None
    }

    /// What the interfaces show; protocols without a scoreboard or items
    /// keep the default.
    fn board(&self) -> Board {
        Board::default()
    }

    /// Items the moderator deferred that nobody has settled since, in the
    /// order they were raised.
    fn open_items(&self) -> Vec<ModerationItem> {
        Vec::new()
    }

    /// Items accepted after the verdict wait for another revision and
    /// evaluation round, which [`Input::Reopened`] starts.
    fn reopen_pending(&self) -> bool {
        false
    }

    /// Checks an answer typed by a person playing `call_id`'s role before it
    /// is accepted as that call's output; the error says what to fix.
    fn check_answer(&self, call_id: &str, answer: &str) -> Result<(), String> {
        let _ = (call_id, answer);
        Ok(())
    }

    /// A skeleton of the answer `call_id` expects, for a person to fill in.
    fn answer_template(&self, call_id: &str) -> Option<String> {
        let _ = call_id;
        None
    }
}
