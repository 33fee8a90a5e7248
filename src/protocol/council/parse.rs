//! The council's answer formats, read with the shared lenient reader of
//! [`crate::parse`]. The participants answer in JSON, as the seed asks;
//! JSON is YAML, so the one reader serves, with its leniency (keys in any
//! case, enum words in any case with `-` or spaces, ids decorated or in
//! another case when only one fits) and its precise errors.
//!
//! - Phase 1: `{"participant", "findings": [...], "phase": 1}` (FP-16), or
//!   `proposals` in a brainstorm (FP-46). quorum numbers them itself, so an
//!   agent's own `id` is ignored (FP-20).
//! - The devil's advocate's round: `challenges` (FP-25) and `discoveries`.
//! - A participant's round: `responses`, each of one of the six types
//!   (FP-27).
//! - Expand (brainstorm): `expansions` and new `proposals`.
//! - Phase 5: `positions`, `merges` and a `summary` (FP-37).
//! - Handoff: `accepted_direction`, `open_questions`, `next_step` (FP-44).
//!
//! What an answer names that is not there (an unknown finding id) is left
//! out and said, not refused: a council does not retry (the seed's
//! malformed-output rule), so an answer is refused only when nothing in it
//! can be trusted.

use yaml_serde::{Sequence, Value};

use super::model::{
    Basis, Expansion, FinalPosition, FindingText, Handoff, Lineage, Maturity, MergeVote, Position,
    ProposalText, ProposalType, ResponseKind, Severity, Stance,
};
use crate::parse::normalise::{IdMatch, KnownIds};
use crate::parse::{
    Document, FieldPath, Fields, ParseError, Read, Shape, Slip, list_capped, quote,
};

const SEVERITIES: [(&str, Severity); 5] = [
    ("critical", Severity::Critical),
    ("high", Severity::High),
    ("medium", Severity::Medium),
    ("low", Severity::Low),
    ("info", Severity::Info),
];

const BASES: [(&str, Basis); 6] = [
    ("missing_assumption", Basis::MissingAssumption),
    ("assumption", Basis::MissingAssumption),
    ("alternative_explanation", Basis::AlternativeExplanation),
    ("alternative", Basis::AlternativeExplanation),
    ("non_applicability", Basis::NonApplicability),
    ("not_applicable", Basis::NonApplicability),
];

const RESPONSES: [(&str, ResponseKind); 7] = [
    ("defense", ResponseKind::Defense),
    ("defence", ResponseKind::Defense),
    ("withdrawal", ResponseKind::Withdrawal),
    ("corroboration", ResponseKind::Corroboration),
    ("cross_challenge", ResponseKind::CrossChallenge),
    ("discovery", ResponseKind::Discovery),
    ("merge_proposal", ResponseKind::MergeProposal),
];

const STANCES: [(&str, Stance); 9] = [
    ("endorse", Stance::Endorse),
    ("accept", Stance::Endorse),
    ("confirm", Stance::Endorse),
    ("dispute", Stance::Dispute),
    ("reject", Stance::Dispute),
    ("abstain", Stance::Abstain),
    ("withdraw", Stance::Withdraw),
    ("park", Stance::Park),
    ("parked", Stance::Park),
];

const PROPOSAL_TYPES: [(&str, ProposalType); 5] = [
    ("schema", ProposalType::Schema),
    ("protocol", ProposalType::Protocol),
    ("lifecycle", ProposalType::Lifecycle),
    ("policy", ProposalType::Policy),
    ("implementation", ProposalType::Implementation),
];

const MATURITIES: [(&str, Maturity); 7] = [
    ("seed", Maturity::Seed),
    ("sketched", Maturity::Sketched),
    ("refined", Maturity::Refined),
    ("candidate", Maturity::Candidate),
    ("accepted", Maturity::Accepted),
    ("rejected", Maturity::Rejected),
    ("parked", Maturity::Parked),
];

