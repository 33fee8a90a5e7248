//! Role prompts: templates rendered with minijinja.
//!
//! Every protocol declares its templates as [`TemplateSpec`]s (file name,
//! the variables the protocol gives it, the built-in source, which lives in
//! `prompts/` and is compiled into the binary); the registry gathers them,
//! and one [`PromptSet`] holds them all. A user may replace any of them by
//! putting a file with the same name in an override directory (by default
//! `$XDG_CONFIG_HOME/quorum/prompts`); a file there that matches no built-in
//! name, uses a variable its template is not given, or does not compile is
//! an error that names the file, so a typo never silently falls back to the
//! built-in prompt.
//!
//! Rendering is strict: a variable the caller did not provide is an error,
//! never an empty string. This module does not decide what goes into a prompt
//! (the protocol builds the context) and does not parse answers.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

use etcetera::BaseStrategy;
use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Serde, Value};
use minijinja::{Environment, UndefinedBehavior};
use serde::Serialize;

/// Suffix every template file name ends with.
pub const TEMPLATE_SUFFIX: &str = ".md.j2";

/// One prompt template: its file name (in `prompts/` and in an override
/// directory), every variable its protocol gives it, and its built-in text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TemplateSpec {
    pub file_name: &'static str,
    pub variables: &'static [&'static str],
    pub source: &'static str,
}

/// The [`TemplateSpec`] of the built-in template `prompts/<file_name>`,
/// with the variables its protocol gives it: the file name is written once,
/// for the override directory and for the source compiled in.
macro_rules! template {
    ($file_name:literal, $variables:expr $(,)?) => {
        $crate::prompts::TemplateSpec {
            file_name: $file_name,
            variables: $variables,
            source: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/prompts/", $file_name)),
        }
    };
}
pub(crate) use template;

/// A second attempt after an answer could not be used: the original request,
/// the answer and what was wrong with it. Shared by every protocol.
pub const REPAIR_TEMPLATE: TemplateSpec = template!(
    "repair.md.j2",
    &["original_prompt", "previous_output", "error"]
);

/// A second attempt after an answer was read item by item and some of its
/// items could not be (issue 59): the original request, the answer and
/// each item's problem. Shared by every protocol.
pub const REPAIR_ITEMS_TEMPLATE: TemplateSpec = template!(
    "repair-items.md.j2",
    &["original_prompt", "previous_output", "problems"]
);

/// A second attempt after an answer that could be read went against the
/// moderator's rulings: the original request, the answer and each
/// discrepancy. Shared by every protocol.
pub const RECHECK_TEMPLATE: TemplateSpec = template!(
    "recheck.md.j2",
    &["original_prompt", "previous_output", "discrepancies"]
);

/// Why prompts could not be loaded or rendered.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("cannot read the prompt override directory {}: {source}", path.display())]
    ReadDir { path: PathBuf, source: io::Error },
    #[error("{0}")]
    Input(#[from] crate::input::InputError),
    #[error(
        "{}: no built-in prompt template has this name; an override must be named one of: {expected}",
        path.display()
    )]
    UnknownTemplate { path: PathBuf, expected: String },
    #[error("{}:{line}: template syntax error: {message}", path.display())]
    Syntax {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error(
        "{}: uses the variable `{variable}`, which this template is not given; available: {available}",
        path.display()
    )]
    UnknownVariable {
        path: PathBuf,
        variable: String,
        available: String,
    },
    #[error("cannot render the prompt {template}: {message}")]
    Render {
        template: &'static str,
        message: String,
    },
}

/// The compiled prompt templates, built-in or overridden.
#[derive(Clone, Debug)]
pub struct PromptSet {
    env: Environment<'static>,
    templates: Vec<TemplateSpec>,
    /// Sources that replaced built-in templates, by file name: recorded in
    /// the journal so a resumed debate asks its agents the same way.
    overrides: BTreeMap<String, String>,
}

