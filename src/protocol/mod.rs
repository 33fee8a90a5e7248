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
//! This module is the core every protocol family shares and the rest of the
//! program meets protocols through: the [`Protocol`] trait, its inputs and
//! effects, the roles and stages a protocol describes ([`Description`],
//! [`StageInfo`]), the board the interfaces draw ([`Board`], [`BoardView`]),
//! and how a debate ends ([`Outcome`], one verdict vocabulary with one
//! exit-code table). The call plumbing every protocol needs (finished and
//! failed calls, usage, retries, overrides, agent switches) is shared in
//! [`calls`], and a protocol implements only the narrow [`Rules`] of its own
//! decisions: the [`debate`] skeleton makes every [`Rules`] a [`Protocol`],
//! routing inputs through that plumbing once for all. The [`registry`] maps a spec's `protocol:` to its
//! implementation. Each protocol lives in its own folder.
//!
//! What a protocol is not responsible for: timing calls out (the engine arms the
//! timer and reports [`CallFailure::TimedOut`]), writing files (it only says what
//! the documents contain, through [`Protocol::documents`]), or drawing anything.

pub mod board;
pub mod budget;
pub mod calls;
pub mod council;
pub mod debate;
pub mod decision_review;
pub mod documents;
pub mod evidence;
pub mod fairness;
pub mod handoff;
pub mod items;
pub mod judges;
pub mod kind;
pub mod moderated;
pub mod outcome;
pub mod payoff;
pub mod plan;
pub mod probe;
pub mod quick;
pub mod rca;
pub mod reading;
pub mod record;
pub mod registry;
pub mod roster;
pub mod ruler;
pub mod stability;
pub mod supervision;
pub mod unread;
pub mod usage;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::agent::{CallRequest, Usage};

pub use board::{
    Board, BoardItem, BoardView, ChangedPart, Fact, ImpliedVerdict, ItemResolution, JudgeState,
    MarkedChange, RevisionView, Ruling, ScoreColumn, Scoreboard,
};
pub use calls::Answer;
pub use debate::{
    DebateCore, GivenUp, ItemRules, Lends, Moderation, Refusals, Rules, Settled, SharedSteps,
    Stage, parses,
};
pub use outcome::{
    EXIT_BUDGET, EXIT_CODE_TABLE, EXIT_FAILED, EXIT_PROBE_FLOOR, EXIT_USAGE, ItemDecision,
    ItemWords, Outcome, Tone, Verdict,
};
pub use reading::{ByItem, ItemReading};
pub use ruler::{Ruler, RulingPolicy};
pub use unread::Unread;

/// Who plays each role of a debate, at what configured price, since when,
/// and whether a person moderates it: the part of every protocol's
/// configuration that comes from the command line rather than from its
/// options. A configuration holds it flattened, so the journal's first
/// line keeps the keys it always had (`agents`, `prices`, `started_at`,
/// `hold_for_moderator`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Seating {
    /// Who plays each role slot, as `provider:model`.
    pub agents: std::collections::BTreeMap<String, String>,
    /// The configured price of each participating `provider:model` that has one.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub prices: std::collections::BTreeMap<String, usage::Price>,
    pub started_at: Timestamp,
    /// A person moderates live: a held round waits for them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hold_for_moderator: bool,
    /// Blind judging, each judge's order and the families of the roles
    /// (issue 29); absent from a debate journaled before it.
    #[serde(default, skip_serializing_if = "fairness::Fairness::is_legacy")]
    pub fairness: fairness::Fairness,
    /// Which of quorum's rules the debate runs under ([`Edition`]);
    /// absent from a debate journaled before the rules changed.
    #[serde(default, skip_serializing_if = "Edition::is_first")]
    pub edition: Edition,
    /// What the agents may cite, each with its hash at the start (issue
    /// 52): the context files and logs read from disk, and a source tree.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<crate::evidence::SourceRecord>,
}

/// Which of quorum's rules a debate was started under. A journal folds as
/// it ran: a rule that changes what a debate concludes applies from the
/// edition that brought it, so a debate journaled before it resumes,
/// replays and recomputes with the rules it ran under.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Edition(pub u32);

