//! The planning debate's formats, which are the seed's own markdown rather
//! than YAML: the critic's `**Challenge N**:` blocks (PC-29), the
//! optimizer's `**Improvement N**:` blocks (PC-30), verification lines for
//! `[UNVERIFIED]` assumptions (PC-25), the planner's one-line responses
//! (PC-14), the markers in a plan (PC-24), and the synthesizer's critique
//! log (PC-31, PC-32), which quorum checks rather than trusts.
//!
//! Read with the same leniency as every other answer: bold or plain
//! labels, list bullets, any case, ids in another case or with words after
//! them. What a block cannot do without (a severity, a category) is an error
//! that names its line, for the repair prompt.

use std::collections::HashSet;

use crate::parse::blocks::{self, Block, strip_emphasis};
use crate::parse::normalise::{IdMatch, KnownIds};
use crate::parse::{ParseError, Read, over_item_limit, quote};
use crate::protocol::ItemDecision;

use super::model::{Level, Response, Verification};

/// A challenge's labelled fields (PC-29); `Reopens` is quorum's addition
/// for round 2.
pub const CHALLENGE_KEYS: [&str; 6] = [
    "Problem",
    "Assumes",
    "Evidence",
    "Suggestion",
    "Severity",
    "Reopens",
];

/// A proposal's labelled fields (PC-30); `Resolves` marks a third option.
pub const PROPOSAL_KEYS: [&str; 5] = ["Current", "Proposed", "Benefit", "Priority", "Resolves"];

/// How an answer writes one kind of item: the heading of its blocks, its
/// labelled fields, and what a block of it must say.
struct ItemFormat {
    /// The word of its headings: `**Challenge N**:`.
    heading: &'static str,
    /// Every label a block may have.
    keys: &'static [&'static str],
    /// The labels a block must have.
    required: &'static [&'static str],
    /// The label of its level, and the levels it may take.
    level_key: &'static str,
    levels: &'static [Level],
    /// The label naming the item it refers to.
    refers_key: &'static str,
    /// The items, for the item limit (`challenges`).
    plural: &'static str,
    /// What an answer with none says it has none of: `No challenges.`
    none_of: &'static [&'static str],
    /// The error for an answer with neither blocks nor a word of none.
    no_blocks: &'static str,
}

const CHALLENGES: ItemFormat = ItemFormat {
    heading: "Challenge",
    keys: &CHALLENGE_KEYS,
    required: &["Problem", "Evidence", "Suggestion", "Severity"],
    level_key: "Severity",
    levels: &[Level::Critical, Level::High, Level::Medium],
    refers_key: "Reopens",
    plural: "challenges",
    none_of: &["challenges"],
    no_blocks: "no `**Challenge N**: Category - summary` block was found; write each challenge in that format, or say `No challenges.`",
};

const PROPOSALS: ItemFormat = ItemFormat {
    heading: "Improvement",
    keys: &PROPOSAL_KEYS,
    required: &["Current", "Proposed", "Benefit", "Priority"],
    level_key: "Priority",
    levels: &[Level::High, Level::Medium, Level::Low],
    refers_key: "Resolves",
    plural: "proposals",
    none_of: &["improvements", "proposals"],
    no_blocks: "no `**Improvement N**: Category - summary` block was found; write each proposal in that format, or say `No improvements.`",
};

/// An item as an answer wrote it, before quorum numbers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub category: String,
    pub summary: String,
    pub level: Level,
    pub fields: Vec<(String, String)>,
    pub refers_to: Option<String>,
    pub line: usize,
}

fn error(line: usize, field: &str, message: impl Into<String>) -> ParseError {
    ParseError {
        line: Some(line),
        field: (!field.is_empty()).then(|| field.to_string()),
        message: message.into(),
    }
}

