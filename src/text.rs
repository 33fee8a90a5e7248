//! Making untrusted agent text inert before it reaches a terminal.
//!
//! Agent output may carry escape sequences that recolour, retitle, move the
//! cursor, write the clipboard (OSC 52) or fake hyperlinks (OSC 8), and bidi
//! controls that reorder what a reader sees. The cleaner keeps printable text
//! (wide and combining characters included) and newlines, expands tabs, and
//! drops every other control character, every escape sequence (CSI, OSC, DCS,
//! APC, PM, SOS, single-character escapes, in 7-bit and 8-bit C1 forms) and
//! the bidi controls.
//!
//! Recognising where a sequence ends is delegated to `vte`, the parser behind
//! Alacritty, so we agree with a real terminal about what a sequence is.
//! [`Sanitizer`] keeps the parser between chunks, so a sequence split across
//! two chunks of a stream is still recognised; [`sanitize`] is the one-shot
//! form. Neither decides how text is shown, and files on disk keep the raw
//! text: only what is displayed is cleaned.
//!
//! One departure from a terminal: a string sequence (OSC, DCS, SOS, PM,
//! APC) that is never terminated would swallow everything after it, so the
//! rest of an agent's answer would vanish from its pane. Here such a string
//! ends at a newline, or after [`MAX_STRING_SEQUENCE_BYTES`] bytes, and the
//! text after it shows again.

use std::fmt;

use unicode_width::UnicodeWidthChar;

/// Columns between tab stops: a tab moves to the next multiple of this.
pub const TAB_WIDTH_COLUMNS: usize = 4;

/// Bytes a string sequence (OSC, DCS, SOS, PM, APC) may hold after its
/// introducer before it is ended by force and the text after it shows: room
/// for a window title or a hyperlink's address, not for a hidden answer.
/// A newline ends such a string at once.
pub const MAX_STRING_SEQUENCE_BYTES: usize = 512;

/// CAN: to `vte`, from any state, the end of the sequence being read.
const CANCEL: u8 = 0x18;

/// Returns `input` with everything that could act on a terminal removed.
pub fn sanitize(input: &str) -> String {
    Sanitizer::new().push(input)
}

/// Whether `c` may be written to a terminal as it is: not a control
/// character (C0, DEL, C1) and not a bidi control.
pub fn is_displayable(c: char) -> bool {
    !c.is_control() && !is_bidi_control(c)
}

/// JSON for a terminal: serde_json escapes only U+0000–U+001F, so DEL, the
/// C1 controls (U+009B is CSI to many terminals) and the bidi controls are
/// written as `\uXXXX` escapes too. The result is the same JSON value.
pub fn terminal_safe_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if ('\u{7f}'..='\u{9f}').contains(&c) || is_bidi_control(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Longest stretch of quoted text an error message keeps.
const QUOTED_CHARS: usize = 40;

/// `message` with every double-quoted stretch longer than a few words cut
/// short, and a string value a YAML reader quotes (`invalid type: string
/// "…"`) left out altogether: an error about a file names what it refuses,
/// never what the file holds. A theme or configuration named by mistake
/// may be a key file or a password file, whose first words are the secret.
pub fn short_quotes(message: &str) -> String {
    static QUOTED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#""((?:[^"\\]|\\.)*)""#).expect("a valid pattern")
    });
    static STRING_VALUE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#"\bstring "(?:[^"\\]|\\.)*""#).expect("a valid pattern")
    });
    let message = STRING_VALUE.replace_all(message, "a string");
    QUOTED
        .replace_all(&message, |caps: &regex::Captures| {
            let inner = &caps[1];
            if inner.chars().count() <= QUOTED_CHARS {
                caps[0].to_string()
            } else {
                let cut: String = inner.chars().take(QUOTED_CHARS).collect();
                format!("\"{cut}…\"")
            }
        })
        .into_owned()
}

/// `text` as an error message quotes it: at most a few words, cut with `…`.
pub fn excerpt(text: &str) -> String {
    if text.chars().count() <= QUOTED_CHARS {
        text.to_string()
    } else {
        let cut: String = text.chars().take(QUOTED_CHARS).collect();
        format!("{cut}…")
    }
}

/// Characters of a value from a file or a flag that a listing or a
/// message shows before cutting it ([`clipped`]).
pub const SHOWN_VALUE_CHARS: usize = 80;

