//! YAML that would cost too much to parse is refused before the parser
//! sees it.
//!
//! The parser quorum uses takes time quadratic in nesting depth (a 400 KB
//! spec nested 200,000 deep takes a minute) and expands every alias into a
//! copy of its anchor (one megabyte anchored and aliased a thousand times
//! is a gigabyte). [`check`] scans the text once, in linear time, and
//! refuses:
//!
//! - nesting deeper than [`MAX_DEPTH`] levels, block and flow together;
//! - aliases that would expand the document beyond [`MAX_EXPANDED_BYTES`]
//!   (each alias counts as a copy of its anchor's text, nested aliases
//!   included);
//!
//! Every spec, configuration, theme, script and agent answer goes through
//! it. The scan is conservative: it estimates from the text, so what it
//! lets through the parser still checks.
//!
//! When the parser refuses a text, [`unclosed`] says whether a flow
//! collection (`[`, `{`) or a quoted scalar was never closed, named by the
//! line that opened it: the parser's own message for that misleads
//! ("expected a YAML tag starting with '!'"). It is only a better message
//! for an error the parser found, never a refusal of its own, since a
//! scan of the text cannot tell every plain scalar from a quote.

/// Deepest nesting accepted, block and flow levels together. quorum's own
/// formats need fewer than ten.
pub const MAX_DEPTH: usize = 64;

/// Largest size a document may reach once its aliases are expanded.
pub const MAX_EXPANDED_BYTES: usize = 8 << 20;

/// Why a text was refused, and the 1-based line it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub line: usize,
    pub message: String,
}

/// An anchor: where its node's text starts and ends, in bytes.
struct Anchor {
    name: String,
    start: usize,
    end: usize,
}

/// An alias use: its name and where it stands, in bytes.
struct Alias {
    name: String,
    at: usize,
}

/// Whether a `[`, `{`, quote, `&` or `*` at byte `at` of `line` starts a
/// node: at the start of the content, or after `: `, `- `, `? `, or (in
/// flow) after `[`, `{`, `,`.
fn at_node_start(line: &str, at: usize, in_flow: bool) -> bool {
    let before = line[..at].trim_end_matches(' ');
    if before.is_empty() {
        return true;
    }
    let last = before.chars().last().unwrap_or(' ');
    let spaced = at > before.len();
    match last {
        ':' | '-' | '?' => spaced || in_flow,
        '[' | '{' | ',' => in_flow,
        _ => {
            // After an anchor or a tag: `&a [`, `!!str "`.
            let word_start = before.rfind(' ').map_or(0, |i| i + 1);
            spaced && matches!(before[word_start..].chars().next(), Some('&' | '!'))
        }
    }
}

/// Scans `text`; `Ok` when it may be parsed.
pub fn check(text: &str) -> Result<(), Refused> {
    scan(text).map(|_| ())
}

/// The flow collection or quoted scalar `text` leaves open, if it seems to
/// leave one: what to tell a person whose YAML the parser refused.
pub fn unclosed(text: &str) -> Option<Refused> {
    scan(text).ok().flatten()
}

