//! Each citation checked against the sources, mechanically (issue 52).
//!
//! A quote is compared normalised (whitespace runs as one space, curly and
//! back quotes straight; case as written): it must occur in the source it
//! names, or on the lines it names. A quote with an ellipsis (`…`, `...`)
//! is its parts, each of which must occur in that source. A span must lie
//! within its source and, when it quotes, hold the quote. A quote that is
//! not where it says is looked for in every other source at once (one
//! Aho-Corasick pass over the corpus), so that the record can say where it
//! is after all. The cost is linear in the sources and the quotes.

use aho_corasick::AhoCorasick;
use serde::{Deserialize, Serialize};

use super::sources::{Sources, normalise};
use crate::parse::citations::{Citation, Lines, MAX_QUOTE_CHARS};

/// A quote shorter than this, normalised, is too short to tell one place
/// from another.
pub const MIN_QUOTE_CHARS: usize = 4;

/// What checking one citation found.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Status {
    /// It is there: `source` at `lines`.
    Verified { source: String, lines: Lines },
    /// The quote is not in the source it names (nor on the lines it names);
    /// `elsewhere` says where it does occur, if anywhere.
    NotFound {
        source: String,
        elsewhere: Option<String>,
    },
    /// The span runs past the source's `length` lines.
    OutOfRange { source: String, length: u32 },
    /// No source of this name.
    UnknownSource,
    /// It cannot be checked, and why.
    NotCheckable { why: String },
}

impl Status {
    pub fn verified(&self) -> bool {
        matches!(self, Status::Verified { .. })
    }

    /// Checked and found wanting: not found, out of range, or a source
    /// nobody gave.
    pub fn failed(&self) -> bool {
        matches!(
            self,
            Status::NotFound { .. } | Status::OutOfRange { .. } | Status::UnknownSource
        )
    }

    /// ✓ verified, ✗ failed, ? not checkable.
    pub fn mark(&self) -> char {
        if self.verified() {
            '✓'
        } else if self.failed() {
            '✗'
        } else {
            '?'
        }
    }

    /// The status in a few words: `verified at app.log:L212`.
    pub fn words(&self) -> String {
        match self {
            Status::Verified { source, lines } => format!("verified at {source}:{lines}"),
            Status::NotFound {
                source,
                elsewhere: None,
            } => format!("not found in {source} nor in any other source"),
            Status::NotFound {
                source,
                elsewhere: Some(place),
            } => format!("not found where cited in {source}; it is at {place}"),
            Status::OutOfRange { source, length } => {
                format!("out of range: {source} has {length} lines")
            }
            Status::UnknownSource => "unknown source: no source of that name was given".into(),
            Status::NotCheckable { why } => format!("not checkable: {why}"),
        }
    }
}

/// A citation with what checking it found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checked {
    pub citation: Citation,
    #[serde(flatten)]
    pub status: Status,
}

impl Checked {
    /// `✓ "…" — app.log (verified at app.log:L212)`.
    pub fn line(&self) -> String {
        format!(
            "{} {} ({})",
            self.status.mark(),
            self.citation.shape(),
            self.status.words()
        )
    }
}

/// A quote's normalised parts: split at an ellipsis.
fn parts(quote: &str) -> Vec<String> {
    quote
        .replace('…', "...")
        .split("...")
        .map(normalise)
        .filter(|part| !part.is_empty())
        .collect()
}

impl Sources {
    /// Checks every citation of `citations`, in order.
    pub fn check(&self, citations: &[Citation]) -> Vec<Checked> {
        let mut statuses: Vec<Status> = citations.iter().map(|c| self.check_one(c)).collect();
        self.look_elsewhere(citations, &mut statuses);
        citations
            .iter()
            .cloned()
            .zip(statuses)
            .map(|(citation, status)| Checked { citation, status })
            .collect()
    }

    /// [`Sources::check`] without looking for a missing quote elsewhere:
    /// each citation costs a search of the one source it names, however
    /// large the tree, for what is checked again and again (the items the
    /// moderator reads, on every change of the board).
    pub fn check_where_cited(&self, citations: &[Citation]) -> Vec<Checked> {
        citations
            .iter()
            .map(|citation| Checked {
                citation: citation.clone(),
                status: self.check_one(citation),
            })
            .collect()
    }

