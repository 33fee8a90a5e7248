//! quorum: run and moderate live debates between AI agents.
//!
//! Layers, data flowing one way: `agent` providers stream text into the
//! `engine`, which drives the pure `protocol` state machines (one folder per
//! protocol family, met through one trait and a registry), persists
//! everything through `artifact`, and publishes view updates to the headless
//! printer and the TUI. `parse` is the lenient reader of agent answers every
//! protocol's parsers share; `words` the plain words and `protocol::record`
//! the record their documents share; `signals` the backstop for a signal an
//! event loop does not take, which the command line and the TUI both install.

pub mod agent;
pub mod artifact;
pub mod cli;
pub mod config;
pub mod engine;
pub mod evidence;
pub mod input;
pub mod located;
pub mod parse;
pub mod prompts;
pub mod protocol;
pub mod rulings;
pub mod script;
pub mod secrets;
pub mod share;
pub mod signals;
pub mod spec;
pub mod store;
pub mod text;
pub mod tui;
pub mod words;
pub mod yaml_guard;