impl Edition {
    /// The rules as first written.
    pub const FIRST: Edition = Edition(0);
    /// Conclusions no stronger than their rules (issue 60): a council's
    /// count that adds up, its quorum of usable answers and its findings
    /// confirmed on evidence; a root cause proven only with every rival
    /// ruled out; a plan's assumption verified only with evidence.
    pub const CONCLUSIONS: Edition = Edition(1);
    /// Conclusions no stronger than verified evidence (issue 52): a root
    /// cause, a council's severe finding and a review's ADOPT never rest
    /// on a citation quorum found wanting.
    pub const EVIDENCE: Edition = Edition(2);
    /// A verdict beside what a plain vote would have said (issue 55): a
    /// council's record and summary say whether the debate paid.
    pub const PAYOFF: Edition = Edition(3);
    /// What a new debate runs under.
    pub const CURRENT: Edition = Edition::PAYOFF;

    /// Whether a debate of this edition follows the rules `since` brought.
    pub fn follows(self, since: Edition) -> bool {
        self >= since
    }

    pub fn is_first(&self) -> bool {
        *self == Edition::FIRST
    }
}

impl Seating {
    /// The call plumbing of a debate seated so.
    pub fn calls(&self) -> calls::Calls {
        calls::Calls::new(self.agents.clone(), self.prices.clone())
    }

    /// The sources of a debate seated so, with `context` among them; inert
    /// for a debate started before citations were checked (issue 52).
    pub fn evidence(&self, context: &[ContextDoc]) -> evidence::Evidence {
        let active = self.edition.follows(Edition::EVIDENCE);
        evidence::Evidence::open(context, &self.sources, active)
    }
}

/// A document the user attached as context, given to the agents whose
/// prompts take context.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextDoc {
    pub name: String,
    pub text: String,
}

/// Wall-clock time as the engine saw it; passed in, never read.
pub type Timestamp = DateTime<Utc>;

/// Everything that can change a debate. Journaled before it is applied.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Input {
    /// A call finished with `output`, its answer verbatim: journaled first,
    /// then (for calls with a raw-output file) written to that file and read
    /// back unchanged, and only then parsed.
    CallFinished {
        call_id: String,
        output: String,
        usage: Option<Usage>,
        /// `usage` is quorum's estimate, not the provider's count.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        usage_estimated: bool,
        /// Time from the start of the call to its first answer text.
        ttft_ms: Option<u64>,
        elapsed_ms: u64,
    },
    /// What a provider said about a call besides its answer (a local
    /// program's stderr), journaled just before the call's result.
    CallDiagnostic { call_id: String, text: String },
    /// The transport of a live call is sending its request again after a
    /// failure worth another attempt: retry `retry` of `of`, after
    /// `reason`, in `wait_ms`.
    CallRetrying {
        call_id: String,
        retry: u32,
        of: u32,
        reason: String,
        wait_ms: u64,
    },
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
        note: Option<String>,
        /// Who ruled (issue 55); absent in a debate journaled before it
        /// was recorded.
        #[serde(default)]
        ruler: Option<Ruler>,
    },
    /// The moderator is done with the items; the revision may start.
    ModerationSubmitted,
    /// The moderator gave a role to another agent (`provider:model`); the
    /// role's next call goes to it.
    AgentSwitched {
        role: String,
        agent: String,
        /// The new agent's configured price, so its calls are costed.
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
        note: Option<String>,
        /// Who settled it (issue 55); absent in a debate journaled before
        /// it was recorded.
        #[serde(default)]
        ruler: Option<Ruler>,
    },
    /// A finished debate goes back to revision for the items accepted after
    /// its verdict, then is judged again (`quorum resume --reopen`).
    Reopened,
    /// The run was interrupted and is picked up again here; `restarted`
    /// are the calls that had not finished and start again. Given to the
    /// protocol so its log (and so `transcript.md`) says where the record
    /// has a gap; journaled as its own record, never as an input.
    #[serde(skip)]
    Resumed { restarted: Vec<String> },
}

