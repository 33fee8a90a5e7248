//! A role played by a person (`--agent judge.analyst=human`), end to end
//! through the engine: the interface is asked for an answer with the prompt
//! and a template, an answer that does not parse is refused with the
//! parser's reason while the call keeps waiting, and an answer that parses
//! takes the path of any agent's — persisted to the judge's file, journaled,
//! scored.

use crate::support;

use std::time::Duration;

use quorum::cli::{RunFlags, Source, prepare};
use quorum::engine::{Command, Update};
use quorum::protocol::Outcome;
use quorum::protocol::decision_review::kind::DEMO_SPEC;

/// The demo's scripted analyst answer for `round`: a valid judge answer.
fn demo_analyst_answer(round: u32) -> String {
    let spec = quorum::spec::parse(std::path::Path::new("demo.yaml"), DEMO_SPEC).unwrap();
    spec.script
        .unwrap()
        .replies
        .into_iter()
        .find(|reply| reply.role == "judge.analyst" && reply.round.unwrap_or(round) == round)
        .and_then(|reply| support::text_with_every_item_accepted(&reply))
        .expect("the demo scripts the analyst")
}

#[tokio::test(start_paused = true)]
async fn a_typed_judge_answer_is_checked_then_scored_like_any_other() {
    let out = tempfile::tempdir().unwrap();
    let flags = RunFlags {
        out: out.path().to_path_buf(),
        speed: 1.0,
        agents: vec!["judge.analyst=human".into()],
        ..RunFlags::default()
    };
    let prepared = prepare(Source::Demo, &flags).unwrap();
    assert_eq!(prepared.human_roles, vec!["judge.analyst".to_string()]);
    assert_eq!(
        prepared
            .definition
            .config::<quorum::protocol::decision_review::ReviewConfig>()
            .unwrap()
            .participants
            .judges[&quorum::protocol::decision_review::model::JudgeRole::Analyst],
        "human:moderator"
    );
    let (engine, run_dir, mut updates) = support::review_engine(prepared, out.path(), "human");
    let controller = engine.controller();
    let run = tokio::spawn(engine.run());

    let mut asked = Vec::new();
    let mut refused = Vec::new();
    let mut rounds = std::collections::BTreeMap::new();
    while let Some(update) = updates.recv().await {
        match update {
            Update::CallStarted { call_id, slot, .. } => {
                rounds.insert(call_id, slot.round);
            }
            Update::AnswerWanted {
                call_id,
                role,
                prompt,
                template,
            } => {
                assert_eq!(role, "judge.analyst");
                assert!(prompt.contains("correctness"), "the analyst's own prompt");
                let template = template.expect("the prompt ends with the answer's shape");
                assert!(template.contains("block_scores:"), "{template}");
                // First an answer that cannot be scored, then the real one.
                controller.send(Command::HumanAnswer {
                    call_id: call_id.clone(),
                    answer: "I would give it a 4.".into(),
                });
                asked.push(call_id);
            }
            Update::AnswerRejected { call_id, error } => {
                refused.push(error);
                let round = rounds[&call_id];
                controller.send(Command::HumanAnswer {
                    call_id,
                    answer: demo_analyst_answer(round),
                });
            }
            Update::Finished(_) => break,
            _ => {}
        }
    }
    let (outcome, review) = tokio::time::timeout(Duration::from_secs(600), run)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(matches!(outcome, Outcome::Decided { .. }), "{outcome:?}");
    assert!(!asked.is_empty());
    assert_eq!(
        refused.len(),
        asked.len(),
        "each bad answer was refused once"
    );
    assert!(!refused[0].is_empty());
    let judge_file =
        std::fs::read_to_string(run_dir.path().join("judges/judge-analyst.md")).unwrap();
    assert_eq!(
        judge_file,
        demo_analyst_answer(1),
        "the typed answer, verbatim"
    );
    let round = &review.evaluations()[0];
    let analyst = &round.judges[&quorum::protocol::decision_review::model::JudgeRole::Analyst];
    assert!(
        matches!(
            analyst.result,
            Some(quorum::protocol::decision_review::model::JudgeResult::Scored(_))
        ),
        "scored like any judge: {:?}",
        analyst.result
    );
}
