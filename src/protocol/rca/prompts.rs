//! The root-cause analysis's prompt templates: the debuggers' findings and
//! answers, and the critic's one template for every round and the closing
//! ruling. None carries reader-first instructions: `summary.md` is written
//! by quorum from the record, not by an agent.

use crate::prompts::TemplateSpec;

/// A debugger presents its hypotheses with their evidence.
pub const FINDINGS: TemplateSpec = TemplateSpec {
    file_name: "rca-findings.md.j2",
    variables: &["problem", "context", "debugger", "teammates", "known"],
    source: include_str!("../../../prompts/rca-findings.md.j2"),
};

/// The critic rules the last answers and challenges what is not settled
/// (RC-01, RC-02, RC-08..RC-12); with `closing`, only rules.
pub const CRITIC: TemplateSpec = TemplateSpec {
    file_name: "rca-critic.md.j2",
    variables: &[
        "problem",
        "debuggers",
        "round",
        "max_rounds",
        "closing",
        "hypotheses",
        "to_rule",
        "unchallenged",
        "tests",
        "hedge_words",
        "rulings",
    ],
    source: include_str!("../../../prompts/rca-critic.md.j2"),
};

/// A debugger answers the challenges put to it, and only those (RC-04).
pub const ANSWERS: TemplateSpec = TemplateSpec {
    file_name: "rca-answers.md.j2",
    variables: &[
        "problem",
        "context",
        "debugger",
        "round",
        "max_rounds",
        "hypotheses",
        "challenges",
        "rulings",
    ],
    source: include_str!("../../../prompts/rca-answers.md.j2"),
};

/// The owner of the one surviving hypothesis restates a claim that
/// hedges, once (RC-10, RC-16).
pub const RESTATE: TemplateSpec = TemplateSpec {
    file_name: "rca-restate.md.j2",
    variables: &[
        "problem",
        "debugger",
        "hypothesis",
        "hedges",
        "resolved",
        "hedge_words",
    ],
    source: include_str!("../../../prompts/rca-restate.md.j2"),
};

/// Every template of the root-cause analysis.
pub const TEMPLATES: &[TemplateSpec] = &[FINDINGS, CRITIC, ANSWERS, RESTATE];
