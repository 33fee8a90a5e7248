//! The reader's leniency: what a real model writes instead of the exact
//! format it was asked for, read wherever its meaning is unambiguous, and
//! nowhere else.
//!
//! Read, with a note saying how:
//! - leading tabs in the YAML, expanded to two spaces a tab (one level of the
//!   indentation every prompt shows);
//! - markdown emphasis around a key (`**block_id**: b1`, `` `score`: 4 ``,
//!   `**score:** 4`);
//! - a score written as text (`"4"`), as an integral float (`4.0`), as `4/5`
//!   or as `4 out of 5`, on the 1–5 scale;
//! - an id in another case (`B1`) or with decoration after it (`b1 (claim)`,
//!   `B1: claim`), when exactly one id matches;
//! - a word of a closed set misspelt by a letter or two (`resolvd`,
//!   `strenghten`), when exactly one allowed word is that close
//!   ([`near_word`]).
//!
//! Refused, as before: a score of `4.5`, `4/10` or `four`; an id that matches
//! two; a word two allowed words are as near to, or none is (`EXTREME`); a
//! missing field. JSON needs no leniency: YAML reads it as written.
//!
//! Not responsible for asking for less: every prompt still shows the exact
//! format. The raw answer on disk is never touched; notes say what was read.

use std::collections::{HashMap, HashSet};

use yaml_serde::Value;

/// Spaces a leading tab stands for.
pub const TAB_SPACES: usize = 2;

/// The YAML with leading tabs expanded and markdown emphasis around keys
/// removed, line for line (so lines still count in the agent's text), and a
/// note for each kind of change made.
pub fn tidy_source(yaml: &str) -> (String, Vec<String>) {
    let expand_tabs = tabs_are_levels(yaml);
    let mut tabbed_lines = 0usize;
    let mut emphasised: Vec<String> = Vec::new();
    // The indentation of the line that opened a `|` or `>` block scalar
    // whose text we are in: its lines are text, never keys.
    let mut block_scalar_indent: Option<usize> = None;
    let mut out = String::with_capacity(yaml.len());
    for line in yaml.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        let indent_len = body.len() - body.trim_start_matches([' ', '\t']).len();
        let (indent, rest) = body.split_at(indent_len);
        let line_tabs = if expand_tabs {
            indent.matches('\t').count()
        } else {
            0
        };
        tabbed_lines += usize::from(line_tabs > 0);
        let indent: std::borrow::Cow<str> = if line_tabs > 0 {
            indent.replace('\t', &" ".repeat(TAB_SPACES)).into()
        } else {
            indent.into()
        };
        let in_block_scalar = block_scalar_indent
            .is_some_and(|header| rest.trim().is_empty() || indent.len() > header);
        if !in_block_scalar {
            block_scalar_indent = opens_block_scalar(rest).then_some(indent.len());
        }
        let unemphasised = if in_block_scalar {
            None
        } else {
            unemphasised_key(rest)
        };
        let rest = match unemphasised {
            Some((key, plain)) => {
                if !emphasised.contains(&key) {
                    emphasised.push(key);
                }
                plain.into()
            }
            None => std::borrow::Cow::Borrowed(rest),
        };
        out.push_str(&indent);
        out.push_str(&rest);
        out.push_str(end);
    }
    let mut notes = Vec::new();
    if tabbed_lines > 0 {
        notes.push(format!(
            "read tab indentation as one level a tab ({tabbed_lines} line{})",
            if tabbed_lines == 1 { "" } else { "s" }
        ));
    }
    if !emphasised.is_empty() {
        notes.push(format!(
            "read markdown emphasis around {} as plain key{}",
            emphasised
                .iter()
                .map(|key| format!("`{key}`"))
                .collect::<Vec<_>>()
                .join(", "),
            if emphasised.len() == 1 { "" } else { "s" }
        ));
    }
    (out, notes)
}

/// Whether `line` (without its indentation) ends by opening a block scalar:
/// `key: |`, `- >-`, `text: |2`, maybe with a comment after it.
fn opens_block_scalar(line: &str) -> bool {
    let code = match line.find(" #") {
        Some(comment) => &line[..comment],
        None => line,
    };
    let Some(last) = code.trim_end().rsplit([' ', '\t']).next() else {
        return false;
    };
    let mut chars = last.chars();
    matches!(chars.next(), Some('|' | '>'))
        && chars.all(|c| matches!(c, '-' | '+') || c.is_ascii_digit())
        && (code.trim_end().len() == last.len() || code.contains(": ") || code.starts_with("- "))
}

