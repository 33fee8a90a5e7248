//! The decision review's prompt templates: proposer, critic (one per
//! stance), reviser and judge, plus the shared repair template. Their text
//! lives in `prompts/`; what each is given is listed here and checked
//! against what the template uses.

use crate::prompts::{REPAIR_TEMPLATE, TemplateSpec, template};

use super::model::CritiqueMode;

/// One template of the decision review.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Template {
    /// Stage 1: the proposer builds its thesis tree.
    Proposer,
    /// Stage 2: the critic, in one of the three stances (DR-16).
    Critic(CritiqueMode),
    /// Stage 3: the proposer revises its tree and writes a change log.
    Reviser,
    /// Stage 4: one judge scores the revised tree on its own criteria.
    Judge,
    /// A second attempt after an answer could not be parsed (shared).
    Repair,
}

const PROPOSER: TemplateSpec = template!(
    "proposer.md.j2",
    &["topic", "context", "sources", "mode", "options"]
);

const CRITIC_VARIABLES: &[&str] = &[
    "topic",
    "options",
    "context",
    "sources",
    "evidence_checks",
    "proposal_yaml",
    "proposer_label",
    "critique_mode",
];

const CRITIC_STEELMAN: TemplateSpec = template!("critic-generous-steelman.md.j2", CRITIC_VARIABLES);

const CRITIC_STRICT: TemplateSpec = template!("critic-strict.md.j2", CRITIC_VARIABLES);

const CRITIC_NEUTRAL: TemplateSpec = template!("critic-neutral.md.j2", CRITIC_VARIABLES);

const REVISER: TemplateSpec = template!(
    "reviser.md.j2",
    &[
        "topic",
        "options",
        "context",
        "sources",
        "round",
        "reopened",
        "tree_yaml",
        "accepted",
        "deferred",
        "rejected",
        "rulings",
        "directives",
        "sent_back_by",
        "advisory_notes",
        "must_address",
    ]
);

const JUDGE: TemplateSpec = template!(
    "judge.md.j2",
    &[
        "topic",
        "options",
        "context",
        "sources",
        "evidence_checks",
        "role",
        "focus",
        "weight",
        "criteria",
        "block_ids",
        "revised_yaml",
        "change_log_yaml",
        "rulings",
        "proposer_label",
        "critic_label",
        "round",
    ]
);

/// The decision review's own templates (the repair template is shared and
/// registered once).
pub const TEMPLATES: &[TemplateSpec] = &[
    PROPOSER,
    CRITIC_STEELMAN,
    CRITIC_STRICT,
    CRITIC_NEUTRAL,
    REVISER,
    JUDGE,
    super::writing::prompts::REWRITE,
    super::writing::prompts::MERGE,
];

impl Template {
    pub const ALL: [Template; 7] = [
        Template::Proposer,
        Template::Critic(CritiqueMode::GenerousSteelman),
        Template::Critic(CritiqueMode::Strict),
        Template::Critic(CritiqueMode::Neutral),
        Template::Reviser,
        Template::Judge,
        Template::Repair,
    ];

    pub fn spec(self) -> &'static TemplateSpec {
        match self {
            Template::Proposer => &PROPOSER,
            Template::Critic(CritiqueMode::GenerousSteelman) => &CRITIC_STEELMAN,
            Template::Critic(CritiqueMode::Strict) => &CRITIC_STRICT,
            Template::Critic(CritiqueMode::Neutral) => &CRITIC_NEUTRAL,
            Template::Reviser => &REVISER,
            Template::Judge => &JUDGE,
            Template::Repair => &REPAIR_TEMPLATE,
        }
    }

    /// The template's file name, in `prompts/` and in an override directory.
    pub fn file_name(self) -> &'static str {
        self.spec().file_name
    }

    /// The context variables the caller provides, all of them required.
    pub fn variables(self) -> &'static [&'static str] {
        self.spec().variables
    }

    pub fn from_file_name(name: &str) -> Option<Template> {
        Template::ALL
            .into_iter()
            .find(|template| template.file_name() == name)
    }
}

