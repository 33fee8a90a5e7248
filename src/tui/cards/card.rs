//! One record, read and written as a card: a YAML or JSON value parsed
//! into a [`Node`] (keys in the order written) and rendered as markdown, a
//! row of the identifier and the short fields as `key value` chips, then the
//! long text, maps of numbers as one row and lists as bullets.
//!
//! Not responsible for where a record starts and ends in the stream, or
//! what is shown while it streams (the parent module and [`super::json`]).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use unicode_width::UnicodeWidthStr;

use crate::tui::markdown::fence_opening;

/// Display columns of a one-line value that reads as a chip in a card's
/// first row; longer values are text.
const SHORT_COLUMNS: usize = 24;

/// Display columns a list of short values may take to read as one chip.
const SHORT_LIST_COLUMNS: usize = 32;

/// Keys whose text is a record's main text, shown without a label.
const MAIN_KEYS: &[&str] = &["title", "text", "description", "summary"];

pub(super) fn parse_yaml(text: &str) -> Option<Node> {
    yaml_serde::from_str::<Node>(text).ok()
}

/// One JSON value, or a run of them (JSON lines); `None` if any fails.
pub(super) fn parse_json_values(text: &str) -> Option<Vec<Node>> {
    let values: Result<Vec<Node>, _> = serde_json::Deserializer::from_str(text)
        .into_iter::<Node>()
        .collect();
    values.ok().filter(|values| !values.is_empty())
}

/// A parsed YAML or JSON value, keys in the order written.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Node {
    Null,
    /// A number or a boolean, as text.
    Plain(String),
    Text(String),
    List(Vec<Node>),
    Map(Vec<(String, Node)>),
}

impl Node {
    /// The text of a scalar.
    fn scalar(&self) -> Option<&str> {
        match self {
            Node::Plain(text) | Node::Text(text) => Some(text),
            _ => None,
        }
    }

    /// A one-line scalar short enough for a chip.
    fn is_short(&self) -> bool {
        match self {
            Node::Plain(_) => true,
            Node::Text(text) => {
                !text.is_empty() && !text.contains('\n') && text.width() <= SHORT_COLUMNS
            }
            _ => false,
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Node::Null => true,
            Node::Text(text) => text.trim().is_empty(),
            Node::List(items) => items.is_empty(),
            Node::Map(entries) => entries.is_empty(),
            Node::Plain(_) => false,
        }
    }

    /// A non-empty map whose values are all numbers.
    fn number_map(&self) -> Option<&[(String, Node)]> {
        match self {
            Node::Map(entries)
                if !entries.is_empty()
                    && entries.iter().all(|(_, value)| {
                        value
                            .scalar()
                            .is_some_and(|text| text.parse::<f64>().is_ok())
                    }) =>
            {
                Some(entries)
            }
            _ => None,
        }
    }

