//! The writing review's prompt templates. A judge's prompt asks for its
//! own rewrite and says nothing about readers of the result (RF-01); the
//! merge's prompt carries the directives (the aesthete's and the
//! stylist's first, DR-58) and asks for a change summary that names none
//! of the process (RF-18).

use crate::prompts::TemplateSpec;

/// One judge rewrites the whole draft (DR-59).
pub const REWRITE: TemplateSpec = TemplateSpec {
    file_name: "writing-rewrite.md.j2",
    variables: &["topic", "draft", "context", "role", "focus", "criteria"],
    source: include_str!("../../../../prompts/writing-rewrite.md.j2"),
};

/// The one synthesis step: the rewrites merged into `revised_draft` and
/// `changes` (A16, DR-60).
pub const MERGE: TemplateSpec = TemplateSpec {
    file_name: "writing-merge.md.j2",
    variables: &["topic", "draft", "rewrites", "missing", "directives"],
    source: include_str!("../../../../prompts/writing-merge.md.j2"),
};
