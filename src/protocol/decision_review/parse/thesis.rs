//! The proposer's thesis tree (DR-08, DR-09, DR-10).
//!
//! Responsible for: reading `blocks:` (or a bare list of blocks), checking
//! that every block has its six fields, that `type` is one of the closed set
//! (RULES.md A14) and that ids are unique and safe to use in file names and
//! prompts. The revision parser reuses the block rules for its revised tree.
//!
//! Not responsible for: judging whether the blocks make a good argument, or
//! comparing a revised tree with the original one.

use yaml_serde::{Sequence, Value};

use super::{Document, FieldPath, Fields, ParseError, Read, describe, quote};
use crate::parse::Shape;
use crate::protocol::decision_review::model::{Block, BlockType, ThesisTree};

/// The words accepted for a block's `type`, a closed set (DR-10, A14).
const BLOCK_TYPES: [(&str, BlockType); 3] = [
    ("claim", BlockType::Claim),
    ("implementation", BlockType::Implementation),
    ("fallback", BlockType::Fallback),
];

/// Longest block id accepted, in chars. Ids end up in prompts, transcripts
/// and YAML keys, so they stay short and plain.
const MAX_BLOCK_ID_CHARS: usize = 32;

const BLOCK_SHAPE: Shape = Shape {
    what: "a block (a mapping with id, type, text, evidence, tradeoffs, risks)",
    keys: &[
        "id",
        "type",
        "text",
        "evidence",
        "tradeoffs",
        "risks",
        "option",
    ],
    id_key: Some("id"),
};

/// Parses the proposer's answer into a thesis tree.
///
/// Accepts `blocks:` with a list of blocks, or a bare list. Every block needs
/// `id`, `type`, `text`, `evidence`, `tradeoffs` and `risks`, all non-empty;
/// ids are unique and made of 1 to 32 letters, digits, `_` or `-`. A block
/// that falls short of that is left out as a slip ([`read_thesis_tree`]);
/// this refuses the answer on the first.
pub fn parse_thesis_tree(text: &str) -> Result<ThesisTree, ParseError> {
    read_thesis_tree(text).and_then(|read| super::whole(read).map(|read| read.value))
}

/// [`parse_thesis_tree`], with a note for everything read other than as
/// written (tabs, emphasised keys).
pub fn read_thesis_tree(text: &str) -> Result<Read<ThesisTree>, ParseError> {
    let document = Document::load(text)?;
    let tree = tree_from_value(&document, &document.root, FieldPath::root())?;
    Ok(document.read(tree))
}

/// Reads a tree at `path`: a list of blocks, or a mapping with `blocks:`.
pub(super) fn tree_from_value(
    document: &Document,
    value: &Value,
    path: FieldPath,
) -> Result<ThesisTree, ParseError> {
    let (list, list_path) = match value {
        Value::Sequence(list) => (list, path),
        Value::Mapping(_) => {
            let fields = Fields::new(document, value, path, "a mapping")?;
            fields.required_list("blocks")?
        }
        _ if path.is_root() => {
            return Err(document.root_mismatch("`blocks:` with a list of blocks"));
        }
        other => {
            return Err(document.error(
                &path,
                format!("expected a list of blocks; found {}", describe(other)),
            ));
        }
    };
    let blocks = blocks_from_list(document, list, &list_path)?;
    Ok(ThesisTree { blocks })
}

/// Reads and checks every block of `list`; at least one, ids unique
/// (DR-09). A block that cannot be read is left out as a slip; a block id
/// given twice reads once when both say the same, and neither when they
/// differ (issue 59).
fn blocks_from_list(
    document: &Document,
    list: &Sequence,
    path: &FieldPath,
) -> Result<Vec<Block>, ParseError> {
    if list.is_empty() {
        return Err(document.error(path, "expected at least one block; found an empty list"));
    }
    let blocks = document.read_items(list, path, "blocks", BLOCK_SHAPE, |_, fields| {
        block(&fields)
    })?;
    let blocks = document.one_per_id(blocks, path, "block", |block| block.id.clone());
    Ok(blocks.into_iter().map(|(_, block)| block).collect())
}

fn block(fields: &Fields<'_>) -> Result<Block, ParseError> {
    let id = fields.required_text("id")?;
    if !is_safe_block_id(&id) {
        return Err(fields.error(
            "id",
            format!(
                "{} is not a usable id; use 1 to {MAX_BLOCK_ID_CHARS} letters, digits, '_' or '-'",
                quote(&id)
            ),
        ));
    }
    Ok(Block {
        id,
        block_type: fields.required_choice("type", &BLOCK_TYPES)?,
        text: fields.required_text("text")?,
        evidence: fields.required_text("evidence")?,
        tradeoffs: fields.required_text("tradeoffs")?,
        risks: fields.required_text("risks")?,
        option: fields.optional_text("option")?,
    })
}

