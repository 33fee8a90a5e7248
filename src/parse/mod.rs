//! Agent text in, typed data out: the reader every protocol's parsers share.
//!
//! Responsible for: finding the YAML in an agent's answer ([`extract_yaml`]),
//! checking it against the format the agent's prompt asked for, and building
//! `model` values from it. When the text does not fit, the [`ParseError`] says
//! exactly what is wrong (the line in the agent's whole text, the field path
//! and a short message) so it can be quoted back in a repair prompt and shown
//! to the moderator.
//!
//! Not responsible for: persisting raw output (that happens before any parse,
//! INF-02), deciding whether bad output is retried or marked malformed
//! (`protocol`), or any arithmetic on scores (`verdict`, INF-06). Nothing here
//! does I/O.
//!
//! Leniency, decided once for every format and every protocol: keys match
//! exactly or, failing that, ignoring ASCII case; keys we do not know are
//! ignored; enum values ignore case and treat `-` and spaces like `_`;
//! numbers and booleans are accepted where text is expected; text is
//! trimmed. Beyond that, what a model writes instead of the exact format is
//! read where its meaning is unambiguous ([`normalise`]: tabs, emphasised
//! keys, scores as text or `4/5`, ids in another case or decorated), and
//! every such reading is noted ([`Read::notes`]) for the record. A score
//! that is not a whole number from 1 to 5 stays an error (RULES.md A14).

pub mod blocks;
pub mod citations;
mod fenced;
mod lines;
mod lists;
pub(crate) use lists::Shape;
pub mod normalise;
pub mod requests;

use std::cell::RefCell;
use std::fmt;

use yaml_serde::{Mapping, Sequence, Value};

use fenced::find_yaml;
use lines::syntax_error;

use crate::text::thousands;
pub use fenced::{YamlDoc, extract_yaml, without_request_blocks};

/// Longest stretch of an agent's own text quoted back in an error, in chars.
const MAX_QUOTED_CHARS: usize = 40;

/// How many missing items an error lists before summarising the rest.
const MAX_LISTED_ITEMS: usize = 12;

/// Most items one answer may raise in one list: critique items, blocks of
/// a thesis tree, changes of a revision or a rewrite, a red team's
/// findings, a root cause's hypotheses and challenges, council findings,
/// challenges, discoveries, responses, expansions and proposals, a plan's
/// challenges and proposals. A list over it makes the answer unusable, like
/// any other malformed answer (kept on disk, then repaired or marked
/// malformed as its protocol does), before a single item of it is read: no
/// moderator can weigh more, and every later prompt, board and document
/// carries them all. A hypotheses file may hold as many hypotheses.
pub const ITEMS_PER_ANSWER_MAX: usize = 1_000;

/// Most entries a list inside an item may have (an item's `evidence:`)
/// before the answer is refused unread: far past any real item, and a
/// bound on what one item can cost the parser. A longer one within it is
/// the item's own business: read, or left out with that item alone.
pub const NESTED_ENTRIES_MAX: usize = 10 * ITEMS_PER_ANSWER_MAX;

/// Added to errors about an answer that had no fenced block, since the
/// likeliest fix is to add one.
pub(crate) const NO_FENCE_HINT: &str =
    " (no ```yaml block was found, so the whole answer was read as YAML)";

/// Why an agent's text could not be turned into the data its prompt asked for.
///
/// Displays as `line 14, blocks[2].type: expected one of claim, implementation,
/// fallback; found "idea"`, leaving out whichever of line and field is unknown.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.render())]
pub struct ParseError {
    /// 1-based line in the agent's whole text (not just the fenced block).
    pub line: Option<usize>,
    /// Path of the offending field, like `critiques[3].severity`; list
    /// positions are 0-based, as written by YAML tools.
    pub field: Option<String>,
    /// What is wrong, phrased so the agent can fix it.
    pub message: String,
}

impl ParseError {
    fn render(&self) -> String {
        match (self.line, &self.field) {
            (Some(line), Some(field)) => format!("line {line}, {field}: {}", self.message),
            (Some(line), None) => format!("line {line}: {}", self.message),
            (None, Some(field)) => format!("{field}: {}", self.message),
            (None, None) => self.message.clone(),
        }
    }
}

/// One step of a [`FieldPath`].
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// Where a value sits in the YAML document, as the agent wrote it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FieldPath(Vec<Step>);

impl FieldPath {
    pub(crate) fn root() -> Self {
        FieldPath::default()
    }

    pub(crate) fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn key(&self, key: &str) -> Self {
        let mut steps = self.0.clone();
        steps.push(Step::Key(key.to_owned()));
        FieldPath(steps)
    }

