//! The `anthropic` provider: the Messages API, streamed.
//!
//! Responsible for: the request body and headers, and [`AnthropicStream`],
//! the pure state machine that reads the typed events — `message_start`
//! (input usage), content block deltas (`text_delta` is answer text,
//! `thinking_delta` is reasoning shown but never answered; signatures and
//! tool input are ignored), `message_delta` (stop reason and cumulative
//! usage), `message_stop`, `ping`, and `error` events such as
//! `overloaded_error` that arrive after HTTP 200. Unknown event types are
//! ignored, as the API asks of clients.
//!
//! Not responsible for: retries, timeouts and error statuses (the shared
//! transport in [`super::http`] does those).

use futures::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderValue};
use serde::Deserialize;

use super::http::{
    ApiKey, DecodeError, Endpoint, HttpFailure, Shown, SseDecoder, SseEvent, Transport,
    json_stream_headers,
};
use super::{
    Agent, AgentError, AgentInfo, CallOutput, CallRequest, EventSender, FinishReason, Usage,
};

pub use crate::config::resolve::ANTHROPIC_DEFAULT_BASE_URL;

/// Default answer cap, in tokens (the API requires one).
pub const DEFAULT_MAX_TOKENS: u32 = 8192;
/// The API version this provider speaks.
const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Name of this provider in `AgentInfo` and error messages.
const PROVIDER: &str = "anthropic";

/// An agent answering through the Messages API.
#[derive(Debug)]
pub struct AnthropicAgent {
    transport: Transport,
    model: String,
    max_tokens: u32,
}

impl AnthropicAgent {
    pub fn new(endpoint: Endpoint, model: impl Into<String>) -> Self {
        AnthropicAgent {
            transport: Transport::new(PROVIDER, endpoint),
            model: model.into(),
            max_tokens: DEFAULT_MAX_TOKENS,
        }
    }

    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    fn request_body(&self, prompt: &str) -> Vec<u8> {
        serde_json::json!({
            "model": self.model,
            "max_tokens": self.max_tokens,
            "stream": true,
            "messages": [{"role": "user", "content": prompt}],
        })
        .to_string()
        .into_bytes()
    }
}

impl Agent for AnthropicAgent {
    fn info(&self) -> AgentInfo {
        self.transport.agent_info(&self.model)
    }

    fn call<'a>(
        &'a self,
        request: CallRequest,
        events: EventSender,
    ) -> BoxFuture<'a, Result<CallOutput, AgentError>> {
        let body = self.request_body(&request.prompt);
        self.transport.call(
            "/v1/messages",
            request_headers,
            body,
            AnthropicStream::new,
            events,
        )
    }
}

/// The headers of every request; `x-api-key` only when there is a key.
pub(crate) fn request_headers(api_key: Option<&ApiKey>) -> Result<HeaderMap, HttpFailure> {
    let mut headers = json_stream_headers();
    headers.insert(
        "anthropic-version",
        HeaderValue::from_static(ANTHROPIC_VERSION),
    );
    if let Some(key) = api_key {
        headers.insert("x-api-key", key.header_value("")?);
    }
    Ok(headers)
}

/// The events this state machine reads; every other type is ignored.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireEvent {
    MessageStart {
        message: WireMessage,
    },
    ContentBlockStart {
        content_block: WireBlock,
    },
    ContentBlockDelta {
        delta: WireBlock,
    },
    MessageDelta {
        #[serde(default)]
        delta: Option<WireMessageDelta>,
        #[serde(default)]
        usage: Option<WireUsage>,
    },
    MessageStop,
    Error {
        error: WireError,
    },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
struct WireMessage {
    #[serde(default)]
    usage: Option<WireUsage>,
}

/// A content block at its start, or a delta of one: only the text-bearing
/// kinds matter here.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireBlock {
    Text {
        #[serde(default)]
        text: String,
    },
    TextDelta {
        text: String,
    },
    Thinking {
        #[serde(default)]
        thinking: String,
    },
    ThinkingDelta {
        thinking: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
struct WireMessageDelta {
    #[serde(default)]
    stop_reason: Option<String>,
}

/// Token counts; every field is optional because `message_delta` repeats
/// only some of them.
#[derive(Debug, Deserialize)]
struct WireUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
}

