//! What a council is made of: its parameters (mode, intensity, preset), the
//! findings and proposals its participants bring, the challenges put to
//! them and the answers, and every participant's final position.
//!
//! Plain data with the few rules that belong to a word itself (a
//! severity's order, an intensity's budget); what the words add up to is
//! [`super::verdict`]'s.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::protocol::roster::{Roster, Seat};
use crate::protocol::{RoleGroup, Tone};

/// One moderator decision on a challenge.
pub use crate::protocol::moderated::Moderated;

/// The devil's advocate's role slot: always seated (FP-13).
pub const DEVIL: &str = "devil-advocate";
/// The integration checker's role slot: always seated (FP-13).
pub const CHECKER: &str = "integration-checker";
/// The role slot that writes a brainstorm's handoff.
pub const SYNTHESIZER: &str = "synthesizer";

/// A domain expert's role slot: `expert.security`.
pub fn expert_slot(domain: &str) -> String {
    format!("expert.{domain}")
}

/// A seat of a council, as its rules name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// A domain expert, by its domain: `security` sits in
    /// `expert.security`.
    Expert(String),
    /// The integration checker.
    Checker,
    /// The devil's advocate.
    Devil,
    /// The role that writes a brainstorm's handoff.
    Synthesizer,
}

impl Role {
    /// `Security expert`, `Devil's advocate`: how a participant is
    /// introduced.
    pub fn title(&self) -> String {
        match self {
            Role::Devil => "Devil's advocate".into(),
            Role::Checker => "Integration checker".into(),
            Role::Synthesizer => "Synthesizer".into(),
            Role::Expert(domain) => {
                let mut title: String = domain.replace('-', " ");
                if let Some(first) = title.get(..1) {
                    title = first.to_uppercase() + &title[1..];
                }
                format!("{title} expert")
            }
        }
    }

    /// An expert's domain (`security`); empty for every other role.
    pub fn domain(&self) -> &str {
        match self {
            Role::Expert(domain) => domain,
            Role::Checker | Role::Devil | Role::Synthesizer => "",
        }
    }
}

/// The seats of a council of `domains`: one expert per domain, in this
/// order, the integration checker, the devil's advocate (FP-13), then the
/// synthesizer of a council that `proposes`, played by the integration
/// checker's agent unless it is named.
pub fn roster(domains: &[String], proposes: bool) -> Roster<Role> {
    let seat = |role: Role, slot: String, group| {
        let title = role.title();
        Seat::new(role, slot, title, group)
    };
    let experts = domains.iter().map(|domain| {
        let role = Role::Expert(domain.clone());
        seat(role, expert_slot(domain), RoleGroup::Panel)
    });
    let checker = seat(Role::Checker, CHECKER.into(), RoleGroup::Lead);
    let devil = seat(Role::Devil, DEVIL.into(), RoleGroup::Challenger);
    let (role, slot) = (Role::Synthesizer, SYNTHESIZER.to_string());
    let synthesizer = seat(role, slot, RoleGroup::Synthesizer);
    let synthesizer = proposes.then(|| synthesizer.defaulting_to(CHECKER));
    experts.chain([checker, devil]).chain(synthesizer).collect()
}

/// What the council is asked to do (FP-03).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CouncilMode {
    #[default]
    Review,
    Audit,
    Brainstorm,
    Design,
    Research,
    Synthesis,
}

/// The task context whose challenge guidance the devil's advocate and the
/// integration checker get (FP-19, A22): by the mode, or named with
/// `--task-context` (the creative / UX / content context has no mode of
/// its own, issue 60).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskContext {
    Code,
    Security,
    Architecture,
    Research,
    Content,
}