    pub(crate) fn index(&self, index: usize) -> Self {
        let mut steps = self.0.clone();
        steps.push(Step::Index(index));
        FieldPath(steps)
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (position, step) in self.0.iter().enumerate() {
            match step {
                Step::Key(key) if position == 0 => f.write_str(key)?,
                Step::Key(key) => write!(f, ".{key}")?,
                Step::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// A value read from an agent's answer, what the reader took other than
/// as written to get it (`read score "4" as 4 (b2 feasibility)`), in the
/// order it met them, and the items it could not read and left out of
/// `value` ([`Slip`]). No notes and no slips: the answer was exactly the
/// format.
#[derive(Clone, Debug, PartialEq)]
pub struct Read<T> {
    pub value: T,
    pub notes: Vec<String>,
    pub slips: Vec<Slip>,
}

impl<T> Read<T> {
    /// `value`, read exactly as written.
    pub fn exact(value: T) -> Self {
        Read {
            value,
            notes: Vec::new(),
            slips: Vec::new(),
        }
    }

    /// The same reading of another value.
    pub fn map<U>(self, change: impl FnOnce(T) -> U) -> Read<U> {
        Read {
            value: change(self.value),
            notes: self.notes,
            slips: self.slips,
        }
    }
}

/// One item of an answer the reader could not read and left out, the rest
/// of the answer read (issue 59: one slip costs one item): a critique item
/// without a severity, a ruling on a challenge nobody answered, an id given
/// twice with different words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slip {
    /// Where the item stands in its list, 0-based, when it has a place.
    pub index: Option<usize>,
    /// What quorum calls the item, when it knows: `c3`, `X1.2`, `C2`.
    pub id: Option<String>,
    /// What is wrong, located as for a whole answer.
    pub error: ParseError,
}

impl Slip {
    /// A slip of the item at `index` of its list.
    pub fn at(index: usize, error: ParseError) -> Self {
        Slip {
            index: Some(index),
            id: None,
            error,
        }
    }

    /// A slip of the item quorum calls `id`.
    pub fn of(id: impl Into<String>, error: ParseError) -> Self {
        Slip {
            index: None,
            id: Some(id.into()),
            error,
        }
    }

    /// The same slip, its item called `id`.
    pub fn named(self, id: impl Into<String>) -> Self {
        Slip {
            id: Some(id.into()),
            ..self
        }
    }
}

impl fmt::Display for Slip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.id {
            Some(id) => write!(f, "{id}: {}", self.error),
            None => write!(f, "{}", self.error),
        }
    }
}

/// `read` when it left nothing out; otherwise the first item it left out,
/// as an error for the whole answer: for what must be read whole (an answer
/// a person types, whom quorum can simply ask to fix it).
pub fn whole<T>(read: Read<T>) -> Result<Read<T>, ParseError> {
    match read.slips.first() {
        None => Ok(read),
        Some(slip) => Err(slip.error.clone()),
    }
}

/// One line for the log saying what was read other than as written.
pub fn readings_line(notes: &[String]) -> String {
    format!("answer read leniently: {}", notes.join("; "))
}

/// The YAML of one agent answer, parsed, with enough kept to point at lines.
pub(crate) struct Document {
    pub(crate) source: YamlDoc,
    /// Whether the YAML came from a fenced block rather than the whole text.
    pub(crate) fenced: bool,
    pub(crate) root: Value,
    /// What was read other than as written, so far.
    notes: RefCell<Vec<String>>,
    /// Items left out for what is wrong with them, so far.
    slips: RefCell<Vec<Slip>>,
}

impl Document {
    /// Finds the YAML in `text` and parses it; a syntax error points at the
    /// line in `text`.
    pub(crate) fn load(text: &str) -> Result<Document, ParseError> {
        let fenced::Found {
            doc: source,
            fenced,
            unclosed,
        } = find_yaml(text)?;
        if source.yaml.trim().is_empty() {
            return Err(ParseError {
                line: Some(source.first_line),
                field: None,
                message: if fenced {
                    "the YAML block is empty".to_owned()
                } else {
                    "the answer is empty".to_owned()
                },
            });
        }
        let (yaml, mut notes) = normalise::tidy_source(&source.yaml);
        if let Some((opener, line)) = &unclosed {
            notes.insert(
                0,
                format!(
                    "read the {opener} block opened at line {line} to the end of the answer, where its closing fence is missing"
                ),
            );
        }
        let source = YamlDoc { yaml, ..source };
        // Nesting too deep, aliases that multiply text and a list of more
        // items than an answer may hold are refused before the parser
        // spends time or memory on them: it keeps every event of the text
        // in memory, and a value for each item.
        let longest = match crate::yaml_guard::check_counting_lists(&source.yaml) {
            Err(refused) => {
                return Err(ParseError {
                    line: Some(source.first_line + refused.line - 1),
                    field: None,
                    message: format!("invalid YAML: {}", refused.message),
                });
            }
            Ok(longest) => longest,
        };
        let too_long = (longest.outermost)
            .filter(|list| list.entries > ITEMS_PER_ANSWER_MAX)
            .or(longest
                .nested
                .filter(|list| list.entries > NESTED_ENTRIES_MAX));
        if let Some(list) = too_long {
            let what = list.key.as_deref().unwrap_or("list entries");
            let message = over_item_limit(list.entries, what).unwrap_or_default();
            return Err(ParseError {
                line: Some(source.first_line + list.line - 1),
                field: list.key,
                message: format!("{message}{}", if fenced { "" } else { NO_FENCE_HINT }),
            });
        }
        // A key given twice in one mapping is not an unreadable answer: the
        // second is renamed so the YAML reads, and the item it is in says
        // whether the two agree ([`Fields::new`], issue 59).
        let (source, parsed) = match yaml_serde::from_str::<Value>(&source.yaml) {
            Err(error) if error.to_string().contains("duplicate entry with key") => {
                let (yaml, renamed) = normalise::rename_repeated_keys(&source.yaml);
                notes.extend(renamed);
                let source = YamlDoc { yaml, ..source };
                let parsed = yaml_serde::from_str::<Value>(&source.yaml);
                (source, parsed)
            }
            parsed => (source, parsed),
        };
        match parsed {
            Ok(root) => Ok(Document {
                source,
                fenced,
                root,
                notes: RefCell::new(notes),
                slips: RefCell::default(),
            }),
            Err(error) => {
                // Tabs among spaces: read at the one width that makes sense
                // of them, or refused when two widths disagree.
                match normalise::read_tab_widths(&source.yaml) {
                    normalise::TabReading::Read { yaml, root, note } => {
                        let mut notes = notes;
                        notes.push(note);
                        return Ok(Document {
                            source: YamlDoc { yaml, ..source },
                            fenced,
                            root,
                            notes: RefCell::new(notes),
                            slips: RefCell::default(),
                        });
                    }
                    normalise::TabReading::Differ { widths, line } => {
                        return Err(ParseError {
                            line: Some(source.first_line + line - 1),
                            field: None,
                            message: format!(
                                "invalid YAML: the indentation mixes tabs with spaces, and a tab {} columns wide gives different answers; indent with spaces only{}",
                                alternatives(&widths),
                                if fenced { "" } else { NO_FENCE_HINT }
                            ),
                        });
                    }
                    normalise::TabReading::NoMixedTabs | normalise::TabReading::NoWidth => {}
                }
                let mut parse_error = match crate::yaml_guard::unclosed(&source.yaml) {
                    // The parser's message for an unclosed `[` or quote
                    // misleads; the line that opened it does not.
                    Some(open) => ParseError {
                        line: Some(source.first_line + open.line - 1),
                        field: None,
                        message: format!("invalid YAML: {}", open.message),
                    },
                    None => syntax_error(&source, &error),
                };
                if !fenced {
                    parse_error.message.push_str(NO_FENCE_HINT);
                }
                if let Some((opener, line)) = unclosed {
                    parse_error.message.push_str(&format!(
                        " (the {opener} fence opened at line {line} is never closed, so everything after it was read as YAML)"
                    ));
                }
                Err(parse_error)
            }
        }
    }

