//! A debate as one file anyone can open (`quorum report`, issue 30): the
//! conclusion first, then the verdict and its rule, the scoreboard, what
//! changed from the proposal to the revision and why, the board of
//! findings or hypotheses, the moderator's rulings and notes, what each
//! call used and cost, and the transcript, collapsed. [`html`] writes it as
//! one self-contained page (no script, no font, no request: it works from
//! a `file://` address offline), [`markdown`] as one Markdown file.
//!
//! What goes in is gathered from the protocol alone ([`Report::of`]), so
//! every protocol reports through the same code; a protocol that revises
//! no text, or has no board, simply has no such section.
//!
//! Responsible for what a report says and for keeping every agent's text
//! inert: escaped in HTML, fenced in Markdown, links shown as text. Not
//! responsible for reading the record (the CLI folds the journal) nor for
//! writing the file.

pub mod html;
pub mod markdown;

use crate::protocol::usage::UsageReport;
use crate::protocol::{
    BoardItem, BoardView, ChangedPart, ItemDecision, ItemWords, Outcome, Protocol, RoleInfo,
    Ruling, Scoreboard, Unread,
};

/// Everything a report shows, gathered from one debate.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub topic: String,
    /// `decision review · architecture`, as the interface labels it.
    pub label: String,
    pub roles: Vec<RoleInfo>,
    /// The reader-first opening of the deliverable (Markdown), once the
    /// debate has ended.
    pub conclusion: Option<String>,
    pub outcome: Option<Outcome>,
    /// The stage the debate stands at (`critique`), for one not ended.
    pub stage: String,
    /// How far the panel that decided agreed, in one line.
    pub agreement: Option<String>,
    /// Did the debate pay (issue 55): the plain vote of the panel's first
    /// round beside the verdict, the changes after it and their cost.
    pub payoff: Option<crate::protocol::payoff::Payoff>,
    pub scoreboard: Option<Scoreboard>,
    /// What quorum derived about each finding or hypothesis.
    pub rulings: Vec<Ruling>,
    pub changes: Vec<ChangedPart>,
    pub items: Vec<BoardItem>,
    pub item_words: ItemWords,
    pub open_questions: Vec<String>,
    /// What could not be read of the answers, and what that changed
    /// (issue 59): shown beside the result it qualifies.
    pub unread: Vec<Unread>,
    pub usage: Option<UsageReport>,
    /// `transcript.md` as the debate wrote it.
    pub transcript: Option<String>,
    /// Where the debate came from, when it was forked from another:
    /// `/debates/billing-… at critique` (the CLI knows; the protocol does not).
    pub origin: Option<String>,
    /// What the debate took from another (`--from DIR`): `the council in
    /// DIR`, shown with the command that reports that debate.
    pub handed_from: Option<String>,
    /// The command that reports the debate [`Self::handed_from`] names,
    /// quoted for a POSIX shell (`quorum report '/…/council-…'`); none when
    /// its folder's name could not be shown as it is.
    pub handed_from_command: Option<String>,
    /// Every budget fact of the journal, in order: `(time, what)`.
    pub budget: Vec<(String, String)>,
    /// Each claim's citations as checked against the sources (issue 52),
    /// one line each, read from the debate's `evidence.yaml`; empty when
    /// it checked none.
    pub evidence: Vec<(String, Vec<String>)>,
    /// The latest `quorum probe` of each of the debate's judges, when the
    /// CLI looked for one.
    pub judge_probes: Option<JudgeProbes>,
}

/// What `quorum probe` last found about a debate's judges (issue 55).
#[derive(Clone, Debug, Default)]
pub struct JudgeProbes {
    /// The folder the probes were looked for in.
    pub root: String,
    pub judges: Vec<ProbedJudge>,
}

/// One judge of the debate and its latest probe.
#[derive(Clone, Debug, Default)]
pub struct ProbedJudge {
    /// `judge.analyst`.
    pub role: String,
    /// `provider:model`.
    pub agent: String,
    /// None for a judge never probed.
    pub latest: Option<LatestProbe>,
}

/// The latest probe of one agent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LatestProbe {
    /// `2026-05-01`, with ` (demo)` for the scripted judges.
    pub date: String,
    /// One line a figure: `position 0.92 [0.65, 0.99] n=12`.
    pub lines: Vec<String>,
}

