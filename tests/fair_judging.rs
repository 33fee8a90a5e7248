//! Fair judging in the decision review (issue 29), driven as a pure state
//! machine: what a blind judge reads, each judge's own order, recusal under
//! each policy, and the panel's agreement in the record. No engine, no
//! files, no clock.
use crate::support;

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};
use proptest::prelude::*;
use quorum::prompts::PromptSet;
use quorum::protocol::Questions;
use quorum::protocol::decision_review::model::{
    CritiqueMode, ItemDecision, JudgeRole, Verdict, architecture_panel,
};
use quorum::protocol::decision_review::verdict::Thresholds;
use quorum::protocol::decision_review::{DecisionReview, Participants, ReviewConfig, ReviewMode};
use quorum::protocol::fairness::{Fairness, Family, Recusal};
use quorum::protocol::{CallSpec, Effect, Input, Outcome, Protocol};
use support::*;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 3, 12, 0, 0).unwrap()
}

/// The default critique's items.
const ITEMS: [&str; 4] = ["c1", "c2", "c3", "c4"];

/// The slots of the architecture panel's debate, in a fixed order.
const SLOTS: [&str; 5] = [
    "proposer",
    "critic",
    "judge.analyst",
    "judge.stylist",
    "judge.aesthete",
];

/// A review seated with `agents` (slot → `provider:model`), judged under
/// `fairness`.
fn config(agents: &BTreeMap<String, String>, fairness: Fairness) -> ReviewConfig {
    let panel = architecture_panel(false);
    let agent = |slot: &str| agents.get(slot).cloned().unwrap_or_default();
    ReviewConfig {
        topic: "Should billing move to event sourcing?".into(),
        context: Vec::new(),
        mode: ReviewMode::Architecture,
        options: Vec::new(),
        critique_mode: CritiqueMode::GenerousSteelman,
        high_stakes: false,
        participants: Participants {
            proposer: agent("proposer"),
            critic: agent("critic"),
            judges: panel
                .iter()
                .map(|judge| (judge.role, agent(&format!("judge.{}", judge.role))))
                .collect(),
            prices: Default::default(),
        },
        panel,
        max_rounds: 0,
        thresholds: Thresholds::default(),
        started_at: t0(),
        hold_for_moderator: false,
        checks_rulings: true,
        fairness,
        handed: None,
        sources: Vec::new(),
        checks_evidence: true,
        weighs_payoff: true,
        stability: Default::default(),
        calibration: Vec::new(),
    }
}

fn scripted() -> BTreeMap<String, String> {
    SLOTS
        .iter()
        .map(|slot| (slot.to_string(), format!("script:{slot}")))
        .collect()
}

fn families(pairs: &[(&str, &str)]) -> BTreeMap<String, Family> {
    pairs
        .iter()
        .map(|(slot, family)| (slot.to_string(), Family::new(family).unwrap()))
        .collect()
}

/// A review driven by answers, with every call it started.
struct Run {
    review: DecisionReview,
    live: Vec<CallSpec>,
    started: Vec<CallSpec>,
}

impl Run {
    fn new(config: ReviewConfig) -> Run {
        let mut review = DecisionReview::new(config, Arc::new(PromptSet::builtin()));
        let effects = review.start(t0());
        let mut run = Run {
            review,
            live: Vec::new(),
            started: Vec::new(),
        };
        run.record(effects);
        run
    }

