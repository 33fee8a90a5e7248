//! One judge's scores of the revised tree (DR-26, DR-27, A1, A14, INF-06).
//!
//! Responsible for: reading `block_scores:` (one integer 1..=5 and a
//! rationale per block and assigned criterion, each exactly once),
//! `synthesis:` (three integers 1..=5) and the optional
//! `insufficient_information:` list, and returning them in a stable order.
//! The judge's identity comes from its configuration, never from its text.
//!
//! Not responsible for: totals, means, thresholds or verdicts. Any the agent
//! wrote are ignored (INF-06); `verdict` computes its own from these scores.

use std::collections::{HashMap, HashSet};

use yaml_serde::Value;

use super::{Document, Fields, ParseError, Read, describe, quote};
use crate::parse::Shape;
use crate::parse::Slip;
use crate::parse::normalise::KnownIds;
use crate::protocol::decision_review::model::{
    BlockScore, Criterion, JudgeConfig, JudgeScores, SynthesisScore, ThesisTree,
};

const SCORE_SHAPE: Shape = Shape {
    what: "a score (a mapping with block_id, criterion, score, rationale)",
    keys: &["block_id", "criterion", "score", "rationale", "judge"],
    id_key: None,
};

const SYNTHESIS_SHAPE: &str = "a mapping with integration, risk_coverage, revision_quality";

/// Parses one judge's answer about `tree` (the tree under review).
///
/// Every block of `tree` is scored at most once on each criterion in
/// `judge.criteria`; a block or criterion left out is read as unscored (the
/// verdict escalates on it, rule 5e), entries for other criteria are
/// ignored (A1), as are any
/// `judge`, `total`, `average` or `verdict` keys (INF-06). A score is a
/// whole number from 1 to 5: a YAML integer, or one written as `"4"`,
/// `4.0`, `4/5` or `4 out of 5`; `4.5`, `4/10`, `0` and `6` are errors
/// (A14). The result is ordered by block (tree order), then criterion
/// (`judge.criteria` order), with [`BlockScore::judge`] set to `judge.role`.
pub fn parse_judge(
    text: &str,
    judge: &JudgeConfig,
    tree: &ThesisTree,
) -> Result<JudgeScores, ParseError> {
    read_judge(text, judge, tree)
        .and_then(super::whole)
        .map(|read| read.value)
}

/// [`parse_judge`], with a note for everything read other than as written
/// (`read score "4" as 4 (b2 feasibility)`).
pub fn read_judge(
    text: &str,
    judge: &JudgeConfig,
    tree: &ThesisTree,
) -> Result<Read<JudgeScores>, ParseError> {
    let document = Document::load(text)?;
    let root = document.root_fields("a mapping with `block_scores:` and `synthesis:`")?;
    let mut block_scores = block_scores(&document, &root, judge, tree)?;
    let synthesis = synthesis(&document, &root, judge)?;
    let insufficient_information = insufficient_information(&document, &root, tree)?;

    let block_positions: HashMap<&str, usize> = tree
        .block_ids()
        .enumerate()
        .map(|(position, id)| (id, position))
        .collect();
    let block_position = |id: &str| block_positions.get(id).copied();
    let criterion_position =
        |criterion: Criterion| judge.criteria.iter().position(|c| *c == criterion);
    block_scores.sort_by_key(|score| {
        (
            block_position(&score.block_id),
            criterion_position(score.criterion),
        )
    });
    Ok(document.read(JudgeScores {
        block_scores,
        synthesis,
        insufficient_information,
    }))
}