/// Why a call produced no answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CallFailure {
    /// No complete answer before the role's deadline.
    TimedOut {
        after_ms: u64,
        /// The `script` provider was told to time out here (a reply's
        /// `fault: timeout`): a staged fault, not a real one. Never set for
        /// any other provider.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        staged: bool,
    },
    /// The provider reported an error.
    Error { message: String },
    /// The provider refused the request itself (HTTP 401 or 403: the key,
    /// or a permission): the identical request cannot succeed, so it is
    /// not asked again.
    Refused { message: String },
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
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModerationItem {
    pub id: String,
    /// What the item is about: a block id, a finding id; empty for an item
    /// about the whole text (a plan's challenge).
    pub target: String,
    /// The target itself as the protocol read it, its keys as YAML (`id:
    /// b2`, `type:`, `text:` …), for the moderator to read beside the item;
    /// empty when the target is the whole text or has no entry of its own.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub target_text: String,
    /// Who raised it, where the id does not say and the moderator should
    /// know (a plan's `critic` or `optimizer`); may be empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub raised_by: String,
    /// The protocol's own severity word (`major`, `HIGH`, ...).
    pub severity: String,
    /// The protocol's own kind of item (`assumption`, `security`, ...).
    pub category: String,
    /// The item itself.
    pub text: String,
    /// What the author conceded first, such as a steelman; may be empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preface: String,
    /// What a participant proposes the moderator decide (a planner's
    /// response), shown beside the item; the moderator confirms or
    /// overrides it.
    pub suggestion: Option<Suggestion>,
}

/// A participant's proposed decision on a moderation item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    pub decision: ItemDecision,
    /// Who proposes it: `planner`.
    pub by: String,
    /// Why: the change it makes, its reasoning, what the user must decide.
    pub reason: String,
}

impl ModerationItem {
    /// `c3 on b2`, `C1 from the critic` for an item about the whole text,
    /// or just `v1`.
    pub fn heading(&self) -> String {
        match self.about() {
            about if about.is_empty() => self.id.clone(),
            about if self.target.is_empty() => format!("{} {about}", self.id),
            about => format!("{} on {about}", self.id),
        }
    }

    /// What a board's column about the item shows: its target (`b2`), or
    /// who raised an item about the whole text (`from the critic`).
    pub fn about(&self) -> String {
        match (self.target.is_empty(), self.raised_by.is_empty()) {
            (false, _) => self.target.clone(),
            (true, false) => format!("from the {}", self.raised_by),
            (true, true) => String::new(),
        }
    }
}

/// One line of the human-readable record (`transcript.md`).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogEntry {
    pub at: Timestamp,
    pub kind: LogKind,
    /// The call this entry is about, if any.
    pub call_id: Option<String>,
    pub message: String,
    /// Lines that go with the message where there is room for them: each
    /// citation of an answer with its check ([`LogKind::Cited`]), shown in
    /// the answer's pane under it. The transcript keeps the message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
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
    /// Items of an answer that could not be read, asked about or left out
    /// (issue 59): the answer itself was read.
    LeftOut,
    /// What an answer cited, checked against the debate's sources (issue
    /// 52): a tally, with each citation in [`LogEntry::details`].
    Cited,
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
            LogKind::LeftOut => "LEFT OUT",
            LogKind::Cited => "cited",
            LogKind::Moderation => "moderator",
            LogKind::Override => "OVERRIDE",
            LogKind::Verdict => "verdict",
            LogKind::Note => "note",
        }
    }
}

/// A file of the artifact tree quorum writes for people, as the protocol
/// would have it now. An agent's answer is not one: the engine writes it to
/// its file as it came ([`AnswerFile`] says when that file must hold
/// something else).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    /// Relative to the run folder, e.g. `transcript.md`.
    pub path: String,
    pub contents: String,
}

impl Document {
    pub fn new(path: impl Into<String>, contents: impl Into<String>) -> Self {
        Document {
            path: path.into(),
            contents: contents.into(),
        }
    }

