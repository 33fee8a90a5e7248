//! Labelled markdown blocks: the formats the planning debate's seed gives
//! its roles, read as leniently as the YAML ones.
//!
//! ```text
//! **Challenge 2**: Data model - The plan assumes one tenant per database
//! Problem: ...
//! Severity: HIGH
//! ```
//!
//! A block opens with a heading line naming its kind and number, in bold or
//! not, as a list item or a `###` heading (`### Challenge [2]: ...`), and
//! runs to the next heading of its kind or the end. Its fields are lines
//! `Key: value` (the key in bold or not, after a list bullet or not), a
//! value running on over the following lines until the next field. Keys
//! are matched ignoring case. Lines before the first heading are prose and
//! ignored.
//!
//! Not responsible for what a field must hold (the protocol's reader says),
//! nor for YAML: see [`super::Document`].

/// One block: its heading, where it starts, and its fields in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The number the author gave it, when it gave one.
    pub number: Option<u32>,
    /// What follows the number on the heading line: `Data model - The plan
    /// assumes one tenant per database`.
    pub heading: String,
    /// 1-based line of the heading in the whole text.
    pub line: usize,
    /// `(key as written in the known list, value, 1-based line)`.
    pub fields: Vec<(String, String, usize)>,
}

impl Block {
    /// The value of `key`, trimmed; `None` when absent or empty.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(name, _, _)| name.eq_ignore_ascii_case(key))
            .map(|(_, value, _)| value.trim())
            .filter(|value| !value.is_empty())
    }

    /// The line of `key`, else of the heading.
    pub fn line_of(&self, key: &str) -> usize {
        self.fields
            .iter()
            .find(|(name, _, _)| name.eq_ignore_ascii_case(key))
            .map_or(self.line, |(_, _, line)| *line)
    }

    /// `Data model - The plan assumes ...` split at its first ` - `, ` – `
    /// or ` — `: the category and the summary. Without a separator the
    /// whole heading is the summary.
    pub fn category_and_summary(&self) -> (String, String) {
        for separator in [" - ", " – ", " — ", ": "] {
            if let Some((category, summary)) = self.heading.split_once(separator) {
                let category = strip_emphasis(category.trim());
                let summary = strip_emphasis(summary.trim());
                if !category.is_empty() && !summary.is_empty() {
                    return (category, summary);
                }
            }
        }
        (String::new(), strip_emphasis(self.heading.trim()))
    }
}

/// Every block of `kind` (`Challenge`, `Improvement`) in `text`, with the
/// fields named in `keys`; a line starting with another key of `keys`
/// opens that field, any other line continues the field before it.
pub fn blocks(text: &str, kind: &str, keys: &[&str]) -> Vec<Block> {
    let mut found: Vec<Block> = Vec::new();
    let mut in_fence = false;
    for (index, raw) in text.lines().enumerate() {
        let line_number = index + 1;
        let trimmed = raw.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if let Some((number, heading)) = heading_of(trimmed, kind) {
            found.push(Block {
                number,
                heading,
                line: line_number,
                fields: Vec::new(),
            });
            continue;
        }
        let Some(block) = found.last_mut() else {
            continue;
        };
        if let Some((key, value)) = field_of(trimmed, keys) {
            block.fields.push((key.to_string(), value, line_number));
        } else if let Some((_, value, _)) = block.fields.last_mut() {
            if trimmed.is_empty() {
                if !value.is_empty() && !value.ends_with('\n') {
                    value.push('\n');
                }
            } else if value.ends_with('\n')
                || trimmed.starts_with('#')
                || trimmed.starts_with("---")
            {
                // A new paragraph or section after a field ends the field:
                // the seed's fields are one line, or lines run together.
                block
                    .fields
                    .push((String::new(), String::new(), line_number));
            } else {
                if !value.is_empty() && !value.ends_with('\n') {
                    value.push(' ');
                }
                value.push_str(trimmed);
            }
        }
    }
    for block in &mut found {
        block.fields.retain(|(key, _, _)| !key.is_empty());
        for (_, value, _) in &mut block.fields {
            *value = value.trim().to_string();
        }
    }
    found
}

