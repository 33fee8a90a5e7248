//! The proposer's revision: revised tree plus change log (DR-14, DR-15, A11).
//!
//! Responsible for: checking the revised tree with the thesis-tree rules,
//! reading each change-log entry (closed set of change types, `decline` needs
//! a rationale, the entry's block exists unless it was retracted) and making
//! sure every id the revision had to address appears in the log.
//!
//! Not responsible for: deciding which critique or directive ids must be
//! addressed (the caller passes them), or judging whether a change really
//! answers its critique (the judges do that).

use std::collections::HashSet;

use yaml_serde::Value;

use super::thesis::tree_from_value;
use super::{Document, Fields, ParseError, Read, describe, quote, whole};
use crate::parse::Shape;
use crate::parse::normalise::{IdMatch, KnownIds};
use crate::protocol::decision_review::model::{ChangeEntry, ChangeType, RevisionOutput};

/// The words accepted for `change_type`; `decline` is ours (A11).
const CHANGE_TYPES: [(&str, ChangeType); 5] = [
    ("strengthen", ChangeType::Strengthen),
    ("retract", ChangeType::Retract),
    ("replace", ChangeType::Replace),
    ("add_fallback", ChangeType::AddFallback),
    ("decline", ChangeType::Decline),
];

const CHANGE_SHAPE: Shape = Shape {
    what: "a change (a mapping with addresses_critique, block_id, change_type, before, after)",
    keys: &[
        "addresses_critique",
        "block_id",
        "change_type",
        "before",
        "after",
        "rationale",
    ],
    id_key: None,
};

/// Parses the proposer's revision.
///
/// Expects `revised_tree:` (a list of blocks, or `blocks:` with one) checked
/// like a thesis tree, and `change_log:` with one entry per change. Every id
/// in `must_address` (critique ids like `c3`, or directive ids like `d1` in
/// later rounds) must appear as some entry's `addresses_critique`; a
/// `decline` entry needs a `rationale`; an entry's `block_id` must be in the
/// revised tree unless its change is `retract`.
///
/// Refuses the answer whole on the first block or entry that cannot be
/// read (an answer a person types); [`read_revision`] leaves it out.
pub fn parse_revision(text: &str, must_address: &[String]) -> Result<RevisionOutput, ParseError> {
    read_revision(text, must_address)
        .and_then(whole)
        .map(|read| read.value)
}

