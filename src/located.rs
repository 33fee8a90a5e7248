//! A bad file, flag or value a person wrote, located as precisely as the
//! reading allows: the file, the line (and column), the field. Every YAML
//! file quorum reads from a person (a spec, the configuration, a
//! hypotheses file) passes [`guard`] before its parser and turns the
//! parser's complaint into a [`SpecError`] with [`yaml_error_in`].
//!
//! It knows no particular file: the spec, the configuration and every
//! protocol's options build on it, so it sits below all of them.

use std::fmt;
use std::path::{Path, PathBuf};

/// A bad spec, flag or input file, located as precisely as possible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub file: Option<PathBuf>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub field: Option<String>,
    pub message: String,
}

impl SpecError {
    pub fn new(message: impl Into<String>) -> Self {
        SpecError {
            file: None,
            line: None,
            column: None,
            field: None,
            message: message.into(),
        }
    }

    pub fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    pub fn in_file(mut self, file: &Path, source: Option<&str>) -> Self {
        self.file = Some(file.to_path_buf());
        if self.line.is_none()
            && let (Some(source), Some(field)) = (source, &self.field)
        {
            self.line = find_field_line(source, field);
        }
        self
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}", file.display())?;
            if let Some(line) = self.line {
                write!(f, ":{line}")?;
                if let Some(column) = self.column {
                    write!(f, ":{column}")?;
                }
            }
            write!(f, ": ")?;
        }
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for SpecError {}

/// The line of the last path segment of `field` (`agents.judge.x` → the
/// line that starts the `judge.x` key), for errors found after parsing.
fn find_field_line(source: &str, field: &str) -> Option<usize> {
    // `context[1].path`: the key `context`, its item 1, that item's `path`.
    let (path, index, within) = match field.split_once('[') {
        Some((path, rest)) => {
            let (index, within) = rest.split_once(']').unwrap_or((rest, ""));
            (
                path,
                index.parse::<usize>().ok(),
                within.strip_prefix('.').filter(|key| !key.is_empty()),
            )
        }
        None => (field, None, None),
    };
    let segments: Vec<&str> = path.split('.').collect();
    let lines: Vec<&str> = source.lines().collect();
    let starts_key = |line: &str, key: &str| {
        let trimmed = line.trim_start().trim_start_matches("- ");
        trimmed.starts_with(&format!("{key}:")) || trimmed.starts_with(&format!("\"{key}\":"))
    };
    // Longest suffix of the path that names a key: `agents.judge.x` is the key `judge.x`.
    let key_line = (0..segments.len()).find_map(|start| {
        let key = segments[start..].join(".");
        lines.iter().position(|line| starts_key(line, &key))
    })?;
    let Some(index) = index else {
        return Some(key_line + 1);
    };
    // A list written on the key's own line (`domains: [a, b]`): its items
    // are on that line.
    let after_key = lines[key_line]
        .split_once(':')
        .map(|(_, rest)| rest.trim())
        .unwrap_or_default();
    if after_key.starts_with('[') {
        return Some(key_line + 1);
    }
    // The index-th list item under the key, within the key's block.
    // Items are the `- ` lines at the first item's indentation: a `- ` in
    // a block of text deeper down is not one.
    let indent = |line: &str| line.len() - line.trim_start().len();
    let is_item = |line: &str| line.trim_start().starts_with("- ");
    let key_indent = indent(lines[key_line]);
    let block_end = (key_line + 1..lines.len())
        .find(|&number| {
            let line = lines[number];
            let blank = line.trim().is_empty() || line.trim_start().starts_with('#');
            !blank && (indent(line) < key_indent || (indent(line) == key_indent && !is_item(line)))
        })
        .unwrap_or(lines.len());
    let Some(item_indent) = lines[key_line + 1..block_end]
        .iter()
        .find(|line| is_item(line))
        .map(|line| indent(line))
    else {
        return Some(key_line + 1);
    };
    let items: Vec<usize> = (key_line + 1..block_end)
        .filter(|&number| is_item(lines[number]) && indent(lines[number]) == item_indent)
        .collect();
    let Some(&item) = items.get(index) else {
        return Some(key_line + 1);
    };
    let end = items.get(index + 1).copied().unwrap_or(block_end);
    let line = within
        .and_then(|key| (item..end).find(|&number| starts_key(lines[number], key)))
        .unwrap_or(item);
    Some(line + 1)
}

