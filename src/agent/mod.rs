//! Agent providers behind one trait.
//!
//! A provider turns one [`CallRequest`] into a stream of [`StreamEvent`]s
//! (sent as they arrive, for live display) and a final [`CallOutput`]. It does
//! not retry at the protocol level, does not time out the whole call (the
//! engine does), and never parses the answer: that is `parse`'s job, after the
//! raw text is on disk.

pub mod anthropic;
pub mod command;
pub mod events;
pub mod factory;
pub mod http;
pub mod human;
pub mod openai;
pub mod probe;
pub mod script;

use std::fmt;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};

pub use events::EventSender;

/// How long streamed text gathers before the record journals it as one
/// batch, in milliseconds: fine enough for a replay to look live, coarse
/// enough that a fast stream costs a handful of writes a second. Two of the
/// 64 ms slots of tokio's timer wheel, so that a headless run's reads, which
/// come at this pace, fall where the wheel wakes anyway
/// ([`http::paced::start_clock`]). Here, below the engine that batches by
/// it and beside the paced reads that keep to it.
pub const STREAM_BATCH_MS: u64 = 128;

/// One agent call as the provider sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallRequest {
    /// Unique within a debate, e.g. `judge.analyst/evaluation/r2/a1`.
    pub call_id: String,
    /// The role slot: `proposer`, `critic`, `judge.analyst`, ...
    pub role: String,
    /// The protocol stage: `proposal`, `critique`, `revision`, `evaluation`, ...
    pub stage: String,
    /// 1-based round of this stage.
    pub round: u32,
    /// 1-based attempt; 2 is the retry with the identical prompt.
    pub attempt: u32,
    pub prompt: String,
}

/// Something a provider produced while a call is running.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamEvent {
    /// A piece of the answer.
    Text(String),
    /// Reasoning text: shown dimmed, never part of the answer.
    Reasoning(String),
    /// What the provider itself says about the call, such as a local
    /// program's stderr: never part of the answer, kept in the transcript.
    Diagnostic(String),
    /// The transport is trying the request again after a failure that is
    /// worth another attempt (a 429, a 5xx, a connection refused): retry
    /// `retry` of `of`, after `reason`, once `wait` has passed. Logged in
    /// the transcript as it happens (INF-17).
    Retrying {
        retry: u32,
        of: u32,
        reason: String,
        wait: std::time::Duration,
    },
}

/// Token counts as the provider reported them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Why a stream ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// The model finished its answer.
    Stop,
    /// The answer was cut at the output-token limit.
    Length,
}

/// The finished answer of one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallOutput {
    pub text: String,
    pub usage: Option<Usage>,
    pub finish: FinishReason,
}

/// A call that did not produce an answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// The provider reported an error in its own words (a non-zero exit, an
    /// error frame of a non-HTTP provider).
    #[error("{0}")]
    Provider(String),
    /// A scripted agent has no reply for this call.
    #[error("script: {0}")]
    Script(String),
    /// An HTTP provider refused the request, could not be reached, or sent a
    /// broken stream; carries the status, the provider's message and its
    /// request id when there are any.
    #[error(transparent)]
    Http(#[from] http::HttpFailure),
}

impl AgentError {
    /// The provider refused the request itself (HTTP 401 or 403: the key,
    /// or a permission): the identical request cannot succeed.
    pub fn is_refusal(&self) -> bool {
        matches!(self, AgentError::Http(failure) if matches!(failure.status, Some(401 | 403)))
    }
}

/// Which provider and model stand behind a role; shown in panes and recorded
/// in `debate.yaml`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentInfo {
    pub provider: String,
    pub model: String,
}

impl fmt::Display for AgentInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.provider, self.model)
    }
}

/// A source of agent answers.
pub trait Agent: Send + Sync {
    fn info(&self) -> AgentInfo;

    /// Whether the [`Usage`] this agent reports is its own estimate rather
    /// than the provider's count (the record marks estimated figures).
    fn usage_is_estimated(&self) -> bool {
        false
    }

    /// Whether `request` is scripted to time out (a `script` provider's
    /// reply with `fault: timeout`), so the record can say the timeout was
    /// staged. Only the `script` provider stages faults.
    fn stages_timeout(&self, request: &CallRequest) -> bool {
        let _ = request;
        false
    }

    /// Runs one call. Text is sent on `events` as it arrives, preferably
    /// from inside the returned future (see [`events`] for why); the output
    /// carries the whole answer. Dropping the future cancels the call.
    fn call<'a>(
        &'a self,
        request: CallRequest,
        events: EventSender,
    ) -> BoxFuture<'a, Result<CallOutput, AgentError>>;
}
