//! The root-cause analysis's answer formats, read with the shared lenient
//! reader of [`crate::parse`]: a debugger's findings, the critic's rulings
//! and challenges, a debugger's answers to its challenges, and a team's
//! hypotheses file.
//!
//! Each format is a mapping with one list (`hypotheses:`, `answers:`) or
//! that bare list; the critic's has `rulings:`, `challenges:` and an
//! optional `assessment:`. Ids (`H2`, `X2.1`) are matched like every id
//! quorum reads: in any case, with words after them, when only one fits.
//!
//! Not responsible for what an answer means for the analysis (the protocol
//! decides), for hedge words (flagged by [`super::hedge`], never refused
//! here) or for numbering: quorum numbers hypotheses and challenges itself.

use std::collections::HashSet;

use yaml_serde::Sequence;

use super::model::{AnswerText, ChallengeText, ExamWord, Finding, RulingText, RulingWord, Test};
use crate::parse::normalise::KnownIds;
use crate::parse::{
    Document, FieldPath, Fields, ITEMS_PER_ANSWER_MAX, ParseError, Read, Shape, Slip, quote,
};
use crate::text::thousands;

/// The words accepted for `test` (RC-08), with the forms models use.
const TESTS: [(&str, Test); 19] = [
    ("causation", Test::Causation),
    ("causation_vs_correlation", Test::Causation),
    ("correlation", Test::Causation),
    ("alternatives", Test::Alternatives),
    ("alternative", Test::Alternatives),
    ("alternative_explanations", Test::Alternatives),
    ("confounders", Test::Confounders),
    ("confounder", Test::Confounders),
    ("contradictions", Test::Contradictions),
    ("contradiction", Test::Contradictions),
    ("timeline", Test::Timeline),
    ("reachability", Test::Reachability),
    ("sufficiency", Test::Sufficiency),
    ("culprit_change", Test::CulpritChange),
    ("culprit", Test::CulpritChange),
    ("release_timing", Test::ReleaseTiming),
    ("release", Test::ReleaseTiming),
    ("deploy_timing", Test::ReleaseTiming),
    ("timing", Test::Timeline),
];

const RULINGS: [(&str, RulingWord); 3] = [
    ("resolved", RulingWord::Resolved),
    ("unresolved", RulingWord::Unresolved),
    ("contradicted", RulingWord::Contradicted),
];

const FINDING_SHAPE: Shape = Shape {
    what: "a hypothesis (a mapping with claim, evidence, reasoning)",
    keys: &["id", "claim", "evidence", "reasoning"],
    id_key: None,
};
const CHALLENGE_SHAPE: Shape = Shape {
    what: "a challenge (a mapping with hypothesis, test, critical, quote, why, evidence_needed, alternative)",
    keys: &[
        "hypothesis",
        "test",
        "critical",
        "quote",
        "why",
        "evidence_needed",
        "alternative",
    ],
    id_key: Some("hypothesis"),
};
const RULING_SHAPE: Shape = Shape {
    what: "a ruling (a mapping with challenge, ruling, reason)",
    keys: &[
        "challenge",
        "ruling",
        "reason",
        "missing",
        "evidence_needed",
        "alternative",
    ],
    id_key: Some("challenge"),
};
const ANSWER_SHAPE: Shape = Shape {
    what: "an answer (a mapping with challenge, answer, evidence)",
    keys: &["challenge", "answer", "evidence", "concede"],
    id_key: Some("challenge"),
};

/// The list under `key` of a mapping answer, or the bare list.
fn list_of<'a>(document: &'a Document, key: &str) -> Result<(&'a Sequence, FieldPath), ParseError> {
    document.main_list(key, &format!("`{key}:` with a list"))
}

fn finding(fields: &Fields<'_>) -> Result<Finding, ParseError> {
    Ok(Finding {
        claim: fields.required_text("claim")?,
        evidence: fields.optional_texts("evidence")?,
        reasoning: fields.optional_text("reasoning")?.unwrap_or_default(),
    })
}

