//! Plain words every document shares: timestamps, counts, durations,
//! money, one-line and table-cell text, and fenced blocks that keep an
//! agent's text from breaking out of its place in a Markdown file.
//!
//! Ground floor: it knows no protocol, no file and no terminal (the record
//! writing that knows a debate's log and usage is
//! [`crate::protocol::record`]).

use crate::text::bytes;

/// `2026-11-30T12:00:01.234Z`: timestamps in the record.
pub fn timestamp(at: chrono::DateTime<chrono::Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// Wraps untrusted text in a fence longer than any backtick run inside it,
/// so agent output cannot break out of its block in a markdown file.
pub fn fenced(text: &str, info: &str) -> String {
    // From one backtick to the next (`find` skips ahead with memchr), not
    // byte by byte: answers are megabytes with few backticks.
    let mut longest_run = 0;
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        let run = rest[start..]
            .bytes()
            .take_while(|&byte| byte == b'`')
            .count();
        longest_run = longest_run.max(run);
        rest = &rest[start + run..];
    }
    let fence = "`".repeat((longest_run + 1).max(3));
    let body = text.strip_suffix('\n').unwrap_or(text);
    format!("{fence}{info}\n{body}\n{fence}\n")
}

/// Untrusted agent Markdown shown as Markdown in its own section of a
/// document for people, under a heading of `level` (2 for `## …`): its
/// headings are pushed below that level (`######` at most) and a setext
/// title underline is shown as text, raw HTML (a tag, a comment that would
/// hide what follows) is shown as text instead of being rendered, and a
/// code fence it leaves open is closed, so nothing it writes reaches past
/// its section. Fenced code and code spans are kept as written. Terminal
/// controls are removed when the document is written
/// ([`crate::text::for_markdown`]).
pub fn nested_markdown(text: &str, level: usize) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut fence: Option<(char, usize)> = None;
    for line in text.lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let trimmed = line.trim_start();
        let marker = trimmed.chars().next().filter(|c| matches!(c, '`' | '~'));
        let run = marker.map_or(0, |c| trimmed.chars().take_while(|x| *x == c).count());
        match (fence, marker) {
            (Some((c, length)), Some(m))
                if m == c && run >= length && trimmed[run..].trim().is_empty() =>
            {
                fence = None;
            }
            (Some(_), _) => {}
            (None, Some(c)) if run >= 3 && indent < 4 => fence = Some((c, run)),
            (None, _) => {
                out.push_str(&nested_line(line, indent, level));
                out.push('\n');
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    if let Some((c, length)) = fence {
        out.push_str(&c.to_string().repeat(length));
        out.push('\n');
    }
    out
}

/// One line of [`nested_markdown`] outside fenced code.
fn nested_line(line: &str, indent: usize, level: usize) -> String {
    let trimmed = &line[indent..];
    let hashes = trimmed.bytes().take_while(|&byte| byte == b'#').count();
    if indent < 4
        && (1..=6).contains(&hashes)
        && trimmed[hashes..].chars().next().is_none_or(|c| c == ' ')
    {
        let deeper = "#".repeat((hashes + level).min(6));
        return format!("{deeper}{}", without_html(&trimmed[hashes..]));
    }
    if indent < 4 && !trimmed.is_empty() && trimmed.trim_end().bytes().all(|b| b == b'=') {
        return format!("\\{}", trimmed.trim_end());
    }
    without_html(line)
}

/// `text` with each `<` that could open raw HTML (`<a`, `</`, `<!`, `<?`)
/// written as `&lt;`, outside code spans.
fn without_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(['<', '`']) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if rest.starts_with('`') {
            let run = rest.bytes().take_while(|&byte| byte == b'`').count();
            let ticks = &rest[..run];
            // A code span runs to the next run of as many backticks.
            let mut end = None;
            let mut from = run;
            while let Some(found) = rest[from..].find(ticks) {
                let start = from + found;
                let length = rest[start..].bytes().take_while(|&b| b == b'`').count();
                if length == run {
                    end = Some(start + run);
                    break;
                }
                from = start + length;
            }
            let span = end.unwrap_or(run);
            out.push_str(&rest[..span]);
            rest = &rest[span..];
            continue;
        }
        let opens_html = rest[1..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '/' | '!' | '?'));
        out.push_str(if opens_html { "&lt;" } else { "<" });
        rest = &rest[1..];
    }
    out.push_str(rest);
    out
}

/// Most of one agent's answer a document copies, in bytes: far more than
/// an answer in the format holds, and a bound on what an answer refused
/// for its size costs every document that shows it. The journal keeps
/// every answer whole (persist before parse), so a document cuts a longer
/// one and says so.
pub const EMBEDDED_ANSWER_MAX_BYTES: usize = 256 * 1024;

/// `raw`, an agent's answer, as a document copies it: whole, or its start
/// up to [`EMBEDDED_ANSWER_MAX_BYTES`] and a line saying how much is left
/// out and where it is whole.
pub fn embedded_answer(raw: &str) -> std::borrow::Cow<'_, str> {
    let kept = crate::text::head_bytes(raw, EMBEDDED_ANSWER_MAX_BYTES);
    if kept.len() == raw.len() {
        return raw.into();
    }
    format!(
        "{kept}\n[... {} more of this answer, not copied here: journal.jsonl holds it whole]\n",
        bytes((raw.len() - kept.len()) as u64)
    )
    .into()
}

