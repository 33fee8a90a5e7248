//! What the decision review's prompts say of evidence, and the blocks'
//! citations filed per tree (issue 52).

use super::DecisionReview;
use super::model::ThesisTree;

impl DecisionReview {
    /// `context` with what every prompt of the review says of evidence
    /// (issue 52): the sources and the shape of a citation, and each of
    /// the tree's citations that did not verify.
    pub(super) fn with_evidence(&self, mut context: serde_json::Value) -> serde_json::Value {
        let evidence = &self.core.evidence;
        // The tree filed last is the one being read now.
        let claims = evidence.claims();
        let latest = claims
            .iter()
            .rev()
            .find_map(|(claim, _)| claim.strip_prefix("block ")?.split_once(", "))
            .map(|(_, tree)| tree);
        let blocks: Vec<&str> = claims
            .iter()
            .map(|(claim, _)| claim.as_str())
            .filter(|claim| {
                claim.starts_with("block ")
                    && latest.is_some_and(|tree| claim.ends_with(&format!(", {tree}")))
            })
            .collect();
        context["sources"] = serde_json::json!(evidence.prompt(&self.config.topic));
        context["evidence_checks"] = serde_json::json!(evidence.findings_for(blocks));
        context
    }

    /// Files the citations of every block of `tree` (its claim and its
    /// evidence), checked, as `block b1, proposal` or `block b1, revision
    /// 2` (issue 52): each tree keeps its own, so the record shows what
    /// the critic was shown as well as what the judges were.
    pub(super) fn file_blocks(&mut self, tree: &ThesisTree, which: &str) {
        for block in &tree.blocks {
            self.core.evidence.file(
                &format!("block {}, {which}", block.id),
                [block.text.as_str(), block.evidence.as_str()],
            );
        }
    }
}
