//! The critic's critique of a thesis tree (DR-12, DR-13, DR-19, A10).
//!
//! Responsible for: reading `critiques:` (or a bare list), checking each item
//! against the closed sets for `flaw_type` and `severity`, requiring the
//! steelman in generous-steelman mode, and numbering the items `c1..cN` by
//! their place in the critic's list. Item by item (issue 59): an item that
//! cannot be read, or that aims at a block the tree does not have (A10), is
//! left out as a slip and keeps its number, so no other item's id moves.
//!
//! Not responsible for: the moderator's accept/reject/defer calls, asking
//! the critic about the items left out or recording them (the protocol), or
//! checking that every block was critiqued.

use super::{Document, Fields, ParseError, Read, quote, whole};
use crate::parse::Shape;
use crate::parse::normalise::{IdMatch, KnownIds};
use crate::protocol::decision_review::model::{
    CritiqueItem, CritiqueMode, FlawType, Severity, ThesisTree,
};

/// The words accepted for `flaw_type` (DR-12).
const FLAW_TYPES: [(&str, FlawType); 4] = [
    ("assumption", FlawType::Assumption),
    ("evidence", FlawType::Evidence),
    ("risk", FlawType::Risk),
    ("feasibility", FlawType::Feasibility),
];

/// The words accepted for `severity` (DR-12).
const SEVERITIES: [(&str, Severity); 3] = [
    ("major", Severity::Major),
    ("minor", Severity::Minor),
    ("note", Severity::Note),
];

const CRITIQUE_SHAPE: Shape = Shape {
    what: "a critique (a mapping with target_block, flaw_type, severity, description)",
    keys: &[
        "target_block",
        "steelman",
        "flaw_type",
        "severity",
        "description",
        "id",
    ],
    id_key: None,
};

/// A critic's answer: the items read, each numbered by its place in the
/// critic's list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedCritique {
    /// Items read, in the critic's order, with ids `c1..cN` assigned by us
    /// from their places (an item left out leaves its number unused).
    pub items: Vec<CritiqueItem>,
}

/// The id quorum gives the critique item at `index` of the critic's list.
pub fn critique_id(index: usize) -> String {
    format!("c{}", index + 1)
}

/// Parses the critic's answer against `tree`, refusing it whole on the
/// first item that cannot be read (an answer a person types).
///
/// Accepts `critiques:` with a list, or a bare list. Each item needs
/// `target_block` (a block of `tree`), `flaw_type` (assumption | evidence |
/// risk | feasibility), `severity` (major | minor | note) and `description`,
/// plus a non-empty `steelman` in [`CritiqueMode::GenerousSteelman`]. An
/// explicit empty list is a valid "nothing found".
pub fn parse_critique(
    text: &str,
    tree: &ThesisTree,
    mode: CritiqueMode,
) -> Result<ParsedCritique, ParseError> {
    read_critique(text, tree, mode)
        .and_then(whole)
        .map(|read| read.value)
}

/// Reads the critic's answer item by item: the items read, a note for
/// everything read other than as written (`read target_block "B2" as b2
/// (critiques[0])`), and a slip for each item left out, named by its id.
pub fn read_critique(
    text: &str,
    tree: &ThesisTree,
    mode: CritiqueMode,
) -> Result<Read<ParsedCritique>, ParseError> {
    let known = KnownIds::new(tree.block_ids());
    let document = Document::load(text)?;
    let (list, list_path) =
        document.main_list("critiques", "`critiques:` with a list of critiques")?;
    let items = document.read_items(
        list,
        &list_path,
        "critiques",
        CRITIQUE_SHAPE,
        |index, fields| critique_item(&document, &fields, &known, mode, index),
    )?;
    let read = document.read(ParsedCritique {
        items: items.into_iter().map(|(_, item)| item).collect(),
    });
    Ok(Read {
        slips: read
            .slips
            .into_iter()
            .map(|slip| match slip.index {
                Some(index) if slip.id.is_none() => slip.named(critique_id(index)),
                _ => slip,
            })
            .collect(),
        ..read
    })
}