/// The decision review's templates with the writing critic's after them:
/// what the decision review's entry in the registry declares, so that the
/// critic's prompt can be overridden like any other.
pub const WITH_CRITIQUE: [TemplateSpec; TEMPLATES.len() + 1] = {
    let templates = TEMPLATES;
    let mut out = [super::writing::prompts::CRITIQUE; TEMPLATES.len() + 1];
    let mut index = 0;
    while index < templates.len() {
        out[index] = templates[index];
        index += 1;
    }
    out
};

#[cfg(test)]
mod tests {
    use serde_json::{Value as Json, json};

    use std::collections::BTreeSet;

    use super::*;
    use crate::prompts::{PromptError, PromptSet, TEMPLATE_SUFFIX};
    use crate::protocol::decision_review::model::{
        Criterion, CritiqueMode, Weight, architecture_panel,
    };
    use crate::protocol::judges::JudgeRole;

    const PROPOSAL_YAML: &str = "blocks:\n  - id: b1\n    type: claim\n    text: \"Use SQLite\"\n    evidence: \"single writer\"\n    tradeoffs: \"no replication\"\n    risks: \"lock contention, seen as busy errors\"\n";

    fn attached_documents() -> Json {
        json!([
            {"name": "constraints.md", "text": "The service runs on one node."},
            {"name": "load.csv", "text": "peak,120 rps"},
        ])
    }

    fn proposer_context() -> Json {
        json!({
            "topic": "Which database should the ledger use?",
            "options": [],
            "context": attached_documents(),
            "sources": "",
            "evidence_checks": "",
            "mode": "architecture",
        })
    }

    fn critic_context(mode: CritiqueMode) -> Json {
        json!({
            "topic": "Which database should the ledger use?",
            "options": [],
            "context": attached_documents(),
            "sources": "",
            "evidence_checks": "",
            "proposal_yaml": PROPOSAL_YAML,
            "proposer_label": "proposer (openai:gpt-test)",
            "critique_mode": mode.as_str(),
        })
    }

    fn reviser_context() -> Json {
        json!({
            "topic": "Which database should the ledger use?",
            "options": [],
            "context": attached_documents(),
            "sources": "",
            "evidence_checks": "",
            "round": 2,
            "reopened": false,
            "tree_yaml": PROPOSAL_YAML,
            "accepted": [
                {"id": "c1", "target_block": "b1", "flaw_type": "risk", "severity": "major",
                 "description": "Writes serialise under load.", "note": "Quantify the peak."},
                {"id": "c3", "target_block": "b1", "flaw_type": "evidence", "severity": "minor",
                 "description": "No benchmark is cited.", "note": ""},
            ],
            "deferred": [
                {"id": "c4", "target_block": "b1", "flaw_type": "assumption", "severity": "note",
                 "description": "Growth beyond one node is assumed away.", "note": ""},
            ],
            "rejected": [
                {"id": "c2", "target_block": "b2", "flaw_type": "risk", "severity": "minor",
                 "description": "Nobody owns the cache.", "note": "Out of scope for this review."},
            ],
            "rulings": crate::rulings::section(&[
                crate::rulings::Ruling::new("c1", crate::rulings::Ruled::Accepted, None),
                crate::rulings::Ruling::new(
                    "c2",
                    crate::rulings::Ruled::Rejected,
                    Some("Out of scope for this review."),
                ),
            ]),
            "directives": [
                {"id": "d1", "text": "Show how a restore is tested.", "source": "analyst: risk on b1"},
            ],
            "sent_back_by": ["the binding judges"],
            "advisory_notes": ["aesthete on b2 simplicity (2) (advisory): two queues where one would do"],
            "must_address": ["c1", "c3", "d1"],
        })
    }

