//! The planning debate's prompt templates, one per role (the critic's and
//! the optimizer's serve every stage they speak in). Only the
//! synthesizer's carries reader-first instructions: it alone writes the
//! deliverable (PC-21).

use crate::prompts::TemplateSpec;

/// The planner's draft, `[UNVERIFIED]` marks included (PC-24).
pub const DRAFT: TemplateSpec = TemplateSpec {
    file_name: "plan-draft.md.j2",
    variables: &["goal", "context", "simple"],
    source: include_str!("../../../prompts/plan-draft.md.j2"),
};

/// The critic: challenges (round 1), its review of the responses (round
/// 2), its final assessment (PC-02, PC-09, PC-16, PC-18, PC-25, PC-29).
pub const CRITIC: TemplateSpec = TemplateSpec {
    file_name: "plan-critic.md.j2",
    variables: &[
        "goal",
        "context",
        "plan",
        "round",
        "max_rounds",
        "stage",
        "unverified",
        "items",
        "rulings",
    ],
    source: include_str!("../../../prompts/plan-critic.md.j2"),
};

/// The optimizer: improvements and third options, then its final
/// proposals (PC-03, PC-13, PC-19, PC-25, PC-30).
pub const OPTIMIZER: TemplateSpec = TemplateSpec {
    file_name: "plan-optimizer.md.j2",
    variables: &[
        "goal",
        "context",
        "plan",
        "round",
        "stage",
        "challenges",
        "earlier",
        "unverified",
        "rulings",
    ],
    source: include_str!("../../../prompts/plan-optimizer.md.j2"),
};

/// The planner's proposed response to each item (PC-12, PC-14).
pub const RESPOND: TemplateSpec = TemplateSpec {
    file_name: "plan-respond.md.j2",
    variables: &["goal", "plan", "round", "challenges", "proposals"],
    source: include_str!("../../../prompts/plan-respond.md.j2"),
};

/// The planner's revised plan, to the final decisions (PC-15).
pub const REVISE: TemplateSpec = TemplateSpec {
    file_name: "plan-revise.md.j2",
    variables: &[
        "goal",
        "plan",
        "round",
        "decisions",
        "rulings",
        "unverified",
    ],
    source: include_str!("../../../prompts/plan-revise.md.j2"),
};

/// The synthesizer writes `plan.md` (PC-04, PC-20, PC-26, PC-31, PC-32).
pub const SYNTHESIS: TemplateSpec = TemplateSpec {
    file_name: "plan-synthesis.md.j2",
    variables: &[
        "goal",
        "simple",
        "plan",
        "assessment",
        "final_proposals",
        "log",
        "counts",
        "rulings",
        "unverified",
    ],
    source: include_str!("../../../prompts/plan-synthesis.md.j2"),
};

/// Every template of the planning debate.
pub const TEMPLATES: &[TemplateSpec] = &[DRAFT, CRITIC, OPTIMIZER, RESPOND, REVISE, SYNTHESIS];
