//! The lenient reader (issue 17): for every parser of agent output, a corpus
//! of the ways real models answer instead of the exact format, each row read
//! (to the same value as the clean answer, with the notes expected) or
//! refused (with the error expected); and properties that reading an answer
//! in the exact format notes nothing and changes nothing.

use crate::support;

use std::fmt::Debug;

use proptest::prelude::*;
use quorum::parse::normalise::tidy_source;
use quorum::parse::{ParseError, Read};
use quorum::protocol::decision_review::model::{
    Criterion, CritiqueMode, JudgeConfig, JudgeRole, ThesisTree,
};
use quorum::protocol::decision_review::parse::{
    read_critique, read_judge, read_revision, read_thesis_tree,
};
use quorum::protocol::quick::parse::parse_vulnerabilities;
use regex::Regex;
use support::{critique_text, judge_config, judge_text, proposal_text, revision_text};

// ---- the corpus ------------------------------------------------------------

/// What a row of the corpus expects.
enum Expect {
    /// Read to the clean answer's value, with exactly these notes.
    Read(Vec<&'static str>),
    /// Refused, with an error that contains this: the whole answer, or the
    /// one item left out of it (issue 59).
    Refused(&'static str),
    /// Read past as extraneous (RULES.md A14 as revised), with a note that
    /// contains this, nothing left out.
    ReadPast(&'static str),
}

struct Variant {
    name: &'static str,
    text: String,
    expect: Expect,
}

fn read(name: &'static str, text: String, notes: &[&'static str]) -> Variant {
    Variant {
        name,
        text,
        expect: Expect::Read(notes.to_vec()),
    }
}

fn refused(name: &'static str, text: String, error: &'static str) -> Variant {
    Variant {
        name,
        text,
        expect: Expect::Refused(error),
    }
}

fn read_past(name: &'static str, text: String, note: &'static str) -> Variant {
    Variant {
        name,
        text,
        expect: Expect::ReadPast(note),
    }
}

/// Runs every row of a parser's corpus against its clean answer.
fn check<T: PartialEq + Debug>(
    parser: &str,
    clean: &str,
    rows: Vec<Variant>,
    reader: impl Fn(&str) -> Result<Read<T>, ParseError>,
) {
    let expected = reader(clean).unwrap_or_else(|error| panic!("{parser}: clean answer: {error}"));
    assert!(
        expected.notes.is_empty(),
        "{parser}: the clean answer is read as written: {:?}",
        expected.notes
    );
    let mut failures = Vec::new();
    for row in rows {
        let outcome = reader(&row.text);
        match (&row.expect, outcome) {
            (Expect::Read(notes), Ok(got)) => {
                if got.value != expected.value {
                    failures.push(format!("{}: read to a different value", row.name));
                }
                if got.notes != *notes {
                    failures.push(format!(
                        "{}: notes {:?}, expected {notes:?}",
                        row.name, got.notes
                    ));
                }
            }
            (Expect::Read(_), Err(error)) => {
                failures.push(format!("{}: refused: {error}", row.name));
            }
            (Expect::Refused(want), Err(error)) => {
                if !error.to_string().contains(want) {
                    failures.push(format!("{}: error {error:?}, expected {want:?}", row.name));
                }
            }
            (Expect::Refused(want), Ok(got)) => {
                let left_out = got
                    .slips
                    .iter()
                    .any(|slip| slip.error.to_string().contains(want));
                if !left_out {
                    failures.push(format!(
                        "{}: read, notes {:?}, slips {:?}",
                        row.name, got.notes, got.slips
                    ));
                }
            }
            (Expect::ReadPast(want), Ok(got)) => {
                if !got.slips.is_empty() || !got.notes.iter().any(|note| note.contains(want)) {
                    failures.push(format!(
                        "{}: notes {:?}, slips {:?}",
                        row.name, got.notes, got.slips
                    ));
                }
            }
            (Expect::ReadPast(_), Err(error)) => {
                failures.push(format!("{}: refused: {error}", row.name));
            }
        }
    }
    assert!(failures.is_empty(), "{parser}:\n{}", failures.join("\n"));
}

/// The YAML inside the answer's ```yaml fence.
fn yaml_of(answer: &str) -> String {
    let start = answer.find("```yaml\n").expect("a yaml fence") + "```yaml\n".len();
    let end = start + answer[start..].find("```").expect("a closing fence");
    answer[start..end].to_string()
}

/// The same answer as JSON, pretty-printed.
fn json_of(answer: &str) -> String {
    let value: serde_json::Value = yaml_serde::from_str(&yaml_of(answer)).expect("yaml");
    serde_json::to_string_pretty(&value).expect("json")
}

/// The transformations every answer format is put through: how the YAML
/// is fenced, wrapped, indented and emphasised.
fn shared_variants(
    clean: &str,
    emphasis_note: &'static str,
    tabs_note: &'static str,
) -> Vec<Variant> {
    let yaml = yaml_of(clean);
    let keys = Regex::new(r"(?m)^(\s*(?:- )?)([a-z_]+):").unwrap();
    let capitalised = keys
        .replace_all(clean, |caps: &regex::Captures| {
            let key = &caps[2];
            format!("{}{}{}:", &caps[1], key[..1].to_uppercase(), &key[1..])
        })
        .into_owned();
    let emphasised = keys.replace_all(clean, "$1**$2**:").into_owned();
    let tabbed = Regex::new(r"(?m)^((?:  )+)")
        .unwrap()
        .replace_all(clean, |caps: &regex::Captures| {
            "\t".repeat(caps[1].len() / 2)
        })
        .into_owned();
    // One line tab-indented among space-indented ones: a tab two columns
    // wide is the only reading.
    let mixed = {
        let mut lines: Vec<String> = clean.lines().map(str::to_string).collect();
        let second = lines
            .iter()
            .position(|line| line.starts_with("    "))
            .expect("a nested line");
        lines[second] = format!("\t{}", &lines[second][2..]);
        lines.join("\n") + "\n"
    };
    vec![
        read("```yml fence", clean.replace("```yaml\n", "```yml\n"), &[]),
        read(
            "```YAML fence",
            clean.replace("```yaml\n", "```YAML\n"),
            &[],
        ),
        read("bare ``` fence", clean.replace("```yaml\n", "```\n"), &[]),
        read(
            "~~~ fence",
            clean
                .replace("```yaml\n", "~~~yaml\n")
                .replace("```\n", "~~~\n"),
            &[],
        ),
        read("bare YAML, no fence", yaml.clone(), &[]),
        read(
            "JSON in a ```json fence",
            format!("Here:\n```json\n{}\n```\n", json_of(clean)),
            &[],
        ),
        read("bare JSON", json_of(clean), &[]),
        read("capitalised keys", capitalised, &[]),
        read(
            "trailing prose",
            format!("{clean}\nThat is all; I stand by it.\n"),
            &[],
        ),
        read("CRLF line ends", clean.replace('\n', "\r\n"), &[]),
        read(
            "<answer> wrapper",
            format!("<answer>\n{clean}</answer>\n"),
            &[],
        ),
        read(
            "a draft block before the final one",
            format!("Draft:\n```yaml\nnot: final\n```\nFinal:\n{clean}"),
            &[],
        ),
        read("markdown bold around keys", emphasised, &[emphasis_note]),
        read("tab-indented YAML", tabbed, &[tabs_note]),
        // Read at the one usual tab width that makes it valid (issue 26).
        read(
            "a tab among space-indented lines",
            mixed,
            &[
                "read tabs mixed with spaces as 2 columns wide (the only width of 2, 4 and 8 at which it reads)",
            ],
        ),
    ]
}

// ---- judge -------------------------------------------------------------------

fn analyst() -> JudgeConfig {
    judge_config(JudgeRole::Analyst, false)
}

fn tree() -> ThesisTree {
    read_thesis_tree(&proposal_text()).expect("tree").value
}

/// The analyst's entry for `block` and `criterion` in [`judge_text`].
fn entry(block: &str, criterion: &str) -> String {
    format!("  - block_id: {block}\n    criterion: {criterion}\n    score: 4\n")
}

/// `clean` with the b2 feasibility entry's `field: value` line replaced.
fn b2_feasibility(clean: &str, line: &str, with: &str) -> String {
    let old = entry("b2", "feasibility");
    assert!(clean.contains(&old));
    clean.replace(&old, &old.replace(line, with))
}

#[test]
fn a14_the_judge_reader_reads_what_is_unambiguous_and_refuses_the_rest() {
    let clean = judge_text(&analyst(), |_, _| 4, [4, 4, 4]);
    let mut rows = shared_variants(
        &clean,
        "read markdown emphasis around `block_scores`, `block_id`, `criterion`, `score`, `rationale`, `synthesis`, `integration`, `risk_coverage`, `revision_quality` as plain keys",
        "read tab indentation as one level a tab (51 lines)",
    );
    let score = |with: &str| b2_feasibility(&clean, "score: 4", with);
    let block = |with: &str| b2_feasibility(&clean, "block_id: b2", with);
    rows.extend([
        read(
            "score as text",
            score("score: \"4\""),
            &["read score \"4\" as 4 (b2 feasibility)"],
        ),
        read(
            "score as an integral float",
            score("score: 4.0"),
            &["read score 4.0 as 4 (b2 feasibility)"],
        ),
        read(
            "score as N/5",
            score("score: 4/5"),
            &["read score \"4/5\" as 4 (b2 feasibility)"],
        ),
        read(
            "score as N out of 5",
            score("score: 4 out of 5"),
            &["read score \"4 out of 5\" as 4 (b2 feasibility)"],
        ),
        read(
            "upper-case block id",
            block("block_id: B2"),
            &["read block_id \"B2\" as b2 (b2 feasibility)"],
        ),
        read(
            "block id with its type after it",
            block("block_id: \"b2 (implementation)\""),
            &["read block_id \"b2 (implementation)\" as b2 (b2 feasibility)"],
        ),
        read(
            "block id with its title after a colon",
            block("block_id: \"B2: the migration\""),
            &["read block_id \"B2: the migration\" as b2 (b2 feasibility)"],
        ),
        read(
            "synthesis score as text",
            clean.replace("  integration: 4\n", "  integration: \"4\"\n"),
            &["read integration \"4\" as 4 (synthesis)"],
        ),
        read(
            "emphasis on one key only",
            score("`score`: 4"),
            &["read markdown emphasis around `score` as plain key"],
        ),
        read(
            "bold around key and colon",
            score("**score:** 4"),
            &["read markdown emphasis around `score` as plain key"],
        ),
        refused(
            "score 4.5",
            score("score: 4.5"),
            "block_scores[4].score: expected a whole number from 1 to 5; found 4.5",
        ),
        refused(
            "score 4/10",
            score("score: 4/10"),
            "expected a whole number from 1 to 5; found \"4/10\"",
        ),
        refused(
            "score in words",
            score("score: four"),
            "expected a whole number from 1 to 5; found \"four\"",
        ),
        refused("score 0", score("score: 0"), "found 0"),
        refused("score 6", score("score: 6"), "found 6"),
        refused("score 6/5", score("score: 6/5"), "found \"6/5\""),
        refused(
            "score missing",
            score("rationale_first: yes"),
            "block_scores[4].score: required field is missing",
        ),
        refused(
            "an id naming two blocks",
            block("block_id: \"b2, b3\""),
            "\"b2, b3\" could be any of b2, b3; write the id exactly",
        ),
        read_past(
            "an id no block has",
            block("block_id: b9"),
            "read past a score of block \"b9\"",
        ),
    ]);
    check("judge", &clean, rows, |text| {
        read_judge(text, &analyst(), &tree())
    });
}

#[test]
fn a4_a_judge_names_the_blocks_it_could_not_score_in_any_case() {
    let clean = judge_text(&analyst(), |_, _| 4, [4, 4, 4]).replace(
        "synthesis:\n",
        "insufficient_information: [b3]\nsynthesis:\n",
    );
    let rows = vec![
        read(
            "upper-case id",
            clean.replace("[b3]", "[B3]"),
            &["read insufficient_information[0] \"B3\" as b3"],
        ),
        read_past(
            "unknown id",
            clean.replace("[b3]", "[b7]"),
            "read past \"b7\" in insufficient_information",
        ),
    ];
    check("judge (insufficient_information)", &clean, rows, |text| {
        read_judge(text, &analyst(), &tree())
    });
}

// ---- critique ------------------------------------------------------------------

#[test]
fn a10_the_critique_reader_reads_what_is_unambiguous_and_drops_the_rest() {
    let items = [("b1", "major"), ("b2", "minor")];
    let clean = critique_text(&items);
    let mut rows = shared_variants(
        &clean,
        "read markdown emphasis around `critiques`, `target_block`, `steelman`, `flaw_type`, `severity`, `description` as plain keys",
        "read tab indentation as one level a tab (10 lines)",
    );
    rows.extend([
        read(
            "upper-case target",
            clean.replace("target_block: b2", "target_block: B2"),
            &["read target_block \"B2\" as b2 (critiques[1])"],
        ),
        read(
            "decorated target",
            clean.replace("target_block: b2", "target_block: \"b2 (the migration)\""),
            &["read target_block \"b2 (the migration)\" as b2 (critiques[1])"],
        ),
        read(
            "capitalised severity",
            clean.replace("severity: minor", "severity: Minor"),
            &[],
        ),
    ]);
    check("critique", &clean, rows, |text| {
        read_critique(text, &tree(), CritiqueMode::GenerousSteelman)
    });

    // A target naming two blocks, or none, is dropped (A10), as before.
    let two = clean.replace("target_block: b2", "target_block: \"b2 and b3\"");
    let read = read_critique(&two, &tree(), CritiqueMode::GenerousSteelman).expect("one item kept");
    assert_eq!(read.value.items.len(), 1);
    assert!(
        read.slips[0]
            .error
            .message
            .starts_with("\"b2 and b3\" names several blocks (b2, b3)"),
        "{:?}",
        read.slips
    );
}

// ---- revision ---------------------------------------------------------------------

#[test]
fn the_revision_reader_reads_what_is_unambiguous_and_refuses_the_rest() {
    let must = vec!["c1".to_string(), "c2".to_string()];
    let clean = revision_text(&["c1", "c2"]);
    let mut rows = shared_variants(
        &clean,
        "read markdown emphasis around `revised_tree`, `id`, `type`, `text`, `evidence`, `tradeoffs`, `risks`, `change_log`, `addresses_critique`, `block_id`, `change_type`, `before`, `after` as plain keys",
        "read tab indentation as one level a tab (34 lines)",
    );
    let first = "  - addresses_critique: c1\n    block_id: b1\n";
    rows.extend([
        read(
            "upper-case critique id",
            clean.replacen(first, "  - addresses_critique: C1\n    block_id: b1\n", 1),
            &["read addresses_critique \"C1\" as c1 (change_log[0])"],
        ),
        read(
            "decorated critique id",
            clean.replacen(
                first,
                "  - addresses_critique: \"c1 (the outbox)\"\n    block_id: b1\n",
                1,
            ),
            &["read addresses_critique \"c1 (the outbox)\" as c1 (change_log[0])"],
        ),
        read(
            "upper-case block id",
            clean.replacen(first, "  - addresses_critique: c1\n    block_id: B1\n", 1),
            &["read block_id \"B1\" as b1 (change_log[0])"],
        ),
        refused(
            "two critique ids in one entry",
            clean.replacen(
                first,
                "  - addresses_critique: \"c1, c2\"\n    block_id: b1\n",
                1,
            ),
            "name one critique id per entry",
        ),
    ]);
    check("revision", &clean, rows, |text| read_revision(text, &must));
}

// ---- thesis tree ---------------------------------------------------------------

#[test]
fn the_thesis_reader_reads_what_is_unambiguous() {
    let clean = proposal_text();
    let rows = shared_variants(
        &clean,
        "read markdown emphasis around `blocks`, `id`, `type`, `text`, `evidence`, `tradeoffs`, `risks` as plain keys",
        "read tab indentation as one level a tab (24 lines)",
    );
    check("thesis tree", &clean, rows, read_thesis_tree);
}

// ---- red team ---------------------------------------------------------------------

#[test]
fn the_red_team_reader_reads_what_is_unambiguous() {
    let clean = "Findings.\n\n```yaml\nvulnerabilities:\n  - title: Replayable webhooks\n    severity: high\n    description: Signatures skip the timestamp.\n    exploit: Send one delivery twice.\n```\n\n## Abuse vectors\n".to_string();
    let mut rows = shared_variants(
        &clean,
        "read markdown emphasis around `vulnerabilities`, `title`, `severity`, `description`, `exploit` as plain keys",
        "read tab indentation as one level a tab (4 lines)",
    );
    rows.push(refused(
        "severity outside the set",
        clean.replace("severity: high", "severity: spicy"),
        "expected one of critical, high, medium, low",
    ));
    check("red team", &clean, rows, parse_vulnerabilities);
}

// ---- properties ---------------------------------------------------------------------

/// Text a model might write in a value: markdown, colons, quotes, tabs,
/// several lines.
fn prose() -> impl Strategy<Value = String> {
    proptest::string::string_regex(
        "[A-Za-z0-9 ]{1,12}([*_`:#'\"\\t]|\\*\\*[a-z]{1,6}\\*\\*:|\n\\*\\*[a-z]{1,6}\\*\\*: |\n`[a-z]{1,6}`: |\n  |\n\t|\n- )?[A-Za-z0-9 ,.]{0,20}",
    )
    .expect("regex")
    .prop_filter("not blank", |text| !text.trim().is_empty())
}

fn fenced(yaml: &str) -> String {
    format!("My answer.\n\n```yaml\n{yaml}```\n")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Tidying YAML that any YAML writer wrote changes nothing and notes
    /// nothing: emphasis and tabs inside values are text.
    #[test]
    fn tidying_well_formed_yaml_changes_nothing(
        values in proptest::collection::btree_map("[a-z_]{1,10}", prose(), 1..6)
    ) {
        let yaml = yaml_serde::to_string(&values).expect("yaml");
        let (tidy, notes) = tidy_source(&yaml);
        prop_assert_eq!(&tidy, &yaml);
        prop_assert!(notes.is_empty(), "{:?}", notes);
    }

    /// A judge's answer in the exact format is read as written: no note,
    /// and the very scores and rationales it holds.
    #[test]
    fn a_judge_answer_in_the_exact_format_reads_as_written(
        scores in proptest::collection::vec(1u8..=5, 12),
        rationales in proptest::collection::vec(prose(), 12),
        synthesis in proptest::collection::vec(1u8..=5, 3),
    ) {
        let judge = analyst();
        let mut entries = Vec::new();
        let mut expected = Vec::new();
        for (index, block) in ["b1", "b2", "b3", "b4"].iter().enumerate() {
            for (offset, criterion) in judge.criteria.iter().enumerate() {
                let at = index * 3 + offset;
                entries.push(serde_json::json!({
                    "block_id": block,
                    "criterion": criterion.to_string(),
                    "score": scores[at],
                    "rationale": rationales[at],
                }));
                expected.push((block.to_string(), *criterion, scores[at], rationales[at].trim().to_string()));
            }
        }
        let answer = serde_json::json!({
            "block_scores": entries,
            "synthesis": {
                "integration": synthesis[0],
                "risk_coverage": synthesis[1],
                "revision_quality": synthesis[2],
            },
        });
        let text = fenced(&yaml_serde::to_string(&answer).expect("yaml"));
        let read = read_judge(&text, &judge, &tree()).map_err(|error| TestCaseError::fail(format!("{error}\n{text}")))?;
        prop_assert!(read.notes.is_empty(), "{:?}", read.notes);
        let got: Vec<(String, Criterion, u8, String)> = read
            .value
            .block_scores
            .iter()
            .map(|score| (score.block_id.clone(), score.criterion, score.score, score.rationale.clone()))
            .collect();
        prop_assert_eq!(got, expected);
        prop_assert_eq!(read.value.synthesis.values().to_vec(), synthesis);
    }

    /// A critique in the exact format is read as written.
    #[test]
    fn a_critique_in_the_exact_format_reads_as_written(
        targets in proptest::collection::vec(0usize..4, 1..6),
        descriptions in proptest::collection::vec(prose(), 6),
    ) {
        let blocks = ["b1", "b2", "b3", "b4"];
        let items: Vec<serde_json::Value> = targets
            .iter()
            .zip(&descriptions)
            .map(|(target, description)| serde_json::json!({
                "target_block": blocks[*target],
                "flaw_type": "risk",
                "severity": "major",
                "description": description,
            }))
            .collect();
        let text = fenced(&yaml_serde::to_string(&serde_json::json!({ "critiques": items })).expect("yaml"));
        let read = read_critique(&text, &tree(), CritiqueMode::Strict).map_err(|error| TestCaseError::fail(format!("{error}\n{text}")))?;
        prop_assert!(read.notes.is_empty(), "{:?}", read.notes);
        prop_assert_eq!(read.value.items.len(), targets.len());
        for (item, target) in read.value.items.iter().zip(&targets) {
            prop_assert_eq!(&item.target_block, blocks[*target]);
        }
    }
}
