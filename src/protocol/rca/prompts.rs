//! The root-cause analysis's prompt templates: the debuggers' findings and
//! answers, and the critic's one template for every round and the closing
//! ruling. None carries reader-first instructions: `summary.md` is written
//! by quorum from the record, not by an agent.

use crate::prompts::{TemplateSpec, template};

/// A debugger presents its hypotheses with their evidence.
pub const FINDINGS: TemplateSpec = template!(
    "rca-findings.md.j2",
    &[
        "problem",
        "context",
        "sources",
        "debugger",
        "teammates",
        "known"
    ]
);

/// The critic rules the last answers and challenges what is not settled
/// (RC-01, RC-02, RC-08..RC-12); with `closing`, only rules.
pub const CRITIC: TemplateSpec = template!(
    "rca-critic.md.j2",
    &[
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
    ]
);

/// A debugger answers the challenges put to it, and only those (RC-04).
pub const ANSWERS: TemplateSpec = template!(
    "rca-answers.md.j2",
    &[
        "problem",
        "context",
        "sources",
        "debugger",
        "round",
        "max_rounds",
        "hypotheses",
        "challenges",
        "rulings",
    ]
);

/// The owner of the one surviving hypothesis restates a claim that
/// hedges, once (RC-10, RC-16).
pub const RESTATE: TemplateSpec = template!(
    "rca-restate.md.j2",
    &[
        "problem",
        "debugger",
        "hypothesis",
        "hedges",
        "resolved",
        "hedge_words",
    ]
);

/// The critic rules whether the evidence carries a restated claim before
/// it is printed as the root cause (issue 60).
pub const EXAMINE: TemplateSpec = template!(
    "rca-examine.md.j2",
    &["problem", "hypothesis", "hedges", "restated", "resolved"]
);

/// Every template of the root-cause analysis.
pub const TEMPLATES: &[TemplateSpec] = &[FINDINGS, CRITIC, ANSWERS, RESTATE, EXAMINE];
