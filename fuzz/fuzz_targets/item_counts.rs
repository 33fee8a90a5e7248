//! Answers that raise many items: every reader of a list of items, fed an
//! answer of N items of the fuzzer's text, N around and beyond the limit.
//! Invariant: no reader returns more items than one answer may hold
//! (`ITEMS_PER_ANSWER_MAX`), and one answer of at most that many items,
//! well formed, is not refused for its count.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quorum::parse::ITEMS_PER_ANSWER_MAX;
use quorum::protocol::decision_review::model::{Block, BlockType, CritiqueMode, ThesisTree};
use quorum::protocol::decision_review::parse;
use quorum::protocol::{council, plan, quick, rca};
use serde_json::json;

fn tree() -> ThesisTree {
    ThesisTree {
        blocks: vec![Block {
            id: "b1".into(),
            block_type: BlockType::Claim,
            text: "t".into(),
            evidence: "e".into(),
            tradeoffs: "t".into(),
            risks: "r".into(),
            option: None,
        }],
    }
}

/// `entry` `count` times in a fenced JSON list under `key`: JSON is YAML,
/// and every string of the fuzzer's is escaped, so the answer is well
/// formed whatever the text.
fn answer(key: &str, entry: serde_json::Value, count: usize) -> String {
    let list = vec![entry; count];
    format!("Here it is.\n\n```json\n{}\n```\n", json!({ key: list }))
}

fn within<T>(what: &str, count: usize, read: Option<&[T]>) {
    if let Some(items) = read {
        assert!(
            items.len() <= ITEMS_PER_ANSWER_MAX,
            "{what}: {} items read from an answer of {count}",
            items.len()
        );
    }
}