    /// Notes that something was read other than as written.
    pub(crate) fn note(&self, note: String) {
        self.notes.borrow_mut().push(note);
    }

    /// Leaves an item out of what is read, for `slip`'s reason.
    pub(crate) fn slip(&self, slip: Slip) {
        self.slips.borrow_mut().push(slip);
    }

    /// How many notes were made so far: an item read in vain takes its
    /// notes back to here ([`Document::forget_notes_after`]).
    pub(crate) fn notes_made(&self) -> usize {
        self.notes.borrow().len()
    }

    /// Forgets the notes made after the first `kept`: they were about an
    /// item left out.
    pub(crate) fn forget_notes_after(&self, kept: usize) {
        self.notes.borrow_mut().truncate(kept);
    }

    /// `value`, with every note made while reading it and every item left
    /// out.
    pub(crate) fn read<T>(&self, value: T) -> Read<T> {
        Read {
            value,
            notes: self.notes.borrow().clone(),
            slips: self.slips.borrow().clone(),
        }
    }

    /// The error for a document whose top level is not what the format asks
    /// for; `expected` describes the format (`"a mapping with `blocks:`"`).
    pub(crate) fn root_mismatch(&self, expected: &str) -> ParseError {
        let message = match &self.root {
            Value::String(_) => format!("expected {expected} in a ```yaml block; found only prose"),
            other => format!(
                "expected {expected}; found {}{}",
                describe(other),
                self.hint()
            ),
        };
        ParseError {
            line: Some(self.source.first_line),
            field: None,
            message,
        }
    }