impl CouncilMode {
    pub const ALL: [CouncilMode; 6] = [
        CouncilMode::Review,
        CouncilMode::Audit,
        CouncilMode::Brainstorm,
        CouncilMode::Design,
        CouncilMode::Research,
        CouncilMode::Synthesis,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CouncilMode::Review => "review",
            CouncilMode::Audit => "audit",
            CouncilMode::Brainstorm => "brainstorm",
            CouncilMode::Design => "design",
            CouncilMode::Research => "research",
            CouncilMode::Synthesis => "synthesis",
        }
    }

    pub fn parse(word: &str) -> Option<CouncilMode> {
        CouncilMode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == word)
    }

    /// Brainstorm and design generate proposals and end with a handoff,
    /// not findings and a verdict (FP-43..FP-48).
    pub fn proposes(self) -> bool {
        matches!(self, CouncilMode::Brainstorm | CouncilMode::Design)
    }

    /// A22: review → code, audit → security, design and brainstorm →
    /// architecture, research and synthesis → research.
    pub fn context(self) -> TaskContext {
        match self {
            CouncilMode::Review => TaskContext::Code,
            CouncilMode::Audit => TaskContext::Security,
            CouncilMode::Brainstorm | CouncilMode::Design => TaskContext::Architecture,
            CouncilMode::Research | CouncilMode::Synthesis => TaskContext::Research,
        }
    }
}

impl TaskContext {
    pub const ALL: [TaskContext; 5] = [
        TaskContext::Code,
        TaskContext::Security,
        TaskContext::Architecture,
        TaskContext::Research,
        TaskContext::Content,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TaskContext::Code => "code / technical review",
            TaskContext::Security => "security audit",
            TaskContext::Architecture => "architecture / planning",
            TaskContext::Research => "research synthesis",
            TaskContext::Content => "creative / UX / content review",
        }
    }

    /// The word a spec or `--task-context` names it by.
    pub fn word(self) -> &'static str {
        match self {
            TaskContext::Code => "code",
            TaskContext::Security => "security",
            TaskContext::Architecture => "architecture",
            TaskContext::Research => "research",
            TaskContext::Content => "content",
        }
    }
}

/// How much of what is already known the first round's packets carry
/// (FP-01, FP-05, FP-18). The specification names one policy, and its
/// first round of discovery or diverging must use it: every council mode's
/// first round is one of the two, so it is the only value quorum accepts.
pub const CONTEXT_POLICIES: &[&str] = &["minimal-non-leading"];

/// How much debate a council runs (FP-04, FP-06..FP-09).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Intensity {
    Quick,
    #[default]
    Standard,
    Thorough,
}

impl Intensity {
    pub const ALL: [Intensity; 3] = [Intensity::Quick, Intensity::Standard, Intensity::Thorough];

    pub fn as_str(self) -> &'static str {
        match self {
            Intensity::Quick => "quick",
            Intensity::Standard => "standard",
            Intensity::Thorough => "thorough",
        }
    }

    pub fn parse(word: &str) -> Option<Intensity> {
        Intensity::ALL.into_iter().find(|i| i.as_str() == word)
    }

    /// At most this many challenge rounds (FP-06..FP-08).
    pub fn max_rounds(self) -> u32 {
        match self {
            Intensity::Quick => 0,
            Intensity::Standard => 3,
            Intensity::Thorough => 5,
        }
    }

    /// The phases it runs: quick skips challenge and synthesis.
    pub fn phases(self) -> &'static [u8] {
        match self {
            Intensity::Quick => &[1, 2, 5],
            Intensity::Standard | Intensity::Thorough => &[1, 2, 3, 4, 5],
        }
    }

    /// Calls the council may make (FP-09, A20): `reviewers` counts the
    /// devil's advocate and the integration checker.
    pub fn budget(self, reviewers: usize) -> u32 {
        let reviewers = reviewers as u32;
        match self {
            Intensity::Quick => reviewers + 5,
            Intensity::Standard => 3 * reviewers + 10,
            Intensity::Thorough => 5 * reviewers + 10,
        }
    }
}

/// A parameter preset (FP-10, FP-11).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    #[default]
    Default,
    SecurityElevated,
}

/// The numbers a preset sets.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// The weight of the devil's advocate's vote in consensus (A20).
    pub da_weight: f64,
    /// The share of weighted support that confirms a finding.
    pub consensus_threshold: f64,
    /// The share that confirms a finding tagged `security` (A20).
    pub security_threshold: f64,
}

