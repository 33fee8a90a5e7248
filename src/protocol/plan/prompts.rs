//! The planning debate's prompt templates, one per role (the critic's and
//! the optimizer's serve every stage they speak in). Only the
//! synthesizer's carries reader-first instructions: it alone writes the
//! deliverable (PC-21).

use crate::prompts::{TemplateSpec, template};

/// The planner's draft, `[UNVERIFIED]` marks included (PC-24).
pub const DRAFT: TemplateSpec = template!(
    "plan-draft.md.j2",
    &["goal", "context", "sources", "simple"]
);

/// The critic: challenges (round 1), its review of the responses (round
/// 2), its final assessment (PC-02, PC-09, PC-16, PC-18, PC-25, PC-29).
pub const CRITIC: TemplateSpec = template!(
    "plan-critic.md.j2",
    &[
        "goal",
        "context",
        "sources",
        "plan",
        "round",
        "max_rounds",
        "stage",
        "unverified",
        "items",
        "rulings",
        "asks_evidence",
    ]
);

/// The optimizer: improvements and third options, then its final
/// proposals (PC-03, PC-13, PC-19, PC-25, PC-30).
pub const OPTIMIZER: TemplateSpec = template!(
    "plan-optimizer.md.j2",
    &[
        "goal",
        "context",
        "sources",
        "plan",
        "round",
        "stage",
        "challenges",
        "earlier",
        "unverified",
        "rulings",
        "asks_evidence",
    ]
);

/// The planner's proposed response to each item (PC-12, PC-14).
pub const RESPOND: TemplateSpec = template!(
    "plan-respond.md.j2",
    &["goal", "plan", "round", "challenges", "proposals"]
);

/// The planner's revised plan, to the final decisions (PC-15).
pub const REVISE: TemplateSpec = template!(
    "plan-revise.md.j2",
    &[
        "goal",
        "plan",
        "round",
        "decisions",
        "rulings",
        "unverified",
    ]
);

/// The synthesizer writes `plan.md`, and its decision record for
/// `docs/adr/` (PC-04, PC-20, PC-21, PC-22, PC-26, PC-31, PC-32).
pub const SYNTHESIS: TemplateSpec = template!(
    "plan-synthesis.md.j2",
    &[
        "goal",
        "simple",
        "plan",
        "assessment",
        "final_proposals",
        "log",
        "counts",
        "rulings",
        "unverified",
        "files",
    ]
);

/// Every template of the planning debate.
pub const TEMPLATES: &[TemplateSpec] = &[DRAFT, CRITIC, OPTIMIZER, RESPOND, REVISE, SYNTHESIS];
