//! Every reader of agent text, fed the same bytes: the decision review's
//! four formats and its writing mode's two, a red team's findings, the root-cause analysis's three,
//! the planning debate's markdown formats, the council's seven, and the YAML guard beneath
//! them.
//! Invariant: no panic, and the guard's verdict holds (what it refuses
//! never reaches the YAML parser through the readers).
#![no_main]

use libfuzzer_sys::fuzz_target;
use quorum::protocol::decision_review::model::{
    Block, BlockType, CritiqueMode, Criterion, JudgeConfig, JudgeRole, ThesisTree, Weight,
};
use quorum::protocol::decision_review::parse;
use quorum::protocol::{council, plan, quick, rca};

fn tree() -> ThesisTree {
    let block = |id: &str| Block {
        id: id.into(),
        block_type: BlockType::Claim,
        text: "t".into(),
        evidence: "e".into(),
        tradeoffs: "t".into(),
        risks: "r".into(),
        option: None,
    };
    ThesisTree {
        blocks: vec![block("b1"), block("b2"), block("B2")],
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = quorum::yaml_guard::check(text);
    let _ = parse::read_thesis_tree(text);
    let _ = parse::read_critique(text, &tree(), CritiqueMode::GenerousSteelman);
    let _ = parse::read_revision(text, &["c1".to_string(), "C2".to_string()]);
    let judge = JudgeConfig::new(
        JudgeRole::Analyst,
        Weight::Binding,
        &[Criterion::Correctness, Criterion::Risk],
    );
    let _ = parse::read_judge(text, &judge, &tree());
    let _ = quick::parse::parse_vulnerabilities(text);
    let _ = quick::parse::bottom_line(text);
    let _ = quick::parse::split_opening(text);
    let _ = rca::parse::read_findings(text);
    let _ = rca::parse::read_hypotheses_file(text);
    let _ = rca::parse::read_critic(
        text,
        &rca::parse::CriticContext {
            hypotheses: &["H1", "H2"],
            settled: &["H2"],
            unchallenged: &["H1"],
            to_rule: &["X1.1", "X2.1"],
            closing: false,
        },
    );
    let _ = rca::parse::read_answers(text, &["X1.1", "x1.2"]);
    let _ = rca::hedge::hedges(text);
    let _ = plan::parse::read_challenges(text);
    let _ = plan::parse::read_proposals(text);
    let _ = plan::parse::read_responses(text, &["C1", "I1"]);
    let _ = plan::parse::read_verifications(text, &["U1", "U2"]);
    let _ = plan::parse::unverified_markers(text);
    let _ = plan::parse::critique_log(text);
    let _ = quorum::parse::blocks::blocks(text, "Challenge", &plan::parse::CHALLENGE_KEYS);
    let _ = quorum::protocol::decision_review::writing::parse::parse_rewrite(text);
    let _ = quorum::protocol::decision_review::writing::parse::parse_merge(text);
    let ids = ["F001", "F002", "f010"];
    let _ = council::parse::read_findings(text, "security");
    let _ = council::parse::read_proposals(text);
    let _ = council::parse::read_devil(text, &ids, false);
    let _ = council::parse::read_devil(text, &["P001"], true);
    let _ = council::parse::read_responses(text, &ids, "data", false);
    let _ = council::parse::read_responses(text, &["P001", "P002"], "", true);
    let _ = council::parse::read_expansions(text, "expert.data", &["P001"]);
    let _ = council::parse::read_final(text, "expert.data", &ids);
    let _ = council::parse::read_handoff(text);
    let _ = council::verdict::overlap(text, "a b c");
});
