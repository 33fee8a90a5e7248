//! Report helpers every protocol's documents share: timestamps, fenced
//! blocks for untrusted text, the event list of a transcript, usage tables
//! and lines, and the reader-first opening of a deliverable.
//!
//! Each protocol renders its own files in its own folder with these; nothing
//! here knows a protocol (the role words an opening must not carry come
//! from the registry). Not responsible for writing files (the engine
//! writes what [`crate::protocol::Protocol::documents`] returns, atomically)
//! or for deciding anything.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::protocol::registry;
use crate::protocol::usage::{Price, UsageLedger, UsageReport, UsageTotals};
use crate::protocol::{LogEntry, Timestamp};

/// `2026-11-30T12:00:01.234Z`: timestamps in the record.
pub fn timestamp(at: Timestamp) -> String {
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

/// What every transcript says of its list of events.
pub const EVERY_EVENT: &str = "Every event in order, timeouts, cancellations, retries and skips \
                               included, each with its call id.";

/// The opening of a transcript: its title, `about` (what ran and when,
/// ending in the space or paragraph break that comes before
/// [`EVERY_EVENT`]), then every event, one line each.
pub fn transcript_opening(topic: &str, about: &str, log: &[LogEntry]) -> String {
    format!(
        "# Transcript — {}\n\n{about}{EVERY_EVENT}\n\n## Events\n\n{}",
        one_line(topic),
        log_lines(log)
    )
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

/// The `meta:` block of a record whose mode names what it delivers (a quick
/// debate's, a writing review's): what ran, in which mode, about what,
/// when, and what it delivers.
#[derive(Debug, Serialize)]
pub struct ModeMeta {
    pub protocol: &'static str,
    pub mode: &'static str,
    pub topic: String,
    pub timestamp: String,
    pub deliverable: &'static str,
    /// What the debate was told to hold to (a quick adversary's
    /// constraints); left out when there is nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<String>,
}

/// A role slot and the agent that plays it, as a record's `participants:`
/// list them.
#[derive(Debug, Serialize, Deserialize)]
pub struct Participant {
    pub slot: String,
    pub agent: String,
}

impl Participant {
    /// `slot` and who plays it in `calls` (empty while nobody is known).
    pub fn of(calls: &crate::protocol::calls::Calls, slot: impl Into<String>) -> Participant {
        let slot = slot.into();
        let agent = calls.agent(&slot).unwrap_or_default().to_string();
        Participant { slot, agent }
    }
}

/// The `usage:` section: totals, per agent, per call, and the prices used.
#[derive(Debug, Serialize, Deserialize)]
pub struct UsageYaml {
    #[serde(flatten)]
    pub report: UsageReport,
    /// USD per million tokens, per `provider:model`, as configured for this run.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub prices: std::collections::BTreeMap<String, Price>,
}

impl UsageYaml {
    /// `None` until a call has finished.
    pub fn of(ledger: &UsageLedger) -> Option<UsageYaml> {
        (!ledger.calls().is_empty()).then(|| UsageYaml {
            report: ledger.report(),
            prices: ledger.prices().clone(),
        })
    }
}

/// The usage section of the transcript: one line per call, then per agent
/// and in total. Estimated token counts are marked `(est.)`.
pub fn usage_md(ledger: &UsageLedger) -> String {
    if ledger.calls().is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n## Usage\n\n| call | agent | tokens in | tokens out | first token | tok/s | time | cost |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for call in ledger.calls() {
        let marker = if call.estimated { " (est.)" } else { "" };
        let tokens = |count: Option<u64>| {
            count.map_or("—".to_string(), |count| {
                format!("{}{marker}", thousands(count))
            })
        };
        out.push_str(&format!(
            "| `{}` | `{}` | {} | {} | {} | {} | {} | {} |\n",
            call.call_id,
            call.agent,
            tokens(call.input_tokens),
            tokens(call.output_tokens),
            call.ttft_ms.map_or("—".to_string(), seconds),
            call.output_tokens_per_second
                .map_or("—".to_string(), |rate| format!("{rate:.0}")),
            seconds(call.elapsed_ms),
            call.cost_usd.map_or("—".to_string(), dollars)
        ));
    }
    out.push_str(
        "\n| agent | calls | tokens in | tokens out | cost | call time |\n|---|---|---|---|---|---|\n",
    );
    let row = |name: &str, totals: &UsageTotals| {
        let marker = if totals.estimated { " (est.)" } else { "" };
        format!(
            "| {name} | {} | {}{marker} | {}{marker} | {} | {} |\n",
            totals.calls,
            thousands(totals.input_tokens),
            thousands(totals.output_tokens),
            totals.cost_usd.map_or("—".to_string(), dollars),
            duration_words(totals.call_time_ms)
        )
    };
    for (agent, totals) in ledger.by_agent() {
        out.push_str(&row(&format!("`{agent}`"), &totals));
    }
    out.push_str(&row("**total**", &ledger.total()));
    out
}

/// `1.2 s`.
pub fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

pub use crate::text::{bytes, thousands};

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

/// The one usage line at the end of `summary.md`: `12,345 tokens in, 6,789
/// out · $0.08 · 4 min 12 s`.
pub fn usage_line(ledger: &UsageLedger, duration_ms: u64) -> Option<String> {
    if ledger.calls().is_empty() {
        return None;
    }
    let total = ledger.total();
    let mut parts = vec![format!(
        "{}{} tokens in, {} out{}",
        if total.estimated { "about " } else { "" },
        thousands(total.input_tokens),
        thousands(total.output_tokens),
        if total.estimated { " (estimated)" } else { "" }
    )];
    if let Some(cost) = total.cost_usd {
        let partial = if total.calls_without_price > 0 || total.calls_without_usage > 0 {
            " for the priced calls"
        } else {
            ""
        };
        parts.push(format!("{}{partial}", dollars(cost)));
    }
    parts.push(duration_words(duration_ms));
    Some(parts.join(" · "))
}

/// The transcript's section of what agents wrote besides their answers (a
/// local program's stderr); empty when there is none.
pub fn diagnostics_md(diagnostics: &[crate::protocol::calls::CallDiagnostic]) -> String {
    if diagnostics.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n## Diagnostics\n\nWhat agents wrote besides their answers (a local program's stderr).\n\n",
    );
    for diagnostic in diagnostics {
        out.push_str(&answer_md(
            &diagnostic.call_id,
            &timestamp(diagnostic.at),
            &diagnostic.text,
        ));
    }
    out
}

