//! The decision review's answer formats: the proposer's thesis tree, the
//! critic's items, the reviser's change log and the judges' scores, read
//! with the shared lenient reader of [`crate::parse`].

mod critique;
mod judge;
mod revision;
mod thesis;

pub use critique::{ParsedCritique, critique_id, parse_critique, read_critique};
pub use judge::{parse_judge, read_judge};
pub use revision::{parse_revision, read_revision};
pub use thesis::{parse_thesis_tree, read_thesis_tree};

pub(crate) use crate::parse::{
    Document, FieldPath, Fields, ParseError, Read, describe, quote, whole,
};

/// A tree of claim blocks with the given ids, for the format tests.
#[cfg(test)]
fn test_tree(ids: &[&str]) -> crate::protocol::decision_review::model::ThesisTree {
    let blocks = ids
        .iter()
        .map(|id| crate::protocol::decision_review::model::Block {
            id: (*id).to_owned(),
            block_type: crate::protocol::decision_review::model::BlockType::Claim,
            text: format!("{id} text"),
            evidence: "e".to_owned(),
            tradeoffs: "t".to_owned(),
            risks: "r".to_owned(),
            option: None,
        })
        .collect();
    crate::protocol::decision_review::model::ThesisTree { blocks }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::NO_FENCE_HINT;

    #[test]
    fn errors_in_an_answer_without_a_fence_say_so() {
        let error = parse_thesis_tree("Note: I recommend Postgres.\nReason: it is simpler.")
            .expect_err("no blocks");
        assert_eq!(
            error.to_string(),
            format!("line 1, blocks: required field is missing{NO_FENCE_HINT}")
        );
        let fenced = parse_thesis_tree("```yaml\nNote: x\n```").expect_err("no blocks");
        assert_eq!(fenced.message, "required field is missing");
    }
}
