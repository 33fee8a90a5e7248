//! The built-in scripted judges of `quorum probe --demo` (and of any judge
//! slot the `script` provider plays): they answer the probe's prompts from
//! the answer key of the generated material, with no model and no network.
//! One of them has a planted position bias: asked which of two answers is
//! better, it always names the one it read first. The probe must find it
//! and clear the others.
//!
//! Responsible for answering probe prompts only; a debate's scripted
//! agents are [`crate::agent::script`]'s.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;

use crate::agent::script::SCRIPT_PROVIDER;
use crate::agent::{
    Agent, AgentError, AgentInfo, CallOutput, CallRequest, EventSender, FinishReason, StreamEvent,
    Usage,
};
use crate::protocol::budget::CHARS_PER_TOKEN;
use crate::protocol::probe::material::Item;

/// The judge slot whose demo judge prefers what it reads first.
pub const BIASED_SLOT: &str = "judge.aesthete";
/// The model family the demo judges declare (none of the built-in table's).
pub const DEMO_FAMILY: &str = "scripted";

/// How a demo judge chooses between two answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaning {
    /// The better answer, by the key, wherever it stands.
    Fair,
    /// Whatever it reads first.
    FirstRead,
}

/// A scripted judge of the probe.
pub struct DemoJudge {
    model: String,
    leaning: Leaning,
    /// The score each answer text deserves.
    key: Arc<BTreeMap<String, u8>>,
}

/// The score each of `items`' answers deserves: a complete answer 8,
/// padded or not (padding adds nothing), a terse one 6, a content-free
/// one 2.
pub fn answer_key(items: &[Item]) -> BTreeMap<String, u8> {
    let mut key = BTreeMap::new();
    for item in items {
        key.insert(item.complete.clone(), 8);
        key.insert(item.padded.clone(), 8);
        key.insert(item.terse.clone(), 6);
        key.insert(item.dummy.clone(), 2);
    }
    key
}

impl DemoJudge {
    /// The demo judge of `slot`: [`BIASED_SLOT`]'s leans to what it reads
    /// first, the others are fair. It calls itself `script:MODEL`, the
    /// model the configuration gave it, or `script:demo-NAME` under
    /// `--demo`.
    pub fn for_slot(slot: &str, model: Option<&str>, key: Arc<BTreeMap<String, u8>>) -> DemoJudge {
        let name = slot.strip_prefix("judge.").unwrap_or(slot);
        DemoJudge {
            model: model.map_or_else(|| format!("demo-{name}"), str::to_string),
            leaning: if slot == BIASED_SLOT {
                Leaning::FirstRead
            } else {
                Leaning::Fair
            },
            key,
        }
    }

    fn answer(&self, prompt: &str) -> String {
        let answers = answers_in(prompt);
        let score = |text: &str| self.key.get(text.trim()).copied().unwrap_or(5);
        match answers.as_slice() {
            [first, second] => {
                let choice = match self.leaning {
                    Leaning::FirstRead => 1,
                    Leaning::Fair if score(second) > score(first) => 2,
                    Leaning::Fair => 1,
                };
                format!("Answer {choice} answers the question better.\nPREFER: {choice}\n")
            }
            [one] => format!(
                "Judged on correctness, completeness and clarity.\nSCORE: {}\n",
                score(one)
            ),
            _ => "I cannot find the answer to judge.\n".to_string(),
        }
    }
}

/// The texts between `<answer…>` and `</answer>` in `prompt`.
fn answers_in(prompt: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = prompt;
    while let Some(open) = rest.find("<answer") {
        let after = &rest[open..];
        let Some(start) = after.find(">\n") else {
            break;
        };
        let body = &after[start + 2..];
        let Some(end) = body.find("\n</answer>") else {
            break;
        };
        out.push(&body[..end]);
        rest = &body[end..];
    }
    out
}

impl Agent for DemoJudge {
    fn info(&self) -> AgentInfo {
        AgentInfo {
            provider: SCRIPT_PROVIDER.to_string(),
            model: self.model.clone(),
        }
    }

    fn usage_is_estimated(&self) -> bool {
        true
    }

    fn call<'a>(
        &'a self,
        request: CallRequest,
        events: EventSender,
    ) -> BoxFuture<'a, Result<CallOutput, AgentError>> {
        Box::pin(async move {
            let text = self.answer(&request.prompt);
            events.send(StreamEvent::Text(text.clone()));
            let tokens = |chars: usize| (chars as u64).div_ceil(CHARS_PER_TOKEN);
            Ok(CallOutput {
                usage: Some(Usage {
                    input_tokens: tokens(request.prompt.len()),
                    output_tokens: tokens(text.len()),
                }),
                text,
                finish: FinishReason::Stop,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::probe::{material, prompts};

    #[test]
    fn jm_03_demo_judges_answer_from_the_key_and_one_reads_first() {
        let items = material::generate(5, 3);
        let key = Arc::new(answer_key(&items));
        let fair = DemoJudge::for_slot("judge.analyst", None, key.clone());
        let biased = DemoJudge::for_slot(BIASED_SLOT, None, key);
        let item = &items[0];
        let swapped = prompts::pair(&item.question, &item.terse, &item.complete);
        assert_eq!(prompts::read_preference(&fair.answer(&swapped)), Ok(2));
        assert_eq!(prompts::read_preference(&biased.answer(&swapped)), Ok(1));
        let padded = prompts::score(&item.question, &item.padded, None);
        assert_eq!(prompts::read_score(&fair.answer(&padded)), Ok(8));
        let dummy = prompts::score(&item.question, &item.dummy, None);
        assert_eq!(prompts::read_score(&biased.answer(&dummy)), Ok(2));
    }
}