    fn record(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            if let Effect::StartCall(spec) = effect {
                self.live.push(spec.clone());
                self.started.push(spec);
            }
        }
    }

    fn send(&mut self, input: Input) {
        let effects = self.review.handle(&input, t0());
        self.record(effects);
    }

    fn finish(&mut self, role: &str, text: &str) {
        let index = self
            .live
            .iter()
            .position(|spec| spec.request.role == role)
            .unwrap_or_else(|| panic!("no live call for {role}"));
        let call = self.live.remove(index);
        self.send(Input::CallFinished {
            call_id: call.request.call_id,
            output: text.into(),
            usage: None,
            usage_estimated: false,
            ttft_ms: None,
            elapsed_ms: 1_000,
        });
    }

    /// The moderator accepts every item of the default critique.
    fn accept_all(&mut self) {
        for id in ITEMS {
            self.send(Input::ItemDecided {
                item_id: id.into(),
                decision: ItemDecision::Accept,
                note: None,
                ruler: None,
            });
        }
        self.send(Input::ModerationSubmitted);
    }

    /// Proposal, critique, every item accepted, and `revision` as the
    /// proposer's revision: the judges are working.
    fn to_evaluation(config: ReviewConfig, revision: &str) -> Run {
        let mut run = Run::new(config);
        run.finish("proposer", &proposal_text());
        run.finish("critic", &default_critique());
        run.accept_all();
        run.finish("proposer", revision);
        run
    }

    fn judge_prompts(&self) -> BTreeMap<String, String> {
        self.started
            .iter()
            .filter(|spec| spec.request.role.starts_with("judge."))
            .map(|spec| (spec.request.role.clone(), spec.request.prompt.clone()))
            .collect()
    }

    fn finish_judges(&mut self, score: impl Fn(JudgeRole) -> u8) {
        for judge in architecture_panel(false) {
            let role = format!("judge.{}", judge.role);
            if self.live.iter().any(|spec| spec.request.role == role) {
                let value = score(judge.role);
                self.finish(&role, &judge_text(&judge, |_, _| value, [value; 3]));
            }
        }
    }

    fn decided(&self) -> (Verdict, String) {
        match self.review.outcome() {
            Some(Outcome::Decided { verdict, rule }) => (*verdict, rule.clone()),
            other => panic!("no verdict: {other:?}"),
        }
    }

    fn debate_yaml(&self) -> yaml_serde::Value {
        let documents = self.review.documents();
        let document = documents
            .iter()
            .find(|document| document.path == "debate.yaml")
            .expect("debate.yaml");
        yaml_serde::from_str(&document.contents).expect("debate.yaml parses")
    }
}

/// The revision, with every block's claim signed by its author in one of
/// the ways models sign: `As claude-sonnet-4-5, …`.
fn signed_revision(signature: &str) -> String {
    revision_text(&ITEMS).replace(
        "text: \"Revised claim of",
        &format!("text: \"{signature} Revised claim of"),
    )
}

/// The blocks a judge prompt lists, in the order the judge reads them.
fn read_order(prompt: &str) -> Vec<String> {
    let line = prompt
        .lines()
        .find(|line| line.starts_with("1. Score every block ("))
        .expect("the task lists the blocks");
    let inside = &line[line.find('(').unwrap() + 1..line.find(')').unwrap()];
    inside.split(", ").map(str::to_string).collect()
}

/// Agents of known and unknown families, as a roster draws them.
const AGENTS: [&str; 8] = [
    "anthropic:claude-sonnet-4-5",
    "openai:gpt-4.1-mini",
    "ollama:llama3.1:8b",
    "gemini:gemini-2.5-pro",
    "mistral:mistral-large-2411",
    "ollama:qwen2.5:7b-instruct",
    "deepseek:deepseek-r1",
    "vllm:my-finetune-v2",
];