    /// The top level of an answer whose format is a mapping, to read field
    /// by field; anything else is refused with [`Document::root_mismatch`]
    /// and `expected`.
    pub(crate) fn root_fields(&self, expected: &str) -> Result<Fields<'_>, ParseError> {
        match &self.root {
            Value::Mapping(_) => Fields::new(self, &self.root, FieldPath::root(), "a mapping"),
            _ => Err(self.root_mismatch(expected)),
        }
    }

    /// Refuses a list of `count` items at `path` when it holds more than
    /// [`ITEMS_PER_ANSWER_MAX`]; `what` names them (`critiques`).
    pub(crate) fn within_item_limit(
        &self,
        path: &FieldPath,
        count: usize,
        what: &str,
    ) -> Result<(), ParseError> {
        match over_item_limit(count, what) {
            Some(message) => Err(self.error(path, message)),
            None => Ok(()),
        }
    }

    /// An error about the value at `path`, with its line in the whole text.
    pub(crate) fn error(&self, path: &FieldPath, message: impl Into<String>) -> ParseError {
        ParseError {
            line: self.line_of(path),
            field: (!path.is_root()).then(|| path.to_string()),
            message: format!("{}{}", message.into(), self.hint()),
        }
    }

    pub(crate) fn hint(&self) -> &'static str {
        if self.fenced { "" } else { NO_FENCE_HINT }
    }
}

/// `2, 4 or 8`.
fn alternatives(widths: &[usize]) -> String {
    let words: Vec<String> = widths.iter().map(usize::to_string).collect();
    match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => words.join(""),
    }
}

/// A YAML mapping being read field by field, for precise errors.
pub(crate) struct Fields<'a> {
    pub(crate) document: &'a Document,
    pub(crate) map: &'a Mapping,
    pub(crate) path: FieldPath,
    /// What this mapping is about, for notes (`b2 feasibility`).
    about: Option<String>,
}

