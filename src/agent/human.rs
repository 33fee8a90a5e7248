//! The `human` provider: a person at the TUI plays a role.
//!
//! A call registers itself at the [`HumanDesk`] and waits. The interface
//! shows the prompt and a template, the person writes the answer, the engine
//! checks it with the protocol's parser ([`crate::protocol::Protocol::check_answer`])
//! and only then hands it to the desk, which completes the call. From there
//! the answer takes the path of any agent's: persisted, journaled, parsed.
//!
//! Not responsible for editing text or validating it: the TUI and the
//! protocol do that.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use futures::future::BoxFuture;
use tokio::sync::oneshot;

use super::{
    Agent, AgentError, AgentInfo, CallOutput, CallRequest, EventSender, FinishReason, StreamEvent,
};

/// Where waiting human calls meet the answers typed for them.
#[derive(Default)]
pub struct HumanDesk {
    waiting: Mutex<HashMap<String, oneshot::Sender<String>>>,
}

impl HumanDesk {
    pub fn new() -> Arc<Self> {
        Arc::new(HumanDesk::default())
    }

    /// Completes the waiting call `call_id` with `answer`; false when no
    /// such call waits (cancelled or already answered).
    pub fn deliver(&self, call_id: &str, answer: String) -> bool {
        let sender = self
            .waiting
            .lock()
            .expect("the desk lock is never held across a panic")
            .remove(call_id);
        sender.is_some_and(|sender| sender.send(answer).is_ok())
    }

    fn register(&self, call_id: &str) -> oneshot::Receiver<String> {
        let (sender, receiver) = oneshot::channel();
        self.waiting
            .lock()
            .expect("the desk lock is never held across a panic")
            .insert(call_id.to_string(), sender);
        receiver
    }
}

/// A role played by the person at the keyboard.
pub struct HumanAgent {
    desk: Arc<HumanDesk>,
}

impl HumanAgent {
    pub fn new(desk: Arc<HumanDesk>) -> Self {
        HumanAgent { desk }
    }
}

/// The provider name that marks a role as played by a person.
pub const HUMAN_PROVIDER: &str = "human";

impl Agent for HumanAgent {
    fn info(&self) -> AgentInfo {
        AgentInfo {
            provider: HUMAN_PROVIDER.into(),
            model: "moderator".into(),
        }
    }

    fn call<'a>(
        &'a self,
        request: CallRequest,
        events: EventSender,
    ) -> BoxFuture<'a, Result<CallOutput, AgentError>> {
        let answer = self.desk.register(&request.call_id);
        async move {
            let text = answer.await.map_err(|_| {
                AgentError::Provider("the interface closed before an answer was written".into())
            })?;
            events.send(StreamEvent::Text(text.clone()));
            Ok(CallOutput {
                text,
                usage: None,
                finish: FinishReason::Stop,
            })
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(call_id: &str) -> CallRequest {
        CallRequest {
            call_id: call_id.into(),
            role: "judge.analyst".into(),
            stage: "evaluation".into(),
            round: 1,
            attempt: 1,
            prompt: "score".into(),
        }
    }

    #[tokio::test]
    async fn a_delivered_answer_completes_the_waiting_call() {
        let desk = HumanDesk::new();
        let agent = HumanAgent::new(desk.clone());
        let (events, mut streamed) = crate::agent::events::channel();
        let call = agent.call(request("judge.analyst/evaluation/r1/a1"), events);
        assert!(!desk.deliver("judge.analyst/evaluation/r1/a2", "no".into()));
        assert!(desk.deliver("judge.analyst/evaluation/r1/a1", "answer".into()));
        let output = call.await.unwrap();
        assert_eq!(output.text, "answer");
        assert_eq!(
            streamed.recv().await,
            Some(StreamEvent::Text("answer".into()))
        );
    }
}
