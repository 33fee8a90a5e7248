//! A line's content as styled glyphs: inline markdown and YAML.
//!
//! Responsible for: the [`Glyph`] a row is built from, inline spans (code,
//! strong, emphasis, strikethrough, links) read by pulldown-cmark, with a
//! fast path for plain prose, and the keys, values, list dashes and
//! comments of a line of YAML.
//!
//! Not responsible for: which block a line belongs to (see
//! [`super::blocks`]; block syntax left in the content is escaped, not
//! read), or where rows break (see [`super::wrap`]).

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};

use crate::text::is_displayable;
use crate::tui::theme::Theme;

use super::blocks::{is_rule, list_marker, opens_fence};
use super::{char_width, text_width};

/// One character to place, with its style and display width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Glyph {
    pub(super) c: char,
    pub(super) width: usize,
    pub(super) style: Style,
}

pub(super) fn push_plain(glyphs: &mut Vec<Glyph>, text: &str, style: Style) {
    glyphs.extend(text.chars().filter(|&c| is_displayable(c)).map(|c| Glyph {
        c,
        width: char_width(c),
        style,
    }));
}

/// Inline markdown (code, strong, emphasis, strikethrough, links) over
/// `base`.
pub(super) fn push_inline(glyphs: &mut Vec<Glyph>, content: &str, base: Style, theme: &Theme) {
    if is_plain_prose(content) {
        // Read as markdown, it would be one paragraph of this very text.
        push_plain(glyphs, content, base);
    } else {
        push_inline_parsed(glyphs, content, base, theme);
    }
}

/// What a live line's inline markdown came to up to a point that no text
/// after it can change: the line's first bytes, ending with spaces before
/// a letter, in which every span opened closes and no delimiter is left
/// over (a `*`, `` ` ``, `[`, … shown as written could still pair with one
/// to come). The glyphs of a line that starts with them are these glyphs
/// and then those of the rest read on its own, so a line that grows at
/// every frame is read again from its last such point, not from its start.
///
/// Before issue 56 the live line was read whole at every frame: a long
/// paragraph streaming at 30 frames a second was most of the parser's
/// work.
#[derive(Clone, Debug, Default)]
pub(super) struct InlinePrefix {
    /// The content covered.
    text: String,
    glyphs: Vec<Glyph>,
    /// The style the line was read over.
    base: Style,
}

impl InlinePrefix {
    /// Forgets the line (its theme changed).
    pub(super) fn clear(&mut self) {
        self.text.clear();
        self.glyphs.clear();
    }

    /// How many of the line's first glyphs are settled.
    pub(super) fn settled_glyphs(&self) -> usize {
        self.glyphs.len()
    }
}

/// [`push_inline`] for a line that grows, from where `prefix` left it, and
/// taking `prefix` on to the last point in the line that nothing after can
/// change. The glyphs are those [`push_inline`] gives. Returns how many of
/// the glyphs pushed are those `prefix` held before: the same as they were
/// at the last call (0 when the line is not the one `prefix` was of).
pub(super) fn push_inline_resuming(
    glyphs: &mut Vec<Glyph>,
    content: &str,
    base: Style,
    theme: &Theme,
    prefix: &mut InlinePrefix,
) -> usize {
    let resumes = prefix.base == base
        && !prefix.text.is_empty()
        && content.starts_with(prefix.text.as_str())
        && content
            .as_bytes()
            .get(prefix.text.len())
            .is_some_and(u8::is_ascii_alphabetic);
    if !resumes {
        prefix.clear();
        prefix.base = base;
    }
    let resumed = prefix.glyphs.len();
    let rest = &content[prefix.text.len()..];
    glyphs.extend_from_slice(&prefix.glyphs);
    let before = glyphs.len();
    let settled = if is_plain_prose(rest) {
        let at = last_word_start(rest, rest.len());
        push_plain(glyphs, &rest[..at], base);
        let settled = glyphs.len() - before;
        push_plain(glyphs, &rest[at..], base);
        Some((at, settled))
    } else {
        push_inline_parsed(glyphs, rest, base, theme)
    };
    if let Some((at, settled)) = settled.filter(|(at, _)| *at > 0) {
        prefix.text.push_str(&rest[..at]);
        prefix
            .glyphs
            .extend_from_slice(&glyphs[before..before + settled]);
    }
    resumed
}