    fn check_one(&self, citation: &Citation) -> Status {
        if self.is_empty() {
            return Status::NotCheckable {
                why: "the debate was given no sources".into(),
            };
        }
        let Some(index) = self.resolve(&citation.source) else {
            return Status::UnknownSource;
        };
        let file = &self.files[index];
        let source = file.name.clone();
        if let Some(lines) = citation.lines
            && (lines.first == 0 || lines.first > lines.last || lines.last > file.lines())
        {
            return Status::OutOfRange {
                source,
                length: file.lines(),
            };
        }
        let Some(quote) = &citation.quote else {
            let lines = citation
                .lines
                .expect("a citation without a quote is a span");
            return Status::Verified { source, lines };
        };
        if quote.chars().count() > MAX_QUOTE_CHARS {
            return Status::NotCheckable {
                why: format!("a quote longer than {MAX_QUOTE_CHARS} characters"),
            };
        }
        let parts = parts(quote);
        if parts.iter().map(|part| part.chars().count()).sum::<usize>() < MIN_QUOTE_CHARS {
            return Status::NotCheckable {
                why: format!("a quote shorter than {MIN_QUOTE_CHARS} characters"),
            };
        }
        let scope = match citation.lines {
            Some(lines) => file.lines_range(lines.first, lines.last),
            None => file.range.clone(),
        };
        let haystack = &self.corpus.as_bytes()[scope.clone()];
        let mut first_at = None;
        for part in &parts {
            match memchr::memmem::find(haystack, part.as_bytes()) {
                Some(at) => {
                    first_at.get_or_insert(scope.start + at);
                }
                None => {
                    return Status::NotFound {
                        source,
                        elsewhere: None,
                    };
                }
            }
        }
        let at = first_at.expect("a quote has a part");
        let line = file.line_at(at);
        let lines = citation.lines.unwrap_or(Lines {
            first: line,
            last: line,
        });
        Status::Verified { source, lines }
    }