/// Ways an author names itself in its own text.
const SIGNATURES: [&str; 4] = [
    "As {model}, I propose this.",
    "(written by {model})",
    "I am {label}.",
    "— {model}:",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Issue 29: when blind, no judge prompt holds the model of any
    /// participant, however the authors signed their text.
    #[test]
    fn blind_judge_prompts_name_no_participants_model(
        picks in prop::collection::vec(0..AGENTS.len(), SLOTS.len()),
        signature in 0..SIGNATURES.len(),
        signer in 0..SLOTS.len(),
    ) {
        let agents: BTreeMap<String, String> = SLOTS
            .iter()
            .zip(&picks)
            .map(|(slot, pick)| (slot.to_string(), AGENTS[*pick].to_string()))
            .collect();
        let label = &agents[SLOTS[signer]];
        let model = label.split_once(':').unwrap().1;
        let signed = SIGNATURES[signature]
            .replace("{model}", model)
            .replace("{label}", label);
        let fairness = Fairness::new(true, 11, Recusal::Off, BTreeMap::new());
        let run = Run::to_evaluation(config(&agents, fairness), &signed_revision(&signed));
        let prompts = run.judge_prompts();
        prop_assert_eq!(prompts.len(), 3);
        for (judge, prompt) in &prompts {
            let lower = prompt.to_lowercase();
            for agent in agents.values() {
                let model = agent.split_once(':').unwrap().1;
                prop_assert!(
                    !lower.contains(&model.to_lowercase()),
                    "{} reads `{}` in:\n{}", judge, model, prompt
                );
            }
        }
    }
}

/// The same signature reaches the judges when blindness is turned off, so
/// the property above is about the masking, not about the fixture.
#[test]
fn without_blindness_the_authors_signature_reaches_the_judges() {
    let mut agents = scripted();
    agents.insert("proposer".into(), "anthropic:claude-sonnet-4-5".into());
    let fairness = Fairness::new(false, 11, Recusal::Off, BTreeMap::new());
    let run = Run::to_evaluation(
        config(&agents, fairness),
        &signed_revision("As claude-sonnet-4-5, I propose this."),
    );
    for prompt in run.judge_prompts().values() {
        assert!(prompt.contains("As claude-sonnet-4-5, I propose this."));
    }
}

/// Issue 29: the record lists what masking hid.
#[test]
fn debate_yaml_lists_every_masking() {
    let mut agents = scripted();
    agents.insert("proposer".into(), "anthropic:claude-sonnet-4-5".into());
    let fairness = Fairness::new(true, 11, Recusal::Off, BTreeMap::new());
    let mut run = Run::to_evaluation(
        config(&agents, fairness),
        &signed_revision("As Claude, I propose this."),
    );
    run.finish_judges(|_| 4);
    let yaml = run.debate_yaml();
    let masked = yaml["stages"]["evaluation"]["masked"]
        .as_sequence()
        .expect("masked: is a list");
    assert_eq!(masked.len(), 4, "one signature on each of four blocks");
    assert!(
        masked
            .iter()
            .all(|entry| entry.as_str() == Some("masked `Claude` as [model]"))
    );
    for prompt in run.judge_prompts().values() {
        assert!(prompt.contains("As [model], I propose this."), "{prompt}");
    }
}

/// Issue 29: each judge reads the blocks and its criteria in its own
/// order, the same for the same seed (a resume rebuilds byte-identical
/// prompts), and a debate from before fair judging reads them as written.
#[test]
fn each_judge_reads_its_own_order_and_a_resume_gives_the_same_prompts() {
    let fairness = Fairness::new(true, 5, Recusal::Off, BTreeMap::new());
    let revision = revision_text(&ITEMS);
    let run = Run::to_evaluation(config(&scripted(), fairness.clone()), &revision);
    let prompts = run.judge_prompts();
    let orders: std::collections::BTreeSet<Vec<String>> =
        prompts.values().map(|prompt| read_order(prompt)).collect();
    assert!(orders.len() > 1, "the judges read alike: {orders:?}");
    for order in &orders {
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(sorted, BLOCKS);
    }
    let again = Run::to_evaluation(config(&scripted(), fairness), &revision);
    assert_eq!(again.judge_prompts(), prompts, "byte-identical prompts");

    let legacy = Run::to_evaluation(config(&scripted(), Fairness::default()), &revision);
    for prompt in legacy.judge_prompts().values() {
        assert_eq!(read_order(prompt), BLOCKS);
    }
}