/// The critique item at `index`: its block one of `known` (A10), its closed
/// sets, and its steelman when the mode asks for one.
fn critique_item(
    document: &Document,
    fields: &Fields<'_>,
    known: &KnownIds<'_>,
    mode: CritiqueMode,
    index: usize,
) -> Result<CritiqueItem, ParseError> {
    let written = fields.required_text("target_block")?;
    let target_block = match known.match_id(&written) {
        IdMatch::Exact(id) => id,
        IdMatch::Read(id) => {
            document.note(format!(
                "read target_block {} as {id} ({})",
                quote(&written),
                fields.path
            ));
            id
        }
        IdMatch::Ambiguous(ids) => {
            return Err(fields.error(
                "target_block",
                format!(
                    "{} names several blocks ({}); aim each item at one block",
                    quote(&written),
                    ids.join(", ")
                ),
            ));
        }
        IdMatch::Unknown => {
            let blocks: Vec<&str> = known.ids().to_vec();
            return Err(fields.error(
                "target_block",
                format!(
                    "no block {} in the thesis tree (blocks are: {})",
                    quote(&written),
                    crate::parse::list_capped(
                        &blocks.iter().map(|id| id.to_string()).collect::<Vec<_>>()
                    )
                ),
            ));
        }
    };
    let steelman = fields.optional_text("steelman")?;
    if mode == CritiqueMode::GenerousSteelman && steelman.is_none() {
        return Err(fields.error(
            "steelman",
            "required in generous-steelman mode: state the strongest form of the block before its flaw",
        ));
    }
    Ok(CritiqueItem {
        id: critique_id(index),
        target_block,
        flaw_type: fields.required_choice("flaw_type", &FLAW_TYPES)?,
        severity: fields.required_choice("severity", &SEVERITIES)?,
        description: fields.required_text("description")?,
        steelman,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::ITEMS_PER_ANSWER_MAX;
    use crate::protocol::decision_review::model::ThesisTree;

    fn tree() -> ThesisTree {
        super::super::test_tree(&["b1", "b2", "b3"])
    }

    fn critiques(count: usize) -> String {
        let item = "  - target_block: b1\n    steelman: \"It holds.\"\n    flaw_type: risk\n    severity: minor\n    description: \"A flaw.\"\n";
        format!("```yaml\ncritiques:\n{}```\n", item.repeat(count))
    }

    #[test]
    fn an_answer_may_raise_as_many_items_as_the_limit_and_no_more() {
        let mode = CritiqueMode::GenerousSteelman;
        let at_limit = parse_critique(&critiques(ITEMS_PER_ANSWER_MAX), &tree(), mode).unwrap();
        assert_eq!(at_limit.items.len(), ITEMS_PER_ANSWER_MAX);
        let error =
            parse_critique(&critiques(ITEMS_PER_ANSWER_MAX + 1), &tree(), mode).unwrap_err();
        assert_eq!(error.field.as_deref(), Some("critiques"));
        assert_eq!(error.line, Some(3));
        assert!(
            error
                .message
                .starts_with("1,001 critiques, more than one answer may hold (1,000)"),
            "{error}"
        );
    }

    /// A realistic critic answer in generous-steelman mode.
    const CRITIQUE: &str = r#"CRITIQUE MODE acknowledged. Taking each block on its best reading:

```yaml
critiques:
  - target_block: b1
    steelman: "Postgres removes a moving part and the queue is small"
    flaw_type: Assumption
    severity: MAJOR
    description: "Assumes depth stays under 10k; a backfill would break that"
  - target_block: b2
    steelman: A jobs table is well understood by the team
    flaw_type: evidence
    severity: Minor
    description: The three services have a tenth of this traffic
  - target_block: b3
    steelman: The flag keeps a cheap way back
    flaw_type: RISK
    severity: note
    description: Nobody owns removing the flag
```

Overall the proposal is sound but b1 needs numbers.
"#;

    fn steelman() -> CritiqueMode {
        CritiqueMode::GenerousSteelman
    }

    /// The error for [`CRITIQUE`] with `from` replaced by `to`, read in
    /// generous-steelman mode.
    fn refused_with(from: &str, to: &str) -> ParseError {
        parse_critique(&CRITIQUE.replace(from, to), &tree(), steelman()).expect_err(from)
    }

    #[test]
    fn dr_12_parses_critiques_with_mixed_case_enums() {
        let read = read_critique(CRITIQUE, &tree(), steelman()).expect("valid");
        assert!(read.slips.is_empty());
        let parsed = read.value;
        let item = &parsed.items[0];
        assert_eq!(item.target_block, "b1");
        assert_eq!(item.flaw_type, FlawType::Assumption);
        assert_eq!(item.severity, Severity::Major);
        assert_eq!(
            item.steelman.as_deref(),
            Some("Postgres removes a moving part and the queue is small")
        );
        assert_eq!(parsed.items[2].flaw_type, FlawType::Risk);
        assert_eq!(parsed.items[2].severity, Severity::Note);
    }

    #[test]
    fn dr_12_crlf_and_a_bare_list_are_accepted() {
        let text = "```yaml\r\n- target_block: b2\r\n  flaw_type: feasibility\r\n  severity: minor\r\n  description: Needs a DBA\r\n```\r\n";
        let parsed = parse_critique(text, &tree(), CritiqueMode::Strict).expect("valid");
        assert_eq!(parsed.items.len(), 1);
        assert_eq!(parsed.items[0].flaw_type, FlawType::Feasibility);
    }

    /// DR-12: an item with a word outside a closed set, or without a
    /// required field, is refused at its line and field.
    #[test]
    fn dr_12_an_item_that_breaks_the_format_is_refused_at_its_field() {
        for (case, from, to, expected) in [
            (
                "flaw_type is a closed set",
                "flaw_type: evidence",
                "flaw_type: style",
                "line 12, critiques[1].flaw_type: expected one of assumption, evidence, risk, feasibility; found \"style\"",
            ),
            (
                "severity is a closed set",
                "severity: note",
                "severity: critical",
                "line 18, critiques[2].severity: expected one of major, minor, note; found \"critical\"",
            ),
            (
                "description is required",
                "    description: Nobody owns removing the flag\n",
                "",
                "line 15, critiques[2].description: required field is missing",
            ),
            (
                "target_block is required",
                "  - target_block: b2\n    steelman",
                "  - steelman",
                "line 10, critiques[1].target_block: required field is missing",
            ),
        ] {
            assert_eq!(refused_with(from, to).to_string(), expected, "{case}");
        }
    }

    #[test]
    fn dr_12_each_critique_is_a_mapping() {
        let text = "```yaml\ncritiques:\n  - b1 is weak\n```\n";
        let error = parse_critique(text, &tree(), CritiqueMode::Neutral).expect_err("scalar");
        assert_eq!(error.field.as_deref(), Some("critiques[0]"));
        assert!(error.message.starts_with("expected a critique"), "{error}");
    }

    #[test]
    fn dr_12_an_explicit_empty_list_means_nothing_was_found() {
        for text in [
            "```yaml\ncritiques: []\n```",
            "No flaws found.\n```yaml\n[]\n```",
        ] {
            let read = read_critique(text, &tree(), steelman()).expect("valid");
            assert!(read.value.items.is_empty() && read.slips.is_empty());
        }
    }

    #[test]
    fn dr_12_a_missing_critiques_key_is_an_error() {
        let error = parse_critique("```yaml\nfindings: []\n```", &tree(), steelman())
            .expect_err("wrong key");
        assert_eq!(error.field.as_deref(), Some("critiques"));
    }

    /// A10, issue 59: an item aimed at a block the tree does not have is
    /// left out as a slip named by its id, and the rest is read.
    #[test]
    fn a10_unknown_target_block_is_dropped_not_fatal() {
        let text = CRITIQUE.replace("target_block: b2", "target_block: b9");
        let read = read_critique(&text, &tree(), steelman()).expect("kept the rest");
        assert_eq!(read.slips.len(), 1);
        let slip = &read.slips[0];
        assert_eq!((slip.index, slip.id.as_deref()), (Some(1), Some("c2")));
        assert_eq!(
            slip.error.to_string(),
            "line 10, critiques[1].target_block: no block \"b9\" in the thesis tree (blocks are: b1, b2, b3)"
        );
        let kept: Vec<(&str, &str)> = read
            .value
            .items
            .iter()
            .map(|i| (i.id.as_str(), i.target_block.as_str()))
            .collect();
        assert_eq!(kept, [("c1", "b1"), ("c3", "b3")], "c3 keeps its number");
    }

    /// Issue 59: an item that breaks the format costs that item alone;
    /// the notes made while reading it are forgotten with it.
    #[test]
    fn issue_59_one_bad_item_costs_that_item() {
        let text = CRITIQUE
            .replace(
                "  - target_block: b3\n    steelman: The flag keeps a cheap way back\n    flaw_type: RISK",
                "  - target_block: B3\n    flaw_type: vibes",
            );
        let read = read_critique(&text, &tree(), steelman()).expect("read the rest");
        assert_eq!(read.slips.len(), 1);
        assert_eq!(read.slips[0].id.as_deref(), Some("c3"));
        assert_eq!(read.value.items.len(), 2);
        assert!(
            read.notes.iter().all(|note| !note.contains("B3")),
            "{:?}",
            read.notes
        );
        // Every item bad: nothing kept, each item a slip.
        let text = "```yaml\ncritiques:\n  - target_block: b9\n    flaw_type: risk\n    severity: major\n    description: d\n  - target_block: block-2\n    flaw_type: risk\n    severity: major\n    description: d\n```\n";
        let read = read_critique(text, &tree(), CritiqueMode::Strict).expect("all left out");
        assert!(read.value.items.is_empty());
        let ids: Vec<&str> = read.slips.iter().filter_map(|s| s.id.as_deref()).collect();
        assert_eq!(ids, ["c1", "c2"]);
        // Whole, as for an answer a person types: the first slip refuses it.
        let error = parse_critique(text, &tree(), CritiqueMode::Strict).expect_err("whole");
        assert!(error.to_string().contains("no block \"b9\""), "{error}");
    }

    /// Issue 59: a closed-set word misspelt by a letter is read, noted; a
    /// stray key is read past, noted.
    #[test]
    fn issue_59_a_near_word_and_a_stray_key_are_read_with_a_note() {
        let text = CRITIQUE
            .replace("severity: MAJOR", "severity: majr")
            .replace(
                "flaw_type: evidence",
                "flaw_type: evidence\n    confidence: high",
            );
        let read = read_critique(&text, &tree(), steelman()).expect("read");
        assert!(read.slips.is_empty(), "{:?}", read.slips);
        assert_eq!(read.value.items[0].severity, Severity::Major);
        assert_eq!(
            read.notes,
            [
                "read severity \"majr\" as major (critiques[0])",
                "ignored the key \"confidence\" (critiques[1])"
            ]
        );
    }

    #[test]
    fn dr_13_critique_ids_are_assigned_in_order() {
        let text = CRITIQUE
            .replace(
                "  - target_block: b1\n",
                "  - id: x7\n    target_block: b1\n",
            )
            .replace("target_block: b2", "target_block: b8");
        let read = read_critique(&text, &tree(), steelman()).expect("valid");
        let ids: Vec<(&str, &str)> = read
            .value
            .items
            .iter()
            .map(|item| (item.id.as_str(), item.target_block.as_str()))
            .collect();
        assert_eq!(
            ids,
            [("c1", "b1"), ("c3", "b3")],
            "numbered by place: the item left out keeps c2 (issue 59)"
        );
    }

    #[test]
    fn dr_19_steelman_mode_requires_the_strongest_form() {
        let error = refused_with(
            "    steelman: A jobs table is well understood by the team\n",
            "",
        );
        assert_eq!(error.field.as_deref(), Some("critiques[1].steelman"));
        assert_eq!(error.line, Some(10));
        assert!(
            error
                .message
                .starts_with("required in generous-steelman mode")
        );
        let blank = CRITIQUE.replace("A jobs table is well understood by the team", "\"\"");
        assert!(parse_critique(&blank, &tree(), steelman()).is_err());
    }

    #[test]
    fn dr_20_strict_and_neutral_modes_do_not_need_a_steelman() {
        let text = CRITIQUE.replace(
            "    steelman: A jobs table is well understood by the team\n",
            "",
        );
        for mode in [CritiqueMode::Strict, CritiqueMode::Neutral] {
            let parsed = parse_critique(&text, &tree(), mode).expect("valid");
            assert_eq!(parsed.items[1].steelman, None);
            assert!(
                parsed.items[0].steelman.is_some(),
                "a given steelman is kept"
            );
        }
    }
}