    /// For each quote not found where cited, where in the sources its first
    /// part does occur: one pass over the corpus for all of them.
    fn look_elsewhere(&self, citations: &[Citation], statuses: &mut [Status]) {
        let missing: Vec<(usize, String)> = statuses
            .iter()
            .enumerate()
            .filter(|(_, status)| matches!(status, Status::NotFound { .. }))
            .filter_map(|(index, _)| {
                let quote = citations[index].quote.as_deref()?;
                Some((index, parts(quote).into_iter().next()?))
            })
            .collect();
        if missing.is_empty() {
            return;
        }
        let Ok(automaton) = AhoCorasick::new(missing.iter().map(|(_, part)| part.as_str())) else {
            return;
        };
        let mut found: Vec<Option<usize>> = vec![None; missing.len()];
        let mut left = missing.len();
        for hit in automaton.find_overlapping_iter(self.corpus.as_str()) {
            let slot = &mut found[hit.pattern().as_usize()];
            if slot.is_none() {
                *slot = Some(hit.start());
                left -= 1;
                if left == 0 {
                    break;
                }
            }
        }
        for ((index, _), at) in missing.iter().zip(found) {
            let Some(at) = at else { continue };
            let file_index = self.files.partition_point(|file| file.range.end < at);
            let Some(file) = self.files.get(file_index) else {
                continue;
            };
            if let Status::NotFound { elsewhere, .. } = &mut statuses[*index] {
                *elsewhere = Some(format!("{}:L{}", file.name, file.line_at(at)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::SourceKind;
    use crate::evidence::sources::{SourceRecord, Tree};
    use crate::parse::citations::citations;

    fn sources() -> Sources {
        Sources::new(
            vec![(
                "app log".into(),
                SourceKind::Log,
                "09:14:02 INFO start\n09:14:05 ERROR pool   exhausted (size 20)\n09:14:06 WARN retry 3 of 3\n"
                    .into(),
            )],
            Some(Tree {
                record: SourceRecord::of_file(SourceKind::Repo, "svc", None, ""),
                files: vec![(
                    "internal/webhooks.go".into(),
                    "package internal\n\nfunc Handle() error {\n\tif err != nil {\n\t\treturn err\n\t}\n}\n"
                        .into(),
                )],
                left_out: vec![],
            }),
        )
    }

    fn check(text: &str) -> Vec<Status> {
        let sources = sources();
        let cited = citations(text, &|name| sources.knows(name));
        sources
            .check(&cited.citations)
            .into_iter()
            .map(|checked| checked.status)
            .collect()
    }

    fn verified(source: &str, first: u32, last: u32) -> Status {
        Status::Verified {
            source: source.into(),
            lines: Lines { first, last },
        }
    }

    #[test]
    fn ev_03_a_quote_is_found_normalised_and_its_line_reported() {
        assert_eq!(
            check(r#""ERROR pool exhausted (size 20)" — app-log"#),
            [verified("app-log", 2, 2)]
        );
        assert_eq!(
            check("“if err != nil { return err }” — webhooks.go"),
            [verified("internal/webhooks.go", 4, 4)],
            "curly quotes, a line break and tabs normalised"
        );
        assert_eq!(
            check(r#""start ... pool exhausted" — app-log"#),
            [verified("app-log", 1, 1)],
            "an ellipsis: each part in the source"
        );
    }

    #[test]
    fn ev_03_a_quote_that_is_not_there_is_not_found_and_where_it_is_said() {
        assert_eq!(
            check(r#""pool exhausted (size 50)" — app-log"#),
            [Status::NotFound {
                source: "app-log".into(),
                elsewhere: None
            }]
        );
        assert_eq!(
            check(r#""return err" — app-log"#),
            [Status::NotFound {
                source: "app-log".into(),
                elsewhere: Some("internal/webhooks.go:L5".into())
            }]
        );
        assert_eq!(
            check(r#""retry 3 of 3" — app-log:L1"#),
            [Status::NotFound {
                source: "app-log".into(),
                elsewhere: Some("app-log:L3".into())
            }],
            "on other lines than cited"
        );
        // Where cited only: the one source named is searched, nothing else.
        let sources = sources();
        let cited = citations(r#""return err" — app-log"#, &|_| false);
        assert_eq!(
            sources.check_where_cited(&cited.citations)[0].status,
            Status::NotFound {
                source: "app-log".into(),
                elsewhere: None
            }
        );
    }

    #[test]
    fn ev_03_a_span_must_exist_and_hold_its_text() {
        assert_eq!(
            check("internal/webhooks.go:L3-L5"),
            [verified("internal/webhooks.go", 3, 5)]
        );
        assert_eq!(
            check("webhooks.go:L17-L22"),
            [Status::OutOfRange {
                source: "internal/webhooks.go".into(),
                length: 7
            }]
        );
        assert_eq!(
            check(r#"webhooks.go:L4-L5 "if err != nil { return err""#),
            [verified("internal/webhooks.go", 4, 5)]
        );
        assert!(matches!(
            check(r#"webhooks.go:L1 "return err""#)[..],
            [Status::NotFound { .. }]
        ));
    }

    #[test]
    fn ev_03_unknown_sources_and_unreadable_quotes_say_so() {
        assert_eq!(check("config.yaml:L3"), [Status::UnknownSource]);
        assert_eq!(check("../../etc/passwd:L1"), [Status::UnknownSource]);
        assert_eq!(check("/etc/passwd:L1"), [Status::UnknownSource]);
        assert!(matches!(
            check(r#""ok" — app-log"#)[..],
            [Status::NotCheckable { .. }]
        ));
        let none = Sources::none();
        let cited = citations(r#""pool exhausted" — app.log"#, &|_| false);
        assert_eq!(
            none.check(&cited.citations)[0].status,
            Status::NotCheckable {
                why: "the debate was given no sources".into()
            }
        );
    }

    #[test]
    fn a_checked_citation_reads_in_one_line() {
        let sources = sources();
        let cited = citations(r#""retry 3 of 3" — app-log"#, &|_| false);
        assert_eq!(
            sources.check(&cited.citations)[0].line(),
            "✓ \"retry 3 of 3\" — app-log (verified at app-log:L3)"
        );
    }
}