    fn judge_context(role: JudgeRole, weight: Weight, criteria: &[Criterion]) -> Json {
        let criteria: Vec<Json> = criteria
            .iter()
            .map(|criterion| json!({"name": criterion.as_str(), "question": criterion.question()}))
            .collect();
        json!({
            "topic": "Which database should the ledger use?",
            "options": [],
            "context": attached_documents(),
            "sources": "",
            "evidence_checks": "",
            "role": role.as_str(),
            "focus": role.focus(),
            "weight": weight.as_str(),
            "criteria": criteria,
            "block_ids": ["b1", "b2"],
            "revised_yaml": PROPOSAL_YAML,
            "change_log_yaml": "- addresses_critique: c1\n  block_id: b1\n  change_type: strengthen\n",
            "rulings": crate::rulings::listing(
                &[crate::rulings::Ruling::new("c1", crate::rulings::Ruled::Accepted, None)],
                "The revision was bound by these.",
            ),
            "proposer_label": "proposer (openai:gpt-test)",
            "critic_label": "critic (anthropic:claude-test)",
            "round": 1,
        })
    }

    fn repair_context() -> Json {
        json!({
            "original_prompt": "You are the proposer in a quorum decision review.",
            "previous_output": "blocks:\n  - id: b1\n    type: opinion",
            "error": "block b1: unknown type `opinion`",
        })
    }

    fn full_context(template: Template) -> Json {
        match template {
            Template::Proposer => proposer_context(),
            Template::Critic(mode) => critic_context(mode),
            Template::Reviser => reviser_context(),
            Template::Judge => {
                let analyst = &architecture_panel(false)[0];
                judge_context(analyst.role, analyst.weight, &analyst.criteria)
            }
            Template::Repair => repair_context(),
        }
    }

    fn render(template: Template) -> String {
        PromptSet::builtin()
            .render(template.spec(), &full_context(template))
            .unwrap_or_else(|error| panic!("{}: {error}", template.file_name()))
    }

    /// The agent-facing prompts, i.e. all but the repair wrapper.
    fn agent_templates() -> impl Iterator<Item = Template> {
        Template::ALL
            .into_iter()
            .filter(|template| *template != Template::Repair)
    }

    fn yaml_fence_count(prompt: &str) -> usize {
        prompt.matches("```yaml").count()
    }

    #[test]
    fn every_builtin_template_renders_with_a_full_context() {
        for template in Template::ALL {
            let prompt = render(template);
            assert!(!prompt.contains("{{"), "{}", template.file_name());
            assert!(!prompt.contains("{%"), "{}", template.file_name());
            assert!(
                prompt.contains("exactly one fenced"),
                "{} must ask for one fenced block",
                template.file_name()
            );
        }
    }

    #[test]
    fn every_builtin_template_uses_exactly_its_documented_variables() {
        let prompts = PromptSet::builtin();
        for template in Template::ALL {
            let used: BTreeSet<String> = prompts.used_variables(template.spec());
            let documented: BTreeSet<String> = template
                .variables()
                .iter()
                .map(|name| name.to_string())
                .collect();
            assert_eq!(used, documented, "{}", template.file_name());
        }
    }

    #[test]
    fn a_missing_variable_fails_to_render() {
        let prompts = PromptSet::builtin();
        for template in Template::ALL {
            for variable in template.variables() {
                let mut context = full_context(template);
                context.as_object_mut().unwrap().remove(*variable);
                let error = prompts
                    .render(template.spec(), &context)
                    .expect_err(&format!("{} without {variable}", template.file_name()));
                assert!(
                    error.to_string().contains(template.file_name()),
                    "the error names the template: {error}"
                );
            }
        }
    }

    #[test]
    fn attached_documents_are_rendered_under_their_own_headings() {
        let prompt = render(Template::Proposer);
        assert!(prompt.contains("### constraints.md\n\nThe service runs on one node."));
        assert!(prompt.contains("### load.csv\n\npeak,120 rps"));

        let mut context = proposer_context();
        context["context"] = json!([]);
        let prompt = PromptSet::builtin()
            .render(Template::Proposer.spec(), &context)
            .unwrap();
        assert!(!prompt.contains("Material attached by the user"));
    }