/// The last place in `text[..end]` where a letter follows a space, or 0.
fn last_word_start(text: &str, end: usize) -> usize {
    let bytes = &text.as_bytes()[..end];
    (1..bytes.len())
        .rev()
        .find(|&at| bytes[at - 1] == b' ' && bytes[at].is_ascii_alphabetic())
        .unwrap_or(0)
}

/// The first character of `text[span]` shown as written that could still
/// pair with one after it (a delimiter of emphasis, strikethrough or code,
/// a bracket of a link, the opening of inline HTML), from the start of the
/// span, or the span's length. An underscore inside a word (its
/// neighbours in `text`) cannot pair.
fn first_open_delimiter(text: &str, span: Range<usize>) -> usize {
    let bytes = text.as_bytes();
    let in_word = |at: Option<usize>| {
        at.and_then(|at| bytes.get(at))
            .is_some_and(u8::is_ascii_alphanumeric)
    };
    let len = span.len();
    bytes[span.clone()]
        .iter()
        .zip(span)
        .position(|(byte, at)| match byte {
            b'*' | b'~' | b'`' | b'[' | b']' | b'<' => true,
            b'_' => !(in_word(at.checked_sub(1)) && in_word(Some(at + 1))),
            _ => false,
        })
        .unwrap_or(len)
}