impl PromptSet {
    /// Exactly `templates`, built in. (Those of every registered protocol
    /// are [`PromptSet::builtin`], beside the registry that knows them.)
    pub fn of(templates: Vec<TemplateSpec>) -> PromptSet {
        let mut env = new_environment();
        for template in &templates {
            env.add_template(template.file_name, template.source)
                .unwrap_or_else(|error| {
                    panic!(
                        "built-in prompt {} must compile: {error}",
                        template.file_name
                    )
                });
        }
        PromptSet {
            env,
            templates,
            overrides: BTreeMap::new(),
        }
    }

    /// These templates, with any file of `override_dir` named like one of
    /// them taking its place. A missing directory means no overrides; files
    /// not ending in `.md.j2` are ignored.
    pub fn overridden_from(self, override_dir: Option<&Path>) -> Result<PromptSet, PromptError> {
        let mut prompts = self;
        let Some(dir) = override_dir else {
            return Ok(prompts);
        };
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(prompts),
            Err(source) => {
                return Err(PromptError::ReadDir {
                    path: dir.to_path_buf(),
                    source,
                });
            }
        };
        let mut override_paths = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| PromptError::ReadDir {
                path: dir.to_path_buf(),
                source,
            })?;
            let path = entry.path();
            let is_template = path
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.ends_with(TEMPLATE_SUFFIX));
            if is_template && path.is_file() {
                override_paths.push(path);
            }
        }
        override_paths.sort();
        for path in override_paths {
            prompts.add_override(&path)?;
        }
        Ok(prompts)
    }

    /// The template called `file_name`.
    pub fn template(&self, file_name: &str) -> Option<TemplateSpec> {
        self.templates
            .iter()
            .find(|template| template.file_name == file_name)
            .copied()
    }

    /// Every template's file name, as an error lists the valid ones.
    fn names(&self) -> String {
        self.templates
            .iter()
            .map(|template| template.file_name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn add_override(&mut self, path: &Path) -> Result<(), PromptError> {
        let file_name = path.file_name().and_then(|name| name.to_str());
        let Some(template) = file_name.and_then(|name| self.template(name)) else {
            return Err(PromptError::UnknownTemplate {
                path: path.to_path_buf(),
                expected: self.names(),
            });
        };
        let kind = crate::input::Kind::new("prompt template", crate::input::PROMPT_LIMIT);
        let source = crate::input::read_text(path, kind)?;
        self.add_source(template, source, path)
    }

    pub fn overrides(&self) -> &BTreeMap<String, String> {
        &self.overrides
    }

    /// These templates with `overrides` (file name → source, as a journal
    /// recorded them) in place; `origin` names where they came from.
    pub fn overridden_by(
        self,
        overrides: &BTreeMap<String, String>,
        origin: &Path,
    ) -> Result<PromptSet, PromptError> {
        let mut prompts = self;
        for (file_name, source) in overrides {
            let Some(template) = prompts.template(file_name) else {
                return Err(PromptError::UnknownTemplate {
                    path: origin.join(file_name),
                    expected: prompts.names(),
                });
            };
            prompts.add_source(template, source.clone(), origin)?;
        }
        Ok(prompts)
    }

    fn add_source(
        &mut self,
        template: TemplateSpec,
        source: String,
        path: &Path,
    ) -> Result<(), PromptError> {
        self.overrides
            .insert(template.file_name.to_string(), source.clone());
        self.env
            .add_template_owned(template.file_name, source)
            .map_err(|error| PromptError::Syntax {
                path: path.to_path_buf(),
                line: error.line().unwrap_or(0),
                message: error.detail().unwrap_or("invalid template").to_string(),
            })?;
        if let Some(variable) = self.unknown_variables(&template).into_iter().next() {
            return Err(PromptError::UnknownVariable {
                path: path.to_path_buf(),
                variable,
                available: template.variables.join(", "),
            });
        }
        Ok(())
    }

    /// Variables `template` uses that its protocol does not give it.
    pub fn unknown_variables(&self, template: &TemplateSpec) -> BTreeSet<String> {
        self.used_variables(template)
            .into_iter()
            .filter(|name| !template.variables.contains(&name.as_str()))
            .collect()
    }

    /// Every variable `template` reads, globals (such as `range`) aside.
    pub fn used_variables(&self, template: &TemplateSpec) -> BTreeSet<String> {
        let globals: BTreeSet<&str> = self.env.globals().map(|(name, _)| name).collect();
        let compiled = self
            .env
            .get_template(template.file_name)
            .expect("every template is registered");
        compiled
            .undeclared_variables(false)
            .into_iter()
            .filter(|name| !globals.contains(name.as_str()))
            .collect()
    }

    pub fn render(
        &self,
        template: &TemplateSpec,
        context: &impl Serialize,
    ) -> Result<String, PromptError> {
        let render_error = |error: minijinja::Error| PromptError::Render {
            template: template.file_name,
            message: error.to_string(),
        };
        let compiled = self
            .env
            .get_template(template.file_name)
            .map_err(render_error)?;
        compiled
            .render(Value::from(Serde(context)))
            .map_err(render_error)
    }
}

/// `$XDG_CONFIG_HOME/quorum/prompts`, where overrides are looked for.
pub fn default_override_dir() -> Option<PathBuf> {
    let strategy = etcetera::choose_base_strategy().ok()?;
    Some(strategy.config_dir().join("quorum").join("prompts"))
}

/// How much work one prompt may take to render, in minijinja's fuel units
/// (about one per instruction, plus the bytes an operation allocates). A
/// built-in prompt of the largest debate quorum accepts uses a small part of
/// it; a template that loops without end (`--prompts`, or one recorded in
/// someone else's journal) is stopped within about a second with an error
/// naming it, instead of spinning until it is killed.
pub const RENDER_FUEL: u64 = 50_000_000;

fn new_environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_fuel(Some(RENDER_FUEL));
    env.set_syntax(
        SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
            .expect("the default delimiters are valid"),
    );
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every registered protocol's templates: unique names, none `.html`
    /// (auto-escaping), each compiles and uses exactly the variables its
    /// protocol documents (so an override cannot silently lose one).
    #[test]
    fn every_registered_template_is_named_and_uses_its_documented_variables() {
        let prompts = PromptSet::builtin();
        let mut names = BTreeSet::new();
        for template in crate::protocol::registry::templates() {
            assert!(
                names.insert(template.file_name),
                "{} twice",
                template.file_name
            );
            assert!(template.file_name.ends_with(TEMPLATE_SUFFIX));
            assert!(!template.file_name.contains(".html"));
            let used = prompts.used_variables(&template);
            let documented: BTreeSet<String> = template
                .variables
                .iter()
                .map(|name| name.to_string())
                .collect();
            assert_eq!(used, documented, "{}", template.file_name);
        }
    }

    #[test]
    fn default_override_dir_is_under_the_config_dir() {
        if let Some(dir) = default_override_dir() {
            assert!(dir.ends_with("quorum/prompts"));
        }
    }
}