    #[test]
    fn agent_prompts_show_the_answer_schema_in_a_yaml_fence() {
        let expected_keys = [
            (
                Template::Proposer,
                vec!["blocks:", "evidence:", "tradeoffs:", "risks:"],
            ),
            (
                Template::Critic(CritiqueMode::Neutral),
                vec![
                    "critiques:",
                    "target_block:",
                    "flaw_type:",
                    "severity:",
                    "description:",
                ],
            ),
            (
                Template::Reviser,
                vec![
                    "revised_tree:",
                    "change_log:",
                    "addresses_critique:",
                    "change_type:",
                    "rationale:",
                ],
            ),
            (
                Template::Judge,
                vec![
                    "block_scores:",
                    "synthesis:",
                    "integration:",
                    "risk_coverage:",
                    "revision_quality:",
                    "insufficient_information: []",
                ],
            ),
        ];
        for (template, keys) in expected_keys {
            let prompt = render(template);
            assert!(yaml_fence_count(&prompt) >= 1, "{}", template.file_name());
            for key in keys {
                assert!(prompt.contains(key), "{} lacks {key}", template.file_name());
            }
        }
    }

    #[test]
    fn dr_18_critic_prompt_states_the_mode() {
        for mode in [
            CritiqueMode::GenerousSteelman,
            CritiqueMode::Strict,
            CritiqueMode::Neutral,
        ] {
            let prompt = render(Template::Critic(mode));
            assert!(
                prompt.contains(&format!("CRITIQUE MODE: {}\n", mode.as_str())),
                "{}",
                mode.as_str()
            );
        }
    }

    /// DR-11 too: every block, each judged on its own.
    #[test]
    fn dr_11_critic_prompt_asks_for_every_block_independently() {
        for mode in [
            CritiqueMode::GenerousSteelman,
            CritiqueMode::Strict,
            CritiqueMode::Neutral,
        ] {
            let prompt = render(Template::Critic(mode));
            assert!(prompt.contains("Critique every block, one at a time"));
            assert!(prompt.contains("judge each one on its own"));
            assert!(prompt.contains("Every block gets at least one critique"));
            assert!(
                prompt.contains(PROPOSAL_YAML.trim()),
                "the proposal is quoted"
            );
        }
    }

    #[test]
    fn dr_19_steelman_prompt_asks_for_the_strongest_form_first() {
        let prompt = render(Template::Critic(CritiqueMode::GenerousSteelman));
        let rebuild = prompt
            .find("most defensible form")
            .expect("asks for the strongest version");
        let weakness = prompt
            .find("most serious weakness that survives in that rebuilt version")
            .expect("asks for the weakness of that version");
        assert!(rebuild < weakness);
        assert!(prompt.contains("    steelman: \"...\""));
        for classification in [
            "`assumption`",
            "`evidence`",
            "`risk`",
            "`feasibility`",
            "`major`",
            "`minor`",
            "`note`",
        ] {
            assert!(prompt.contains(classification), "{classification}");
        }
    }

    #[test]
    fn dr_20_strict_prompt_has_no_charity() {
        let prompt = render(Template::Critic(CritiqueMode::Strict));
        assert!(prompt.contains("no charity"));
        assert!(prompt.contains("hostile conditions"));
        assert!(prompt.contains("failure mode"));
        assert!(prompt.contains("circumstances that would set it off"));
        assert!(!prompt.contains("steelman"));
        assert!(!prompt.contains("most defensible form"));
    }

    #[test]
    fn a12_neutral_prompt_exists() {
        assert_eq!(
            Template::Critic(CritiqueMode::Neutral).file_name(),
            "critic-neutral.md.j2"
        );
        let prompt = render(Template::Critic(CritiqueMode::Neutral));
        assert!(prompt.contains("strongest point"));
        assert!(prompt.contains("main weakness"));
        assert!(prompt.contains("`flaw_type`"));
        assert!(prompt.contains("`severity`"));
        assert!(!prompt.contains("steelman"));
    }

    #[test]
    fn dr_24_proposer_prompt_asks_for_unique_ids_and_risks() {
        let prompt = render(Template::Proposer);
        assert!(prompt.contains("You are the proposer"));
        assert!(prompt.contains("Which database should the ledger use?"));
        assert!(prompt.contains("a unique label, numbered in order: b1, b2, b3"));
        assert!(prompt.contains("No two blocks may share an id"));
        assert!(prompt.contains("the ways it could fail, and the early signal"));
        assert!(prompt.contains("the best one"));
        for block_type in ["`claim`", "`implementation`", "`fallback`"] {
            assert!(prompt.contains(block_type), "{block_type}");
        }
    }