/// A debugger's findings: its hypotheses, each a claim with the evidence it
/// rests on and the reasoning from one to the other. An empty list is a
/// valid "nothing found"; a hypothesis that cannot be read is left out as a
/// slip at its place (issue 59).
pub fn read_findings(text: &str) -> Result<Read<Vec<Finding>>, ParseError> {
    let document = Document::load(text)?;
    let (list, path) = list_of(&document, "hypotheses")?;
    let findings = document.read_items(list, &path, "hypotheses", FINDING_SHAPE, |_, fields| {
        finding(&fields)
    })?;
    Ok(document.read(findings.into_iter().map(|(_, finding)| finding).collect()))
}

/// A hypothesis a team brings in a hypotheses file, with the debugger that
/// owns it when the file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seeded {
    pub owner: Option<String>,
    pub finding: Finding,
}

/// A hypotheses file: `hypotheses:` (or a bare list) of findings, each with
/// an optional `owner`; at most [`ITEMS_PER_ANSWER_MAX`] of them.
pub fn read_hypotheses_file(text: &str) -> Result<Vec<Seeded>, ParseError> {
    let too_many = |count: usize| {
        format!(
            "{} hypotheses, more than a hypotheses file may hold ({}); keep the ones worth a cross-examination",
            thousands(count as u64),
            thousands(ITEMS_PER_ANSWER_MAX as u64)
        )
    };
    // Counted before the file is parsed, as an answer's lists are.
    if let Ok(crate::yaml_guard::Longest {
        outermost: Some(list),
        ..
    }) = crate::yaml_guard::check_counting_lists(text)
        && list.entries > ITEMS_PER_ANSWER_MAX
    {
        return Err(ParseError {
            line: Some(list.line),
            field: list.key,
            message: too_many(list.entries),
        });
    }
    let document = Document::load(text)?;
    let (list, path) = list_of(&document, "hypotheses")?;
    if list.len() > ITEMS_PER_ANSWER_MAX {
        return Err(document.error(&path, too_many(list.len())));
    }
    let mut seeded = Vec::with_capacity(list.len());
    for (index, value) in list.iter().enumerate() {
        let fields = Fields::new(&document, value, path.index(index), FINDING_SHAPE.what)?;
        refuse_unknown_keys(&fields, text)?;
        seeded.push(Seeded {
            owner: fields.optional_text("owner")?,
            finding: finding(&fields)?,
        });
    }
    Ok(seeded)
}

/// A debugger's restatement of its surviving claim (RC-16): `claim:` with
/// the claim stated again, as a mapping.
pub fn read_restatement(text: &str) -> Result<Read<String>, ParseError> {
    let document = Document::load(text)?;
    let fields = Fields::new(
        &document,
        &document.root,
        FieldPath::root(),
        "a restatement (a mapping with claim)",
    )?;
    let claim = fields.required_text("claim")?;
    Ok(document.read(claim))
}

/// The words accepted for the critic's ruling on a restated claim.
const EXAM_WORDS: [(&str, ExamWord); 4] = [
    ("supported", ExamWord::Supported),
    ("supports", ExamWord::Supported),
    ("overreaches", ExamWord::Overreaches),
    ("overreach", ExamWord::Overreaches),
];

/// The critic's ruling on a restated claim (issue 60): `ruling:`
/// supported or overreaches, and a `reason:`.
pub fn read_examination(text: &str) -> Result<Read<(ExamWord, String)>, ParseError> {
    let document = Document::load(text)?;
    let fields = Fields::new(
        &document,
        &document.root,
        FieldPath::root(),
        "a ruling on the restatement (a mapping with ruling and reason)",
    )?;
    let ruling = fields.required_choice("ruling", &EXAM_WORDS)?;
    let reason = fields.required_text("reason")?;
    fields.note_stray_keys(&["ruling", "reason"]);
    Ok(document.read((ruling, reason)))
}

/// The keys a hypothesis in a hypotheses file may have.
const SEEDED_KEYS: [&str; 4] = ["owner", "claim", "evidence", "reasoning"];