impl WireUsage {
    /// All input the model read: fresh, cache-writing and cache-read tokens.
    fn total_input(&self) -> Option<u64> {
        let parts = [
            self.input_tokens,
            self.cache_creation_input_tokens,
            self.cache_read_input_tokens,
        ];
        parts
            .iter()
            .any(Option::is_some)
            .then(|| parts.iter().flatten().sum())
    }
}

#[derive(Debug, Deserialize)]
struct WireError {
    #[serde(default, rename = "type")]
    error_type: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

/// The Messages stream format as a state machine.
#[derive(Debug, Default)]
pub struct AnthropicStream {
    text: String,
    usage: Option<Usage>,
    stop_reason: Option<String>,
    stopped: bool,
}

impl AnthropicStream {
    pub fn new() -> Self {
        AnthropicStream::default()
    }

    /// Usage is cumulative: each report replaces what it names.
    fn record_usage(&mut self, usage: &WireUsage) {
        let current = self.usage.get_or_insert_with(Usage::default);
        if let Some(input) = usage.total_input() {
            current.input_tokens = input;
        }
        if let Some(output) = usage.output_tokens {
            current.output_tokens = output;
        }
    }

    fn read_block(&mut self, block: WireBlock, shown: &mut Shown) {
        match block {
            WireBlock::Text { text } | WireBlock::TextDelta { text } if !text.is_empty() => {
                self.text.push_str(&text);
                shown.text(&text);
            }
            WireBlock::Thinking { thinking } | WireBlock::ThinkingDelta { thinking }
                if !thinking.is_empty() =>
            {
                shown.reasoning(&thinking);
            }
            _ => {}
        }
    }
}

impl SseDecoder for AnthropicStream {
    fn feed(&mut self, event: SseEvent<'_>, shown: &mut Shown) -> Result<(), DecodeError> {
        let data = event.data.trim();
        if self.stopped || data.is_empty() {
            return Ok(());
        }
        let wire: WireEvent = serde_json::from_str(data)
            .map_err(|error| DecodeError::malformed_json(&error, data))?;
        match wire {
            WireEvent::MessageStart { message } => {
                if let Some(usage) = &message.usage {
                    self.record_usage(usage);
                }
            }
            WireEvent::ContentBlockStart { content_block } => {
                self.read_block(content_block, shown);
            }
            WireEvent::ContentBlockDelta { delta } => self.read_block(delta, shown),
            WireEvent::MessageDelta { delta, usage } => {
                if let Some(reason) = delta.and_then(|delta| delta.stop_reason) {
                    self.stop_reason = Some(reason);
                }
                if let Some(usage) = &usage {
                    self.record_usage(usage);
                }
            }
            WireEvent::MessageStop => self.stopped = true,
            WireEvent::Error { error } => {
                return Err(DecodeError {
                    error_type: error.error_type,
                    message: error.message.unwrap_or_else(|| "no message".to_string()),
                });
            }
            WireEvent::Other => {}
        }
        Ok(())
    }

    fn is_complete(&self) -> bool {
        self.stopped
    }