    #[test]
    fn dr_25_judge_prompt_gives_role_focus_weight() {
        for judge in architecture_panel(true) {
            let context = judge_context(judge.role, judge.weight, &judge.criteria);
            let prompt = PromptSet::builtin()
                .render(Template::Judge.spec(), &context)
                .unwrap();
            let role_line = format!("Your role: {} ({})\n", judge.role, judge.role.focus());
            assert!(prompt.contains(&role_line), "{role_line}");
            let weight_line = format!("Your weight: {}\n", judge.weight.as_str());
            assert!(prompt.contains(&weight_line), "{weight_line}");
        }
    }

    #[test]
    fn judge_prompt_asks_for_integer_scores_per_block_and_criterion_and_no_totals() {
        let prompt = render(Template::Judge);
        assert!(prompt.contains("Score every block (b1, b2) on each of your criteria"));
        assert!(
            prompt.contains("6 entries in all"),
            "2 blocks × 3 analyst criteria"
        );
        assert!(prompt.contains("whole number from 1 to 5"));
        assert!(prompt.contains("rationale of one sentence"));
        assert!(prompt.contains("Do not add totals"));
        assert!(prompt.contains("`insufficient_information`"));
        assert!(prompt.contains("evaluation round 1"));
        assert!(
            prompt.contains("- addresses_critique: c1"),
            "the change log is shown"
        );
    }

    #[test]
    fn a1_judge_prompt_lists_only_its_criteria() {
        for judge in architecture_panel(true) {
            let context = judge_context(judge.role, judge.weight, &judge.criteria);
            let prompt = PromptSet::builtin()
                .render(Template::Judge.spec(), &context)
                .unwrap();
            for criterion in Criterion::ALL {
                let listed = format!("- `{}`: {}", criterion.as_str(), criterion.question());
                assert_eq!(
                    prompt.contains(&listed),
                    judge.criteria.contains(&criterion),
                    "{}: {criterion}",
                    judge.role
                );
                if !judge.criteria.contains(&criterion) {
                    assert!(!prompt.contains(criterion.question()));
                }
            }
        }
    }

    #[test]
    fn rf_01_agent_prompts_carry_no_reader_first_instructions() {
        let reader_first_phrases = [
            "reader-first",
            "reader first",
            "plain language",
            "plain-language",
            "summary",
            "tl;dr",
            "bottom line",
            "for the reader",
            "define your terms",
            "non-expert",
        ];
        for template in Template::ALL {
            let prompt = render(template).to_lowercase();
            for phrase in reader_first_phrases {
                assert!(
                    !prompt.contains(phrase),
                    "{} contains {phrase:?}",
                    template.file_name()
                );
            }
        }
    }

    #[test]
    fn dr_23_prompts_use_real_role_labels() {
        let expected = [
            (
                Template::Proposer,
                vec!["You are the proposer", "\"proposer\" is your role label"],
            ),
            (
                Template::Critic(CritiqueMode::GenerousSteelman),
                vec![
                    "You are the critic",
                    "\"critic\" is your role label",
                    "proposer (openai:gpt-test)",
                ],
            ),
            (
                Template::Critic(CritiqueMode::Strict),
                vec!["You are the critic", "proposer (openai:gpt-test)"],
            ),
            (
                Template::Critic(CritiqueMode::Neutral),
                vec!["You are the critic", "proposer (openai:gpt-test)"],
            ),
            (
                Template::Reviser,
                vec!["You are the proposer", "\"proposer\" is your role label"],
            ),
            (
                Template::Judge,
                vec![
                    "You are a judge",
                    "Your role: analyst",
                    "proposer (openai:gpt-test)",
                    "critic (anthropic:claude-test)",
                ],
            ),
        ];
        for (template, needles) in expected {
            let prompt = render(template);
            for needle in needles {
                assert!(
                    prompt.contains(needle),
                    "{} lacks {needle:?}",
                    template.file_name()
                );
            }
        }
        for template in agent_templates() {
            let prompt = render(template);
            for blind_label in ["Alpha", "Beta", "Debater A", "Debater B"] {
                assert!(!prompt.contains(blind_label), "{}", template.file_name());
            }
        }
    }