impl Preset {
    pub const ALL: [Preset; 2] = [Preset::Default, Preset::SecurityElevated];

    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Default => "default",
            Preset::SecurityElevated => "security-elevated",
        }
    }

    pub fn parse(word: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.as_str() == word)
    }

    pub fn params(self) -> Params {
        match self {
            Preset::Default => Params {
                da_weight: 0.40,
                consensus_threshold: 0.50,
                security_threshold: 0.67,
            },
            Preset::SecurityElevated => Params {
                da_weight: 0.50,
                consensus_threshold: 0.67,
                security_threshold: 0.75,
            },
        }
    }
}

/// How grave a finding is (FP-16), gravest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Severity {
    Critical,
    High,
    Medium,
    Low,
    Info,
}

impl Severity {
    pub const ALL: [Severity; 5] = [
        Severity::Critical,
        Severity::High,
        Severity::Medium,
        Severity::Low,
        Severity::Info,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "CRITICAL",
            Severity::High => "HIGH",
            Severity::Medium => "MEDIUM",
            Severity::Low => "LOW",
            Severity::Info => "INFO",
        }
    }

    pub fn parse(word: &str) -> Option<Severity> {
        let word = word.trim().to_ascii_uppercase();
        Severity::ALL.into_iter().find(|s| s.as_str() == word)
    }

    /// The first severity word in `text`, written in capitals as the
    /// format writes them, other than `current`: what a `severity_challenge`
    /// such as "MEDIUM not HIGH because…" argues for. A lowercase word
    /// ("nothing critical happens") is prose, not a severity.
    pub fn argued_in(text: &str, current: Severity) -> Option<Severity> {
        text.split(|c: char| !c.is_ascii_alphabetic())
            .filter(|word| word.chars().all(|c| c.is_ascii_uppercase()))
            .filter_map(Severity::parse)
            .find(|severity| *severity != current)
    }

    /// CRITICAL or HIGH: what the devil's advocate must challenge (FP-24).
    pub fn is_grave(self) -> bool {
        self <= Severity::High
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a participant wrote about one finding (FP-16).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindingText {
    pub title: String,
    pub description: String,
    #[serde(default)]
    pub evidence: String,
    #[serde(default)]
    pub recommendation: String,
    #[serde(default)]
    pub domains: Vec<String>,
}

/// A severity change, and why it happened (A21: only when the origin
/// accepts a severity challenge, or through a merge).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeverityChange {
    pub from: Severity,
    pub to: Severity,
    pub round: u32,
    /// `C3 accepted by expert.security`.
    pub why: String,
}

/// One finding of the inventory, numbered by quorum (FP-20).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// `F001`.
    pub id: String,
    /// The participant slots it came from: one, or both parts' of a merge.
    pub origins: Vec<String>,
    pub severity: Severity,
    /// As first reported.
    pub reported_severity: Severity,
    #[serde(flatten)]
    pub text: FindingText,
    /// Emerged during the challenge rounds (an origin flag, A21).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub discovered: bool,
    /// 0 for Phase 1; the challenge round that brought it otherwise.
    #[serde(default)]
    pub round: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub severity_changes: Vec<SeverityChange>,
    /// The origin withdrew it: when and why.
    pub withdrawn: Option<String>,
    /// The findings this one merges (FP-35).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
    /// The finding this one was merged into.
    pub merged_into: Option<String>,
}

impl Finding {
    /// Still part of the debate: not withdrawn, not merged into another.
    pub fn active(&self) -> bool {
        self.withdrawn.is_none() && self.merged_into.is_none()
    }

    pub fn is_security(&self) -> bool {
        self.text.domains.iter().any(|d| d == "security")
    }

    pub fn from_origin(&self, slot: &str) -> bool {
        self.origins.iter().any(|origin| origin == slot)
    }
}

/// The three kinds of valid challenge (FP-28).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Basis {
    MissingAssumption,
    AlternativeExplanation,
    NonApplicability,
}