impl<'a> Fields<'a> {
    /// Reads `value` as a mapping; `what` names what was expected, for the
    /// error (`"a block (a mapping with id, type, ...)"`). A key the agent
    /// gave twice ([`normalise::rename_repeated_keys`]) reads once when both
    /// say the same, noted; two that differ are a conflict, an error for
    /// the mapping (issue 59: never a silent pick).
    pub(crate) fn new(
        document: &'a Document,
        value: &'a Value,
        path: FieldPath,
        what: &str,
    ) -> Result<Fields<'a>, ParseError> {
        match value {
            Value::Mapping(map) => {
                let fields = Fields {
                    document,
                    map,
                    path,
                    about: None,
                };
                fields.settle_repeated_keys()?;
                Ok(fields)
            }
            other => {
                Err(document.error(&path, format!("expected {what}; found {}", describe(other))))
            }
        }
    }

    /// Checks every key given again in this mapping against the first.
    fn settle_repeated_keys(&self) -> Result<(), ParseError> {
        for (name, again) in self.map.iter() {
            let Some((key, _)) = name.as_str().and_then(normalise::repeated_key) else {
                continue;
            };
            let first = self
                .map
                .iter()
                .find(|(other, _)| other.as_str() == Some(key))
                .map(|(_, value)| value);
            if first == Some(again) {
                self.note(format!("read past {key}, given again the same"));
                continue;
            }
            return Err(self.document.error(
                &self.path.key(key),
                format!(
                    "{key} is given twice with different values ({} and {}); give it once",
                    first.map_or_else(|| "nothing".to_string(), describe),
                    describe(again)
                ),
            ));
        }
        Ok(())
    }

    /// Says what this mapping is about, for the notes of what is read in
    /// it: `read score "4" as 4 (b2 feasibility)`.
    pub(crate) fn about(mut self, about: impl Into<String>) -> Self {
        self.about = Some(about.into());
        self
    }

    /// Notes a reading, with what the mapping is about, else its path.
    pub(crate) fn note(&self, note: String) {
        let note = match &self.about {
            Some(about) => format!("{note} ({about})"),
            None if self.path.is_root() => note,
            None => format!("{note} ({})", self.path),
        };
        self.document.note(note);
    }

    /// The value under `key`: an exact match first, then one ignoring case.
    pub(crate) fn get(&self, key: &str) -> Option<(&'a str, &'a Value)> {
        let exact = self.map.iter().find_map(|(name, value)| {
            name.as_str()
                .filter(|name| *name == key)
                .map(|name| (name, value))
        });
        exact.or_else(|| {
            self.map.iter().find_map(|(name, value)| {
                name.as_str()
                    .filter(|name| name.eq_ignore_ascii_case(key))
                    .map(|name| (name, value))
            })
        })
    }

    /// The path of `key`, spelled the way the agent spelled it if present.
    pub(crate) fn path_of(&self, key: &str) -> FieldPath {
        match self.get(key) {
            Some((written, _)) => self.path.key(written),
            None => self.path.key(key),
        }
    }

    pub(crate) fn error(&self, key: &str, message: impl Into<String>) -> ParseError {
        self.document.error(&self.path_of(key), message)
    }

    /// The value under `key`, or an error naming the missing field.
    pub(crate) fn required(&self, key: &str) -> Result<&'a Value, ParseError> {
        match self.get(key) {
            Some((_, value)) => Ok(value),
            None => Err(self
                .document
                .error(&self.path.key(key), "required field is missing")),
        }
    }

    /// Non-empty text under `key`.
    pub(crate) fn required_text(&self, key: &str) -> Result<String, ParseError> {
        let value = self.required(key)?;
        match scalar_text(value) {
            Some(text) if !text.is_empty() => Ok(text),
            Some(_) => Err(self.error(key, "must not be empty")),
            None => Err(self.error(key, format!("expected text; found {}", describe(value)))),
        }
    }

    /// Text under `key`; absent, null and empty all read as `None`.
    pub(crate) fn optional_text(&self, key: &str) -> Result<Option<String>, ParseError> {
        let Some((_, value)) = self.get(key) else {
            return Ok(None);
        };
        match scalar_text(value) {
            Some(text) if text.is_empty() => Ok(None),
            Some(text) => Ok(Some(text)),
            None => Err(self.error(key, format!("expected text; found {}", describe(value)))),
        }
    }

    /// One of a closed set of words under `key`: as written (in any case,
    /// `-` and spaces as `_`), or, noted, misspelt by a letter or two when
    /// exactly one word is that near ([`normalise::near_word`]).
    pub(crate) fn required_choice<T: Copy>(
        &self,
        key: &str,
        choices: &[(&str, T)],
    ) -> Result<T, ParseError> {
        let value = self.required(key)?;
        let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
        let found =
            scalar_text(value).map(|text| text.to_ascii_lowercase().replace(['-', ' '], "_"));
        if let Some(word) = &found {
            if let Some(place) = names.iter().position(|name| name == word) {
                return Ok(choices[place].1);
            }
            if let Some(place) = normalise::near_word(word, &names) {
                self.note(format!(
                    "read {key} {} as {}",
                    describe(value),
                    names[place]
                ));
                return Ok(choices[place].1);
            }
        }
        Err(self.error(
            key,
            format!(
                "expected one of {}; found {}",
                names.join(", "),
                describe(value)
            ),
        ))
    }

    /// Notes every key of this mapping that is none of `keys` (in any
    /// case): read past, not refused (issue 59).
    pub(crate) fn note_stray_keys(&self, keys: &[&str]) {
        for name in self.map.keys() {
            let Some(name) = name.as_str() else {
                continue;
            };
            let name = normalise::repeated_key(name).map_or(name, |(key, _)| key);
            if !keys.iter().any(|key| key.eq_ignore_ascii_case(name)) {
                self.note(format!("ignored the key {}", quote(name)));
            }
        }
    }

    /// A whole score from 1 to 5 under `key` (RULES.md A14): a YAML
    /// integer, or, noted, `"4"`, `4.0`, `4/5` or `4 out of 5`.
    pub(crate) fn required_score(&self, key: &str) -> Result<u8, ParseError> {
        let value = self.required(key)?;
        match normalise::read_score(value) {
            Some((score, None)) => Ok(score),
            Some((score, Some(written))) => {
                self.note(format!("read {key} {written} as {score}"));
                Ok(score)
            }
            None => Err(self.error(
                key,
                format!(
                    "expected a whole number from 1 to 5; found {}",
                    describe(value)
                ),
            )),
        }
    }

    /// The id under `key`, one of `known`: as written, or, noted, in another
    /// case or with decoration after it when exactly one fits. `Ok(None)`
    /// when none does (the caller says what that means); an id that fits
    /// several is an error.
    pub(crate) fn known_id(
        &self,
        key: &str,
        known: &normalise::KnownIds<'_>,
    ) -> Result<Option<String>, ParseError> {
        let written = self.required_text(key)?;
        let found = self
            .document
            .match_id(&written, known, &self.path_of(key), key)?;
        Ok(found.map(|(id, note)| {
            if let Some(note) = note {
                self.note(note);
            }
            id
        }))
    }

    /// The id under `key`, one of `known`, read as [`Fields::known_id`]
    /// reads it; one that fits none is an error at `key`, which `unknown`
    /// words from the id as written, quoted (`no hypothesis "H9"`).
    pub(crate) fn required_known_id(
        &self,
        key: &str,
        known: &normalise::KnownIds<'_>,
        unknown: impl FnOnce(&str) -> String,
    ) -> Result<String, ParseError> {
        match self.known_id(key, known)? {
            Some(id) => Ok(id),
            None => {
                let written = self.required_text(key)?;
                Err(self.error(key, unknown(&quote(&written))))
            }
        }
    }

    /// A yes/no under `key`: a YAML boolean, or `yes`, `no`, `true`,
    /// `false` in any case; absent or null is `default`.
    pub(crate) fn optional_flag(&self, key: &str, default: bool) -> Result<bool, ParseError> {
        let Some((_, value)) = self.get(key) else {
            return Ok(default);
        };
        let word = match value {
            Value::Null => return Ok(default),
            Value::Bool(flag) => return Ok(*flag),
            Value::String(text) => text.trim().to_ascii_lowercase(),
            _ => String::new(),
        };
        match word.as_str() {
            "yes" | "true" => Ok(true),
            "no" | "false" => Ok(false),
            _ => Err(self.error(
                key,
                format!("expected true or false; found {}", describe(value)),
            )),
        }
    }

    /// Texts under `key`: a list of them, or one text standing for a list
    /// of one; absent or null is none. Empty entries are left out.
    pub(crate) fn optional_texts(&self, key: &str) -> Result<Vec<String>, ParseError> {
        let Some((_, value)) = self.get(key) else {
            return Ok(Vec::new());
        };
        let path = self.path_of(key);
        let items: Vec<(FieldPath, &Value)> = match value {
            Value::Sequence(list) => list
                .iter()
                .enumerate()
                .map(|(index, item)| (path.index(index), item))
                .collect(),
            other => vec![(path, other)],
        };
        let mut texts = Vec::with_capacity(items.len());
        for (path, item) in items {
            match scalar_text(item) {
                Some(text) if text.is_empty() => {}
                Some(text) => texts.push(text),
                None => {
                    return Err(self
                        .document
                        .error(&path, format!("expected text; found {}", describe(item))));
                }
            }
        }
        Ok(texts)
    }

    /// A list under `key`, with its path.
    pub(crate) fn required_list(&self, key: &str) -> Result<(&'a Sequence, FieldPath), ParseError> {
        let value = self.required(key)?;
        let path = self.path_of(key);
        match value {
            Value::Sequence(list) => Ok((list, path)),
            other => Err(self
                .document
                .error(&path, format!("expected a list; found {}", describe(other)))),
        }
    }
}