fn block_scores(
    document: &Document,
    root: &Fields<'_>,
    judge: &JudgeConfig,
    tree: &ThesisTree,
) -> Result<Vec<BlockScore>, ParseError> {
    let (list, list_path) = root.required_list("block_scores")?;
    let known = KnownIds::new(tree.block_ids());
    let mut scores: Vec<BlockScore> = Vec::with_capacity(list.len());
    let mut first_entry_of: HashMap<(String, Criterion), usize> = HashMap::new();
    for (index, value) in list.iter().enumerate() {
        let entry_path = list_path.index(index);
        let fields = Fields::new(document, value, entry_path.clone(), SCORE_SHAPE.what)?;
        fields.note_stray_keys(SCORE_SHAPE.keys);
        let criterion_name = fields.required_text("criterion")?;
        let assigned = Criterion::parse(&criterion_name).filter(|c| judge.criteria.contains(c));
        let Some(criterion) = assigned else {
            // A14 (revised 2026-12-06): a score on a criterion this judge
            // does not score is extraneous, read past with a note.
            document.note(format!(
                "read past a score on {} ({entry_path}): not one of this judge's criteria",
                quote(&criterion_name)
            ));
            continue;
        };
        let written = fields.required_text("block_id")?;
        let path = fields.path_of("block_id");
        let Some((block_id, note)) = document.match_id(&written, &known, &path, "block_id")? else {
            document.note(format!(
                "read past a score of block {} ({entry_path}): no such block in the tree under review",
                quote(&written)
            ));
            continue;
        };
        let fields = fields.about(format!("{block_id} {criterion}"));
        if let Some(note) = note {
            fields.note(note);
        }
        let score = fields.required_score("score")?;
        let rationale = match fields.optional_text("rationale")? {
            Some(rationale) => rationale,
            None => {
                // The score counts; the reason for it is what is missing,
                // said in the record rather than costing the judge.
                let error = fields.error("rationale", "required field is missing");
                document.slip(Slip::of(format!("{block_id} {criterion}"), error));
                String::new()
            }
        };
        let key = (block_id.clone(), criterion);
        if let Some(first) = first_entry_of.get(&key) {
            let earlier = scores
                .iter()
                .find(|given| given.block_id == block_id && given.criterion == criterion)
                .map(|given| given.score);
            if earlier == Some(score) {
                document.note(format!(
                    "read past {block_id}/{criterion} scored {score} again ({entry_path}, as at {})",
                    list_path.index(*first)
                ));
                continue;
            }
            return Err(document.error(
                &entry_path,
                format!(
                    "{block_id}/{criterion} is scored twice with different scores (also at {}); score it once",
                    list_path.index(*first)
                ),
            ));
        }
        first_entry_of.insert(key, index);
        scores.push(BlockScore {
            block_id,
            criterion,
            judge: judge.role,
            score,
            rationale,
        });
    }

    // A criterion left unscored is not an unreadable answer: the scores
    // given count, and the verdict treats the gap as major uncertainty
    // (ESCALATE, naming the block and criterion), which is what README says.
    Ok(scores)
}

fn synthesis(
    document: &Document,
    root: &Fields<'_>,
    judge: &JudgeConfig,
) -> Result<SynthesisScore, ParseError> {
    let value = root.required("synthesis")?;
    let fields = Fields::new(document, value, root.path_of("synthesis"), SYNTHESIS_SHAPE)?
        .about("synthesis");
    Ok(SynthesisScore {
        judge: judge.role,
        integration: fields.required_score("integration")?,
        risk_coverage: fields.required_score("risk_coverage")?,
        revision_quality: fields.required_score("revision_quality")?,
    })
}

/// Block ids the judge could not score with what it was given, in the
/// judge's order without repeats; absent or null means none.
fn insufficient_information(
    document: &Document,
    root: &Fields<'_>,
    tree: &ThesisTree,
) -> Result<Vec<String>, ParseError> {
    let Some((_, value)) = root.get("insufficient_information") else {
        return Ok(Vec::new());
    };
    let path = root.path_of("insufficient_information");
    let list = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Sequence(list) => list,
        other => {
            return Err(document.error(
                &path,
                format!("expected a list of block ids; found {}", describe(other)),
            ));
        }
    };
    let known = KnownIds::new(tree.block_ids());
    let mut block_ids: Vec<String> = Vec::with_capacity(list.len());
    let mut listed: HashSet<String> = HashSet::new();
    for (index, value) in list.iter().enumerate() {
        let block_id = match value {
            Value::String(text) => text.trim().to_owned(),
            Value::Number(number) => number.to_string(),
            other => {
                return Err(document.error(
                    &path.index(index),
                    format!("expected a block id; found {}", describe(other)),
                ));
            }
        };
        let entry_path = path.index(index);
        let what = format!("{entry_path}");
        let Some((block_id, note)) = document.match_id(&block_id, &known, &entry_path, &what)?
        else {
            document.note(format!(
                "read past {} in insufficient_information ({entry_path}): no such block in the tree under review",
                quote(&block_id)
            ));
            continue;
        };
        if let Some(note) = note {
            document.note(note);
        }
        if listed.insert(block_id.clone()) {
            block_ids.push(block_id);
        }
    }
    Ok(block_ids)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::decision_review::model::{JudgeRole, ThesisTree, Weight};

    fn tree() -> ThesisTree {
        super::super::test_tree(&["b1", "b2"])
    }

    fn analyst() -> JudgeConfig {
        use Criterion::*;
        JudgeConfig::new(
            JudgeRole::Analyst,
            Weight::Binding,
            &[Correctness, Feasibility, Risk],
        )
    }

    /// A realistic analyst answer, with the arithmetic and labels judges
    /// like to add.
    const SCORES: &str = r#"As the Analyst (binding), here are my scores.