    /// A non-empty list of short scalars that fits one chip.
    fn short_list(&self) -> Option<&[Node]> {
        match self {
            Node::List(items)
                if !items.is_empty()
                    && items.iter().all(Node::is_short)
                    && items
                        .iter()
                        .filter_map(Node::scalar)
                        .map(|text| text.width() + 2)
                        .sum::<usize>()
                        <= SHORT_LIST_COLUMNS =>
            {
                Some(items)
            }
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Node, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a YAML or JSON value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Node, E> {
        Ok(Node::Plain(value.to_string()))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Node, E> {
        Ok(Node::Plain(value.to_string()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Node, E> {
        Ok(Node::Plain(value.to_string()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Node, E> {
        Ok(Node::Plain(value.to_string()))
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<Node, E> {
        Ok(Node::Text(value.to_string()))
    }

    fn visit_string<E: de::Error>(self, value: String) -> Result<Node, E> {
        Ok(Node::Text(value))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        Node::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Node::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some((key, value)) = map.next_entry::<Node, Node>()? {
            let key = match key {
                Node::Null => "~".to_string(),
                other => compact(&other),
            };
            entries.push((key, value));
        }
        Ok(Node::Map(entries))
    }
}

/// A whole document (or a record that is not a list item): maps of records
/// become section headings over their cards, the rest a card of its own.
pub(super) fn render_top(node: &Node, out: &mut String) {
    match node {
        Node::Map(entries) => {
            let mut loose: Vec<(String, Node)> = Vec::new();
            for (key, value) in entries {
                let records = match value {
                    Node::List(items)
                        if !items.is_empty()
                            && items.iter().all(|item| matches!(item, Node::Map(_))) =>
                    {
                        Some(items.as_slice())
                    }
                    Node::Map(_) if value.number_map().is_none() && !value.is_empty() => {
                        Some(std::slice::from_ref(value))
                    }
                    _ => None,
                };
                let Some(records) = records else {
                    loose.push((key.clone(), value.clone()));
                    continue;
                };
                render_card(&std::mem::take(&mut loose), out);
                out.push_str(&format!("### {}\n", inline(key)));
                for record in records {
                    render_item(record, out);
                }
            }
            render_card(&loose, out);
        }
        Node::List(items) => {
            for item in items {
                render_item(item, out);
            }
        }
        Node::Null => {}
        scalar => {
            out.push_str(&text_lines(&compact(scalar)));
            out.push_str("\n\n");
        }
    }
}

/// One item of a list of records.
pub(super) fn render_item(node: &Node, out: &mut String) {
    match node {
        Node::Map(entries) => render_card(entries, out),
        other => {
            out.push_str(&format!("- {}\n", inline_text(&compact(other))));
        }
    }
}

/// One record's fields as a card, ending in a blank line.
fn render_card(entries: &[(String, Node)], out: &mut String) {
    if entries.is_empty() {
        return;
    }
    let is_main = |key: &str| MAIN_KEYS.contains(&key);
    let identifier = entries
        .iter()
        .position(|(key, value)| (key == "id" || key.ends_with("_id")) && value.is_short())
        .or_else(|| {
            entries
                .iter()
                .position(|(key, value)| !is_main(key) && value.is_short())
        });
    let mut head = Vec::new();
    if let Some(index) = identifier {
        let (key, value) = &entries[index];
        let shown = format!("**{}**", inline(value.scalar().unwrap_or_default()));
        head.push(if key == "id" {
            shown
        } else {
            format!("{} {shown}", code(key))
        });
    }
    let mut body = String::new();
    for (index, (key, value)) in entries.iter().enumerate() {
        if Some(index) == identifier {
            continue;
        }
        if is_main(key)
            && let Some(text) = value.scalar()
        {
            if text.trim().is_empty() {
                continue;
            }
            if key == "title" && !text.contains('\n') {
                body.push_str(&format!("**{}**\n", inline(text)));
            } else {
                body.push_str(&text_lines(text));
                body.push('\n');
            }
        } else if value.is_short() {
            head.push(format!(
                "{} {}",
                code(key),
                inline(value.scalar().unwrap_or_default())
            ));
        } else if let Some(items) = value.short_list() {
            let items: Vec<String> = items.iter().filter_map(Node::scalar).map(inline).collect();
            head.push(format!("{} {}", code(key), items.join(", ")));
        } else if matches!(value, Node::Null | Node::List(_) | Node::Map(_)) && value.is_empty() {
            head.push(format!("{} none", code(key)));
        } else if let Some(text) = value.scalar() {
            if text.trim().is_empty() {
                continue;
            }
            body.push_str(&format!("**{}** {}\n", inline(key), text_lines(text)));
        } else if let Some(numbers) = value.number_map() {
            let row: Vec<String> = numbers
                .iter()
                .map(|(name, number)| {
                    format!("{} {}", inline(name), number.scalar().unwrap_or_default())
                })
                .collect();
            body.push_str(&format!("**{}** {}\n", inline(key), row.join(" · ")));
        } else {
            body.push_str(&format!("**{}**\n", inline(key)));
            match value {
                Node::List(items) => {
                    for item in items {
                        body.push_str(&format!("- {}\n", inline_text(&compact(item))));
                    }
                }
                Node::Map(fields) => {
                    for (name, field) in fields {
                        body.push_str(&format!(
                            "- {} {}\n",
                            code(name),
                            inline_text(&compact(field))
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    if !head.is_empty() {
        out.push_str(&head.join(" · "));
        out.push('\n');
    }
    out.push_str(&body);
    out.push('\n');
}

/// A value on one line: a map as `key value` pairs, a list comma-separated.
fn compact(node: &Node) -> String {
    match node {
        Node::Null => "none".to_string(),
        Node::Plain(text) | Node::Text(text) => text.replace('\n', " "),
        Node::List(items) => items.iter().map(compact).collect::<Vec<_>>().join(", "),
        Node::Map(entries) => entries
            .iter()
            .map(|(key, value)| format!("{key} {}", compact(value)))
            .collect::<Vec<_>>()
            .join(" · "),
    }
}

/// Text of a value for a chip or an identifier: every markdown character
/// escaped, so it shows as written.
pub(super) fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '&' | '~' | '!' | '#'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A key as inline code, shown as written (a key holding a backtick is
/// escaped instead).
fn code(key: &str) -> String {
    if key.contains('`') {
        inline(key)
    } else {
        format!("`{key}`")
    }
}

/// One line of text in a bullet: its inline markdown kept.
fn inline_text(text: &str) -> String {
    text.replace('\n', " ")
}

/// A value's text as markdown lines: its inline markdown and lists kept,
/// but no line may open a code fence or a heading, which would swallow or
/// mimic the cards after it.
fn text_lines(text: &str) -> String {
    text.trim_end()
        .lines()
        .map(|line| {
            let trimmed = line.trim_start();
            if fence_opening(trimmed).is_some() || trimmed.starts_with('#') {
                format!("\\{trimmed}")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