const FINDING_KEYS: &[&str] = &[
    "id",
    "severity",
    "title",
    "description",
    "evidence",
    "recommendation",
    "domains",
];
const FINDING_SHAPE: Shape = Shape {
    what: "a finding (a mapping with severity, title, description, evidence, recommendation, domains)",
    keys: FINDING_KEYS,
    id_key: None,
};
const PROPOSAL_SHAPE: Shape = Shape {
    what: "a proposal (a mapping with title, summary, rationale, proposal_type, maturity, ...)",
    keys: &[
        "id",
        "title",
        "summary",
        "rationale",
        "proposal_type",
        "maturity",
        "tradeoffs",
        "dependencies",
        "open_questions",
        "risks",
        "lineage",
        "status",
    ],
    id_key: None,
};
const CHALLENGE_SHAPE: Shape = Shape {
    what: "a challenge (a mapping with to, finding_id, challenge, severity_challenge, basis)",
    keys: &[
        "type",
        "from",
        "to",
        "finding_id",
        "challenge",
        "severity_challenge",
        "proposed_severity",
        "basis",
    ],
    id_key: Some("finding_id"),
};
const RESPONSE_SHAPE: Shape = Shape {
    what: "a response (a mapping with type, finding_id, response, evidence)",
    keys: &[
        "type",
        "finding_id",
        "response",
        "text",
        "evidence",
        "accept_severity",
        "merge_with",
        "challenge",
        "severity_challenge",
        "finding",
        "proposal",
        "revision",
    ],
    id_key: Some("finding_id"),
};
const EXPANSION_SHAPE: Shape = Shape {
    what: "an expansion (a mapping with proposal_id and note)",
    keys: &["proposal_id", "note"],
    id_key: Some("proposal_id"),
};
const POSITION_SHAPE: Shape = Shape {
    what: "a position (a mapping with id, stance, note)",
    keys: &["id", "stance", "note"],
    id_key: Some("id"),
};
const MERGE_VOTE_SHAPE: Shape = Shape {
    what: "a merge vote (a mapping with findings: [two ids] and agree)",
    keys: &["findings", "agree"],
    id_key: None,
};

/// The list under `key` of a mapping answer, or the bare list.
fn main_list<'a>(
    document: &'a Document,
    key: &str,
) -> Result<(&'a Sequence, FieldPath), ParseError> {
    document.main_list(key, &format!("a mapping with `{key}:` (a list)"))
}

fn finding_text(fields: &Fields<'_>, default_domain: &str) -> Result<FindingText, ParseError> {
    let mut domains: Vec<String> = fields
        .optional_texts("domains")?
        .into_iter()
        .map(|d| d.trim().to_ascii_lowercase())
        .collect();
    if domains.is_empty() && !default_domain.is_empty() {
        domains.push(default_domain.to_string());
    }
    Ok(FindingText {
        title: fields.required_text("title")?,
        description: fields.required_text("description")?,
        evidence: fields.optional_text("evidence")?.unwrap_or_default(),
        recommendation: fields.optional_text("recommendation")?.unwrap_or_default(),
        domains,
    })
}

/// One finding with its severity.
fn finding(
    fields: &Fields<'_>,
    default_domain: &str,
) -> Result<(Severity, FindingText), ParseError> {
    let severity = fields.required_choice("severity", &SEVERITIES)?;
    Ok((severity, finding_text(fields, default_domain)?))
}

/// What a Phase 1 answer holds: each item read with its place in the
/// participant's list, and how many it listed (an item left out keeps its
/// place, so the board ids after it do not move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed<T> {
    pub items: Vec<(usize, T)>,
    pub listed: usize,
}

/// A participant's Phase 1 findings (FP-16). An empty list is a valid
/// "nothing found". Findings without a `domains` list get
/// `default_domain` (the expert's own; none for the structural roles). A
/// finding that cannot be read is left out as a slip at its place.
pub fn read_findings(
    text: &str,
    default_domain: &str,
) -> Result<Read<Listed<(Severity, FindingText)>>, ParseError> {
    let document = Document::load(text)?;
    let (list, path) = main_list(&document, "findings")?;
    let items = document.read_items(list, &path, "findings", FINDING_SHAPE, |_, fields| {
        finding(&fields, default_domain)
    })?;
    Ok(document.read(Listed {
        items,
        listed: list.len(),
    }))
}