/// Whether the YAML's leading tabs can only mean one level each: every
/// indented line starts with its tabs (no space before a tab), and no line
/// is indented with spaces alone, which would need a tab width to compare.
/// A YAML without tabs needs nothing expanded.
fn tabs_are_levels(yaml: &str) -> bool {
    let indents = yaml
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]);
    let mut tabbed = false;
    for indent in indents {
        if indent.starts_with(' ') || indent.contains(" \t") {
            return false;
        }
        tabbed |= indent.starts_with('\t');
    }
    tabbed
}

/// The tab widths tried, in order, when tabs mixed with spaces leave a
/// YAML unreadable: the widths editors commonly use, in spaces.
pub const TAB_WIDTHS: [usize; 3] = [2, 4, 8];

/// What reading a YAML's mixed leading tabs at each of [`TAB_WIDTHS`]
/// gave.
#[derive(Debug, PartialEq)]
pub enum TabReading {
    /// No line is indented with a tab among spaces: nothing to try.
    NoMixedTabs,
    /// No width gives YAML that parses.
    NoWidth,
    /// Every width that parses reads the same: the YAML with tabs expanded
    /// at the first of them, what it reads as, and the note saying so.
    Read {
        yaml: String,
        root: Value,
        note: String,
    },
    /// Two widths parse to different data: the widths, and the first line
    /// with a tab in its indentation.
    Differ { widths: Vec<usize>, line: usize },
}

/// `yaml` with the tabs in each line's indentation expanded to the next
/// stop of `width` columns, line for line; text after the indentation is
/// left as it is.
pub fn expand_leading_tabs(yaml: &str, width: usize) -> String {
    let mut out = String::with_capacity(yaml.len());
    for line in yaml.split_inclusive('\n') {
        let indent_len = line.len() - line.trim_start_matches([' ', '\t']).len();
        let (indent, rest) = line.split_at(indent_len);
        let mut column = 0usize;
        for c in indent.chars() {
            let next = if c == '\t' {
                (column / width + 1) * width
            } else {
                column + 1
            };
            out.extend(std::iter::repeat_n(' ', next - column));
            column = next;
        }
        out.push_str(rest);
    }
    out
}

/// Reads a YAML the parser refused as written when its indentation mixes
/// tabs with spaces (which tabs alone, as levels, could not settle): each
/// of [`TAB_WIDTHS`] is tried, and the answer is read only when every width
/// that parses gives the same data. Text the guard refuses at a width does
/// not count as read at it.
pub fn read_tab_widths(yaml: &str) -> TabReading {
    let first_tabbed = yaml.lines().position(|line| {
        let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        indent.contains('\t') && !line.trim().is_empty()
    });
    let Some(first_tabbed) = first_tabbed else {
        return TabReading::NoMixedTabs;
    };
    let mut read: Vec<(usize, String, Value)> = Vec::new();
    for width in TAB_WIDTHS {
        let expanded = expand_leading_tabs(yaml, width);
        if crate::yaml_guard::check(&expanded).is_err() {
            continue;
        }
        if let Ok(root) = yaml_serde::from_str::<Value>(&expanded) {
            read.push((width, expanded, root));
        }
    }
    let widths: Vec<usize> = read.iter().map(|(width, _, _)| *width).collect();
    let Some((width, expanded, root)) = read.first() else {
        return TabReading::NoWidth;
    };
    if read.iter().any(|(_, _, other)| other != root) {
        return TabReading::Differ {
            widths,
            line: first_tabbed + 1,
        };
    }
    let how = if widths.len() == 1 {
        "the only width of 2, 4 and 8 at which it reads".to_string()
    } else {
        format!(
            "widths {} read alike",
            widths
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(" and ")
        )
    };
    TabReading::Read {
        yaml: expanded.clone(),
        root: root.clone(),
        note: format!("read tabs mixed with spaces as {width} columns wide ({how})"),
    }
}

/// Markdown marks a model puts around a key.
const EMPHASIS: [&str; 5] = ["**", "__", "*", "_", "`"];