/// Turns a YAML deserialisation error into a located [`SpecError`].
pub fn yaml_error(file: &Path, error: &yaml_serde::Error) -> SpecError {
    let text = crate::text::short_quotes(&error.to_string());
    let (line, column) = match error.location() {
        Some(location) => (Some(location.line()), Some(location.column())),
        None => (None, None),
    };
    // The message repeats the position at its end; keep it once, up front.
    let message = match text.rfind(" at line ") {
        Some(at) if line.is_some() => text[..at].to_string(),
        _ => text,
    };
    let (field, message) = match message.split_once(": ") {
        Some((path, rest)) if !path.contains(' ') && !path.is_empty() => {
            (Some(path.to_string()), rest.to_string())
        }
        _ => (None, message),
    };
    SpecError {
        file: Some(file.to_path_buf()),
        line,
        column,
        field,
        message,
    }
}

/// [`yaml_error`] for text at hand: a duplicate key, which the parser
/// reports at the mapping that holds it, is pointed at the key's second
/// appearance, the line a person must change.
pub fn yaml_error_in(file: &Path, source: &str, error: &yaml_serde::Error) -> SpecError {
    if let Some(open) = crate::yaml_guard::unclosed(source) {
        return SpecError {
            file: Some(file.to_path_buf()),
            line: Some(open.line),
            column: None,
            field: None,
            message: open.message,
        };
    }
    let mut located = yaml_error(file, error);
    let duplicate = located
        .message
        .strip_prefix("duplicate field `")
        .or_else(|| located.message.strip_prefix("duplicate entry with key \""))
        .and_then(|key| key.split(['`', '"']).next())
        .map(str::to_string);
    if let (Some(key), Some(line)) = (duplicate, located.line) {
        let second = source
            .lines()
            .enumerate()
            .skip(line - 1)
            .filter(|(_, text)| {
                let trimmed = text.trim_start().trim_start_matches("- ");
                trimmed.starts_with(&format!("{key}:"))
                    || trimmed.starts_with(&format!("\"{key}\":"))
            })
            .nth(1);
        if let Some((number, _)) = second {
            located.line = Some(number + 1);
            located.column = None;
        }
    }
    located
}

/// Refuses YAML too deep, too alias-heavy or too broken to hand to the
/// parser (see [`crate::yaml_guard`]), naming the file and the line.
pub fn guard(file: &Path, source: &str) -> Result<(), SpecError> {
    crate::yaml_guard::check(source).map_err(|refused| SpecError {
        file: Some(file.to_path_buf()),
        line: Some(refused.line),
        column: None,
        field: None,
        message: refused.message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_of_a_flow_list_is_on_its_key_line_and_block_lists_end_with_their_block() {
        let source = "protocol: council\ndomains: [security, astrology]\nscript:\n  replies:\n    - role: a\n    - role: b\n";
        assert_eq!(find_field_line(source, "domains[1]"), Some(2));
        let source = "domains:\n  - security\n  - astrology\nother:\n  - x\n  - y\n  - z\n";
        assert_eq!(find_field_line(source, "domains[1]"), Some(3));
        // Past the list's end: the key, not an item of a later list.
        assert_eq!(find_field_line(source, "domains[2]"), Some(1));
        let source = "domains:\n- security\n- astrology\nother: 1\n";
        assert_eq!(find_field_line(source, "domains[1]"), Some(3));
    }
}