    /// A11: every accepted item and directive must be answered, a decline needs
    /// a rationale, rejected items are shown with the moderator's note as
    /// what not to act on, deferred ones are optional, and the rulings
    /// section binds the answer.
    #[test]
    fn a11_reviser_prompt_requires_an_answer_or_a_reasoned_decline() {
        let prompt = render(Template::Reviser);
        assert!(prompt.contains("revision round 2"));
        assert!(prompt.contains("at least one entry for each of these ids: c1, c3, d1"));
        assert!(prompt.contains("`decline`: leave the block as it is and explain in `rationale`"));
        assert!(prompt.contains("Writes serialise under load."));
        assert!(prompt.contains("Moderator's note: Quantify the peak."));
        assert_eq!(
            prompt.matches("Moderator's note").count(),
            3,
            "empty notes are not shown: c1's and c2's notes in their sections, c2's in the rulings"
        );
        assert!(prompt.contains("## Items the moderator rejected"));
        assert!(prompt.contains("Do not act on them"));
        assert!(
            prompt.contains(
                "Nobody owns the cache.\n\nModerator's note: Out of scope for this review."
            )
        );
        assert!(prompt.contains(
            "- c2: rejected — do not act on it. Moderator's note: Out of scope for this review."
        ));
        assert_eq!(
            crate::rulings::read(&prompt).get("c2"),
            Some(&crate::rulings::Ruled::Rejected)
        );
        assert!(
            prompt.contains("### d1 (from analyst: risk on b1)\n\nShow how a restore is tested.")
        );
        assert!(prompt.contains("## Open questions"));
        assert!(prompt.contains("Growth beyond one node is assumed away."));

        let mut context = reviser_context();
        context["rejected"] = json!([]);
        context["rulings"] = json!("");
        context["directives"] = json!([]);
        context["sent_back_by"] = json!([]);
        context["advisory_notes"] = json!([]);
        context["deferred"] = json!([]);
        context["round"] = json!(1);
        context["must_address"] = json!(["c1", "c3"]);
        let prompt = PromptSet::builtin()
            .render(Template::Reviser.spec(), &context)
            .unwrap();
        assert!(!prompt.contains("## Items the moderator rejected"));
        assert!(!prompt.contains("## The moderator's rulings"));
        assert!(!prompt.contains("binding judges"));
        assert!(!prompt.contains("## Open questions"));
        assert!(prompt.contains("each of these ids: c1, c3."));
        assert!(!prompt.contains("already reached a verdict"));
    }

    /// The reviser is told what sent the proposal back (the guard is not
    /// "the binding judges"), and the advisory judges' low scores come as
    /// notes that need no answer (A6).
    #[test]
    fn a6_reviser_prompt_names_what_sent_the_proposal_back_and_advisory_notes() {
        let prompt = render(Template::Reviser);
        assert!(prompt.contains("the binding judges also sent the proposal back"));
        assert!(prompt.contains("## Advisory notes"));
        assert!(prompt.contains("- aesthete on b2 simplicity (2) (advisory): two queues"));
        let mut context = reviser_context();
        context["sent_back_by"] = json!(["the over-engineering guard"]);
        context["advisory_notes"] = json!([]);
        let prompt = PromptSet::builtin()
            .render(Template::Reviser.spec(), &context)
            .unwrap();
        assert!(prompt.contains("the over-engineering guard also sent the proposal back"));
        assert!(!prompt.contains("binding judges"), "{prompt}");
        assert!(!prompt.contains("## Advisory notes"));
    }

    /// A round reopened after the verdict says why the tree is revised again.
    #[test]
    fn reviser_prompt_explains_a_round_reopened_after_the_verdict() {
        let mut context = reviser_context();
        context["reopened"] = json!(true);
        context["directives"] = json!([]);
        context["sent_back_by"] = json!([]);
        context["advisory_notes"] = json!([]);
        context["must_address"] = json!(["c1", "c3"]);
        let prompt = PromptSet::builtin()
            .render(Template::Reviser.spec(), &context)
            .unwrap();
        let answer = prompt.split("## Critique items to answer").nth(1).unwrap();
        assert!(answer.contains("already reached a verdict on your tree"));
        assert!(answer.contains("accepted critique items they had deferred earlier"));
        assert!(answer.contains("### c1: on block b1"));
    }