/// [`push_inline`] through the markdown parser. Returns the last point of
/// `content` no text after it could change, if there is one: its offset
/// and how many of the glyphs pushed come before it (see
/// [`InlinePrefix`]).
fn push_inline_parsed(
    glyphs: &mut Vec<Glyph>,
    content: &str,
    base: Style,
    theme: &Theme,
) -> Option<(usize, usize)> {
    let source = neutralize_block_syntax(content);
    // Escaped block syntax moves the offsets: no point is looked for.
    let mut settling = matches!(source, Cow::Borrowed(_));
    let mut settled = None;
    let start = glyphs.len();
    let mut styles = vec![base];
    let mut open_links: Vec<(usize, pulldown_cmark::CowStr<'_>)> = Vec::new();
    let events = Parser::new_ext(&source, Options::ENABLE_STRIKETHROUGH).into_offset_iter();
    for (event, range) in events {
        let current = styles.last().copied().unwrap_or(base);
        match event {
            Event::Start(
                Tag::Paragraph
                | Tag::Strong
                | Tag::Emphasis
                | Tag::Strikethrough
                | Tag::Link { .. },
            ) => {}
            // An image or anything else: read whole, every time.
            Event::Start(_) => settling = false,
            _ => {}
        }
        match event {
            Event::Start(Tag::Strong) => styles.push(current.patch(theme.md_strong)),
            Event::Start(Tag::Emphasis) => styles.push(current.patch(theme.md_emphasis)),
            Event::Start(Tag::Strikethrough) => {
                styles.push(current.add_modifier(Modifier::CROSSED_OUT));
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                styles.push(current.add_modifier(Modifier::UNDERLINED));
                open_links.push((glyphs.len(), dest_url));
            }
            Event::End(TagEnd::Strong | TagEnd::Emphasis | TagEnd::Strikethrough)
                if styles.len() > 1 =>
            {
                styles.pop();
            }
            Event::End(TagEnd::Link) => {
                if styles.len() > 1 {
                    styles.pop();
                }
                if let Some((start, url)) = open_links.pop() {
                    let shown: String = glyphs[start..].iter().map(|glyph| glyph.c).collect();
                    if !url.is_empty() && shown != *url {
                        push_plain(glyphs, &format!(" ({url})"), theme.dim);
                    }
                }
            }
            Event::Text(text) => {
                let written_as_read = source.get(range.clone()) == Some(&*text);
                let open = match written_as_read {
                    true => first_open_delimiter(&source, range.clone()),
                    false => first_open_delimiter(&text, 0..text.len()),
                };
                if settling && written_as_read && styles.len() == 1 && open_links.is_empty() {
                    let at = last_word_start(&text, open);
                    if at > 0 {
                        push_plain(glyphs, &text[..at], current);
                        settled = Some((range.start + at, glyphs.len() - start));
                        push_plain(glyphs, &text[at..], current);
                    } else {
                        push_plain(glyphs, &text, current);
                    }
                } else {
                    push_plain(glyphs, &text, current);
                }
                // A delimiter shown as written may pair with one to come.
                settling &= open == text.len();
            }
            // An HTML block's lines come inside its start, which stops the
            // settling above.
            Event::Html(text) | Event::InlineHtml(text) => push_plain(glyphs, &text, current),
            Event::Code(code) => push_plain(glyphs, &code, current.patch(theme.md_code)),
            Event::SoftBreak | Event::HardBreak => push_plain(glyphs, " ", current),
            Event::FootnoteReference(label) => {
                push_plain(glyphs, &format!("[^{label}]"), current);
            }
            Event::TaskListMarker(done) => {
                push_plain(glyphs, if done { "[x] " } else { "[ ] " }, current);
            }
            _ => {}
        }
    }
    settled
}

/// Whether `content` holds no markdown at all: it starts with a letter,
/// neither starts nor ends with a space, and has none of the characters that
/// open an inline span, an escape, an entity, HTML or a link, nor an
/// underscore other than inside a word (`event_id`: between two letters or
/// digits an underscore can neither open nor close emphasis). Such a line
/// reads as a paragraph of exactly its text, without the parser.
fn is_plain_prose(content: &str) -> bool {
    let bytes = content.as_bytes();
    // A run of underscores lies between two letters or digits when each of
    // its underscores has a letter, a digit or another underscore on both
    // sides: one look either way, however long the run.
    let word_byte = |at: Option<usize>| {
        at.and_then(|at| bytes.get(at))
            .is_some_and(|byte| byte.is_ascii_alphanumeric() || *byte == b'_')
    };
    let inside_word = |at: usize| word_byte(at.checked_sub(1)) && word_byte(Some(at + 1));
    bytes.first().is_some_and(u8::is_ascii_alphabetic)
        && bytes.last().is_some_and(|byte| !byte.is_ascii_whitespace())
        && bytes.iter().enumerate().all(|(at, byte)| {
            !matches!(
                byte,
                b'\\'
                    | b'`'
                    | b'*'
                    | b'~'
                    | b'['
                    | b']'
                    | b'!'
                    | b'<'
                    | b'>'
                    | b'&'
                    | b'\t'
                    | b'\n'
                    | b'\r'
            ) && (*byte != b'_' || inside_word(at))
        })
}

/// Escapes what would make pulldown-cmark read `content` as a block (a list,
/// a heading, a quote, a rule, a fence, a link definition): the line's block
/// was already decided, so only its inline spans are wanted.
fn neutralize_block_syntax(content: &str) -> Cow<'_, str> {
    let trimmed = content.trim_start();
    if let Some((marker, _)) = list_marker(trimmed) {
        let punctuation_at = content.len() - trimmed.len() + marker.len() - 1;
        return Cow::Owned(format!(
            "{}\\{}",
            &content[..punctuation_at],
            &content[punctuation_at..]
        ));
    }
    let starts_block = trimmed.starts_with(['#', '>'])
        || is_rule(trimmed)
        || opens_fence(trimmed).is_some()
        || (trimmed.starts_with('[') && trimmed.contains("]:"));
    if starts_block {
        Cow::Owned(format!("\\{trimmed}"))
    } else {
        Cow::Borrowed(content)
    }
}