/// Issue 29: the record shows the order each judge read in.
#[test]
fn debate_yaml_records_each_judges_order() {
    let fairness = Fairness::new(true, 5, Recusal::Off, BTreeMap::new());
    let mut run = Run::to_evaluation(config(&scripted(), fairness), &revision_text(&ITEMS));
    let prompts = run.judge_prompts();
    run.finish_judges(|_| 4);
    let yaml = run.debate_yaml();
    for judge in yaml["stages"]["evaluation"]["judges"]
        .as_sequence()
        .unwrap()
    {
        let role = format!("judge.{}", judge["role"].as_str().unwrap());
        let recorded: Vec<String> = judge["read_blocks"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|block| block.as_str().unwrap().to_string())
            .collect();
        assert_eq!(recorded, read_order(&prompts[&role]), "{role}");
        assert!(!judge["read_criteria"].as_sequence().unwrap().is_empty());
    }
}

/// A review at its evaluation whose judges in `kin` share the proposer's
/// family, under `recusal`.
fn kin_run(recusal: Recusal, kin: &[&str]) -> Run {
    let mut pairs = vec![("proposer", "anthropic"), ("critic", "openai")];
    pairs.extend(kin.iter().map(|slot| (*slot, "anthropic")));
    let fairness = Fairness::new(true, 3, recusal, families(&pairs));
    Run::to_evaluation(config(&scripted(), fairness), &revision_text(&ITEMS))
}

/// `recusal: flag`: the judge of the proposer's family scores, its scores
/// count, and the verdict's rule says so.
#[test]
fn a_flagged_judge_scores_and_the_rule_says_so() {
    let mut run = kin_run(Recusal::Flag, &["judge.analyst"]);
    assert_eq!(run.judge_prompts().len(), 3);
    run.finish_judges(|_| 4);
    let (verdict, rule) = run.decided();
    assert_eq!(verdict, Verdict::Adopt);
    assert!(
        rule.ends_with("(judge.analyst shares the proposer's model family (anthropic): flagged)"),
        "{rule}"
    );
    let yaml = run.debate_yaml();
    let analyst = &yaml["stages"]["evaluation"]["judges"][0];
    assert_eq!(analyst["status"].as_str(), Some("scored"));
    assert_eq!(analyst["kinship"]["policy"].as_str(), Some("flag"));
}

/// `recusal: recuse` on an advisory judge: it is not asked, the quorum is
/// counted without it, and the others can still adopt.
#[test]
fn a_recused_advisory_judge_is_not_asked_and_the_rest_decide() {
    let mut run = kin_run(Recusal::Recuse, &["judge.aesthete"]);
    let prompts = run.judge_prompts();
    assert_eq!(prompts.len(), 2);
    assert!(!prompts.contains_key("judge.aesthete"));
    run.finish_judges(|_| 4);
    let (verdict, rule) = run.decided();
    assert_eq!(verdict, Verdict::Adopt, "{rule}");
    let yaml = run.debate_yaml();
    let quorum = &yaml["stages"]["evaluation"]["quorum"];
    assert_eq!(quorum["panel_size"].as_u64(), Some(2));
    assert_eq!(quorum["present"].as_u64(), Some(2));
    let aesthete = &yaml["stages"]["evaluation"]["judges"][2];
    assert_eq!(aesthete["status"].as_str(), Some("recused"));
}

/// `recusal: recuse` on the binding judge: too few binding judges remain,
/// and the verdict says so rather than adopt on fewer.
#[test]
fn a_recused_binding_judge_leaves_the_verdict_unable_to_adopt() {
    let mut run = kin_run(Recusal::Recuse, &["judge.analyst"]);
    assert!(!run.judge_prompts().contains_key("judge.analyst"));
    run.finish_judges(|_| 4);
    let (verdict, rule) = run.decided();
    assert_eq!(verdict, Verdict::Escalate);
    assert!(
        rule.contains("analyst is missing (recused), a binding judge"),
        "{rule}"
    );
}