    /// What goes to disk: a Markdown document without anything that could
    /// act on a terminal (so `cat summary.md` is safe), its fenced raw
    /// sections left as they are; any other file as it is.
    pub fn for_disk(&self) -> std::borrow::Cow<'_, str> {
        if self.path.ends_with(".md") {
            std::borrow::Cow::Owned(crate::text::for_markdown(&self.contents))
        } else {
            std::borrow::Cow::Borrowed(&self.contents)
        }
    }
}

/// An answer's file that is to hold something other than the last answer
/// the engine wrote to it when that answer came: a fact about the answer,
/// which the engine turns into the file (one way for every protocol).
///
/// - An answer that could not be used, kept out of the debate: its file
///   starts with the MALFORMED marker ([`AnswerFile::for_disk`]).
/// - An answer a re-run replaced, kept in a file of its own.
/// - The first answer of a call whose repair read worse: the call's file
///   holds the answer that was read, not the repair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnswerFile {
    /// Relative to the run folder, e.g. `judges/judge-analyst-round-2.md`.
    pub path: String,
    /// The answer as it came, byte for byte.
    pub answer: String,
    /// Why the answer could not be used, when it could not.
    pub unusable: Option<String>,
}

impl AnswerFile {
    /// The file holds `answer`, which was read.
    pub fn kept(path: impl Into<String>, answer: impl Into<String>) -> Self {
        AnswerFile {
            path: path.into(),
            answer: answer.into(),
            unusable: None,
        }
    }

    /// The file holds `answer`, which could not be used: `reason` says why.
    pub fn unusable(
        path: impl Into<String>,
        answer: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        AnswerFile {
            unusable: Some(reason.into()),
            ..AnswerFile::kept(path, answer)
        }
    }

    /// The file's bytes: the answer as it came, after the marker
    /// (`<!-- MALFORMED: reason -->` on a line of its own) when it could
    /// not be used. The reason is one line, with nothing that acts on a
    /// terminal and no `--` that would end the comment early.
    pub fn for_disk(&self) -> std::borrow::Cow<'_, str> {
        match &self.unusable {
            None => std::borrow::Cow::Borrowed(&self.answer),
            Some(reason) => std::borrow::Cow::Owned(format!(
                "{MALFORMED_MARK} {} -->\n{}",
                crate::text::sanitize(&crate::words::one_line(reason)).replace("--", "- -"),
                self.answer
            )),
        }
    }

    /// The reason in the marker `file` starts with, and the answer after
    /// it; `None` when `file` holds an answer that was used.
    pub fn read_mark(file: &str) -> Option<(String, &str)> {
        let rest = file.strip_prefix(MALFORMED_MARK)?;
        let (line, answer) = rest.split_once('\n').unwrap_or((rest, ""));
        let reason = line.trim_end().trim_end_matches("-->").trim();
        Some((reason.to_string(), answer))
    }
}

/// How the file of an answer that could not be used begins.
const MALFORMED_MARK: &str = "<!-- MALFORMED:";

/// A file a protocol delivers outside its run folder once it has ended
/// (a council's deliverable pair under `.outputs/debate/`, a plan's files
/// under `--write-docs DIR`): an absolute path the protocol derived from
/// its journaled definition, never from an agent's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Publication {
    pub path: std::path::PathBuf,
    /// The whole file, or for an [`entry`](Self::entry) the file as first
    /// written, when there is none yet.
    pub contents: String,
    /// The folder the person chose for it: the file lands below it and
    /// through no symbolic link, or not at all. `None`: only the file's
    /// own folder is checked.
    pub within: Option<std::path::PathBuf>,
    /// One entry of an index the file gathers (a plan's line in
    /// `docs/plans/README.md`): on a file already there, only this lands.
    pub entry: Option<IndexEntry>,
}

/// A line of an index file that belongs to one publication: the line that
/// holds `key` is replaced by `line`, or `line` is appended; every other
/// line stays as it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    pub key: String,
    pub line: String,
}

impl Publication {
    /// A whole file at `path`.
    pub fn whole(path: std::path::PathBuf, contents: String) -> Self {
        Publication {
            path,
            contents,
            within: None,
            entry: None,
        }
    }

