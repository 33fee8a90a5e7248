//! The writing review's prompt templates. The critic's prompt asks for
//! items a person can decide one by one; a judge's prompt asks for its
//! own rewrite, carries the moderator's rulings on those items and says
//! nothing about readers of the result (RF-01); the merge's prompt carries
//! the rulings and the directives (the aesthete's and the stylist's first,
//! DR-58), asks each change to name the item it answers (A16) and asks for
//! a change summary that names none of the process (RF-18).

use crate::prompts::{TemplateSpec, template};

/// The critic reads the draft and lists what should change (A16), in its
/// stance (`critique_mode`, DR-18; empty for a review journaled before the
/// writing critic took one).
pub const CRITIQUE: TemplateSpec = template!(
    "writing-critique.md.j2",
    &[
        "topic",
        "draft",
        "context",
        "sources",
        "aspects",
        "critique_mode"
    ]
);

/// One judge rewrites the whole draft (DR-59), the accepted items as
/// directives (A16).
pub const REWRITE: TemplateSpec = template!(
    "writing-rewrite.md.j2",
    &[
        "topic",
        "draft",
        "context",
        "role",
        "focus",
        "criteria",
        "accepted",
        "rejected",
        "deferred",
        "rulings",
        "scored",
        "every_aspect",
    ]
);

/// The one synthesis step: the rewrites merged into `revised_draft` and
/// `changes` (A16, DR-60).
pub const MERGE: TemplateSpec = template!(
    "writing-merge.md.j2",
    &[
        "topic",
        "draft",
        "rewrites",
        "missing",
        "directives",
        "accepted",
        "rejected",
        "deferred",
        "rulings",
    ]
);