/// Every judge of the proposer's family and recused: the round ends at once
/// on the missing-judge rules, with no call.
#[test]
fn a_panel_recused_whole_escalates_without_a_call() {
    let run = kin_run(
        Recusal::Recuse,
        &["judge.analyst", "judge.stylist", "judge.aesthete"],
    );
    assert!(run.judge_prompts().is_empty());
    let (verdict, rule) = run.decided();
    assert_eq!(verdict, Verdict::Escalate);
    assert!(rule.contains("no judge produced a usable score"), "{rule}");
}

/// `recusal: off`: families are not compared.
#[test]
fn with_recusal_off_a_kin_judge_is_neither_flagged_nor_left_out() {
    let mut run = kin_run(Recusal::Off, &["judge.analyst"]);
    assert_eq!(run.judge_prompts().len(), 3);
    run.finish_judges(|_| 4);
    let (_, rule) = run.decided();
    assert!(!rule.contains("model family"), "{rule}");
}

/// Issue 29: the panel's agreement goes into the record, and a panel that
/// voted as one is named under "what is still uncertain".
#[test]
fn the_agreement_is_recorded_and_a_lockstep_panel_is_an_uncertainty() {
    let fairness = Fairness::new(true, 3, Recusal::Off, BTreeMap::new());
    let mut run = Run::to_evaluation(config(&scripted(), fairness), &revision_text(&ITEMS));
    // Every judge gives 4 on b1–b2 and 5 on b3–b4 and the synthesis: one
    // vote, three times over.
    for judge in architecture_panel(false) {
        let role = format!("judge.{}", judge.role);
        let text = judge_text(
            &judge,
            |block, _| if block < "b3" { 4 } else { 5 },
            [5, 5, 4],
        );
        run.finish(&role, &text);
    }
    let yaml = run.debate_yaml();
    let agreement = &yaml["stages"]["evaluation"]["agreement"];
    assert_eq!(agreement["effective_votes"].as_f64(), Some(1.0));
    assert_eq!(agreement["alpha"].as_f64(), Some(1.0));
    assert_eq!(agreement["judges"].as_u64(), Some(3));
    assert_eq!(
        agreement["units"].as_u64(),
        Some(7),
        "4 blocks + 3 synthesis values"
    );
    let uncertainty = yaml["decision"]["remaining_uncertainty"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        uncertainty.contains("effectively fewer than two independent votes"),
        "{uncertainty}"
    );
}

impl Run {
    fn live_prompt(&self, role: &str) -> String {
        self.live
            .iter()
            .find(|spec| spec.request.role == role)
            .map(|spec| spec.request.prompt.clone())
            .unwrap_or_else(|| panic!("no live call for {role}"))
    }

    fn transcript(&self) -> String {
        self.review
            .documents()
            .into_iter()
            .find(|document| document.path == "transcript.md")
            .expect("transcript.md")
            .contents
    }
}

/// Issue 29: the other agents read an author's signature masked too (the
/// critic the proposer's, the reviser the critic's), and the transcript
/// notes each masking with who read it.
#[test]
fn the_critic_and_the_reviser_read_the_others_signatures_masked() {
    let mut agents = scripted();
    agents.insert("proposer".into(), "anthropic:claude-sonnet-4-5".into());
    agents.insert("critic".into(), "openai:gpt-4.1-mini".into());
    let fairness = Fairness::new(true, 11, Recusal::Off, BTreeMap::new());
    let mut run = Run::new(config(&agents, fairness));
    run.finish(
        "proposer",
        &proposal_text().replace(
            "text: \"Claim of b1.\"",
            "text: \"As claude-sonnet-4-5, I claim b1.\"",
        ),
    );
    let critic = run.live_prompt("critic");
    assert!(critic.contains("As [model], I claim b1."), "{critic}");
    assert!(!critic.contains("claude-sonnet-4-5"), "{critic}");
    run.finish(
        "critic",
        &default_critique().replace(
            "description: \"Weakness of b1 (major).\"",
            "description: \"Weakness of b1 (major), says GPT-4.1-mini.\"",
        ),
    );
    run.accept_all();
    let reviser = run.live_prompt("proposer");
    assert!(
        reviser.contains("Weakness of b1 (major), says [model]."),
        "{reviser}"
    );
    let transcript = run.transcript();
    assert!(
        transcript.contains(
            "fair judging: masked `claude-sonnet-4-5` as [model] in what the critic reads"
        ),
        "{transcript}"
    );
    assert!(
        transcript
            .contains("fair judging: masked `GPT-4.1-mini` as [model] in what the reviser reads"),
        "{transcript}"
    );
}