/// `rest` (a line without its indentation) with the emphasis around its key
/// removed, and the key, when the line starts with an emphasised key: an
/// optional `- `, then `**key**:` or `**key:**`.
fn unemphasised_key(rest: &str) -> Option<(String, String)> {
    let (dash, body) = match rest.strip_prefix("- ") {
        Some(body) => ("- ", body.trim_start()),
        None => ("", rest),
    };
    for mark in EMPHASIS {
        let Some(inner) = body.strip_prefix(mark) else {
            continue;
        };
        let key_len = inner
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(inner.len());
        let key = &inner[..key_len];
        if key.is_empty() || !key.starts_with(|c: char| c.is_ascii_alphabetic()) {
            continue;
        }
        let after = &inner[key_len..];
        // `**key**: value` or `**key:** value`
        let value = if let Some(tail) = after.strip_prefix(mark) {
            tail.trim_start_matches(' ').strip_prefix(':')?
        } else if let Some(tail) = after.strip_prefix(':') {
            tail.strip_prefix(mark)?
        } else {
            continue;
        };
        return Some((key.to_string(), format!("{dash}{key}:{value}")));
    }
    None
}

/// A score on the 1–5 scale as the answer wrote it: the score, and the text
/// it was read from when that was not a plain integer. `None` when the
/// meaning is not a whole number from 1 to 5.
pub fn read_score(value: &Value) -> Option<(u8, Option<String>)> {
    let whole = |number: f64| {
        (number.fract() == 0.0 && (1.0..=5.0).contains(&number)).then_some(number as u8)
    };
    match value {
        Value::Number(number) => match number.as_u64() {
            Some(score) => (1..=5).contains(&score).then_some((score as u8, None)),
            None => {
                let float = number.as_f64()?;
                whole(float).map(|score| (score, Some(number.to_string())))
            }
        },
        Value::String(text) => {
            let compact: String = text
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
                .to_ascii_lowercase();
            let number = compact
                .strip_suffix("/5")
                .or_else(|| compact.strip_suffix("outof5"))
                .unwrap_or(&compact);
            if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                return None;
            }
            let parsed: f64 = number.parse().ok()?;
            whole(parsed).map(|score| (score, Some(format!("{text:?}"))))
        }
        _ => None,
    }
}

/// What a key given again in the same mapping is renamed to, before the
/// number of its repetition: `severity__again2`. No agent writes it.
const REPEATED_KEY_MARK: &str = "__again";

/// Most renames [`rename_repeated_keys`] makes in one answer before it
/// leaves the YAML to fail as it would: a bound on the parses it costs.
const REPEATED_KEYS_MAX: usize = 64;

/// The YAML with every key given again in one block mapping renamed to
/// `{key}__again{n}`, so that it parses, and a note for each; the reader
/// then compares the two ([`repeated_key`]). Only what the parser calls a
/// duplicate entry is touched, found from where the parser says its
/// mapping starts; a repeat in a flow mapping (`{a: 1, a: 2}`) is left to
/// fail.
pub fn rename_repeated_keys(yaml: &str) -> (String, Vec<String>) {
    let mut yaml = yaml.to_string();
    let mut notes = Vec::new();
    for _ in 0..REPEATED_KEYS_MAX {
        let Err(error) = yaml_serde::from_str::<Value>(&yaml) else {
            break;
        };
        let message = error.to_string();
        let Some(key) = message
            .split_once("duplicate entry with key \"")
            .and_then(|(_, rest)| rest.split_once('"'))
            .map(|(key, _)| key.to_string())
        else {
            break;
        };
        let Some(location) = error.location() else {
            break;
        };
        let renamed = if yaml[location.index()..].starts_with('{') {
            rename_second_in_flow(&yaml, &key, location.index())
        } else {
            rename_second(&yaml, &key, location.line(), location.column())
        };
        let Some((renamed, line)) = renamed else {
            break;
        };
        notes.push(format!(
            "read `{key}:` given twice in one mapping (line {line} of the YAML)"
        ));
        yaml = renamed;
    }
    (yaml, notes)
}

