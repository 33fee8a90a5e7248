//! The house in layers (issue 63): the `use` graph of src/, read from the
//! code itself, runs one way. Every path a file names (`use crate::…`,
//! `use super::…`, a parent's bare `child::…`, a path written inline, a
//! `{…}` group) is resolved to the file that defines the name it reaches:
//! a name a module only hands on (`pub use kind::KIND`) leads on to the
//! file it comes from, and the re-export itself is an arrow only when its
//! file uses the name too. A file's arrow to a module around it (its
//! folder's `mod.rs`, the crate root) is not drawn: that is the folder's
//! shared room, as Rust means a parent to be; a parent's arrow down to
//! its child is. The inline tests at the end of a file are left out (they
//! may reach anywhere). Two rules follow:
//!
//! - no import circle between files;
//! - no arrow running up a layer, or across between two layers of one
//!   height ([`LAYERS`]).
//!
//! Both hold today, and a new circle or arrow up fails the suite, naming
//! the arrows to cut.

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
            "evidence/",
            "input.rs",
            "located.rs",
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
    ("library", 7, &["store/"]),
    ("screen", 8, &["tui/"]),
    ("face", 9, &["cli/", "main.rs"]),
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
    Other(char),
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
            _ => out.push(Token::Other(c)),
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
            Token::Other(_) => {}
        }
        at += 1;
    }
    at
}

/// Every module path `code` (of the module at `module`) names, resolved
/// from `crate`, `super` and `self` (and `quorum` in the binary), and from
/// the module's own `children`: a parent reaches its child by the bare
/// name (`usage::UsageLedger` in `protocol/mod.rs`), as Rust resolves it.
fn named_paths(
    code: &str,
    module: &[String],
    children: &BTreeSet<String>,
    binary: bool,
) -> Vec<Vec<String>> {
    paths_in(&tokens(code), module, children, binary)
}

