//! Every debate's deliverables as MCP resources:
//! `quorum://debates/{id}/{file}` for each document at the top of a debate
//! folder under the server's artifact root (`summary.md`, `debate.yaml`,
//! `evidence.yaml`, `transcript.md` …), the journal and lock aside.
//!
//! A resource address chooses nothing outside the root: its id must be a
//! debate folder directly under it and its file a regular file directly in
//! that folder, both plain names (no separator, no `..`), neither a link.

use std::path::{Path, PathBuf};

/// The scheme and prefix of every resource address.
pub(super) const PREFIX: &str = "quorum://debates/";

/// Largest document served, in bytes: a deliverable is text a person reads.
const MAX_BYTES: u64 = 8 * 1024 * 1024;

/// The documents at the top of `dir` a resource may name, sorted.
pub(super) fn files_of(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| served(name))
        .collect();
    names.sort();
    names
}

/// A document a person reads: not the journal, not a lock or a half
/// written file.
fn served(name: &str) -> bool {
    let document = [".md", ".yaml", ".json", ".html", ".txt"]
        .iter()
        .any(|extension| name.ends_with(extension));
    document && !name.starts_with('.') && name != crate::engine::resume::JOURNAL_FILE
}

/// The debate folders directly under `root` (those with a journal).
pub(super) fn debates_under(root: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut debates: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .filter_map(|entry| Some((entry.file_name().into_string().ok()?, entry.path())))
        .filter(|(_, path)| path.join(crate::engine::resume::JOURNAL_FILE).is_file())
        .collect();
    debates.sort();
    debates
}

/// The folder of debate `id` under `root`, if `id` is a plain name of one.
pub(super) fn debate_dir(root: &Path, id: &str) -> Result<PathBuf, String> {
    if !plain(id) {
        return Err(format!(
            "debate: `{id}` is not a debate's id (a folder name under the artifact root, with no separator)"
        ));
    }
    let dir = root.join(id);
    let is_dir = std::fs::symlink_metadata(&dir).is_ok_and(|meta| meta.is_dir());
    if !is_dir || !dir.join(crate::engine::resume::JOURNAL_FILE).is_file() {
        return Err(format!(
            "debate: no debate `{id}` under {} (`list` names them)",
            root.display()
        ));
    }
    Ok(dir)
}

fn plain(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
        && !name.chars().any(char::is_control)
}

/// The text of the resource at `uri`, or why it cannot be read.
pub(super) fn read(root: &Path, uri: &str) -> Result<String, String> {
    let rest = uri
        .strip_prefix(PREFIX)
        .ok_or_else(|| format!("`{uri}` is not a quorum resource ({PREFIX}ID/FILE)"))?;
    let (id, file) = rest
        .split_once('/')
        .ok_or_else(|| format!("`{uri}` names no file ({PREFIX}ID/FILE)"))?;
    let dir = debate_dir(root, id)?;
    if !plain(file) || !served(file) {
        return Err(format!("`{file}` is not a document of a debate"));
    }
    let path = dir.join(file);
    let meta = std::fs::symlink_metadata(&path).map_err(|_| format!("{id} has no {file}"))?;
    if !meta.is_file() {
        return Err(format!("{id}/{file} is not a regular file"));
    }
    if meta.len() > MAX_BYTES {
        return Err(format!(
            "{id}/{file} is {} bytes, more than the {MAX_BYTES} served",
            meta.len()
        ));
    }
    let bytes = std::fs::read(&path).map_err(|error| format!("{id}/{file}: {error}"))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 54, bad input: a resource address never reaches outside the
    /// artifact root, nor the journal, nor a link.
    #[test]
    fn a_resource_address_chooses_nothing_outside_the_root() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("debates");
        let debate = root.join("d-20261207-000000");
        std::fs::create_dir_all(&debate).unwrap();
        std::fs::write(debate.join("journal.jsonl"), "{}\n").unwrap();
        std::fs::write(debate.join("summary.md"), "# summary\n").unwrap();
        std::fs::write(tmp.path().join("secret.md"), "secret").unwrap();
        std::os::unix::fs::symlink(tmp.path().join("secret.md"), debate.join("link.md")).unwrap();
        let uri = |rest: &str| format!("{PREFIX}{rest}");
        assert_eq!(
            read(&root, &uri("d-20261207-000000/summary.md")).unwrap(),
            "# summary\n"
        );
        for bad in [
            "d-20261207-000000/../../secret.md",
            "../secret.md",
            "d-20261207-000000/journal.jsonl",
            "d-20261207-000000/link.md",
            "d-20261207-000000",
            "nope/summary.md",
        ] {
            assert!(read(&root, &uri(bad)).is_err(), "{bad}");
        }
        assert!(read(&root, "file:///etc/passwd").is_err());
        assert_eq!(files_of(&debate), ["summary.md"]);
        assert_eq!(debates_under(&root).len(), 1);
    }
}