/// `yaml` with the second `key` of the flow mapping (JSON's objects) that
/// opens at byte `start` renamed, and the line it was on; `None` when it
/// cannot be found. Keys are counted at the mapping's own depth, outside
/// quoted text.
fn rename_second_in_flow(yaml: &str, key: &str, start: usize) -> Option<(String, usize)> {
    let bytes = yaml.as_bytes();
    let mut depth = 0usize;
    let mut seen = 0;
    let mut at = start;
    // Where the text at depth 1 that may be a key began.
    let mut candidate: Option<usize> = None;
    while at < bytes.len() {
        match bytes[at] {
            b'"' | b'\'' => {
                let quote = bytes[at];
                let open = at;
                at += 1;
                while at < bytes.len() && bytes[at] != quote {
                    if quote == b'"' && bytes[at] == b'\\' {
                        at += 1;
                    }
                    at += 1;
                }
                if depth == 1 && candidate.is_none() {
                    candidate = Some(open);
                }
            }
            b'{' | b'[' => {
                depth += 1;
                if depth == 1 {
                    candidate = None;
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return None;
                }
            }
            b',' if depth == 1 => candidate = None,
            b':' if depth == 1 => {
                if let Some(begin) = candidate.take() {
                    let written = yaml[begin..at].trim();
                    let unquoted = written.trim_matches(['"', '\'']);
                    if unquoted == key {
                        seen += 1;
                        if seen == 2 {
                            // Inside the quotes, or after a plain key.
                            let end = begin + yaml[begin..at].trim_end().len();
                            let insert = if written.ends_with(['"', '\'']) {
                                end - 1
                            } else {
                                end
                            };
                            let taken = yaml[start..insert]
                                .matches(&format!("{key}{REPEATED_KEY_MARK}"))
                                .count();
                            let renamed = format!(
                                "{}{REPEATED_KEY_MARK}{}{}",
                                &yaml[..insert],
                                taken + 2,
                                &yaml[insert..]
                            );
                            let line = yaml[..insert].matches('\n').count() + 1;
                            return Some((renamed, line));
                        }
                    }
                }
            }
            byte if depth == 1 && candidate.is_none() && !byte.is_ascii_whitespace() => {
                candidate = Some(at);
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// `yaml` with the second `key:` of the block mapping that starts at
/// `line`, `column` (1-based) renamed, and the line it was on; `None` when
/// it cannot be found.
fn rename_second(yaml: &str, key: &str, line: usize, column: usize) -> Option<(String, usize)> {
    let lines: Vec<&str> = yaml.lines().collect();
    let indent = column.checked_sub(1)?;
    let mut seen = 0;
    for (index, text) in lines.iter().enumerate().skip(line.checked_sub(1)?) {
        let leading = text.len() - text.trim_start_matches([' ', '-']).len();
        if index + 1 > line && !text.trim().is_empty() && leading < indent {
            return None;
        }
        let Some(rest) = text.get(indent..) else {
            continue;
        };
        if !text[..indent].chars().all(|c| c == ' ' || c == '-') {
            continue;
        }
        let Some(after) = rest
            .strip_prefix(key)
            .or_else(|| rest.strip_prefix(&format!("\"{key}\"")))
        else {
            continue;
        };
        if !after.trim_start().starts_with(':') {
            continue;
        }
        seen += 1;
        if seen < 2 {
            continue;
        }
        // Repeats of the key renamed already in this mapping.
        let taken = lines[line - 1..index]
            .iter()
            .filter(|other| other.contains(&format!("{key}{REPEATED_KEY_MARK}")))
            .count();
        let renamed = format!(
            "{}{key}{REPEATED_KEY_MARK}{}{after}",
            &text[..indent],
            taken + 2
        );
        let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        out[index] = renamed;
        let mut joined = out.join("\n");
        joined.push('\n');
        return Some((joined, index + 1));
    }
    None
}

/// The key a renamed repeat stands for, and its repetition:
/// `("severity", 2)` for `severity__again2`.
pub fn repeated_key(name: &str) -> Option<(&str, usize)> {
    let (key, number) = name.rsplit_once(REPEATED_KEY_MARK)?;
    Some((key, number.parse().ok()?))
}

/// Most letters a misspelt word of a closed set may differ by from the word
/// it is read as: one for words of up to [`SHORT_WORD_CHARS`] letters, two for
/// longer ones. An edit is a letter added, removed, changed, or two letters
/// swapped.
pub const NEAR_WORD_EDITS_MAX: usize = 2;

/// Words this long or shorter are read as a near word one edit away at
/// most: `note` and `none` are two apart, `major` and `minor` two.
pub const SHORT_WORD_CHARS: usize = 5;

/// Words shorter than this are never read as a near word: `no` is not a
/// misspelt `note`.
pub const NEAR_WORD_CHARS_MIN: usize = 3;

/// The one word of `choices` that `written` misspells (already lowered and
/// with `-` and spaces as `_`, as the choices are), by its place in
/// `choices`: within [`NEAR_WORD_EDITS_MAX`] edits for a long word, one for a
/// short one, and strictly nearer than every other choice. `None` when no
/// choice is that near, when two are as near, or when `written` is too short
/// to tell.
pub fn near_word(written: &str, choices: &[&str]) -> Option<usize> {
    let length = written.chars().count();
    if length < NEAR_WORD_CHARS_MIN {
        return None;
    }
    let most = if length <= SHORT_WORD_CHARS {
        1
    } else {
        NEAR_WORD_EDITS_MAX
    };
    let mut nearest: Option<(usize, usize)> = None;
    let mut tied = false;
    for (place, choice) in choices.iter().enumerate() {
        let edits = edit_distance(written, choice);
        if edits == 0 || edits > most {
            continue;
        }
        match nearest {
            Some((_, best)) if edits > best => {}
            Some((_, best)) if edits == best => tied = true,
            _ => {
                nearest = Some((place, edits));
                tied = false;
            }
        }
    }
    nearest.filter(|_| !tied).map(|(place, _)| place)
}

/// Edits from `a` to `b`: letters added, removed or changed, and two
/// neighbours swapped (the optimal string alignment distance).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut rows = vec![0usize; (a.len() + 1) * width];
    for (i, row) in rows.chunks_mut(width).enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[(i - 1) * width + j] + 1)
                .min(rows[i * width + j - 1] + 1)
                .min(rows[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[(i - 2) * width + j - 2] + 1);
            }
            rows[i * width + j] = best;
        }
    }
    rows[a.len() * width + b.len()]
}