/// Refuses an answer with more blocks than
/// [`ITEMS_PER_ANSWER_MAX`](crate::parse::ITEMS_PER_ANSWER_MAX) before any
/// is read, at the line of the first one too many; `what` names them.
fn within_item_limit(found: &[Block], what: &str) -> Result<(), ParseError> {
    match over_item_limit(found.len(), what) {
        Some(message) => Err(error(
            found[crate::parse::ITEMS_PER_ANSWER_MAX].line,
            "",
            message,
        )),
        None => Ok(()),
    }
}

/// Whether `text` says it has nothing of `kind` to raise: `No challenges.`,
/// `No improvements to propose`.
fn says_none(text: &str, plural: &str) -> bool {
    let lower = text.to_lowercase();
    [
        format!("no {plural}"),
        "none to raise".to_string(),
        format!("no new {plural}"),
    ]
    .iter()
    .any(|phrase| lower.contains(phrase.as_str()))
}

/// Every block of `format` in `text`, read, in the answer's order. No
/// block is an error unless the answer says it has none.
fn read_items(text: &str, format: &ItemFormat) -> Result<Vec<Written>, ParseError> {
    let found = blocks::blocks(text, format.heading, format.keys);
    if found.is_empty() && !format.none_of.iter().any(|plural| says_none(text, plural)) {
        return Err(error(1, "", format.no_blocks));
    }
    within_item_limit(&found, format.plural)?;
    found.iter().map(|block| written(block, format)).collect()
}

fn written(block: &Block, format: &ItemFormat) -> Result<Written, ParseError> {
    let ItemFormat {
        heading: kind,
        required,
        level_key,
        levels: allowed,
        refers_key,
        ..
    } = *format;
    let label = format!(
        "{kind} {}",
        block.number.map_or(String::new(), |n| n.to_string())
    );
    let label = label.trim().to_string();
    let (category, summary) = block.category_and_summary();
    if summary.is_empty() {
        return Err(error(
            block.line,
            &label,
            format!(
                "the heading needs a category and a one-line summary: `**{kind} N**: Category - summary`"
            ),
        ));
    }
    if category.is_empty() {
        return Err(error(
            block.line,
            &label,
            format!("name the category before the summary: `**{kind} N**: Category - {summary}`"),
        ));
    }
    for key in required {
        if block.field(key).is_none() {
            return Err(error(
                block.line_of(key),
                &format!("{label}.{key}"),
                format!("`{key}:` is missing"),
            ));
        }
    }
    let written_level = block.field(level_key).unwrap_or_default();
    let level = match Level::parse(written_level) {
        Some(level) if allowed.contains(&level) => level,
        Some(Level::Low) => {
            return Err(error(
                block.line_of(level_key),
                &format!("{label}.{level_key}"),
                "LOW is not a challenge severity: raise it as MEDIUM or leave it out",
            ));
        }
        _ => {
            let names: Vec<&str> = allowed.iter().map(|level| level.as_str()).collect();
            return Err(error(
                block.line_of(level_key),
                &format!("{label}.{level_key}"),
                format!(
                    "expected one of {}; found {}",
                    names.join(", "),
                    quote(written_level)
                ),
            ));
        }
    };
    let fields = block
        .fields
        .iter()
        .filter(|(key, _, _)| {
            !key.eq_ignore_ascii_case(level_key) && !key.eq_ignore_ascii_case(refers_key)
        })
        .map(|(key, value, _)| (key.clone(), value.trim().to_string()))
        .filter(|(_, value)| !value.is_empty())
        .collect();
    let refers_to = block
        .field(refers_key)
        .map(|id| strip_emphasis(id).to_uppercase())
        .filter(|id| !id.is_empty());
    Ok(Written {
        category,
        summary,
        level,
        fields,
        refers_to,
        line: block.line,
    })
}