/// A count that often lands at the limit or just over it, and sometimes
/// well beyond.
fn count_of(data: &[u8]) -> usize {
    let raw = u16::from_le_bytes([data[0], data[1]]) as usize;
    match raw % 4 {
        0 => ITEMS_PER_ANSWER_MAX - 1 + (raw / 4) % 4,
        _ => raw % (2 * ITEMS_PER_ANSWER_MAX + 2),
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let count = count_of(data);
    let text = String::from_utf8_lossy(&data[2..]).into_owned();
    let words = if text.trim().is_empty() {
        "words"
    } else {
        text.as_str()
    };

    let critique = answer(
        "critiques",
        json!({"target_block": "b1", "steelman": words, "flaw_type": "risk", "severity": "minor", "description": words}),
        count,
    );
    let read = parse::read_critique(&critique, &tree(), CritiqueMode::GenerousSteelman);
    within(
        "critiques",
        count,
        read.as_ref().ok().map(|r| r.value.items.as_slice()),
    );
    if count <= ITEMS_PER_ANSWER_MAX {
        // Refused for its text, perhaps; never for its count.
        if let Err(error) = &read {
            assert!(
                !error.message.contains("more than one answer may hold"),
                "{error}"
            );
        }
    }

    let blocks: Vec<serde_json::Value> = (0..count)
        .map(|index| json!({"id": format!("b{index}"), "type": "claim", "text": words, "evidence": words, "tradeoffs": words, "risks": words}))
        .collect();
    let tree_text = format!("```json\n{}\n```\n", json!({ "blocks": blocks }));
    let read = parse::read_thesis_tree(&tree_text);
    within(
        "blocks",
        count,
        read.as_ref().ok().map(|r| r.value.blocks.as_slice()),
    );

    let revision = format!(
        "```json\n{}\n```\n",
        json!({"revised_tree": [{"id": "b1", "type": "claim", "text": "t", "evidence": "e", "tradeoffs": "t", "risks": "r"}],
               "change_log": vec![json!({"addresses_critique": "c1", "block_id": "b1", "change_type": "strengthen", "before": words, "after": words}); count]})
    );
    let read = parse::read_revision(&revision, &["c1".to_string()]);
    within(
        "changes",
        count,
        read.as_ref().ok().map(|r| r.value.change_log.as_slice()),
    );

    let findings = answer(
        "vulnerabilities",
        json!({"title": words, "severity": "high", "description": words, "exploit": words}),
        count,
    );
    let read = quick::parse::parse_vulnerabilities(&findings);
    within(
        "vulnerabilities",
        count,
        read.as_ref().ok().map(|r| r.value.as_slice()),
    );

    let hypotheses = answer(
        "hypotheses",
        json!({"claim": words, "evidence": [words], "reasoning": words, "owner": "alpha"}),
        count,
    );
    let read = rca::parse::read_findings(&hypotheses);
    within(
        "hypotheses",
        count,
        read.as_ref().ok().map(|r| r.value.as_slice()),
    );
    let read = rca::parse::read_hypotheses_file(&hypotheses);
    within(
        "hypotheses file",
        count,
        read.as_ref().ok().map(Vec::as_slice),
    );
    let challenges = answer(
        "challenges",
        json!({"hypothesis": "H1", "test": "timeline", "critical": false, "quote": words, "why": words, "evidence_needed": words, "alternative": words}),
        count,
    );
    let read = rca::parse::read_critic(
        &challenges,
        &rca::parse::CriticContext {
            hypotheses: &["H1"],
            challenges: &[],
            settled: &[],
            unchallenged: &["H1"],
            to_rule: &[],
            closing: false,
        },
    );
    within(
        "rca challenges",
        count,
        read.as_ref().ok().map(|r| r.value.challenges.as_slice()),
    );

    let finding = json!({"severity": "MEDIUM", "title": words, "description": words, "evidence": words, "recommendation": words});
    let read =
        council::parse::read_findings(&answer("findings", finding.clone(), count), "security");
    within(
        "council findings",
        count,
        read.as_ref().ok().map(|r| r.value.items.as_slice()),
    );
    let proposal = json!({"title": words, "summary": words, "proposal_type": "architecture"});
    let read = council::parse::read_proposals(&answer("proposals", proposal.clone(), count));
    within(
        "council proposals",
        count,
        read.as_ref().ok().map(|r| r.value.items.as_slice()),
    );
    let devil = format!(
        "```json\n{}\n```\n",
        json!({"challenges": vec![json!({"finding_id": "F001", "challenge": words, "basis": "missing-assumption"}); count],
               "discoveries": vec![finding.clone(); count]})
    );
    if let Ok(read) = council::parse::read_devil(&devil, &["F001"], false) {
        within(
            "devil challenges",
            count,
            Some(read.value.challenges.as_slice()),
        );
        within(
            "devil discoveries",
            count,
            Some(read.value.discoveries.as_slice()),
        );
    }
    let responses = answer(
        "responses",
        json!({"type": "defense", "finding_id": "F001", "response": words}),
        count,
    );
    let read = council::parse::read_responses(&responses, &["F001"], "data", false);
    within(
        "council responses",
        count,
        read.as_ref().ok().map(|r| r.value.as_slice()),
    );
    let expand = format!(
        "```json\n{}\n```\n",
        json!({"expansions": vec![json!({"proposal_id": "P001", "note": words}); count],
               "proposals": vec![proposal; count]})
    );
    if let Ok(read) = council::parse::read_expansions(&expand, "expert.data", &["P001"]) {
        within("expansions", count, Some(read.value.expansions.as_slice()));
        within(
            "expand proposals",
            count,
            Some(read.value.proposals.as_slice()),
        );
    }

    let one_line = words.replace(['\n', '\r'], " ");
    let plan_challenges: String = (1..=count)
        .map(|number| {
            format!("**Challenge {number}**: Security - {one_line}\nProblem: {one_line}\nEvidence: e\nSuggestion: s\nSeverity: HIGH\n\n")
        })
        .collect();
    let read = plan::parse::read_challenges(&plan_challenges, &[]);
    within(
        "plan challenges",
        count,
        read.as_ref().ok().map(|r| r.value.as_slice()),
    );
    let plan_proposals: String = (1..=count)
        .map(|number| {
            format!("**Improvement {number}**: Delivery - {one_line}\nCurrent: c\nProposed: p\nBenefit: b\nPriority: LOW\n\n")
        })
        .collect();
    let read = plan::parse::read_proposals(&plan_proposals, &[]);
    within(
        "plan proposals",
        count,
        read.as_ref().ok().map(|r| r.value.as_slice()),
    );

    let merge = format!(
        "```json\n{}\n```\n",
        json!({"revised_draft": words, "changes": vec![json!({"location": "intro", "type": "clarity", "before": words, "after": words, "rationale": words}); count]})
    );
    let read = quorum::protocol::decision_review::writing::parse::parse_merge(&merge);
    within(
        "rewrite changes",
        count,
        read.as_ref().ok().map(|r| r.value.changes.as_slice()),
    );
});