/// `text` to show in a listing or a message: whole up to
/// [`SHOWN_VALUE_CHARS`], else cut there with its length given
/// (`evaluation:2aaaa… (100,000 characters)`), so a value someone else
/// made long cannot flood a terminal or an error.
pub fn clipped(text: &str) -> String {
    let count = text.chars().count();
    if count <= SHOWN_VALUE_CHARS {
        return text.to_string();
    }
    let cut: String = text.chars().take(SHOWN_VALUE_CHARS).collect();
    format!(
        "{cut}… ({} characters)",
        crate::text::thousands(count as u64)
    )
}

/// The longest start of `text` that is at most `max_bytes` long and ends
/// between two characters.
pub fn head_bytes(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut cut = max_bytes;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    &text[..cut]
}

/// What stands in for a secret.
pub const REDACTED: &str = "[redacted]";

/// `text` with everything shaped like a secret masked: API keys (`sk-…`,
/// `sk-ant-…`, `ghp_…`, `AKIA…`, `AIza…`, `xox?-…`), a bearer token, the
/// value of a `*_KEY=`, `*_TOKEN=`, `*_SECRET=` or `*PASSWORD=` setting or
/// of an `api_key:`/`token:`/`password:` field, and the password of a URL
/// (`https://user:[redacted]@host`). Every error quorum prints goes through
/// it ([`for_stderr`]).
pub fn redact(text: &str) -> String {
    static PATTERNS: std::sync::LazyLock<Vec<(regex::Regex, &'static str)>> =
        std::sync::LazyLock::new(|| {
            [
                // URL credentials: keep the user, mask the password.
                (r"([A-Za-z][A-Za-z0-9+.\-]*://[^:/@\s]*):[^@/\s]*@", "$1:[redacted]@"),
                // KEY=value lines, as in a .env file.
                (
                    r#"(?i)\b([A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)[A-Z0-9_]*\s*=\s*)[^\s,;"'…]{4,}"#,
                    "$1[redacted]",
                ),
                // key: value fields.
                (
                    r#"(?i)\b((?:api[_-]?key|token|secret|password|passwd)\s*:\s*)["']?[^\s,;"'}]{8,}"#,
                    "$1[redacted]",
                ),
                (r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}", "$1[redacted]"),
                (r"\bsk-[A-Za-z0-9_-]{8,}", "[redacted]"),
                (r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{16,}", "[redacted]"),
                (r"\bxox[abprs]-[A-Za-z0-9-]{10,}", "[redacted]"),
                (r"\bAKIA[0-9A-Z]{16}\b", "[redacted]"),
                (r"\bAIza[0-9A-Za-z_-]{30,}", "[redacted]"),
            ]
            .into_iter()
            .map(|(pattern, replacement)| {
                (regex::Regex::new(pattern).expect("a valid pattern"), replacement)
            })
            .collect()
        });
    let mut out = text.to_string();
    for (pattern, replacement) in PATTERNS.iter() {
        out = pattern.replace_all(&out, *replacement).into_owned();
    }
    out
}

/// An error message as quorum prints it: secrets masked, long quotes cut,
/// and nothing that could act on a terminal.
pub fn for_stderr(message: &str) -> String {
    // Masked before it is cut, so a cut cannot hide a key from the mask.
    sanitize(&short_quotes(&redact(message)))
}

/// Text quorum writes into a Markdown file for people: everything that
/// could act on a terminal removed (so `cat summary.md` is safe), tabs
/// and newlines kept. Inside fenced code blocks (the raw answers quoted in
/// a transcript) nothing is removed: a control character is shown as its
/// picture (`␛`, `<U+202E>`), so the quote stays complete and inert. The
/// raw answers themselves are in the journal and the raw files, byte for
/// byte.
pub fn for_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<(char, usize)> = None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let marker = trimmed.chars().next().filter(|c| matches!(c, '`' | '~'));
        let run = marker.map_or(0, |c| trimmed.chars().take_while(|x| *x == c).count());
        match (fence, marker) {
            (None, Some(c)) if run >= 3 => {
                fence = Some((c, run));
                push_clean_line(&mut out, line);
                continue;
            }
            (Some((c, length)), Some(m))
                if m == c && run >= length && trimmed[run..].trim().is_empty() =>
            {
                fence = None;
                push_clean_line(&mut out, line);
                continue;
            }
            _ => {}
        }
        if fence.is_some() {
            push_pictured(&mut out, line);
        } else {
            push_clean_line(&mut out, line);
        }
    }
    out
}

