//! What the artifact files say: pure functions from protocol state to text.
//!
//! Responsible for the content and layout of every file of the artifact tree
//! except the journal. Not responsible for writing them (the engine writes
//! what [`crate::protocol::Protocol::documents`] returns, atomically) or for
//! deciding anything (every value shown comes from the protocol state).

pub mod decision_review;

use crate::protocol::{LogEntry, Timestamp};

/// `2026-11-30T12:00:01.234Z`: timestamps in the record.
pub fn timestamp(at: Timestamp) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// Wraps untrusted text in a fence longer than any backtick run inside it,
/// so agent output cannot break out of its block in a markdown file.
pub fn fenced(text: &str, info: &str) -> String {
    let longest_run = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((longest_run + 1).max(3));
    let body = text.strip_suffix('\n').unwrap_or(text);
    format!("{fence}{info}\n{body}\n{fence}\n")
}

/// The timestamped list of log entries, one line each.
pub fn log_lines(log: &[LogEntry]) -> String {
    let mut out = String::new();
    for entry in log {
        let call = entry
            .call_id
            .as_deref()
            .map(|id| format!(" `{id}`"))
            .unwrap_or_default();
        out.push_str(&format!(
            "- `{}` **{}**{call} — {}\n",
            timestamp(entry.at),
            entry.kind.label(),
            one_line(&entry.message)
        ));
    }
    out
}

/// Collapses line breaks so a message stays one list item.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_backtick_runs_in_untrusted_text() {
        let hostile = "before\n````\n# injected heading\n````\nafter";
        let block = fenced(hostile, "text");
        assert!(block.starts_with("`````text\n"));
        assert!(block.ends_with("\n`````\n"));
    }

    #[test]
    fn one_line_collapses_breaks() {
        assert_eq!(one_line("a\n b\r\n\tc"), "a b c");
    }
}