impl Basis {
    pub fn as_str(self) -> &'static str {
        match self {
            Basis::MissingAssumption => "missing-assumption",
            Basis::AlternativeExplanation => "alternative-explanation",
            Basis::NonApplicability => "non-applicability",
        }
    }
}

/// Where a challenge stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChallengeState {
    /// Waiting for the moderator.
    Proposed,
    /// Held back by the moderator: offered again next round.
    Held,
    /// Dropped by the moderator as no challenge (FP-29).
    Dropped,
    /// Delivered to its target, no answer yet.
    Delivered,
    /// The target answered it.
    Answered,
    /// The target gave no answer to it.
    Unanswered,
    /// Never delivered: the rounds or the budget ran out first.
    Undelivered,
}

impl ChallengeState {
    pub fn as_str(self) -> &'static str {
        match self {
            ChallengeState::Proposed => "proposed",
            ChallengeState::Held => "held",
            ChallengeState::Dropped => "dropped",
            ChallengeState::Delivered => "delivered",
            ChallengeState::Answered => "answered",
            ChallengeState::Unanswered => "unanswered",
            ChallengeState::Undelivered => "undelivered",
        }
    }

    /// It reached its target.
    pub fn delivered(self) -> bool {
        matches!(
            self,
            ChallengeState::Delivered | ChallengeState::Answered | ChallengeState::Unanswered
        )
    }
}

/// A challenge of one finding or proposal (FP-25): the devil's advocate's,
/// or a participant's cross-challenge.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenge {
    /// `C1`, `C2`, … in the order they were raised.
    pub id: String,
    /// `F002` or `P003`.
    pub finding_id: String,
    pub from: String,
    pub to: String,
    /// The round it was raised in.
    pub round: u32,
    pub challenge: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub severity_challenge: String,
    /// The severity it argues for, if any.
    pub proposed_severity: Option<Severity>,
    pub basis: Option<Basis>,
    pub state: ChallengeState,
    /// The moderator's decisions on it, in order, with notes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moderation: Vec<Moderated>,
    /// The round it was delivered in.
    pub delivered_in: Option<u32>,
    /// Why it was not delivered, when it was not.
    pub undelivered: Option<String>,
}

/// The six kinds of response (FP-27).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResponseKind {
    Defense,
    Withdrawal,
    Corroboration,
    CrossChallenge,
    Discovery,
    MergeProposal,
}

impl ResponseKind {
    pub const ALL: [ResponseKind; 6] = [
        ResponseKind::Defense,
        ResponseKind::Withdrawal,
        ResponseKind::Corroboration,
        ResponseKind::CrossChallenge,
        ResponseKind::Discovery,
        ResponseKind::MergeProposal,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ResponseKind::Defense => "defense",
            ResponseKind::Withdrawal => "withdrawal",
            ResponseKind::Corroboration => "corroboration",
            ResponseKind::CrossChallenge => "cross-challenge",
            ResponseKind::Discovery => "discovery",
            ResponseKind::MergeProposal => "merge-proposal",
        }
    }
}

/// One response a participant gave in a challenge round.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Response {
    pub by: String,
    pub round: u32,
    #[serde(rename = "type")]
    pub kind: ResponseKind,
    /// The finding it is about; for a discovery, the id it was given.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub finding_id: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub evidence: String,
    /// A defense that accepts the challenge's lower severity (A21).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub accepts_severity: bool,
    /// The other finding of a merge proposal.
    pub merge_with: Option<String>,
    /// The challenges of this round it answers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<String>,
}

/// A proposed merge of two findings (FP-34, FP-35).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MergeCandidate {
    pub findings: [String; 2],
    /// Who proposed it: `quorum` (word overlap) or a participant slot.
    pub proposed_by: String,
    /// The Jaccard overlap of the two descriptions (A22).
    pub overlap: f64,
}

/// A new proposal that would retire another participant's (it merges,
/// supersedes or splits it, FP-47): waits for that origin's agreement in
/// its final position, as a merge of findings does (issue 60).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retirement {
    /// The proposal it would retire.
    pub proposal: String,
    /// The new proposal that would retire it.
    pub by: String,
    /// What it would become: merged, superseded or split.
    pub status: ProposalStatus,
    /// Who wrote the new proposal.
    pub claimed_by: String,
    /// The retired proposal's origin, whose agreement it needs.
    pub origin: String,
}

