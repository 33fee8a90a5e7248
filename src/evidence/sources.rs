//! The sources a debate's agents may cite: context documents and logs
//! (text quorum already holds) and a read-only source tree.
//!
//! A source tree is walked once, in name order, with git's ignore rules
//! (`.gitignore`, `.ignore`, hidden files and `.git/` left out, whether or
//! not the tree is a repository). A link is never followed, in or out of
//! the tree: it is listed as left out. So is a file over
//! [`RepoLimits::file_bytes`], one that is not UTF-8 text (a NUL byte or an
//! invalid sequence), and everything past [`RepoLimits::total_bytes`] or
//! [`RepoLimits::files`]. What was left out, and why, goes into the prompt
//! and the record, never silently.
//!
//! A citation's name is only ever looked up among the loaded names: a
//! name like `../../etc/passwd` or `/etc/passwd` is never a path quorum
//! opens.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// What kind of source a name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// A context document (`--context`, a spec's `context:`).
    Context,
    /// A log file (`--logs`, a spec's `logs:`).
    Log,
    /// A file of the source tree (`--repo`, a spec's `repo:`).
    Repo,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::Context => "context",
            SourceKind::Log => "log",
            SourceKind::Repo => "source tree",
        }
    }
}

/// What the debate's definition records of one source: enough to find it
/// again and to tell whether it changed since the debate started.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRecord {
    pub kind: SourceKind,
    /// The name citations use (a document, a log); a tree's folder name.
    pub name: String,
    /// Where it was read, absolute; none for inline text.
    pub path: Option<PathBuf>,
    /// SHA-256 of the text (a file) or of every loaded file's name and
    /// text in order (a tree), in hex.
    pub sha256: String,
    pub bytes: u64,
    /// A tree's loaded files.
    pub files: Option<u32>,
}

impl SourceRecord {
    /// The record of a document or log read from `path` with `text`.
    pub fn of_file(kind: SourceKind, name: &str, path: Option<&Path>, text: &str) -> SourceRecord {
        SourceRecord {
            kind,
            name: name.to_string(),
            path: path.map(absolute),
            sha256: hex(&Sha256::digest(text.as_bytes())),
            bytes: text.len() as u64,
            files: None,
        }
    }

    /// Whether the source still reads as recorded: `None` when it does (or
    /// is inline text), else what changed, in words.
    pub fn changed(&self, limits: RepoLimits) -> Option<String> {
        let path = self.path.as_ref()?;
        let now = match self.kind {
            SourceKind::Repo => Tree::walk(path, limits).map(|tree| tree.record.sha256),
            SourceKind::Context | SourceKind::Log => std::fs::read(path)
                .map(|bytes| hex(&Sha256::digest(&bytes)))
                .map_err(|error| error.to_string()),
        };
        match now {
            Ok(hash) if hash == self.sha256 => None,
            Ok(_) => Some(self.changed_words()),
            Err(error) => Some(format!(
                "{} `{}` ({}) can no longer be read: {error}",
                self.kind.as_str(),
                self.name,
                path.display()
            )),
        }
    }
}

impl SourceRecord {
    /// That the source changed since the debate started, in words.
    pub fn changed_words(&self) -> String {
        let place = self
            .path
            .as_deref()
            .map(|path| format!(" ({})", path.display()))
            .unwrap_or_default();
        format!(
            "{} `{}`{place} changed since the debate started: a citation of it is checked \
             against the text as it reads now",
            self.kind.as_str(),
            self.name,
        )
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut out, byte| {
        let _ = write!(out, "{byte:02x}");
        out
    })
}

/// How much of a source tree is loaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RepoLimits {
    /// A larger file is left out.
    pub file_bytes: u64,
    /// Files past this many bytes in all are left out.
    pub total_bytes: u64,
    /// Files past this many are left out.
    pub files: usize,
}

impl Default for RepoLimits {
    fn default() -> Self {
        RepoLimits {
            file_bytes: 1 << 20,
            total_bytes: 64 << 20,
            files: 20_000,
        }
    }
}