impl JudgeProbes {
    /// Whether no judge of the debate was ever probed.
    pub fn none_found(&self) -> bool {
        self.judges.iter().all(|judge| judge.latest.is_none())
    }

    /// `judge.analyst · anthropic:claude… · probed 2026-05-01` and its
    /// figures, or that it was never probed: the lines both formats show.
    pub fn lines(&self) -> Vec<(String, Vec<String>)> {
        self.judges
            .iter()
            .map(|judge| match &judge.latest {
                Some(latest) => (
                    format!("{} · {} · probed {}", judge.role, judge.agent, latest.date),
                    latest.lines.clone(),
                ),
                None => (
                    format!("{} · {} · not probed", judge.role, judge.agent),
                    Vec::new(),
                ),
            })
            .collect()
    }
}

impl Report {
    /// The report of `protocol` as it stands.
    pub fn of(protocol: &dyn Protocol) -> Report {
        let description = protocol.describe();
        let board = protocol.board();
        let (scoreboard, rulings) = match board.view {
            BoardView::Scores(scoreboard) => (Some(scoreboard), Vec::new()),
            BoardView::Rulings(rulings) => (None, rulings),
            BoardView::None | BoardView::Revision(_) => (None, Vec::new()),
        };
        let documents = protocol.documents();
        let document = |path: &str| {
            documents
                .iter()
                .find(|document| document.path == path)
                .map(|document| document.contents.clone())
        };
        let transcript = document("transcript.md");
        let evidence = document(crate::protocol::evidence::EVIDENCE_YAML)
            .and_then(|yaml| crate::protocol::evidence::EvidenceRecord::read(&yaml))
            .map(|record| {
                record
                    .claims
                    .into_iter()
                    .map(|(claim, found)| (claim, found.lines()))
                    .filter(|(_, lines)| !lines.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        Report {
            topic: description.topic,
            label: description.label,
            roles: description.roles,
            conclusion: protocol.summary_lead(),
            outcome: protocol.outcome().cloned(),
            stage: protocol.progress().stage,
            agreement: board.agreement,
            payoff: protocol.payoff(),
            scoreboard,
            rulings,
            changes: protocol.changes(),
            items: board.items,
            item_words: protocol.item_words(),
            open_questions: protocol.open_questions(),
            unread: protocol.unread(),
            usage: protocol.usage().map(|ledger| ledger.report()),
            transcript,
            origin: None,
            handed_from: None,
            handed_from_command: None,
            budget: Vec::new(),
            evidence,
            judge_probes: None,
        }
    }

    /// The verdict's word (`ADOPT`, `DONE`, `NO VERDICT`) and the rule or
    /// note beside it; none while the debate runs.
    pub fn headline(&self) -> Option<(String, String)> {
        Some(match self.outcome.as_ref()? {
            Outcome::Decided { verdict, rule } => (verdict.as_str().to_string(), rule.clone()),
            Outcome::Completed { note, deliverable } => {
                ("DONE".to_string(), format!("{note} ({deliverable})"))
            }
            Outcome::Failed { reason } => ("NO VERDICT".to_string(), reason.clone()),
        })
    }

    /// The protocol's word for the moderator's decision on an item, and
    /// its settlement after the verdict, if any.
    pub fn decision_word(&self, item: &BoardItem) -> String {
        let word = |decision: ItemDecision| match decision {
            ItemDecision::Accept => self.item_words.accept,
            ItemDecision::Reject => self.item_words.reject,
            ItemDecision::Defer => self.item_words.defer,
        };
        let mut out = item.decision.map_or("undecided".to_string(), |decision| {
            word(decision).to_string()
        });
        if let Some(resolution) = &item.resolution {
            out.push_str(&format!(", then {}", word(resolution.decision)));
        }
        out
    }
}

/// Agent text as `transcript.md` on disk has it ([`crate::text::for_markdown`],
/// the one cleaner of every Markdown file for people): escape sequences,
/// control characters but tab and newline, and bidi controls taken out, and
/// inside fences shown as pictures. Everything a report shows goes through
/// it, so the report holds nothing its debate's own files do not.
pub fn printable(text: &str) -> String {
    crate::text::for_markdown(text)
}

/// Money in dollars, to the cent or, under a cent, to four places.
pub fn dollars(cost: f64) -> String {
    if cost < 0.01 {
        format!("${cost:.4}")
    } else {
        format!("${cost:.2}")
    }
}