/// [`parse_revision`] item by item: a note for everything read other than
/// as written (`read addresses_critique "C1" as c1 (change_log[0])`), and a
/// slip for each block or entry left out and each id of `must_address` no
/// entry addresses (named by that id).
pub fn read_revision(
    text: &str,
    must_address: &[String],
) -> Result<Read<RevisionOutput>, ParseError> {
    let document = Document::load(text)?;
    let root = document.root_fields("a mapping with `revised_tree:` and `change_log:`")?;
    let tree_value = root.required("revised_tree")?;
    let revised_tree = tree_from_value(&document, tree_value, root.path_of("revised_tree"))?;
    let (log, log_path) = root.required_list("change_log")?;
    let block_ids = KnownIds::new(revised_tree.block_ids());
    let blocks: HashSet<&str> = revised_tree.block_ids().collect();
    let addressable = KnownIds::new(must_address.iter().map(String::as_str));

    let change_log =
        document.read_items(log, &log_path, "changes", CHANGE_SHAPE, |_, fields| {
            let addresses_critique = addressed_id(&fields, &addressable)?;
            let change_type = fields.required_choice("change_type", &CHANGE_TYPES)?;
            let block_id = match fields.known_id("block_id", &block_ids)? {
                Some(id) => id,
                None => fields.required_text("block_id")?,
            };
            // `before` and `after` say what changed: both for a strengthen or
            // a replace; a retract has only `before` (the block is gone), an
            // added fallback only `after` (it is new), a decline neither.
            let (needs_before, needs_after) = match change_type {
                ChangeType::Strengthen | ChangeType::Replace => (true, true),
                ChangeType::Retract => (true, false),
                ChangeType::AddFallback => (false, true),
                ChangeType::Decline => (false, false),
            };
            let text_of = |key: &str, needed: bool, what: &str| -> Result<String, ParseError> {
                match fields.optional_text(key)? {
                    Some(text) => Ok(text),
                    None if needed => Err(fields.error(
                        key,
                        format!(
                            "required for change_type {}: {what}",
                            CHANGE_TYPES
                                .iter()
                                .find(|(_, kind)| *kind == change_type)
                                .map_or("", |(word, _)| *word)
                        ),
                    )),
                    None => Ok(String::new()),
                }
            };
            let before = text_of("before", needs_before, "the block's text before the change")?;
            let after = text_of("after", needs_after, "the block's text after the change")?;
            let rationale = fields.optional_text("rationale")?;
            if change_type == ChangeType::Decline && rationale.is_none() {
                return Err(fields.error(
                    "rationale",
                    "required for change_type decline: say why the critique is not taken up",
                ));
            }
            if change_type != ChangeType::Retract && !blocks.contains(block_id.as_str()) {
                return Err(fields.error(
                    "block_id",
                    format!(
                        "no block {} in revised_tree (use change_type retract for a removed block)",
                        quote(&block_id)
                    ),
                ));
            }
            Ok(ChangeEntry {
                addresses_critique,
                block_id,
                change_type,
                before,
                after,
                rationale,
            })
        })?;
    let change_log: Vec<ChangeEntry> = change_log.into_iter().map(|(_, entry)| entry).collect();

    let addressed: HashSet<&str> = change_log
        .iter()
        .map(|entry| entry.addresses_critique.as_str())
        .collect();
    document.slip_each_missing(
        &log_path,
        must_address.iter().map(String::as_str),
        |id| addressed.contains(id),
        |unaddressed| format!("no entry addresses {unaddressed}"),
    );
    Ok(document.read(RevisionOutput {
        revised_tree,
        change_log,
    }))
}

