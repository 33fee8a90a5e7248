//! The scripted provider: replies read from a YAML script, streamed chunk by
//! chunk at a configurable pace, with injected faults.
//!
//! It powers the demo and the tests, so it behaves like a real provider as
//! the engine sees it: a delay before the first token, text arriving in
//! pieces, calls that hang (`timeout`), fail part-way (`error`) or answer with
//! something unparseable (`malformed`). All waiting goes through
//! `tokio::time`, so tests run it under paused time without real sleeps.
//!
//! It does not decide what a reply means, enforce timeouts (the engine drops a
//! hung call's future) or retry.
//!
//! A reply is chosen for a call by its role plus whichever of stage, round and
//! attempt it names, and the moderator's rulings its `when:` asks for (read
//! from the call's prompt, [`crate::rulings`]): the reply naming the most of
//! them wins, and among equally specific replies the first one listed. A
//! reply's text may be made of `parts:`, each with its own `when:`, so one
//! reply answers every combination of rulings the way a careful agent would.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;

use super::{
    Agent, AgentError, AgentInfo, CallOutput, CallRequest, EventSender, FinishReason, StreamEvent,
    Usage,
};
pub use crate::script::*;
use crate::script::{CHARS_PER_TOKEN, stance_of, when_holds};

impl ScriptedReply {
    fn matches(&self, request: &CallRequest, ruled: &Rulings) -> bool {
        self.role == request.role
            && when_holds(&self.when, ruled)
            && self
                .stage
                .as_ref()
                .is_none_or(|stage| *stage == request.stage)
            && self.round.is_none_or(|round| round == request.round)
            && self
                .attempt
                .is_none_or(|attempt| attempt == request.attempt)
            && self
                .stance
                .as_deref()
                .is_none_or(|stance| stance_of(&request.prompt) == Some(stance))
    }
}

impl Script {
    /// The reply for `request`: the most specific match, the first listed on
    /// a tie.
    pub fn reply_for(&self, request: &CallRequest) -> Result<&ScriptedReply, AgentError> {
        let ruled = Rulings::of(&request.prompt);
        let mut best: Option<&ScriptedReply> = None;
        for reply in self
            .replies
            .iter()
            .filter(|reply| reply.matches(request, &ruled))
        {
            if best.is_none_or(|best| reply.specificity() > best.specificity()) {
                best = Some(reply);
            }
        }
        if best.is_none() && request.stage.starts_with(STABILITY_STAGE) {
            // A variant of the stability receipt re-judges the deciding
            // round: a careful judge scores the same revision (a careful
            // participant takes the same stances) as it did there, unless
            // the script says how the variant differs.
            let mut deciding = DECIDING_STAGES.iter().map(|stage| CallRequest {
                stage: stage.to_string(),
                ..request.clone()
            });
            return deciding
                .find_map(|deciding| self.reply_for(&deciding).ok())
                .ok_or_else(|| {
                    AgentError::Script(format!(
                        "no scripted reply for {} at {} (nor at {}) round {} attempt {}",
                        request.role,
                        request.stage,
                        DECIDING_STAGES.join(" or "),
                        request.round,
                        request.attempt
                    ))
                });
        }
        best.ok_or_else(|| {
            AgentError::Script(format!(
                "no scripted reply for {} at {} round {} attempt {}",
                request.role, request.stage, request.round, request.attempt
            ))
        })
    }
}

/// The stages of the stability receipt's variants: `stability-1`, … (the
/// protocol names them; see `crate::protocol::stability`).
const STABILITY_STAGE: &str = "stability-";

/// The stages whose reply a variant falls back to, the first that has
/// one: the decision review's judges score in `evaluation`, the council's
/// participants give their final positions in `final`.
const DECIDING_STAGES: [&str; 2] = ["evaluation", "final"];

/// An agent that answers from a [`Script`].
pub struct ScriptAgent {
    script: Arc<Script>,
    speed: f64,
}

/// The delays of one reply, already divided by the agent's speed.
struct ReplyPace {
    first_token: Duration,
    between_chunks: Duration,
    chunk_chars: usize,
}