/// A file of a tree that was not loaded, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    pub name: String,
    pub why: String,
}

/// A source tree as loaded.
#[derive(Clone, Debug)]
pub struct Tree {
    pub record: SourceRecord,
    /// Each loaded file's name (its path in the tree, `/`-separated) and text.
    pub files: Vec<(String, String)>,
    pub left_out: Vec<LeftOut>,
}

/// Documents as [`Sources::new`] takes them: name, kind, text.
type Documents = Vec<(String, SourceKind, String)>;

/// Sources indexed in a [`SharedWalks`] scope: their documents, the hash of
/// their tree, the index.
type Indexed = Vec<(Documents, Option<String>, Arc<Sources>)>;

thread_local! {
    /// The trees walked in the current [`SharedWalks`] scope, if one is open.
    static SHARED: std::cell::RefCell<Option<Vec<(PathBuf, RepoLimits, Tree)>>> =
        const { std::cell::RefCell::new(None) };
    /// The sources indexed in the current scope, by their documents and the
    /// hash of their tree.
    static INDEXED: std::cell::RefCell<Option<Indexed>> =
        const { std::cell::RefCell::new(None) };
}

/// A scope in which a tree is walked once per root, however many debates
/// cite it: `quorum open`'s listing rebuilds every debate one after the
/// other, and each would otherwise walk and hash the same tree again. Only
/// for a short, one-thread pass: inside it a tree reads as it was when
/// first walked. The scope ends when this is dropped.
pub struct SharedWalks(());

impl SharedWalks {
    pub fn begin() -> SharedWalks {
        SHARED.with(|shared| *shared.borrow_mut() = Some(Vec::new()));
        INDEXED.with(|indexed| *indexed.borrow_mut() = Some(Vec::new()));
        SharedWalks(())
    }
}

impl Drop for SharedWalks {
    fn drop(&mut self) {
        SHARED.with(|shared| *shared.borrow_mut() = None);
        INDEXED.with(|indexed| *indexed.borrow_mut() = None);
    }
}

impl Tree {
    /// [`Tree::walk`], once per root and limits inside a [`SharedWalks`]
    /// scope; outside one, every call walks.
    pub fn walk_shared(root: &Path, limits: RepoLimits) -> Result<Tree, String> {
        let found = SHARED.with(|shared| {
            let shared = shared.borrow();
            let walked = shared.as_ref()?;
            walked
                .iter()
                .find(|(at, with, _)| at == root && *with == limits)
                .map(|(_, _, tree)| tree.clone())
        });
        if let Some(tree) = found {
            return Ok(tree);
        }
        let tree = Tree::walk(root, limits)?;
        SHARED.with(|shared| {
            if let Some(walked) = shared.borrow_mut().as_mut() {
                walked.push((root.to_path_buf(), limits, tree.clone()));
            }
        });
        Ok(tree)
    }

