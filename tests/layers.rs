//! The house in layers (issue 63): the `use` graph of src/, read from the
//! code itself, runs one way. Every path a file names (`use crate::…`,
//! `use super::…`, a path written inline, a `{…}` group) is resolved to the
//! file that defines the module it reaches; the inline tests at the end of
//! a file are left out (they may reach anywhere). Two rules follow:
//!
//! - no import circle between files;
//! - no arrow running up a layer, or across between two layers of one
//!   height ([`LAYERS`]).
//!
//! What still breaks them is written down in [`KNOWN`]: a new circle or a
//! new arrow up fails, and so does one on the list that is gone, so the
//! list only shrinks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first, as DESIGN.md §2b stacks them: a layer's
/// files may import from a lower layer or from their own; two layers of
/// one height would know nothing of each other. A path ending in `/` is a
/// folder.
const LAYERS: &[(&str, usize, &[&str])] = &[
    (
        "ground",
        0,
        &[
            "text.rs",
            "secrets.rs",
            "words.rs",
            "rulings.rs",
            "lib.rs",
            "signals.rs",
        ],
    ),
    ("disk", 1, &["artifact/"]),
    (
        "reading",
        2,
        &[
            "parse/",
            "input.rs",
            "spec.rs",
            "script.rs",
            "config/",
            "prompts.rs",
            "yaml_guard.rs",
        ],
    ),
    ("agents", 3, &["agent/"]),
    ("rules", 4, &["protocol/"]),
    ("engine", 5, &["engine/"]),
    ("share", 6, &["share/"]),
    ("screen", 7, &["tui/"]),
    ("face", 8, &["cli/", "main.rs"]),
];

/// The arrows that still run up or across a layer, as `from -> to`
/// (paths under src/), and the circles, each as its files joined by ` `.
/// Each line is a debt: fix it and take it off.
const KNOWN: &[&str] = &[
    "circle: config/mod.rs protocol/calls.rs protocol/council/mod.rs protocol/council/model.rs protocol/council/packets.rs protocol/council/verdict.rs protocol/decision_review/mod.rs protocol/decision_review/model.rs protocol/decision_review/parse/mod.rs protocol/decision_review/prompts.rs protocol/decision_review/verdict.rs protocol/items.rs protocol/mod.rs protocol/moderated.rs protocol/plan/mod.rs protocol/plan/model.rs protocol/plan/parse.rs protocol/quick/mod.rs protocol/quick/parse.rs protocol/rca/mod.rs protocol/rca/model.rs protocol/rca/parse.rs protocol/rca/status.rs protocol/record.rs protocol/registry.rs protocol/supervision.rs protocol/usage.rs spec.rs",
    "spec.rs -> protocol/registry.rs",
];

/// The layer of `file` (a path under src/).
fn layer_of(file: &str) -> Option<(&'static str, usize)> {
    LAYERS.iter().find_map(|(name, height, members)| {
        members
            .iter()
            .any(|member| {
                if member.ends_with('/') {
                    file.starts_with(member)
                } else {
                    file == *member
                }
            })
            .then_some((*name, *height))
    })
}