/// A raw answer in a transcript under its `### ` heading, fenced as it
/// came ([`embedded_answer`]).
pub fn raw_md(heading: &str, raw: &str) -> String {
    format!(
        "### {heading}\n\n{}\n",
        fenced(&embedded_answer(raw), "text")
    )
}

/// A raw answer in a transcript under its call id and what it was:
/// ``### `c3` (the proposal)``.
pub fn answer_md(call_id: &str, what: &str, raw: &str) -> String {
    raw_md(&format!("`{call_id}` ({what})"), raw)
}

/// `count` of a thing, its noun in number: `1 change`, `3 changes`,
/// `0 items`.
pub fn counted(count: usize, one: &str, many: &str) -> String {
    match count {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

/// `analyst` → `Analyst`: a role or stage name as a title.
pub fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// `text` as a sentence: with a full stop at its end, unless it ends in
/// one already (or in `!` or `?`).
pub fn with_full_stop(text: &str) -> String {
    if text.ends_with(['.', '!', '?']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

/// `text` on one line with its pipes escaped, to stand in a cell of a
/// Markdown table.
pub fn table_cell(text: &str) -> String {
    one_line(text).replace('|', "\\|")
}

/// Collapses line breaks so a message stays one list item.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `1.2 s`.
pub fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// `$0.08`, or more digits for small amounts: `$0.0042`.
pub fn dollars(amount: f64) -> String {
    if amount >= 0.01 || amount == 0.0 {
        format!("${amount:.2}")
    } else {
        format!("${amount:.4}")
    }
}

/// `4 min 12 s`, `42 s`, `1 h 3 min`.
pub fn duration_words(ms: u64) -> String {
    let seconds = (ms + 500) / 1000;
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{} min {} s", seconds / 60, seconds % 60),
        _ => format!("{} h {} min", seconds / 3600, (seconds % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::thousands;

    /// A count reads as a person writes it, not `1 change(s)`.
    #[test]
    fn a_count_takes_its_noun_in_number() {
        assert_eq!(counted(1, "change", "changes"), "1 change");
        assert_eq!(counted(3, "change", "changes"), "3 changes");
        assert_eq!(counted(0, "item", "items"), "0 items");
    }

    #[test]
    fn nested_markdown_stays_inside_its_section() {
        let critique = "# Verdict\n\nIt holds.\n\n## Why\n\nSee <b>this</b> and <!-- hidden\n\
                        `<kbd>` stays, a < b stays.\n\n```html\n# not a heading\n<p>code</p>\n```\n\n\
                        Title\n=====\n\n    ####### seven\n\n~~~\nleft open";
        let nested = nested_markdown(critique, 2);
        assert!(nested.starts_with("### Verdict\n"), "{nested}");
        assert!(nested.contains("\n#### Why\n"), "{nested}");
        assert!(
            nested.contains("See &lt;b>this&lt;/b> and &lt;!-- hidden"),
            "{nested}"
        );
        assert!(nested.contains("`<kbd>` stays, a < b stays."), "{nested}");
        assert!(
            nested.contains("```html\n# not a heading\n<p>code</p>\n```\n"),
            "{nested}"
        );
        assert!(nested.contains("Title\n\\=====\n"), "{nested}");
        assert!(nested.contains("    ####### seven"), "{nested}");
        assert!(nested.ends_with("~~~\nleft open\n~~~\n"), "{nested}");
        let outside_fences = nested.split("```").step_by(2).collect::<String>();
        for line in outside_fences.lines().filter(|line| line.starts_with('#')) {
            assert!(line.starts_with("###"), "{line}");
        }
    }

    #[test]
    fn fences_outgrow_backtick_runs_in_untrusted_text() {
        let hostile = "before\n````\n# injected heading\n````\nafter";
        let block = fenced(hostile, "text");
        assert!(block.starts_with("`````text\n"));
        assert!(block.ends_with("\n`````\n"));
        for (text, fence) in [
            ("no backticks at all", "```"),
            ("é`ü``ß`", "```"),
            ("`x` then ``````", "```````"),
            ("ends in a run `````", "``````"),
            ("``````` first, then ``", "````````"),
        ] {
            let block = fenced(text, "");
            assert!(block.starts_with(&format!("{fence}\n")), "{text}: {block}");
            assert!(!block.starts_with(&format!("{fence}`")), "{text}: {block}");
        }
    }

    #[test]
    fn one_line_collapses_breaks() {
        assert_eq!(one_line("a\n b\r\n\tc"), "a b c");
    }

    #[test]
    fn figures_read_naturally() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(12_345), "12,345");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(dollars(0.0), "$0.00");
        assert_eq!(dollars(0.0842), "$0.08");
        assert_eq!(dollars(0.00421), "$0.0042");
        assert_eq!(dollars(12.5), "$12.50");
        assert_eq!(duration_words(42_400), "42 s");
        assert_eq!(duration_words(252_000), "4 min 12 s");
        assert_eq!(duration_words(3_780_000), "1 h 3 min");
    }
}