/// Each answer that could not be used, under its call id and why, as it
/// came: a transcript's part of the agents' outputs.
pub fn unusable_md(unusable: &[crate::protocol::calls::Unusable]) -> String {
    unusable
        .iter()
        .map(|unusable| {
            answer_md(
                &unusable.call_id,
                &format!("unusable: {}", one_line(&unusable.reason)),
                &unusable.raw,
            )
        })
        .collect()
}

/// How every transcript ends: what agents wrote besides their answers,
/// then what the calls cost.
pub fn calls_md(calls: &crate::protocol::calls::Calls) -> String {
    diagnostics_md(calls.diagnostics()) + &usage_md(calls.usage())
}

// ---- reader-first openings ------------------------------------------------------

/// Words that narrate the debate instead of its result and name no role:
/// the panel's judges, reviewers, scores. With the protocols' role words
/// ([`registry::role_words`]: a decision review's `proposer`, `critic`,
/// `oracle`, its judges' names), a reader-first opening carries none
/// (RF-06, RF-08).
const PROCESS_WORDS: &[&str] = &[
    "judge",
    "judges",
    "reviewer",
    "reviewers",
    "critics",
    "score",
    "scores",
    "scored",
];

/// [`PROCESS_WORDS`] and every protocol's role words, once.
fn provenance_words() -> &'static [&'static str] {
    static WORDS: OnceLock<Vec<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut words = registry::role_words();
        for word in PROCESS_WORDS {
            if !words.contains(word) {
                words.push(word);
            }
        }
        words
    })
}

/// Phrases that report one option discarded for another (RF-08).
const DISCARDED_PHRASES: &[&str] = &[
    "discarded in favour of",
    "discarded in favor of",
    "was discarded",
];

/// What in `opening` narrates the debate rather than its result: role
/// words (whole words, any case; a word the topic itself uses is allowed),
/// block ids such as `b2`, scores such as `4/5`, and discarded-in-favour
/// phrasing. Empty when the opening is reader-first.
pub fn provenance(opening: &str, topic: &str) -> Vec<String> {
    let topic_words: Vec<String> = words(topic).map(str::to_ascii_lowercase).collect();
    let mut found: Vec<String> = Vec::new();
    let mut note = |what: String| {
        if !found.contains(&what) {
            found.push(what);
        }
    };
    for word in words(opening) {
        let lower = word.to_ascii_lowercase();
        if provenance_words().contains(&lower.as_str()) && !topic_words.contains(&lower) {
            note(format!("`{word}`"));
        }
        let is_block_id = lower.len() >= 2
            && lower.starts_with('b')
            && lower[1..].bytes().all(|byte| byte.is_ascii_digit());
        if is_block_id && !topic_words.contains(&lower) {
            note(format!("the block id `{word}`"));
        }
    }
    for (index, _) in opening.match_indices("/5") {
        let before = opening[..index].chars().next_back();
        let after = opening[index + 2..].chars().next();
        if before.is_some_and(|c| c.is_ascii_digit()) && !after.is_some_and(|c| c.is_ascii_digit())
        {
            note("a score out of 5".to_string());
        }
    }
    let lower = opening.to_ascii_lowercase();
    if let Some(phrase) = DISCARDED_PHRASES
        .iter()
        .find(|phrase| lower.contains(*phrase))
    {
        note(format!("\"{phrase}\""));
    }
    found
}

/// The words of `text`: runs of letters, digits, `'` and `-`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .map(|word| word.trim_matches(['\'', '-']))
        .filter(|word| !word.is_empty())
}

#[cfg(test)]
mod tests {
    /// A count reads as a person writes it, not `1 change(s)`.
    #[test]
    fn a_count_takes_its_noun_in_number() {
        assert_eq!(super::counted(1, "change", "changes"), "1 change");
        assert_eq!(super::counted(3, "change", "changes"), "3 changes");
        assert_eq!(super::counted(0, "item", "items"), "0 items");
    }

    #[test]
    fn the_provenance_words_are_the_reviews_roles_and_the_process_words() {
        let mut words = super::provenance_words().to_vec();
        words.sort_unstable();
        let mut expected = vec![
            "aesthete",
            "stylist",
            "analyst",
            "strategist",
            "empiricist",
            "judge",
            "judges",
            "reviewer",
            "reviewers",
            "critic",
            "critics",
            "proposer",
            "oracle",
            "mephistopheles",
            "synthesizer",
            "score",
            "scores",
            "scored",
        ];
        expected.sort_unstable();
        assert_eq!(words, expected);
    }

    #[test]
    fn nested_markdown_stays_inside_its_section() {
        let critique = "# Verdict\n\nIt holds.\n\n## Why\n\nSee <b>this</b> and <!-- hidden\n\
                        `<kbd>` stays, a < b stays.\n\n```html\n# not a heading\n<p>code</p>\n```\n\n\
                        Title\n=====\n\n    ####### seven\n\n~~~\nleft open";
        let nested = super::nested_markdown(critique, 2);
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

    use super::*;

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