/// The critic's challenges (PC-29), most severe first (PC-09): a stable
/// sort, noted when the critic's order differed. `No challenges` is a valid
/// answer; an answer with neither is an error, so a wrong format gets its
/// repair.
pub fn read_challenges(text: &str) -> Result<Read<Vec<Written>>, ParseError> {
    let mut items = read_items(text, &CHALLENGES)?;
    let mut notes = Vec::new();
    if items.windows(2).any(|pair| pair[0].level > pair[1].level) {
        notes.push("put the challenges in severity order, CRITICAL first".to_string());
    }
    items.sort_by_key(|item| item.level);
    Ok(Read {
        value: items,
        notes,
    })
}

/// The optimizer's proposals (PC-30). `No improvements` is a valid answer.
pub fn read_proposals(text: &str) -> Result<Read<Vec<Written>>, ParseError> {
    Ok(Read {
        value: read_items(text, &PROPOSALS)?,
        notes: Vec::new(),
    })
}

/// Verification lines for the assumptions in `known` (PC-25):
/// `U2: [VERIFIED] the docs say ...`, `U3: [UNVERIFIED] no access`,
/// `U1: [REFUTED] see Challenge 2`. Lines for ids not in `known` are
/// ignored.
pub fn read_verifications(text: &str, known: &[&str]) -> Vec<(String, Verification, String)> {
    let known = KnownIds::new(known.iter().copied());
    let mut found = Vec::new();
    for line in text.lines() {
        let body = line.trim().trim_start_matches(['-', '*', '+', ' ']);
        let body = body.trim_start_matches(['*', '_']);
        let id_len = body
            .find(|c: char| !(c.is_ascii_alphanumeric()))
            .unwrap_or(body.len());
        let (id, rest) = body.split_at(id_len);
        if !id.to_ascii_uppercase().starts_with('U') {
            continue;
        }
        let (IdMatch::Exact(id) | IdMatch::Read(id)) = known.match_id(id) else {
            continue;
        };
        let rest = rest.trim_start_matches(['*', '_', ':', ' ', '-', '—']);
        let Some(open) = rest.find('[') else { continue };
        let Some(close) = rest[open..].find(']') else {
            continue;
        };
        let word = rest[open + 1..open + close].to_ascii_uppercase();
        let result = match word.as_str() {
            "VERIFIED" => Verification::Verified,
            "UNVERIFIED" => Verification::Unverified,
            "REFUTED" | "FALSE" => Verification::Refuted,
            _ => continue,
        };
        let note = rest[open + close + 1..]
            .trim_start_matches([':', ' ', '-', '—'])
            .trim()
            .to_string();
        found.push((id, result, note));
    }
    found
}

/// The planner's proposed response to each of `items` (PC-14): one line
/// each, `C1: accept — what changes`, `I2: reject — why`, `C3: defer —
/// what the user must decide`. Every item exactly once, each with its
/// reason.
pub fn read_responses(
    text: &str,
    items: &[&str],
) -> Result<Read<Vec<(String, Response)>>, ParseError> {
    let known = KnownIds::new(items.iter().copied());
    let mut answered: HashSet<String> = HashSet::new();
    let mut responses: Vec<(String, Response)> = Vec::new();
    let mut notes = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        let body = line.trim().trim_start_matches(['-', '*', '+', '#', ' ']);
        let body = body.trim_start_matches(['*', '_']);
        let id_len = body
            .find(|c: char| !(c.is_ascii_alphanumeric()))
            .unwrap_or(body.len());
        if id_len == 0 {
            continue;
        }
        let (written_id, rest) = body.split_at(id_len);
        let id = match known.match_id(written_id) {
            IdMatch::Exact(id) => id,
            IdMatch::Read(id) => {
                notes.push(format!("read {} as {id}", quote(written_id)));
                id
            }
            _ => continue,
        };
        let rest = rest.trim_start_matches(['*', '_', ':', ' ', '-', '—', '–']);
        let word_len = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let word = rest[..word_len].to_ascii_lowercase();
        let decision = match word.as_str() {
            "accept" | "accepted" | "accepts" => ItemDecision::Accept,
            "reject" | "rejected" | "rejects" => ItemDecision::Reject,
            "defer" | "deferred" | "defers" => ItemDecision::Defer,
            _ => {
                return Err(error(
                    line_number,
                    &id,
                    format!(
                        "expected accept, reject or defer after {id}; found {}",
                        // The word, or its first 20 characters: never a
                        // byte cut inside a character (found by the fuzzer).
                        quote(&rest.chars().take(word_len.max(20)).collect::<String>())
                    ),
                ));
            }
        };
        let reason = rest[word_len..]
            .trim_start_matches(['*', '_', ':', ' ', '-', '—', '–', '.'])
            .trim()
            .to_string();
        if reason.is_empty() {
            let what = decision.choose(
                "say how the plan changes",
                "give the reasoning",
                "say what the user has to decide",
            );
            return Err(error(
                line_number,
                &id,
                format!("{what} after `{}`", decision.as_str()),
            ));
        }
        if !answered.insert(id.clone()) {
            return Err(error(
                line_number,
                &id,
                format!("{id} has two responses; give it one"),
            ));
        }
        responses.push((id, Response { decision, reason }));
    }
    let missing: Vec<&str> = items
        .iter()
        .copied()
        .filter(|id| !answered.contains(*id))
        .collect();
    if !missing.is_empty() {
        return Err(error(
            1,
            "",
            format!(
                "every challenge and proposal needs one response (`ID: accept|reject|defer — reason`); none for {}",
                missing.join(", ")
            ),
        ));
    }
    Ok(Read {
        value: responses,
        notes,
    })
}