/// What an id written in an answer refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdMatch {
    /// Written exactly as it exists.
    Exact(String),
    /// Written in another case or with decoration; unambiguous.
    Read(String),
    /// It could be any of these.
    Ambiguous(Vec<String>),
    /// No id matches.
    Unknown,
}

/// Matches `written` against `known`: exactly; else ignoring case; else its
/// leading id-like token (`b1` of `b1 (claim)` or `B1: claim`), ignoring
/// case. A form that fits more than one known id, or whose decoration names
/// another known id (`b1, b2`, `B1 and b3`), is ambiguous.
///
/// Indexes `known` for this one match: a reader that matches many ids
/// against the same list builds a [`KnownIds`] once instead.
pub fn match_id(written: &str, known: &[&str]) -> IdMatch {
    KnownIds::new(known.iter().copied()).match_id(written)
}

/// The ids an answer may name, indexed once, so that matching a written id
/// ([`KnownIds::match_id`]) costs the length of what was written, not the
/// number of ids: an answer with thousands of entries, each naming one of
/// thousands of ids, is read in time that grows with its size.
#[derive(Clone, Debug, Default)]
pub struct KnownIds<'a> {
    /// Every id, in the order given (ambiguous readings list them so).
    ids: Vec<&'a str>,
    /// Where each id stands in `ids` (an id given twice, at both places).
    exact: HashMap<&'a str, Vec<usize>>,
    /// Where the ids of each lowercase spelling stand in `ids`.
    loose: HashMap<String, Vec<usize>>,
}

impl<'a> KnownIds<'a> {
    pub fn new(ids: impl IntoIterator<Item = &'a str>) -> Self {
        let mut known = KnownIds::default();
        for (index, id) in ids.into_iter().enumerate() {
            known.ids.push(id);
            known.exact.entry(id).or_default().push(index);
            known
                .loose
                .entry(id.to_ascii_lowercase())
                .or_default()
                .push(index);
        }
        known
    }

    /// Every id, in the order given.
    pub fn ids(&self) -> &[&'a str] {
        &self.ids
    }

    pub fn contains(&self, id: &str) -> bool {
        self.exact.contains_key(id)
    }

    /// Where the ids equal to `word` ignoring case stand, in order.
    fn loose(&self, word: &str) -> &[usize] {
        self.loose
            .get(&word.to_ascii_lowercase())
            .map_or(&[], Vec::as_slice)
    }

