//! `quorum demo --export-script FILE`: the demo's spec as a file to edit
//! and run, with the protocol flags given (`--intensity quick`, `--simple`)
//! written into it, so `quorum run FILE` is the debate those flags showed.
//!
//! A flag becomes its spec key at the top level of the spec, where every
//! protocol reads its options (as [`crate::protocol::kind::read_options`]
//! applies flags over a spec): the key's entry is replaced when the demo
//! sets it, added after the topic when it does not. Only those lines
//! change; the demo's comments, script and layout stay as they are, and the
//! result is parsed again to prove it says exactly that.
//!
//! Not responsible for flags that are not spec keys (`--speed`,
//! `--headless`): the caller names them as not exported.

use std::path::{Path, PathBuf};

use crate::located::SpecError;
use crate::protocol::kind::FlagValue;
use crate::protocol::registry;

/// A demo's spec with the flags written in.
#[derive(Debug)]
pub struct Exported {
    pub text: String,
    /// Protocol flags not written in, each with why (a file outside the
    /// exported spec's folder, which a spec may not name).
    pub left_out: Vec<String>,
}

/// `text` (a demo's spec) with `flags` written in, for a spec saved at
/// `path`; `cwd` is the folder a flag's relative path starts from.
pub fn with_flags(
    text: &str,
    flags: &[FlagValue],
    path: &Path,
    cwd: &Path,
) -> Result<Exported, SpecError> {
    let mut edited = text.to_string();
    let mut left_out = Vec::new();
    // The last flag for a key wins, as when the flags are applied.
    let mut written: Vec<(String, yaml_serde::Value)> = Vec::new();
    for (index, flag) in flags.iter().enumerate() {
        if flags[index + 1..].iter().any(|later| later.key == flag.key) {
            continue;
        }
        let mut value = flag.value.clone();
        if names_a_path(&flag.key) {
            let given = PathBuf::from(value.as_str().unwrap_or_default());
            match beside(&given, path, cwd) {
                Some(relative) => value = yaml_serde::Value::String(relative.display().to_string()),
                None => {
                    left_out.push(format!(
                        "{} (`{}` lies outside the folder of {}, and a spec names only what \
                         lies in its own folder)",
                        flag.flag,
                        given.display(),
                        path.display()
                    ));
                    continue;
                }
            }
        }
        edited = set_top_level(&edited, &flag.key, &value)
            .map_err(|message| SpecError::new(message).field(flag.flag.clone()))?;
        written.push((flag.key.clone(), value));
    }
    check(text, &edited, &written)
        .map_err(|message| SpecError::new(message).field("--export-script"))?;
    crate::spec::parse(path, &edited)?;
    Ok(Exported {
        text: edited,
        left_out,
    })
}

/// Whether the option `key` names a file or a folder (its flag takes a
/// FILE or a DIR): relative to where quorum runs as a flag, to the spec's
/// folder in a spec.
fn names_a_path(key: &str) -> bool {
    registry::kinds().into_iter().any(|kind| {
        kind.options()
            .iter()
            .any(|option| option.key == key && matches!(option.value_name, "FILE" | "DIR"))
    })
}

/// `given` (relative to `cwd`, or absolute) as a path relative to the
/// folder of the spec at `spec`, when it lies inside that folder.
fn beside(given: &Path, spec: &Path, cwd: &Path) -> Option<PathBuf> {
    let absolute = |path: &Path| {
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            cwd.join(path)
        };
        lexical(&path)
    };
    let folder = absolute(spec.parent().unwrap_or(Path::new("")));
    let relative = absolute(given).strip_prefix(&folder).ok()?.to_path_buf();
    (!relative.as_os_str().is_empty()).then_some(relative)
}

/// `path` with `.` and `..` resolved by name (no file system access).
fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether `line` starts a top-level entry or ends the document: what ends
/// the entry before it.
fn ends_an_entry(line: &str) -> bool {
    let body = line.trim_end_matches(['\n', '\r']);
    if body.starts_with("---") || body.starts_with("...") {
        return true;
    }
    body.chars()
        .next()
        .is_some_and(|c| !matches!(c, ' ' | '\t' | '#' | '-'))
}

/// The line range of the top-level entry `key` in `lines`, its trailing
/// blank and comment lines left to what follows.
fn entry(lines: &[&str], key: &str) -> Option<(usize, usize)> {
    let start = lines.iter().position(|line| {
        line.strip_prefix(key)
            .is_some_and(|rest| rest.starts_with(':'))
    })?;
    let mut end = start + 1;
    while end < lines.len() && !ends_an_entry(lines[end]) {
        end += 1;
    }
    while end > start + 1 {
        let body = lines[end - 1].trim();
        if body.is_empty() || body.starts_with('#') {
            end -= 1;
        } else {
            break;
        }
    }
    Some((start, end))
}