    fn finish(self) -> Result<CallOutput, DecodeError> {
        if !self.stopped {
            return Err(DecodeError::new("stream ended before the answer finished"));
        }
        let finish = match self.stop_reason.as_deref() {
            Some("max_tokens" | "model_context_window_exceeded") => FinishReason::Length,
            _ => FinishReason::Stop,
        };
        Ok(CallOutput {
            text: self.text,
            usage: self.usage,
            finish,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::StreamEvent;
    use crate::agent::http::FeedOne;

    fn event<'a>(name: &'a str, data: &'a str) -> SseEvent<'a> {
        SseEvent { event: name, data }
    }

    fn feed_all(events: &[(&str, &str)]) -> (AnthropicStream, Vec<StreamEvent>) {
        let mut stream = AnthropicStream::new();
        let mut shown = Vec::new();
        for (name, data) in events {
            shown.extend(stream.feed_one(event(name, data)).expect("event accepted"));
        }
        (stream, shown)
    }

    const START: (&str, &str) = (
        "message_start",
        r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}"#,
    );
    const BLOCK: (&str, &str) = (
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    );
    const HELLO: (&str, &str) = (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}"#,
    );
    const STOP: (&str, &str) = ("message_stop", r#"{"type":"message_stop"}"#);

    fn message_delta(stop_reason: &str, output_tokens: u64) -> String {
        format!(
            r#"{{"type":"message_delta","delta":{{"stop_reason":"{stop_reason}","stop_sequence":null}},"usage":{{"output_tokens":{output_tokens}}}}}"#
        )
    }

    #[test]
    fn usage_is_cumulative_not_summed() {
        let first = message_delta("end_turn", 10);
        let second = message_delta("end_turn", 15);
        let (stream, shown) = feed_all(&[
            START,
            BLOCK,
            HELLO,
            ("message_delta", &first),
            ("message_delta", &second),
            STOP,
        ]);
        assert_eq!(shown, vec![StreamEvent::Text("Hello".to_string())]);
        let output = stream.finish().unwrap();
        assert_eq!(
            output.usage,
            Some(Usage {
                input_tokens: 25,
                output_tokens: 15
            })
        );
        assert_eq!(output.finish, FinishReason::Stop);
    }

    #[test]
    fn thinking_is_reasoning_and_signatures_are_ignored() {
        let (stream, shown) = feed_all(&[
            START,
            (
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"First, "}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCg=="}}"#,
            ),
            (
                "content_block_delta",
                r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\""}}"#,
            ),
            HELLO,
            STOP,
        ]);
        assert_eq!(
            shown,
            vec![
                StreamEvent::Reasoning("First, ".to_string()),
                StreamEvent::Text("Hello".to_string()),
            ]
        );
        assert_eq!(stream.finish().unwrap().text, "Hello");
    }

    #[test]
    fn max_tokens_is_length() {
        let delta = message_delta("max_tokens", 8);
        let (stream, _) = feed_all(&[START, HELLO, ("message_delta", &delta), STOP]);
        assert_eq!(stream.finish().unwrap().finish, FinishReason::Length);
    }

    #[test]
    fn pings_and_unknown_events_are_ignored() {
        let (stream, shown) = feed_all(&[
            START,
            ("ping", r#"{"type": "ping"}"#),
            (
                "future_event",
                r#"{"type":"future_event","anything":[1,2]}"#,
            ),
            HELLO,
            STOP,
        ]);
        assert_eq!(shown.len(), 1);
        assert!(stream.finish().is_ok());
    }

    #[test]
    fn an_error_event_fails_with_its_message() {
        let mut stream = AnthropicStream::new();
        stream.feed_one(event(START.0, START.1)).unwrap();
        let error = stream
            .feed_one(event(
                "error",
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            ))
            .unwrap_err();
        assert_eq!(error.to_string(), "overloaded_error: Overloaded");
    }

    #[test]
    fn an_end_without_message_stop_fails() {
        let delta = message_delta("end_turn", 3);
        let (stream, _) = feed_all(&[START, HELLO, ("message_delta", &delta)]);
        assert_eq!(
            stream.finish().unwrap_err().message,
            "stream ended before the answer finished"
        );
    }

    #[test]
    fn malformed_json_names_the_problem() {
        let mut stream = AnthropicStream::new();
        let error = stream
            .feed_one(event(
                "content_block_delta",
                r#"{"type":"content_block_delta","#,
            ))
            .unwrap_err();
        assert!(error.message.starts_with("malformed JSON chunk"), "{error}");
    }

    #[test]
    fn cached_input_counts_as_input() {
        let start = r#"{"type":"message_start","message":{"usage":{"input_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":20,"output_tokens":1}}}"#;
        let (stream, _) = feed_all(&[("message_start", start), STOP]);
        assert_eq!(stream.finish().unwrap().usage.unwrap().input_tokens, 125);
    }
}
