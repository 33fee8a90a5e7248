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
//! [`check_counting_lists`] also counts the entries of the longest list in the same
//! single pass, so an agent's answer holding more items than one answer
//! may hold is refused before the parser builds a value for each of them
//! (the parser keeps every event of a text in memory, some twenty times
//! its size).
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

/// A list of a text, as [`longest_list`] found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct List {
    /// 1-based line of its first entry.
    pub line: usize,
    /// The key it is the value of (`critiques`), when one names it.
    pub key: Option<String>,
    /// How many entries it has.
    pub entries: usize,
    /// It stands inside another list (an item's own list, `evidence:`).
    pub nested: bool,
}

/// The longest lists of a text: the longest of those that stand inside no
/// other list (a format's item lists: `critiques:`, a root list) and the
/// longest of those inside another.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Longest {
    pub outermost: Option<List>,
    pub nested: Option<List>,
}

/// A list being counted: where it stands and what it has so far.
struct Counting {
    /// Indentation of its dashes (a block list), or its flow depth.
    level: usize,
    list: List,
    /// A flow list's entry begun since its last comma, not yet counted.
    open_entry: bool,
}

/// What one scan found.
struct Scanned {
    /// The flow collection or quoted scalar left open, if any.
    unclosed: Option<Refused>,
    /// The lists with the most entries.
    longest: Longest,
}

/// Keeps `ended` when it has more entries than the longest so far.
fn keep_longest(longest: &mut Longest, ended: List) {
    let kept = if ended.nested {
        &mut longest.nested
    } else {
        &mut longest.outermost
    };
    if kept
        .as_ref()
        .is_none_or(|kept| ended.entries > kept.entries)
    {
        *kept = Some(ended);
    }
}

/// Ends the block lists of `open` whose dashes stand at `deeper_than` or
/// more (`or_at`: at it too), keeping the longest.
fn end_block_lists(open: &mut Vec<Counting>, longest: &mut Longest, indent: usize, or_at: bool) {
    while let Some(counting) = open.last() {
        if counting.level > indent || (or_at && counting.level == indent) {
            let ended = open.pop().expect("a list is open");
            keep_longest(longest, ended.list);
        } else {
            break;
        }
    }
}

/// The key a line opens a block value for (`critiques:` → `critiques`),
/// if that is all the line holds after its dashes.
fn opened_key(content: &str) -> Option<String> {
    let content = content.trim_start_matches(['-', ' ']);
    let without_comment = match content.find(" #") {
        Some(at) => &content[..at],
        None => content,
    };
    let key = without_comment.trim_end().strip_suffix(':')?.trim();
    let key = key.trim_matches(|c| c == '"' || c == '\'');
    named(key)
}

/// The key written before a flow list opened at byte `at` of `line`
/// (`critiques: [` → `critiques`, `{"phase":1,"findings":[` → `findings`).
fn key_before(line: &str, at: usize) -> Option<String> {
    let before = line[..at].trim_end().strip_suffix(':')?;
    let key = before
        .rsplit(['{', ',', '['])
        .next()
        .unwrap_or(before)
        .trim_start_matches(['-', ' '])
        .trim()
        .trim_matches(|c| c == '"' || c == '\'');
    named(key)
}

/// Longest key [`List::key`] holds; a longer one names no list.
const MAX_KEY_CHARS: usize = 64;