/// A line of YAML without its indentation: keys, values, list dashes and
/// comments told apart. Returns the column where its value starts.
pub(super) fn push_yaml(glyphs: &mut Vec<Glyph>, item: &str, theme: &Theme) -> usize {
    if item == "---" || item == "..." {
        push_plain(glyphs, item, theme.dim);
        return 0;
    }
    let mut rest = item;
    while rest == "-" || rest.starts_with("- ") {
        let after_dash = rest[1..].trim_start();
        push_plain(
            glyphs,
            &rest[..rest.len() - after_dash.len()],
            theme.md_list_marker,
        );
        rest = after_dash;
    }
    let (body, comment) = split_yaml_comment(rest);
    let mut value_column = text_width(&item[..item.len() - rest.len()]);
    match yaml_key_end(body) {
        Some(key_end) => {
            push_plain(glyphs, &body[..key_end], theme.md_heading);
            push_plain(glyphs, &body[key_end..], theme.md_code);
            let value = body[key_end + 1..].trim_start();
            value_column += text_width(&body[..body.len() - value.len()]);
        }
        None => push_plain(glyphs, body, theme.md_code),
    }
    push_plain(glyphs, comment, theme.dim);
    value_column
}

/// Splits at a `#` comment that is outside quotes and starts the text or
/// follows whitespace.
fn split_yaml_comment(text: &str) -> (&str, &str) {
    let mut quote = None;
    let mut previous = ' ';
    for (at, c) in text.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(open), _) if c == open => quote = None,
            (None, '#') if previous.is_whitespace() => return text.split_at(at),
            _ => {}
        }
        previous = c;
    }
    (text, "")
}

