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

use std::collections::HashSet;

use yaml_serde::{Sequence, Value};

use super::model::{
    Basis, Expansion, FinalPosition, FindingText, Handoff, Lineage, Maturity, MergeVote, Position,
    ProposalText, ProposalType, ResponseKind, Severity, Stance,
};
use crate::parse::normalise::{IdMatch, KnownIds};
use crate::parse::{Document, FieldPath, Fields, ParseError, Read, list_capped, quote};

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

const FINDING_SHAPE: &str =
    "a finding (a mapping with severity, title, description, evidence, recommendation, domains)";
const PROPOSAL_SHAPE: &str =
    "a proposal (a mapping with title, summary, rationale, proposal_type, maturity, ...)";
const CHALLENGE_SHAPE: &str =
    "a challenge (a mapping with to, finding_id, challenge, severity_challenge, basis)";
const RESPONSE_SHAPE: &str = "a response (a mapping with type, finding_id, response, evidence)";
const EXPANSION_SHAPE: &str = "an expansion (a mapping with proposal_id and note)";
const POSITION_SHAPE: &str = "a position (a mapping with id, stance, note)";

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

/// A participant's Phase 1 findings (FP-16). An empty list is a valid
/// "nothing found". Findings without a `domains` list get
/// `default_domain` (the expert's own; none for the structural roles).
pub fn read_findings(
    text: &str,
    default_domain: &str,
) -> Result<Read<Vec<(Severity, FindingText)>>, ParseError> {
    let document = Document::load(text)?;
    let (list, path) = main_list(&document, "findings")?;
    let findings = document.read_items(list, &path, "findings", FINDING_SHAPE, |_, fields| {
        finding(&fields, default_domain)
    })?;
    Ok(document.read(findings))
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

/// A participant's Diverge proposals (FP-45, FP-46).
pub fn read_proposals(text: &str) -> Result<Read<Vec<ProposalText>>, ParseError> {
    let document = Document::load(text)?;
    let (list, path) = main_list(&document, "proposals")?;
    let proposals =
        document.read_items(list, &path, "proposals", PROPOSAL_SHAPE, |_, fields| {
            proposal_text(&fields)
        })?;
    Ok(document.read(proposals))
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
    /// What was left out of the answer, and why.
    pub left_out: Vec<String>,
}

fn challenge_text(
    fields: &Fields<'_>,
    known: &KnownIds<'_>,
    left_out: &mut Vec<String>,
) -> Result<Option<ChallengeText>, ParseError> {
    let Some(finding_id) = fields.known_id("finding_id", known)? else {
        let written = fields.required_text("finding_id")?;
        let open: Vec<String> = known.ids().iter().map(|id| id.to_string()).collect();
        left_out.push(format!(
            "a challenge of {}, which is not an open id ({})",
            quote(&written),
            list_capped(&open)
        ));
        return Ok(None);
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
    Ok(Some(ChallengeText {
        finding_id,
        to: fields.optional_text("to")?.unwrap_or_default(),
        challenge: fields.required_text("challenge")?,
        severity_challenge,
        proposed_severity,
        basis,
    }))
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
            challenge_text(&fields, &open, &mut answer.left_out)
        })?;
    answer.challenges = challenges.into_iter().flatten().collect();
    let (list, path) = root.optional_list("discoveries")?;
    if proposes {
        answer.proposals =
            document.read_items(list, &path, "discoveries", PROPOSAL_SHAPE, |_, fields| {
                proposal_text(&fields)
            })?;
    } else {
        answer.discoveries =
            document.read_items(list, &path, "discoveries", FINDING_SHAPE, |_, fields| {
                finding(&fields, "")
            })?;
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

/// A round's responses, and what was left out of them and why.
pub type Responses = (Vec<ResponseText>, Vec<String>);

/// A participant's responses in a challenge round (FP-27); `known` are the
/// ids it may name.
pub fn read_responses(
    text: &str,
    known: &[&str],
    default_domain: &str,
    proposes: bool,
) -> Result<Read<Responses>, ParseError> {
    let document = Document::load(text)?;
    let (list, path) = main_list(&document, "responses")?;
    let known = KnownIds::new(known.iter().copied());
    let mut left_out = Vec::new();
    let responses =
        document.read_items(list, &path, "responses", RESPONSE_SHAPE, |_, fields| {
            response_text(&fields, &known, default_domain, proposes, &mut left_out)
        })?;
    let responses = responses.into_iter().flatten().collect();
    Ok(document.read((responses, left_out)))
}

/// One response of a round; `None` when it names what is not in `known`,
/// said in `left_out`.
fn response_text(
    fields: &Fields<'_>,
    known: &KnownIds<'_>,
    default_domain: &str,
    proposes: bool,
    left_out: &mut Vec<String>,
) -> Result<Option<ResponseText>, ParseError> {
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
            let inner = Fields::new(fields.document, value, fields.path_of(key), PROPOSAL_SHAPE)?;
            response.proposal = Some(proposal_text(&inner)?);
        } else {
            let inner = Fields::new(fields.document, value, fields.path_of(key), FINDING_SHAPE)?;
            response.discovery = Some(finding(&inner, default_domain)?);
        }
        return Ok(Some(response));
    }
    let Some(id) = fields.known_id("finding_id", known)? else {
        let written = fields.required_text("finding_id")?;
        left_out.push(format!(
            "a {} of {}, which is not an id of the inventory",
            kind.as_str(),
            quote(&written)
        ));
        return Ok(None);
    };
    response.finding_id = id;
    match kind {
        ResponseKind::MergeProposal => {
            let Some(other) = fields.known_id("merge_with", known)? else {
                left_out.push(format!(
                    "a merge proposal of {} with an unknown finding",
                    response.finding_id
                ));
                return Ok(None);
            };
            if other == response.finding_id {
                left_out.push(format!(
                    "a merge proposal of {} with itself",
                    response.finding_id
                ));
                return Ok(None);
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
    Ok(Some(response))
}

/// What a participant adds in a brainstorm's Expand stage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExpandAnswer {
    pub expansions: Vec<(String, Expansion)>,
    pub proposals: Vec<ProposalText>,
    pub left_out: Vec<String>,
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
                answer
                    .left_out
                    .push(format!("an expansion of unknown {}", quote(&written)));
                return Ok(None);
            };
            let note = fields.required_text("note")?;
            Ok(Some((
                id,
                Expansion {
                    by: by.to_string(),
                    note,
                },
            )))
        })?;
    answer.expansions = expansions.into_iter().flatten().collect();
    let (list, path) = root.optional_list("proposals")?;
    answer.proposals =
        document.read_items(list, &path, "proposals", PROPOSAL_SHAPE, |_, fields| {
            proposal_text(&fields)
        })?;
    Ok(document.read(answer))
}