/// The assumptions a plan marks `[UNVERIFIED]` (PC-24), each as its line's
/// text without the marker and list bullets, in order, without repeats.
pub fn unverified_markers(plan: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for line in plan.lines() {
        let upper = line.to_ascii_uppercase();
        let Some(at) = upper.find("[UNVERIFIED]") else {
            continue;
        };
        let text = format!("{}{}", &line[..at], &line[at + "[UNVERIFIED]".len()..]);
        let text = text
            .trim()
            .trim_start_matches(['-', '*', '+', ' '])
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ')')
            .trim()
            .trim_matches(['*', '_', ':'])
            .trim()
            .to_string();
        if !text.is_empty() && seen.insert(text.clone()) {
            found.push(text);
        }
    }
    found
}

/// One row of a synthesizer's critique log, as written: the item id of its
/// first cell, its source and its resolution.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WrittenRow {
    pub id: String,
    pub source: String,
    pub resolution: String,
}

/// What a synthesizer's critique log says, for checking against the
/// decisions: its rows, each with the item id it names, and its count
/// lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WrittenLog {
    pub rows: Vec<WrittenRow>,
    /// The lines under the table that start with `**`, as written.
    pub counts: Vec<String>,
    /// Byte range of the whole section in the document.
    pub span: (usize, usize),
}