fn proposal_text(fields: &Fields<'_>) -> Result<ProposalText, ParseError> {
    let lineage = match fields.get("lineage") {
        None | Some((_, Value::Null)) => Lineage::default(),
        Some((_, value)) => {
            let lineage = Fields::new(
                fields.document,
                value,
                fields.path_of("lineage"),
                "a lineage (a mapping with derived_from, supersedes, merged_from, split_from)",
            )?;
            let ids = |key: &str| -> Result<Vec<String>, ParseError> {
                Ok(lineage
                    .optional_texts(key)?
                    .into_iter()
                    .map(|id| id.trim().to_ascii_uppercase())
                    .collect())
            };
            Lineage {
                derived_from: ids("derived_from")?,
                supersedes: ids("supersedes")?,
                merged_from: ids("merged_from")?,
                split_from: ids("split_from")?,
            }
        }
    };
    let maturity = match fields.get("maturity") {
        None | Some((_, Value::Null)) => Maturity::Seed,
        Some(_) => fields.required_choice("maturity", &MATURITIES)?,
    };
    Ok(ProposalText {
        title: fields.required_text("title")?,
        summary: fields.required_text("summary")?,
        rationale: fields.optional_text("rationale")?.unwrap_or_default(),
        proposal_type: fields.required_choice("proposal_type", &PROPOSAL_TYPES)?,
        maturity,
        tradeoffs: fields.optional_texts("tradeoffs")?,
        dependencies: fields.optional_texts("dependencies")?,
        open_questions: fields.optional_texts("open_questions")?,
        risks: fields.optional_texts("risks")?,
        lineage,
    })
}

/// The ids a participant wrote on the items of `list` (`findings` or
/// `proposals`) in its Phase 1 answer, in order; empty for an item with
/// none. Read only to say which board id each became, so nothing here is
/// an error.
pub fn written_ids(text: &str, list: &str) -> Vec<String> {
    let Ok(document) = Document::load(text) else {
        return Vec::new();
    };
    let Ok((items, _)) = main_list(&document, list) else {
        return Vec::new();
    };
    items
        .iter()
        .map(|item| {
            item.get("id")
                .and_then(crate::parse::scalar_text)
                .map(|id| id.trim().to_string())
                .unwrap_or_default()
        })
        .collect()
}

/// A participant's Diverge proposals (FP-45, FP-46); one that cannot be
/// read is left out as a slip at its place.
pub fn read_proposals(text: &str) -> Result<Read<Listed<ProposalText>>, ParseError> {
    let document = Document::load(text)?;
    let (list, path) = main_list(&document, "proposals")?;
    let items = document.read_items(list, &path, "proposals", PROPOSAL_SHAPE, |_, fields| {
        proposal_text(&fields)
    })?;
    Ok(document.read(Listed {
        items,
        listed: list.len(),
    }))
}

/// One challenge as the devil's advocate (or a cross-challenger) wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeText {
    pub finding_id: String,
    /// Whom it names; empty when it names no one.
    pub to: String,
    pub challenge: String,
    pub severity_challenge: String,
    pub proposed_severity: Option<Severity>,
    pub basis: Option<Basis>,
}

/// The devil's advocate's round answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DevilAnswer {
    pub challenges: Vec<ChallengeText>,
    pub discoveries: Vec<(Severity, FindingText)>,
    /// Brainstorm: new proposals from cross-domain patterns.
    pub proposals: Vec<ProposalText>,
}