/// Refuses what costs too much; otherwise says what seems left open.
fn scan(text: &str) -> Result<Option<Refused>, Refused> {
    let mut anchors: Vec<Anchor> = Vec::new();
    let mut aliases: Vec<Alias> = Vec::new();
    // Indentation of each open block level.
    let mut blocks: Vec<usize> = Vec::new();
    // Open flow collections: the bracket and the line it opened on.
    let mut flow: Vec<(char, usize)> = Vec::new();
    // An open quoted scalar: the quote and the line it opened on.
    let mut quote: Option<(char, usize)> = None;
    // The indentation of the line that opened a block scalar.
    let mut block_scalar: Option<usize> = None;
    // Anchors of block nodes waiting for their end: (index, indentation).
    let mut open_block_anchors: Vec<(usize, usize)> = Vec::new();
    let mut offset = 0usize;
    // The characters of the line being read, kept from line to line.
    let mut bytes: Vec<(usize, char)> = Vec::new();
    for (index, raw) in text.split_inclusive('\n').enumerate() {
        let number = index + 1;
        let line_start = offset;
        offset += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let indent = line.len() - line.trim_start_matches(' ').len();
        let blank = line.trim().is_empty();
        if let Some(opener) = block_scalar {
            if blank || indent > opener {
                continue;
            }
            block_scalar = None;
        }
        if quote.is_none() && flow.is_empty() && !blank && !line.trim_start().starts_with('#') {
            // Block anchors end where a line is no deeper than theirs.
            while let Some(&(anchor, depth)) = open_block_anchors.last() {
                if indent <= depth {
                    anchors[anchor].end = line_start;
                    open_block_anchors.pop();
                } else {
                    break;
                }
            }
            while blocks.last().is_some_and(|&open| open >= indent) {
                blocks.pop();
            }
            blocks.push(indent);
            let content = &line[indent..];
            let dashes = content
                .split("- ")
                .take_while(|part| part.is_empty())
                .count();
            if blocks.len() + dashes > MAX_DEPTH {
                return Err(Refused {
                    line: number,
                    message: format!("the YAML nests deeper than {MAX_DEPTH} levels"),
                });
            }
        }
        bytes.clear();
        bytes.extend(line.char_indices());
        let mut position = 0;
        let mut last_significant = None;
        while position < bytes.len() {
            let (at, c) = bytes[position];
            position += 1;
            if let Some((open, _)) = quote {
                match (open, c) {
                    ('"', '\\') => position += 1,
                    ('"', '"') => quote = None,
                    ('\'', '\'') => {
                        if bytes.get(position).is_some_and(|(_, next)| *next == '\'') {
                            position += 1;
                        } else {
                            quote = None;
                        }
                    }
                    _ => {}
                }
                continue;
            }
            let in_flow = !flow.is_empty();
            match c {
                '#' if at == 0 || line[..at].ends_with([' ', '\t']) => break,
                '"' | '\'' if at_node_start(line, at, in_flow) => quote = Some((c, number)),
                '[' | '{' if in_flow || at_node_start(line, at, false) => {
                    flow.push((c, number));
                    if blocks.len() + flow.len() > MAX_DEPTH {
                        return Err(Refused {
                            line: number,
                            message: format!("the YAML nests deeper than {MAX_DEPTH} levels"),
                        });
                    }
                }
                ']' | '}' if in_flow => {
                    flow.pop();
                }
                '&' | '*' if at_node_start(line, at, in_flow) => {
                    let name: String = line[at + 1..]
                        .chars()
                        .take_while(|c| {
                            !c.is_whitespace() && !matches!(c, ',' | '[' | ']' | '{' | '}')
                        })
                        .collect();
                    if name.is_empty() {
                        continue;
                    }
                    position += name.chars().count();
                    if c == '*' {
                        aliases.push(Alias {
                            name,
                            at: line_start + at,
                        });
                    } else {
                        let rest = line[at + 1 + name.len()..].trim();
                        let start = line_start + at;
                        let anchor = anchors.len();
                        anchors.push(Anchor {
                            name,
                            start,
                            end: line_start + line.len(),
                        });
                        if rest.is_empty() || rest.starts_with('#') {
                            // A block node follows on the next lines.
                            anchors[anchor].end = text.len();
                            open_block_anchors.push((anchor, indent));
                        }
                    }
                }
                ' ' | '\t' => {}
                _ => last_significant = Some(c),
            }
        }
        if quote.is_none() && flow.is_empty() {
            let trimmed = line.trim_end();
            let indicator = trimmed.rsplit(' ').next().unwrap_or_default();
            let opens_block_scalar = matches!(indicator.chars().next(), Some('|' | '>'))
                && indicator[1..]
                    .chars()
                    .all(|c| matches!(c, '-' | '+') || c.is_ascii_digit())
                && (trimmed.len() == indicator.len()
                    || trimmed.contains(": ")
                    || trimmed.trim_start().starts_with("- "));
            if opens_block_scalar
                && matches!(
                    last_significant,
                    Some('|' | '>' | '-' | '+') | Some('0'..='9')
                )
            {
                block_scalar = Some(indent);
            }
        }
    }
    let unclosed = if let Some((open, line)) = quote {
        Some(Refused {
            line,
            message: format!("the quoted text opened here with {open} is never closed"),
        })
    } else {
        flow.last().map(|&(open, line)| {
            let close = if open == '[' { ']' } else { '}' };
            Refused {
                line,
                message: format!("the `{open}` opened here is never closed with `{close}`"),
            }
        })
    };
    expansion(text, &anchors, &aliases).map(|()| unclosed)
}