/// A participant's closing word on one finding or proposal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stance {
    /// It is real (a proposal: accept it).
    Endorse,
    /// It is not, or not as stated (a proposal: reject it).
    Dispute,
    /// No view.
    Abstain,
    /// The origin takes it back.
    Withdraw,
    /// A proposal to keep for later.
    Park,
}

impl Stance {
    pub fn as_str(self) -> &'static str {
        match self {
            Stance::Endorse => "endorse",
            Stance::Dispute => "dispute",
            Stance::Abstain => "abstain",
            Stance::Withdraw => "withdraw",
            Stance::Park => "park",
        }
    }
}

/// One stance of a final position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    pub id: String,
    pub stance: Stance,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

/// A participant's final position (FP-37).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinalPosition {
    pub participant: String,
    pub positions: Vec<Position>,
    /// Its word on each merge it was asked about: the pair and yes or no.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merges: Vec<MergeVote>,
    /// Pairs it voted on whose vote could not be read (issue 59): its
    /// agreement is missing, not refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable_votes: Vec<[String; 2]>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub summary: String,
}

/// An origin's agreement to a merge (FP-35).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergeVote {
    pub findings: [String; 2],
    pub agree: bool,
}

/// Where a finding ends (FP-36, A21). `discovered` is an origin flag on
/// the finding, not a state; a finding nobody disputed that still falls
/// short of the threshold is `unconfirmed` (the seed has no word for it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingState {
    Confirmed,
    Withdrawn,
    Disputed,
    Merged,
    Unconfirmed,
}

impl FindingState {
    pub fn as_str(self) -> &'static str {
        match self {
            FindingState::Confirmed => "confirmed",
            FindingState::Withdrawn => "withdrawn",
            FindingState::Disputed => "disputed",
            FindingState::Merged => "merged",
            FindingState::Unconfirmed => "unconfirmed",
        }
    }

    pub fn tone(self) -> Tone {
        match self {
            FindingState::Confirmed => Tone::Negative,
            FindingState::Disputed => Tone::Caution,
            FindingState::Unconfirmed => Tone::Uncertain,
            FindingState::Withdrawn | FindingState::Merged => Tone::Positive,
        }
    }
}

// ---- brainstorm ---------------------------------------------------------

/// The kind of thing a proposal proposes (FP-46).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProposalType {
    Schema,
    Protocol,
    Lifecycle,
    Policy,
    Implementation,
}

impl ProposalType {
    pub const ALL: [ProposalType; 5] = [
        ProposalType::Schema,
        ProposalType::Protocol,
        ProposalType::Lifecycle,
        ProposalType::Policy,
        ProposalType::Implementation,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ProposalType::Schema => "schema",
            ProposalType::Protocol => "protocol",
            ProposalType::Lifecycle => "lifecycle",
            ProposalType::Policy => "policy",
            ProposalType::Implementation => "implementation",
        }
    }
}

/// How worked out a proposal is (FP-46); separate from its status (A24).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Maturity {
    Seed,
    Sketched,
    Refined,
    Candidate,
    Accepted,
    Rejected,
    Parked,
}

impl Maturity {
    pub const ALL: [Maturity; 7] = [
        Maturity::Seed,
        Maturity::Sketched,
        Maturity::Refined,
        Maturity::Candidate,
        Maturity::Accepted,
        Maturity::Rejected,
        Maturity::Parked,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Maturity::Seed => "seed",
            Maturity::Sketched => "sketched",
            Maturity::Refined => "refined",
            Maturity::Candidate => "candidate",
            Maturity::Accepted => "accepted",
            Maturity::Rejected => "rejected",
            Maturity::Parked => "parked",
        }
    }
}