impl ScriptAgent {
    /// `speed` divides every delay: 2.0 plays the script twice as fast.
    ///
    /// # Panics
    ///
    /// If `speed` is not a positive finite number.
    pub fn new(script: Arc<Script>, speed: f64) -> Self {
        assert!(
            speed.is_finite() && speed > 0.0,
            "script speed must be a positive number, got {speed}"
        );
        ScriptAgent { script, speed }
    }

    fn pace_for(&self, reply: &ScriptedReply) -> ReplyPace {
        let defaults = &self.script.pace;
        let first_token_ms = reply.first_token_ms.unwrap_or(defaults.first_token_ms);
        let chars_per_second = reply
            .chars_per_second
            .unwrap_or(defaults.chars_per_second)
            .max(1);
        let chunk_chars = reply.chunk_chars.unwrap_or(defaults.chunk_chars).max(1);
        ReplyPace {
            first_token: Duration::from_secs_f64(first_token_ms as f64 / 1000.0 / self.speed),
            between_chunks: Duration::from_secs_f64(
                chunk_chars as f64 / f64::from(chars_per_second) / self.speed,
            ),
            chunk_chars,
        }
    }

    async fn play(
        &self,
        request: CallRequest,
        events: EventSender,
    ) -> Result<CallOutput, AgentError> {
        let reply = self.script.reply_for(&request)?;
        let pace = self.pace_for(reply);
        let text = reply
            .text_under(&Rulings::of(&request.prompt))
            .unwrap_or_default();
        let text = text.as_str();
        sleep(pace.first_token).await;
        match reply.fault {
            None => {
                stream_text(text, &pace, &events).await;
                Ok(finished(&request, text))
            }
            Some(Fault::Malformed) => {
                let text = reply.text.as_deref().unwrap_or(MALFORMED_RAMBLE);
                stream_text(text, &pace, &events).await;
                Ok(finished(&request, text))
            }
            Some(Fault::Timeout) => {
                let partial = char_prefix(text, reply.stall_after_chars.unwrap_or(0));
                stream_text(partial, &pace, &events).await;
                std::future::pending().await
            }
            Some(Fault::Error) => {
                let partial = char_prefix(text, reply.stall_after_chars.unwrap_or(0));
                stream_text(partial, &pace, &events).await;
                let message = reply
                    .error
                    .clone()
                    .unwrap_or_else(|| "scripted provider error".to_string());
                Err(AgentError::Provider(message))
            }
        }
    }
}

impl Agent for ScriptAgent {
    fn info(&self) -> AgentInfo {
        AgentInfo {
            provider: SCRIPT_PROVIDER.to_string(),
            model: "scripted".to_string(),
        }
    }

    /// Scripted replies count tokens as characters / 4.
    fn usage_is_estimated(&self) -> bool {
        true
    }

    fn stages_timeout(&self, request: &CallRequest) -> bool {
        self.script
            .reply_for(request)
            .is_ok_and(|reply| reply.fault == Some(Fault::Timeout))
    }

    fn call<'a>(
        &'a self,
        request: CallRequest,
        events: EventSender,
    ) -> BoxFuture<'a, Result<CallOutput, AgentError>> {
        Box::pin(self.play(request, events))
    }
}

fn finished(request: &CallRequest, text: &str) -> CallOutput {
    CallOutput {
        text: text.to_string(),
        usage: Some(Usage {
            input_tokens: request.prompt.chars().count() as u64 / CHARS_PER_TOKEN,
            output_tokens: text.chars().count() as u64 / CHARS_PER_TOKEN,
        }),
        finish: FinishReason::Stop,
    }
}

async fn sleep(duration: Duration) {
    if !duration.is_zero() {
        tokio::time::sleep(duration).await;
    }
}

/// Sends the chunks of `text` on a fixed schedule measured from the first
/// one, so timer granularity never accumulates: a reply of N chunks takes its
/// paced duration, not N timer ticks more.
async fn stream_text(text: &str, pace: &ReplyPace, events: &EventSender) {
    let started = tokio::time::Instant::now();
    for (index, chunk) in split_chunks(text, pace.chunk_chars).into_iter().enumerate() {
        if index > 0 {
            let due = started + pace.between_chunks.mul_f64(index as f64);
            if due > tokio::time::Instant::now() {
                tokio::time::sleep_until(due).await;
            }
        }
        // A closed receiver only means nobody is watching; the answer still counts.
        events.send(StreamEvent::Text(chunk.to_string()));
    }
}