/// A hypotheses file is the person's own: a key quorum does not know
/// (`evidenc:`) is a mistake to point at, not something to drop silently,
/// since dropping it can leave a hypothesis with no evidence at all.
fn refuse_unknown_keys(fields: &Fields<'_>, text: &str) -> Result<(), ParseError> {
    for (key, _) in fields.map {
        let name = match key.as_str() {
            Some(name) => name.to_string(),
            None => format!("{key:?}"),
        };
        if SEEDED_KEYS
            .iter()
            .any(|known| known.eq_ignore_ascii_case(&name))
        {
            continue;
        }
        let near = SEEDED_KEYS
            .iter()
            .find(|known| near_miss(known, &name.to_ascii_lowercase()))
            .map(|known| format!(" (did you mean `{known}`?)"))
            .unwrap_or_default();
        let mut error = fields.document.error(
            &fields.path.key(&name),
            format!(
                "`{name}` is not a field of a hypothesis{near}; a hypothesis has {}",
                SEEDED_KEYS.join(", ")
            ),
        );
        // The line of the key itself, not of the value under it (a list
        // under the key starts on the next line).
        if let Some(entry) = fields.document.line_of(&fields.path) {
            let written =
                text.lines()
                    .enumerate()
                    .skip(entry.saturating_sub(1))
                    .find(|(_, line)| {
                        let line = line.trim_start().trim_start_matches("- ").trim_start();
                        line.strip_prefix(name.as_str())
                            .is_some_and(|rest| rest.trim_start().starts_with(':'))
                    });
            if let Some((index, _)) = written {
                error.line = Some(index + 1);
            }
        }
        return Err(error);
    }
    Ok(())
}

/// `written` is `known` with one letter missing, added, changed or two
/// letters swapped: a typo worth naming.
fn near_miss(known: &str, written: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (known.chars().collect(), written.chars().collect());
    if a == b {
        return false;
    }
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (rest_a, rest_b) = (a.len() - prefix - suffix, b.len() - prefix - suffix);
    let swapped =
        rest_a == 2 && rest_b == 2 && a[prefix] == b[prefix + 1] && a[prefix + 1] == b[prefix];
    (rest_a <= 1 && rest_b <= 1) || swapped
}

/// The 1-based line where entry `index` of the hypotheses file `text`
/// starts, for an error about it. Finding a line reads the file again, so
/// it is asked only for the entry an error is about.
pub fn hypotheses_entry_line(text: &str, index: usize) -> Option<usize> {
    let document = Document::load(text).ok()?;
    let (_, path) = list_of(&document, "hypotheses").ok()?;
    document.line_of(&path.index(index))
}

/// What the critic's answer is read against.
pub struct CriticContext<'a> {
    /// Every hypothesis id, for matching.
    pub hypotheses: &'a [&'a str],
    /// Every challenge raised so far: a ruling on one of them whose answer
    /// waits for none is read past, not a slip.
    pub challenges: &'a [&'a str],
    /// Hypotheses that are settled: a challenge to one is left out.
    pub settled: &'a [&'a str],
    /// Hypotheses never challenged yet: each needs one now (RC-03).
    pub unchallenged: &'a [&'a str],
    /// Challenges whose answers wait for a ruling: each needs one.
    pub to_rule: &'a [&'a str],
    /// The closing ruling: no new challenges are asked for.
    pub closing: bool,
}

/// The critic's final word: what it recommends, and what is still open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CriticAssessment {
    pub recommendation: String,
    pub open_questions: Vec<String>,
}

/// The critic's answer, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CriticAnswer {
    /// One per challenge in `to_rule`, in the critic's order.
    pub rulings: Vec<(String, RulingText)>,
    /// New challenges, with the hypothesis each is addressed to.
    pub challenges: Vec<(String, ChallengeText)>,
    /// Challenges left out, and why: to a settled hypothesis, or raised in
    /// the closing ruling.
    pub left_out: Vec<String>,
    pub assessment: Option<CriticAssessment>,
}