    /// Walks `root` within `limits`. The error says why the tree cannot be
    /// read at all (not a folder, unreadable).
    pub fn walk(root: &Path, limits: RepoLimits) -> Result<Tree, String> {
        let meta = std::fs::symlink_metadata(root)
            .map_err(|error| format!("{}: {error}", root.display()))?;
        if !meta.is_dir() {
            return Err(format!("{} is not a folder", root.display()));
        }
        let mut walker = ignore::WalkBuilder::new(root);
        walker
            .follow_links(false)
            .require_git(false)
            .parents(false)
            .sort_by_file_name(|a, b| a.cmp(b));
        let mut files = Vec::new();
        let mut left_out = Vec::new();
        let mut total: u64 = 0;
        let mut hasher = Sha256::new();
        for entry in walker.build() {
            let entry = match entry {
                Ok(entry) => entry,
                Err(error) => {
                    left_out.push(LeftOut {
                        name: String::new(),
                        why: error.to_string(),
                    });
                    continue;
                }
            };
            let Some(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                continue;
            }
            let Ok(relative) = entry.path().strip_prefix(root) else {
                continue;
            };
            let name = relative
                .components()
                .map(|part| part.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            let leave = |why: String, left_out: &mut Vec<LeftOut>| {
                left_out.push(LeftOut {
                    name: name.clone(),
                    why,
                })
            };
            if kind.is_symlink() {
                leave("a link (links are not followed)".into(), &mut left_out);
                continue;
            }
            if !kind.is_file() {
                leave("not a regular file".into(), &mut left_out);
                continue;
            }
            let size = entry.metadata().map(|meta| meta.len()).unwrap_or(u64::MAX);
            if size > limits.file_bytes {
                leave(
                    format!("larger than {} bytes", limits.file_bytes),
                    &mut left_out,
                );
                continue;
            }
            if files.len() >= limits.files || total + size > limits.total_bytes {
                leave(
                    format!(
                        "past the tree's limit ({} files, {} bytes)",
                        limits.files, limits.total_bytes
                    ),
                    &mut left_out,
                );
                continue;
            }
            let bytes = match std::fs::read(entry.path()) {
                Ok(bytes) => bytes,
                Err(error) => {
                    leave(error.to_string(), &mut left_out);
                    continue;
                }
            };
            if bytes.len() as u64 > limits.file_bytes {
                leave(
                    format!("larger than {} bytes", limits.file_bytes),
                    &mut left_out,
                );
                continue;
            }
            if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
                leave("binary".into(), &mut left_out);
                continue;
            }
            let Ok(text) = String::from_utf8(bytes) else {
                leave("not UTF-8 text".into(), &mut left_out);
                continue;
            };
            total += text.len() as u64;
            hasher.update(name.as_bytes());
            hasher.update([0]);
            hasher.update((text.len() as u64).to_le_bytes());
            hasher.update(text.as_bytes());
            files.push((name, text));
        }
        let folder = root
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_else(|| "repo".into());
        Ok(Tree {
            record: SourceRecord {
                kind: SourceKind::Repo,
                name: folder,
                path: Some(absolute(root)),
                sha256: hex(&hasher.finalize()),
                bytes: total,
                files: Some(files.len() as u32),
            },
            files,
            left_out,
        })
    }
}

/// One source as the checker holds it.
#[derive(Clone, Debug)]
pub(crate) struct SourceFile {
    pub name: String,
    pub kind: SourceKind,
    pub text: String,
    /// Where the file's normalised text starts and ends in the corpus.
    pub range: std::ops::Range<usize>,
    /// The corpus offset each line starts at (line 1 first).
    pub line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn lines(&self) -> u32 {
        self.line_starts.len() as u32
    }

    /// The line (from 1) the corpus offset `at` is on.
    pub fn line_at(&self, at: usize) -> u32 {
        self.line_starts
            .partition_point(|start| *start <= at)
            .max(1) as u32
    }

    /// The corpus range of lines `first..=last` (both within the file).
    pub fn lines_range(&self, first: u32, last: u32) -> std::ops::Range<usize> {
        let start = self.line_starts[(first - 1) as usize];
        let end = self
            .line_starts
            .get(last as usize)
            .copied()
            .unwrap_or(self.range.end);
        start..end
    }
}

/// Every source of a debate, indexed for checking.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    pub(crate) files: Vec<SourceFile>,
    by_name: HashMap<String, usize>,
    /// Every file's text normalised ([`normalise`]) end to end, a NUL
    /// between two files so that no match spans them.
    pub(crate) corpus: String,
    /// What a tree left out.
    pub left_out: Vec<LeftOut>,
    /// The tree's folder name, if one was given.
    pub tree: Option<String>,
}

impl Sources {
    /// No sources: every citation is not checkable.
    pub fn none() -> Sources {
        Sources::default()
    }

