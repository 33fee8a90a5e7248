//! Step of `prepare`: what the agents may cite (issue 52), read and
//! recorded.

use std::path::{Path, PathBuf};

use crate::evidence::{RepoLimits, SourceKind, SourceRecord};
use crate::input;
use crate::located::SpecError;
use crate::protocol::ContextDoc;
use crate::spec::DebateSpec;

use super::RunFlags;

/// Step: what the agents may cite (issue 52). Each log (`--logs`, a spec's
/// `logs:`) joins the context under its file name, so that every prompt
/// that shows the context shows it; each file read from disk, and the
/// source tree (`--repo`, a spec's `repo:`), is recorded with its hash.
/// A spec's paths stay in its folder unless `--allow-outside-context`;
/// the flags' are the person's own.
pub(super) fn load_sources(
    spec: &DebateSpec,
    base: &Path,
    from_spec: bool,
    flags: &RunFlags,
    mut context: Vec<ContextDoc>,
) -> Result<(Vec<ContextDoc>, Vec<SourceRecord>), SpecError> {
    let mut records = Vec::new();
    let place = |path: &Path, field: &str| -> Result<PathBuf, SpecError> {
        if !from_spec || flags.allow_outside_context {
            return Ok(if from_spec && path.is_relative() {
                base.join(path)
            } else {
                path.to_path_buf()
            });
        }
        input::in_spec_folder(base, path).map_err(|message| SpecError::new(message).field(field))
    };
    for (index, context_spec) in spec.context.iter().enumerate() {
        let (Some(path), Some(document)) = (&context_spec.path, context.get(index)) else {
            continue;
        };
        let path = if from_spec && path.is_relative() {
            base.join(path)
        } else {
            path.clone()
        };
        records.push(SourceRecord::of_file(
            SourceKind::Context,
            &document.name,
            Some(&path),
            &document.text,
        ));
    }
    let kind = input::Kind {
        name: "log file",
        limit: flags.context_limit.unwrap_or(input::CONTEXT_LIMIT),
        raise: Some("--context-limit BYTES"),
    };
    let logs = flags
        .logs
        .iter()
        .map(|path| (path.clone(), "--logs".to_string(), false))
        .chain(
            spec.logs
                .iter()
                .enumerate()
                .map(|(index, path)| (path.clone(), format!("logs[{index}]"), from_spec)),
        );
    for (path, field, in_spec) in logs {
        let resolved = if in_spec {
            place(&path, &field)?
        } else {
            path.clone()
        };
        let text = if in_spec {
            input::read_regular_file(&resolved, kind)
        } else {
            input::read_text(&resolved, kind)
        }
        .map_err(|error| SpecError::new(error.to_string()).field(field.clone()))?;
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        records.push(SourceRecord::of_file(
            SourceKind::Log,
            &name,
            Some(&resolved),
            &text,
        ));
        context.push(ContextDoc { name, text });
    }
    let repo = match (&flags.repo, &spec.repo) {
        (Some(path), _) => Some((path.clone(), "--repo")),
        (None, Some(path)) => Some((place(path, "repo")?, "repo")),
        (None, None) => None,
    };
    if let Some((root, field)) = repo {
        let tree = crate::evidence::sources::Tree::walk(&root, RepoLimits::default())
            .map_err(|why| SpecError::new(why).field(field))?;
        records.push(tree.record);
    }
    Ok((context, records))
}
