//! An agent asking to be shown sources (issue 52): the block that lets it
//! look up the line it wants to cite.
//!
//! The block is fenced as `request`, one source a line, each a name and
//! optionally its lines, as a span is written:
//!
//! ````text
//! ```request
//! - src/retry.go
//! - internal/queue/worker.go:L40-L120
//! ```
//! ````
//!
//! Reading is bounded: at most [`MAX_REQUESTS`] entries of an answer are
//! taken, a line longer than [`MAX_REQUEST_LINE`] is refused, and the rest
//! are counted, not read. Nothing here opens anything: a name is only ever
//! looked up among the sources quorum loaded (`protocol::evidence`).

use super::citations::Lines;
use super::fenced::request_blocks;

/// The most sources one answer may ask for.
pub const MAX_REQUESTS: usize = 6;

/// The longest line of a request block that is read, in bytes.
pub const MAX_REQUEST_LINE: usize = 300;

/// One source asked for, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub name: String,
    /// The lines wanted; the whole source when `None`.
    pub lines: Option<Lines>,
}

/// What an answer asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Requests {
    pub wanted: Vec<Request>,
    /// Entries past [`MAX_REQUESTS`], or lines that do not read as one: not
    /// taken.
    pub refused: Vec<String>,
}

/// The requests of `answer`'s `request` blocks, in order, bounded.
pub fn requests(answer: &str) -> Requests {
    let mut found = Requests::default();
    for block in request_blocks(answer) {
        for line in block.lines() {
            let entry = line.trim();
            let entry = entry
                .strip_prefix("- ")
                .or_else(|| entry.strip_prefix("* "))
                .unwrap_or(entry)
                .trim()
                .trim_matches('`');
            if entry.is_empty() {
                continue;
            }
            if found.wanted.len() >= MAX_REQUESTS {
                if found.refused.len() < MAX_REQUESTS {
                    found.refused.push(format!(
                        "{}: past the {MAX_REQUESTS} sources one answer may ask for",
                        shortened(entry)
                    ));
                }
                continue;
            }
            match read_entry(entry) {
                Some(request) => found.wanted.push(request),
                None if found.refused.len() < MAX_REQUESTS => found
                    .refused
                    .push(format!("{}: not a source name", shortened(entry))),
                None => {}
            }
        }
    }
    found
}

/// `name`, `name:L12-L40`, `name:12-40`, `name#L12` or `name:L12`.
fn read_entry(entry: &str) -> Option<Request> {
    if entry.len() > MAX_REQUEST_LINE || entry.chars().any(char::is_whitespace) {
        return None;
    }
    let (name, lines) = match entry.rsplit_once("#L").or_else(|| entry.rsplit_once(':')) {
        Some((name, span)) => match read_lines(span) {
            Some(lines) => (name, Some(lines)),
            None => return None,
        },
        None => (entry, None),
    };
    (!name.is_empty()).then(|| Request {
        name: name.to_string(),
        lines,
    })
}

/// `L12-L40`, `12-40`, `L12`: first and last line, counted from 1.
fn read_lines(span: &str) -> Option<Lines> {
    let number = |part: &str| -> Option<u32> {
        part.trim_start_matches('L')
            .parse()
            .ok()
            .filter(|&n: &u32| n > 0)
    };
    let (first, last) = match span.split_once('-') {
        Some((first, last)) => (number(first)?, number(last)?),
        None => {
            let line = number(span)?;
            (line, line)
        }
    };
    (first <= last).then_some(Lines { first, last })
}

/// An entry as a message quotes it: its first 60 characters.
fn shortened(entry: &str) -> String {
    match entry.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &entry[..at]),
        None => entry.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// EV-10: a request block is read one source a line, with or without
    /// its lines, bullets and backticks aside; other blocks are not read.
    #[test]
    fn ev_10_a_request_block_names_sources_with_or_without_lines() {
        let answer = "My finding.\n\n```yaml\nfindings: []\n```\n\n```request\n- src/retry.go\n* `worker.go:L40-L120`\nqueue.go#L7\n\napp.log:12-30\n```\n";
        let found = requests(answer);
        assert_eq!(
            found.wanted,
            vec![
                Request {
                    name: "src/retry.go".into(),
                    lines: None
                },
                Request {
                    name: "worker.go".into(),
                    lines: Some(Lines {
                        first: 40,
                        last: 120
                    })
                },
                Request {
                    name: "queue.go".into(),
                    lines: Some(Lines { first: 7, last: 7 })
                },
                Request {
                    name: "app.log".into(),
                    lines: Some(Lines {
                        first: 12,
                        last: 30
                    })
                },
            ]
        );
        assert!(found.refused.is_empty());
        assert_eq!(
            requests("```yaml\n- src/retry.go\n```\n"),
            Requests::default()
        );
    }

    /// EV-10: what does not read as a source (words, a backwards span) is
    /// refused by name, and past the bound nothing more is taken, however
    /// long the block: a million lines cost one pass.
    #[test]
    fn ev_10_requests_are_bounded_and_what_does_not_read_is_refused() {
        let found = requests("```request\nplease show me everything\nx.go:L9-L3\n```");
        assert!(found.wanted.is_empty());
        assert_eq!(found.refused.len(), 2, "{:?}", found.refused);
        let many = format!("```request\n{}```\n", "- a.go\n".repeat(1_000_000));
        let found = requests(&many);
        assert_eq!(found.wanted.len(), MAX_REQUESTS);
        assert_eq!(
            found.refused.len(),
            MAX_REQUESTS,
            "refusals are bounded too"
        );
        assert!(found.refused[0].contains("past the 6"));
    }
}