/// Whether `body` (a line without its end) holds nothing but tabs and
/// displayable characters: then cleaning and picturing both leave it as it
/// is, and it is copied whole (most lines of most answers).
fn is_plain(body: &str) -> bool {
    // Printable ASCII or tab, checked 64 bytes at a time without a branch
    // per byte (so the compiler can use vector instructions).
    let printable = |byte: u8| (0x20..0x7f).contains(&byte) | (byte == b'\t');
    body.as_bytes().chunks(64).all(|chunk| {
        chunk
            .iter()
            .fold(true, |plain, &byte| plain & printable(byte))
    }) || body.chars().all(|c| c == '\t' || is_displayable(c))
}

/// Appends `line` with each control character but tab, line feed and
/// carriage return shown as a visible picture, and each bidi control by its
/// code.
fn push_pictured(out: &mut String, line: &str) {
    let (body, end) = match line.strip_suffix('\n') {
        Some(body) => match body.strip_suffix('\r') {
            Some(body) => (body, "\r\n"),
            None => (body, "\n"),
        },
        None => (line, ""),
    };
    if is_plain(body) {
        out.push_str(body);
    } else {
        for c in body.chars() {
            match c {
                '\t' => out.push(c),
                '\u{0}'..='\u{1f}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?')),
                '\u{7f}' => out.push('\u{2421}'),
                _ if !is_displayable(c) => out.push_str(&format!("<U+{:04X}>", c as u32)),
                _ => out.push(c),
            }
        }
    }
    out.push_str(end);
}

/// Appends one line without escape sequences, control or bidi characters;
/// tabs and the line end kept.
fn push_clean_line(out: &mut String, line: &str) {
    let (body, end) = match line.strip_suffix('\n') {
        Some(body) => (body.strip_suffix('\r').unwrap_or(body), "\n"),
        None => (line, ""),
    };
    if is_plain(body) {
        out.push_str(body);
    } else {
        for (index, piece) in body.split('\t').enumerate() {
            if index > 0 {
                out.push('\t');
            }
            out.push_str(&sanitize(piece));
        }
    }
    out.push_str(end);
}

fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// A streaming cleaner: feed it chunks in order and concatenate what it
/// returns. The output equals [`sanitize`] of the whole input however the
/// input was split, because the escape parser and the tab column carry over
/// from one chunk to the next.
#[derive(Default)]
pub struct Sanitizer {
    parser: vte::Parser,
    column: usize,
    /// Where the parser stands with respect to string sequences.
    strings: StringTracker,
    /// The chunk being fed, with 8-bit C1 controls rewritten to their 7-bit
    /// form and string sequences cut where they overstay; kept to reuse its
    /// allocation.
    seven_bit: Vec<u8>,
}

/// Follows, byte by byte, whether `vte` is inside a string sequence, by the
/// same transitions `vte` makes (VT500 state machine): every ESC enters the
/// escape state; from there `]` opens an OSC, `P` a DCS, `X`, `^` and `_` an
/// SOS, PM or APC; CAN, SUB and ESC end any string, BEL ends an OSC.
/// `vte` also ends a DCS payload at a lone 0x9C byte (here, inside a UTF-8
/// character); that is not followed, and does no harm: the tracker then
/// stays in its string a while longer, and a CAN it adds reaches `vte`
/// outside any sequence, where it is dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum StringTracker {
    /// Printing text, or inside a sequence that is not a string.
    #[default]
    Outside,
    /// Just after ESC (or an ESC followed by controls it executes).
    Escape,
    /// Inside a string sequence, with `bytes` of it read so far.
    InString { osc: bool, bytes: usize },
}

impl StringTracker {
    /// Takes `byte` into account; returns true when a string sequence must
    /// be ended before it (by a newline, or by its length).
    fn cuts_before(&mut self, byte: u8) -> bool {
        match *self {
            StringTracker::Outside => {
                if byte == 0x1b {
                    *self = StringTracker::Escape;
                }
                false
            }
            StringTracker::Escape => {
                *self = match byte {
                    b']' => StringTracker::InString {
                        osc: true,
                        bytes: 0,
                    },
                    b'P' | b'X' | b'^' | b'_' => StringTracker::InString {
                        osc: false,
                        bytes: 0,
                    },
                    // Executed or ignored without leaving the escape state.
                    0x00..=0x17 | 0x19 | 0x1b..=0x1f | 0x7f..=0xff => StringTracker::Escape,
                    _ => StringTracker::Outside,
                };
                false
            }
            StringTracker::InString { osc, bytes } => {
                match byte {
                    0x1b => *self = StringTracker::Escape,
                    0x18 | 0x1a => *self = StringTracker::Outside,
                    0x07 if osc => *self = StringTracker::Outside,
                    b'\n' => {
                        *self = StringTracker::Outside;
                        return true;
                    }
                    // Never cut inside a character: a UTF-8 continuation
                    // byte stays with the bytes before it.
                    0x80..=0xbf => {
                        *self = StringTracker::InString {
                            osc,
                            bytes: bytes + 1,
                        }
                    }
                    _ if bytes >= MAX_STRING_SEQUENCE_BYTES => {
                        *self = StringTracker::Outside;
                        return true;
                    }
                    _ => {
                        *self = StringTracker::InString {
                            osc,
                            bytes: bytes + 1,
                        }
                    }
                }
                false
            }
        }
    }
}