/// A participant's final position on the ids in `known` (FP-37): stances,
/// merge votes and a summary. Stances on unknown ids are left out.
pub fn read_final(
    text: &str,
    participant: &str,
    known: &[&str],
) -> Result<Read<(FinalPosition, Vec<String>)>, ParseError> {
    let document = Document::load(text)?;
    let root = document.root_fields("a mapping with `positions:`, `merges:` and `summary:`")?;
    let mut position = FinalPosition {
        participant: participant.to_string(),
        ..FinalPosition::default()
    };
    let mut left_out = Vec::new();
    let known = KnownIds::new(known.iter().copied());
    let mut stances_on: HashSet<String> = HashSet::new();
    let (list, path) = root.required_list("positions")?;
    for (index, value) in list.iter().enumerate() {
        let fields = Fields::new(&document, value, path.index(index), POSITION_SHAPE)?;
        let Some(id) = fields.known_id("id", &known)? else {
            let written = fields.required_text("id")?;
            left_out.push(format!("a stance on unknown {}", quote(&written)));
            continue;
        };
        if !stances_on.insert(id.clone()) {
            left_out.push(format!("a second stance on {id}"));
            continue;
        }
        position.positions.push(Position {
            id,
            stance: fields.required_choice("stance", &STANCES)?,
            note: fields.optional_text("note")?.unwrap_or_default(),
        });
    }
    let (list, path) = root.optional_list("merges")?;
    for (index, value) in list.iter().enumerate() {
        let fields = Fields::new(
            &document,
            value,
            path.index(index),
            "a merge vote (a mapping with findings: [two ids] and agree)",
        )?;
        let ids = fields.optional_texts("findings")?;
        let matched: Vec<String> = ids
            .iter()
            .filter_map(|id| match known.match_id(id) {
                IdMatch::Exact(id) | IdMatch::Read(id) => Some(id),
                _ => None,
            })
            .collect();
        let [a, b] = matched.as_slice() else {
            left_out.push(format!(
                "a merge vote on {} (it takes two known ids)",
                ids.join(", ")
            ));
            continue;
        };
        position.merges.push(MergeVote {
            findings: [a.clone(), b.clone()],
            agree: fields.optional_flag("agree", false)?,
        });
    }
    position.summary = root.optional_text("summary")?.unwrap_or_default();
    Ok(document.read((position, left_out)))
}

/// The handoff that ends a brainstorm (FP-44).
pub fn read_handoff(text: &str) -> Result<Read<Handoff>, ParseError> {
    let document = Document::load(text)?;
    let root = document
        .root_fields("a mapping with `accepted_direction:`, `open_questions:` and `next_step:`")?;
    let handoff = Handoff {
        accepted_direction: root.required_text("accepted_direction")?,
        open_questions: root.optional_texts("open_questions")?,
        next_step: root.required_text("next_step")?,
    };
    Ok(document.read(handoff))
}
