//! The quick modes' prompt templates. The raw agents' prompts (critic,
//! reviewers, proposer) carry each mode's fixed content and no reader-first
//! instruction (RF-01); only the synthesizer's carry those, since it writes
//! the reader's document from the persisted raw answers.

use crate::prompts::TemplateSpec;

/// 1:1 direct challenge: the critic alone (QM-02).
pub const CHALLENGE: TemplateSpec = TemplateSpec {
    file_name: "challenge.md.j2",
    variables: &["topic", "context"],
    source: include_str!("../../../prompts/challenge.md.j2"),
};

/// Panel review: one independent reviewer (QM-04, QM-05).
pub const PANEL_REVIEWER: TemplateSpec = TemplateSpec {
    file_name: "panel-reviewer.md.j2",
    variables: &["topic", "context", "role", "perspective"],
    source: include_str!("../../../prompts/panel-reviewer.md.j2"),
};

/// Pre-mortem: the critic tells the failure before it happens (QM-11).
pub const PREMORTEM: TemplateSpec = TemplateSpec {
    file_name: "premortem.md.j2",
    variables: &["topic", "context"],
    source: include_str!("../../../prompts/premortem.md.j2"),
};

/// Red team: the critic attacks the target (QM-14).
pub const REDTEAM: TemplateSpec = TemplateSpec {
    file_name: "redteam.md.j2",
    variables: &["topic", "context"],
    source: include_str!("../../../prompts/redteam.md.j2"),
};

/// Architecture adversary, step 1: the proposer designs (QM-18).
pub const ADVERSARY_PROPOSAL: TemplateSpec = TemplateSpec {
    file_name: "adversary-proposal.md.j2",
    variables: &["topic", "context", "constraints"],
    source: include_str!("../../../prompts/adversary-proposal.md.j2"),
};

/// Architecture adversary, step 2: the critic attacks the design (QM-19).
pub const ADVERSARY_CHALLENGE: TemplateSpec = TemplateSpec {
    file_name: "adversary-challenge.md.j2",
    variables: &["topic", "context", "proposal"],
    source: include_str!("../../../prompts/adversary-challenge.md.j2"),
};

/// Architecture adversary, step 3: the proposer defends or revises (QM-20).
pub const ADVERSARY_REVISION: TemplateSpec = TemplateSpec {
    file_name: "adversary-revision.md.j2",
    variables: &["topic", "proposal", "critique"],
    source: include_str!("../../../prompts/adversary-revision.md.j2"),
};

/// The synthesizer of a panel review (RF-12).
pub const SYNTHESIS_PANEL: TemplateSpec = TemplateSpec {
    file_name: "synthesis-panel.md.j2",
    variables: &["topic", "reviews", "missing"],
    source: include_str!("../../../prompts/synthesis-panel.md.j2"),
};

/// The synthesizer of a pre-mortem (RF-13).
pub const SYNTHESIS_PREMORTEM: TemplateSpec = TemplateSpec {
    file_name: "synthesis-premortem.md.j2",
    variables: &["topic", "analysis"],
    source: include_str!("../../../prompts/synthesis-premortem.md.j2"),
};

/// The synthesizer of a red-team report (RF-14).
pub const SYNTHESIS_REDTEAM: TemplateSpec = TemplateSpec {
    file_name: "synthesis-redteam.md.j2",
    variables: &["topic", "report", "findings", "set_aside", "rulings"],
    source: include_str!("../../../prompts/synthesis-redteam.md.j2"),
};

/// The synthesizer of an architecture challenge (RF-15).
pub const SYNTHESIS_ADVERSARY: TemplateSpec = TemplateSpec {
    file_name: "synthesis-adversary.md.j2",
    variables: &["topic", "proposal", "critique", "revision", "revision_note"],
    source: include_str!("../../../prompts/synthesis-adversary.md.j2"),
};

/// A second attempt after an answer could not be used (empty, or a
/// deliverable whose opening names the debate's roles): the request, the
/// reply and the problem.
pub const REDO: TemplateSpec = TemplateSpec {
    file_name: "redo.md.j2",
    variables: &["original_prompt", "previous_output", "error"],
    source: include_str!("../../../prompts/redo.md.j2"),
};

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