/// The end of a mapping key (`key:` followed by a space or the end), if the
/// text starts with one.
pub(in crate::tui) fn yaml_key_end(body: &str) -> Option<usize> {
    let colon_ends_key =
        |at: usize| body[at + 1..].is_empty() || body[at + 1..].starts_with([' ', '\t']);
    if let Some(quote) = body.chars().next().filter(|&c| c == '"' || c == '\'') {
        let close = body[1..].find(quote)? + 1;
        return (body[close + 1..].starts_with(':') && colon_ends_key(close + 1))
            .then_some(close + 1);
    }
    if body.starts_with(['{', '[', '|', '>', '&', '*', '!']) {
        return None;
    }
    body.char_indices()
        .find(|&(at, c)| c == ':' && colon_ends_key(at))
        .map(|(at, _)| at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn theme() -> Theme {
        Theme::builtin("dark").unwrap()
    }

    #[test]
    fn plain_prose_reads_the_same_without_the_parser() {
        let theme = theme();
        let pieces = [
            "a",
            "Word",
            " ",
            "  ",
            "é",
            "中文",
            "1",
            "12.",
            ":",
            ",",
            ".",
            "-",
            "+",
            "#",
            "|",
            "(x)",
            "'q'",
            "\"",
            "?",
            "/",
            "=",
            "%",
            "$",
            "@",
            "^",
            "{",
            "}",
            "👍",
            "http://x.y",
            "_",
            "__",
            "event_id",
            "a_",
            "_b",
            "9_9",
            "é_é",
        ];
        let mut random = fastrand::Rng::with_seed(15);
        let (mut plain, mut underscored) = (0, 0);
        for _ in 0..10_000 {
            let content: String = (0..random.usize(1..12))
                .map(|_| pieces[random.usize(0..pieces.len())])
                .collect();
            if !is_plain_prose(&content) {
                continue;
            }
            plain += 1;
            underscored += usize::from(content.contains('_'));
            let (mut fast, mut parsed) = (Vec::new(), Vec::new());
            push_plain(&mut fast, &content, theme.text);
            push_inline_parsed(&mut parsed, &content, theme.text, &theme);
            let shown = |glyphs: &[Glyph]| -> Vec<(char, Style)> {
                glyphs.iter().map(|glyph| (glyph.c, glyph.style)).collect()
            };
            assert_eq!(shown(&fast), shown(&parsed), "{content:?}");
        }
        assert!(plain > 500, "the sample holds plain lines ({plain})");
        assert!(
            underscored > 50,
            "and plain lines with underscores ({underscored})"
        );
    }

    /// Grows `lines` lines of random `pieces` a few bytes at a time and
    /// checks at each length that the line read on from where it settled
    /// shows what the line read whole shows; returns how many layouts, and
    /// how many of them were read on from a settled point.
    fn grow_and_compare(pieces: &[&str], lines: usize, seed: u64) -> (usize, usize) {
        let theme = theme();
        let separators = [" ", " ", "  ", ""];
        let shown = |glyphs: &[Glyph]| -> Vec<(char, Style)> {
            glyphs.iter().map(|glyph| (glyph.c, glyph.style)).collect()
        };
        let mut random = fastrand::Rng::with_seed(seed);
        let (mut layouts, mut resumed) = (0, 0);
        for line in 0..lines {
            let base = if line % 4 == 0 {
                theme.md_quote
            } else {
                theme.text
            };
            let mut content = String::new();
            for _ in 0..random.usize(1..20) {
                content.push_str(pieces[random.usize(0..pieces.len())]);
                content.push_str(separators[random.usize(0..separators.len())]);
            }
            let mut settled = InlinePrefix::default();
            let mut end = 0;
            while end < content.len() {
                end = (end + random.usize(1..12)).min(content.len());
                while !content.is_char_boundary(end) {
                    end += 1;
                }
                let grown = &content[..end];
                let (mut whole, mut resuming) = (Vec::new(), Vec::new());
                push_inline(&mut whole, grown, base, &theme);
                let from = settled.text.clone();
                push_inline_resuming(&mut resuming, grown, base, &theme, &mut settled);
                layouts += 1;
                resumed += usize::from(!from.is_empty() && grown.starts_with(&from));
                assert_eq!(
                    shown(&whole),
                    shown(&resuming),
                    "{grown:?} read on from {from:?}"
                );
                assert!(grown.starts_with(&settled.text));
            }
        }
        (layouts, resumed)
    }

    /// A line read on from where it settled shows what the line read whole
    /// shows, at every length it grows through, whatever its markdown:
    /// spans closed and left open, delimiters that pair across the whole
    /// line, escapes, entities, HTML, links, code and underscores.
    #[test]
    fn a_growing_line_read_on_from_where_it_settled_reads_as_whole() {
        let hostile = [
            "word",
            "Alpha",
            "b",
            "x1",
            "**bold**",
            "*it*",
            "_em_",
            "__strong__",
            "snake_case",
            "`code`",
            "``a`b``",
            "[link](http://u)",
            "[ref]",
            "<b>",
            "</b>",
            "<a href=\"x y\">",
            "\\*",
            "&amp;",
            "~~gone~~",
            "~",
            "*",
            "**",
            "`",
            "[",
            "]",
            "<",
            ">",
            "!",
            "![i](u)",
            "a*b*c",
            "_",
            "1.",
            "-",
            "#",
            "é",
            "中文",
            "(x)",
            ":",
            "http://x.y",
            "*open",
            "close*",
            "**open",
            "close**",
            "`open",
            "close`",
            "_open",
            "close_",
            "[open",
            "close](u)",
        ];
        let (layouts, resumed) = grow_and_compare(&hostile, 4000, 56);
        assert!(resumed > layouts / 10, "{resumed} of {layouts} read on");
        // Prose whose spans close, as a model writes it: mostly read on.
        let prose = [
            "the",
            "ledger",
            "keeps",
            "every",
            "**invoice**",
            "*shadow*",
            "`event_id`",
            "event_id",
            "[docs](http://u)",
            "replay.",
            "tenant,",
            "ok:",
            "é",
            "(x)",
            "2026",
        ];
        let (layouts, resumed) = grow_and_compare(&prose, 2000, 57);
        assert!(resumed * 3 > layouts * 2, "{resumed} of {layouts} read on");
    }

    #[test]
    fn yaml_keys_are_found_only_where_yaml_puts_them() {
        assert_eq!(yaml_key_end("key: value"), Some(3));
        assert_eq!(yaml_key_end("key:"), Some(3));
        assert_eq!(yaml_key_end("\"a: b\": c"), Some(6));
        assert_eq!(yaml_key_end("http://example"), None);
        assert_eq!(yaml_key_end("{a: b}"), None);
        assert_eq!(yaml_key_end("plain text"), None);
    }
}