/// [`named_paths`] over tokens.
fn paths_in(
    tokens: &[Token],
    module: &[String],
    children: &BTreeSet<String>,
    binary: bool,
) -> Vec<Vec<String>> {
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
            child
                if !follows_path
                    && children.contains(child)
                    && tokens.get(i + 1) == Some(&Token::Path) =>
            {
                // Counted from the child's name: the loop below reads on
                // after it.
                let mut base = module.to_vec();
                base.push(child.to_string());
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
                    i = group(tokens, i + 1, &path, &mut paths);
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

/// The names of the modules under `module` (its files `x.rs` and
/// `x/mod.rs`); none for the crate root, whose children are reached by
/// `crate::`.
fn children_of(files: &BTreeSet<String>, module: &[String]) -> BTreeSet<String> {
    if module.is_empty() {
        return BTreeSet::new();
    }
    let prefix = format!("{}/", module.join("/"));
    files
        .iter()
        .filter_map(|file| file.strip_prefix(&prefix))
        .filter_map(|rest| {
            rest.strip_suffix("/mod.rs")
                .or_else(|| rest.strip_suffix(".rs"))
                .filter(|name| !name.contains('/'))
        })
        .map(str::to_owned)
        .collect()
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

/// One name a top-level `use` item binds.
struct Binding {
    /// The name it binds (`X`, or the `as` name); `None` for a glob.
    name: Option<String>,
    /// The path as written (`super::x::X`).
    path: Vec<String>,
    /// A re-export (`pub use`, `pub(crate) use`): it hands the name on.
    public: bool,
    /// The tokens of the whole `use` item.
    item: std::ops::Range<usize>,
}

/// The top-level `use` items of `tokens`, one [`Binding`] per name.
fn bindings(tokens: &[Token]) -> Vec<Binding> {
    fn tree(
        tokens: &[Token],
        mut at: usize,
        prefix: &[String],
        out: &mut Vec<(Option<String>, Vec<String>)>,
    ) -> usize {
        let mut path = prefix.to_vec();
        loop {
            match tokens.get(at) {
                Some(Token::Ident(word)) if word == "as" => {
                    if let Some(Token::Ident(alias)) = tokens.get(at + 1) {
                        out.push((Some(alias.clone()), path));
                    }
                    return at + 2;
                }
                Some(Token::Ident(word)) => {
                    path.push(word.clone());
                    at += 1;
                }
                Some(Token::Path) => at += 1,
                Some(Token::Open) => {
                    at += 1;
                    loop {
                        if tokens.get(at) == Some(&Token::Close) {
                            return at + 1;
                        }
                        at = tree(tokens, at, &path, out);
                        match tokens.get(at) {
                            Some(Token::Comma) => at += 1,
                            Some(Token::Close) => return at + 1,
                            _ => return at,
                        }
                    }
                }
                Some(Token::Other('*')) => {
                    out.push((None, path));
                    return at + 1;
                }
                _ => {
                    if path.len() > prefix.len() {
                        match path.last().map(String::as_str) {
                            Some("self") => {
                                path.pop();
                                out.push((path.last().cloned(), path));
                            }
                            _ => out.push((path.last().cloned(), path)),
                        }
                    }
                    return at;
                }
            }
        }
    }
    let mut found = Vec::new();
    let mut depth = 0usize;
    let mut at = 0;
    while at < tokens.len() {
        match &tokens[at] {
            Token::Open => depth += 1,
            Token::Close => depth = depth.saturating_sub(1),
            Token::Ident(word) if word == "use" && depth == 0 => {
                // `pub use`, `pub(crate) use`, `pub(super) use`.
                let public = tokens[..at]
                    .iter()
                    .rev()
                    .take(4)
                    .any(|token| *token == Token::Ident("pub".into()));
                let start = if public {
                    tokens[..at]
                        .iter()
                        .rposition(|token| *token == Token::Ident("pub".into()))
                        .unwrap_or(at)
                } else {
                    at
                };
                let mut names = Vec::new();
                let end = tree(tokens, at + 1, &[], &mut names);
                let end = end + usize::from(tokens.get(end) == Some(&Token::Other(';')));
                for (name, path) in names {
                    found.push(Binding {
                        name,
                        path,
                        public,
                        item: start..end,
                    });
                }
                at = end;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    found
}

/// The items `tokens` defines at its top level (functions, types, traits,
/// constants, statics, macros).
fn definitions(tokens: &[Token]) -> BTreeSet<String> {
    let mut defined = BTreeSet::new();
    let mut depth = 0usize;
    for (at, token) in tokens.iter().enumerate() {
        match token {
            Token::Open => depth += 1,
            Token::Close => depth = depth.saturating_sub(1),
            Token::Ident(word) if depth == 0 => {
                let kinds = [
                    "fn", "struct", "enum", "trait", "const", "static", "type", "union",
                ];
                let name = if kinds.contains(&word.as_str()) {
                    tokens.get(at + 1)
                } else if word == "macro_rules" {
                    tokens.get(at + 2)
                } else {
                    None
                };
                if let Some(Token::Ident(name)) = name {
                    defined.insert(name.clone());
                }
            }
            _ => {}
        }
    }
    defined
}

/// `path` as written in the module at `module` (with those `children`),
/// from the crate's root; `None` for a path outside the crate.
fn absolute(
    path: &[String],
    module: &[String],
    children: &BTreeSet<String>,
    binary: bool,
) -> Option<Vec<String>> {
    let first = path.first()?;
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "quorum" if binary => Vec::new(),
        "self" => module.to_vec(),
        "super" => {
            let mut base = module.to_vec();
            let supers = path.iter().take_while(|word| *word == "super").count();
            base.truncate(base.len().saturating_sub(supers));
            base.extend(path[supers..].iter().cloned());
            return Some(base);
        }
        child if children.contains(child) => {
            let mut base = module.to_vec();
            base.push(child.to_string());
            base
        }
        _ => return None,
    };
    base.extend(path[1..].iter().cloned());
    Some(base)
}

/// What one module holds for others to name: the items it defines and
/// the names its `use` items bring in, each from the crate's root.
#[derive(Default)]
struct Names {
    defined: BTreeSet<String>,
    brought: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
}

/// The file that defines what `path` (from the crate's root) names: the
/// module's file, or, when the path goes on to a name the module only
/// brings in with `use`, the file that name comes from.
fn defining_file(
    files: &BTreeSet<String>,
    names: &BTreeMap<String, Names>,
    path: &[String],
    depth: usize,
) -> Option<String> {
    let (file, used) = (0..=path.len()).rev().find_map(|length| {
        if length == 0 {
            return Some(("lib.rs".to_string(), 0));
        }
        let joined = path[..length].join("/");
        [format!("{joined}.rs"), format!("{joined}/mod.rs")]
            .into_iter()
            .find(|candidate| files.contains(candidate))
            .map(|file| (file, length))
    })?;
    let Some(name) = path.get(used) else {
        return Some(file);
    };
    let Some(held) = names.get(&file).filter(|_| depth < 8) else {
        return Some(file);
    };
    if held.defined.contains(name) {
        return Some(file);
    }
    let onward = |target: &[String]| {
        let mut onward = target.to_vec();
        onward.extend(path[used + 1..].iter().cloned());
        defining_file(files, names, &onward, depth + 1)
    };
    if let Some(target) = held.brought.get(name) {
        return onward(target).or(Some(file));
    }
    for glob in &held.globs {
        let mut through = glob.clone();
        through.push(name.clone());
        if let Some(found) = onward(&through)
            && found != file
        {
            return Some(found);
        }
    }
    Some(file)
}

/// Whether the module of `outer` encloses the file `inner`: `lib.rs`
/// encloses every file, `protocol/mod.rs` every file under `protocol/`.
/// A file that takes a name from a module around it (`super::AgentError`,
/// `crate::protocol::Protocol` inside `protocol/council/`) reaches into its
/// own folder's shared room, as Rust means a parent module to be; such an
/// arrow is not drawn. A parent's arrow down to its child is, so a loop
/// that leaves a folder and comes back still shows.
fn encloses(outer: &str, inner: &str) -> bool {
    let module = module_of(outer);
    let within = module_of(inner);
    within.len() > module.len() && within.starts_with(&module)
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
    // First what every module holds, then where each named path leads.
    let mut read = BTreeMap::new();
    let mut names = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(root.join(file)).expect("a source file reads");
        let tokens = tokens(&code_of(&text));
        let module = module_of(file);
        let children = children_of(&files, &module);
        let binary = file == "main.rs";
        let bindings = bindings(&tokens);
        let mut held = Names {
            defined: definitions(&tokens),
            ..Names::default()
        };
        for binding in &bindings {
            if let Some(path) = absolute(&binding.path, &module, &children, binary) {
                match &binding.name {
                    Some(name) => {
                        held.brought.insert(name.clone(), path);
                    }
                    None => held.globs.push(path),
                }
            }
        }
        names.insert(file.clone(), held);
        read.insert(file.clone(), (tokens, bindings, module, children, binary));
    }
    for file in files.iter().filter(|file| !tested(file)) {
        let (tokens, bindings, module, children, binary) = &read[file];
        // A re-export hands a name on: whoever names it is led to the file
        // that defines it, and the re-exporting file imports it only if it
        // uses the name itself.
        let handed_on: Vec<&Binding> = bindings.iter().filter(|b| b.public).collect();
        let kept: Vec<Token> = tokens
            .iter()
            .enumerate()
            .filter(|(at, _)| !handed_on.iter().any(|b| b.item.contains(at)))
            .map(|(_, token)| token.clone())
            .collect();
        let mut paths = paths_in(&kept, module, children, *binary);
        for binding in handed_on {
            let used_here = binding.name.as_ref().is_none_or(|name| {
                kept.iter()
                    .any(|token| *token == Token::Ident(name.clone()))
            });
            if used_here && let Some(path) = absolute(&binding.path, module, children, *binary) {
                paths.push(path);
            }
        }
        let targets: BTreeSet<String> = paths
            .iter()
            .filter_map(|path| defining_file(&files, &names, path, 0))
            .filter(|target| target != file && !encloses(target, file))
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
    // The arrows inside each circle, for the message: which import to cut.
    let mut inside = BTreeMap::new();
    for circle in circles(&arrows) {
        let line = format!("circle: {}", circle.join(" "));
        let within: Vec<String> = circle
            .iter()
            .flat_map(|from| {
                arrows[from]
                    .iter()
                    .filter(|to| circle.contains(to))
                    .map(move |to| format!("{from} -> {to}"))
            })
            .collect();
        inside.insert(line.clone(), within);
        found.insert(line);
    }
    let found: Vec<String> = found
        .iter()
        .map(|line| match inside.get(line) {
            Some(within) => format!("{line}\n    its arrows: {}", within.join(", ")),
            None => line.clone(),
        })
        .collect();
    assert!(
        found.is_empty(),
        "the layers are in tests/layers.rs; fix:\n  {}",
        found.join("\n  ")
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
         fn f() { crate::text::thousands(1); self::inner::g(); verdict::score(); }\n\
         fn g(verdict: u8) -> u8 { verdict }\n\
         #[cfg(test)]\nmod tests { use crate::cli::Args; }\n",
    );
    let module = ["protocol".to_string(), "council".to_string()];
    let children: BTreeSet<String> = ["verdict".to_string()].into();
    let paths: BTreeSet<String> = named_paths(&code, &module, &children, false)
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
        "protocol::council::verdict::score",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(paths, expected);
}

/// The reading's own rules: a re-exported name leads to the file that
/// defines it, a module around a file is its own room, and a parent
/// reaches its child by the bare name.
#[test]
fn names_lead_to_the_file_that_defines_them() {
    let files: BTreeSet<String> = ["agent/mod.rs", "agent/events.rs", "engine/mod.rs"]
        .into_iter()
        .map(String::from)
        .collect();
    let read = |text: &str| {
        let tokens = tokens(&code_of(text));
        let mut held = Names {
            defined: definitions(&tokens),
            ..Names::default()
        };
        for binding in bindings(&tokens) {
            let path = absolute(
                &binding.path,
                &["agent".into()],
                &["events".into()].into(),
                false,
            )
            .expect("a path inside the crate");
            match binding.name {
                Some(name) => {
                    held.brought.insert(name, path);
                }
                None => held.globs.push(path),
            }
        }
        held
    };
    let names: BTreeMap<String, Names> = [
        (
            "agent/mod.rs".to_string(),
            read("pub use events::{EventSender as Sender};\npub struct AgentError;\n"),
        ),
        (
            "agent/events.rs".to_string(),
            read("pub struct EventSender;\n"),
        ),
    ]
    .into_iter()
    .collect();
    let path = |text: &str| text.split("::").map(String::from).collect::<Vec<_>>();
    let lead = |text: &str| defining_file(&files, &names, &path(text), 0);
    assert_eq!(lead("agent::Sender").as_deref(), Some("agent/events.rs"));
    assert_eq!(lead("agent::AgentError").as_deref(), Some("agent/mod.rs"));
    assert_eq!(
        lead("agent::events::EventSender").as_deref(),
        Some("agent/events.rs")
    );
    assert_eq!(lead("engine::Engine").as_deref(), Some("engine/mod.rs"));
    assert!(encloses("agent/mod.rs", "agent/events.rs"));
    assert!(encloses("lib.rs", "engine/mod.rs"));
    assert!(!encloses("agent/events.rs", "agent/mod.rs"));
    assert!(!encloses("agent/mod.rs", "agent/mod.rs"));
}