/// Where a proposal stands in the brainstorm (FP-47).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProposalStatus {
    Proposed,
    Expanded,
    Challenged,
    Revised,
    Merged,
    Split,
    Accepted,
    Rejected,
    Parked,
    Superseded,
}

impl ProposalStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalStatus::Proposed => "proposed",
            ProposalStatus::Expanded => "expanded",
            ProposalStatus::Challenged => "challenged",
            ProposalStatus::Revised => "revised",
            ProposalStatus::Merged => "merged",
            ProposalStatus::Split => "split",
            ProposalStatus::Accepted => "accepted",
            ProposalStatus::Rejected => "rejected",
            ProposalStatus::Parked => "parked",
            ProposalStatus::Superseded => "superseded",
        }
    }

    /// Out of the running: folded into or replaced by another.
    pub fn retired(self) -> bool {
        matches!(
            self,
            ProposalStatus::Merged | ProposalStatus::Split | ProposalStatus::Superseded
        )
    }

    pub fn tone(self) -> Option<Tone> {
        match self {
            ProposalStatus::Accepted => Some(Tone::Positive),
            ProposalStatus::Rejected => Some(Tone::Negative),
            ProposalStatus::Parked => Some(Tone::Uncertain),
            ProposalStatus::Merged | ProposalStatus::Split | ProposalStatus::Superseded => {
                Some(Tone::Caution)
            }
            _ => None,
        }
    }
}

/// Where a proposal came from (FP-46).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lineage {
    #[serde(default)]
    pub derived_from: Vec<String>,
    #[serde(default)]
    pub supersedes: Vec<String>,
    #[serde(default)]
    pub merged_from: Vec<String>,
    /// The proposal this one is a part of, split off it (FP-43, FP-47):
    /// once a part names it, the original is retired as `split`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub split_from: Vec<String>,
}

impl Lineage {
    pub fn is_empty(&self) -> bool {
        self.derived_from.is_empty()
            && self.supersedes.is_empty()
            && self.merged_from.is_empty()
            && self.split_from.is_empty()
    }
}

/// What a participant wrote of one proposal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposalText {
    pub title: String,
    pub summary: String,
    #[serde(default)]
    pub rationale: String,
    pub proposal_type: ProposalType,
    pub maturity: Maturity,
    #[serde(default)]
    pub tradeoffs: Vec<String>,
    #[serde(default)]
    pub dependencies: Vec<String>,
    #[serde(default)]
    pub open_questions: Vec<String>,
    #[serde(default)]
    pub risks: Vec<String>,
    #[serde(default)]
    pub lineage: Lineage,
}

/// One proposal object of a brainstorm (FP-46), numbered by quorum.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    /// `P001`.
    pub id: String,
    pub origin: String,
    #[serde(flatten)]
    pub text: ProposalText,
    pub status: ProposalStatus,
    /// The stage that brought it: `diverge`, `expand`, `challenge`.
    pub stage: String,
    /// Improvements participants added in the Expand stage.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expansions: Vec<Expansion>,
    /// Its origin took it back in a challenge round: when and why. It then
    /// counts as rejected by its origin at the convergence.
    pub withdrawn: Option<String>,
}

/// One participant's improvement of a proposal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expansion {
    pub by: String,
    pub note: String,
}

/// The handoff that ends a brainstorm (FP-44).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handoff {
    pub accepted_direction: String,
    #[serde(default)]
    pub open_questions: Vec<String>,
    pub next_step: String,
}

/// Participants' stances on every id, by participant: what Phase 5 brings.
pub type Positions = BTreeMap<String, FinalPosition>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_severity_challenge_argues_for_its_first_other_capitalised_severity() {
        let high = Severity::High;
        assert_eq!(
            Severity::argued_in("MEDIUM not HIGH because", high),
            Some(Severity::Medium)
        );
        assert_eq!(
            Severity::argued_in("HIGH is overstated: LOW", high),
            Some(Severity::Low)
        );
        assert_eq!(Severity::argued_in("nothing critical happens", high), None);
        assert_eq!(Severity::argued_in("", high), None);
        assert_eq!(Severity::argued_in("HIGH stays", high), None);
    }
}