/// `text` with comments, strings and characters blanked, and the inline
/// tests (from a `#[cfg(test)]` that opens a `mod`) cut off.
fn code_of(text: &str) -> String {
    let bytes: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let next = bytes.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < bytes.len() && bytes[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < bytes.len() {
                if bytes[i] == '/' && bytes.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if bytes[i] == '*' && bytes.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r' && (next == Some('#') || next == Some('"')) && !ident_before(&out) {
            // A raw string: r"…", r#"…"#.
            let mut hashes = 0;
            let mut j = i + 1;
            while bytes.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if bytes.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= bytes.len() {
                    break;
                }
                if bytes[j] == '"' && (0..hashes).all(|k| bytes.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < bytes.len() && bytes[i] != '"' {
                if bytes[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            // A character ('x', '\n', '\u{1b}'), or a lifetime ('a).
            let closes = if next == Some('\\') {
                (i + 2..bytes.len().min(i + 12)).find(|&j| bytes[j] == '\'')
            } else {
                (bytes.get(i + 2) == Some(&'\'')).then_some(i + 2)
            };
            match closes {
                Some(end) => {
                    out.push_str("' '");
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    match out.find("#[cfg(test)]\nmod ") {
        Some(at) => out[..at].to_string(),
        None => out,
    }
}

fn ident_before(out: &str) -> bool {
    out.chars()
        .last()
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    Path,
    Open,
    Close,
    Comma,
    Other,
}

fn tokens(code: &str) -> Vec<Token> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token::Ident(chars[start..i].iter().collect()));
            continue;
        }
        match c {
            ':' if chars.get(i + 1) == Some(&':') => {
                out.push(Token::Path);
                i += 2;
                continue;
            }
            '{' => out.push(Token::Open),
            '}' => out.push(Token::Close),
            ',' => out.push(Token::Comma),
            c if c.is_whitespace() => {}
            _ => out.push(Token::Other),
        }
        i += 1;
    }
    out
}

/// The paths of a `{…}` group starting after `at` (the `{`), each with
/// `prefix` before it; returns where the group ends.
fn group(
    tokens: &[Token],
    mut at: usize,
    prefix: &[String],
    paths: &mut Vec<Vec<String>>,
) -> usize {
    let mut current = prefix.to_vec();
    at += 1;
    while at < tokens.len() {
        match &tokens[at] {
            Token::Ident(name) if name == "self" && current.len() == prefix.len() => {
                paths.push(prefix.to_vec());
            }
            Token::Ident(name) if name == "as" => {
                // `x as y`: skip the new name.
                at += 1;
            }
            Token::Ident(name) => current.push(name.clone()),
            Token::Path => {}
            Token::Open => {
                at = group(tokens, at, &current, paths);
                current = prefix.to_vec();
            }
            Token::Comma => {
                if current.len() > prefix.len() {
                    paths.push(std::mem::replace(&mut current, prefix.to_vec()));
                }
            }
            Token::Close => {
                if current.len() > prefix.len() {
                    paths.push(current);
                }
                return at;
            }
            Token::Other => {}
        }
        at += 1;
    }
    at
}

/// Every module path `code` (of the module at `module`) names, resolved
/// from `crate`, `super` and `self` (and `quorum` in the binary).
fn named_paths(code: &str, module: &[String], binary: bool) -> Vec<Vec<String>> {
    let tokens = tokens(code);
    let mut paths = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let Token::Ident(first) = &tokens[i] else {
            i += 1;
            continue;
        };
        let follows_path = i > 0 && tokens[i - 1] == Token::Path;
        let start: Option<Vec<String>> = match first.as_str() {
            "crate" if !follows_path => Some(Vec::new()),
            "quorum" if binary && !follows_path => Some(Vec::new()),
            "self" if !follows_path && tokens.get(i + 1) == Some(&Token::Path) => {
                Some(module.to_vec())
            }
            "super" if !follows_path => {
                let mut base = module.to_vec();
                let mut j = i;
                loop {
                    base.pop();
                    if tokens.get(j + 1) == Some(&Token::Path)
                        && tokens.get(j + 2) == Some(&Token::Ident("super".into()))
                    {
                        j += 2;
                    } else {
                        break;
                    }
                }
                i = j;
                Some(base)
            }
            _ => None,
        };
        let Some(mut path) = start else {
            i += 1;
            continue;
        };
        i += 1;
        loop {
            if tokens.get(i) != Some(&Token::Path) {
                break;
            }
            match tokens.get(i + 1) {
                Some(Token::Ident(name)) => {
                    path.push(name.clone());
                    i += 2;
                }
                Some(Token::Open) => {
                    i = group(&tokens, i + 1, &path, &mut paths);
                    path.clear();
                    break;
                }
                _ => break,
            }
        }
        if !path.is_empty() {
            paths.push(path);
        }
    }
    paths
}

/// The file under src/ of the module `path` reaches: the longest start of
/// it that is a file.
fn file_of(files: &BTreeSet<String>, path: &[String]) -> Option<String> {
    for length in (0..=path.len()).rev() {
        let joined = path[..length].join("/");
        if length == 0 {
            return Some("lib.rs".into());
        }
        for candidate in [format!("{joined}.rs"), format!("{joined}/mod.rs")] {
            if files.contains(&candidate) {
                return Some(candidate);
            }
        }
    }
    None
}

/// The module path of `file` (under src/): `protocol/mod.rs` → `protocol`.
fn module_of(file: &str) -> Vec<String> {
    let trimmed = file
        .strip_suffix("/mod.rs")
        .or_else(|| file.strip_suffix(".rs"))
        .unwrap_or(file);
    if matches!(trimmed, "lib" | "main") {
        return Vec::new();
    }
    trimmed.split('/').map(str::to_owned).collect()
}

fn rust_files(root: &Path, dir: &Path, files: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).expect("src/ reads") {
        let path: PathBuf = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(root, &path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            let relative = path.strip_prefix(root).expect("under src/");
            files.insert(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// Every arrow of src/: file → the files it imports.
fn arrows() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeSet::new();
    rust_files(&root, &root, &mut files);
    let mut arrows = BTreeMap::new();
    // Test code kept beside the code it tests (`#[cfg(test)] mod
    // rulings_tests;`, `app/tests/`) may reach anywhere, as inline tests do.
    let tested = |file: &str| file.ends_with("tests.rs") || file.contains("/tests/");
    for file in files.iter().filter(|file| !tested(file)) {
        let text = std::fs::read_to_string(root.join(file)).expect("a source file reads");
        let module = module_of(file);
        let targets: BTreeSet<String> = named_paths(&code_of(&text), &module, file == "main.rs")
            .iter()
            .filter_map(|path| file_of(&files, path))
            .filter(|target| target != file && target != "lib.rs")
            .collect();
        arrows.insert(file.clone(), targets);
    }
    arrows
}

/// The circles of `arrows`: strongly connected sets of more than one file
/// (Tarjan's algorithm), each sorted.
fn circles(arrows: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        arrows: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(state: &mut State<'a>, file: &'a str) {
        let next = state.index.len();
        state.index.insert(file, next);
        state.low.insert(file, next);
        state.stack.push(file);
        state.on_stack.insert(file);
        let arrows = state.arrows;
        for target in arrows.get(file).into_iter().flatten() {
            let target = target.as_str();
            if !state.index.contains_key(target) {
                visit(state, target);
                let low = state.low[target].min(state.low[file]);
                state.low.insert(file, low);
            } else if state.on_stack.contains(target) {
                let low = state.index[target].min(state.low[file]);
                state.low.insert(file, low);
            }
        }
        if state.low[file] == state.index[file] {
            let mut circle = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                circle.push(top.to_string());
                if top == file {
                    break;
                }
            }
            if circle.len() > 1 {
                circle.sort();
                state.found.push(circle);
            }
        }
    }
    let mut state = State {
        arrows,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for file in arrows.keys() {
        if !state.index.contains_key(file.as_str()) {
            visit(&mut state, file);
        }
    }
    state.found
}

/// Arrows from a layer to a higher one or to another of its height.
fn arrows_up(arrows: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut up = Vec::new();
    for (from, targets) in arrows {
        let Some((from_layer, from_height)) = layer_of(from) else {
            up.push(format!("{from} is in no layer"));
            continue;
        };
        for to in targets {
            let Some((to_layer, to_height)) = layer_of(to) else {
                continue;
            };
            if to_height > from_height || (to_height == from_height && to_layer != from_layer) {
                up.push(format!("{from} -> {to}"));
            }
        }
    }
    up
}

#[test]
fn issue_63_the_use_graph_has_no_circle_and_no_arrow_up() {
    let arrows = arrows();
    assert!(
        arrows.len() > 100 && arrows.values().map(BTreeSet::len).sum::<usize>() > 500,
        "the graph was read: {} files",
        arrows.len()
    );
    let mut found: BTreeSet<String> = arrows_up(&arrows).into_iter().collect();
    for circle in circles(&arrows) {
        found.insert(format!("circle: {}", circle.join(" ")));
    }
    let known: BTreeSet<String> = KNOWN.iter().map(|line| line.to_string()).collect();
    let new: Vec<&String> = found.difference(&known).collect();
    let gone: Vec<&String> = known.difference(&found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "new (fix them; the layers are in tests/layers.rs):\n  {}\ngone (take them off KNOWN):\n  {}",
        new.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  "),
        gone.iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

/// The reader of the graph itself: groups, `super`, `self`, renames,
/// comments and strings.
#[test]
fn the_graph_reader_resolves_paths_as_rust_does() {
    let code = code_of(
        "use crate::{agent::{Agent, http::paced}, text::sanitize as clean};\n\
         use super::super::engine::Engine;\n\
         // use crate::tui::App;\n\
         const S: &str = \"crate::cli::x\";\n\
         fn f() { crate::text::thousands(1); self::inner::g(); }\n\
         #[cfg(test)]\nmod tests { use crate::cli::Args; }\n",
    );
    let module = ["protocol".to_string(), "council".to_string()];
    let paths: BTreeSet<String> = named_paths(&code, &module, false)
        .into_iter()
        .map(|path| path.join("::"))
        .collect();
    let expected: BTreeSet<String> = [
        "agent::Agent",
        "agent::http::paced",
        "text::sanitize",
        "engine::Engine",
        "text::thousands",
        "protocol::council::inner::g",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(paths, expected);
}