    /// The sources of `documents` (name, kind, text) and a loaded `tree`.
    pub fn new(documents: Vec<(String, SourceKind, String)>, tree: Option<Tree>) -> Sources {
        let mut sources = Sources::default();
        for (name, kind, text) in documents {
            sources.add(&citable_name(&name), kind, text);
        }
        if let Some(tree) = tree {
            sources.left_out = tree.left_out;
            sources.tree = Some(tree.record.name);
            for (name, text) in tree.files {
                sources.add(&name, SourceKind::Repo, text);
            }
        }
        sources
    }

    fn add(&mut self, name: &str, kind: SourceKind, text: String) {
        let mut unique = name.to_string();
        let mut n = 2;
        while self.by_name.contains_key(&unique) {
            unique = format!("{name}~{n}");
            n += 1;
        }
        if !self.corpus.is_empty() {
            self.corpus.push('\0');
        }
        let start = self.corpus.len();
        let line_starts = normalise_into(&text, &mut self.corpus);
        let range = start..self.corpus.len();
        self.by_name.insert(unique.clone(), self.files.len());
        self.files.push(SourceFile {
            name: unique,
            kind,
            text,
            range,
            line_starts,
        });
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// [`Sources::new`], indexed once per documents and tree inside a
    /// [`SharedWalks`] scope (the same documents and a tree of the same
    /// hash give the same index); outside one, indexed every time.
    pub fn shared(documents: Documents, tree: Option<Tree>) -> Arc<Sources> {
        let hash = tree.as_ref().map(|tree| tree.record.sha256.clone());
        let found = INDEXED.with(|indexed| {
            let indexed = indexed.borrow();
            indexed
                .as_ref()?
                .iter()
                .find(|(docs, tree, _)| *docs == documents && *tree == hash)
                .map(|(_, _, sources)| Arc::clone(sources))
        });
        if let Some(sources) = found {
            return sources;
        }
        let key = INDEXED.with(|indexed| indexed.borrow().is_some().then(|| documents.clone()));
        let sources = Arc::new(Sources::new(documents, tree));
        if let Some(documents) = key {
            INDEXED.with(|indexed| {
                if let Some(indexed) = indexed.borrow_mut().as_mut() {
                    indexed.push((documents, hash, Arc::clone(&sources)));
                }
            });
        }
        sources
    }

    /// Every source's name, kind, lines and bytes, in the order loaded.
    pub fn list(&self) -> impl Iterator<Item = (&str, SourceKind, u32, usize)> {
        self.files
            .iter()
            .map(|file| (file.name.as_str(), file.kind, file.lines(), file.text.len()))
    }

    /// The text of the source named `name` exactly.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.by_name
            .get(name)
            .map(|&index| self.files[index].text.as_str())
    }

    /// The name and text of the source `name` stands for (as
    /// [`Sources::resolve`] reads it), if any.
    pub fn found(&self, name: &str) -> Option<(&str, &str)> {
        self.resolve(name).map(|index| {
            let file = &self.files[index];
            (file.name.as_str(), file.text.as_str())
        })
    }

    /// Whether `name` names a source (as [`Sources::resolve`] reads it).
    pub fn knows(&self, name: &str) -> bool {
        self.resolve(name).is_some()
    }

    /// The source a citation's `name` stands for: the name exactly (a
    /// leading `./` aside), or the one file whose path ends in `/name`.
    /// An absolute name, or one with a `..` part, is never a source.
    pub(crate) fn resolve(&self, name: &str) -> Option<usize> {
        let name = name.strip_prefix("./").unwrap_or(name);
        if name.is_empty() || name.starts_with('/') || name.split('/').any(|part| part == "..") {
            return None;
        }
        if let Some(&index) = self.by_name.get(name) {
            return Some(index);
        }
        let suffix = format!("/{name}");
        let mut found = self
            .files
            .iter()
            .enumerate()
            .filter(|(_, file)| file.name.ends_with(&suffix));
        match (found.next(), found.next()) {
            (Some((index, _)), None) => Some(index),
            _ => None,
        }
    }

