//! `link/quorum.order`, which build.rs hands to release links: the
//! functions the recorded debates ran, that the linker lays out together.
//! A name the binary no longer has is passed over, so a stale file costs
//! memory, not correctness; what these tests hold is that the file is one
//! the linker reads as meant, and that it covers the paths it says it does.

use std::collections::HashSet;

fn names() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/link/quorum.order");
    let text = std::fs::read_to_string(path).expect("link/quorum.order reads");
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_line_is_one_mangled_function_name_named_once() {
    let names = names();
    assert!(names.len() > 1_000, "{} names", names.len());
    let rust = names.iter().filter(|name| name.starts_with("_ZN")).count();
    assert!(
        rust * 10 > names.len() * 9,
        "{rust} of {} mangled",
        names.len()
    );
    let mut seen = HashSet::new();
    for name in &names {
        // The linker reads a line as one symbol, as the binary names it: a
        // demangled name (`quorum::engine::…`) or a recursion mark from the
        // profiler (`…E'2`) would match nothing. Rust's names are mangled
        // (`_ZN…E`); C's (`main`, the runtime's `__udivti3`) are plain.
        let symbol = |b: u8| b.is_ascii_alphanumeric() || b"_$.".contains(&b);
        assert!(
            !name.is_empty() && name.bytes().all(symbol),
            "not a symbol's name: {name:?}"
        );
        assert!(seen.insert(name.as_str()), "named twice: {name}");
    }
}

#[test]
fn it_covers_the_headless_path_the_interface_and_every_protocol() {
    let names = names();
    let has = |part: &str| names.iter().any(|name| name.contains(part));
    for part in [
        "6quorum3cli8headless",
        "6quorum6engine",
        "6quorum5agent4http",
        "6quorum5agent6openai",
        "6quorum5agent9anthropic",
        "6quorum3tui4view",
        "6quorum3tui8markdown",
        "6quorum8protocol15decision_review",
        "6quorum8protocol5quick",
        "6quorum8protocol4plan",
        "6quorum8protocol3rca",
        "6quorum8protocol7council",
    ] {
        assert!(has(part), "no function of {part} is named");
    }
    // A headless run's functions come before the interface's drawing: the file
    // lists the headless reviews first.
    let first_tui = names
        .iter()
        .position(|name| name.contains("6quorum3tui4view"));
    let first_headless = names.iter().position(|name| name.contains("3cli8headless"));
    assert!(
        first_headless < first_tui,
        "{first_headless:?} {first_tui:?}"
    );
}