/// Splits `text` into pieces of `chunk_chars` characters (the last may be
/// shorter), never inside a character.
fn split_chunks(text: &str, chunk_chars: usize) -> Vec<&str> {
    let chunk_chars = chunk_chars.max(1);
    let mut chunks = Vec::new();
    let mut chunk_start = 0;
    for (position, (byte_index, _)) in text.char_indices().enumerate() {
        if position > 0 && position % chunk_chars == 0 {
            chunks.push(&text[chunk_start..byte_index]);
            chunk_start = byte_index;
        }
    }
    if chunk_start < text.len() {
        chunks.push(&text[chunk_start..]);
    }
    chunks
}

/// The first `chars` characters of `text`.
fn char_prefix(text: &str, chars: usize) -> &str {
    match text.char_indices().nth(chars) {
        Some((byte_index, _)) => &text[..byte_index],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use tokio::time::Instant;

    use super::*;
    use crate::rulings::{self, Ruled};

    fn request(role: &str, stage: &str, round: u32, attempt: u32) -> CallRequest {
        CallRequest {
            call_id: format!("{role}/{stage}/r{round}/a{attempt}"),
            role: role.to_string(),
            stage: stage.to_string(),
            round,
            attempt,
            prompt: "p".repeat(400),
        }
    }

    fn reply(role: &str, text: &str) -> ScriptedReply {
        ScriptedReply::new(role, text)
    }

    fn script(pace: Pace, replies: Vec<ScriptedReply>) -> Arc<Script> {
        let script = Script { pace, replies };
        script.validate().expect("test scripts are valid");
        Arc::new(script)
    }

    fn pace(first_token_ms: u64, chars_per_second: u32, chunk_chars: usize) -> Pace {
        Pace {
            first_token_ms,
            chars_per_second,
            chunk_chars,
        }
    }

    fn texts(events: &mut crate::agent::events::EventReceiver) -> Vec<String> {
        let mut texts = Vec::new();
        while let Some(event) = events.try_recv() {
            match event {
                StreamEvent::Text(text) => texts.push(text),
                other => panic!("unexpected {other:?}"),
            }
        }
        texts
    }

    async fn run(
        agent: &ScriptAgent,
        request: CallRequest,
    ) -> (Result<CallOutput, AgentError>, Vec<String>) {
        let (sender, mut receiver) = crate::agent::events::channel();
        let result = agent.call(request, sender).await;
        (result, texts(&mut receiver))
    }

    #[test]
    fn the_most_specific_matching_reply_wins_and_ties_go_to_the_first() {
        let any = reply("judge.analyst", "any");
        let mut by_stage = reply("judge.analyst", "stage");
        by_stage.stage = Some("evaluation".into());
        let mut by_stage_round = reply("judge.analyst", "stage+round");
        by_stage_round.stage = Some("evaluation".into());
        by_stage_round.round = Some(2);
        let mut by_round_attempt = reply("judge.analyst", "round+attempt");
        by_round_attempt.round = Some(2);
        by_round_attempt.attempt = Some(2);
        let script = Script {
            pace: Pace::default(),
            replies: vec![
                any,
                by_stage,
                by_stage_round,
                by_round_attempt,
                reply("judge.stylist", "stylist"),
            ],
        };
        script.validate().unwrap();
        let chosen = |role, stage, round, attempt| {
            script
                .reply_for(&request(role, stage, round, attempt))
                .unwrap()
                .text
                .clone()
                .unwrap()
        };
        assert_eq!(chosen("judge.analyst", "evaluation", 2, 1), "stage+round");
        assert_eq!(chosen("judge.analyst", "evaluation", 2, 2), "stage+round");
        assert_eq!(chosen("judge.analyst", "revision", 2, 2), "round+attempt");
        assert_eq!(chosen("judge.analyst", "evaluation", 1, 1), "stage");
        assert_eq!(chosen("judge.analyst", "critique", 1, 2), "any");
        assert_eq!(chosen("judge.stylist", "evaluation", 3, 1), "stylist");
    }

    /// A reply naming a stance answers only a prompt that states it, and
    /// wins over one that names none; a prompt with no stance line gets
    /// the reply that names none.
    #[test]
    fn a_critic_reply_can_answer_one_stance() {
        let any = reply("critic", "steelman");
        let mut strict = reply("critic", "strict");
        strict.stance = Some("strict".into());
        let script = Script {
            pace: Pace::default(),
            replies: vec![strict, any],
        };
        script.validate().unwrap();
        let chosen = |stance: Option<&str>| {
            let mut call = request("critic", "critique", 1, 1);
            if let Some(stance) = stance {
                call.prompt = format!("You are the critic.\n\nCRITIQUE MODE: {stance}\n\nRead.");
            }
            script.reply_for(&call).unwrap().text.clone().unwrap()
        };
        assert_eq!(chosen(Some("strict")), "strict");
        assert_eq!(chosen(Some("neutral")), "steelman");
        assert_eq!(chosen(Some("generous-steelman")), "steelman");
        assert_eq!(chosen(None), "steelman");
    }

    /// A revision call whose prompt carries the moderator's rulings.
    fn ruled_request(rulings: &[(&str, Ruled)]) -> CallRequest {
        let rulings: Vec<_> = rulings
            .iter()
            .map(|(id, ruled)| rulings::Ruling::new(*id, *ruled, None))
            .collect();
        let mut request = request("proposer", "revision", 1, 1);
        request.prompt = format!("# Revise\n\n{}\n## Answer", rulings::section(&rulings));
        request
    }

    #[test]
    fn a_reply_can_depend_on_the_rulings_in_its_prompt() {
        let script = Script::from_yaml(
            r#"
replies:
  - role: proposer
    text: plain
  - role: proposer
    when: {c2: rejected}
    text: c2 set aside
  - role: proposer
    when: {c2: rejected, c1: not accepted}
    text: nothing to do
"#,
        )
        .unwrap();
        let chosen = |rulings: &[(&str, Ruled)]| {
            script
                .reply_for(&ruled_request(rulings))
                .unwrap()
                .text
                .clone()
                .unwrap()
        };
        assert_eq!(chosen(&[]), "plain");
        assert_eq!(chosen(&[("c2", Ruled::Accepted)]), "plain");
        assert_eq!(
            chosen(&[("c1", Ruled::Accepted), ("c2", Ruled::Rejected)]),
            "c2 set aside"
        );
        assert_eq!(
            chosen(&[("c1", Ruled::Deferred), ("c2", Ruled::Rejected)]),
            "nothing to do"
        );
        // No ruling on c1 at all is "not accepted" too.
        assert_eq!(chosen(&[("c2", Ruled::Rejected)]), "nothing to do");
    }

    /// A reopened round's reviser answers only what was accepted since:
    /// `newly accepted` leaves out an accepted item an earlier round answered.
    #[test]
    fn newly_accepted_leaves_out_what_an_earlier_round_answered() {
        let reply: ScriptedReply = yaml_serde::from_str(
            r#"
role: proposer
parts:
  - when: {c1: newly accepted}
    text: "c1 "
  - when: {c2: newly accepted}
    text: "c2 "
  - when: {c1: accepted}
    text: "tree with c1"
"#,
        )
        .unwrap();
        let prompt = format!(
            "# Revise\n\n{}",
            rulings::section(&[
                rulings::Ruling::new("c1", Ruled::Accepted, None).answered_in(1),
                rulings::Ruling::new("c2", Ruled::Accepted, None),
            ])
        );
        assert_eq!(
            reply.text_under(&Rulings::of(&prompt)).unwrap(),
            "c2 tree with c1"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn parts_of_a_reply_follow_the_rulings() {
        let script = Script::from_yaml(
            r#"
pace: {first_token_ms: 0}
replies:
  - role: proposer
    parts:
      - text: "change_log:\n"
      - when: {c1: accepted}
        text: "  - c1 strengthened\n"
      - when: {c1: not accepted}
        text: "  - c1 left alone\n"
      - when: {c2: accepted}
        text: "  - c2 replaced\n"
"#,
        )
        .unwrap();
        let agent = ScriptAgent::new(Arc::new(script), 1.0);
        let (result, _) = run(
            &agent,
            ruled_request(&[("c1", Ruled::Rejected), ("c2", Ruled::Accepted)]),
        )
        .await;
        assert_eq!(
            result.unwrap().text,
            "change_log:\n  - c1 left alone\n  - c2 replaced\n"
        );
        let (result, _) = run(&agent, ruled_request(&[("c1", Ruled::Accepted)])).await;
        assert_eq!(result.unwrap().text, "change_log:\n  - c1 strengthened\n");
    }

    #[test]
    fn parts_are_checked_like_text() {
        // Three replies whose parts are wrong, then what each script adds.
        const WRONG_PARTS: &str = r#"
replies:
  - role: proposer
    text: a
    parts: [{text: b}]
  - role: critic
    parts: []
  - role: judge.a
    fault: timeout
    parts: [{text: b}]
"#;
        // A reply for judge.b when c1 is ruled `when`.
        let judge_b = |when: &str, text: &str| {
            format!("  - role: judge.b\n    when: {{c1: {when}}}\n    text: {text}\n")
        };
        let error =
            Script::from_yaml(&format!("{WRONG_PARTS}{}", judge_b("maybe", "c"))).unwrap_err();
        assert!(error.contains("unknown variant `maybe`"), "{error}");
        let error = Script::from_yaml(&format!(
            "{WRONG_PARTS}{}{}",
            judge_b("accepted", "c"),
            judge_b("accepted", "d")
        ))
        .unwrap_err();
        for expected in [
            "reply 1 (proposer at any stage any round any attempt): give either `text` or `parts`, not both",
            "reply 2 (critic at any stage any round any attempt): `parts` is empty",
            "reply 3 (judge.a at any stage any round any attempt): a reply with a fault takes `text`, not `parts`",
            "reply 5 (judge.b at any stage any round any attempt when c1 accepted) can never be chosen",
        ] {
            assert!(error.contains(expected), "{expected}\n---\n{error}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn no_matching_reply_is_an_error_naming_the_call() {
        let mut critic = reply("critic", "ok");
        critic.round = Some(1);
        let agent = ScriptAgent::new(script(Pace::default(), vec![critic]), 1.0);
        let (result, texts) = run(&agent, request("judge.analyst", "evaluation", 2, 1)).await;
        assert_eq!(
            result,
            Err(AgentError::Script(
                "no scripted reply for judge.analyst at evaluation round 2 attempt 1".into()
            ))
        );
        assert!(texts.is_empty());
        let (result, _) = run(&agent, request("critic", "critique", 2, 1)).await;
        assert!(
            result.is_err(),
            "a reply for round 1 does not answer round 2"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn chunks_split_on_char_boundaries_and_preserve_the_text() {
        let text = "Grüße — 日本語のテキスト ✓ 🦀🦀 done\nnext line";
        let agent = ScriptAgent::new(script(pace(0, 1000, 3), vec![reply("proposer", text)]), 1.0);
        let (result, chunks) = run(&agent, request("proposer", "proposal", 1, 1)).await;
        assert_eq!(chunks.concat(), text);
        assert!(
            chunks
                .iter()
                .all(|chunk| chunk.chars().count() == 3 || chunk == chunks.last().unwrap())
        );
        assert_eq!(chunks.len(), text.chars().count().div_ceil(3));
        let output = result.unwrap();
        assert_eq!(output.text, text);
        assert_eq!(output.finish, FinishReason::Stop);
        assert_eq!(
            output.usage,
            Some(Usage {
                input_tokens: 100,
                output_tokens: text.chars().count() as u64 / 4,
            })
        );
    }

    #[test]
    fn split_chunks_handles_edges() {
        assert!(split_chunks("", 4).is_empty());
        assert_eq!(split_chunks("abcd", 4), vec!["abcd"]);
        assert_eq!(split_chunks("abcde", 4), vec!["abcd", "e"]);
        assert_eq!(split_chunks("ééé", 1), vec!["é", "é", "é"]);
        assert_eq!(char_prefix("日本語", 2), "日本");
        assert_eq!(char_prefix("日本語", 9), "日本語");
    }

    /// The critic's first critique from `agent`: its result, the chunks it
    /// streamed, and how long it took.
    async fn timed_critique(
        agent: &ScriptAgent,
    ) -> (Result<CallOutput, AgentError>, Vec<String>, Duration) {
        let started = Instant::now();
        let (result, chunks) = run(agent, request("critic", "critique", 1, 1)).await;
        (result, chunks, started.elapsed())
    }

    #[tokio::test(start_paused = true)]
    async fn streaming_follows_the_pace_under_paused_time() {
        // 64 characters in chunks of 16 at 320 chars/s: 800 ms, then 3 gaps of 50 ms.
        let text = "x".repeat(64);
        let agent = ScriptAgent::new(
            script(pace(800, 320, 16), vec![reply("critic", &text)]),
            1.0,
        );
        let (result, chunks, elapsed) = timed_critique(&agent).await;
        assert_eq!(result.unwrap().text, text);
        assert_eq!(chunks.len(), 4);
        assert!(
            elapsed >= Duration::from_millis(950) && elapsed <= Duration::from_millis(955),
            "{elapsed:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn per_reply_pace_overrides_the_defaults() {
        let mut slow = reply("critic", &"y".repeat(20));
        slow.first_token_ms = Some(1500);
        slow.chars_per_second = Some(100);
        slow.chunk_chars = Some(10);
        let agent = ScriptAgent::new(script(pace(800, 320, 16), vec![slow]), 1.0);
        let (_, chunks, elapsed) = timed_critique(&agent).await;
        assert_eq!(chunks.len(), 2);
        assert!(
            elapsed >= Duration::from_millis(1600) && elapsed <= Duration::from_millis(1605),
            "1500 ms + one 100 ms gap, got {elapsed:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn speed_divides_every_delay() {
        let text = "x".repeat(64);
        let agent = ScriptAgent::new(
            script(pace(800, 320, 16), vec![reply("critic", &text)]),
            2.0,
        );
        let (result, _, elapsed) = timed_critique(&agent).await;
        assert!(result.is_ok());
        assert!(
            elapsed >= Duration::from_millis(475) && elapsed <= Duration::from_millis(480),
            "half of 950 ms, got {elapsed:?}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn timeout_fault_streams_the_partial_text_and_never_completes() {
        let mut hang = reply("judge.analyst", "block_scores:\n  - block_id: b1\n");
        hang.fault = Some(Fault::Timeout);
        hang.stall_after_chars = Some(13);
        let agent = ScriptAgent::new(script(pace(100, 1000, 5), vec![hang]), 1.0);
        let (sender, mut receiver) = crate::agent::events::channel();
        let call = agent.call(request("judge.analyst", "evaluation", 1, 1), sender);
        let outcome = tokio::time::timeout(Duration::from_secs(3600), call).await;
        assert!(
            outcome.is_err(),
            "the call must still be pending after an hour"
        );
        assert_eq!(texts(&mut receiver).concat(), "block_scores:");
    }

    #[tokio::test(start_paused = true)]
    async fn error_fault_returns_the_message_after_the_partial_text() {
        let mut failing = reply("proposer", "blocks:\n  - id: b1\n");
        failing.fault = Some(Fault::Error);
        failing.error = Some("503 overloaded".into());
        failing.stall_after_chars = Some(7);
        let agent = ScriptAgent::new(script(pace(0, 1000, 4), vec![failing]), 1.0);
        let (result, chunks) = run(&agent, request("proposer", "proposal", 1, 1)).await;
        assert_eq!(result, Err(AgentError::Provider("503 overloaded".into())));
        assert_eq!(chunks.concat(), "blocks:");
    }

    #[tokio::test(start_paused = true)]
    async fn malformed_fault_finishes_with_unparseable_text() {
        let mut ramble = ScriptedReply::new("judge.stylist", "");
        ramble.text = None;
        ramble.fault = Some(Fault::Malformed);
        let mut given = reply("judge.aesthete", "scores: [oops");
        given.fault = Some(Fault::Malformed);
        let agent = ScriptAgent::new(script(pace(0, 1000, 16), vec![ramble, given]), 1.0);

        let (result, chunks) = run(&agent, request("judge.stylist", "evaluation", 1, 1)).await;
        let output = result.unwrap();
        assert_eq!(output.text, MALFORMED_RAMBLE);
        assert_eq!(chunks.concat(), MALFORMED_RAMBLE);
        assert!(!output.text.contains("```"));
        assert_eq!(output.finish, FinishReason::Stop);

        let (result, _) = run(&agent, request("judge.aesthete", "evaluation", 1, 1)).await;
        assert_eq!(result.unwrap().text, "scores: [oops");
    }

    #[test]
    fn info_names_the_script_provider() {
        let agent = ScriptAgent::new(script(Pace::default(), vec![]), 1.0);
        assert_eq!(
            agent.info(),
            AgentInfo {
                provider: "script".into(),
                model: "scripted".into()
            }
        );
    }

    #[test]
    fn a_script_round_trips_through_yaml() {
        let yaml = r#"
pace:
  first_token_ms: 500
  chars_per_second: 250
  chunk_chars: 8
replies:
  - role: proposer
    stage: proposal
    text: |
      ```yaml
      blocks: []
      ```
  - role: judge.analyst
    stage: evaluation
    round: 2
    attempt: 1
    fault: error
    error: "503 overloaded"
    text: "block_scores:"
    stall_after_chars: 5
    first_token_ms: 1500
    chars_per_second: 200
    chunk_chars: 4
  - role: judge.stylist
    fault: timeout
"#;
        let script = Script::from_yaml(yaml).unwrap();
        assert_eq!(script.replies.len(), 3);
        assert_eq!(script.replies[1].fault, Some(Fault::Error));
        assert_eq!(script.replies[1].round, Some(2));
        let written = yaml_serde::to_string(&script).unwrap();
        assert_eq!(Script::from_yaml(&written).unwrap(), script);
    }

    #[test]
    fn pace_defaults_apply_when_absent() {
        let script = Script::from_yaml("replies:\n  - role: critic\n    text: hi\n").unwrap();
        assert_eq!(script.pace, Pace::default());
        let script = Script::from_yaml(
            "pace:\n  chunk_chars: 4\nreplies:\n  - role: critic\n    text: hi\n",
        )
        .unwrap();
        assert_eq!(script.pace.chunk_chars, 4);
        assert_eq!(script.pace.first_token_ms, DEFAULT_FIRST_TOKEN_MS);
    }

    #[test]
    fn unknown_fields_are_rejected() {
        let error = Script::from_yaml("replies:\n  - role: critic\n    txt: hi\n").unwrap_err();
        assert!(error.contains("txt"), "{error}");
        let error = Script::from_yaml("pace:\n  speed: 2\nreplies: []\n").unwrap_err();
        assert!(error.contains("speed"), "{error}");
        let error =
            Script::from_yaml("replies:\n  - role: critic\n    fault: crash\n").unwrap_err();
        assert!(error.contains("crash"), "{error}");
    }

    #[test]
    fn validate_reports_every_problem_with_the_reply_it_belongs_to() {
        let yaml = r#"
pace:
  chars_per_second: 0
replies:
  - role: critic
  - role: judge.analyst
    stage: evaluation
    fault: error
  - role: proposer
    text: "abc"
    error: "boom"
    stall_after_chars: 10
  - role: proposer
    text: "x"
    round: 0
    chunk_chars: 0
  - role: critic
    text: "again"
"#;
        let script: Script = yaml_serde::from_str(yaml).unwrap();
        let errors = script.validate().unwrap_err();
        let expected = [
            "pace: `chars_per_second` must be greater than 0",
            "reply 1 (critic at any stage any round any attempt): a reply without a fault needs `text`",
            "reply 2 (judge.analyst at evaluation any round any attempt): `fault: error` needs an `error` message",
            "reply 3 (proposer at any stage any round any attempt): `error` is only used with `fault: error`",
            "reply 3 (proposer at any stage any round any attempt): `stall_after_chars` is only used with `fault: timeout` or `fault: error`",
            "`stall_after_chars` is 10 but `text` has only 3 characters",
            "reply 4 (proposer at any stage round 0 any attempt): `round` counts from 1",
            "reply 4 (proposer at any stage round 0 any attempt): `chunk_chars` must be greater than 0",
            "reply 5 (critic at any stage any round any attempt) can never be chosen: reply 1 answers the same calls",
        ];
        for line in expected {
            assert!(errors.contains(line), "missing {line:?} in:\n{errors}");
        }
        assert!(Script::from_yaml(yaml).is_err());
    }

    #[test]
    #[should_panic(expected = "script speed must be a positive number")]
    fn a_zero_speed_is_refused() {
        let _ = ScriptAgent::new(script(Pace::default(), vec![]), 0.0);
    }
}