impl CriticAnswer {
    /// Everything read: rulings, challenges and an assessment.
    pub fn len(&self) -> usize {
        self.rulings.len() + self.challenges.len() + usize::from(self.assessment.is_some())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The critic's rulings on the answers in `context.to_rule`, its new
/// challenges (every part of RC-09 required, and at least one for each
/// hypothesis never challenged), and its optional assessment.
pub fn read_critic(
    text: &str,
    context: &CriticContext<'_>,
) -> Result<Read<CriticAnswer>, ParseError> {
    let document = Document::load(text)?;
    let root =
        document.root_fields("a mapping with `rulings:`, `challenges:` and `assessment:`")?;
    let mut answer = CriticAnswer {
        rulings: Vec::new(),
        challenges: Vec::new(),
        left_out: Vec::new(),
        assessment: None,
    };

    let to_rule = KnownIds::new(context.to_rule.iter().copied());
    let raised = KnownIds::new(context.challenges.iter().copied());
    let hypotheses = KnownIds::new(context.hypotheses.iter().copied());
    let settled: HashSet<&str> = context.settled.iter().copied().collect();
    let (rulings, rulings_path) = root.optional_list("rulings")?;
    let rulings = document.read_items(
        rulings,
        &rulings_path,
        "rulings",
        RULING_SHAPE,
        |_, fields| {
            let written = fields.required_text("challenge")?;
            let Some(id) = fields.known_id("challenge", &to_rule)? else {
                // A ruling on a challenge nobody answered is read as just
                // that: there is nothing for it to rule on (issue 59).
                if let Some(id) = fields.known_id("challenge", &raised)? {
                    fields.note(format!(
                        "read past a ruling on {id}: no answer of it waits for a ruling"
                    ));
                    return Ok(None);
                }
                let waiting = if context.to_rule.is_empty() {
                    "no answer waits for a ruling".to_string()
                } else {
                    format!(
                        "answers waiting for a ruling: {}",
                        context.to_rule.join(", ")
                    )
                };
                return Err(fields.error(
                    "challenge",
                    format!("no challenge {} ({waiting})", quote(&written)),
                ));
            };
            let fields = fields.about(id.clone());
            let ruling = fields.required_choice("ruling", &RULINGS)?;
            let mut text = RulingText {
                ruling,
                reason: fields.required_text("reason")?,
                missing: fields.optional_text("missing")?.unwrap_or_default(),
                evidence_needed: fields.optional_text("evidence_needed")?.unwrap_or_default(),
                alternative: fields.optional_text("alternative")?.unwrap_or_default(),
            };
            if ruling == RulingWord::Unresolved {
                // RC-12: a rejection says what is missing, what would
                // satisfy, and which alternative must be disproved.
                for key in ["missing", "evidence_needed", "alternative"] {
                    fields.required_text(key).map_err(|error| ParseError {
                        message: format!("{} (an unresolved ruling says what is missing, what evidence would settle it and which alternative to rule out)", error.message),
                        ..error
                    })?;
                }
            }
            text.reason = text.reason.trim().to_string();
            Ok(Some((id, text)))
        },
    )?;
    let rulings: Vec<(usize, (String, RulingText))> = rulings
        .into_iter()
        .filter_map(|(place, ruling)| ruling.map(|ruling| (place, ruling)))
        .collect();
    let rulings = document.one_per_id(rulings, &rulings_path, "a ruling on", |(id, _)| id.clone());
    answer.rulings = rulings.into_iter().map(|(_, ruling)| ruling).collect();
    let ruled: HashSet<&str> = answer.rulings.iter().map(|(id, _)| id.as_str()).collect();
    let conflicted: HashSet<String> = document
        .read(())
        .slips
        .iter()
        .filter_map(|slip| slip.id.clone())
        .collect();
    document.slip_each_missing(
        &rulings_path,
        context.to_rule.iter().copied(),
        |id| ruled.contains(id) || conflicted.contains(id),
        |unruled| format!("no ruling on the answer to {unruled}"),
    );

    let (list, challenges_path) = root.optional_list("challenges")?;
    let challenges = document.read_items(
        list,
        &challenges_path,
        "challenges",
        CHALLENGE_SHAPE,
        |_, fields| {
            let hypothesis = fields.required_known_id("hypothesis", &hypotheses, |written| {
                format!(
                    "no hypothesis {written} (hypotheses are: {})",
                    context.hypotheses.join(", ")
                )
            })?;
            let fields = fields.about(format!("challenge to {hypothesis}"));
            let challenge = ChallengeText {
                test: fields.required_choice("test", &TESTS)?,
                critical: fields.optional_flag("critical", false)?,
                quote: fields.required_text("quote")?,
                why: fields.required_text("why")?,
                evidence_needed: fields.required_text("evidence_needed")?,
                alternative: fields.required_text("alternative")?,
            };
            if context.closing {
                answer.left_out.push(format!(
                    "a challenge to {hypothesis} was raised in the closing ruling, when no more are asked for"
                ));
                return Ok(None);
            }
            if settled.contains(hypothesis.as_str()) {
                answer.left_out.push(format!(
                    "a challenge to {hypothesis}, which is already settled"
                ));
                return Ok(None);
            }
            Ok(Some((hypothesis, challenge)))
        },
    )?;
    answer.challenges = challenges
        .into_iter()
        .filter_map(|(_, challenge)| challenge)
        .collect();
    if !context.closing {
        // A hypothesis whose challenge could not be read is not one the
        // critic left unchallenged: that slip says what happened.
        let challenged: HashSet<String> = answer
            .challenges
            .iter()
            .map(|(target, _)| target.clone())
            .chain(
                document
                    .read(())
                    .slips
                    .iter()
                    .filter_map(|slip| slip.id.clone()),
            )
            .collect();
        document.slip_each_missing(
            &challenges_path,
            context.unchallenged.iter().copied(),
            |id| challenged.contains(id),
            |missing| format!("every hypothesis needs at least one challenge; none for {missing}"),
        );
    }

    if let Some((_, value)) = root.get("assessment")
        && !value.is_null()
    {
        let assessment = Fields::new(
            &document,
            value,
            root.path_of("assessment"),
            "a mapping with recommendation and open_questions",
        )
        .and_then(|fields| {
            Ok(CriticAssessment {
                recommendation: fields.required_text("recommendation")?,
                open_questions: fields.optional_texts("open_questions")?,
            })
        });
        match assessment {
            Ok(assessment) => answer.assessment = Some(assessment),
            Err(error) => document.slip(Slip::of("assessment", error)),
        }
    }
    Ok(document.read(answer))
}

/// A debugger's answers to the challenges in `delivered`: each answers one
/// challenge with text and evidence, or concedes it. A challenge left out
/// is the protocol's to note. Item by item (issue 59): an answer that cannot
/// be read, or names a challenge not put to the debugger, is left out as a
/// slip named by the challenge it names; a challenge answered twice reads
/// once when both say the same, and not at all when they differ.
pub fn read_answers(
    text: &str,
    delivered: &[&str],
) -> Result<Read<Vec<(String, AnswerText)>>, ParseError> {
    let document = Document::load(text)?;
    let (list, path) = list_of(&document, "answers")?;
    let known = KnownIds::new(delivered.iter().copied());
    let answers = document.read_items(list, &path, "answers", ANSWER_SHAPE, |_, fields| {
        let id = fields.required_known_id("challenge", &known, |written| {
            format!(
                "no challenge {written} was put to you (yours are: {})",
                delivered.join(", ")
            )
        })?;
        let concede = fields.optional_flag("concede", false)?;
        let answer = if concede {
            fields.optional_text("answer")?.unwrap_or_default()
        } else {
            fields.required_text("answer").map_err(|error| ParseError {
                message: format!("{} (answer it, or set `concede: true`)", error.message),
                ..error
            })?
        };
        Ok((
            id,
            AnswerText {
                concede,
                answer,
                evidence: fields.optional_texts("evidence")?,
            },
        ))
    })?;
    let answers = document.one_per_id(answers, &path, "an answer to", |(id, _)| id.clone());
    Ok(document.read(answers.into_iter().map(|(_, answer)| answer).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::whole;

    /// The first item `read` left out, as the error that refuses the
    /// answer whole; or the whole answer's own error.
    fn refused<T: std::fmt::Debug>(read: Result<Read<T>, ParseError>) -> ParseError {
        read.and_then(whole).unwrap_err()
    }

    const FINDINGS: &str = "I looked at the traces.\n\n```yaml\nhypotheses:\n  - claim: The 14:02 deploy added a blocking fraud call.\n    evidence:\n      - \"deploy log: v2.31.0 live at 14:02:10Z\"\n      - src/checkout/submit.rs:212\n    reasoning: The call has no timeout.\n  - claim: The pool ran dry.\n    evidence: pg_stat_activity at 14:05 shows 100 of 100 busy\n```\n";

    #[test]
    fn findings_are_read_with_their_evidence() {
        let read = read_findings(FINDINGS).unwrap();
        assert!(read.notes.is_empty());
        assert_eq!(read.value.len(), 2);
        assert_eq!(read.value[0].evidence.len(), 2);
        assert_eq!(
            read.value[1].evidence,
            ["pg_stat_activity at 14:05 shows 100 of 100 busy"]
        );
        assert_eq!(read.value[1].reasoning, "");
        assert!(
            read_findings("```yaml\nhypotheses: []\n```")
                .unwrap()
                .value
                .is_empty()
        );
        let error = refused(read_findings(
            "```yaml\nhypotheses:\n  - evidence: [x]\n```",
        ));
        assert_eq!(
            error.to_string(),
            "line 3, hypotheses[0].claim: required field is missing"
        );
    }

    fn context<'a>(to_rule: &'a [&'a str], unchallenged: &'a [&'a str]) -> CriticContext<'a> {
        CriticContext {
            hypotheses: &["H1", "H2", "H3"],
            challenges: &["X1.1", "X2.1", "X3.1", "X3.2"],
            settled: &["H3"],
            unchallenged,
            to_rule,
            closing: false,
        }
    }

    const CHALLENGE: &str = "  - hypothesis: H1\n    test: timeline\n    critical: true\n    quote: \"The 14:02 deploy added a blocking fraud call.\"\n    why: The deploy and the spike are minutes apart, not ordered.\n    evidence_needed: The first slow trace and the deploy's completion time.\n    alternative: The spike began before the deploy finished.\n";

    /// RC-09, A28: every challenge has its four parts and `critical`.
    #[test]
    fn rc_09_a28_a_challenge_has_four_parts() {
        let text = format!("```yaml\nchallenges:\n{CHALLENGE}```\n");
        let read = read_critic(&text, &context(&[], &["H1"])).unwrap();
        let (target, challenge) = &read.value.challenges[0];
        assert_eq!(target, "H1");
        assert_eq!(challenge.test, Test::Timeline);
        assert!(challenge.critical);
        for part in ["quote", "why", "evidence_needed", "alternative"] {
            let cut: String = text
                .lines()
                .filter(|line| !line.trim_start().starts_with(&format!("{part}:")))
                .map(|line| format!("{line}\n"))
                .collect();
            let error = refused(read_critic(&cut, &context(&[], &["H1"])));
            assert_eq!(
                error.field.as_deref(),
                Some(format!("challenges[0].{part}").as_str())
            );
            assert_eq!(error.message, "required field is missing");
        }
        let bad = text.replace("test: timeline", "test: vibes");
        let error = refused(read_critic(&bad, &context(&[], &["H1"])));
        assert!(
            error.message.starts_with("expected one of causation"),
            "{error}"
        );
        let spaced = text.replace("test: timeline", "test: Culprit Change");
        let read = read_critic(&spaced, &context(&[], &["H1"])).unwrap();
        assert_eq!(read.value.challenges[0].1.test, Test::CulpritChange);
    }

    /// RC-03: every hypothesis never challenged gets a challenge.
    #[test]
    fn rc_03_every_finding_is_challenged() {
        let text = format!("```yaml\nchallenges:\n{CHALLENGE}```\n");
        let read = read_critic(&text, &context(&[], &["H1", "H2"])).unwrap();
        assert_eq!(read.value.challenges.len(), 1, "H1's challenge is read");
        assert_eq!(read.slips.len(), 1);
        assert_eq!(read.slips[0].id.as_deref(), Some("H2"));
        assert_eq!(
            read.slips[0].error.to_string(),
            "line 3, challenges: every hypothesis needs at least one challenge; none for H2"
        );
        // A challenge to a settled hypothesis is left out, noted.
        let settled = text.replace("hypothesis: H1", "hypothesis: h3");
        let read = read_critic(&settled, &context(&[], &[])).unwrap();
        assert!(read.value.challenges.is_empty());
        assert_eq!(
            read.value.left_out,
            ["a challenge to H3, which is already settled"]
        );
        assert_eq!(read.notes, ["read hypothesis \"h3\" as H3 (challenges[0])"]);
    }

    /// RC-12: an unresolved ruling says what is missing, what would satisfy
    /// and which alternative to rule out; every answer gets a ruling.
    #[test]
    fn rc_12_an_unresolved_ruling_states_what_is_missing() {
        let ruled = "```yaml\nrulings:\n  - challenge: X1.1\n    ruling: unresolved\n    reason: The trace is from another region.\n    missing: A trace from eu-west.\n    evidence_needed: Three eu-west traces after 14:02.\n    alternative: A regional network fault.\n  - challenge: x2.1 (pool)\n    ruling: resolved\n    reason: The pool graph settles it.\n```\n";
        let read = read_critic(ruled, &context(&["X1.1", "X2.1"], &[])).unwrap();
        assert_eq!(read.value.rulings.len(), 2);
        assert_eq!(read.value.rulings[1].0, "X2.1");
        let cut = ruled.replace("    missing: A trace from eu-west.\n", "");
        let read = read_critic(&cut, &context(&["X1.1", "X2.1"], &[])).unwrap();
        assert_eq!(read.value.rulings.len(), 1, "X2.1's ruling is read");
        let error = &read.slips[0].error;
        assert_eq!(error.field.as_deref(), Some("rulings[0].missing"));
        assert!(error.message.contains("what is missing"), "{error}");
        assert_eq!(read.slips[0].id.as_deref(), Some("X1.1"));
        let error = refused(read_critic(ruled, &context(&["X1.1", "X2.1", "X3.1"], &[])));
        assert_eq!(error.message, "no ruling on the answer to X3.1");
        // Issue 59: a ruling on a challenge nobody answered is read as just
        // that, with a note; one on a challenge that does not exist is a slip.
        let read = read_critic(ruled, &context(&["X1.1"], &[])).unwrap();
        assert!(read.slips.is_empty(), "{:?}", read.slips);
        assert_eq!(read.value.rulings.len(), 1);
        assert!(
            read.notes
                .iter()
                .any(|note| note.starts_with("read past a ruling on X2.1")),
            "{:?}",
            read.notes
        );
        let unknown = ruled.replace("x2.1 (pool)", "X7.1");
        let error = refused(read_critic(&unknown, &context(&["X1.1"], &[])));
        assert_eq!(
            error.message,
            "no challenge \"X7.1\" (answers waiting for a ruling: X1.1)"
        );
        // A challenge ruled twice with different words takes neither.
        let twice = ruled.replace("x2.1 (pool)", "X1.1");
        let read = read_critic(&twice, &context(&["X1.1"], &[])).unwrap();
        assert!(read.value.rulings.is_empty());
        assert_eq!(read.slips.len(), 2, "{:?}", read.slips);
    }

    #[test]
    fn the_closing_ruling_leaves_new_challenges_out() {
        let text = format!(
            "```yaml\nrulings: []\nchallenges:\n{CHALLENGE}assessment:\n  recommendation: Roll back v2.31.0.\n  open_questions: [Why no timeout?]\n```\n"
        );
        let mut closing = context(&[], &["H1"]);
        closing.closing = true;
        let read = read_critic(&text, &closing).unwrap();
        assert!(read.value.challenges.is_empty());
        assert_eq!(read.value.left_out.len(), 1);
        let assessment = read.value.assessment.unwrap();
        assert_eq!(assessment.recommendation, "Roll back v2.31.0.");
        assert_eq!(assessment.open_questions, ["Why no timeout?"]);
    }

    /// RC-04: a debugger answers only the challenges put to it.
    #[test]
    fn rc_04_answers_name_the_challenges_put_to_the_debugger() {
        let text = "```yaml\nanswers:\n  - challenge: X1.1\n    answer: The first slow trace is 14:02:31Z.\n    evidence: [trace 7f3a]\n  - challenge: X1.2\n    concede: true\n```\n";
        let read = read_answers(text, &["X1.1", "X1.2"]).unwrap();
        assert_eq!(read.value.len(), 2);
        assert!(read.value[1].1.concede);
        let read = read_answers(text, &["X1.1"]).unwrap();
        assert_eq!(read.value.len(), 1, "the answer to X1.1 is read");
        assert_eq!(read.slips[0].id.as_deref(), Some("X1.2"));
        assert_eq!(
            read.slips[0].error.message,
            "no challenge \"X1.2\" was put to you (yours are: X1.1)"
        );
        let unanswered = text.replace("    concede: true\n", "    evidence: []\n");
        let error = refused(read_answers(&unanswered, &["X1.1", "X1.2"]));
        assert!(error.message.contains("set `concede: true`"), "{error}");
        // Issue 59: one challenge answered twice reads once when both say
        // the same, and not at all when they differ.
        let twice = "```yaml\nanswers:\n  - challenge: X1.1\n    answer: A.\n  - challenge: X1.1\n    answer: A.\n```\n";
        let read = read_answers(twice, &["X1.1"]).unwrap();
        assert_eq!((read.value.len(), read.slips.len()), (1, 0));
        let read = read_answers(&twice.replacen("A.", "B.", 1), &["X1.1"]).unwrap();
        assert_eq!((read.value.len(), read.slips.len()), (0, 2));
    }

    #[test]
    fn a_hypotheses_file_names_owners_and_lines() {
        let text = "hypotheses:\n  - owner: alpha\n    claim: The deploy.\n  - claim: The pool.\n    evidence: [graph]\n";
        let seeded = read_hypotheses_file(text).unwrap();
        assert_eq!(seeded[0].owner.as_deref(), Some("alpha"));
        assert_eq!(seeded[1].owner, None);
        assert_eq!(hypotheses_entry_line(text, 1), Some(4));
    }

    /// A misspelt key in a hypotheses file is refused with its line and
    /// field, not dropped: `evidenc:` once left a hypothesis with no
    /// evidence that went on to be proven.
    #[test]
    fn a_hypotheses_file_refuses_unknown_keys() {
        let text = "hypotheses:\n  - owner: alpha\n    claim: The deploy.\n    evidenc:\n      - deploy log 14:02:10\n";
        let error = read_hypotheses_file(text).unwrap_err();
        assert_eq!(error.line, Some(4), "{error}");
        assert_eq!(error.field.as_deref(), Some("hypotheses[0].evidenc"));
        assert!(
            error
                .message
                .starts_with("`evidenc` is not a field of a hypothesis (did you mean `evidence`?)"),
            "{error}"
        );
        let error = read_hypotheses_file("- claim: The pool.\n  severity: high\n").unwrap_err();
        assert_eq!(error.field.as_deref(), Some("[0].severity"), "{error}");
        assert!(!error.message.contains("did you mean"), "{error}");
        // Any case of a known key is the key.
        assert!(read_hypotheses_file("- Claim: The pool.\n  Evidence: [x]\n").is_ok());
        // An agent's findings stay lenient: extra keys are not refused there.
        assert!(read_findings("hypotheses:\n  - claim: The pool.\n    confidence: high\n").is_ok());
    }

    #[test]
    fn a_hypotheses_file_holds_as_many_hypotheses_as_an_answer_may() {
        let file =
            |count: usize| format!("hypotheses:\n{}", "  - claim: The pool.\n".repeat(count));
        assert_eq!(
            read_hypotheses_file(&file(ITEMS_PER_ANSWER_MAX))
                .unwrap()
                .len(),
            ITEMS_PER_ANSWER_MAX
        );
        let error = read_hypotheses_file(&file(ITEMS_PER_ANSWER_MAX + 1)).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("hypotheses"));
        assert!(
            error
                .message
                .starts_with("1,001 hypotheses, more than a hypotheses file may hold (1,000)"),
            "{error}"
        );
        let answer = format!("```yaml\n{}```\n", file(ITEMS_PER_ANSWER_MAX + 1));
        let error = refused(read_findings(&answer));
        assert!(
            error
                .message
                .starts_with("1,001 hypotheses, more than one answer may hold"),
            "{error}"
        );
    }
}