impl Document {
    /// `written`, one of `known` (see [`normalise::match_id`]), with the note
    /// to make when it was not written exactly; `None` when no id fits. An
    /// id that fits several is an error at `path`.
    pub(crate) fn match_id(
        &self,
        written: &str,
        known: &normalise::KnownIds<'_>,
        path: &FieldPath,
        what: &str,
    ) -> Result<Option<(String, Option<String>)>, ParseError> {
        match known.match_id(written) {
            normalise::IdMatch::Exact(id) => Ok(Some((id, None))),
            normalise::IdMatch::Read(id) => {
                let note = format!("read {what} {} as {id}", quote(written));
                Ok(Some((id, Some(note))))
            }
            normalise::IdMatch::Ambiguous(ids) => Err(self.error(
                path,
                format!(
                    "{} could be any of {}; write the id exactly",
                    quote(written),
                    ids.join(", ")
                ),
            )),
            normalise::IdMatch::Unknown => Ok(None),
        }
    }
}

/// Scalar text, trimmed; numbers and booleans as written; null as empty.
/// `None` for lists, mappings and tagged values.
pub(crate) fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.trim().to_owned()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        Value::Null => Some(String::new()),
        Value::Sequence(_) | Value::Mapping(_) | Value::Tagged(_) => None,
    }
}

