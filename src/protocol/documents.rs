//! How a protocol hands its documents over: each named with what it is
//! rendered from, so that a rewrite of the run folder renders only the
//! documents whose inputs changed since their files were last written.
//!
//! A protocol adds every document it has to a [`Documents`]; one rendered
//! from the whole debate (a transcript, whose log grows with every step) is
//! added with [`Documents::add`] and rendered every time; one rendered from
//! a part of it (a stage's answer, a packet list) is added with
//! [`Documents::add_from`] and the values it reads, and is rendered only
//! when those differ from the last time. Inputs that leave something out
//! make a stale file: in a debug build the engine renders every skipped
//! document once more and stops on any that would differ, so the tests of
//! every protocol check its inputs.
//!
//! Not responsible for writing (the engine's record writer does) or for
//! what a document says (each protocol's documents.rs).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use super::Document;

/// A document as a rewrite found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Planned {
    /// Rendered: its contents now, and what they were rendered from
    /// (`None`: the whole debate).
    Rendered {
        document: Document,
        inputs: Option<u64>,
    },
    /// Its inputs are what its file was last written from: not rendered.
    Unchanged { path: String },
}

/// The documents of a protocol as they should read now, rendered lazily:
/// see the module doc.
#[derive(Debug, Default)]
pub struct Documents<'a> {
    /// The inputs each document's file was last written from; `None`:
    /// every document is rendered.
    since: Option<&'a HashMap<String, u64>>,
    /// Values a document depends on besides its own inputs (the notes
    /// the skeleton adds to a deliverable), by path.
    extra: HashMap<String, u64>,
    planned: Vec<Planned>,
}

impl<'a> Documents<'a> {
    /// Renders every document.
    pub fn all() -> Documents<'static> {
        Documents::default()
    }

    /// Renders only the documents whose inputs differ from `since` (the
    /// inputs each file was last written from).
    pub fn since(since: &'a HashMap<String, u64>) -> Self {
        Documents {
            since: Some(since),
            ..Documents::default()
        }
    }

    /// `path`, rendered from the whole debate: rendered every time.
    pub fn add(&mut self, path: &str, render: impl FnOnce() -> String) {
        self.add_some(path, || Some(render()));
    }

    /// [`add`](Self::add) for a document that may not exist yet (`None`).
    pub fn add_some(&mut self, path: &str, render: impl FnOnce() -> Option<String>) {
        let inputs = self.extra.get(path).copied();
        self.plan(path, inputs, render, false);
    }

    /// `path`, rendered from what `inputs` holds (the values its renderer
    /// reads, or a count that changes whenever they do): rendered again
    /// only when they differ from the last time its file was written.
    /// `None` from `render`: the document does not exist yet.
    pub fn add_from(
        &mut self,
        path: &str,
        inputs: impl Hash,
        render: impl FnOnce() -> Option<String>,
    ) {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        inputs.hash(&mut hasher);
        if let Some(extra) = self.extra.get(path) {
            extra.hash(&mut hasher);
        }
        self.plan(path, Some(hasher.finish()), render, true);
    }

    fn plan(
        &mut self,
        path: &str,
        inputs: Option<u64>,
        render: impl FnOnce() -> Option<String>,
        skippable: bool,
    ) {
        let unchanged = skippable
            && inputs.is_some()
            && self
                .since
                .is_some_and(|since| since.get(path) == inputs.as_ref());
        if unchanged {
            self.planned.push(Planned::Unchanged {
                path: path.to_string(),
            });
        } else if let Some(contents) = render() {
            self.planned.push(Planned::Rendered {
                document: Document::new(path, contents),
                inputs: inputs.filter(|_| skippable),
            });
        }
    }

    /// Makes `value` an input of `path` too, added before the document is:
    /// what the skeleton adds to it ([`edit`](Self::edit)) depends on it.
    pub fn depends(&mut self, path: &str, value: impl Hash) {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        value.hash(&mut hasher);
        self.extra.insert(path.to_string(), hasher.finish());
    }

    /// Changes the contents of `path`, if it was rendered.
    pub fn edit(&mut self, path: &str, change: impl FnOnce(&str) -> String) {
        for planned in &mut self.planned {
            if let Planned::Rendered { document, .. } = planned
                && document.path == path
            {
                document.contents = change(&document.contents);
                return;
            }
        }
    }

    /// Every document as found: rendered or unchanged.
    pub fn into_planned(self) -> Vec<Planned> {
        self.planned
    }

    /// The documents rendered.
    pub fn into_documents(self) -> Vec<Document> {
        self.planned
            .into_iter()
            .filter_map(|planned| match planned {
                Planned::Rendered { document, .. } => Some(document),
                Planned::Unchanged { .. } => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(documents: &mut Documents<'_>, proposal: &str, rendered: &mut Vec<&'static str>) {
        documents.add("transcript.md", || {
            rendered.push("transcript.md");
            "log".into()
        });
        documents.add_from("proposal.md", proposal, || {
            rendered.push("proposal.md");
            Some(proposal.to_string())
        });
        documents.add_from("summary.md", (), || None);
    }

    fn inputs(planned: &[Planned]) -> HashMap<String, u64> {
        planned
            .iter()
            .filter_map(|planned| match planned {
                Planned::Rendered {
                    document,
                    inputs: Some(inputs),
                } => Some((document.path.clone(), *inputs)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_document_is_rendered_again_only_when_its_inputs_change() {
        let mut first = Documents::all();
        let mut rendered = Vec::new();
        render(&mut first, "A", &mut rendered);
        let first = first.into_planned();
        assert_eq!(rendered, ["transcript.md", "proposal.md"]);
        assert_eq!(first.len(), 2, "a document that does not exist is left out");
        let since = inputs(&first);
        assert_eq!(since.len(), 1, "the transcript is rendered every time");

        let mut rendered = Vec::new();
        let mut same = Documents::since(&since);
        render(&mut same, "A", &mut rendered);
        assert_eq!(rendered, ["transcript.md"]);
        assert!(same.into_planned().contains(&Planned::Unchanged {
            path: "proposal.md".into()
        }));

        let mut rendered = Vec::new();
        let mut changed = Documents::since(&since);
        render(&mut changed, "B", &mut rendered);
        assert_eq!(rendered, ["transcript.md", "proposal.md"]);
    }

    #[test]
    fn what_the_skeleton_adds_is_an_input_of_the_document() {
        let since = {
            let mut documents = Documents::all();
            documents.depends("proposal.md", 0usize);
            documents.add_from("proposal.md", "A", || Some("A".into()));
            documents.edit("proposal.md", |text| format!("{text}."));
            inputs(&documents.into_planned())
        };
        let mut documents = Documents::since(&since);
        documents.depends("proposal.md", 1usize);
        documents.add_from("proposal.md", "A", || Some("A".into()));
        documents.edit("proposal.md", |text| format!("{text}!"));
        assert_eq!(documents.into_documents()[0].contents, "A!");
    }
}
