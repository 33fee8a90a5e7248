//! The shared fixtures parse as the protocol expects.
use crate::support;

use quorum::protocol::decision_review::model::{CritiqueMode, JudgeRole, ThesisTree};
use quorum::protocol::decision_review::parse::{
    parse_critique, parse_judge, parse_revision, parse_thesis_tree,
};

#[test]
fn fixtures_parse() {
    let tree: ThesisTree = parse_thesis_tree(&support::proposal_text()).unwrap();
    assert_eq!(tree.blocks.len(), 4);
    let critique = parse_critique(
        &support::default_critique(),
        &tree,
        CritiqueMode::GenerousSteelman,
    )
    .unwrap();
    assert_eq!(critique.items.len(), 4);
    let revision = parse_revision(
        &support::revision_text(&["c1", "c2"]),
        &["c1".into(), "c2".into()],
    )
    .unwrap();
    assert_eq!(revision.change_log.len(), 2);
    for role in JudgeRole::ALL {
        let judge = support::judge_config(role, true);
        parse_judge(&support::flat_judge_text(role, 4), &judge, &tree).unwrap();
    }
    let script = support::ScriptBuilder::adopt_path()
        .fault("judge.analyst", "evaluation", Some(1), Some(1), "timeout")
        .build();
    script.validate().unwrap();
}
