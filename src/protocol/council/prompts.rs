//! The council's prompt templates, in quorum's own words: Phase 1 for
//! findings (FP-15, FP-17, FP-19) or proposals (FP-45), the brainstorm's
//! Expand, the devil's advocate's round (FP-24, FP-28), a participant's
//! responses (FP-27), the final position (FP-37) and the handoff (FP-44).
//! Structured parts (the inventory, the challenges, the packet) are given
//! as JSON text, as the seed exchanges them. Every prompt of an agent that
//! acts after the moderator ruled on challenges (the devil's advocate's
//! later rounds, the responses, the final positions and the handoff)
//! carries the standard rulings section ([`crate::rulings`]).

use crate::prompts::{TemplateSpec, template};

/// Phase 1: independent findings.
pub const INDEPENDENT: TemplateSpec = template!(
    "council-independent.md.j2",
    &[
        "title",
        "role",
        "task",
        "scope",
        "domains",
        "devil",
        "checker",
        "domain",
        "focus",
        "standards",
        "structural",
        "task_context",
        "context",
        "sources",
        "draft_prefix",
        "packet",
    ]
);

/// Brainstorm's Diverge: independent proposals.
pub const DIVERGE: TemplateSpec = template!(
    "council-diverge.md.j2",
    &[
        "title",
        "role",
        "mode",
        "task",
        "scope",
        "domains",
        "devil",
        "checker",
        "domain",
        "focus",
        "context",
        "draft_prefix",
        "packet",
    ]
);

/// Brainstorm's Expand: improve, combine, add.
pub const EXPAND: TemplateSpec = template!(
    "council-expand.md.j2",
    &[
        "title",
        "role",
        "mode",
        "task",
        "scope",
        "inventory",
        "packet",
    ]
);

/// The devil's advocate's challenge round.
pub const DEVIL_ROUND: TemplateSpec = template!(
    "council-devil.md.j2",
    &[
        "round",
        "max_rounds",
        "task",
        "scope",
        "proposes",
        "inventory",
        "history",
        "sources",
        "task_context",
        "mandatory",
        "participants",
        "rulings",
        "ruled_challenges",
        "packet",
    ]
);

/// A participant answers the challenges put to it, and only those.
pub const RESPOND: TemplateSpec = template!(
    "council-respond.md.j2",
    &[
        "title",
        "role",
        "round",
        "max_rounds",
        "task",
        "scope",
        "proposes",
        "inventory",
        "sources",
        "own",
        "challenges",
        "addressed",
        "rulings",
        "packet",
    ]
);

/// Phase 5: the final position.
pub const FINAL: TemplateSpec = template!(
    "council-final.md.j2",
    &[
        "title",
        "role",
        "proposes",
        "fallback",
        "task",
        "scope",
        "inventory",
        "history",
        "open",
        "own",
        "merges",
        "rulings",
        "ruled_challenges",
        "packet",
    ]
);

/// The brainstorm's handoff.
pub const HANDOFF: TemplateSpec = template!(
    "council-handoff.md.j2",
    &[
        "mode",
        "task",
        "scope",
        "inventory",
        "outcomes",
        "summaries",
        "rulings",
        "ruled_challenges",
        "packet",
    ]
);

/// Every template of the council.
pub const TEMPLATES: &[TemplateSpec] = &[
    INDEPENDENT,
    DIVERGE,
    EXPAND,
    DEVIL_ROUND,
    RESPOND,
    FINAL,
    HANDOFF,
];
