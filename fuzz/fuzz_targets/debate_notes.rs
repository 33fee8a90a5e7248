//! A debate folder's notes, `fork.json` and `from.json`, on any bytes,
//! read as `quorum open`, `report`, `fork` and `compare` read them:
//! through the folder's guarded reader, then parsed. Invariant: no panic;
//! an error, when there is one, names the file.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use quorum::cli::{chain, fork};

/// A folder of this process's own, made once, that each input is written
/// into.
fn folder() -> &'static PathBuf {
    static FOLDER: OnceLock<PathBuf> = OnceLock::new();
    FOLDER.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("quorum-fuzz-notes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a folder for the notes");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let dir = folder();
    for name in [fork::FORK_FILE, chain::CHAIN_FILE] {
        std::fs::write(dir.join(name), data).expect("write the note");
    }
    if let Err(error) = fork::origin_of(dir) {
        assert!(error.contains(fork::FORK_FILE), "{error}");
    }
    if let Err(error) = chain::origin_of(dir) {
        assert!(error.contains(chain::CHAIN_FILE), "{error}");
    }
    // The parser alone, on text that need not fit the reader's limits.
    if let Ok(text) = std::str::from_utf8(data) {
        let path = dir.join(fork::FORK_FILE);
        if let Err(error) = fork::parse_note::<fork::ForkOrigin>(&path, text) {
            assert!(error.contains(fork::FORK_FILE), "{error}");
        }
        if let Err(error) = fork::parse_note::<chain::ChainOrigin>(&path, text) {
            assert!(error.contains(fork::FORK_FILE), "{error}");
        }
    }
});
