//! The quick modes' prompt templates. The raw agents' prompts (critic,
//! reviewers, proposer) carry each mode's fixed content and no reader-first
//! instruction (RF-01); only the synthesizer's carry those, since it writes
//! the reader's document from the persisted raw answers.

use crate::prompts::{TemplateSpec, template};

/// 1:1 direct challenge: the critic alone (QM-02).
pub const CHALLENGE: TemplateSpec = template!("challenge.md.j2", &["topic", "context", "sources"]);

/// Panel review: one independent reviewer (QM-04, QM-05), who gives its
/// reading of the work on every lens when the panel is judged fairly
/// (`readings`, issue 29).
pub const PANEL_REVIEWER: TemplateSpec = template!(
    "panel-reviewer.md.j2",
    &[
        "topic",
        "context",
        "sources",
        "role",
        "perspective",
        "readings"
    ]
);

/// Pre-mortem: the critic tells the failure before it happens (QM-11).
pub const PREMORTEM: TemplateSpec = template!("premortem.md.j2", &["topic", "context", "sources"]);

/// Red team: the critic attacks the target (QM-14).
pub const REDTEAM: TemplateSpec = template!("redteam.md.j2", &["topic", "context", "sources"]);

/// Architecture adversary, step 1: the proposer designs (QM-18).
pub const ADVERSARY_PROPOSAL: TemplateSpec = template!(
    "adversary-proposal.md.j2",
    &["topic", "context", "sources", "constraints"]
);

/// Architecture adversary, step 2: the critic attacks the design (QM-19).
pub const ADVERSARY_CHALLENGE: TemplateSpec = template!(
    "adversary-challenge.md.j2",
    &["topic", "context", "sources", "proposal"]
);

/// Architecture adversary, step 3: the proposer defends or revises (QM-20).
pub const ADVERSARY_REVISION: TemplateSpec = template!(
    "adversary-revision.md.j2",
    &["topic", "proposal", "critique"]
);

/// The synthesizer of a panel review (RF-12).
pub const SYNTHESIS_PANEL: TemplateSpec = template!(
    "synthesis-panel.md.j2",
    &["topic", "reviews", "missing", "evidence_checks"]
);

/// The synthesizer of a pre-mortem (RF-13).
pub const SYNTHESIS_PREMORTEM: TemplateSpec = template!(
    "synthesis-premortem.md.j2",
    &["topic", "analysis", "evidence_checks"]
);

/// The synthesizer of a red-team report (RF-14).
pub const SYNTHESIS_REDTEAM: TemplateSpec = template!(
    "synthesis-redteam.md.j2",
    &[
        "topic",
        "report",
        "findings",
        "set_aside",
        "rulings",
        "evidence_checks"
    ]
);

/// The synthesizer of an architecture challenge (RF-15).
pub const SYNTHESIS_ADVERSARY: TemplateSpec = template!(
    "synthesis-adversary.md.j2",
    &[
        "topic",
        "proposal",
        "critique",
        "revision",
        "revision_note",
        "evidence_checks"
    ]
);

/// A second attempt after an answer could not be used (empty, or a
/// deliverable whose opening names the debate's roles): the request, the
/// reply and the problem.
pub const REDO: TemplateSpec = template!(
    "redo.md.j2",
    &["original_prompt", "previous_output", "error"]
);

/// Every template of the quick modes.
pub const TEMPLATES: &[TemplateSpec] = &[
    CHALLENGE,
    PANEL_REVIEWER,
    PREMORTEM,
    REDTEAM,
    ADVERSARY_PROPOSAL,
    ADVERSARY_CHALLENGE,
    ADVERSARY_REVISION,
    SYNTHESIS_PANEL,
    SYNTHESIS_PREMORTEM,
    SYNTHESIS_REDTEAM,
    SYNTHESIS_ADVERSARY,
    REDO,
];
