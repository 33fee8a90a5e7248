//! Every reader of agent text, fed the same bytes: the decision review's
//! four formats and its writing mode's two, a red team's findings, the root-cause analysis's three,
//! the planning debate's markdown formats, the council's seven, and the YAML guard beneath
//! them.
//! Invariant: no panic, the guard's verdict holds (what it refuses never
//! reaches the YAML parser through the readers), and no reader returns more
//! items than one answer may hold (`ITEMS_PER_ANSWER_MAX`; `item_counts`
//! builds answers of that many).
#![no_main]

use libfuzzer_sys::fuzz_target;
use quorum::parse::ITEMS_PER_ANSWER_MAX;
use quorum::protocol::decision_review::model::{
    Block, BlockType, Criterion, CritiqueMode, JudgeConfig, JudgeRole, ThesisTree, Weight,
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

/// No more items than one answer may hold.
fn bounded<T>(items: &[T]) {
    assert!(items.len() <= ITEMS_PER_ANSWER_MAX, "{} items", items.len());
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = quorum::yaml_guard::check(text);
    if let Ok(read) = parse::read_thesis_tree(text) {
        bounded(&read.value.blocks);
    }
    if let Ok(read) = parse::read_critique(text, &tree(), CritiqueMode::GenerousSteelman) {
        bounded(&read.value.items);
    }
    if let Ok(read) = parse::read_revision(text, &["c1".to_string(), "C2".to_string()]) {
        bounded(&read.value.change_log);
        bounded(&read.value.revised_tree.blocks);
    }
    let judge = JudgeConfig::new(
        JudgeRole::Analyst,
        Weight::Binding,
        &[Criterion::Correctness, Criterion::Risk],
    );
    let _ = parse::read_judge(text, &judge, &tree());
    if let Ok(read) = quick::parse::parse_vulnerabilities(text) {
        bounded(&read.value);
    }
    let _ = quick::parse::bottom_line(text);
    let _ = quick::parse::split_opening(text);
    if let Ok(read) = rca::parse::read_findings(text) {
        bounded(&read.value);
    }
    if let Ok(seeded) = rca::parse::read_hypotheses_file(text) {
        bounded(&seeded);
    }
    let critic = rca::parse::read_critic(
        text,
        &rca::parse::CriticContext {
            hypotheses: &["H1", "H2"],
            challenges: &["X1.1", "X2.1"],
            settled: &["H2"],
            unchallenged: &["H1"],
            to_rule: &["X1.1", "X2.1"],
            closing: false,
        },
    );
    if let Ok(read) = critic {
        bounded(&read.value.challenges);
    }
    let _ = rca::parse::read_answers(text, &["X1.1", "x1.2"]);
    let _ = rca::hedge::hedges(text);
    if let Ok(read) = plan::parse::read_challenges(text, &["C1"]) {
        bounded(&read.value);
    }
    if let Ok(read) = plan::parse::read_proposals(text, &["I1"]) {
        bounded(&read.value);
    }
    let _ = plan::parse::read_responses(text, &["C1", "I1"]);
    let _ = plan::parse::read_verifications(text, &["U1", "U2"]);
    let _ = plan::parse::unverified_markers(text);
    let _ = plan::parse::critique_log(text);
    let _ = quorum::parse::blocks::blocks(text, "Challenge", &plan::parse::CHALLENGE_KEYS);
    let _ = quorum::protocol::decision_review::writing::parse::parse_rewrite(text);
    if let Ok(read) = quorum::protocol::decision_review::writing::parse::parse_merge(text) {
        bounded(&read.value.changes);
    }
    let ids = ["F001", "F002", "f010"];
    if let Ok(read) = council::parse::read_findings(text, "security") {
        bounded(&read.value.items);
    }
    if let Ok(read) = council::parse::read_proposals(text) {
        bounded(&read.value.items);
    }
    for (known, proposes) in [(&ids[..], false), (&["P001"][..], true)] {
        if let Ok(read) = council::parse::read_devil(text, known, proposes) {
            bounded(&read.value.challenges);
            bounded(&read.value.discoveries);
            bounded(&read.value.proposals);
        }
    }
    if let Ok(read) = council::parse::read_responses(text, &ids, "data", false) {
        bounded(&read.value);
    }
    let _ = council::parse::read_responses(text, &["P001", "P002"], "", true);
    if let Ok(read) = council::parse::read_expansions(text, "expert.data", &["P001"]) {
        bounded(&read.value.expansions);
        bounded(&read.value.proposals);
    }
    let _ = council::parse::read_final(text, "expert.data", &ids);
    let _ = council::parse::read_handoff(text);
    let _ = council::verdict::similarity::overlap(text, "a b c");
});