/// A short description of what the agent wrote, for "found ..." messages.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "nothing".to_owned(),
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) => number.to_string(),
        Value::String(text) => quote(text),
        Value::Sequence(_) => "a list".to_owned(),
        Value::Mapping(_) => "a mapping".to_owned(),
        Value::Tagged(tagged) => format!("a value tagged {}", tagged.tag),
    }
}

/// `text` in double quotes, cut to [`MAX_QUOTED_CHARS`].
pub(crate) fn quote(text: &str) -> String {
    let text = text.trim();
    if text.chars().count() <= MAX_QUOTED_CHARS {
        format!("{text:?}")
    } else {
        let cut: String = text.chars().take(MAX_QUOTED_CHARS).collect();
        format!("{:?}", format!("{cut}..."))
    }
}

/// Why an answer raising `count` items (`what`: `critiques`) is unusable,
/// when they are more than [`ITEMS_PER_ANSWER_MAX`]: said so the repair
/// prompt can quote it.
pub(crate) fn over_item_limit(count: usize, what: &str) -> Option<String> {
    (count > ITEMS_PER_ANSWER_MAX).then(|| {
        format!(
            "{} {what}, more than one answer may hold ({}); give the {} that matter most",
            thousands(count as u64),
            thousands(ITEMS_PER_ANSWER_MAX as u64),
            thousands(ITEMS_PER_ANSWER_MAX as u64)
        )
    })
}