/// `(number, rest)` when `line` is a heading of `kind`: `**Challenge 2**:
/// rest`, `Challenge [2]: rest`, `### Challenge 2 - rest`, `- **Challenge
/// 2:** rest`.
fn heading_of(line: &str, kind: &str) -> Option<(Option<u32>, String)> {
    let line = line.trim_start_matches(['#', '-', '*', ' ']);
    let line = line.trim_start_matches('_');
    // `get`, not indexing: the line may hold a multi-byte character where
    // the kind's name would end (found by the fuzzer).
    if !line
        .get(..kind.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(kind))
    {
        return None;
    }
    let rest = &line[kind.len()..];
    if rest.starts_with(|c: char| c.is_alphabetic()) {
        return None; // `Challenges`, `Challenged`
    }
    let rest = rest.trim_start_matches([' ', '[', '#']);
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let number = rest[..digits].parse().ok();
    let rest = rest[digits..].trim_start_matches([']', '*', '_', ' ']);
    let rest = rest
        .strip_prefix(':')
        .or_else(|| rest.strip_prefix('.'))
        .or_else(|| rest.strip_prefix(" - "))
        .or_else(|| rest.strip_prefix("- "))
        .or_else(|| rest.strip_prefix('—'))
        .unwrap_or(rest);
    let rest = rest.trim_start_matches(['*', '_', ' ']);
    if number.is_none() && rest.is_empty() {
        return None;
    }
    Some((number, rest.trim().to_string()))
}

/// `(key, value)` when `line` starts with one of `keys` and a colon, in
/// bold or not, after a list bullet or not.
fn field_of<'k>(line: &str, keys: &[&'k str]) -> Option<(&'k str, String)> {
    let body = line.trim_start_matches(['-', '*', '+', ' ']);
    let body = body.trim_start_matches(['*', '_']);
    keys.iter().find_map(|key| {
        if !body
            .get(..key.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(key))
        {
            return None;
        }
        let rest = body[key.len()..].trim_start_matches(['*', '_']);
        let rest = rest.strip_prefix(':')?;
        let value = rest.trim_start_matches(['*', '_']).trim();
        Some((*key, value.to_string()))
    })
}

/// `text` without markdown emphasis marks around it.
pub fn strip_emphasis(text: &str) -> String {
    text.trim_matches(|c| matches!(c, '*' | '_' | '`' | '[' | ']'))
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: [&str; 5] = ["Problem", "Assumes", "Evidence", "Suggestion", "Severity"];

    #[test]
    fn blocks_are_read_in_every_common_shape() {
        let text = "Here are my challenges.\n\n**Challenge 1**: Data model - One tenant per database\nProblem: The plan\nputs every tenant in one schema.\n\nEvidence: db/schema.sql:12\nSuggestion: Add tenant_id.\nSeverity: CRITICAL\n\n### Challenge [2]: Ops — No rollback\n- **Problem:** Nothing undoes step 3.\n- **Severity**: high\n\n- Challenge 3 - Naming\nSeverity: MEDIUM\n";
        let found = blocks(text, "Challenge", &KEYS);
        assert_eq!(found.len(), 3);
        assert_eq!(found[0].number, Some(1));
        assert_eq!(found[0].line, 3);
        assert_eq!(
            found[0].category_and_summary(),
            ("Data model".into(), "One tenant per database".into())
        );
        assert_eq!(
            found[0].field("problem"),
            Some("The plan puts every tenant in one schema.")
        );
        assert_eq!(found[0].field("Severity"), Some("CRITICAL"));
        assert_eq!(found[0].field("Assumes"), None);
        assert_eq!(found[0].line_of("Severity"), 9);
        assert_eq!(found[1].number, Some(2));
        assert_eq!(found[1].category_and_summary().0, "Ops");
        assert_eq!(found[1].field("Severity"), Some("high"));
        assert_eq!(
            found[2].category_and_summary(),
            (String::new(), "Naming".into())
        );
    }

    #[test]
    fn fenced_code_and_other_words_open_no_block() {
        let text = "Challenges below.\n```\n**Challenge 9**: x - y\n```\nChallenged assumptions are listed.\n**Challenge 1**: A - B\nSeverity: HIGH\n## Verification\nU1: [VERIFIED] docs\n";
        let found = blocks(text, "Challenge", &KEYS);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].field("Severity"), Some("HIGH"));
    }

    /// Found by the fuzzer (`fuzz/artifacts/agent_answers/crash-0dd919d6…`):
    /// a multi-byte character where a heading's or a key's name would end
    /// is text, not a panic.
    #[test]
    fn a_multi_byte_character_where_a_name_would_end_is_only_text() {
        let crash = "%\0\0\0\u{8}\0\0-\u{531}";
        assert!(blocks(crash, "Challenge", &["Severity"]).is_empty());
        for line in ["ChallengԱ 1: x", "Challeng\u{e9}", "- Ch\u{e9}"] {
            assert_eq!(heading_of(line, "Challenge"), None, "{line}");
        }
        for line in ["**SeveritԱ: high", "Sev\u{e9}rity: x", "- Severit\u{e9}"] {
            assert_eq!(field_of(line, &["Severity"]), None, "{line}");
        }
    }
}