fn is_safe_block_id(id: &str) -> bool {
    (1..=MAX_BLOCK_ID_CHARS).contains(&id.len())
        && id
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A realistic proposer answer: prose, then the fenced tree, then prose.
    const PROPOSAL: &str = r#"I'll decompose the recommendation into blocks.

```yaml
blocks:
  - id: b1
    type: claim
    text: "Move the job queue from Redis to Postgres"
    evidence: "Queue depth never exceeds 10k jobs; Postgres SKIP LOCKED handles that"
    tradeoffs: "Slightly higher latency per dequeue"
    risks: "Lock contention under bursts; watch p99 dequeue latency"
  - id: b2
    type: Implementation
    text: Use a jobs table with a status column
    evidence: Three internal services already do this
    tradeoffs: Needs a vacuum schedule
    risks: Table bloat; alert on dead tuples
  - id: b3
    type: FALLBACK
    text: Keep the Redis consumer behind a flag for one release
    evidence: The flag system exists
    tradeoffs: Two code paths for a month
    risks: Drift between paths; run both in CI
```

Let me know if you want more detail on b2.
"#;

    fn block(id: &str, block_type: BlockType) -> Block {
        Block {
            id: id.to_owned(),
            block_type,
            text: format!("{id} text"),
            evidence: format!("{id} evidence"),
            tradeoffs: format!("{id} tradeoffs"),
            risks: format!("{id} risks"),
            option: None,
        }
    }

    fn fenced(yaml: &str) -> String {
        format!("Here is the tree.\n```yaml\n{yaml}```\nDone.\n")
    }

    /// The error for `yaml` in a fenced block.
    fn refused(yaml: &str) -> ParseError {
        parse_thesis_tree(&fenced(yaml)).expect_err(yaml)
    }

    /// The error for [`PROPOSAL`] with `from` replaced by `to`.
    fn refused_with(from: &str, to: &str) -> ParseError {
        parse_thesis_tree(&PROPOSAL.replace(from, to)).expect_err(from)
    }

    #[test]
    fn dr_08_parses_a_thesis_tree_between_prose() {
        let tree = parse_thesis_tree(PROPOSAL).expect("valid");
        let ids: Vec<&str> = tree.block_ids().collect();
        assert_eq!(ids, ["b1", "b2", "b3"]);
        let types: Vec<BlockType> = tree.blocks.iter().map(|b| b.block_type).collect();
        assert_eq!(
            types,
            [
                BlockType::Claim,
                BlockType::Implementation,
                BlockType::Fallback
            ]
        );
        assert_eq!(
            tree.blocks[0].text,
            "Move the job queue from Redis to Postgres"
        );
        assert_eq!(tree.blocks[1].risks, "Table bloat; alert on dead tuples");
    }

    #[test]
    fn dr_08_accepts_a_bare_list_of_blocks() {
        let yaml =
            "- id: b1\n  type: claim\n  text: t\n  evidence: e\n  tradeoffs: o\n  risks: r\n";
        let tree = parse_thesis_tree(&fenced(yaml)).expect("valid");
        assert_eq!(tree.blocks.len(), 1);
        assert_eq!(tree.blocks[0].tradeoffs, "o");
    }

    #[test]
    fn dr_08_crlf_answers_parse_the_same() {
        let crlf = PROPOSAL.replace('\n', "\r\n");
        assert_eq!(
            parse_thesis_tree(&crlf).expect("valid"),
            parse_thesis_tree(PROPOSAL).expect("valid")
        );
    }

    /// DR-08: a field left out, empty or not text is refused at its line
    /// and field.
    #[test]
    fn dr_08_every_field_is_required_as_text() {
        for (case, from, to, expected) in [
            (
                "every field is required",
                "    evidence: Three internal services already do this\n",
                "",
                "line 11, blocks[1].evidence: required field is missing",
            ),
            (
                "empty text is an error",
                "    tradeoffs: Needs a vacuum schedule",
                "    tradeoffs: \"  \"",
                "line 15, blocks[1].tradeoffs: must not be empty",
            ),
            (
                "null text is an error",
                "    tradeoffs: Needs a vacuum schedule",
                "    tradeoffs:",
                "line 15, blocks[1].tradeoffs: must not be empty",
            ),
            (
                "fields must be text, not lists",
                "    evidence: The flag system exists",
                "    evidence:\n      - The flag system exists",
                "line 21, blocks[2].evidence: expected text; found a list",
            ),
        ] {
            assert_eq!(refused_with(from, to).to_string(), expected, "{case}");
        }
    }

    #[test]
    fn dr_08_numbers_and_booleans_are_read_as_text() {
        let yaml = "blocks:\n  - id: 7\n    type: claim\n    text: 42\n    evidence: true\n    tradeoffs: 1.5\n    risks: none\n";
        let tree = parse_thesis_tree(&fenced(yaml)).expect("valid");
        let block = &tree.blocks[0];
        assert_eq!(
            (
                block.id.as_str(),
                block.text.as_str(),
                block.evidence.as_str(),
                block.tradeoffs.as_str()
            ),
            ("7", "42", "true", "1.5")
        );
    }

    #[test]
    fn dr_08_keys_match_regardless_of_case() {
        let yaml = "Blocks:\n  - ID: b1\n    Type: Claim\n    Text: t\n    Evidence: e\n    Tradeoffs: o\n    RISKS: r\n";
        let tree = parse_thesis_tree(&fenced(yaml)).expect("valid");
        assert_eq!(tree.blocks[0].id, "b1");
    }

    #[test]
    fn dr_08_unknown_keys_are_ignored() {
        let yaml = "title: Queue\nblocks:\n  - id: b1\n    type: claim\n    text: t\n    evidence: e\n    tradeoffs: o\n    risks: r\n    confidence: high\n";
        assert!(parse_thesis_tree(&fenced(yaml)).is_ok());
    }

    /// DR-08: `blocks:` is a list of at least one block, each a mapping;
    /// anything else is refused at its line and field.
    #[test]
    fn dr_08_blocks_is_a_list_of_mappings() {
        for (case, yaml, expected) in [
            (
                "a tree needs at least one block",
                "blocks: []\n",
                "line 3, blocks: expected at least one block; found an empty list",
            ),
            (
                "blocks must be a list",
                "blocks:\n  b1:\n    type: claim\n",
                "line 4, blocks: expected a list; found a mapping",
            ),
            (
                "blocks is required",
                "thesis:\n  - id: b1\n",
                "line 3, blocks: required field is missing",
            ),
        ] {
            assert_eq!(refused(yaml).to_string(), expected, "{case}");
        }
    }

    #[test]
    fn dr_08_prose_without_yaml_is_an_error() {
        let error =
            parse_thesis_tree("I recommend Postgres because it is simpler.").expect_err("prose");
        assert_eq!(
            error.to_string(),
            "line 1: expected `blocks:` with a list of blocks in a ```yaml block; found only prose"
        );
    }

    #[test]
    fn dr_08_a_block_must_be_a_mapping() {
        let error = refused("blocks:\n  - just a sentence\n");
        assert_eq!(error.field.as_deref(), Some("blocks[0]"));
        assert_eq!(error.line, Some(4));
        assert!(
            error.message.ends_with("found \"just a sentence\""),
            "{error}"
        );
    }

    /// DR-09, issue 59: a block id given twice with different blocks is a
    /// conflict that takes neither block, each a slip; the rest is read. The
    /// same block given twice reads once, noted.
    #[test]
    fn dr_09_duplicate_block_id_is_an_error() {
        let read = read_thesis_tree(&PROPOSAL.replace("  - id: b3", "  - id: b1")).expect("read");
        let ids: Vec<&str> = read.value.blocks.iter().map(|b| b.id.as_str()).collect();
        assert_eq!(ids, ["b2"], "neither b1 is kept");
        let slipped: Vec<(Option<usize>, Option<&str>)> = read
            .slips
            .iter()
            .map(|slip| (slip.index, slip.id.as_deref()))
            .collect();
        assert_eq!(slipped, [(Some(0), Some("b1")), (Some(2), Some("b1"))]);
        assert_eq!(
            read.slips[1].error.to_string(),
            "line 17, blocks[2]: block \"b1\" is given 2 times with different words (blocks[0], blocks[2]); give it once"
        );
        let error = refused_with("  - id: b3", "  - id: b1");
        assert_eq!(error.field.as_deref(), Some("blocks[0]"));
        let block: String = PROPOSAL
            .lines()
            .skip_while(|line| !line.starts_with("  - id: b1"))
            .take_while(|line| !line.starts_with("  - id: b2"))
            .map(|line| format!("{line}\n"))
            .collect();
        let twice = PROPOSAL.replace("  - id: b2", &format!("{block}  - id: b2"));
        let read = read_thesis_tree(&twice).expect("the same block twice");
        assert!(read.slips.is_empty());
        assert_eq!(read.value.blocks.len(), 3);
        assert!(read.notes[0].starts_with("read past block \"b1\", given again the same"));
    }

    #[test]
    fn dr_09_block_ids_must_be_safe() {
        for bad in ["\"b 1\"", "\"../b1\"", "\"b1;rm\"", &"x".repeat(33), "\"\""] {
            let error = refused_with("  - id: b2", &format!("  - id: {bad}"));
            assert_eq!(error.field.as_deref(), Some("blocks[1].id"), "{bad}");
        }
        let ok = PROPOSAL.replace("  - id: b2", "  - id: Block_2-a");
        assert!(parse_thesis_tree(&ok).is_ok());
    }

    #[test]
    fn dr_10_block_type_is_a_closed_set() {
        let error = refused_with("    type: FALLBACK", "    type: idea");
        assert_eq!(
            error.to_string(),
            "line 18, blocks[2].type: expected one of claim, implementation, fallback; found \"idea\""
        );
    }

    #[test]
    fn dr_10_block_type_ignores_case_and_spacing() {
        let text = PROPOSAL.replace("    type: claim", "    type: \" Claim \"");
        assert_eq!(
            parse_thesis_tree(&text).expect("valid").blocks[0].block_type,
            BlockType::Claim
        );
    }

    #[test]
    fn tree_from_value_checks_a_nested_tree_like_a_thesis_tree() {
        let document = Document::load("revised_tree:\n  - id: b1\n").expect("yaml");
        let Value::Mapping(map) = &document.root else {
            panic!("mapping")
        };
        let nested = map.get("revised_tree").expect("key");
        let tree = tree_from_value(&document, nested, FieldPath::root().key("revised_tree"))
            .expect("the block is left out, not the tree");
        assert!(tree.blocks.is_empty());
        let error = &document.read(()).slips[0].error;
        assert_eq!(error.field.as_deref(), Some("revised_tree[0].type"));
        assert_eq!(error.line, Some(2));
    }

    #[test]
    fn parses_a_hand_built_tree_rendered_by_yaml_serde() {
        let tree = ThesisTree {
            blocks: vec![
                block("b1", BlockType::Claim),
                block("b2", BlockType::Fallback),
            ],
        };
        let yaml = yaml_serde::to_string(&tree).expect("render");
        assert_eq!(parse_thesis_tree(&fenced(&yaml)).expect("parse"), tree);
    }

    fn block_text() -> impl Strategy<Value = String> {
        "[A-Za-z0-9\u{e9}\u{2014}][A-Za-z0-9 ,.:;#'\"!?()/\u{e9}\u{2014}\n-]{0,60}[A-Za-z0-9.!?)\u{e9}]"
            .prop_map(String::from)
    }

    fn block_type() -> impl Strategy<Value = BlockType> {
        prop_oneof![
            Just(BlockType::Claim),
            Just(BlockType::Implementation),
            Just(BlockType::Fallback),
        ]
    }

    fn thesis_tree() -> impl Strategy<Value = ThesisTree> {
        proptest::collection::btree_set("[A-Za-z0-9_-]{1,32}", 1..6).prop_flat_map(|ids| {
            let count = ids.len();
            (
                Just(ids.into_iter().collect::<Vec<_>>()),
                proptest::collection::vec(
                    (
                        block_type(),
                        block_text(),
                        block_text(),
                        block_text(),
                        block_text(),
                    ),
                    count,
                ),
            )
                .prop_map(|(ids, contents)| ThesisTree {
                    blocks: ids
                        .into_iter()
                        .zip(contents)
                        .map(
                            |(id, (block_type, text, evidence, tradeoffs, risks))| Block {
                                id,
                                block_type,
                                text,
                                evidence,
                                tradeoffs,
                                risks,
                                option: None,
                            },
                        )
                        .collect(),
                })
        })
    }

    proptest! {
        #[test]
        fn dr_08_a_rendered_tree_wrapped_in_prose_parses_back_to_itself(
            tree in thesis_tree(),
            before in "[A-Za-z ,.]{0,80}",
            after in "[A-Za-z ,.]{0,80}",
        ) {
            let yaml = yaml_serde::to_string(&tree).expect("render");
            let answer = format!("{before}\n\n```yaml\n{yaml}```\n\n{after}\n");
            prop_assert_eq!(parse_thesis_tree(&answer).expect("parses"), tree);
        }
    }
}
