//! The sanitiser and the redactor. Invariants: no panic; what the terminal
//! and the Markdown files for people get holds no ESC, no C0 or C1 control
//! but newline and tab, and no bidi control; inside fences, controls are
//! shown as pictures, never written.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quorum::text::{Sanitizer, for_markdown, for_stderr, redact, sanitize};

fn inert(text: &str, keep_tab: bool) {
    for c in text.chars() {
        let allowed = c == '\n' || (keep_tab && c == '\t');
        assert!(
            allowed || !(c.is_control() || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')),
            "{:?} survived in {text:?}",
            c
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    inert(&sanitize(&text), false);
    inert(&for_stderr(&text), false);
    inert(&for_markdown(&text).replace("\r\n", "\n"), true);
    let _ = redact(&text);
    // Streamed in two pieces, the sanitiser agrees with itself.
    let cut = text.char_indices().nth(text.chars().count() / 2).map_or(0, |(i, _)| i);
    let mut streaming = Sanitizer::new();
    let joined = format!("{}{}", streaming.push(&text[..cut]), streaming.push(&text[cut..]));
    assert_eq!(joined, sanitize(&text));
});
