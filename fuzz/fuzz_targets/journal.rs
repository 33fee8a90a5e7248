//! The journal reader, on any bytes: the source of truth for resume,
//! replay and `open` must refuse or read, never panic.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use quorum::artifact::parse_journal;
use quorum::engine::JournalEvent;

fuzz_target!(|data: &[u8]| {
    let _ = parse_journal::<JournalEvent>(data, Path::new("journal.jsonl"));
});