/// A judge switched to another model mid-debate is of that model's family
/// from then on: switched to the proposer's family, it is recused.
#[test]
fn a_judge_switched_to_the_proposers_family_is_recused() {
    let mut pairs = vec![("proposer", "anthropic"), ("judge.stylist", "openai")];
    pairs.push(("critic", "openai"));
    let fairness = Fairness::new(true, 3, Recusal::Recuse, families(&pairs));
    let mut run = Run::new(config(&scripted(), fairness));
    run.send(Input::AgentSwitched {
        role: "judge.stylist".into(),
        agent: "anthropic:claude-haiku-4-5".into(),
        price: None,
    });
    run.finish("proposer", &proposal_text());
    run.finish("critic", &default_critique());
    run.accept_all();
    run.finish("proposer", &revision_text(&ITEMS));
    let prompts = run.judge_prompts();
    assert!(
        !prompts.contains_key("judge.stylist"),
        "{:?}",
        prompts.keys()
    );
    assert_eq!(prompts.len(), 2);
}

// ---- the held-out judge --------------------------------------------------------

/// A high-stakes review whose strategist (binding) is held out for the
/// final revision, up to its evaluation; `max_rounds` revise loops allowed.
fn held_out_run(max_rounds: u32) -> Run {
    let mut agents = scripted();
    for slot in ["judge.strategist", "judge.empiricist"] {
        agents.insert(slot.into(), format!("script:{slot}"));
    }
    let fairness = Fairness::new(true, 3, Recusal::Flag, BTreeMap::new())
        .holding_out(Some("judge.strategist".into()));
    let mut config = config(&agents, fairness);
    config.high_stakes = true;
    config.panel = architecture_panel(true);
    config.max_rounds = max_rounds;
    for judge in &config.panel {
        config
            .participants
            .judges
            .insert(judge.role, format!("script:judge.{}", judge.role));
    }
    Run::to_evaluation(config, &revision_text(&ITEMS))
}

impl Run {
    /// Every live judge answers with all its scores `score(role)`.
    fn score_live(&mut self, score: impl Fn(JudgeRole) -> u8) {
        let live: Vec<String> = self
            .live
            .iter()
            .map(|spec| spec.request.role.clone())
            .filter(|role| role.starts_with("judge."))
            .collect();
        for role in live {
            let judge = architecture_panel(true)
                .into_iter()
                .find(|judge| format!("judge.{}", judge.role) == role)
                .unwrap();
            self.finish(&role, &flat_judge_text(judge.role, score(judge.role)));
        }
    }

    fn live_roles(&self) -> Vec<String> {
        self.live
            .iter()
            .map(|spec| spec.request.role.clone())
            .collect()
    }
}