impl fmt::Debug for Sanitizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sanitizer")
            .field("column", &self.column)
            .finish_non_exhaustive()
    }
}

impl Sanitizer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Cleans the next chunk of a stream.
    pub fn push(&mut self, chunk: &str) -> String {
        // vte only knows the 7-bit forms of the C1 controls (ESC + 0x40..0x5F);
        // a C1 character arrives here as UTF-8, so rewrite it as that pair.
        // A string sequence that overstays is ended with CAN, which `vte`
        // takes from any state as the end of the sequence and then executes
        // (the printer drops it), so the byte after it is printed as text.
        self.seven_bit.clear();
        // Most chunks hold no escape and no C1 control (whose UTF-8 starts
        // with 0xC2), and start outside any string sequence: then every
        // byte goes through as it is and the tracker stays outside.
        if self.strings == StringTracker::Outside && !chunk.bytes().any(|b| b == 0x1b || b == 0xc2)
        {
            self.seven_bit.extend_from_slice(chunk.as_bytes());
        } else {
            self.push_seven_bit(chunk);
        }
        let mut printer = Printer {
            out: String::with_capacity(chunk.len()),
            column: self.column,
        };
        self.parser.advance(&mut printer, &self.seven_bit);
        self.column = printer.column;
        printer.out
    }

    /// Appends `chunk` to `seven_bit` with its C1 controls in their 7-bit
    /// form and overstaying string sequences cut.
    fn push_seven_bit(&mut self, chunk: &str) {
        for c in chunk.chars() {
            let mut utf8 = [0u8; 4];
            let bytes: &[u8] = match c {
                '\u{80}'..='\u{9f}' => {
                    utf8[0] = 0x1b;
                    utf8[1] = c as u8 - 0x40;
                    &utf8[..2]
                }
                c => c.encode_utf8(&mut utf8).as_bytes(),
            };
            for &byte in bytes {
                if self.strings.cuts_before(byte) {
                    self.seven_bit.push(CANCEL);
                }
                self.seven_bit.push(byte);
            }
        }
    }
}

/// Receives what the parser recognised and keeps only what is inert.
struct Printer {
    out: String,
    column: usize,
}

impl vte::Perform for Printer {
    fn print(&mut self, c: char) {
        if is_displayable(c) {
            self.out.push(c);
            self.column += c.width().unwrap_or(0);
        }
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' => {
                self.out.push('\n');
                self.column = 0;
            }
            b'\t' => {
                let spaces = TAB_WIDTH_COLUMNS - self.column % TAB_WIDTH_COLUMNS;
                self.out.extend(std::iter::repeat_n(' ', spaces));
                self.column += spaces;
            }
            // `\r\n` becomes `\n` and a lone `\r` is dropped: dropping every
            // `\r` does both. Every other control is dropped too.
            _ => {}
        }
    }
}

