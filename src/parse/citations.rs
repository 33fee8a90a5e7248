//! Citations in an agent's text: the one reader every protocol's evidence
//! goes through (issue 52).
//!
//! Two shapes are read, the ones every evidence-asking prompt teaches:
//!
//! - a **quote**: the words in quotation marks, a dash, the source:
//!   `"payment failed after 3 retries" — app.log`, optionally with the
//!   line it is on (`— app.log:L212`);
//! - a **span**: a source and its lines, `src/webhooks.go:L17-L22`,
//!   optionally followed by the text quoted from them
//!   (`src/webhooks.go:L17 "if err != nil {"`).
//!
//! Straight, curly and back quotes delimit a quote; `—`, `–` and `--` (or a
//! spaced `-`) separate it from its source. Lines may be written with or
//! without the `L` (`app.log:212`), and `#L12` as a code host writes it. A
//! span without `L` is read only where its name looks like a file (a `.`
//! or `/` in it) or is a source the debate knows, so that `14:03`, a ratio
//! `3:1` or a timestamp's `T14:03` is never taken for a citation.
//!
//! The reader is one pass of one regular expression (linear in the text)
//! and stops at [`MAX_CITATIONS`]: what a hostile answer of a million
//! citations costs is that pass, and its excess is reported, not read.
//! Nothing here opens a file: a name is only ever looked up among the
//! sources quorum loaded (`evidence`).

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// The most citations read from one text; the rest are counted as excess.
pub const MAX_CITATIONS: usize = 200;

/// The longest quote, in characters, that is checked; a longer one is read
/// and reported as not checkable.
pub const MAX_QUOTE_CHARS: usize = 600;

/// Lines `first..=last` of a source, counted from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lines {
    pub first: u32,
    pub last: u32,
}

impl std::fmt::Display for Lines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.first == self.last {
            write!(f, "L{}", self.first)
        } else {
            write!(f, "L{}-L{}", self.first, self.last)
        }
    }
}

/// One citation as the agent wrote it.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Citation {
    /// The source as named (`app.log`, `src/webhooks.go`).
    pub source: String,
    /// The lines named, if any.
    pub lines: Option<Lines>,
    /// The quoted words, if any, as written (not yet normalised).
    pub quote: Option<String>,
}

impl Citation {
    /// The citation in the one shape quorum writes it back:
    /// `"…" — app.log:L12` or `src/a.go:L3-L5`.
    pub fn shape(&self) -> String {
        let place = match self.lines {
            Some(lines) => format!("{}:{lines}", self.source),
            None => self.source.clone(),
        };
        match &self.quote {
            Some(quote) => format!("\"{}\" — {place}", crate::words::one_line(quote)),
            None => place,
        }
    }
}

/// What one text cites.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cited {
    /// The citations, in the order written, at most [`MAX_CITATIONS`].
    pub citations: Vec<Citation>,
    /// The text holds more than [`MAX_CITATIONS`]: the rest were not read.
    pub excess: bool,
}

/// A source's name as a citation writes it: a file-like token.
const NAME: &str = r"[A-Za-z0-9_./~][A-Za-z0-9_./~\-]*";
/// A quotation in straight, curly or back quotes, on one line.
const QUOTED: &str = r#""[^"\n]+"|“[^”\n]+”|`[^`\n]+`"#;

static CITATION: LazyLock<Regex> = LazyLock::new(|| {
    let lines = r"(?::|#)(?P<L>L)?(?P<a>\d{1,9})(?:[ \t]*[-–][ \t]*L?(?P<b>\d{1,9}))?";
    let quote_lines = r"(?::|#)L?(?P<qa>\d{1,9})(?:[ \t]*[-–][ \t]*L?(?P<qb>\d{1,9}))?";
    Regex::new(&format!(
        r"(?P<q>{QUOTED})[ \t]*(?:—|–|--|[ \t]-)[ \t]*\(?(?P<qs>{NAME})(?:{quote_lines})?|(?P<s>{NAME}){lines}(?:[ \t]*[(:]?[ \t]*(?P<sq>{QUOTED}))?"
    ))
    .expect("the citation pattern compiles")
});

/// The citations `text` holds. `known` says whether a name is one of the
/// debate's sources: a span written without `L` counts only when its name
/// looks like a file or is known.
pub fn citations(text: &str, known: &dyn Fn(&str) -> bool) -> Cited {
    let mut cited = Cited::default();
    for captures in CITATION.captures_iter(text) {
        let whole = captures.get(0).expect("a match has a whole");
        // A name glued to what precedes it (`https://host:8080`,
        // `x=a.go:3`) is part of another word, not a citation.
        if text[..whole.start()]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || matches!(c, ':' | '/' | '.' | '_' | '-'))
        {
            continue;
        }
        let citation = if let Some(quote) = captures.name("q") {
            let source = trim_name(&captures["qs"]);
            if source.is_empty() {
                continue;
            }
            Citation {
                source: source.to_string(),
                lines: lines_of(captures.name("qa"), captures.name("qb")),
                quote: Some(unquote(quote.as_str()).to_string()),
            }
        } else {
            let source = captures["s"].trim_end_matches(['.', '-']);
            let marked = captures.name("L").is_some();
            let looks_like_file = source.contains(['.', '/']);
            if !(marked || looks_like_file || known(source))
                || !source.chars().any(|c| c.is_alphabetic())
            {
                continue;
            }
            Citation {
                source: source.to_string(),
                lines: lines_of(captures.name("a"), captures.name("b")),
                quote: captures
                    .name("sq")
                    .map(|quote| unquote(quote.as_str()).to_string()),
            }
        };
        if cited.citations.len() == MAX_CITATIONS {
            cited.excess = true;
            break;
        }
        cited.citations.push(citation);
    }
    cited
}