/// Issue 29: a held-out judge is not asked while the rest of the panel
/// decides; once they would ADOPT, it scores the same, final revision, and
/// its agreement confirms the ADOPT; its pane and debate.yaml say it was
/// held out.
#[test]
fn a_held_out_judge_scores_only_the_final_revision_and_confirms_an_adopt() {
    let mut run = held_out_run(2);
    let asked = run.judge_prompts();
    assert_eq!(asked.len(), 4, "{:?}", asked.keys());
    assert!(!asked.contains_key("judge.strategist"));
    let pane = run
        .review
        .describe()
        .roles
        .into_iter()
        .find(|role| role.slot == "judge.strategist")
        .unwrap();
    assert!(
        pane.marks.contains(&"held out".to_string()),
        "{:?}",
        pane.marks
    );
    run.score_live(|_| 4);
    assert_eq!(run.live_roles(), ["judge.strategist"]);
    let strategist = run.live.last().unwrap();
    assert_eq!(
        strategist.request.call_id,
        "judge.strategist/evaluation/r1/a1"
    );
    run.score_live(|_| 4);
    let (verdict, rule) = run.decided();
    assert_eq!(verdict, Verdict::Adopt, "{rule}");
    assert!(
        rule.ends_with(
            "(confirmed by the held-out strategist, who scored only the final revision)"
        ),
        "{rule}"
    );
    let yaml = run.debate_yaml();
    let judges = yaml["participants"]["judges"].as_sequence().unwrap();
    let held: Vec<&str> = judges
        .iter()
        .filter(|judge| judge["held_out"].as_bool() == Some(true))
        .filter_map(|judge| judge["role"].as_str())
        .collect();
    assert_eq!(held, ["strategist"]);
}

/// Issue 29: a held-out judge that does not share the panel's ADOPT turns
/// it into ESCALATE, and the rule says why; it never sends the proposal
/// back for a revision.
#[test]
fn a_held_out_judge_that_disagrees_escalates_rather_than_revise() {
    let mut run = held_out_run(2);
    run.score_live(|_| 4);
    run.score_live(|_| 1);
    let (verdict, rule) = run.decided();
    assert_eq!(verdict, Verdict::Escalate, "{rule}");
    assert!(
        rule.starts_with("the held-out strategist did not confirm the panel's ADOPT: with its scores the panel says"),
        "{rule}"
    );
    assert!(rule.ends_with("→ ESCALATE"), "{rule}");
    assert!(
        !run.started
            .iter()
            .any(|spec| spec.request.role == "proposer" && spec.request.call_id.contains("/r2/")),
        "no revision after the held-out judge"
    );
}

/// Issue 29: while the rest of the panel sends the proposal back, the
/// held-out judge is never asked; it scores the revision that decides.
#[test]
fn a_held_out_judge_is_not_asked_while_the_panel_revises() {
    let mut run = held_out_run(2);
    run.score_live(|role| if role == JudgeRole::Analyst { 2 } else { 4 });
    assert!(
        run.live_roles()
            .iter()
            .all(|role| !role.starts_with("judge."))
    );
    assert!(
        !run.started
            .iter()
            .any(|spec| spec.request.role == "judge.strategist")
    );
    // The revision answers every directive the round gave.
    let prompt = run.live[0].request.prompt.clone();
    let line = prompt
        .lines()
        .find_map(|line| line.split_once("each of these ids: "))
        .map(|(_, ids)| ids.split('.').next().unwrap_or_default().to_string())
        .expect("the directives to answer");
    let ids: Vec<&str> = line.split(", ").collect();
    run.finish("proposer", &revision_text(&ids));
    let round_two: Vec<String> = run.live_roles();
    assert_eq!(round_two.len(), 4, "{round_two:?}");
    assert!(!round_two.contains(&"judge.strategist".to_string()));
    run.score_live(|_| 4);
    assert_eq!(run.live_roles(), ["judge.strategist"]);
    assert!(
        run.live[0]
            .request
            .call_id
            .starts_with("judge.strategist/evaluation/r2/"),
        "{}",
        run.live[0].request.call_id
    );
    run.score_live(|_| 4);
    assert_eq!(run.decided().0, Verdict::Adopt);
}