#[cfg(test)]
mod fuel_tests {
    use super::*;

    fn with_repair(source: &str) -> PromptSet {
        let overrides =
            BTreeMap::from([(REPAIR_TEMPLATE.file_name.to_string(), source.to_string())]);
        PromptSet::with_overrides(&overrides, Path::new("journal.jsonl")).unwrap()
    }

    fn context(previous_output: &str) -> serde_json::Value {
        serde_json::json!({
            "original_prompt": "Review it.",
            "previous_output": previous_output,
            "error": "unclosed [",
        })
    }

    #[test]
    fn a_template_that_loops_without_end_runs_out_of_fuel() {
        let prompts = with_repair(
            "{% for a in range(100000) %}{% for b in range(100000) %}{{ error }}{% endfor %}{% endfor %}{{ original_prompt }}{{ previous_output }}",
        );
        let error = prompts.render(&REPAIR_TEMPLATE, &context("x")).unwrap_err();
        assert!(error.to_string().contains("repair.md.j2"), "{error}");
        assert!(error.to_string().contains("fuel"), "{error}");
    }

    #[test]
    fn a_built_in_prompt_of_the_largest_answer_renders_within_its_fuel() {
        // An answer at the largest size a provider accepts, quoted whole.
        let answer = "word ".repeat(16 * 1024 * 1024 / 5);
        let prompt = PromptSet::builtin()
            .render(&REPAIR_TEMPLATE, &context(&answer))
            .unwrap();
        assert!(prompt.len() > answer.len());
    }
}
