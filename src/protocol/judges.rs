//! The judge roster of the debate skill, shared by every mode that seats
//! judges or reviewers: the decision review's panel and the panel review's
//! reviewers are drawn from the same closed set of roles (INF-21), each with
//! the focus its prompt carries (INF-22).
//!
//! Not responsible for weights or criteria (the decision review's criteria
//! tree decides who scores what) or for how many a mode seats (each protocol
//! says so in its own configuration).

use std::fmt;

use serde::{Deserialize, Serialize};

/// The judge roles of the debate skill. A fixed set (INF-21): there are no
/// custom personas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JudgeRole {
    Analyst,
    Stylist,
    Aesthete,
    Strategist,
    Empiricist,
}

impl JudgeRole {
    pub const ALL: [JudgeRole; 5] = [
        JudgeRole::Analyst,
        JudgeRole::Stylist,
        JudgeRole::Aesthete,
        JudgeRole::Strategist,
        JudgeRole::Empiricist,
    ];

    /// Lower-case name used in file names and YAML (`judge-analyst.md`).
    pub fn as_str(self) -> &'static str {
        match self {
            JudgeRole::Analyst => "analyst",
            JudgeRole::Stylist => "stylist",
            JudgeRole::Aesthete => "aesthete",
            JudgeRole::Strategist => "strategist",
            JudgeRole::Empiricist => "empiricist",
        }
    }

    /// What this judge pays attention to; goes into its prompt (INF-22).
    pub fn focus(self) -> &'static str {
        match self {
            JudgeRole::Aesthete => "argument elegance, creative reasoning, intellectual beauty",
            JudgeRole::Stylist => "clarity, persuasiveness, rhetorical skill, accessibility",
            JudgeRole::Analyst => "logical rigor, evidence quality, internal consistency",
            JudgeRole::Strategist => {
                "long-term consequences, what fails and how far it spreads, the cost of undoing"
            }
            JudgeRole::Empiricist => {
                "whether each claim rests on data, measurements or precedent that can be checked"
            }
        }
    }

    pub fn parse(name: &str) -> Option<JudgeRole> {
        JudgeRole::ALL
            .into_iter()
            .find(|role| role.as_str().eq_ignore_ascii_case(name))
    }

    /// The role slot a judge of this role plays: `judge.analyst`.
    pub fn slot(self) -> String {
        format!("{SLOT_PREFIX}{self}")
    }

    /// The judge role a slot seats, if it is a judge's (`judge.analyst`).
    pub fn of_slot(slot: &str) -> Option<JudgeRole> {
        slot.strip_prefix(SLOT_PREFIX).and_then(JudgeRole::parse)
    }
}

/// What a judge's role slot starts with.
const SLOT_PREFIX: &str = "judge.";

impl fmt::Display for JudgeRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The analyst chairs a panel. The title carries no extra power: the
/// specification gives the chair no duty (RULES.md A17).
pub fn is_chair(role: JudgeRole) -> bool {
    role == JudgeRole::Analyst
}

#[cfg(test)]
mod tests {
    use super::*;

    /// INF-21: judge roles are a closed set; an unknown persona does not parse.
    #[test]
    fn inf_21_no_custom_judge_personas() {
        assert_eq!(JudgeRole::parse("analyst"), Some(JudgeRole::Analyst));
        assert_eq!(JudgeRole::parse("poet"), None);
        assert!(yaml_serde::from_str::<JudgeRole>("poet").is_err());
    }

    /// INF-22: each judge's focus, as its prompt carries it.
    #[test]
    fn inf_22_judge_focus() {
        assert!(JudgeRole::Aesthete.focus().contains("elegance"));
        assert!(JudgeRole::Stylist.focus().contains("clarity"));
        assert!(JudgeRole::Analyst.focus().contains("logical rigor"));
    }

    /// INF-23: the analyst is the chair, a label only.
    #[test]
    fn inf_23_analyst_is_the_chair() {
        assert!(is_chair(JudgeRole::Analyst));
        assert_eq!(
            JudgeRole::ALL
                .iter()
                .filter(|role| is_chair(**role))
                .count(),
            1
        );
    }
}