/// The one critique or directive id an entry addresses: one of
/// `addressable` (read in another case or decorated, when only one fits),
/// or another id as written.
fn addressed_id(fields: &Fields<'_>, addressable: &KnownIds<'_>) -> Result<String, ParseError> {
    const ONE_ID: &str = "name one critique id per entry (repeat the entry for each id)";
    let value = fields.required("addresses_critique")?;
    if let Value::Sequence(_) = value {
        return Err(fields.error(
            "addresses_critique",
            format!("{ONE_ID}; found {}", describe(value)),
        ));
    }
    let written = fields.required_text("addresses_critique")?;
    if let IdMatch::Ambiguous(_) = addressable.match_id(&written) {
        return Err(fields.error(
            "addresses_critique",
            format!("{ONE_ID}; found {}", quote(&written)),
        ));
    }
    if let Some(id) = fields.known_id("addresses_critique", addressable)? {
        return Ok(id);
    }
    let id = written;
    if id.contains(|c: char| c == ',' || c.is_whitespace()) {
        return Err(fields.error(
            "addresses_critique",
            format!("{ONE_ID}; found {}", quote(&id)),
        ));
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::decision_review::model::BlockType;

    /// The error for [`REVISION`] with `from` replaced by `to`, where no
    /// id must be addressed.
    fn refused_with(from: &str, to: &str) -> ParseError {
        parse_revision(&REVISION.replace(from, to), &[]).expect_err(from)
    }

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    /// A realistic revision answer addressing c1..c3.
    const REVISION: &str = r#"Thanks for the critique. Revised proposal below.

```yaml
revised_tree:
  - id: b1
    type: claim
    text: Move the job queue from Redis to Postgres, with a depth alarm
    evidence: Depth peaked at 8k last quarter; backfills are throttled to 2k/min
    tradeoffs: Slightly higher dequeue latency
    risks: A backfill floods the table; alarm at 20k and pause producers
  - id: b2
    type: implementation
    text: Jobs table with a status column
    evidence: Benchmarked at 5x current peak
    tradeoffs: Needs a vacuum schedule
    risks: Bloat; alert on dead tuples
  - id: b4
    type: fallback
    text: Keep Redis warm for one release
    evidence: Flag system exists
    tradeoffs: Two paths
    risks: Drift; run both in CI
change_log:
  - addresses_critique: c1
    block_id: b1
    change_type: Strengthen
    before: Move the job queue from Redis to Postgres
    after: Move the job queue from Redis to Postgres, with a depth alarm
  - addresses_critique: c2
    block_id: b2
    change_type: DECLINE
    rationale: The benchmark already covers 5x peak
  - addresses_critique: c3
    block_id: b3
    change_type: retract
    before: Keep the Redis consumer behind a flag
  - addresses_critique: c3
    block_id: b4
    change_type: add-fallback
    after: Keep Redis warm for one release
```
"#;

    #[test]
    fn dr_14_parses_a_revision_with_tree_and_change_log() {
        let revision = parse_revision(REVISION, &ids(&["c1", "c2", "c3"])).expect("valid");
        let block_ids: Vec<&str> = revision.revised_tree.block_ids().collect();
        assert_eq!(block_ids, ["b1", "b2", "b4"]);
        assert_eq!(
            revision.revised_tree.blocks[2].block_type,
            BlockType::Fallback
        );
        let types: Vec<ChangeType> = revision.change_log.iter().map(|e| e.change_type).collect();
        assert_eq!(
            types,
            [
                ChangeType::Strengthen,
                ChangeType::Decline,
                ChangeType::Retract,
                ChangeType::AddFallback
            ]
        );
        assert_eq!(
            revision.change_log[1].rationale.as_deref(),
            Some("The benchmark already covers 5x peak")
        );
    }

    #[test]
    fn dr_14_before_and_after_are_left_out_only_where_there_is_nothing() {
        let revision = parse_revision(REVISION, &[]).expect("valid");
        // A decline changes nothing, a retract leaves nothing after, an
        // added fallback had nothing before.
        assert_eq!(revision.change_log[1].before, "");
        assert_eq!(revision.change_log[1].after, "");
        assert_eq!(revision.change_log[2].after, "");
        assert_eq!(revision.change_log[3].before, "");
    }

    #[test]
    fn dr_14_a_change_without_its_before_or_after_is_refused() {
        let error = refused_with(
            "    before: Move the job queue from Redis to Postgres\n",
            "",
        );
        assert_eq!(
            error.field.as_deref(),
            Some("change_log[0].before"),
            "{error}"
        );
        assert!(
            error
                .message
                .starts_with("required for change_type strengthen"),
            "{error}"
        );
        let error = refused_with("    after: Keep Redis warm for one release\n", "");
        assert_eq!(
            error.field.as_deref(),
            Some("change_log[3].after"),
            "{error}"
        );
        let error = refused_with("    before: Keep the Redis consumer behind a flag\n", "");
        assert_eq!(
            error.field.as_deref(),
            Some("change_log[2].before"),
            "{error}"
        );
    }

    #[test]
    fn dr_14_revised_tree_may_be_a_blocks_mapping() {
        let text = REVISION.replace("revised_tree:\n  - id", "revised_tree:\n  blocks:\n  - id");
        let revision = parse_revision(&text, &[]).expect("valid");
        assert_eq!(revision.revised_tree.blocks.len(), 3);
    }

    #[test]
    fn dr_14_revised_tree_is_checked_like_a_thesis_tree() {
        // Two blocks b2 that differ: neither is kept (issue 59).
        let read = read_revision(&REVISION.replace("  - id: b4", "  - id: b2"), &[]).unwrap();
        let fields: Vec<&str> = read
            .slips
            .iter()
            .filter_map(|slip| slip.error.field.as_deref())
            .collect();
        assert_eq!(fields[..2], ["revised_tree[1]", "revised_tree[2]"]);
        assert_eq!(read.slips[1].error.line, Some(17));
        let error = refused_with("    type: implementation", "    type: detail");
        assert_eq!(error.field.as_deref(), Some("revised_tree[1].type"));
    }

    #[test]
    fn dr_14_change_type_is_a_closed_set() {
        let error = refused_with("change_type: Strengthen", "change_type: tweak");
        assert_eq!(
            error.to_string(),
            "line 26, change_log[0].change_type: expected one of strengthen, retract, replace, add_fallback, decline; found \"tweak\""
        );
    }

    #[test]
    fn dr_14_block_id_must_exist_unless_retracted() {
        let error = refused_with("    block_id: b2\n", "    block_id: b9\n");
        assert_eq!(error.field.as_deref(), Some("change_log[1].block_id"));
        assert_eq!(error.line, Some(30));
        assert!(error.message.starts_with("no block \"b9\" in revised_tree"));
    }

    #[test]
    fn dr_14_a_retracted_block_may_be_absent_or_still_present() {
        assert!(
            parse_revision(REVISION, &[]).is_ok(),
            "b3 is retracted and absent"
        );
        let present = REVISION.replace("    block_id: b3\n", "    block_id: b2\n");
        assert!(
            parse_revision(&present, &[]).is_ok(),
            "retracting a present block"
        );
    }

    #[test]
    fn dr_14_change_log_is_required() {
        let cut = REVISION.find("change_log:").expect("has log");
        let text = format!("{}```\n", &REVISION[..cut]);
        let error = parse_revision(&text, &[]).expect_err("no log");
        assert_eq!(error.field.as_deref(), Some("change_log"));
        assert_eq!(error.message, "required field is missing");
        let error = parse_revision("```yaml\n- id: b1\n```", &[]).expect_err("a list");
        assert!(
            error
                .message
                .starts_with("expected a mapping with `revised_tree:`")
        );
    }

    #[test]
    fn dr_14_one_critique_id_per_entry() {
        for written in ["[c1, c2]", "c1, c2"] {
            let error = refused_with(
                "addresses_critique: c1",
                &format!("addresses_critique: {written}"),
            );
            assert_eq!(
                error.field.as_deref(),
                Some("change_log[0].addresses_critique")
            );
            assert!(
                error.message.starts_with("name one critique id per entry"),
                "{error}"
            );
        }
    }

    /// DR-15, issue 59: an id the revision had to address and did not is a
    /// slip named by that id, one per id; the entries given are read.
    #[test]
    fn dr_15_every_accepted_item_must_be_addressed() {
        let read = read_revision(REVISION, &ids(&["c1", "c3", "c4", "c6"])).expect("read");
        assert_eq!(read.value.change_log.len(), 4);
        let slipped: Vec<String> = read.slips.iter().map(|slip| slip.to_string()).collect();
        assert_eq!(
            slipped,
            [
                "c4: line 24, change_log: no entry addresses c4",
                "c6: line 24, change_log: no entry addresses c6"
            ]
        );
        let error = parse_revision(REVISION, &ids(&["c1", "c3", "c4", "c6"])).expect_err("whole");
        assert_eq!(
            error.to_string(),
            "line 24, change_log: no entry addresses c4"
        );
    }

    #[test]
    fn dr_15_entries_for_items_not_required_are_kept() {
        let revision = parse_revision(REVISION, &ids(&["c2"])).expect("valid");
        assert_eq!(revision.change_log.len(), 4);
    }

    #[test]
    fn a11_decline_needs_a_rationale() {
        let text = REVISION.replace("    rationale: The benchmark already covers 5x peak\n", "");
        let error = parse_revision(&text, &ids(&["c2"])).expect_err("bare decline");
        assert_eq!(error.field.as_deref(), Some("change_log[1].rationale"));
        assert_eq!(error.line, Some(29));
        assert!(
            error
                .message
                .starts_with("required for change_type decline")
        );
    }

    #[test]
    fn a8_directive_ids_are_addressed_like_critique_ids() {
        let text = REVISION.replace("addresses_critique: c1", "addresses_critique: d1");
        let revision = parse_revision(&text, &ids(&["d1"])).expect("valid");
        assert_eq!(revision.change_log[0].addresses_critique, "d1");
        let error = parse_revision(REVISION, &ids(&["d1", "d2"])).expect_err("directives");
        assert_eq!(error.message, "no entry addresses d1");
    }
}