/// `a, b, c`, or `a, b, ... and 7 more` past [`MAX_LISTED_ITEMS`].
pub(crate) fn list_capped(items: &[String]) -> String {
    if items.len() <= MAX_LISTED_ITEMS {
        return items.join(", ");
    }
    let shown = items[..MAX_LISTED_ITEMS].join(", ");
    format!("{shown} and {} more", items.len() - MAX_LISTED_ITEMS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 61 and issue 59 together: an answer whose item list is over
    /// the limit is refused before it is parsed, but a long list inside
    /// one item is that item's business (read with the rest, or that item
    /// left out) up to NESTED_ENTRIES_MAX, past which the answer is refused
    /// unread too, naming the list.
    #[test]
    fn only_an_item_list_over_the_limit_or_an_absurd_inner_list_is_refused_unread() {
        let item_list =
            |count: usize| format!("critiques:\n{}", "  - target_block: b1\n".repeat(count));
        assert!(Document::load(&item_list(ITEMS_PER_ANSWER_MAX)).is_ok());
        let refused = Document::load(&item_list(ITEMS_PER_ANSWER_MAX + 1))
            .err()
            .unwrap();
        assert_eq!(refused.field.as_deref(), Some("critiques"));
        let inner = |count: usize| {
            format!(
                "critiques:\n  - target_block: b1\n    evidence:\n{}  - target_block: b2\n",
                "      - a trace\n".repeat(count)
            )
        };
        let long_evidence = Document::load(&inner(1_500)).expect("one item's long list is read");
        assert!(matches!(long_evidence.root, Value::Mapping(_)));
        let refused = Document::load(&inner(NESTED_ENTRIES_MAX + 1))
            .err()
            .unwrap();
        assert_eq!(refused.field.as_deref(), Some("evidence"));
        assert!(refused.message.starts_with("10,001 evidence"), "{refused}");
    }

    /// The error for `text`, which does not load.
    fn refused(text: &str) -> ParseError {
        Document::load(text).err().expect(text)
    }

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(over_item_limit(ITEMS_PER_ANSWER_MAX, "critiques"), None);
        assert_eq!(
            over_item_limit(ITEMS_PER_ANSWER_MAX + 1, "critiques").as_deref(),
            Some(
                "1,001 critiques, more than one answer may hold (1,000); give the 1,000 that matter most"
            )
        );
    }

    #[test]
    fn display_leaves_out_unknown_parts() {
        let full = ParseError {
            line: Some(14),
            field: Some("blocks[2].type".to_owned()),
            message: "expected one of claim, implementation, fallback; found \"idea\"".to_owned(),
        };
        assert_eq!(
            full.to_string(),
            "line 14, blocks[2].type: expected one of claim, implementation, fallback; found \"idea\""
        );
        let line_only = ParseError {
            field: None,
            ..full.clone()
        };
        assert!(line_only.to_string().starts_with("line 14: expected"));
        let field_only = ParseError {
            line: None,
            ..full.clone()
        };
        assert!(
            field_only
                .to_string()
                .starts_with("blocks[2].type: expected")
        );
        let bare = ParseError {
            line: None,
            field: None,
            ..full
        };
        assert!(bare.to_string().starts_with("expected one of"));
    }

    #[test]
    fn field_paths_read_like_yaml_tools_write_them() {
        let path = FieldPath::root().key("critiques").index(3).key("severity");
        assert_eq!(path.to_string(), "critiques[3].severity");
        assert_eq!(FieldPath::root().index(0).key("id").to_string(), "[0].id");
    }

    #[test]
    fn yaml_syntax_error_line_counts_in_the_whole_text() {
        let text = "I thought about it.\n\nHere you go:\n```yaml\nblocks:\n  - id: b1\n    text: \"unterminated\n    type: claim\n```\n";
        let error = refused(text);
        assert!(error.message.starts_with("invalid YAML: "), "{error}");
        let line = error.line.expect("a line");
        assert!(
            (7..=9).contains(&line),
            "line {line} should be inside the block: {error}"
        );
        assert!(!error.message.contains("column 1,"), "{error}");
    }

    #[test]
    fn syntax_error_with_crlf_endings_points_at_the_right_line() {
        let text = "Answer:\r\n```yaml\r\nblocks:\r\n  - id: b1\r\n   bad: [unclosed\r\n```\r\n";
        let error = refused(text);
        let line = error.line.expect("a line");
        assert!((5..=6).contains(&line), "{error}");
    }

    #[test]
    fn tab_indentation_that_cannot_be_read_gets_a_hint() {
        // Tabs alone are read as levels; tabs among space-indented lines
        // that read at none of the usual widths are refused.
        let error = refused("```yaml\nblocks:\n  - id: b1\n\t   type: claim\n```\n");
        assert_eq!(error.line, Some(4));
        assert!(
            error
                .message
                .ends_with("(indent with spaces; YAML does not allow tabs)"),
            "{error}"
        );
    }

    /// Tabs mixed with spaces (issue 26): read at the one usual width that
    /// makes valid YAML of them, with a note saying which.
    #[test]
    fn tabs_among_spaces_are_read_at_the_one_width_that_works() {
        // At 2 columns the tab lines `type` up with `id`; at 4 or 8 it
        // would continue the plain scalar `b1`, which YAML refuses.
        let doc = Document::load("Here.\n```yaml\nblocks:\n  - id: b1\n\t  type: claim\n```\n")
            .expect("read at width 2");
        assert_eq!(
            yaml_serde::to_string(&doc.root).unwrap(),
            "blocks:\n- id: b1\n  type: claim\n"
        );
        assert_eq!(
            doc.read(()).notes,
            [
                "read tabs mixed with spaces as 2 columns wide (the only width of 2, 4 and 8 at which it reads)"
            ]
        );
        // Lines still count in the agent's text.
        assert_eq!(doc.source.yaml.lines().count(), 3);
        let doc = Document::load("```yaml\nscores:\n    a: 1\n\tb: 2\n```\n").expect("width 4");
        assert_eq!(
            doc.read(()).notes,
            [
                "read tabs mixed with spaces as 4 columns wide (the only width of 2, 4 and 8 at which it reads)"
            ]
        );
        assert_eq!(doc.root["scores"]["b"].as_u64(), Some(2));
    }

    /// Tabs mixed with spaces that two widths read differently are
    /// refused, at the first line with a tab in its indentation.
    #[test]
    fn tabs_among_spaces_that_two_widths_read_differently_are_refused() {
        // A tab in a block scalar's text: every width reads, each with
        // other text.
        assert_eq!(
            normalise::read_tab_widths("text: |\n  one\n\ttwo\n"),
            normalise::TabReading::Differ {
                widths: vec![2, 4, 8],
                line: 3
            }
        );
        let error = refused("Answer.\n```yaml\ntext: |\n  one\n\ttwo\n```\n");
        assert_eq!(error.line, Some(5));
        assert!(
            error.message.contains("mixes tabs with spaces")
                && error
                    .message
                    .contains("2, 4 or 8 columns wide gives different answers"),
            "{error}"
        );
    }

    #[test]
    fn empty_yaml_block_is_an_error() {
        let error = refused("Nothing to add.\n```yaml\n```\n");
        assert_eq!(error.line, Some(3));
        assert_eq!(error.message, "the YAML block is empty");
    }

    #[test]
    fn long_quotes_and_long_lists_are_cut() {
        let long = "x".repeat(100);
        assert!(quote(&long).len() < 50);
        let items: Vec<String> = (1..=20).map(|n| format!("c{n}")).collect();
        assert!(list_capped(&items).ends_with("c12 and 8 more"));
    }
}
