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
use crate::parse::{ParseError, Read, Slip, over_item_limit, quote};
use crate::protocol::ItemDecision;

use super::model::{Evidence, Level, Response, Verification};

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

/// Every block of `format` in `text`, read, in the answer's order, item by
/// item (issue 59): a block that cannot be read is left out as a slip
/// named as the answer numbered it (`Challenge 3`), the others read; a
/// `Reopens:` or `Resolves:` naming no item of `refers_known` is left out
/// the same way, its item kept. No block is an error unless the answer
/// says it has none.
fn read_items(
    text: &str,
    format: &ItemFormat,
    refers_known: &[&str],
) -> Result<Read<Vec<Written>>, ParseError> {
    let found = blocks::blocks(text, format.heading, format.keys);
    if found.is_empty() && !format.none_of.iter().any(|plural| says_none(text, plural)) {
        return Err(error(1, "", format.no_blocks));
    }
    within_item_limit(&found, format.plural)?;
    let refers = KnownIds::new(refers_known.iter().copied());
    let mut read = Read::exact(Vec::with_capacity(found.len()));
    for (index, block) in found.iter().enumerate() {
        let label = block_label(block, format);
        let mut notes = Vec::new();
        match written(block, format, &mut notes) {
            Ok(mut item) => {
                if let Some(slip) =
                    check_refers(&mut item, block, format, &refers, &label, &mut notes)
                {
                    read.slips.push(slip);
                }
                read.notes.extend(notes);
                read.value.push(item);
            }
            Err(error) => read.slips.push(Slip {
                index: Some(index),
                id: Some(label),
                error,
            }),
        }
    }
    Ok(read)
}

/// `Challenge 3`, as the answer numbered the block, or `Challenge` when it
/// gave no number.
fn block_label(block: &Block, format: &ItemFormat) -> String {
    match block.number {
        Some(number) => format!("{} {number}", format.heading),
        None => format.heading.to_string(),
    }
}

/// Checks what an item's `Reopens:` or `Resolves:` names against
/// `known`: read as the one item it fits (noted when written otherwise),
/// or, naming none, dropped from the item as a slip of its own.
fn check_refers(
    item: &mut Written,
    block: &Block,
    format: &ItemFormat,
    known: &KnownIds<'_>,
    label: &str,
    notes: &mut Vec<String>,
) -> Option<Slip> {
    let written = item.refers_to.clone()?;
    if written.eq_ignore_ascii_case("n/a") || written.eq_ignore_ascii_case("none") {
        item.refers_to = None;
        return None;
    }
    match known.match_id(&written) {
        IdMatch::Exact(id) => {
            item.refers_to = Some(id);
            None
        }
        IdMatch::Read(id) => {
            notes.push(format!(
                "read {} {} as {id} ({label})",
                format.refers_key,
                quote(&written)
            ));
            item.refers_to = Some(id);
            None
        }
        IdMatch::Ambiguous(_) | IdMatch::Unknown => {
            item.refers_to = None;
            let known: Vec<String> = known.ids().iter().map(|id| id.to_string()).collect();
            Some(Slip {
                index: None,
                id: Some(format!("{}'s {}", label, format.refers_key)),
                error: error(
                    block.line_of(format.refers_key),
                    &format!("{label}.{}", format.refers_key),
                    format!(
                        "{} names no one item of the debate ({}); the {} stands without it",
                        quote(&written),
                        if known.is_empty() {
                            "there is none yet".to_string()
                        } else {
                            crate::parse::list_capped(&known)
                        },
                        format.heading.to_lowercase()
                    ),
                ),
            })
        }
    }
}

