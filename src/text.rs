//! Making untrusted agent text inert before it reaches a terminal.
//!
//! Agent output may carry escape sequences that recolour, retitle, move the
//! cursor, write the clipboard (OSC 52) or fake hyperlinks (OSC 8), and bidi
//! controls that reorder what a reader sees. [`sanitize`] keeps printable text
//! and newlines, expands tabs, and drops every other control character, every
//! escape sequence (CSI, OSC, DCS, APC, PM, SOS, in 7-bit and C1 forms) and
//! the bidi controls. Files on disk keep the raw text; only display is cleaned.

use std::iter::Peekable;
use std::str::Chars;

/// Columns a tab expands to.
pub const TAB_WIDTH_COLUMNS: usize = 4;

/// Returns `input` with everything that could act on a terminal removed.
pub fn sanitize(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    let mut column = 0usize;
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => {
                out.push('\n');
                column = 0;
            }
            '\t' => {
                let spaces = TAB_WIDTH_COLUMNS - column % TAB_WIDTH_COLUMNS;
                out.extend(std::iter::repeat_n(' ', spaces));
                column += spaces;
            }
            '\u{1b}' => skip_escape(&mut chars),
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            c if c.is_control() || is_bidi_control(c) => {}
            c => {
                out.push(c);
                column += 1;
            }
        }
    }
    out
}

fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

fn skip_escape(chars: &mut Peekable<Chars<'_>>) {
    match chars.next() {
        Some('[') => skip_csi(chars),
        Some(']' | 'P' | '_' | '^' | 'X') => skip_string(chars),
        Some(c) if ('\u{20}'..='\u{2f}').contains(&c) => {
            // nF escape: intermediates, then one final byte.
            while let Some(&next) = chars.peek() {
                chars.next();
                if !('\u{20}'..='\u{2f}').contains(&next) {
                    break;
                }
            }
        }
        _ => {}
    }
}

fn skip_csi(chars: &mut Peekable<Chars<'_>>) {
    for c in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&c) || !('\u{20}'..='\u{7e}').contains(&c) {
            break;
        }
    }
}

/// Skips an OSC / DCS / APC / PM / SOS body up to BEL, ST (`ESC \`) or C1 ST.
fn skip_string(chars: &mut Peekable<Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{07}' | '\u{9c}' => break,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                break;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_printable_text_and_newlines() {
        assert_eq!(sanitize("héllo\nwörld ✓"), "héllo\nwörld ✓");
    }

    #[test]
    fn expands_tabs_to_the_next_stop() {
        assert_eq!(sanitize("a\tb"), "a   b");
        assert_eq!(sanitize("\tx"), "    x");
    }

    #[test]
    fn drops_hostile_sequences() {
        let corpus = [
            ("\u{1b}[31mred\u{1b}[0m", "red"),
            ("\u{1b}]0;title\u{07}after", "after"),
            ("\u{1b}]52;c;ZXZpbA==\u{1b}\\clip", "clip"),
            (
                "\u{1b}]8;;http://evil\u{1b}\\link\u{1b}]8;;\u{1b}\\",
                "link",
            ),
            ("\u{1b}P1;2qsixel\u{1b}\\x", "x"),
            ("\u{1b}_apc\u{1b}\\y", "y"),
            ("\u{9b}2Jcleared", "cleared"),
            ("\u{9d}0;t\u{9c}z", "z"),
            ("a\u{202e}b\u{2066}c", "abc"),
            ("bell\u{07}\u{08}\r!", "bell!"),
            ("\u{1b}(0line", "line"),
            ("\u{1b}7saved\u{1b}8", "saved"),
        ];
        for (hostile, expected) in corpus {
            assert_eq!(sanitize(hostile), expected, "input {hostile:?}");
        }
    }

    #[test]
    fn unterminated_sequences_swallow_only_themselves() {
        assert_eq!(sanitize("ok\u{1b}["), "ok");
        assert_eq!(sanitize("ok\u{1b}]never ends"), "ok");
    }
}