/// `key` as a list's name: a short word, not a line of text.
fn named(key: &str) -> Option<String> {
    let plain = !key.is_empty()
        && !key.contains([':', '"', '\'', '{', '}', '[', ']', ','])
        && key.chars().count() <= MAX_KEY_CHARS;
    plain.then(|| key.to_owned())
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

/// [`check`], and the lists of `text` with the most entries, block and
/// flow lists alike, counted in the same linear scan: the longest that
/// stands in no other list, and the longest inside another. The count
/// reads the text, not a parsed value: a line starting with `- ` inside a
/// plain scalar that runs over several lines counts as an entry, so what it
/// finds is for refusing a text with far too many entries, never for
/// reading one.
pub fn check_counting_lists(text: &str) -> Result<Longest, Refused> {
    scan_all(text).map(|scanned| scanned.longest)
}

/// The flow collection or quoted scalar `text` leaves open, if it seems to
/// leave one: what to tell a person whose YAML the parser refused.
pub fn unclosed(text: &str) -> Option<Refused> {
    scan(text).ok().flatten()
}

/// Refuses what costs too much; otherwise says what seems left open.
fn scan(text: &str) -> Result<Option<Refused>, Refused> {
    scan_all(text).map(|scanned| scanned.unclosed)
}

/// Refuses what costs too much; otherwise says what seems left open and
/// which list is the longest.
fn scan_all(text: &str) -> Result<Scanned, Refused> {
    let mut anchors: Vec<Anchor> = Vec::new();
    let mut aliases: Vec<Alias> = Vec::new();
    // Indentation of each open block level.
    let mut blocks: Vec<usize> = Vec::new();
    // Open flow collections: the bracket and the line it opened on.
    let mut flow: Vec<(char, usize)> = Vec::new();
    // Block lists being counted, outermost first, and flow lists.
    let mut block_lists: Vec<Counting> = Vec::new();
    let mut flow_lists: Vec<Counting> = Vec::new();
    let mut longest = Longest::default();
    // The key the previous content line opened a block value for.
    let mut pending_key: Option<String> = None;
    // An open quoted scalar: the quote and the line it opened on.
    let mut quote: Option<(char, usize)> = None;
    // The indentation of the line that opened a block scalar.
    let mut block_scalar: Option<usize> = None;
    // Anchors of block nodes waiting for their end: (index, indentation).
    let mut open_block_anchors: Vec<(usize, usize)> = Vec::new();
    let mut offset = 0usize;
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
            // `- x` (or a lone `-`) is an entry of the list whose dashes
            // stand at this indentation; `- - x` one of a list inside it.
            let dashes = if content == "-" || content.starts_with("-\t") {
                dashes.max(1)
            } else {
                dashes
            };
            if dashes == 0 {
                end_block_lists(&mut block_lists, &mut longest, indent, true);
            }
            for dash in 0..dashes {
                let level = indent + 2 * dash;
                end_block_lists(&mut block_lists, &mut longest, level, false);
                match block_lists.last_mut() {
                    Some(counting) if counting.level == level => counting.list.entries += 1,
                    _ => {
                        let nested = !block_lists.is_empty();
                        block_lists.push(Counting {
                            level,
                            list: List {
                                line: number,
                                key: if dash == 0 { pending_key.take() } else { None },
                                entries: 1,
                                nested,
                            },
                            open_entry: false,
                        });
                    }
                }
            }
            pending_key = opened_key(content);
        }
        // Character by character, never collected: an answer may be one
        // line of megabytes (JSON).
        let mut chars = line.char_indices().peekable();
        let mut last_significant = None;
        while let Some((at, c)) = chars.next() {
            if let Some((open, _)) = quote {
                match (open, c) {
                    ('"', '\\') => {
                        chars.next();
                    }
                    ('"', '"') => quote = None,
                    // `''` is a quote inside the text; a lone `'` ends it.
                    ('\'', '\'') if chars.next_if(|(_, next)| *next == '\'').is_none() => {
                        quote = None;
                    }
                    _ => {}
                }
                continue;
            }
            let in_flow = !flow.is_empty();
            if !matches!(c, ' ' | '\t' | ',' | ']')
                && let Some(counting) = flow_lists
                    .last_mut()
                    .filter(|counting| counting.level + 1 == flow.len())
            {
                counting.open_entry = true;
            }
            match c {
                '#' if at == 0 || line[..at].ends_with([' ', '\t']) => break,
                '"' | '\'' if at_node_start(line, at, in_flow) => quote = Some((c, number)),
                '[' | '{' if in_flow || at_node_start(line, at, false) => {
                    if c == '[' {
                        let key = key_before(line, at);
                        let nested = !flow_lists.is_empty() || !block_lists.is_empty();
                        flow_lists.push(Counting {
                            level: flow.len(),
                            list: List {
                                line: number,
                                key,
                                entries: 0,
                                nested,
                            },
                            open_entry: false,
                        });
                    }
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
                    if c == ']'
                        && let Some(mut ended) =
                            flow_lists.pop_if(|counting| counting.level == flow.len())
                    {
                        ended.list.entries += usize::from(ended.open_entry);
                        keep_longest(&mut longest, ended.list);
                    }
                }
                ',' if in_flow => {
                    if let Some(counting) = flow_lists
                        .last_mut()
                        .filter(|counting| counting.level + 1 == flow.len())
                    {
                        counting.list.entries += usize::from(counting.open_entry);
                        counting.open_entry = false;
                    }
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
                    for _ in 0..name.chars().count() {
                        chars.next();
                    }
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
    for counting in block_lists.into_iter().chain(flow_lists) {
        let mut list = counting.list;
        list.entries += usize::from(counting.open_entry);
        keep_longest(&mut longest, list);
    }
    expansion(text, &anchors, &aliases).map(|()| Scanned { unclosed, longest })
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

    /// The longest list of `text`: (line, key, entries).
    fn longest(text: &str) -> Option<(usize, Option<&'static str>, usize)> {
        let longest = check_counting_lists(text).unwrap();
        let longer = match (longest.outermost, longest.nested) {
            (Some(outer), Some(nested)) if nested.entries > outer.entries => Some(nested),
            (Some(outer), _) => Some(outer),
            (None, nested) => nested,
        };
        longer.map(|list| {
            let key = list.key.map(|key| &*key.leak());
            (list.line, key, list.entries)
        })
    }

    #[test]
    fn the_longest_list_is_counted_from_the_text() {
        let critiques = "critiques:\n  - target_block: b1\n    severity: minor\n    \
                         evidence:\n      - one\n      - two\n      - three\n  - target_block: b2\n";
        assert_eq!(longest(critiques), Some((5, Some("evidence"), 3)));
        let compact = "blocks:\n- id: b1\n- id: b2\n- id: b3\nnext: x\n- stray\n";
        assert_eq!(longest(compact), Some((2, Some("blocks"), 3)));
        // Dashes inside a block scalar or a quoted text are text.
        let scalar = "a:\n  - x\n  - y\nb: |\n  - 1\n  - 2\n  - 3\nc: \"\n  - 1\n  - 2\n  - 3\"\n";
        assert_eq!(longest(scalar), Some((2, Some("a"), 2)));
        // A root list, lists inside lists, and flow lists.
        assert_eq!(longest("- - a\n  - b\n  - c\n- d\n"), Some((1, None, 3)));
        assert_eq!(
            longest("findings: [{a: 1, b: [1, 2]}, \"x, y\", 3, [4, 5], ]\n"),
            Some((1, Some("findings"), 4))
        );
        assert_eq!(
            longest("{\"phase\":1,\"findings\":[{\"a\":[1]},{\"b\":2}, 3]}\n"),
            Some((1, Some("findings"), 3))
        );
        assert_eq!(longest("a: []\nb: [ ]\n").map(|(_, _, n)| n), Some(0));
        assert_eq!(longest("a: b\n"), None);
    }

    #[test]
    fn a_list_of_a_hundred_thousand_entries_is_counted_in_one_pass() {
        let mut text = String::from("critiques:\n");
        for index in 0..100_000 {
            text.push_str(&format!(
                "  - target_block: b{index}\n    severity: minor\n"
            ));
        }
        assert_eq!(longest(&text), Some((2, Some("critiques"), 100_000)));
        let flow = format!("items: [{}]\n", vec!["x"; 100_000].join(", "));
        assert_eq!(longest(&flow), Some((1, Some("items"), 100_000)));
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
