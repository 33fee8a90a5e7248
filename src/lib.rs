//! quorum: run and moderate live debates between AI agents.
//!
//! Layers, data flowing one way: `agent` providers stream text into the
//! `engine`, which drives the pure `protocol` state machines, persists
//! everything through `artifact`, and publishes view updates to the headless
//! printer (and later the TUI). `parse` turns agent text into `model` data and
//! `verdict` derives decisions from persisted scores.

pub mod agent;
pub mod artifact;
pub mod cli;
pub mod config;
pub mod engine;
pub mod model;
pub mod parse;
pub mod prompts;
pub mod protocol;
pub mod spec;
pub mod text;
pub mod tui;
pub mod verdict;