    /// The ids at `places`, in the order given.
    fn at(&self, places: impl IntoIterator<Item = usize>) -> Vec<String> {
        let mut places: Vec<usize> = places.into_iter().collect();
        places.sort_unstable();
        places.dedup();
        places
            .into_iter()
            .map(|place| self.ids[place].to_string())
            .collect()
    }

    /// [`match_id`] against these ids.
    pub fn match_id(&self, written: &str) -> IdMatch {
        let written = written.trim();
        if self.contains(written) {
            return IdMatch::Exact(written.to_string());
        }
        // Every known id a word of `written` names: the word's exact id if it
        // has one, else every id it matches ignoring case.
        let mut named: HashSet<&str> = HashSet::new();
        for word in written.split(|c: char| !is_id_char(c)) {
            let word = trim_id_punctuation(word);
            match self.exact.get_key_value(word.as_str()) {
                Some((id, _)) => {
                    named.insert(id);
                }
                None => named.extend(self.loose(&word).iter().map(|place| self.ids[*place])),
            }
        }
        // Every place of every id named, so an id given twice is named twice.
        let named = self.at(named.iter().flat_map(|id| self.exact[id].iter().copied()));
        if named.len() > 1 {
            return IdMatch::Ambiguous(named);
        }
        let token = leading_token(written);
        for candidate in [written, token.as_str()] {
            if candidate.is_empty() {
                continue;
            }
            if self.contains(candidate) {
                return IdMatch::Read(candidate.to_string());
            }
            let matches = self.loose(candidate);
            match matches.len() {
                0 => continue,
                1 => return IdMatch::Read(self.ids[matches[0]].to_string()),
                _ => return IdMatch::Ambiguous(self.at(matches.iter().copied())),
            }
        }
        IdMatch::Unknown
    }
}

/// Whether `c` may stand in an id: ids may hold dots (`X2.1`).
fn is_id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// The id `written` starts with, without punctuation after it: `b1` of
/// `b1. The claim`; empty when it starts with none.
fn leading_token(written: &str) -> String {
    let token_len = written
        .find(|c: char| !is_id_char(c))
        .unwrap_or(written.len());
    trim_id_punctuation(&written[..token_len])
}