    #[test]
    fn repair_prompt_repeats_the_request_and_quotes_the_error() {
        let prompt = render(Template::Repair);
        assert!(prompt.starts_with("You are the proposer in a quorum decision review."));
        assert!(prompt.contains("block b1: unknown type `opinion`"));
        assert!(prompt.contains("````text\nblocks:\n  - id: b1\n    type: opinion\n````"));
        assert!(prompt.contains("Answer the same request again"));
    }

    #[test]
    fn template_names_round_trip_and_none_is_html() {
        for template in Template::ALL {
            assert_eq!(
                Template::from_file_name(template.file_name()),
                Some(template)
            );
            assert!(template.file_name().ends_with(TEMPLATE_SUFFIX));
            assert!(!template.file_name().contains(".html"));
        }
        assert_eq!(Template::from_file_name("critic.md.j2"), None);
    }

    #[test]
    fn load_without_a_directory_gives_the_builtins() {
        let builtin = render(Template::Proposer);
        let loaded = PromptSet::load(None)
            .unwrap()
            .render(Template::Proposer.spec(), &proposer_context())
            .unwrap();
        assert_eq!(loaded, builtin);

        let missing = std::env::temp_dir().join("quorum-prompts-that-do-not-exist");
        assert!(PromptSet::load(Some(&missing)).is_ok());
    }

    #[test]
    fn an_override_file_replaces_its_builtin_template() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("proposer.md.j2"),
            "Custom proposer for {{ topic }} ({{ mode }}, {{ context | length }} documents)",
        )
        .unwrap();
        std::fs::write(dir.path().join("README.txt"), "not a template").unwrap();
        let prompts = PromptSet::load(Some(dir.path())).unwrap();
        assert_eq!(
            prompts
                .render(Template::Proposer.spec(), &proposer_context())
                .unwrap(),
            "Custom proposer for Which database should the ledger use? (architecture, 2 documents)"
        );
        let judge = prompts
            .render(Template::Judge.spec(), &full_context(Template::Judge))
            .unwrap();
        assert_eq!(
            judge,
            render(Template::Judge),
            "other templates stay built in"
        );
    }

    #[test]
    fn an_override_with_an_unknown_name_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("critic.md.j2"), "{{ topic }}").unwrap();
        let error = PromptSet::load(Some(dir.path())).err().unwrap();
        assert!(matches!(error, PromptError::UnknownTemplate { .. }));
        let message = error.to_string();
        assert!(message.contains("critic.md.j2"), "{message}");
        assert!(
            message.contains("critic-strict.md.j2"),
            "lists the valid names: {message}"
        );
    }

    #[test]
    fn an_override_with_a_syntax_error_names_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("judge.md.j2"),
            "Your role: {{ role }}\n\n{% for criterion in criteria %}\n- {{ criterion.name }\n{% endfor %}\n",
        )
        .unwrap();
        let error = PromptSet::load(Some(dir.path())).err().unwrap();
        let PromptError::Syntax { path, line, .. } = &error else {
            panic!("expected a syntax error, got {error}");
        };
        assert!(path.ends_with("judge.md.j2"));
        assert_eq!(*line, 4);
        assert!(error.to_string().contains("judge.md.j2:4:"), "{error}");
    }

    #[test]
    fn an_override_using_a_variable_it_is_not_given_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("repair.md.j2"),
            "{{ original_prompt }} {{ range(3) | list }} {{ attempt }}",
        )
        .unwrap();
        let error = PromptSet::load(Some(dir.path())).err().unwrap();
        let PromptError::UnknownVariable { variable, .. } = &error else {
            panic!("expected an unknown-variable error, got {error}");
        };
        assert_eq!(variable, "attempt", "globals such as range are allowed");
        assert!(error.to_string().contains("repair.md.j2"));
    }
}