    /// What the file holds once this lands on `existing` (what is there
    /// now, if anything).
    pub fn landed(&self, existing: Option<&str>) -> String {
        let (Some(entry), Some(existing)) = (&self.entry, existing) else {
            return self.contents.clone();
        };
        let mut replaced = false;
        let mut lines: Vec<&str> = Vec::new();
        for line in existing.lines() {
            if line.contains(&entry.key) {
                if !replaced {
                    lines.push(&entry.line);
                    replaced = true;
                }
            } else {
                lines.push(line);
            }
        }
        if !replaced {
            while lines.last().is_some_and(|line| line.trim().is_empty()) {
                lines.pop();
            }
            lines.push(&entry.line);
        }
        let mut text = lines.join("\n");
        text.push('\n');
        text
    }
}

/// Where a debate stands, for progress display. `Default` is a debate
/// that has not started: a new field gets a default, not an edit in every
/// protocol.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    pub stage: String,
    /// The round of a protocol that loops (a decision review's REVISE);
    /// 0 for one that runs no rounds.
    pub round: u32,
    /// The last round it may run, when it has a fixed limit (a root-cause
    /// analysis's five); 0 when it has none to show.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub max_round: u32,
    /// Calls made so far and the most it may make, for a protocol that
    /// runs on a budget (a council).
    pub budget: Option<(u32, u32)>,
    pub finished: bool,
}

/// Where a role sits in a debate: the interfaces lay panes out and colour
/// them by group, never by a role's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoleGroup {
    /// Puts the case forward: a proposer, a planner, a debugger.
    Lead,
    /// Attacks it: a critic, a devil's advocate.
    Challenger,
    /// Weighs it independently: judges, reviewers, domain experts.
    Panel,
    /// Turns the raw answers into the reader's deliverable.
    Synthesizer,
}

/// One role slot of a debate, as the interfaces introduce it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleInfo {
    /// The slot name calls and `--agent` use: `proposer`, `judge.analyst`.
    pub slot: String,
    /// How a pane is titled: `Proposer`, `Analyst`.
    pub title: String,
    pub group: RoleGroup,
    /// `provider:model` playing it now.
    pub agent: String,
    /// Its judgement decides on its own (a binding judge).
    pub binding: bool,
    /// How it judges fairly, in a word or two each for its pane's title
    /// (`blind`, `own order`, `≈ anthropic`, `recused`); empty when the
    /// debate does not judge fairly.
    pub marks: Vec<String>,
}

impl RoleInfo {
    /// A role slot played by `agent`, not binding.
    pub fn new(
        slot: impl Into<String>,
        title: impl Into<String>,
        group: RoleGroup,
        agent: impl Into<String>,
    ) -> Self {
        RoleInfo {
            slot: slot.into(),
            title: title.into(),
            group,
            agent: agent.into(),
            binding: false,
            marks: Vec::new(),
        }
    }

    /// The same role with the marks of how it judges fairly.
    pub fn marked(self, marks: Vec<String>) -> Self {
        RoleInfo { marks, ..self }
    }

    /// The same role, binding as `binding` says (a binding judge).
    pub fn binding(self, binding: bool) -> Self {
        RoleInfo { binding, ..self }
    }
}

/// What a protocol tells the outside about one debate: enough for a header,
/// panes, a listing and the end-of-run message, in protocol-neutral terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Description {
    /// The question, position, target or goal under debate.
    pub topic: String,
    /// `decision review · architecture · generous-steelman critique`.
    pub label: String,
    /// Every role slot, in the order panes are laid out within a group.
    pub roles: Vec<RoleInfo>,
    /// The reader-first deliverable, relative to the run folder
    /// (`summary.md`, `panel-review.md`): the end-of-run message is its
    /// opening (RF-07).
    pub deliverable: String,
    /// The moderator's items: what they are called (`Critique items`,
    /// `Vulnerabilities`) and what the region says before there are any;
    /// `None` when the protocol raises none.
    pub items: Option<RegionInfo>,
    /// The board region, when the protocol has a board view: its name and
    /// what it says before the view has anything (`None`: no board region).
    pub board: Option<RegionInfo>,
    /// One paragraph on how this protocol runs, for the help overlay.
    pub about: String,
    /// One sentence under the result: where it comes from.
    pub ending_note: String,
}