fn written(
    block: &Block,
    format: &ItemFormat,
    notes: &mut Vec<String>,
) -> Result<Written, ParseError> {
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
    let names: Vec<&str> = allowed.iter().map(|level| level.as_str()).collect();
    let near = || {
        let word = strip_emphasis(written_level).to_ascii_uppercase();
        crate::parse::normalise::near_word(&word, &names).map(|place| allowed[place])
    };
    let level = match Level::parse(written_level) {
        Some(level) if allowed.contains(&level) => level,
        None if near().is_some() => {
            let level = near().expect("checked");
            notes.push(format!(
                "read {level_key} {} as {} ({label})",
                quote(written_level),
                level.as_str()
            ));
            level
        }
        Some(Level::Low) => {
            return Err(error(
                block.line_of(level_key),
                &format!("{label}.{level_key}"),
                "LOW is not a challenge severity: raise it as MEDIUM or leave it out",
            ));
        }
        _ => {
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
/// repair. A `Reopens:` names one of `refers_known`.
pub fn read_challenges(
    text: &str,
    refers_known: &[&str],
) -> Result<Read<Vec<Written>>, ParseError> {
    let mut read = read_items(text, &CHALLENGES, refers_known)?;
    if read
        .value
        .windows(2)
        .any(|pair| pair[0].level > pair[1].level)
    {
        read.notes
            .push("put the challenges in severity order, CRITICAL first".to_string());
    }
    read.value.sort_by_key(|item| item.level);
    Ok(read)
}

/// The optimizer's proposals (PC-30). `No improvements` is a valid answer.
/// A `Resolves:` names one of `refers_known`.
pub fn read_proposals(text: &str, refers_known: &[&str]) -> Result<Read<Vec<Written>>, ParseError> {
    read_items(text, &PROPOSALS, refers_known)
}

/// One verification of an assumption (PC-25): its id, the result and the
/// note after the marker.
pub type Checked = (String, Verification, String);

/// The words a verification's marker may be, and what each reads as.
const MARKERS: [(&str, Verification); 4] = [
    ("VERIFIED", Verification::Verified),
    ("UNVERIFIED", Verification::Unverified),
    ("REFUTED", Verification::Refuted),
    ("FALSE", Verification::Refuted),
];

/// Verification lines for the assumptions in `known` (PC-25):
/// `U2: [VERIFIED] the docs say ...`, `U3: [UNVERIFIED] no access`,
/// `U1: [REFUTED] see Challenge 2`. Item by item (issue 59): a marker
/// misspelt by a letter or two (`[UNVERIFID]`) is read as the one it is
/// near, noted; one that is no marker, or a line about an assumption not in
/// `known`, is left out as a slip; an assumption checked twice in one
/// answer reads once when both say the same, and not at all when they
/// differ. Lines that are not `U…: [...]` are prose, and read past.
pub fn read_verifications(text: &str, known: &[&str]) -> Read<Vec<Checked>> {
    let known_ids = KnownIds::new(known.iter().copied());
    let mut read = Read::exact(Vec::new());
    let mut lines_of: Vec<(String, usize)> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        let body = line.trim().trim_start_matches(['-', '*', '+', ' ']);
        let body = body.trim_start_matches(['*', '_']);
        let id_len = body
            .find(|c: char| !(c.is_ascii_alphanumeric()))
            .unwrap_or(body.len());
        let (written_id, rest) = body.split_at(id_len);
        let upper = written_id.to_ascii_uppercase();
        if !upper.starts_with('U')
            || upper.len() < 2
            || !upper[1..].bytes().all(|b| b.is_ascii_digit())
        {
            continue;
        }
        let rest = rest.trim_start_matches(['*', '_', ':', ' ', '-', '—']);
        let Some(open) = rest.find('[') else { continue };
        let Some(close) = rest[open..].find(']') else {
            continue;
        };
        let word = rest[open + 1..open + close].trim().to_ascii_uppercase();
        let id = match known_ids.match_id(written_id) {
            IdMatch::Exact(id) => id,
            IdMatch::Read(id) => {
                read.notes
                    .push(format!("read {} as {id}", quote(written_id)));
                id
            }
            _ => {
                read.slips.push(Slip::of(
                    format!("check of {}", written_id.trim()),
                    error(
                        line_number,
                        written_id.trim(),
                        format!(
                            "{} is no assumption of this plan ({})",
                            quote(written_id),
                            if known.is_empty() {
                                "it has none".to_string()
                            } else {
                                known.join(", ")
                            }
                        ),
                    ),
                ));
                continue;
            }
        };
        let names: Vec<&str> = MARKERS.iter().map(|(name, _)| *name).collect();
        let result = match names.iter().position(|name| *name == word) {
            Some(place) => MARKERS[place].1,
            None => match crate::parse::normalise::near_word(&word, &names) {
                Some(place) => {
                    read.notes.push(format!(
                        "read [{}] as [{}] ({id})",
                        rest[open + 1..open + close].trim(),
                        names[place]
                    ));
                    MARKERS[place].1
                }
                None => {
                    read.slips.push(Slip::of(
                        format!("check of {id}"),
                        error(
                            line_number,
                            &id,
                            format!(
                                "expected [VERIFIED], [UNVERIFIED] or [REFUTED]; found {}",
                                quote(&rest[open..=open + close])
                            ),
                        ),
                    ));
                    continue;
                }
            },
        };
        let note = rest[open + close + 1..]
            .trim_start_matches([':', ' ', '-', '—'])
            .trim()
            .to_string();
        lines_of.push((id.clone(), line_number));
        read.value.push((id, result, note));
    }
    // One check per assumption an answer: the same twice reads once, two
    // that differ take neither (issue 59: a conflict is never a pick).
    let mut kept: Vec<Checked> = Vec::new();
    let mut conflicted: Vec<String> = Vec::new();
    for check in std::mem::take(&mut read.value) {
        match kept.iter().find(|other| other.0 == check.0) {
            Some(other) if other.1 == check.1 => {
                read.notes.push(format!(
                    "read past a second {} check of {}",
                    check.1.as_str(),
                    check.0
                ));
            }
            Some(_) => {
                if !conflicted.contains(&check.0) {
                    conflicted.push(check.0.clone());
                }
            }
            None => kept.push(check),
        }
    }
    for id in &conflicted {
        let lines: Vec<String> = lines_of
            .iter()
            .filter(|(of, _)| of == id)
            .map(|(_, line)| line.to_string())
            .collect();
        let first = lines_of
            .iter()
            .find(|(of, _)| of == id)
            .map_or(1, |(_, line)| *line);
        read.slips.push(Slip::of(
            format!("check of {id}"),
            error(
                first,
                id,
                format!(
                    "{id} is checked with different results (lines {}); give it one",
                    lines.join(", ")
                ),
            ),
        ));
    }
    kept.retain(|check| !conflicted.contains(&check.0));
    read.value = kept;
    read
}

/// What a critic or an optimizer raised in one answer, and what it
/// reported of the assumptions: the answer read whole, item by item.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contribution {
    pub items: Vec<Written>,
    pub checks: Vec<Checked>,
}

impl Contribution {
    /// Everything read: items and checks.
    pub fn len(&self) -> usize {
        self.items.len() + self.checks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A critic's or an optimizer's answer: its items (`items` reads them, as
/// [`read_challenges`] or [`read_proposals`] do), and its checks of the
/// assumptions in `assumptions`.
pub fn read_contribution(
    text: &str,
    items: impl Fn(&str) -> Result<Read<Vec<Written>>, ParseError>,
    assumptions: &[&str],
) -> Result<Read<Contribution>, ParseError> {
    let mut read = items(text)?;
    let checks = read_verifications(text, assumptions);
    read.notes.extend(checks.notes);
    read.slips.extend(checks.slips);
    Ok(Read {
        value: Contribution {
            items: read.value,
            checks: checks.value,
        },
        notes: read.notes,
        slips: read.slips,
    })
}

/// The planner's proposed response to each of `items` (PC-14): one line
/// each, `C1: accept — what changes`, `I2: reject — why`, `C3: defer —
/// what the user must decide`. Item by item (issue 59): a decision word
/// misspelt by a letter or two is read as the one it is near, noted; a line
/// with no reason, an unknown word, or an item id that is none of `items`
/// (`C9`) is left out as a slip; an item answered twice reads once when both
/// say the same, and not at all when they differ; an item with no response
/// is a slip of its own. What the moderator decides is never taken from
/// here alone: a response is the planner's proposal.
pub fn read_responses(
    text: &str,
    items: &[&str],
) -> Result<Read<Vec<(String, Response)>>, ParseError> {
    const DECISIONS: [(&str, ItemDecision); 9] = [
        ("accept", ItemDecision::Accept),
        ("accepted", ItemDecision::Accept),
        ("accepts", ItemDecision::Accept),
        ("reject", ItemDecision::Reject),
        ("rejected", ItemDecision::Reject),
        ("rejects", ItemDecision::Reject),
        ("defer", ItemDecision::Defer),
        ("deferred", ItemDecision::Defer),
        ("defers", ItemDecision::Defer),
    ];
    let known = KnownIds::new(items.iter().copied());
    let mut read: Read<Vec<(String, Response)>> = Read::exact(Vec::new());
    let mut given: Vec<(String, Response, usize)> = Vec::new();
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
                read.notes
                    .push(format!("read {} as {id}", quote(written_id)));
                id
            }
            _ if looks_like_item_id(written_id) => {
                read.slips.push(Slip::of(
                    format!("response to {written_id}"),
                    error(
                        line_number,
                        written_id,
                        format!(
                            "{} is no challenge or proposal of this round ({})",
                            quote(written_id),
                            items.join(", ")
                        ),
                    ),
                ));
                continue;
            }
            _ => continue,
        };
        let rest = rest.trim_start_matches(['*', '_', ':', ' ', '-', '—', '–']);
        let word_len = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let word = rest[..word_len].to_ascii_lowercase();
        let names: Vec<&str> = DECISIONS.iter().map(|(name, _)| *name).collect();
        let decision = match names.iter().position(|name| *name == word) {
            Some(place) => DECISIONS[place].1,
            None => match crate::parse::normalise::near_word(&word, &names) {
                Some(place) => {
                    read.notes.push(format!(
                        "read {} as {} ({id})",
                        quote(&rest[..word_len]),
                        DECISIONS[place].1.as_str()
                    ));
                    DECISIONS[place].1
                }
                None => {
                    read.slips.push(Slip::of(
                        format!("response to {id}"),
                        error(
                            line_number,
                            &id,
                            format!(
                                "expected accept, reject or defer after {id}; found {}",
                                // The word, or its first 20 characters: never a
                                // byte cut inside a character (found by the fuzzer).
                                quote(&rest.chars().take(word_len.max(20)).collect::<String>())
                            ),
                        ),
                    ));
                    continue;
                }
            },
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
            read.slips.push(Slip::of(
                format!("response to {id}"),
                error(
                    line_number,
                    &id,
                    format!("{what} after `{}`", decision.as_str()),
                ),
            ));
            continue;
        }
        given.push((id, Response { decision, reason }, line_number));
    }
    // One response an item: the same twice reads once; two that differ
    // take neither (issue 59).
    let mut conflicted: Vec<String> = Vec::new();
    for (id, response, line_number) in &given {
        let first_line = given
            .iter()
            .find(|(other, _, _)| other == id)
            .map_or(*line_number, |(_, _, line)| *line);
        match read.value.iter().find(|(other, _)| other == id) {
            Some((_, earlier)) if earlier == response => {
                read.notes.push(format!(
                    "read past a second, identical response to {id} (line {line_number})"
                ));
            }
            Some(_) => {
                if !conflicted.contains(id) {
                    conflicted.push(id.clone());
                    let lines: Vec<String> = given
                        .iter()
                        .filter(|(other, _, _)| other == id)
                        .map(|(_, _, line)| line.to_string())
                        .collect();
                    read.slips.push(Slip::of(
                        format!("response to {id}"),
                        error(
                            first_line,
                            id,
                            format!(
                                "{id} has responses that differ (lines {}); give it one",
                                lines.join(", ")
                            ),
                        ),
                    ));
                }
            }
            None => read.value.push((id.clone(), response.clone())),
        }
    }
    read.value.retain(|(id, _)| !conflicted.contains(id));
    for id in items {
        let answered = read.value.iter().any(|(given, _)| given == id)
            || read
                .slips
                .iter()
                .any(|slip| slip.id.as_deref() == Some(&format!("response to {id}")));
        if !answered {
            read.slips.push(Slip::of(
                format!("response to {id}"),
                error(
                    1,
                    id,
                    format!("no response to {id} (`{id}: accept|reject|defer — reason`)"),
                ),
            ));
        }
    }
    Ok(read)
}

/// Whether `word` has the shape of a planning item's id: `C` or `I`, then
/// digits (`C9`, `i12`).
fn looks_like_item_id(word: &str) -> bool {
    let mut chars = word.chars();
    matches!(chars.next(), Some('C' | 'c' | 'I' | 'i'))
        && word.len() > 1
        && chars.all(|c| c.is_ascii_digit())
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

/// The assumptions a critic or an optimizer marks `[UNVERIFIED]` in its
/// own answer (issue 60): a line that opens with the marker, after any
/// bullet or number, as the planner's do. A verification line (`U2:
/// [UNVERIFIED] no access`) reports on an assumption already tracked and
/// raises none, and neither does a marker in the middle of a sentence
/// (`the plan's [UNVERIFIED] claim`).
pub fn raised_markers(answer: &str) -> Vec<String> {
    let opening: String = answer
        .lines()
        .filter(|line| {
            let body = line
                .trim()
                .trim_start_matches(['-', '*', '+', ' '])
                .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ')')
                .trim_start_matches(['*', '_', ' ']);
            body.get(..MARKER.len())
                .is_some_and(|opening| opening.eq_ignore_ascii_case(MARKER))
        })
        .map(|line| format!("{line}\n"))
        .collect();
    unverified_markers(&opening)
}

/// The marker of an assumption nobody has verified (PC-24).
const MARKER: &str = "[UNVERIFIED]";

/// Words a quoted passage needs to count as evidence: `"yes"` quotes
/// nothing.
const QUOTE_WORDS_MIN: usize = 3;

/// The evidence a verification's note gives (PC-25, issue 60), the first
/// of these found:
///
/// - a link: `http://` or `https://` and a host with a dot in it
///   (`https://www.postgresql.org/docs/15/sql-copy.html`);
/// - a quoted passage of three words or more, between straight or curly
///   double quotes (`"COPY TO STDOUT sends rows as they are read"`);
///   single quotes are apostrophes too often to count;
/// - a place in a file: a path with a `/` or an extension, then a colon
///   and a line number or range (`db/policies.sql:8`, `runner.py:40-57`),
///   or `#L12` as code hosts write it.
///
/// `None` when the note gives none of them: a `[VERIFIED]` with nothing to
/// check it by.
pub fn evidence_in(note: &str) -> Option<Evidence> {
    use std::sync::LazyLock;
    static LINK: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(
            r#"(?i)\bhttps?://[^\s/?#<>()\[\]"'`]+\.[^\s/?#<>()\[\]"'`]+[^\s<>()\[\]"'`]*"#,
        )
        .expect("a valid pattern")
    });
    static QUOTE: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r#""([^"]+)"|\x{201C}([^\x{201D}]+)\x{201D}"#).expect("a valid pattern")
    });
    static PLACE: LazyLock<regex::Regex> = LazyLock::new(|| {
        let line = r"(?::\d+(?:[-\x{2013}]\d+)?|#L\d+(?:-L?\d+)?)";
        let with_extension =
            r"(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\.[A-Za-z][A-Za-z0-9]*";
        let with_folder = r"(?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]+";
        regex::Regex::new(&format!(
            r"(?:^|[^A-Za-z0-9_./-])((?:{with_extension}|{with_folder}){line})"
        ))
        .expect("a valid pattern")
    });
    if let Some(link) = LINK.find(note) {
        let link = link
            .as_str()
            .trim_end_matches(['.', ',', ';', ':', '!', '?']);
        return Some(Evidence::Link(link.to_string()));
    }
    for quoted in QUOTE.captures_iter(note) {
        let passage = quoted.get(1).or(quoted.get(2)).map_or("", |m| m.as_str());
        let words = passage
            .split_whitespace()
            .filter(|word| word.chars().any(char::is_alphanumeric))
            .count();
        if words >= QUOTE_WORDS_MIN {
            return Some(Evidence::Quote(quoted[0].to_string()));
        }
    }
    PLACE
        .captures(note)
        .and_then(|place| place.get(1))
        .map(|place| Evidence::Place(place.as_str().to_string()))
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
        let read = read_challenges(CHALLENGES, &[]).unwrap();
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
            read_challenges("No challenges: the plan holds.", &[])
                .unwrap()
                .value
                .is_empty()
        );
    }

    /// PC-29: no LOW severity; the fields are required. Item by item
    /// (issue 59): a challenge that breaks the format is left out as a slip
    /// named as the critic numbered it, at its line; the others are read.
    /// An answer with no challenge and no word of none is an error.
    #[test]
    fn pc_06_pc_29_a_challenge_needs_its_fields() {
        let slip_of = |text: &str| {
            let read = read_challenges(text, &[]).unwrap();
            assert_eq!(read.value.len(), 1, "the other challenge is read");
            assert_eq!(read.slips.len(), 1, "{:?}", read.slips);
            read.slips[0].clone()
        };
        let low = CHALLENGES.replace("Severity: HIGH", "Severity: LOW");
        let slip = slip_of(&low);
        assert_eq!(slip.id.as_deref(), Some("Challenge 1"));
        assert_eq!(slip.error.line, Some(7));
        assert_eq!(slip.error.field.as_deref(), Some("Challenge 1.Severity"));
        assert!(
            slip.error
                .message
                .starts_with("LOW is not a challenge severity"),
            "{}",
            slip.error
        );
        let cut = CHALLENGES.replace("Evidence: db/schema.sql:12\n", "");
        assert_eq!(
            slip_of(&cut).error.to_string(),
            "line 9, Challenge 2.Evidence: `Evidence:` is missing"
        );
        let error = read_challenges("```yaml\nchallenges: []\n```", &[]).unwrap_err();
        assert!(error.message.starts_with("no `**Challenge N**"), "{error}");
        let nameless = CHALLENGES.replace("Operations - No rollback path", "No rollback path");
        assert!(
            slip_of(&nameless)
                .error
                .message
                .starts_with("name the category"),
            "nameless"
        );
        // A severity misspelt by a letter is read, noted.
        let read =
            read_challenges(&CHALLENGES.replace("Severity: HIGH", "Severity: HIHG"), &[]).unwrap();
        assert!(read.slips.is_empty(), "{:?}", read.slips);
        assert!(
            read.notes
                .contains(&"read Severity \"HIHG\" as HIGH (Challenge 1)".to_string()),
            "{:?}",
            read.notes
        );
    }

    /// PC-30: the seed's proposal format, `Resolves:` for a third option,
    /// naming a challenge of the debate; one naming none is left out of the
    /// proposal as a slip, the proposal kept (issue 59).
    #[test]
    fn pc_30_proposals_are_read() {
        let text = "**Improvement 1**: Delivery - Ship behind a flag\nCurrent: A big-bang switch.\nProposed: A per-tenant flag.\nBenefit: Rollback in seconds.\nPriority: HIGH\nResolves: c1\n";
        let read = read_proposals(text, &["C1", "C2"]).unwrap();
        assert_eq!(read.value[0].refers_to.as_deref(), Some("C1"));
        assert_eq!(read.value[0].level, Level::High);
        assert!(read.notes.is_empty(), "{:?}", read.notes);
        let decorated = text.replace("Resolves: c1", "Resolves: C2 (the timeout)");
        let read = read_proposals(&decorated, &["C1", "C2"]).unwrap();
        assert_eq!(read.value[0].refers_to.as_deref(), Some("C2"));
        assert_eq!(
            read.notes,
            ["read Resolves \"C2 (THE TIMEOUT)\" as C2 (Improvement 1)"]
        );
        let read =
            read_proposals(&text.replace("Priority: HIGH", "Priority: urgent"), &["C1"]).unwrap();
        assert!(read.value.is_empty());
        assert!(
            read.slips[0]
                .error
                .message
                .starts_with("expected one of HIGH, MEDIUM, LOW"),
            "{:?}",
            read.slips
        );
        let read = read_proposals(&text.replace("Resolves: c1", "Resolves: C9"), &["C1"]).unwrap();
        assert_eq!(read.value.len(), 1, "the proposal stands");
        assert_eq!(read.value[0].refers_to, None);
        assert_eq!(
            read.slips[0].id.as_deref(),
            Some("Improvement 1's Resolves")
        );
        assert!(
            read.slips[0]
                .error
                .message
                .contains("\"C9\" names no one item"),
            "{}",
            read.slips[0].error
        );
        assert!(
            read_proposals("No improvements to add.", &[])
                .unwrap()
                .value
                .is_empty()
        );
    }

    /// PC-14: one response per item, each with its reason. Item by item
    /// (issue 59): a line without a reason, an item answered twice with
    /// different words, a response to an item never raised and an item with
    /// no response are each a slip; an identical second response and a
    /// misspelt decision word are read, noted.
    #[test]
    fn pc_14_every_item_gets_one_response() {
        let text = "Responses:\n- C1: accept — keep the column for one release\n- **C2**: REJECT: tenants never share a schema here\n- i1: defer - the user picks the flag system\n";
        let read = read_responses(text, &["C1", "C2", "I1"]).unwrap();
        assert!(read.slips.is_empty());
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
        let slipped = |text: &str, items: &[&str]| -> Vec<String> {
            let read = read_responses(text, items).unwrap();
            read.slips.iter().map(|slip| slip.to_string()).collect()
        };
        assert_eq!(
            slipped(text, &["C1", "C2", "I1", "I2"]),
            ["response to I2: line 1, I2: no response to I2 (`I2: accept|reject|defer — reason`)"]
        );
        assert_eq!(
            slipped("C1: accept\n", &["C1"]),
            ["response to C1: line 1, C1: say how the plan changes after `accept`"]
        );
        assert_eq!(
            slipped("C1: accept — x\nC1: reject — y\n", &["C1"]),
            ["response to C1: line 1, C1: C1 has responses that differ (lines 1, 2); give it one"]
        );
        assert_eq!(
            slipped("C1: accept — x\nC9: reject — y\n", &["C1"]),
            ["response to C9: line 2, C9: \"C9\" is no challenge or proposal of this round (C1)"]
        );
        let read = read_responses("C1: acept — x\nC1: acept — x\n", &["C1"]).unwrap();
        assert!(read.slips.is_empty(), "{:?}", read.slips);
        assert_eq!(read.value.len(), 1);
        assert_eq!(read.value[0].1.decision, ItemDecision::Accept);
        assert_eq!(read.notes.len(), 3, "{:?}", read.notes);
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
        let read = read_verifications(text, &["U1", "U2", "U3"]);
        let found = &read.value;
        assert_eq!(found.len(), 3);
        assert_eq!(found[0].1, Verification::Refuted);
        assert_eq!(found[1].0, "U2");
        assert_eq!(found[1].2, "the SQS docs, FIFO queues");
        assert_eq!(found[2].1, Verification::Unverified);
        // Issue 59: a check of an assumption that does not exist is a slip,
        // not dropped without a trace.
        assert_eq!(read.slips.len(), 1);
        assert_eq!(read.slips[0].id.as_deref(), Some("check of U9"));
    }

    /// Issue 59: a misspelt marker is read as the one it is near, noted; a
    /// word that is no marker is a slip; an assumption checked twice with
    /// different results takes neither.
    #[test]
    fn issue_59_verification_lines_are_read_item_by_item() {
        let read = read_verifications("U1: [UNVERIFID] no access\n", &["U1"]);
        assert_eq!(
            read.value,
            [(
                "U1".to_string(),
                Verification::Unverified,
                "no access".to_string()
            )]
        );
        assert_eq!(read.notes, ["read [UNVERIFID] as [UNVERIFIED] (U1)"]);
        let read = read_verifications("U1: [MAYBE] hm\n", &["U1"]);
        assert!(read.value.is_empty());
        assert!(
            read.slips[0]
                .error
                .message
                .starts_with("expected [VERIFIED]"),
            "{:?}",
            read.slips
        );
        let read = read_verifications("U1: [VERIFIED] a\nU1: [REFUTED] b\n", &["U1"]);
        assert!(read.value.is_empty());
        assert!(
            read.slips[0]
                .error
                .message
                .contains("checked with different results (lines 1, 2)"),
            "{:?}",
            read.slips
        );
        let read = read_verifications("U1: [VERIFIED] a\nU1: [VERIFIED] b\n", &["U1"]);
        assert_eq!(read.value.len(), 1);
        assert!(read.slips.is_empty());
    }

    /// PC-25 (issue 60): what a `[VERIFIED]` needs to count: a link, a
    /// quoted passage of three words or more, or a file and line. A name
    /// of a document, a file without a line, a one-word quote, a time or
    /// an address and port is none of them.
    #[test]
    fn pc_25_a_verification_needs_a_link_a_quote_or_a_file_and_line() {
        let link = |text: &str| Some(Evidence::Link(text.to_string()));
        let place = |text: &str| Some(Evidence::Place(text.to_string()));
        assert_eq!(
            evidence_in("see https://www.postgresql.org/docs/15/sql-copy.html."),
            link("https://www.postgresql.org/docs/15/sql-copy.html")
        );
        assert_eq!(
            evidence_in("the docs (HTTP://docs.aws.amazon.com/s3/presign)"),
            link("HTTP://docs.aws.amazon.com/s3/presign")
        );
        assert_eq!(
            evidence_in("the manual says \"COPY TO STDOUT streams rows\" plainly"),
            Some(Evidence::Quote("\"COPY TO STDOUT streams rows\"".into()))
        );
        assert_eq!(
            evidence_in("\u{201C}URLs may live up to seven days\u{201D}, per the docs"),
            Some(Evidence::Quote(
                "\u{201C}URLs may live up to seven days\u{201D}".into()
            ))
        );
        assert_eq!(
            evidence_in("db/policies.sql:8 enables it"),
            place("db/policies.sql:8")
        );
        assert_eq!(
            evidence_in("(jobs/runner.py:40-57) retries"),
            place("jobs/runner.py:40-57")
        );
        assert_eq!(evidence_in("`client.rs:41`"), place("client.rs:41"));
        assert_eq!(evidence_in("src/client.rs#L41"), place("src/client.rs#L41"));
        for bare in [
            "The Postgres COPY documentation says so",
            "src/checkout/pricing.rs: apply writes nothing",
            "they said \"yes\"",
            "it's 'fine' I'm told",
            "checked at 10:30 today",
            "10.0.0.1:5432 answers",
            "http://localhost/docs",
            "",
        ] {
            assert_eq!(evidence_in(bare), None, "{bare}");
        }
    }

    /// PC-24 (issue 60): a critic or an optimizer marks an assumption of
    /// its own by opening a line with `[UNVERIFIED]`; its verification
    /// lines and a marker mid-sentence raise none.
    #[test]
    fn pc_24_a_critic_marks_an_assumption_at_the_start_of_a_line() {
        let answer = "**Challenge 1**: Data - Leak\nAssumes: the plan's [UNVERIFIED] claim holds\n\n- U1: [UNVERIFIED] no access\nU2 [UNVERIFIED] none\n- [UNVERIFIED] Every table enables the policy.\n2. **[UNVERIFIED]** The pool holds 40 connections.\n";
        assert_eq!(
            raised_markers(answer),
            [
                "Every table enables the policy.",
                "The pool holds 40 connections."
            ]
        );
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
        let read = read_responses(crash, &["C1"]).unwrap();
        assert!(
            read.slips[0]
                .error
                .message
                .contains("expected accept, reject or defer"),
            "{:?}",
            read.slips
        );
        let read = read_responses("C1: ééééééééééééééééééééé\n", &["C1"]).unwrap();
        assert!(
            read.slips[0].error.message.contains("ééé"),
            "{:?}",
            read.slips
        );
    }
}