/// A quote's words without their quotation marks.
fn unquote(quoted: &str) -> &str {
    let mut chars = quoted.chars();
    chars.next();
    chars.next_back();
    chars.as_str()
}

/// A source's name without the sentence's full stop after it.
fn trim_name(name: &str) -> &str {
    name.trim_end_matches(['.', '-', '/'])
}

fn lines_of(first: Option<regex::Match<'_>>, last: Option<regex::Match<'_>>) -> Option<Lines> {
    let first: u32 = first?.as_str().parse().ok()?;
    let last = last
        .and_then(|last| last.as_str().parse().ok())
        .unwrap_or(first);
    Some(Lines { first, last })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<Citation> {
        citations(text, &|_| false).citations
    }

    fn quote(source: &str, lines: Option<(u32, u32)>, words: &str) -> Citation {
        Citation {
            source: source.into(),
            lines: lines.map(|(first, last)| Lines { first, last }),
            quote: Some(words.into()),
        }
    }

    fn span(source: &str, first: u32, last: u32) -> Citation {
        Citation {
            source: source.into(),
            lines: Some(Lines { first, last }),
            quote: None,
        }
    }

    #[test]
    fn ev_02_a_quote_with_its_source_is_read_in_every_quotation_mark_and_dash() {
        assert_eq!(
            read(r#"The log says "pool exhausted (size 20)" — app.log, twice."#),
            vec![quote("app.log", None, "pool exhausted (size 20)")]
        );
        assert_eq!(
            read("as “retry budget spent” -- deploy.log:L12."),
            vec![quote("deploy.log", Some((12, 12)), "retry budget spent")]
        );
        assert_eq!(
            read("`if err != nil {` – src/webhooks.go:L17-L19"),
            vec![quote("src/webhooks.go", Some((17, 19)), "if err != nil {")]
        );
        assert_eq!(
            read(r#""queue full" - worker.log"#),
            vec![quote("worker.log", None, "queue full")]
        );
    }

    #[test]
    fn ev_02_a_span_is_read_with_or_without_l_and_with_its_quoted_text() {
        assert_eq!(
            read("see src/webhooks.go:L17-L22 and app.log:212"),
            vec![span("src/webhooks.go", 17, 22), span("app.log", 212, 212)]
        );
        assert_eq!(
            read(r#"handler.go#L40 "return nil""#),
            vec![Citation {
                source: "handler.go".into(),
                lines: Some(Lines {
                    first: 40,
                    last: 40
                }),
                quote: Some("return nil".into()),
            }]
        );
        assert_eq!(read("Makefile:L3"), vec![span("Makefile", 3, 3)]);
    }

    #[test]
    fn ev_02_times_ratios_urls_and_bare_words_are_not_citations() {
        assert!(read("at 14:03:22 the ratio was 3:1").is_empty());
        assert!(read("2026-03-01T14:03:22Z").is_empty());
        assert!(read("https://example.com:8080/path and x:a.go:3").is_empty());
        assert!(read(r#"they said "fine" and left"#).is_empty());
        assert!(read("Makefile:3").is_empty(), "no L, no dot, not known");
        assert_eq!(
            citations("Makefile:3", &|name| name == "Makefile").citations,
            vec![span("Makefile", 3, 3)]
        );
    }

    #[test]
    fn ev_02_a_hostile_path_is_read_as_written_never_resolved() {
        // Read as a name; the checker finds no source of that name.
        assert_eq!(
            read("/etc/passwd:L1 and ../../etc/passwd:L1"),
            vec![span("/etc/passwd", 1, 1), span("../../etc/passwd", 1, 1)]
        );
    }

    #[test]
    fn ev_06_a_million_citations_are_read_to_the_bound_and_the_excess_reported() {
        let text = "a.go:L1 ".repeat(1_000_000);
        let cited = citations(&text, &|_| false);
        assert_eq!(cited.citations.len(), MAX_CITATIONS);
        assert!(cited.excess);
        let few = citations(&"a.go:L1 ".repeat(MAX_CITATIONS), &|_| false);
        assert!(!few.excess);
    }

    #[test]
    fn a_citation_is_written_back_in_one_shape() {
        assert_eq!(
            quote("app.log", Some((3, 4)), "a  b").shape(),
            "\"a b\" — app.log:L3-L4"
        );
        assert_eq!(span("a.go", 7, 7).shape(), "a.go:L7");
    }
}