impl DevilAnswer {
    /// Every item read: challenges, discoveries and proposals.
    pub fn len(&self) -> usize {
        self.challenges.len() + self.discoveries.len() + self.proposals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn challenge_text(fields: &Fields<'_>, known: &KnownIds<'_>) -> Result<ChallengeText, ParseError> {
    let Some(finding_id) = fields.known_id("finding_id", known)? else {
        let written = fields.required_text("finding_id")?;
        let open: Vec<String> = known.ids().iter().map(|id| id.to_string()).collect();
        return Err(fields.error(
            "finding_id",
            format!(
                "{} is not an open finding (open: {})",
                quote(&written),
                list_capped(&open)
            ),
        ));
    };
    let fields_about = format!("challenge of {finding_id}");
    let severity_challenge = fields
        .optional_text("severity_challenge")?
        .unwrap_or_default();
    let proposed_severity = match fields.get("proposed_severity") {
        None | Some((_, Value::Null)) => None,
        Some(_) => Some(fields.required_choice("proposed_severity", &SEVERITIES)?),
    };
    let basis = match fields.get("basis") {
        None | Some((_, Value::Null)) => None,
        Some(_) => match fields.required_choice("basis", &BASES) {
            Ok(basis) => Some(basis),
            Err(_) => {
                fields.note(format!(
                    "read an unknown basis in the {fields_about} as none stated"
                ));
                None
            }
        },
    };
    Ok(ChallengeText {
        finding_id,
        to: fields.optional_text("to")?.unwrap_or_default(),
        challenge: fields.required_text("challenge")?,
        severity_challenge,
        proposed_severity,
        basis,
    })
}

/// The devil's advocate's challenges of the ids in `open` and its
/// discoveries; `proposes` reads new proposals instead of findings.
pub fn read_devil(
    text: &str,
    open: &[&str],
    proposes: bool,
) -> Result<Read<DevilAnswer>, ParseError> {
    let document = Document::load(text)?;
    let root = document.root_fields("a mapping with `challenges:` and `discoveries:`")?;
    let mut answer = DevilAnswer::default();
    let open = KnownIds::new(open.iter().copied());
    let (list, path) = root.optional_list("challenges")?;
    let challenges =
        document.read_items(list, &path, "challenges", CHALLENGE_SHAPE, |_, fields| {
            challenge_text(&fields, &open)
        })?;
    answer.challenges = unplaced(challenges);
    let (list, path) = root.optional_list("discoveries")?;
    if proposes {
        answer.proposals = unplaced(document.read_items(
            list,
            &path,
            "discoveries",
            PROPOSAL_SHAPE,
            |_, fields| proposal_text(&fields),
        )?);
    } else {
        answer.discoveries = unplaced(document.read_items(
            list,
            &path,
            "discoveries",
            FINDING_SHAPE,
            |_, fields| finding(&fields, ""),
        )?);
    }
    Ok(document.read(answer))
}

/// One response of a participant's round, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResponseText {
    pub kind: ResponseKind,
    /// The finding it is about (empty for a discovery).
    pub finding_id: String,
    pub text: String,
    pub evidence: String,
    pub accepts_severity: bool,
    pub merge_with: Option<String>,
    /// A cross-challenge's challenge.
    pub challenge: Option<ChallengeText>,
    /// A discovery's finding.
    pub discovery: Option<(Severity, FindingText)>,
    /// A discovered proposal (brainstorm).
    pub proposal: Option<ProposalText>,
    /// A defense's revised summary (brainstorm).
    pub revision: Option<String>,
}

/// A participant's responses in a challenge round (FP-27); `known` are the
/// ids it may name. A response that cannot be read, or names what is not
/// in `known`, is left out as a slip (issue 59), named by the finding it
/// is about when that could be read.
pub fn read_responses(
    text: &str,
    known: &[&str],
    default_domain: &str,
    proposes: bool,
) -> Result<Read<Vec<ResponseText>>, ParseError> {
    let document = Document::load(text)?;
    let (list, path) = main_list(&document, "responses")?;
    let known = KnownIds::new(known.iter().copied());
    let responses =
        document.read_items(list, &path, "responses", RESPONSE_SHAPE, |_, fields| {
            response_text(&fields, &known, default_domain, proposes)
        })?;
    Ok(document.read(unplaced(responses)))
}

/// Items read by [`Document::read_items`], without their places.
fn unplaced<T>(items: Vec<(usize, T)>) -> Vec<T> {
    items.into_iter().map(|(_, item)| item).collect()
}

/// One response of a round; an error when it names what is not in
/// `known`.
fn response_text(
    fields: &Fields<'_>,
    known: &KnownIds<'_>,
    default_domain: &str,
    proposes: bool,
) -> Result<ResponseText, ParseError> {
    let kind = fields.required_choice("type", &RESPONSES)?;
    let text = match fields.optional_text("response")? {
        Some(text) => text,
        None => fields.optional_text("text")?.unwrap_or_default(),
    };
    let mut response = ResponseText {
        kind,
        finding_id: String::new(),
        text,
        evidence: fields.optional_text("evidence")?.unwrap_or_default(),
        accepts_severity: fields.optional_flag("accept_severity", false)?,
        merge_with: None,
        challenge: None,
        discovery: None,
        proposal: None,
        revision: fields.optional_text("revision")?,
    };
    if kind == ResponseKind::Discovery {
        let value = fields.required(if proposes { "proposal" } else { "finding" })?;
        let key = if proposes { "proposal" } else { "finding" };
        if proposes {
            let inner = Fields::new(
                fields.document,
                value,
                fields.path_of(key),
                PROPOSAL_SHAPE.what,
            )?;
            response.proposal = Some(proposal_text(&inner)?);
        } else {
            let inner = Fields::new(
                fields.document,
                value,
                fields.path_of(key),
                FINDING_SHAPE.what,
            )?;
            response.discovery = Some(finding(&inner, default_domain)?);
        }
        return Ok(response);
    }
    let Some(id) = fields.known_id("finding_id", known)? else {
        let written = fields.required_text("finding_id")?;
        return Err(fields.error(
            "finding_id",
            format!(
                "a {} of {}, which is not an id of the inventory",
                kind.as_str(),
                quote(&written)
            ),
        ));
    };
    response.finding_id = id;
    match kind {
        ResponseKind::MergeProposal => {
            let Some(other) = fields.known_id("merge_with", known)? else {
                return Err(fields.error(
                    "merge_with",
                    format!(
                        "a merge proposal of {} with a finding not in the inventory",
                        response.finding_id
                    ),
                ));
            };
            if other == response.finding_id {
                return Err(fields.error(
                    "merge_with",
                    format!("a merge proposal of {} with itself", response.finding_id),
                ));
            }
            response.merge_with = Some(other);
        }
        ResponseKind::CrossChallenge => {
            let challenge = fields.required_text("challenge").or_else(|_| {
                if response.text.is_empty() {
                    fields.required_text("challenge")
                } else {
                    Ok(response.text.clone())
                }
            })?;
            response.challenge = Some(ChallengeText {
                finding_id: response.finding_id.clone(),
                to: String::new(),
                challenge,
                severity_challenge: fields
                    .optional_text("severity_challenge")?
                    .unwrap_or_default(),
                proposed_severity: None,
                basis: None,
            });
        }
        _ => {
            if response.text.is_empty() {
                return Err(fields.error("response", "required field is missing"));
            }
        }
    }
    Ok(response)
}

/// What a participant adds in a brainstorm's Expand stage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExpandAnswer {
    pub expansions: Vec<(String, Expansion)>,
    pub proposals: Vec<ProposalText>,
}

