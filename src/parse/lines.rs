//! Lines in the agent's whole text: a YAML syntax error's marks moved from
//! the fenced block to the answer around it, and the probe that finds the
//! line a value sits on, so every [`ParseError`] can name the line the agent
//! wrote. Not responsible for what is wrong with a value (the readers say
//! that) or for finding the block ([`super::fenced`]).

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use yaml_serde::Value;

use super::fenced::YamlDoc;
use super::{Document, FieldPath, ParseError, Step};

impl Document {
    /// 1-based line in the whole text where the value at `path` starts, or
    /// where its nearest existing parent starts.
    pub(crate) fn line_of(&self, path: &FieldPath) -> Option<usize> {
        let probe = LineProbe { path: &path.0 };
        let error = probe
            .deserialize(yaml_serde::Deserializer::from_str(&self.source.yaml))
            .err()?;
        let yaml_line = error.location()?.line();
        Some(self.source.first_line + yaml_line - 1)
    }
}

/// Turns a YAML syntax error into one whose lines count in the whole text.
pub(super) fn syntax_error(source: &YamlDoc, error: &yaml_serde::Error) -> ParseError {
    let location = error.location();
    let problem_mark = location.as_ref().map(|at| (at.line(), at.column()));
    let mut message = shift_marks(&error.to_string(), source.first_line - 1, problem_mark);
    let problem_line = location
        .as_ref()
        .and_then(|at| source.yaml.lines().nth(at.line() - 1));
    if problem_line.is_some_and(|line| line.trim_start_matches(' ').starts_with('\t')) {
        message.push_str(" (indent with spaces; YAML does not allow tabs)");
    }
    ParseError {
        line: location.map(|at| source.first_line + at.line() - 1),
        field: None,
        message: format!("invalid YAML: {message}"),
    }
}

/// Rewrites the ` at line L column C` marks in a yaml_serde message: the
/// problem's own mark is dropped (the error carries it as `line`), any other
/// mark is shifted by `line_offset`; ` at position N` marks are dropped.
fn shift_marks(message: &str, line_offset: usize, problem_mark: Option<(usize, usize)>) -> String {
    let mut output = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(start) = rest.find(" at ") {
        output.push_str(&rest[..start]);
        let after = &rest[start + " at ".len()..];
        if let Some((line, column, consumed)) = line_column(after) {
            if Some((line, column)) != problem_mark {
                output.push_str(&format!(" at line {} column {column}", line + line_offset));
            }
            rest = &after[consumed..];
        } else if let Some((_, consumed)) = after
            .strip_prefix("position ")
            .and_then(leading_number)
            .map(|(number, digits)| (number, "position ".len() + digits))
        {
            rest = &after[consumed..];
        } else {
            output.push_str(" at ");
            rest = after;
        }
    }
    output.push_str(rest);
    output
}

/// Parses `line L column C` at the start of `text`: (L, C, bytes consumed).
fn line_column(text: &str) -> Option<(usize, usize, usize)> {
    let after_line = text.strip_prefix("line ")?;
    let (line, line_digits) = leading_number(after_line)?;
    let after_digits = &after_line[line_digits..];
    let after_column = after_digits.strip_prefix(" column ")?;
    let (column, column_digits) = leading_number(after_column)?;
    let consumed = "line ".len() + line_digits + " column ".len() + column_digits;
    Some((line, column, consumed))
}

fn leading_number(text: &str) -> Option<(usize, usize)> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let number = text[..digits].parse().ok()?;
    Some((number, digits))
}

/// Walks a YAML document along a path and fails on purpose at the value the
/// path names (or at the nearest parent where the path stops existing): the
/// deserializer stamps that failure with the value's position, which is how
/// we learn lines without a second YAML parser.
struct LineProbe<'a> {
    path: &'a [Step],
}

const PROBE_STOP: &str = "probe stop";

impl<'de> DeserializeSeed<'de> for LineProbe<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for LineProbe<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        if let Some((Step::Key(wanted), rest)) = self.path.split_first() {
            while let Some(key) = map.next_key::<Value>()? {
                if key.as_str() == Some(wanted.as_str()) {
                    map.next_value_seed(LineProbe { path: rest })?;
                    break;
                }
                map.next_value::<IgnoredAny>()?;
            }
        }
        Err(de::Error::custom(PROBE_STOP))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if let Some((Step::Index(wanted), rest)) = self.path.split_first() {
            for _ in 0..*wanted {
                if seq.next_element::<IgnoredAny>()?.is_none() {
                    return Err(de::Error::custom(PROBE_STOP));
                }
            }
            seq.next_element_seed(LineProbe { path: rest })?;
        }
        Err(de::Error::custom(PROBE_STOP))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_probe_finds_values_and_falls_back_to_the_parent() {
        let text = "intro\n```yaml\nblocks:\n  - id: b1\n    type: claim\n  - id: b2\n    type: idea\n```\n";
        let document = Document::load(text).expect("valid yaml");
        let blocks = FieldPath::root().key("blocks");
        assert_eq!(document.line_of(&blocks.index(1).key("type")), Some(7));
        assert_eq!(document.line_of(&blocks.index(1)), Some(6));
        assert_eq!(document.line_of(&blocks.index(1).key("evidence")), Some(6));
        assert_eq!(document.line_of(&blocks.index(9)), Some(4));
    }

    #[test]
    fn shift_marks_drops_the_problem_mark_and_shifts_the_others() {
        let message = "did not find expected key at line 4 column 3, while parsing a block mapping at line 2 column 1";
        assert_eq!(
            shift_marks(message, 10, Some((4, 3))),
            "did not find expected key, while parsing a block mapping at line 12 column 1"
        );
        assert_eq!(shift_marks("odd at position 7", 0, None), "odd");
    }
}
