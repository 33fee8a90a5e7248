//! The live moderation interface (ratatui).
//!
//! State in, frames out: [`app`] folds the engine's updates and the person's
//! keys into state and emits [`crate::engine::Command`]s; [`view`] draws that
//! state through `&App`; [`run`] is the one loop that feeds both and caps the
//! frame rate; [`terminal`] restores the terminal on every way out. Keys are
//! data in [`keymap`], which also writes the footer and the help. Agent text
//! is sanitised on arrival and laid out once per width by [`markdown`];
//! colours come from [`theme`].
//!
//! Not responsible for protocol rules or I/O of the debate: decisions and
//! overrides go to the engine, which journals them before anything happens.

pub mod app;
pub mod keymap;
pub mod layout;
pub mod markdown;
pub mod run;
pub mod terminal;
pub mod theme;
pub mod view;

use std::path::PathBuf;

use crate::model::{JudgeRole, Weight};
use crate::protocol::decision_review::{ReviewConfig, judge_slot_role};

pub use app::{App, DebateInfo, RoleInfo};

/// What the header and the panes need to know about a decision review.
pub fn review_info(config: &ReviewConfig, run_dir: PathBuf) -> DebateInfo {
    let mut roles = vec![
        RoleInfo {
            slot: "proposer".into(),
            title: "Proposer".into(),
            agent: config.participants.proposer.clone(),
            binding: false,
        },
        RoleInfo {
            slot: "critic".into(),
            title: "Critic".into(),
            agent: config.participants.critic.clone(),
            binding: false,
        },
    ];
    for judge in &config.panel {
        roles.push(RoleInfo {
            slot: judge_slot_role(judge.role),
            title: judge_title(judge.role),
            agent: config
                .participants
                .judges
                .get(&judge.role)
                .cloned()
                .unwrap_or_default(),
            binding: judge.weight == Weight::Binding,
        });
    }
    let mut protocol = format!(
        "decision review · {} · {} critique",
        config.mode.as_str(),
        config.critique_mode.as_str()
    );
    if config.high_stakes {
        protocol.push_str(" · high stakes");
    }
    DebateInfo {
        topic: crate::text::sanitize(&crate::artifact::render::one_line(&config.topic)),
        protocol,
        run_dir,
        roles,
    }
}

fn judge_title(role: JudgeRole) -> String {
    capitalise(role.as_str())
}

/// `analyst` → `Analyst`.
pub(crate) fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