/// A region the protocol names: its title, and what it says before it has
/// anything to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionInfo {
    /// `Scores`, `Critique items`.
    pub title: String,
    /// `Scores appear here as each judge's answer is parsed.`
    pub placeholder: String,
}

/// What a stage wants in front of the person while it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StageFocus {
    /// The pane of this role slot.
    Role(String),
    /// The moderator's items.
    Items,
    /// The board view.
    Board,
    /// Leave the focus where it is.
    Stay,
}

/// One stage of a protocol, for the stage strip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageInfo {
    /// What [`Progress::stage`] says while it runs: `critique`.
    pub id: String,
    /// How the strip shows it: `Critique`.
    pub title: String,
    pub focus: StageFocus,
}

impl StageInfo {
    pub fn new(id: &str, title: &str, focus: StageFocus) -> Self {
        StageInfo {
            id: id.to_string(),
            title: title.to_string(),
            focus,
        }
    }
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

/// The questions anyone may ask a debate without changing it, answered
/// the same whether they are asked of the [`Protocol`] or of its
/// [`Rules`]: both build on this one trait, so the skeleton forwards none of
/// them and no forward can leave one out.
pub trait Questions {
    /// The topic, the roles with who plays them now, the deliverable.
    fn describe(&self) -> Description;

    /// The opening of the reader deliverable, word for word: what the end of
    /// a run prints (RF-07..RF-09). `None` until the debate has ended.
    fn summary_lead(&self) -> Option<String>;

    /// What this protocol calls the moderator's decisions (issue 26).
    fn item_words(&self) -> ItemWords {
        ItemWords::default()
    }

    /// Items the moderator deferred that nobody has settled since, in the
    /// order they were raised.
    fn open_items(&self) -> Vec<ModerationItem> {
        Vec::new()
    }

    /// What the debate leaves to find out, one line each (a planning
    /// debate's unverified assumptions): shown at the end and by
    /// `quorum open`.
    fn open_questions(&self) -> Vec<String> {
        Vec::new()
    }

    /// Each part of what the debate proposed, as it was and as it ended,
    /// with what changed it (`quorum report`'s proposal → revision
    /// section); empty for a protocol that revises no text.
    fn changes(&self) -> Vec<ChangedPart> {
        Vec::new()
    }

    /// What this debate hands to the next (`--from DIR`): a council's
    /// confirmed and disputed findings, a proven cause, a recommendation;
    /// `None` for a protocol with nothing to hand on, or before its end.
    fn handoff(&self) -> Option<handoff::Handoff> {
        None
    }

    /// Items accepted after the verdict wait for another revision and
    /// evaluation round, which [`Input::Reopened`] starts.
    fn reopen_pending(&self) -> bool {
        false
    }
}

/// The interface every protocol family shares with the engine, the journal
/// and the user interfaces.
pub trait Protocol: Send + Questions {
    /// The first effects of a new debate.
    fn start(&mut self, now: Timestamp) -> Vec<Effect>;

    /// Applies one journaled input.
    fn handle(&mut self, input: &Input, now: Timestamp) -> Vec<Effect>;

    fn progress(&self) -> Progress;

    /// The human-readable record so far, oldest first.
    fn log(&self) -> &[LogEntry];