/// The `## Critique Log` section of `document`, if it has one.
pub fn critique_log(document: &str) -> Option<WrittenLog> {
    let lower = document.to_ascii_lowercase();
    let start = lower.find("## critique log")?;
    let after_heading = start + "## critique log".len();
    let end = lower[after_heading..]
        .find("\n## ")
        .map_or(document.len(), |offset| after_heading + offset + 1);
    let section = &document[start..end];
    let mut log = WrittenLog {
        span: (start, end),
        ..WrittenLog::default()
    };
    for line in section.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('|') {
            let cells: Vec<String> = trimmed
                .trim_matches('|')
                .split('|')
                .map(|cell| strip_emphasis(cell.trim()))
                .collect();
            let is_rule = cells
                .iter()
                .all(|cell| cell.chars().all(|c| matches!(c, '-' | ':')));
            if cells.len() >= 5 && !is_rule && !cells[0].eq_ignore_ascii_case("#") {
                log.rows.push(WrittenRow {
                    id: cells[0].to_ascii_uppercase(),
                    source: cells[1].clone(),
                    resolution: cells[4].clone(),
                });
            }
        } else if trimmed.starts_with("**") {
            log.counts.push(trimmed.to_string());
        }
    }
    Some(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHALLENGES: &str = "Two problems.\n\n**Challenge 1**: Operations - No rollback path\nProblem: Step 4 drops the old column.\nEvidence: migrations/0042.sql:3\nSuggestion: Keep the column one release.\nSeverity: HIGH\n\n**Challenge 2**: Data - One tenant per schema\nProblem: The plan mixes tenants.\nAssumes: Every query filters by tenant.\nEvidence: db/schema.sql:12\nSuggestion: Add tenant_id to every index.\nSeverity: CRITICAL\n";

    /// PC-29, PC-09: the seed's challenge format, most severe first.
    #[test]
    fn pc_09_pc_29_challenges_are_read_and_ordered_by_severity() {
        let read = read_challenges(CHALLENGES).unwrap();
        let levels: Vec<Level> = read.value.iter().map(|item| item.level).collect();
        assert_eq!(levels, [Level::Critical, Level::High]);
        assert_eq!(
            read.notes,
            ["put the challenges in severity order, CRITICAL first"]
        );
        assert_eq!(read.value[0].category, "Data");
        assert_eq!(read.value[0].summary, "One tenant per schema");
        assert_eq!(
            read.value[0].fields[1],
            (
                "Assumes".to_string(),
                "Every query filters by tenant.".to_string()
            )
        );
        assert!(
            read_challenges("No challenges: the plan holds.")
                .unwrap()
                .value
                .is_empty()
        );
    }

    /// PC-29: no LOW severity; the fields are required; a wrong format is
    /// an error naming its line, for the repair.
    #[test]
    fn pc_06_pc_29_a_challenge_needs_its_fields() {
        let low = CHALLENGES.replace("Severity: HIGH", "Severity: LOW");
        let error = read_challenges(&low).unwrap_err();
        assert_eq!(error.line, Some(7));
        assert_eq!(error.field.as_deref(), Some("Challenge 1.Severity"));
        assert!(
            error.message.starts_with("LOW is not a challenge severity"),
            "{error}"
        );
        let cut = CHALLENGES.replace("Evidence: db/schema.sql:12\n", "");
        let error = read_challenges(&cut).unwrap_err();
        assert_eq!(
            error.to_string(),
            "line 9, Challenge 2.Evidence: `Evidence:` is missing"
        );
        let error = read_challenges("```yaml\nchallenges: []\n```").unwrap_err();
        assert!(error.message.starts_with("no `**Challenge N**"), "{error}");
        let nameless = CHALLENGES.replace("Operations - No rollback path", "No rollback path");
        let error = read_challenges(&nameless).unwrap_err();
        assert!(error.message.starts_with("name the category"), "{error}");
    }

    /// PC-30: the seed's proposal format, `Resolves:` for a third option.
    #[test]
    fn pc_30_proposals_are_read() {
        let text = "**Improvement 1**: Delivery - Ship behind a flag\nCurrent: A big-bang switch.\nProposed: A per-tenant flag.\nBenefit: Rollback in seconds.\nPriority: HIGH\nResolves: c1\n";
        let read = read_proposals(text).unwrap();
        assert_eq!(read.value[0].refers_to.as_deref(), Some("C1"));
        assert_eq!(read.value[0].level, Level::High);
        let error =
            read_proposals(&text.replace("Priority: HIGH", "Priority: urgent")).unwrap_err();
        assert!(
            error
                .message
                .starts_with("expected one of HIGH, MEDIUM, LOW"),
            "{error}"
        );
        assert!(
            read_proposals("No improvements to add.")
                .unwrap()
                .value
                .is_empty()
        );
    }

    /// PC-14: one response per item, each with its reason.
    #[test]
    fn pc_14_every_item_gets_one_response() {
        let text = "Responses:\n- C1: accept — keep the column for one release\n- **C2**: REJECT: tenants never share a schema here\n- i1: defer - the user picks the flag system\n";
        let read = read_responses(text, &["C1", "C2", "I1"]).unwrap();
        let decisions: Vec<ItemDecision> = read.value.iter().map(|(_, r)| r.decision).collect();
        assert_eq!(
            decisions,
            [
                ItemDecision::Accept,
                ItemDecision::Reject,
                ItemDecision::Defer
            ]
        );
        assert_eq!(read.value[1].1.reason, "tenants never share a schema here");
        let error = read_responses(text, &["C1", "C2", "I1", "I2"]).unwrap_err();
        assert!(error.message.ends_with("none for I2"), "{error}");
        let error = read_responses("C1: accept\n", &["C1"]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "line 1, C1: say how the plan changes after `accept`"
        );
        let error = read_responses("C1: accept — x\nC1: reject — y\n", &["C1"]).unwrap_err();
        assert!(error.message.contains("two responses"), "{error}");
    }

    /// PC-24, PC-25: markers in a plan, and the verification lines.
    #[test]
    fn pc_24_pc_25_unverified_assumptions_are_tracked() {
        let plan = "## Steps\n1. [UNVERIFIED] Postgres 14 supports MERGE.\n- Use the queue's FIFO mode [UNVERIFIED]\n- Use the queue's FIFO mode [UNVERIFIED]\n";
        assert_eq!(
            unverified_markers(plan),
            ["Postgres 14 supports MERGE.", "Use the queue's FIFO mode"]
        );
        let text = "Verification:\n- U1: [REFUTED] MERGE arrived in Postgres 15 (see Challenge 2)\n- **u2**: [VERIFIED] the SQS docs, FIFO queues\n- U9: [VERIFIED] nothing\nU3 [UNVERIFIED] no access to the vendor\n";
        let found = read_verifications(text, &["U1", "U2", "U3"]);
        assert_eq!(found.len(), 3);
        assert_eq!(found[0].1, Verification::Refuted);
        assert_eq!(found[1].0, "U2");
        assert_eq!(found[1].2, "the SQS docs, FIFO queues");
        assert_eq!(found[2].1, Verification::Unverified);
    }

    #[test]
    fn a_synthesizers_log_is_read_for_checking() {
        let document = "# Plan\n\n## Critique Log\n\n| # | Source | Challenge/Proposal | Category | Resolution | Detail |\n|---|---|---|---|---|---|\n| 1 | Critic | No rollback | Ops | Accepted | kept |\n| 2 | Optimizer | Flag | Delivery | **Deferred** | user |\n\n**Debate rounds**: 1\n**Critic challenges**: 1 (Accepted: 1 | Rejected: 0 | Deferred: 0)\n\n## Progress Tracking\n- [ ] x\n";
        let log = critique_log(document).unwrap();
        let rows: Vec<(&str, &str, &str)> = log
            .rows
            .iter()
            .map(|row| {
                (
                    row.id.as_str(),
                    row.source.as_str(),
                    row.resolution.as_str(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [("1", "Critic", "Accepted"), ("2", "Optimizer", "Deferred")]
        );
        assert_eq!(log.counts.len(), 2);
        assert!(document[log.span.1..].starts_with("## Progress Tracking"));
    }

    /// Found by the agent_answers fuzz target
    /// (`fuzz/artifacts/agent_answers/crash-f1823ce9…`): a response whose
    /// word is not a decision, with a multi-byte character within its first
    /// 20 bytes, is refused with an excerpt, not a panic.
    #[test]
    fn a_bad_decision_word_is_quoted_without_cutting_a_character() {
        let crash = "C1::VV\0\u{c}-0otno wuuusdu\u{84284})\nimprovement8!";
        let error = read_responses(crash, &["C1"]).unwrap_err();
        assert!(
            error.message.contains("expected accept, reject or defer"),
            "{error}"
        );
        let error = read_responses("C1: ééééééééééééééééééééé\n", &["C1"]).unwrap_err();
        assert!(error.message.contains("ééé"), "{error}");
    }
}