/// `word` without a dot or dash that ends it, which is punctuation (`b1.`).
fn trim_id_punctuation(word: &str) -> String {
    word.trim_end_matches(['-', '.']).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(yaml: &str) -> Option<(u8, Option<String>)> {
        read_score(&yaml_serde::from_str::<Value>(yaml).unwrap())
    }

    /// Issue 59: a closed-set word misspelt by a letter or two is read as
    /// the one allowed word that near; a word as near to two, or near to
    /// none, is not read.
    #[test]
    fn a_near_word_is_read_only_when_one_choice_is_that_near() {
        let changes = [
            "strengthen",
            "retract",
            "replace",
            "add_fallback",
            "decline",
        ];
        assert_eq!(
            near_word("strenghten", &changes),
            Some(0),
            "swapped letters"
        );
        assert_eq!(near_word("retrct", &changes), Some(1));
        assert_eq!(near_word("declined", &changes), Some(4));
        let rulings = ["resolved", "unresolved", "contradicted"];
        assert_eq!(near_word("resolvd", &rulings), Some(0));
        let severities = ["critical", "high", "medium", "low"];
        assert_eq!(near_word("extreme", &severities), None, "near none");
        assert_eq!(near_word("hihg", &severities), Some(1));
        let minor_major = ["major", "minor", "note"];
        assert_eq!(near_word("mainr", &minor_major), None, "too far from both");
        assert_eq!(
            near_word("resolvex", &["resolved", "resolves"]),
            None,
            "as near to both"
        );
        assert_eq!(near_word("nite", &minor_major), Some(2));
        assert_eq!(near_word("no", &["note"]), None, "too short to tell");
        assert_eq!(near_word("major", &minor_major), None, "exact is not near");
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    /// Issue 59: a key given twice in one block mapping is renamed so the
    /// YAML reads, and said to be; a flow mapping's repeat is left alone.
    #[test]
    fn a_key_given_twice_is_renamed_so_the_yaml_reads() {
        let yaml = "items:\n  - a: 1\n    b: 2\n    a: 3\n  - a: 1\n    a: 1\n";
        let (renamed, notes) = rename_repeated_keys(yaml);
        assert_eq!(
            renamed,
            "items:\n  - a: 1\n    b: 2\n    a__again2: 3\n  - a: 1\n    a__again2: 1\n"
        );
        assert_eq!(notes.len(), 2);
        assert_eq!(repeated_key("a__again2"), Some(("a", 2)));
        assert_eq!(repeated_key("a"), None);
        // JSON and other flow mappings too, at their own depth only.
        let (flow, notes) = rename_repeated_keys("{a: 1, a: 2}\n");
        assert_eq!(flow, "{a: 1, a__again2: 2}\n");
        assert_eq!(notes.len(), 1);
        let json = "{\"findings\": [\n  {\"id\": \"x\", \"v\": {\"id\": 1}, \"id\": \"y\"}\n]}\n";
        let (renamed, _) = rename_repeated_keys(json);
        assert_eq!(
            renamed,
            "{\"findings\": [\n  {\"id\": \"x\", \"v\": {\"id\": 1}, \"id__again2\": \"y\"}\n]}\n"
        );
        let quoted = "{\"a\": \"x, \\\"a\\\": y\", \"a\": 2}\n";
        let (renamed, _) = rename_repeated_keys(quoted);
        assert_eq!(renamed, "{\"a\": \"x, \\\"a\\\": y\", \"a__again2\": 2}\n");
    }

    #[test]
    fn scores_are_read_where_their_meaning_is_whole_and_on_the_scale() {
        assert_eq!(score("4"), Some((4, None)));
        assert_eq!(score("\"4\""), Some((4, Some("\"4\"".into()))));
        assert_eq!(score("4.0"), Some((4, Some("4.0".into()))));
        assert_eq!(score("\"4/5\""), Some((4, Some("\"4/5\"".into()))));
        assert_eq!(score("\"4 / 5\""), Some((4, Some("\"4 / 5\"".into()))));
        assert_eq!(
            score("\"4 out of 5\""),
            Some((4, Some("\"4 out of 5\"".into())))
        );
        assert_eq!(score("4/5"), Some((4, Some("\"4/5\"".into()))));
        for refused in [
            "4.5",
            "\"4.5\"",
            "\"4/10\"",
            "\"four\"",
            "0",
            "6",
            "\"6/5\"",
            "-3",
            "\"4 points\"",
            "[4]",
            "\"+4\"",
        ] {
            assert_eq!(score(refused), None, "{refused}");
        }
    }

    #[test]
    fn ids_match_in_another_case_or_with_decoration_when_one_fits() {
        let known = ["b1", "b2", "b10"];
        assert_eq!(match_id("b1", &known), IdMatch::Exact("b1".into()));
        assert_eq!(match_id("B1", &known), IdMatch::Read("b1".into()));
        assert_eq!(match_id("b1 (claim)", &known), IdMatch::Read("b1".into()));
        assert_eq!(match_id("B1: claim", &known), IdMatch::Read("b1".into()));
        assert_eq!(match_id("b10", &known), IdMatch::Exact("b10".into()));
        assert_eq!(match_id("b3", &known), IdMatch::Unknown);
        assert_eq!(match_id("b2.", &known), IdMatch::Read("b2".into()));
        let dotted = ["X1.1", "X1.2", "X2.1"];
        assert_eq!(
            match_id("x2.1 (pool)", &dotted),
            IdMatch::Read("X2.1".into())
        );
        assert_eq!(match_id("X1", &dotted), IdMatch::Unknown);
        assert_eq!(match_id("block one", &known), IdMatch::Unknown);
        // Decoration that names another id makes the reading ambiguous.
        assert_eq!(
            match_id("b1, b2", &known),
            IdMatch::Ambiguous(vec!["b1".into(), "b2".into()])
        );
        assert_eq!(
            match_id("B1 (builds on B10)", &known),
            IdMatch::Ambiguous(vec!["b1".into(), "b10".into()])
        );
        // Two ids that differ only in case: an exact token wins, a form
        // that fits both is refused.
        let twins = ["ab", "AB"];
        assert_eq!(match_id("AB (claim)", &twins), IdMatch::Read("AB".into()));
        assert_eq!(
            match_id("Ab", &twins),
            IdMatch::Ambiguous(vec!["ab".into(), "AB".into()])
        );
    }

    #[test]
    fn leading_tabs_expand_to_the_next_stop_of_the_width_line_for_line() {
        let yaml = "a:\n \tb: 1\n\t  c: \"x\ty\"\n";
        assert_eq!(
            expand_leading_tabs(yaml, 4),
            "a:\n    b: 1\n      c: \"x\ty\"\n"
        );
        assert_eq!(
            expand_leading_tabs(yaml, 2),
            "a:\n  b: 1\n    c: \"x\ty\"\n"
        );
        assert_eq!(read_tab_widths("a: 1\n"), TabReading::NoMixedTabs);
    }

    #[test]
    fn tabs_and_emphasis_are_tidied_line_for_line() {
        let (tidy, notes) = tidy_source(
            "block_scores:\n\t- **block_id**: b1\n\t  `score`: 4\n\t  **rationale:** fine\n",
        );
        assert_eq!(
            tidy,
            "block_scores:\n  - block_id: b1\n    score: 4\n    rationale: fine\n"
        );
        assert_eq!(
            notes,
            [
                "read tab indentation as one level a tab (3 lines)",
                "read markdown emphasis around `block_id`, `score`, `rationale` as plain keys"
            ]
        );
        // The text of a block scalar is text, emphasis and all.
        let scalar = "description: |\n  **Risk:** the queue backs up\n**score**: 4\n";
        assert_eq!(
            tidy_source(scalar).0,
            "description: |\n  **Risk:** the queue backs up\nscore: 4\n"
        );
        // Tabs mixed with space-indented lines have no one meaning: left
        // for the YAML parser to refuse.
        let mixed = "block_scores:\n  - block_id: b1\n\t  score: 4\n";
        assert_eq!(tidy_source(mixed), (mixed.to_string(), Vec::new()));
        let space_then_tab = "block_scores:\n \t- block_id: b1\n";
        assert_eq!(tidy_source(space_then_tab).1, Vec::<String>::new());
        let clean = "blocks:\n  - id: b1\n    text: \"**bold** in a value stays\"\n";
        assert_eq!(tidy_source(clean), (clean.to_string(), Vec::new()));
        assert_eq!(
            tidy_source("- *not a key* at all\n").0,
            "- *not a key* at all\n"
        );
    }

    /// The matching as it was before [`KnownIds`]: a scan of `known` for
    /// every word, kept here to check the index reads ids the same way.
    fn match_id_by_scan(written: &str, known: &[&str]) -> IdMatch {
        let written = written.trim();
        if known.contains(&written) {
            return IdMatch::Exact(written.to_string());
        }
        let mut named: Vec<&str> = Vec::new();
        for word in written.split(|c: char| !is_id_char(c)) {
            let word = trim_id_punctuation(word);
            let word = word.as_str();
            let ids: Vec<&str> = if known.contains(&word) {
                known.iter().filter(|id| **id == word).copied().collect()
            } else {
                known
                    .iter()
                    .filter(|id| id.eq_ignore_ascii_case(word))
                    .copied()
                    .collect()
            };
            for id in ids {
                if !named.contains(&id) {
                    named.push(id);
                }
            }
        }
        let named: Vec<String> = known
            .iter()
            .filter(|id| named.contains(id))
            .map(|id| id.to_string())
            .collect();
        if named.len() > 1 {
            return IdMatch::Ambiguous(named);
        }
        let token = leading_token(written);
        for candidate in [written, token.as_str()] {
            if candidate.is_empty() {
                continue;
            }
            if known.contains(&candidate) {
                return IdMatch::Read(candidate.to_string());
            }
            let matches: Vec<String> = known
                .iter()
                .filter(|id| id.eq_ignore_ascii_case(candidate))
                .map(|id| id.to_string())
                .collect();
            match matches.len() {
                0 => continue,
                1 => return IdMatch::Read(matches.into_iter().next().unwrap_or_default()),
                _ => return IdMatch::Ambiguous(matches),
            }
        }
        IdMatch::Unknown
    }

    proptest::proptest! {
        #[test]
        fn the_index_reads_ids_as_the_scan_did(
            known in proptest::collection::vec("[aAbBxX]{0,2}[0-9]{0,2}(\\.[0-9])?", 0..8),
            written in "[ aAbBxX0-9.,:()-]{0,12}",
        ) {
            let known: Vec<&str> = known.iter().map(String::as_str).collect();
            proptest::prop_assert_eq!(
                KnownIds::new(known.iter().copied()).match_id(&written),
                match_id_by_scan(&written, &known)
            );
        }
    }
}
