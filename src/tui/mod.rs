//! The live moderation interface (ratatui).
//!
//! State in, frames out: [`app`] folds the engine's updates and the person's
//! keys into state and emits [`crate::engine::Command`]s; [`layout`] places
//! the regions from a small [`layout::LayoutInput`] the state builds;
//! [`view`] draws that state through `&App`; [`prepare`] lays a frame out and
//! measures its texts before [`screen`] draws it and writes what changed. The
//! imports run one way: layout, then app, view, prepare, screen (app imports
//! neither view nor screen). [`run`] is the one loop that feeds them and caps
//! the frame rate, drawing when the runtime goes [`idle`], and reads the
//! person's keys through [`events`]; [`terminal`] restores the terminal on
//! every way out. Keys are data in [`keymap`], which also writes the footer
//! and the help. Agent text is sanitised on arrival and laid out once per
//! width by [`markdown`]; [`cards`] reads the same text a second time, its
//! structured records as cards, for the pane's default view; colours come
//! from [`theme`]; [`svg`] turns a drawn screen into the pictures of the
//! documentation; [`notify`] tells a person in another window that a
//! debate they moderate from here (`quorum attach`) needs them.
//!
//! Not responsible for protocol rules or I/O of the debate: decisions and
//! overrides go to the engine, which journals them before anything happens.

pub mod app;
pub mod cards;
mod cell_diff;
pub mod events;
pub mod idle;
pub mod keymap;
pub mod layout;
pub mod markdown;
pub mod notify;
pub mod pacer;
pub mod prepare;
pub mod run;
pub mod screen;
pub mod svg;
pub mod terminal;
pub mod theme;
pub mod view;

use std::path::PathBuf;

pub use crate::protocol::{RoleGroup, RoleInfo};
pub use app::{App, DebateInfo};

impl DebateInfo {
    /// What the header and the panes need, from a protocol's description
    /// and its words for the moderator's decisions; agent text in it (the
    /// topic, model names) is made inert here.
    pub fn of<P: crate::protocol::Protocol + ?Sized>(protocol: &P, run_dir: PathBuf) -> DebateInfo {
        let description = protocol.describe();
        DebateInfo {
            words: protocol.item_words(),
            topic: crate::text::sanitize(&crate::words::one_line(&description.topic)),
            protocol: description.label.clone(),
            run_dir,
            roles: description.roles.clone(),
            deliverable: description.deliverable.clone(),
            items: description.items.clone(),
            board: description.board.clone(),
            about: description.about.clone(),
            ending_note: description.ending_note.clone(),
        }
    }
}

pub(crate) use crate::words::capitalised as capitalise;