```yaml
judge: analyst
block_scores:
  - block_id: b1
    criterion: correctness
    score: 4
    rationale: Solves the stated problem at current load
  - block_id: b1
    criterion: Feasibility
    score: 5
    rationale: The team already runs Postgres
  - block_id: b1
    criterion: RISK
    score: 3
    rationale: The depth alarm is untested
  - block_id: b2
    criterion: correctness
    score: 4
    rationale: The status column covers every state
  - block_id: b2
    criterion: feasibility
    score: 4
    rationale: The benchmark supports it
    judge: stylist
  - block_id: b2
    criterion: risk
    score: 2
    rationale: Nobody owns the vacuum schedule
synthesis:
  integration: 4
  risk_coverage: 3
  revision_quality: 4
  total: 11
total: 26
average: 3.7
verdict: ADOPT
```

Overall: ADOPT with minor reservations.
"#;

    /// The error for [`SCORES`] with `from` replaced by `to`.
    fn refused(from: &str, to: &str) -> ParseError {
        parse_judge(&SCORES.replace(from, to), &analyst(), &tree()).expect_err(from)
    }

    fn summary(scores: &JudgeScores) -> Vec<(String, Criterion, u8)> {
        scores
            .block_scores
            .iter()
            .map(|s| (s.block_id.clone(), s.criterion, s.score))
            .collect()
    }

    #[test]
    fn dr_26_parses_block_scores_and_synthesis() {
        use Criterion::*;
        let scores = parse_judge(SCORES, &analyst(), &tree()).expect("valid");
        let expected = [
            ("b1", Correctness, 4),
            ("b1", Feasibility, 5),
            ("b1", Risk, 3),
            ("b2", Correctness, 4),
            ("b2", Feasibility, 4),
            ("b2", Risk, 2),
        ]
        .map(|(id, criterion, score)| (id.to_owned(), criterion, score));
        assert_eq!(summary(&scores), expected);
        assert_eq!(
            scores.block_scores[5].rationale,
            "Nobody owns the vacuum schedule"
        );
        assert_eq!(scores.synthesis.values(), [4, 3, 4]);
        assert!(scores.insufficient_information.is_empty());
    }

    #[test]
    fn dr_26_the_judge_is_who_we_called_not_what_it_wrote() {
        let scores = parse_judge(SCORES, &analyst(), &tree()).expect("valid");
        assert!(
            scores
                .block_scores
                .iter()
                .all(|s| s.judge == JudgeRole::Analyst)
        );
        assert_eq!(scores.synthesis.judge, JudgeRole::Analyst);
    }

    #[test]
    fn dr_26_a14_score_must_be_a_whole_number_from_1_to_5() {
        for bad in [
            "4.5", "\"4.5\"", "0", "6", "-1", "four", "", "\"4/10\"", "\"6/5\"",
        ] {
            let error = refused("    score: 3\n", &format!("    score: {bad}\n"));
            assert_eq!(
                error.field.as_deref(),
                Some("block_scores[2].score"),
                "{bad}"
            );
            assert_eq!(error.line, Some(16), "{bad}");
            assert!(
                error
                    .message
                    .starts_with("expected a whole number from 1 to 5; found"),
                "{error}"
            );
        }
        let error = refused("    score: 3\n", "    score: 4.5\n");
        assert_eq!(
            error.to_string(),
            "line 16, block_scores[2].score: expected a whole number from 1 to 5; found 4.5"
        );
    }

    #[test]
    fn dr_26_a_whole_score_written_otherwise_is_read_and_noted() {
        for (written, note) in [
            ("\"3\"", "read score \"3\" as 3 (b1 risk)"),
            ("3.0", "read score 3.0 as 3 (b1 risk)"),
            ("3/5", "read score \"3/5\" as 3 (b1 risk)"),
            ("3 out of 5", "read score \"3 out of 5\" as 3 (b1 risk)"),
        ] {
            let text = SCORES.replace("    score: 3\n", &format!("    score: {written}\n"));
            let read = read_judge(&text, &analyst(), &tree()).expect(written);
            assert_eq!(read.notes, [note]);
            assert_eq!(
                read.value,
                parse_judge(SCORES, &analyst(), &tree()).unwrap()
            );
        }
    }

    #[test]
    fn dr_26_a_criterion_left_unscored_is_read_as_unscored() {
        let text = SCORES.replace(
            "  - block_id: b1\n    criterion: RISK\n    score: 3\n    rationale: The depth alarm is untested\n",
            "",
        );
        let scores = parse_judge(&text, &analyst(), &tree()).expect("a partial answer reads");
        let given: Vec<String> = scores
            .block_scores
            .iter()
            .map(|score| format!("{}/{}", score.block_id, score.criterion))
            .collect();
        assert!(!given.contains(&"b1/risk".to_string()), "{given:?}");
        assert_eq!(given.len(), analyst().criteria.len() * 2 - 1, "{given:?}");
    }

    /// DR-26: a score given twice, of a block the tree lacks, or without
    /// a rationale is refused at its line and field.
    ///
    /// A14 as revised on 2026-12-06 (issue 59): a required score given
    /// twice with different values still makes the output malformed, while
    /// what is extraneous does not: a score of a block the tree does not
    /// have, and the same score given twice, are read past with a note. A
    /// rationale left out costs the rationale, said as a slip: the score
    /// counts.
    #[test]
    fn dr_26_a_bad_score_entry_is_refused_at_its_field() {
        let error = refused(
            "  - block_id: b2\n    criterion: risk",
            "  - block_id: b1\n    criterion: risk",
        );
        assert_eq!(
            error.to_string(),
            "line 27, block_scores[5]: b1/risk is scored twice with different scores (also at block_scores[2]); score it once"
        );
        let read_with = |from: &str, to: &str| {
            read_judge(&SCORES.replace(from, to), &analyst(), &tree()).expect(to)
        };
        let read = read_with(
            "  - block_id: b2\n    criterion: risk",
            "  - block_id: b7\n    criterion: risk",
        );
        assert_eq!(read.value.block_scores.len(), 5, "b7 is read past");
        assert!(
            read.notes
                .contains(&"read past a score of block \"b7\" (block_scores[5]): no such block in the tree under review".to_string()),
            "{:?}",
            read.notes
        );
        let again = SCORES.replace(
            "synthesis:\n",
            "  - block_id: b2\n    criterion: risk\n    score: 2\n    rationale: Said again\nsynthesis:\n",
        );
        let read = read_judge(&again, &analyst(), &tree()).expect("the same score twice");
        assert_eq!(read.value.block_scores.len(), 6);
        assert!(read.slips.is_empty());
        assert!(
            read.notes
                .iter()
                .any(|note| note.starts_with("read past b2/risk scored 2 again")),
            "{:?}",
            read.notes
        );
        let read = read_with(
            "    rationale: The benchmark supports it\n",
            "    rationale: \"\"\n",
        );
        assert_eq!(read.value.block_scores.len(), 6, "the score counts");
        assert_eq!(read.slips.len(), 1);
        assert_eq!(read.slips[0].id.as_deref(), Some("b2 feasibility"));
        assert_eq!(
            read.slips[0].error.to_string(),
            "line 25, block_scores[4].rationale: required field is missing"
        );
    }

    #[test]
    fn dr_26_output_follows_tree_then_criteria_order() {
        use Criterion::*;
        let text = "```yaml\nblock_scores:\n\
            - {block_id: b2, criterion: risk, score: 1, rationale: r}\n\
            - {block_id: b1, criterion: risk, score: 2, rationale: r}\n\
            - {block_id: b2, criterion: correctness, score: 3, rationale: r}\n\
            - {block_id: b1, criterion: correctness, score: 4, rationale: r}\n\
            synthesis: {integration: 1, risk_coverage: 2, revision_quality: 3}\n```\n";
        let judge = JudgeConfig::new(JudgeRole::Strategist, Weight::Binding, &[Risk, Correctness]);
        let scores = parse_judge(text, &judge, &tree()).expect("valid");
        let order: Vec<(String, Criterion, u8)> = summary(&scores);
        let expected = [
            ("b1", Risk, 2),
            ("b1", Correctness, 4),
            ("b2", Risk, 1),
            ("b2", Correctness, 3),
        ]
        .map(|(id, criterion, score)| (id.to_owned(), criterion, score));
        assert_eq!(order, expected);
    }

    #[test]
    fn dr_26_crlf_answers_parse_the_same() {
        let crlf = SCORES.replace('\n', "\r\n");
        assert_eq!(
            parse_judge(&crlf, &analyst(), &tree()).expect("valid"),
            parse_judge(SCORES, &analyst(), &tree()).expect("valid")
        );
    }

    #[test]
    fn dr_27_synthesis_scores_are_required() {
        let error = refused("  risk_coverage: 3\n", "");
        assert_eq!(error.field.as_deref(), Some("synthesis.risk_coverage"));
        assert_eq!(error.message, "required field is missing");
        let cut = SCORES.find("synthesis:").expect("has synthesis");
        let text = format!("{}```\n", &SCORES[..cut]);
        let error = parse_judge(&text, &analyst(), &tree()).expect_err("no synthesis");
        assert_eq!(error.field.as_deref(), Some("synthesis"));
    }

    #[test]
    fn dr_27_synthesis_scores_are_integers_from_1_to_5() {
        let error = refused("  revision_quality: 4\n", "  revision_quality: 3.5\n");
        assert_eq!(
            error.to_string(),
            "line 34, synthesis.revision_quality: expected a whole number from 1 to 5; found 3.5"
        );
        let error = refused(
            "synthesis:\n  integration: 4\n  risk_coverage: 3\n  revision_quality: 4\n  total: 11\n",
            "synthesis: 4\n",
        );
        assert_eq!(
            error.message,
            "expected a mapping with integration, risk_coverage, revision_quality; found 4"
        );
    }

    #[test]
    fn dr_27_upper_case_synthesis_keys_are_accepted() {
        let text = SCORES
            .replace("  integration: 4", "  INTEGRATION: 4")
            .replace("  risk_coverage: 3", "  RISK_COVERAGE: 3");
        let scores = parse_judge(&text, &analyst(), &tree()).expect("valid");
        assert_eq!(scores.synthesis.values(), [4, 3, 4]);
    }

    #[test]
    fn inf_06_agent_totals_are_ignored() {
        let inflated = SCORES
            .replace("total: 26", "total: 99")
            .replace("verdict: ADOPT", "verdict: REJECT")
            .replace("  total: 11", "  total: 15\n  average: 5")
            .replace(
                "    rationale: Solves the stated problem at current load\n",
                "    rationale: Solves the stated problem at current load\n    total: 30\n",
            );
        let stripped: String = SCORES
            .lines()
            .filter(|line| {
                !["total:", "average:", "verdict:"]
                    .iter()
                    .any(|key| line.trim_start().starts_with(key))
            })
            .map(|line| format!("{line}\n"))
            .collect();
        let from_inflated = parse_judge(&inflated, &analyst(), &tree()).expect("valid");
        let from_stripped = parse_judge(&stripped, &analyst(), &tree()).expect("valid");
        assert_eq!(from_inflated, from_stripped);
    }

    #[test]
    fn a1_unassigned_criteria_are_ignored() {
        let extra = "  - block_id: b9\n    criterion: simplicity\n    score: 11\n  - block_id: b1\n    criterion: elegance\n    score: 5\n    rationale: Lovely\n";
        let text = SCORES.replace("synthesis:\n", &format!("{extra}synthesis:\n"));
        let scores = parse_judge(&text, &analyst(), &tree()).expect("ignored");
        assert_eq!(scores.block_scores.len(), 6);
        assert!(
            scores
                .block_scores
                .iter()
                .all(|s| analyst().criteria.contains(&s.criterion))
        );
    }

    #[test]
    fn a4_insufficient_information_names_known_blocks() {
        let text = SCORES.replace("total: 26\n", "insufficient_information: [b2, b2]\n");
        let scores = parse_judge(&text, &analyst(), &tree()).expect("valid");
        assert_eq!(scores.insufficient_information, ["b2"]);
        // A14 (revised): a block the tree does not have is extraneous, read
        // past with a note.
        let text = SCORES.replace("total: 26\n", "insufficient_information:\n  - b1\n  - b5\n");
        let read = read_judge(&text, &analyst(), &tree()).expect("read past b5");
        assert_eq!(read.value.insufficient_information, ["b1"]);
        assert!(
            read.notes.iter().any(|note| note.starts_with(
                "read past \"b5\" in insufficient_information (insufficient_information[1])"
            )),
            "{:?}",
            read.notes
        );
        let error = refused("total: 26\n", "insufficient_information: yes\n");
        assert_eq!(error.field.as_deref(), Some("insufficient_information"));
        let text = SCORES.replace("total: 26\n", "insufficient_information:\n");
        assert!(
            parse_judge(&text, &analyst(), &tree())
                .expect("null")
                .insufficient_information
                .is_empty()
        );
    }

    #[test]
    fn prose_only_judge_answer_is_an_error() {
        let error = parse_judge("I would ADOPT this.", &analyst(), &tree()).expect_err("prose");
        assert!(error.message.contains("found only prose"), "{error}");
    }
}