/// `text` with the top-level `key` set to `value`: its entry replaced, or
/// a new one after the topic's (at the end when there is no topic).
fn set_top_level(text: &str, key: &str, value: &yaml_serde::Value) -> Result<String, String> {
    let mut mapping = yaml_serde::Mapping::new();
    mapping.insert(yaml_serde::Value::String(key.to_string()), value.clone());
    let rendered = yaml_serde::to_string(&mapping)
        .map_err(|error| format!("cannot write `{key}` as YAML: {error}"))?;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let (at, replaced) = match entry(&lines, key) {
        Some((start, end)) => (start, end - start),
        None => match entry(&lines, "topic") {
            Some((_, end)) => (end, 0),
            None => (lines.len(), 0),
        },
    };
    let mut out = String::with_capacity(text.len() + rendered.len());
    for line in &lines[..at] {
        out.push_str(line);
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&rendered);
    for line in &lines[at + replaced..] {
        out.push_str(line);
    }
    Ok(out)
}

/// Proves `edited` says what `original` says with `written` set over it,
/// and nothing else.
fn check(
    original: &str,
    edited: &str,
    written: &[(String, yaml_serde::Value)],
) -> Result<(), String> {
    let parse = |text: &str| match yaml_serde::from_str::<yaml_serde::Value>(text) {
        Ok(yaml_serde::Value::Mapping(mapping)) => Ok(mapping),
        Ok(_) => Err("the demo's spec is not a mapping".to_string()),
        Err(error) => Err(format!("the exported spec does not read: {error}")),
    };
    let mut expected = parse(original)?;
    for (key, value) in written {
        expected.insert(yaml_serde::Value::String(key.clone()), value.clone());
    }
    let got = parse(edited)?;
    let same = got.len() == expected.len()
        && expected
            .iter()
            .all(|(key, value)| got.get(key) == Some(value));
    if !same {
        return Err("the flags could not be written into the demo's spec as they are".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "# A demo.\nprotocol: council\ntopic: \"T\"\nmode: review\n\
                        domains: [security, data]\n# The agents.\nagents:\n  default: script\n\
                        script:\n  replies:\n    - role: critic\n      text: |\n        mode: x\n";

    fn export(flags: &[FlagValue]) -> Exported {
        with_flags(SPEC, flags, Path::new("/w/spec.yaml"), Path::new("/w")).unwrap()
    }

    #[test]
    fn a_key_the_demo_sets_is_replaced_in_place() {
        let exported = export(&[FlagValue::new("--mode", "mode", "audit")]);
        assert_eq!(exported.text, SPEC.replace("mode: review", "mode: audit"));
    }

    #[test]
    fn a_key_the_demo_lacks_is_added_after_the_topic() {
        let exported = export(&[FlagValue::new("--intensity", "intensity", "quick")]);
        assert_eq!(
            exported.text,
            SPEC.replace("topic: \"T\"\n", "topic: \"T\"\nintensity: quick\n")
        );
    }

    #[test]
    fn a_list_replaces_the_whole_entry_and_keeps_the_comment_after_it() {
        let domains = yaml_serde::Value::Sequence(vec!["ux".into(), "api".into()]);
        let exported = export(&[FlagValue::new("--domain", "domains", domains)]);
        assert!(
            exported
                .text
                .contains("mode: review\ndomains:\n- ux\n- api\n# The agents.\n"),
            "{}",
            exported.text
        );
        assert!(exported.text.ends_with("        mode: x\n"));
    }

    #[test]
    fn text_that_needs_quoting_is_quoted_and_the_last_flag_wins() {
        let exported = export(&[
            FlagValue::new("--summary", "context_summary", "first"),
            FlagValue::new("--summary", "context_summary", "a: b # c"),
        ]);
        let value: yaml_serde::Value = yaml_serde::from_str(&exported.text).unwrap();
        assert_eq!(value["context_summary"], "a: b # c");
    }

    #[test]
    fn a_path_is_written_relative_to_the_spec_or_left_out() {
        let inside = with_flags(
            SPEC,
            &[FlagValue::new("--outputs", "outputs", "out/here")],
            Path::new("/w/specs/../spec.yaml"),
            Path::new("/w"),
        )
        .unwrap();
        assert!(
            inside.text.contains("outputs: out/here\n"),
            "{}",
            inside.text
        );
        assert!(inside.left_out.is_empty());
        let outside = with_flags(
            SPEC,
            &[FlagValue::new("--outputs", "outputs", "/elsewhere")],
            Path::new("/w/spec.yaml"),
            Path::new("/w"),
        )
        .unwrap();
        assert_eq!(outside.text, SPEC);
        assert!(
            outside.left_out[0].starts_with("--outputs"),
            "{:?}",
            outside.left_out
        );
    }
}