/// `12,345`.
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `1.5 MiB`, `300 KiB`, `12 bytes`.
pub fn bytes(size: u64) -> String {
    const KIB: f64 = 1024.0;
    let value = size as f64;
    if value >= KIB * KIB * KIB {
        format!("{:.1} GiB", value / (KIB * KIB * KIB))
    } else if value >= KIB * KIB {
        let mib = value / (KIB * KIB);
        if mib.fract() == 0.0 {
            format!("{mib:.0} MiB")
        } else {
            format!("{mib:.1} MiB")
        }
    } else if value >= KIB {
        format!("{:.0} KiB", value / KIB)
    } else {
        format!("{size} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_for_a_terminal_escapes_c1_and_bidi_and_stays_the_same_value() {
        let value = serde_json::json!({"rule": "b1\u{9b}2J \u{202e}evil\u{7f} ok"});
        let raw = serde_json::to_string(&value).unwrap();
        let safe = terminal_safe_json(&raw);
        assert!(
            !safe.chars().any(|c| c.is_control() || is_bidi_control(c)),
            "{safe}"
        );
        assert!(
            safe.contains("\\u009b") && safe.contains("\\u202e"),
            "{safe}"
        );
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, value);
    }
    use proptest::prelude::*;

    #[test]
    fn secrets_are_masked_wherever_they_stand() {
        const CANARY: &str = "sk-canary-0f1e2d3c4b5a69788796a5b4c3d2e1f0";
        for text in [
            format!("OPENAI_API_KEY={CANARY}"),
            format!("unknown provider `{CANARY}`"),
            format!("roles: {{default: {CANARY}}}"),
            format!("api_key: \"{CANARY}\""),
            format!("Authorization: Bearer {CANARY}"),
            format!("https://user:{CANARY}@example.com/v1"),
            format!("ftp://me:{CANARY}@host"),
        ] {
            let masked = redact(&text);
            assert!(!masked.contains("0f1e2d3c4b5a"), "{text} → {masked}");
            assert!(masked.contains(REDACTED), "{masked}");
        }
        assert_eq!(redact("https://user:pw@h/x"), "https://user:[redacted]@h/x");
        assert_eq!(redact("nothing secret: a topic"), "nothing secret: a topic");
        assert_eq!(
            redact("ANTHROPIC_API_KEY is not set"),
            "ANTHROPIC_API_KEY is not set"
        );
    }

    #[test]
    fn long_quotes_are_cut_in_messages() {
        let message = format!(
            "invalid type: string \"{}\", expected a map",
            "root:x:0:0".repeat(20)
        );
        // A string value is the file's own text: it is not quoted at all.
        assert_eq!(
            short_quotes(&message),
            "invalid type: a string, expected a map"
        );
        let long = format!("unknown key \"{}\"", "word".repeat(20));
        let short = short_quotes(&long);
        assert!(short.len() < 60, "{short}");
        assert!(short.ends_with("…\""), "{short}");
        assert_eq!(short_quotes("found \"idea\""), "found \"idea\"");
    }

    #[test]
    fn markdown_for_people_is_made_inert_but_fences_are_kept() {
        let text = "# Topic \u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2J\nNote\twith a tab\u{7}\n```text\nraw \u{1b}[31mred\n```\nafter \u{202e}x\n";
        let clean = for_markdown(text);
        assert_eq!(
            clean,
            "# Topic \nNote\twith a tab\n```text\nraw \u{241b}[31mred\n```\nafter x\n"
        );
    }

    #[test]
    fn keeps_printable_text_and_newlines() {
        assert_eq!(sanitize("héllo\nwörld ✓"), "héllo\nwörld ✓");
    }

    #[test]
    fn keeps_wide_and_combining_characters() {
        assert_eq!(sanitize("漢字 e\u{301} 👩‍💻"), "漢字 e\u{301} 👩‍💻");
    }

    #[test]
    fn expands_tabs_to_the_next_stop() {
        assert_eq!(sanitize("a\tb"), "a   b");
        assert_eq!(sanitize("\tx"), "    x");
        assert_eq!(sanitize("abcd\tx"), "abcd    x");
        assert_eq!(sanitize("a\nb\tc"), "a\nb   c");
    }

    #[test]
    fn tab_stops_count_display_width() {
        // 漢 is two columns wide: the tab after it moves two more columns.
        assert_eq!(sanitize("漢\tx"), "漢  x");
        assert_eq!(sanitize("e\u{301}\tx"), "e\u{301}   x");
    }

    #[test]
    fn tab_column_carries_across_chunks() {
        let mut sanitizer = Sanitizer::new();
        let mut out = sanitizer.push("ab");
        out.push_str(&sanitizer.push("\tc"));
        assert_eq!(out, "ab  c");
    }

    #[test]
    fn carriage_returns_are_normalised() {
        assert_eq!(sanitize("one\r\ntwo\rthree\r"), "one\ntwothree");
    }

    /// Hostile inputs and what must be left of them.
    const HOSTILE_CORPUS: &[(&str, &str)] = &[
        ("\u{1b}[31mred\u{1b}[0m", "red"),
        ("\u{1b}[38;2;255;0;0mtrue colour\u{1b}[m", "true colour"),
        ("\u{1b}[2J\u{1b}[Hhome", "home"),
        ("\u{1b}[?1049hscreen\u{1b}[?1049l", "screen"),
        ("\u{1b}[10;20Hmoved", "moved"),
        ("\u{1b}[6n?", "?"),
        ("\u{1b}]0;title\u{07}after", "after"),
        ("\u{1b}]2;title\u{1b}\\after", "after"),
        ("\u{1b}]52;c;ZXZpbA==\u{07}clip", "clip"),
        ("\u{1b}]52;c;ZXZpbA==\u{1b}\\clip", "clip"),
        (
            "\u{1b}]8;;http://evil\u{1b}\\link\u{1b}]8;;\u{1b}\\",
            "link",
        ),
        ("\u{1b}]8;;http://evil\u{07}link\u{1b}]8;;\u{07}", "link"),
        ("\u{1b}P1;2qsixel\u{1b}\\x", "x"),
        ("\u{1b}P$qm\u{1b}\\decrqss", "decrqss"),
        ("\u{1b}_apc payload\u{1b}\\y", "y"),
        ("\u{1b}^privacy message\u{1b}\\pm", "pm"),
        ("\u{1b}Xstart of string\u{1b}\\sos", "sos"),
        ("\u{9b}2Jcleared", "cleared"),
        ("\u{9b}31mc1 red", "c1 red"),
        ("\u{9d}0;t\u{9c}z", "z"),
        ("\u{9d}52;c;ZXZpbA==\u{07}c1 clip", "c1 clip"),
        ("\u{90}1qdcs\u{9c}after", "after"),
        ("\u{9f}apc\u{9c}after", "after"),
        ("\u{9e}pm\u{9c}after", "after"),
        ("\u{98}sos\u{9c}after", "after"),
        ("\u{85}nel\u{84}ind", "nelind"),
        ("a\u{202e}b\u{2066}c\u{2069}d", "abcd"),
        (
            "\u{200e}l\u{200f}r\u{061c}a\u{202a}\u{202b}\u{202c}\u{202d}\u{2067}\u{2068}",
            "lra",
        ),
        ("bell\u{07}\u{08}\r!", "bell!"),
        ("nul\u{0}del\u{7f}vt\u{0b}ff\u{0c}", "nuldelvtff"),
        ("\u{1b}(0line", "line"),
        ("\u{1b}7saved\u{1b}8", "saved"),
        ("\u{1b}cfull reset", "full reset"),
        ("\u{1b}#8align", "align"),
        ("\u{1b}[31\nmid", "\nid"),
        ("ok\u{1b}[", "ok"),
        ("ok\u{1b}]never ends", "ok"),
        ("\u{1b}[1;31m漢字\u{1b}[0m\tx", "漢字    x"),
        ("\u{1b}\u{1b}[31mdouble", "double"),
        ("can\u{1b}[31\u{18}cel", "cancel"),
        // String sequences never terminated end at a newline.
        ("\u{1b}]0;title\nnext", "\nnext"),
        ("\u{1b}]8;;http://evil\nlink", "\nlink"),
        ("\u{1b}P1;2qsixel\nnext", "\nnext"),
        ("\u{1b}_apc\nnext", "\nnext"),
        ("\u{9d}52;c;ZXZpbA==\nc1 osc", "\nc1 osc"),
        ("\u{90}1qdcs\nc1 dcs", "\nc1 dcs"),
        ("\u{98}sos\r\nafter", "\nafter"),
    ];

    #[test]
    fn drops_hostile_sequences() {
        for (hostile, expected) in HOSTILE_CORPUS {
            assert_eq!(sanitize(hostile), *expected, "input {hostile:?}");
        }
    }

    #[test]
    fn hostile_sequences_split_anywhere_give_the_one_shot_result() {
        for (hostile, expected) in HOSTILE_CORPUS {
            let boundaries: Vec<usize> = hostile
                .char_indices()
                .map(|(at, _)| at)
                .chain([hostile.len()])
                .collect();
            for &split in &boundaries {
                let mut sanitizer = Sanitizer::new();
                let mut out = sanitizer.push(&hostile[..split]);
                out.push_str(&sanitizer.push(&hostile[split..]));
                assert_eq!(out, *expected, "input {hostile:?} split at byte {split}");
            }
            // One character per chunk: every boundary at once.
            let mut sanitizer = Sanitizer::new();
            let out: String = hostile
                .chars()
                .map(|c| sanitizer.push(c.encode_utf8(&mut [0; 4])))
                .collect();
            assert_eq!(out, *expected, "input {hostile:?} fed one char at a time");
        }
    }

    #[test]
    fn unterminated_sequences_swallow_only_themselves() {
        assert_eq!(sanitize("ok\u{1b}["), "ok");
        assert_eq!(sanitize("ok\u{1b}]never ends"), "ok");
        assert_eq!(sanitize("ok\u{1b}[31"), "ok");
    }

    #[test]
    fn an_unterminated_string_sequence_ends_at_a_newline() {
        let answer = "Intro\u{1b}]8;;http://evil/never-closed\nblocks:\n  - id: b1\n";
        assert_eq!(sanitize(answer), "Intro\nblocks:\n  - id: b1\n");
        assert_eq!(sanitize("a\u{1b}P$q never closed\nb\u{90}q\nc"), "a\nb\nc");
        // A string terminated on its own line is swallowed as before.
        assert_eq!(sanitize("a\u{1b}]0;title\u{7}b\nc"), "ab\nc");
    }

    #[test]
    fn an_unterminated_string_sequence_ends_after_the_length_limit() {
        let payload = "x".repeat(MAX_STRING_SEQUENCE_BYTES);
        for introducer in ["\u{1b}]", "\u{1b}P", "\u{1b}_", "\u{9d}", "\u{90}"] {
            let text = format!("before {introducer}{payload}after");
            assert_eq!(sanitize(&text), "before after", "{introducer:?}");
        }
        // A terminated string of any length stays hidden up to the limit,
        // and what overstays it is shown rather than lost.
        let long = "y".repeat(MAX_STRING_SEQUENCE_BYTES + 3);
        assert_eq!(sanitize(&format!("\u{1b}]{long}\u{7}z")), "yyyz");
    }

    #[test]
    fn the_length_limit_never_cuts_a_character_in_two() {
        let payload = "x".repeat(MAX_STRING_SEQUENCE_BYTES - 1);
        let text = format!("\u{1b}]{payload}é漢after");
        assert_eq!(sanitize(&text), "漢after");
    }

    #[test]
    fn an_unterminated_string_split_across_pushes_ends_where_it_would_in_one() {
        let mut sanitizer = Sanitizer::new();
        let pieces = ["pre\u{1b}", "]52;c;ZXZp", "bA==", "\nafter \u{9d}0;", "t"];
        let out: String = pieces.iter().map(|piece| sanitizer.push(piece)).collect();
        assert_eq!(out, "pre\nafter ");
        assert_eq!(out, sanitize(&pieces.concat()));

        let text = format!(
            "a\u{1b}P{}b\u{1b}]{}\nc",
            "q".repeat(3 * MAX_STRING_SEQUENCE_BYTES),
            "z".repeat(100)
        );
        for piece_len in [1, 7, 100, MAX_STRING_SEQUENCE_BYTES, 1000] {
            let mut sanitizer = Sanitizer::new();
            let chars: Vec<char> = text.chars().collect();
            let out: String = chars
                .chunks(piece_len)
                .map(|piece| sanitizer.push(&piece.iter().collect::<String>()))
                .collect();
            assert_eq!(out, sanitize(&text), "pieces of {piece_len}");
        }
        let shown = "q".repeat(2 * MAX_STRING_SEQUENCE_BYTES);
        assert_eq!(sanitize(&text), format!("a{shown}b\nc"));
    }

    fn displayable_or_newline() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            any::<char>().prop_filter("displayable", |&c| c == '\n' || is_displayable(c)),
            0..64,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    /// Texts of fewer than `most` pieces, each one of `fixed`, a run of
    /// ASCII that `ascii` matches, or up to six of any character; every fixed
    /// piece is as likely as either run.
    fn pieces(
        fixed: Vec<String>,
        ascii: &'static str,
        most: usize,
    ) -> impl Strategy<Value = String> {
        let weight = fixed.len() as u32;
        proptest::collection::vec(
            prop_oneof![
                weight => proptest::sample::select(fixed),
                1 => ascii,
                1 => ".{0,6}",
            ],
            0..most,
        )
        .prop_map(|pieces| pieces.concat())
    }

    /// Plain text with escape-sequence fragments and controls mixed in.
    fn hostile_text() -> impl Strategy<Value = String> {
        let mut fixed = [
            "\u{1b}", "\u{1b}[", "\u{1b}]", "\u{1b}P", "\u{1b}\\", "\u{07}", "\u{9b}", "\u{9c}",
            "\u{9d}", "\r", "\t",
        ]
        .map(String::from)
        .to_vec();
        // Near the length limit of a string sequence.
        fixed.push("x".repeat(MAX_STRING_SEQUENCE_BYTES - 1));
        pieces(fixed, "[\\x00-\\x7f]{0,4}", 24)
    }

    proptest! {
        #[test]
        fn output_is_always_inert(hostile in hostile_text()) {
            let out = sanitize(&hostile);
            prop_assert!(!out.contains('\u{1b}'), "{out:?}");
            prop_assert!(
                out.chars().all(|c| c == '\n' || is_displayable(c)),
                "{out:?}"
            );
        }

        #[test]
        fn printable_text_passes_unchanged(text in displayable_or_newline()) {
            prop_assert_eq!(sanitize(&text), text);
        }

        #[test]
        fn chunking_never_changes_the_result(input in hostile_text(), cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..6)) {
            let boundaries: Vec<usize> = input.char_indices().map(|(at, _)| at).collect();
            let mut splits: Vec<usize> = cuts
                .iter()
                .filter(|_| !boundaries.is_empty())
                .map(|cut| boundaries[cut.index(boundaries.len())])
                .collect();
            splits.sort_unstable();
            splits.dedup();
            let mut sanitizer = Sanitizer::new();
            let mut out = String::new();
            let mut from = 0;
            for split in splits.into_iter().chain([input.len()]) {
                out.push_str(&sanitizer.push(&input[from..split]));
                from = split;
            }
            prop_assert_eq!(out, sanitize(&input));
        }
    }

    /// `for_markdown` as it was before lines without controls were copied
    /// whole: every line cleaned or pictured character by character.
    fn for_markdown_by_character(text: &str) -> String {
        fn pictured(line: &str) -> String {
            let (body, end) = match line.strip_suffix('\n') {
                Some(body) => match body.strip_suffix('\r') {
                    Some(body) => (body, "\r\n"),
                    None => (body, "\n"),
                },
                None => (line, ""),
            };
            let shown: String = body
                .chars()
                .map(|c| match c {
                    '\t' => c.to_string(),
                    '\u{0}'..='\u{1f}' => {
                        char::from_u32(0x2400 + c as u32).unwrap_or('?').to_string()
                    }
                    '\u{7f}' => "\u{2421}".to_string(),
                    _ if !is_displayable(c) => format!("<U+{:04X}>", c as u32),
                    _ => c.to_string(),
                })
                .collect();
            format!("{shown}{end}")
        }
        fn clean_line(line: &str) -> String {
            let (body, end) = match line.strip_suffix('\n') {
                Some(body) => (body.strip_suffix('\r').unwrap_or(body), "\n"),
                None => (line, ""),
            };
            let cleaned: String = body
                .split('\t')
                .map(sanitize)
                .collect::<Vec<_>>()
                .join("\t");
            format!("{cleaned}{end}")
        }
        let mut out = String::new();
        let mut fence: Option<(char, usize)> = None;
        for line in text.split_inclusive('\n') {
            let trimmed = line.trim_start();
            let marker = trimmed.chars().next().filter(|c| matches!(c, '`' | '~'));
            let run = marker.map_or(0, |c| trimmed.chars().take_while(|x| *x == c).count());
            match (fence, marker) {
                (None, Some(c)) if run >= 3 => {
                    fence = Some((c, run));
                    out.push_str(&clean_line(line));
                    continue;
                }
                (Some((c, length)), Some(m))
                    if m == c && run >= length && trimmed[run..].trim().is_empty() =>
                {
                    fence = None;
                    out.push_str(&clean_line(line));
                    continue;
                }
                _ => {}
            }
            if fence.is_some() {
                out.push_str(&pictured(line));
            } else {
                out.push_str(&clean_line(line));
            }
        }
        out
    }

    fn markdown_with_fences_and_controls() -> impl Strategy<Value = String> {
        let fixed = [
            "```text\n",
            "~~~~\n",
            "```\n",
            "\n",
            "\r\n",
            "\t",
            "\u{1b}[31m",
            "\u{202e}",
            "\u{9b}",
            "\u{7f}",
            "## heading **bold** `code` é 中",
        ];
        pieces(fixed.map(String::from).to_vec(), "[\\x00-\\x7f]{0,6}", 32)
    }

    proptest! {
        #[test]
        fn plain_lines_copied_whole_change_nothing(text in markdown_with_fences_and_controls()) {
            prop_assert_eq!(for_markdown(&text), for_markdown_by_character(&text));
        }
    }
}
