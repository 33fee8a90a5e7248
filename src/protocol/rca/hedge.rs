//! Hedge words in a debugger's argument (RC-10, RULES.md A29).
//!
//! A claim that says "likely" or "appears to" has not been shown. quorum
//! flags every such word in what a debugger asserts (its hypothesis's claim
//! and reasoning, its answers to challenges) so the critic sees them in its
//! prompt and the moderator on the board; the critic's own questions may use
//! them. A final recommendation that hedges is refused (RC-16).
//!
//! How a hit is counted: whole words, any case (`Likely`, `PROBABLY`); the
//! two-word forms (`appears to`, `seems to`) with any spacing. Not counted:
//! text in quotes (`"might"`, ‘could’, “maybe”) or in code (`` `x` ``,
//! fenced blocks), since a quoted log line or an error message states what
//! was observed; and `could not` / `couldn't` / `could never`, which report
//! a failed attempt ("we could not reproduce it"), not a guess.

/// The hedge words, in the order quorum reports them.
pub const HEDGE_WORDS: [&str; 8] = [
    "likely",
    "maybe",
    "possibly",
    "probably",
    "might",
    "could",
    "appears to",
    "seems to",
];

/// The hedge words `text` uses outside quotes and code, each once, in the
/// order of [`HEDGE_WORDS`].
pub fn hedges(text: &str) -> Vec<&'static str> {
    let words = words_outside_quotes(text);
    HEDGE_WORDS
        .iter()
        .copied()
        .filter(|hedge| uses(&words, hedge))
        .collect()
}

/// Whether the lowercased `words` contain `hedge` (one or two words).
fn uses(words: &[String], hedge: &str) -> bool {
    let parts: Vec<&str> = hedge.split(' ').collect();
    words.windows(parts.len()).enumerate().any(|(at, window)| {
        if window.iter().zip(&parts).any(|(word, part)| word != part) {
            return false;
        }
        // "could not reproduce" reports a failed attempt, not a guess.
        !(hedge == "could"
            && matches!(words.get(at + 1).map(String::as_str), Some("not" | "never")))
    })
}

/// The words of `text`, lowercased, leaving out everything between quotes
/// or backticks. `couldn't` is one word, `could` `not`.
fn words_outside_quotes(text: &str) -> Vec<String> {
    let visible = strip_quoted(text);
    let mut words = Vec::new();
    for raw in visible.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’')) {
        let word = raw.trim_matches(|c| c == '\'' || c == '’').to_lowercase();
        if word.is_empty() {
            continue;
        }
        match word
            .strip_suffix("n't")
            .or_else(|| word.strip_suffix("n’t"))
        {
            Some(stem) => {
                words.push(stem.to_string());
                words.push("not".to_string());
            }
            None => words.push(word),
        }
    }
    words
}

/// `text` with quoted spans and code replaced by spaces: fenced blocks
/// (```` ``` ```` or `~~~`), backtick spans, and text in double quotes or
/// curly quotes. An apostrophe inside a word (`didn't`) is not a quote; a
/// single-quoted span is one that opens after a non-letter and closes
/// before one.
fn strip_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            out.push('\n');
            continue;
        }
        if in_fence {
            out.push('\n');
            continue;
        }
        out.push_str(&strip_inline(line));
        out.push('\n');
    }
    out
}

/// One line with its backtick spans and quoted spans blanked.
fn strip_inline(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        let closing = match c {
            '`' => Some('`'),
            '"' => Some('"'),
            '“' => Some('”'),
            '‘' => Some('’'),
            '\'' if index == 0 || !chars[index - 1].is_alphanumeric() => Some('\''),
            _ => None,
        };
        let end = closing.and_then(|close| {
            chars[index + 1..]
                .iter()
                .enumerate()
                .find(|(offset, candidate)| {
                    **candidate == close
                        && (close != '\''
                            || chars
                                .get(index + 1 + offset + 1)
                                .is_none_or(|next| !next.is_alphanumeric()))
                })
                .map(|(offset, _)| index + 1 + offset)
        });
        match end {
            Some(end) => {
                out.push(' ');
                index = end + 1;
            }
            None => {
                out.push(c);
                index += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A29: whole words, any case, each reported once.
    #[test]
    fn rc_10_a29_hedges_are_whole_words_in_any_case() {
        assert_eq!(hedges("The pool was LIKELY exhausted."), ["likely"]);
        assert_eq!(
            hedges("It probably, possibly, maybe happened; it might again."),
            ["maybe", "possibly", "probably", "might"]
        );
        assert_eq!(
            hedges("The cache appears  to miss and seems to\nthrash."),
            ["appears to", "seems to"]
        );
        assert_eq!(hedges("Likely. Likely!"), ["likely"]);
        // Not whole words.
        assert!(hedges("The likelihood is measured; mighty servers; unlikely.").is_empty());
        assert!(hedges("It appears in the log; it seems fine.").is_empty());
    }

    /// A29: quoted text and code are what was observed, not the claim.
    #[test]
    fn rc_10_a29_quotes_and_code_are_not_the_claim() {
        assert!(hedges("The log says \"retry might succeed\" at 14:02.").is_empty());
        assert!(hedges("The alert read “possibly degraded” and ‘maybe later’.").is_empty());
        assert!(hedges("The handler returns `maybe_retry()` on timeout.").is_empty());
        assert!(
            hedges("Trace:\n```\nwarn: could be slow\n```\nThe call blocked for 1.8 s.").is_empty()
        );
        assert!(hedges("The flag 'might_block' is set in config.").is_empty());
        // An apostrophe in a word opens no quote.
        assert_eq!(
            hedges("It didn't fail; it's probably the pool."),
            ["probably"]
        );
        // A quote that never closes hides nothing.
        assert_eq!(hedges("He said \"this could be it"), ["could"]);
    }

    /// A29: "could not reproduce" reports a failed attempt.
    #[test]
    fn rc_10_a29_could_not_is_a_result_not_a_guess() {
        assert!(hedges("We could not reproduce it on staging.").is_empty());
        assert!(hedges("We couldn't reproduce it; it could never fire twice.").is_empty());
        assert_eq!(hedges("It could be the pool."), ["could"]);
        assert_eq!(hedges("It might not be the pool."), ["might"]);
    }
}
