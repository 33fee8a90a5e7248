//! The files a person hands quorum: a spec, a configuration, a theme.
//! Invariant: no panic; an error, when there is one, names the file.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("fuzz.yaml");
    if let Ok(spec) = quorum::spec::parse(path, text) {
        let _ = quorum::spec::validate(&spec, &quorum::protocol::registry::Registered);
    }
    let _ = quorum::config::parse(path, text, &quorum::protocol::registry::Registered);
    let _ = quorum::tui::theme::Theme::parse("fuzz.yaml", text);
});
