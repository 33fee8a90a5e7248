//! The critic's critique of a thesis tree (DR-12, DR-13, DR-19, A10).
//!
//! Responsible for: reading `critiques:` (or a bare list), checking each item
//! against the closed sets for `flaw_type` and `severity`, requiring the
//! steelman in generous-steelman mode, dropping items aimed at blocks the tree
//! does not have (A10: noted, not fatal) and numbering the kept items
//! `c1..cN` in the critic's order.
//!
//! Not responsible for: the moderator's accept/reject/defer calls, writing
//! the transcript note about dropped items (the caller gets them in
//! [`ParsedCritique::dropped`]), or checking that every block was critiqued.

use super::{Document, Fields, ParseError, Read, list_capped, quote};
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

const CRITIQUE_SHAPE: &str =
    "a critique (a mapping with target_block, flaw_type, severity, description)";

/// A critic's answer: the items kept, and those dropped for aiming at a block
/// the tree does not have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedCritique {
    /// Kept items, in the critic's order, with ids `c1..cN` assigned by us.
    pub items: Vec<CritiqueItem>,
    /// Items left out under RULES.md A10; the caller notes them in the
    /// transcript.
    pub dropped: Vec<DroppedCritique>,
}

/// One critique item left out because its target block does not exist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DroppedCritique {
    /// 0-based position in the critic's list.
    pub index: usize,
    /// The block id the critic named.
    pub target_block: String,
    /// Why it was left out, for the transcript.
    pub reason: String,
}

/// Parses the critic's answer against `tree`.
///
/// Accepts `critiques:` with a list, or a bare list. Each item needs
/// `target_block`, `flaw_type` (assumption | evidence | risk | feasibility),
/// `severity` (major | minor | note) and `description`, plus a non-empty
/// `steelman` in [`CritiqueMode::GenerousSteelman`]. Items aimed at unknown
/// blocks are dropped (A10); if every item is dropped the answer is an error,
/// while an explicit empty list is a valid "nothing found".
pub fn parse_critique(
    text: &str,
    tree: &ThesisTree,
    mode: CritiqueMode,
) -> Result<ParsedCritique, ParseError> {
    read_critique(text, tree, mode).map(|read| read.value)
}

/// [`parse_critique`], with a note for everything read other than as
/// written (`read target_block "B2" as b2 (critiques[0])`).
pub fn read_critique(
    text: &str,
    tree: &ThesisTree,
    mode: CritiqueMode,
) -> Result<Read<ParsedCritique>, ParseError> {
    let known = KnownIds::new(tree.block_ids());
    let document = Document::load(text)?;
    let (list, list_path) =
        document.main_list("critiques", "`critiques:` with a list of critiques")?;
    document.within_item_limit(&list_path, list.len(), "critiques")?;
    let mut parsed = ParsedCritique {
        items: Vec::new(),
        dropped: Vec::new(),
    };
    for (index, value) in list.iter().enumerate() {
        let fields = Fields::new(&document, value, list_path.index(index), CRITIQUE_SHAPE)?;
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
                parsed.dropped.push(DroppedCritique {
                    index,
                    reason: format!("it names several blocks ({})", ids.join(", ")),
                    target_block: written,
                });
                continue;
            }
            IdMatch::Unknown => {
                parsed.dropped.push(DroppedCritique {
                    index,
                    reason: format!("no block {} in the thesis tree", quote(&written)),
                    target_block: written,
                });
                continue;
            }
        };
        let steelman = fields.optional_text("steelman")?;
        if mode == CritiqueMode::GenerousSteelman && steelman.is_none() {
            return Err(fields.error(
                "steelman",
                "required in generous-steelman mode: state the strongest form of the block before its flaw",
            ));
        }
        let flaw_type = fields.required_choice("flaw_type", &FLAW_TYPES)?;
        let severity = fields.required_choice("severity", &SEVERITIES)?;
        let description = fields.required_text("description")?;
        parsed.items.push(CritiqueItem {
            id: format!("c{}", parsed.items.len() + 1),
            target_block,
            flaw_type,
            severity,
            description,
            steelman,
        });
    }
    if parsed.items.is_empty() && !parsed.dropped.is_empty() {
        let named: Vec<String> = parsed
            .dropped
            .iter()
            .map(|dropped| dropped.target_block.clone())
            .collect();
        let known: Vec<String> = tree.block_ids().map(str::to_owned).collect();
        return Err(document.error(
            &list_path,
            format!(
                "no critique targets a block of the tree (named: {}; blocks are: {})",
                list_capped(&named),
                list_capped(&known)
            ),
        ));
    }
    Ok(document.read(parsed))
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
        let parsed = parse_critique(CRITIQUE, &tree(), steelman()).expect("valid");
        assert!(parsed.dropped.is_empty());
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
            let parsed = parse_critique(text, &tree(), steelman()).expect("valid");
            assert!(parsed.items.is_empty() && parsed.dropped.is_empty());
        }
    }

    #[test]
    fn dr_12_a_missing_critiques_key_is_an_error() {
        let error = parse_critique("```yaml\nfindings: []\n```", &tree(), steelman())
            .expect_err("wrong key");
        assert_eq!(error.field.as_deref(), Some("critiques"));
    }

    #[test]
    fn a10_unknown_target_block_is_dropped_not_fatal() {
        let text = CRITIQUE.replace("target_block: b2", "target_block: b9");
        let parsed = parse_critique(&text, &tree(), steelman()).expect("kept the rest");
        assert_eq!(
            parsed.dropped,
            [DroppedCritique {
                index: 1,
                target_block: "b9".to_owned(),
                reason: "no block \"b9\" in the thesis tree".to_owned(),
            }]
        );
        let targets: Vec<&str> = parsed
            .items
            .iter()
            .map(|i| i.target_block.as_str())
            .collect();
        assert_eq!(targets, ["b1", "b3"]);
    }

    #[test]
    fn a10_a_dropped_item_is_not_checked_further() {
        let text = CRITIQUE.replace(
            "  - target_block: b3\n    steelman: The flag keeps a cheap way back\n    flaw_type: RISK",
            "  - target_block: b4\n    flaw_type: vibes",
        );
        let parsed = parse_critique(&text, &tree(), steelman()).expect("dropped, not failed");
        assert_eq!(parsed.dropped[0].index, 2);
        assert_eq!(parsed.items.len(), 2);
    }

    #[test]
    fn a10_every_item_dropped_is_an_error() {
        let text = "```yaml\ncritiques:\n  - target_block: b9\n    flaw_type: risk\n    severity: major\n    description: d\n  - target_block: block-2\n    flaw_type: risk\n    severity: major\n    description: d\n```\n";
        let error = parse_critique(text, &tree(), CritiqueMode::Strict).expect_err("all dropped");
        assert_eq!(
            error.to_string(),
            "line 3, critiques: no critique targets a block of the tree (named: b9, block-2; blocks are: b1, b2, b3)"
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
        let parsed = parse_critique(&text, &tree(), steelman()).expect("valid");
        let ids: Vec<(&str, &str)> = parsed
            .items
            .iter()
            .map(|item| (item.id.as_str(), item.target_block.as_str()))
            .collect();
        assert_eq!(
            ids,
            [("c1", "b1"), ("c2", "b3")],
            "numbered over kept items"
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