/// Refuses aliases whose expansion would pass [`MAX_EXPANDED_BYTES`].
fn expansion(text: &str, anchors: &[Anchor], aliases: &[Alias]) -> Result<(), Refused> {
    if aliases.is_empty() {
        return Ok(());
    }
    // The size of each anchor's node once its own aliases are expanded,
    // in the order they are defined (an alias refers to an earlier anchor).
    let mut sizes: Vec<usize> = Vec::with_capacity(anchors.len());
    for (index, anchor) in anchors.iter().enumerate() {
        let mut size = anchor.end.saturating_sub(anchor.start);
        for alias in aliases
            .iter()
            .filter(|alias| alias.at > anchor.start && alias.at < anchor.end)
        {
            if let Some(target) = anchors[..index].iter().rposition(|a| a.name == alias.name) {
                size = size.saturating_add(sizes[target]);
            }
        }
        sizes.push(size.min(usize::MAX / 4));
    }
    let mut total = text.len();
    for alias in aliases {
        let target = anchors
            .iter()
            .enumerate()
            .filter(|(_, anchor)| anchor.start < alias.at && anchor.name == alias.name)
            .map(|(index, _)| index)
            .next_back();
        if let Some(target) = target {
            total = total.saturating_add(sizes[target]);
        }
        if total > MAX_EXPANDED_BYTES {
            let line = text[..alias.at].matches('\n').count() + 1;
            return Err(Refused {
                line,
                message: format!(
                    "its aliases would expand the YAML past {}; write the text out, or refer to it less often",
                    crate::input::bytes(MAX_EXPANDED_BYTES as u64)
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_yaml_passes() {
        let spec = "protocol: quick\ntopic: \"It's fine: really\"\nagents:\n  default: &agent { provider: script, timeout_secs: 5 }\n  critic: *agent\ncontext:\n  - name: a\n    text: |\n      [unclosed? no, text]\n      *not an alias\n  - path: notes.md # don't\nscript:\n  replies:\n    - role: critic\n      text: 'single ''quoted'' text'\n";
        assert_eq!(check(spec), Ok(()));
        assert_eq!(check("a: [1, [2, {b: c}]]\nd: don't [stop]\n"), Ok(()));
    }

    #[test]
    fn deep_nesting_is_refused_at_once() {
        let flow = format!("a: {}{}\n", "[".repeat(200_000), "]".repeat(200_000));
        let refused = check(&flow).unwrap_err();
        assert_eq!(refused.line, 1);
        assert!(refused.message.contains("deeper than 64"), "{refused:?}");
        let mut block = String::new();
        for depth in 0..100 {
            block.push_str(&format!("{}k{depth}:\n", "  ".repeat(depth)));
        }
        assert_eq!(check(&block).unwrap_err().line, 65);
        let dashes = format!("{}x\n", "- ".repeat(100));
        assert!(check(&dashes).is_err());
    }

    #[test]
    fn alias_bombs_are_refused() {
        let text = "x".repeat(1 << 20);
        let mut spec = format!("big: &big \"{text}\"\nuses:\n");
        for _ in 0..1000 {
            spec.push_str("  - *big\n");
        }
        let refused = check(&spec).unwrap_err();
        assert!(
            refused.message.contains("aliases would expand"),
            "{refused:?}"
        );
        // The billion laughs: each level doubles... ten times.
        let mut laughs = String::from(
            "a: &a [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n",
        );
        let names: Vec<String> = (b'b'..=b'k').map(|c| (c as char).to_string()).collect();
        let mut previous = "a".to_string();
        for name in &names {
            laughs.push_str(&format!(
                "{name}: &{name} [{}]\n",
                vec![format!("*{previous}"); 10].join(", ")
            ));
            previous = name.clone();
        }
        assert!(check(&laughs).is_err());
        // A block anchor reused a few times is fine.
        let few = "base: &base\n  provider: script\n  timeout_secs: 5\none: *base\ntwo: *base\n";
        assert_eq!(check(few), Ok(()));
    }

    #[test]
    fn unclosed_flow_and_quotes_are_named_by_their_line() {
        let refused = unclosed("topic: x\ncontext: [a, b\nagents: {}\n").unwrap();
        assert_eq!(
            refused,
            Refused {
                line: 2,
                message: "the `[` opened here is never closed with `]`".into()
            }
        );
        let refused = unclosed("topic: \"x\nmode: y\n").unwrap();
        assert_eq!(refused.line, 1);
        assert!(refused.message.contains("never closed"));
    }

    #[test]
    fn a_quote_inside_a_plain_scalar_opens_nothing() {
        // Found by the thesis tree's property test: `A!".` is plain text.
        for text in [
            "tradeoffs: A!\".\nrisks: b\n",
            "a: it's fine\nb: 2\n",
            "a: x \"y\nb: 2\n",
            "- a!'b\n",
        ] {
            assert_eq!(unclosed(text), None, "{text:?}");
        }
        assert!(unclosed("a: !!str \"open\n").is_some());
        // Only a message for the parser's error: never a refusal.
        assert!(check("a: !!str \"open\n").is_ok());
    }
}