    /// The files of the tree whose names (or file names) `text` mentions,
    /// in the order loaded, at most `most`.
    pub fn named_in(&self, text: &str, most: usize) -> Vec<&str> {
        self.files
            .iter()
            .filter(|file| file.kind == SourceKind::Repo)
            .filter(|file| {
                let base = file.name.rsplit('/').next().unwrap_or(&file.name);
                text.contains(file.name.as_str()) || (base.contains('.') && text.contains(base))
            })
            .map(|file| file.name.as_str())
            .take(most)
            .collect()
    }
}

/// A name a citation can write: no whitespace.
pub fn citable_name(name: &str) -> String {
    let name: String = name
        .trim()
        .chars()
        .map(|c| if c.is_whitespace() { '-' } else { c })
        .collect();
    if name.is_empty() {
        "context".into()
    } else {
        name
    }
}

/// Whether `c` stands for a quotation mark.
fn quote_mark(c: char) -> Option<char> {
    match c {
        '“' | '”' | '„' | '″' => Some('"'),
        '‘' | '’' | '‚' | '′' | '`' => Some('\''),
        _ => None,
    }
}

/// `text` normalised for comparison: every run of whitespace one space,
/// curly and back quotes straight, no space at either end.
pub fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    normalise_into(text, &mut out);
    out.trim_end().to_string()
}

