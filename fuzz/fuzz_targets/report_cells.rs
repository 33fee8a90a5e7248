//! The Markdown report's escaping of agent text (issue 61). Invariants:
//! three cells in a table row stay three cells of one row; a cell, a list
//! item and a heading hold no link, image or HTML for a viewer to act on;
//! no control character but what the cleaner keeps, and no bidi control;
//! and the conclusion's Markdown holds no link, image or HTML either.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use quorum::share::markdown::{cell, inert_markdown};

fn live(markdown: &str) -> Option<String> {
    Parser::new_ext(markdown, Options::all()).find_map(|event| match event {
        Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
            Some(dest_url.to_string())
        }
        Event::Html(html) | Event::InlineHtml(html) => Some(html.to_string()),
        _ => None,
    })
}

fn no_controls(text: &str) {
    for c in text.chars() {
        assert!(
            c == '\n'
                || c == '\t'
                || !(c.is_control()
                    || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')),
            "{c:?} in {text:?}"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let escaped = cell(&text);
    no_controls(&escaped);
    assert!(!escaped.contains('\n'), "{escaped:?}");
    let table = format!("| a | b | c |\n|---|---|---|\n| {escaped} | {escaped} | {escaped} |\n");
    assert_eq!(live(&table), None, "{table}");
    let mut rows = 0;
    let mut cells = 0;
    for event in Parser::new_ext(&table, Options::all()) {
        match event {
            Event::End(TagEnd::TableRow) => rows += 1,
            Event::End(TagEnd::TableCell) => cells += 1,
            _ => {}
        }
    }
    // The head's three cells, then one row of three.
    assert_eq!((rows, cells), (1, 6), "{table}");
    for block in [format!("- {escaped}\n"), format!("# {escaped}\n")] {
        assert_eq!(live(&block), None, "{block}");
        let blocks = Parser::new_ext(&block, Options::all())
            .filter(|event| {
                matches!(
                    event,
                    Event::Start(
                        Tag::List(_) | Tag::Heading { .. } | Tag::BlockQuote(_) | Tag::CodeBlock(_)
                    ) | Event::Rule
                )
            })
            .count();
        assert_eq!(blocks, 1, "{block}");
    }
    let conclusion = inert_markdown(&text);
    no_controls(&conclusion.replace("\r\n", "\n"));
    assert_eq!(live(&conclusion), None, "{conclusion}");
});