    /// Hands the artifact files to `out` as they should read now, each
    /// with what it is rendered from: `out` renders only those whose inputs
    /// changed since it last saw them ([`documents::Documents`]).
    fn render_documents(&self, out: &mut documents::Documents<'_>);

    /// The artifact files as they should read now, every one rendered.
    fn documents(&self) -> Vec<Document> {
        let mut out = documents::Documents::all();
        self.render_documents(&mut out);
        out.into_documents()
    }

    /// The answers' files that are to hold something other than the answer
    /// written to them when it came (see [`AnswerFile`]).
    fn answer_files(&self) -> Vec<AnswerFile> {
        Vec::new()
    }

    /// Files delivered outside the run folder once the debate has ended.
    fn publications(&self) -> Vec<Publication> {
        Vec::new()
    }

    fn outcome(&self) -> Option<&Outcome>;

    /// Token, latency and cost figures of the finished calls.
    fn usage(&self) -> Option<&usage::UsageLedger> {
        None
    }

    /// One line on what the debate cost (tokens, money, time), as the end of
    /// a run prints it; `None` before any call finished.
    fn usage_line(&self) -> Option<String> {
        let ledger = self.usage()?;
        crate::protocol::record::usage_line(ledger, usage::calls_time_ms(self.log(), ledger))
    }

    /// Did the debate pay (issue 55): the plain vote of the panel's first
    /// round beside the verdict, the positions that changed after it and
    /// what they cost; none for a protocol whose panel decides no verdict
    /// by scores or votes, or before the verdict.
    fn payoff(&self) -> Option<payoff::Payoff> {
        None
    }

    /// Protocol-specific fields of a run's `--json` result (the decision
    /// record of a decision review, say), merged into the common ones.
    fn result_fields(&self) -> serde_json::Map<String, serde_json::Value> {
        serde_json::Map::new()
    }

    /// What the interfaces show; protocols without a board view or items
    /// keep the default.
    fn board(&self) -> Board {
        Board::default()
    }

    /// Why settling `item_id` with `decision` after the verdict would be
    /// refused, or `None` when [`Input::ItemResolved`] would apply it.
    fn resolution_refusal(&self, item_id: &str, decision: ItemDecision) -> Option<String> {
        let _ = (item_id, decision);
        Some("this debate has no deferred items to settle".into())
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

    /// What could not be read of the answers the debate went on with, and
    /// what leaving it out changed (issue 59), oldest first.
    fn unread(&self) -> Vec<Unread> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seating is flattened into a configuration: the journal's first
    /// line keeps the keys each protocol spelled out before it was shared,
    /// and a definition written then reads now.
    #[test]
    fn a_seating_is_written_as_the_top_level_keys_it_always_was() {
        let config = plan::PlanConfig {
            topic: "Export".into(),
            context: Vec::new(),
            simple: false,
            seating: Seating {
                agents: [("planner".to_string(), "script:a".to_string())].into(),
                hold_for_moderator: true,
                ..Seating::default()
            },
            checks_rulings: true,
            docs: None,
        };
        let json = serde_json::to_value(&config).unwrap();
        let mut keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        let written = [
            "agents",
            "checks_rulings",
            "context",
            "hold_for_moderator",
            "started_at",
            "topic",
        ];
        assert_eq!(keys, written, "no `seating` key, no empty `prices`");
        let old = r#"{"topic":"Export","context":[],"agents":{"planner":"script:a"},
            "started_at":"1970-01-01T00:00:00Z","hold_for_moderator":true,"checks_rulings":true}"#;
        let read: plan::PlanConfig = serde_json::from_str(old).unwrap();
        assert_eq!(read, config);
    }

    /// Issue 63: an answer that could not be used is marked one way, by
    /// one function, whichever protocol kept it: the reason on one line,
    /// with nothing that acts on a terminal and no `--` to end the comment
    /// early, then the answer byte for byte. A record reader gets both back.
    #[test]
    fn an_unusable_answer_is_marked_one_way_and_read_back() {
        let file = AnswerFile::unusable(
            "judges/judge-analyst.md",
            "scores:\n  - \u{1b}]0;x\u{7} 5\n",
            "no scores\n-- given \u{1b}[31mhere",
        );
        let disk = file.for_disk();
        assert_eq!(
            disk,
            "<!-- MALFORMED: no scores - - given here -->\nscores:\n  - \u{1b}]0;x\u{7} 5\n"
        );
        let (reason, answer) = AnswerFile::read_mark(&disk).unwrap();
        assert_eq!(reason, "no scores - - given here");
        assert_eq!(answer, file.answer);
        let kept = AnswerFile::kept("critique.md", "as it came");
        assert_eq!(kept.for_disk(), "as it came");
        assert_eq!(AnswerFile::read_mark(&kept.for_disk()), None);
    }
}