/// Appends `text` normalised to `out`; returns the offset in `out` at
/// which each of `text`'s lines starts.
fn normalise_into(text: &str, out: &mut String) -> Vec<usize> {
    let mut line_starts = vec![out.len()];
    let begin = out.len();
    let mut space = true; // no leading space
    for c in text.chars() {
        if c == '\n' {
            if !space {
                out.push(' ');
                space = true;
            }
            line_starts.push(out.len());
            continue;
        }
        if c.is_whitespace() {
            if !space {
                out.push(' ');
                space = true;
            }
            continue;
        }
        out.push(quote_mark(c).unwrap_or(c));
        space = false;
    }
    if text.ends_with('\n') {
        line_starts.pop();
    }
    if line_starts.is_empty() {
        line_starts.push(begin);
    }
    line_starts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree_with(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        dir
    }

    /// EV-01: inside a shared-walk scope a tree is walked once per root
    /// (it reads as it was then); outside one, every walk reads it anew.
    #[test]
    fn ev_01_a_tree_is_walked_once_per_root_inside_a_shared_scope_only() {
        let dir = tree_with(&[("a.go", b"package a\n")]);
        let limits = RepoLimits::default();
        let first = {
            let _scope = SharedWalks::begin();
            let first = Tree::walk_shared(dir.path(), limits).unwrap();
            std::fs::write(dir.path().join("a.go"), b"package b\n").unwrap();
            let again = Tree::walk_shared(dir.path(), limits).unwrap();
            assert_eq!(again.record.sha256, first.record.sha256, "walked once");
            let documents = || vec![("a.log".to_string(), SourceKind::Log, "x\n".to_string())];
            let one = Sources::shared(documents(), Some(first.clone()));
            let two = Sources::shared(documents(), Some(again));
            assert!(Arc::ptr_eq(&one, &two), "indexed once");
            first
        };
        let documents = vec![("a.log".to_string(), SourceKind::Log, "x\n".to_string())];
        let one = Sources::shared(documents.clone(), None);
        assert!(!Arc::ptr_eq(&one, &Sources::shared(documents, None)));
        let after = Tree::walk_shared(dir.path(), limits).unwrap();
        assert_ne!(after.record.sha256, first.record.sha256, "read anew");
        assert_eq!(after.files[0].1, "package b\n");
    }

    #[test]
    fn ev_01_a_tree_honours_gitignore_and_leaves_out_binary_huge_and_links() {
        let dir = tree_with(&[
            (".gitignore", b"target/\n*.tmp\n"),
            ("src/main.go", b"package main\n"),
            ("target/out.go", b"package out\n"),
            ("notes.tmp", b"scratch\n"),
            ("logo.png", b"\x89PNG\0\0\0"),
            ("big.txt", &[b'a'; 5000]),
        ]);
        let outside = tree_with(&[("secret.txt", b"secret\n")]);
        std::os::unix::fs::symlink(
            outside.path().join("secret.txt"),
            dir.path().join("link.txt"),
        )
        .unwrap();
        let limits = RepoLimits {
            file_bytes: 4096,
            ..RepoLimits::default()
        };
        let tree = Tree::walk(dir.path(), limits).unwrap();
        let names: Vec<&str> = tree.files.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            ["src/main.go"],
            "hidden .gitignore, ignored and left-out files"
        );
        let why: Vec<(&str, &str)> = tree
            .left_out
            .iter()
            .map(|left| (left.name.as_str(), left.why.as_str()))
            .collect();
        assert!(
            why.contains(&("big.txt", "larger than 4096 bytes")),
            "{why:?}"
        );
        assert!(why.contains(&("logo.png", "binary")), "{why:?}");
        assert!(
            why.contains(&("link.txt", "a link (links are not followed)")),
            "{why:?}"
        );
        assert_eq!(tree.record.files, Some(1));
    }

    #[test]
    fn ev_01_a_trees_limit_leaves_the_rest_out_and_says_so() {
        let dir = tree_with(&[
            ("a.txt", b"aaaa\n"),
            ("b.txt", b"bbbb\n"),
            ("c.txt", b"c\n"),
        ]);
        let limits = RepoLimits {
            total_bytes: 10,
            ..RepoLimits::default()
        };
        let tree = Tree::walk(dir.path(), limits).unwrap();
        assert_eq!(tree.files.len(), 2);
        assert_eq!(tree.left_out[0].name, "c.txt");
        assert!(tree.left_out[0].why.starts_with("past the tree's limit"));
    }

    #[test]
    fn ev_04_a_changed_tree_or_file_is_reported_by_its_record() {
        let dir = tree_with(&[("a.txt", b"one\n")]);
        let tree = Tree::walk(dir.path(), RepoLimits::default()).unwrap();
        assert_eq!(tree.record.changed(RepoLimits::default()), None);
        std::fs::write(dir.path().join("a.txt"), b"two\n").unwrap();
        let changed = tree.record.changed(RepoLimits::default()).unwrap();
        assert!(
            changed.contains("changed since the debate started"),
            "{changed}"
        );

        let log = dir.path().join("app.log");
        std::fs::write(&log, "ok\n").unwrap();
        let record = SourceRecord::of_file(SourceKind::Log, "app.log", Some(&log), "ok\n");
        assert_eq!(record.changed(RepoLimits::default()), None);
        std::fs::remove_file(&log).unwrap();
        assert!(
            record
                .changed(RepoLimits::default())
                .unwrap()
                .contains("can no longer be read")
        );
    }

    #[test]
    fn ev_06_names_outside_the_sources_are_never_resolved() {
        let sources = Sources::new(
            vec![("app.log".into(), SourceKind::Log, "x\n".into())],
            Some(Tree {
                record: SourceRecord::of_file(SourceKind::Repo, "r", None, ""),
                files: vec![("src/pay/webhooks.go".into(), "a\n".into())],
                left_out: vec![],
            }),
        );
        assert!(sources.knows("app.log"));
        assert!(sources.knows("webhooks.go"), "a unique file name");
        assert!(sources.knows("./src/pay/webhooks.go"));
        for hostile in [
            "/etc/passwd",
            "../../etc/passwd",
            "src/../app.log",
            "",
            "/app.log",
        ] {
            assert!(!sources.knows(hostile), "{hostile}");
        }
    }

    #[test]
    fn normalising_keeps_each_lines_start() {
        let mut out = String::new();
        let starts = normalise_into("a  b\n\n  “c”\td\n", &mut out);
        assert_eq!(out, "a b \"c\" d ");
        assert_eq!(starts, [0, 4, 4]);
        assert_eq!(normalise("  x \n y "), "x y");
    }
}