impl ExpandAnswer {
    /// Every item read: expansions and proposals.
    pub fn len(&self) -> usize {
        self.expansions.len() + self.proposals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Expansions of the proposals in `known` and new proposals (FP-43).
pub fn read_expansions(
    text: &str,
    by: &str,
    known: &[&str],
) -> Result<Read<ExpandAnswer>, ParseError> {
    let document = Document::load(text)?;
    let root = document.root_fields("a mapping with `expansions:` and `proposals:`")?;
    let mut answer = ExpandAnswer::default();
    let known = KnownIds::new(known.iter().copied());
    let (list, path) = root.optional_list("expansions")?;
    let expansions =
        document.read_items(list, &path, "expansions", EXPANSION_SHAPE, |_, fields| {
            let Some(id) = fields.known_id("proposal_id", &known)? else {
                let written = fields.required_text("proposal_id")?;
                return Err(fields.error(
                    "proposal_id",
                    format!("an expansion of {}, which is no proposal", quote(&written)),
                ));
            };
            let note = fields.required_text("note")?;
            Ok((
                id,
                Expansion {
                    by: by.to_string(),
                    note,
                },
            ))
        })?;
    answer.expansions = unplaced(expansions);
    let (list, path) = root.optional_list("proposals")?;
    answer.proposals =
        unplaced(
            document.read_items(list, &path, "proposals", PROPOSAL_SHAPE, |_, fields| {
                proposal_text(&fields)
            })?,
        );
    Ok(document.read(answer))
}

/// A participant's final position on the ids in `known` (FP-37): stances,
/// merge votes and a summary. Item by item (issue 59): a stance or a vote
/// that cannot be read, or names an id not in `known`, is left out as a
/// slip named by what it is about; a stance given twice reads once when
/// both say the same, and not at all when they differ.
pub fn read_final(
    text: &str,
    participant: &str,
    known: &[&str],
) -> Result<Read<FinalPosition>, ParseError> {
    let document = Document::load(text)?;
    let root = document.root_fields("a mapping with `positions:`, `merges:` and `summary:`")?;
    let mut position = FinalPosition {
        participant: participant.to_string(),
        ..FinalPosition::default()
    };
    let known = KnownIds::new(known.iter().copied());
    let (list, path) = root.required_list("positions")?;
    let stances = document.read_items(list, &path, "positions", POSITION_SHAPE, |_, fields| {
        let Some(id) = fields.known_id("id", &known)? else {
            let written = fields.required_text("id")?;
            return Err(fields.error(
                "id",
                format!(
                    "a stance on {}, which is not in the inventory",
                    quote(&written)
                ),
            ));
        };
        Ok(Position {
            stance: fields.required_choice("stance", &STANCES)?,
            note: fields.optional_text("note")?.unwrap_or_default(),
            id,
        })
    })?;
    let stances = document.one_per_id(stances, &path, "a stance on", |position| {
        position.id.clone()
    });
    position.positions = unplaced(stances);
    let (list, path) = root.optional_list("merges")?;
    let mut unreadable_votes: Vec<[String; 2]> = Vec::new();
    let votes = document.read_items(list, &path, "merges", MERGE_VOTE_SHAPE, |_, fields| {
        let ids = fields.optional_texts("findings")?;
        let matched: Vec<String> = ids
            .iter()
            .filter_map(|id| match known.match_id(id) {
                IdMatch::Exact(id) | IdMatch::Read(id) => Some(id),
                _ => None,
            })
            .collect();
        let [a, b] = matched.as_slice() else {
            return Err(fields.error(
                "findings",
                format!(
                    "a merge vote on {} (it takes two ids of the inventory)",
                    ids.join(", ")
                ),
            ));
        };
        let findings = [a.clone(), b.clone()];
        let agree = fields.optional_flag("agree", false).map_err(|error| {
            unreadable_votes.push(findings.clone());
            ParseError {
                message: format!("the vote on merging {a} and {b}: {}", error.message),
                ..error
            }
        })?;
        Ok(MergeVote { findings, agree })
    })?;
    position.unreadable_votes = unreadable_votes;
    let votes = document.one_per_id(votes, &path, "a vote on merging", |vote| {
        let [a, b] = &vote.findings;
        if a <= b {
            format!("{a} and {b}")
        } else {
            format!("{b} and {a}")
        }
    });
    position.merges = unplaced(votes);
    position.summary = match root.optional_text("summary") {
        Ok(summary) => summary.unwrap_or_default(),
        Err(error) => {
            document.slip(Slip::of("summary", error));
            String::new()
        }
    };
    Ok(document.read(position))
}

/// The handoff that ends a brainstorm (FP-44).
pub fn read_handoff(text: &str) -> Result<Read<Handoff>, ParseError> {
    let document = Document::load(text)?;
    let root = document
        .root_fields("a mapping with `accepted_direction:`, `open_questions:` and `next_step:`")?;
    // One open question that cannot be read costs that question (issue 59).
    let open_questions = match root.get("open_questions") {
        Some((_, Value::Sequence(list))) => {
            let path = root.path_of("open_questions");
            let mut questions = Vec::with_capacity(list.len());
            for (index, value) in list.iter().enumerate() {
                match crate::parse::scalar_text(value) {
                    Some(text) if text.is_empty() => {}
                    Some(text) => questions.push(text),
                    None => document.slip(Slip::at(
                        index,
                        document.error(
                            &path.index(index),
                            format!("expected text; found {}", crate::parse::describe(value)),
                        ),
                    )),
                }
            }
            questions
        }
        _ => match root.optional_texts("open_questions") {
            Ok(texts) => texts,
            Err(error) => {
                document.slip(Slip::of("open_questions", error));
                Vec::new()
            }
        },
    };
    let handoff = Handoff {
        accepted_direction: root.required_text("accepted_direction")?,
        open_questions,
        next_step: root.required_text("next_step")?,
    };
    Ok(document.read(handoff))
}
