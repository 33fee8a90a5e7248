//! The `openai` provider: any OpenAI-compatible Chat Completions endpoint
//! (OpenAI, Ollama, vLLM, llama.cpp server, LM Studio, OpenRouter, ...).
//!
//! Responsible for: the request body and headers, and [`OpenAiStream`], the
//! pure state machine that reads the streamed chunks — answer text,
//! reasoning text (`reasoning_content` or `reasoning`, shown but never part of
//! the answer), the finish reason, the usage chunk that follows it, `[DONE]`,
//! and error objects that arrive after HTTP 200.
//!
//! Not responsible for: retries, timeouts and error statuses (the shared
//! transport in [`super::http`] does those).

use std::borrow::Cow;

use futures::future::BoxFuture;
use reqwest::header::{AUTHORIZATION, HeaderMap};
use serde::Deserialize;

use super::http::{
    ApiKey, DecodeError, Endpoint, HttpFailure, MAX_CHUNK_EXCERPT_CHARS, Shown, SseDecoder,
    SseEvent, Transport, error_in_value, excerpt, json_stream_headers,
};
use super::{
    Agent, AgentError, AgentInfo, CallOutput, CallRequest, EventSender, FinishReason, Usage,
};

pub use crate::config::resolve::OPENAI_DEFAULT_BASE_URL;

/// Name of this provider in `AgentInfo` and error messages.
const PROVIDER: &str = "openai";
/// The data line that closes an OpenAI stream.
const DONE_MARKER: &str = "[DONE]";

/// An agent answering through a Chat Completions endpoint.
#[derive(Debug)]
pub struct OpenAiAgent {
    transport: Transport,
    model: String,
    max_tokens: Option<u32>,
}

impl OpenAiAgent {
    pub fn new(endpoint: Endpoint, model: impl Into<String>) -> Self {
        OpenAiAgent {
            transport: Transport::new(PROVIDER, endpoint),
            model: model.into(),
            max_tokens: None,
        }
    }

    /// Caps the answer length; `None` leaves it to the server.
    pub fn with_max_tokens(mut self, max_tokens: Option<u32>) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    fn request_body(&self, prompt: &str) -> Vec<u8> {
        let mut body = serde_json::json!({
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        if let Some(max_tokens) = self.max_tokens {
            body["max_tokens"] = max_tokens.into();
        }
        body.to_string().into_bytes()
    }
}

impl Agent for OpenAiAgent {
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
            "/chat/completions",
            request_headers,
            body,
            OpenAiStream::new,
            events,
        )
    }
}

/// The headers of every request; `Authorization` only when there is a key.
pub(crate) fn request_headers(api_key: Option<&ApiKey>) -> Result<HeaderMap, HttpFailure> {
    let mut headers = json_stream_headers();
    if let Some(key) = api_key {
        headers.insert(AUTHORIZATION, key.header_value("Bearer ")?);
    }
    Ok(headers)
}

/// A chunk, its text borrowed from the event's where it can be (a string
/// without escapes).
#[derive(Debug, Deserialize)]
struct Chunk<'a> {
    #[serde(default, borrow)]
    choices: Option<Vec<Choice<'a>>>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

/// A chunk read straight from its text, with what tells an error apart; an
/// ordinary chunk (no error, not an error object) needs nothing more.
#[derive(Debug, Deserialize)]
struct PlainChunk<'a> {
    #[serde(default, borrow)]
    choices: Option<Vec<Choice<'a>>>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<serde::de::IgnoredAny>,
    #[serde(default, borrow)]
    object: Option<Cow<'a, str>>,
}

#[derive(Debug, Deserialize)]
struct Choice<'a> {
    #[serde(default)]
    index: u32,
    #[serde(default, borrow)]
    delta: Option<Delta<'a>>,
    #[serde(default, borrow)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Debug, Deserialize)]
struct Delta<'a> {
    #[serde(default, borrow)]
    content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning: Option<Cow<'a, str>>,
}

#[derive(Debug, Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

/// The Chat Completions stream format as a state machine.
#[derive(Debug, Default)]
pub struct OpenAiStream {
    text: String,
    usage: Option<Usage>,
    finish: Option<FinishReason>,
    done: bool,
}

impl OpenAiStream {
    pub fn new() -> Self {
        OpenAiStream::default()
    }

    fn read_chunk(&mut self, chunk: Chunk<'_>, shown: &mut Shown) {
        if let Some(usage) = chunk.usage {
            self.usage = Some(Usage {
                input_tokens: usage.prompt_tokens,
                output_tokens: usage.completion_tokens,
            });
        }
        for choice in chunk.choices.unwrap_or_default() {
            if choice.index == 0 {
                self.read_choice(choice, shown);
            }
        }
    }

    fn read_choice(&mut self, choice: Choice<'_>, shown: &mut Shown) {
        if let Some(delta) = choice.delta {
            let reasoning = delta
                .reasoning_content
                .filter(|text| !text.is_empty())
                .or(delta.reasoning);
            if let Some(reasoning) = reasoning.filter(|text| !text.is_empty()) {
                shown.reasoning(&reasoning);
            }
            if let Some(content) = delta.content.filter(|text| !text.is_empty()) {
                self.text.push_str(&content);
                shown.text(&content);
            }
        }
        if let Some(reason) = choice.finish_reason {
            self.finish = Some(match &*reason {
                "length" => FinishReason::Length,
                _ => FinishReason::Stop,
            });
        }
    }
}

impl SseDecoder for OpenAiStream {
    fn feed(&mut self, event: SseEvent<'_>, shown: &mut Shown) -> Result<(), DecodeError> {
        let data = event.data.trim();
        if self.done || data.is_empty() {
            return Ok(());
        }
        if data == DONE_MARKER {
            self.done = true;
            return Ok(());
        }
        // The common case in one pass; anything unusual (an error, a chunk
        // that does not read) takes the general path below, which decides.
        if event.event != "error"
            && let Ok(plain) = serde_json::from_str::<PlainChunk>(data)
            && plain.error.is_none()
            && plain.object.as_deref() != Some("error")
        {
            let chunk = Chunk {
                choices: plain.choices,
                usage: plain.usage,
            };
            self.read_chunk(chunk, shown);
            return Ok(());
        }
        let value: serde_json::Value = serde_json::from_str(data)
            .map_err(|error| DecodeError::malformed_json(&error, data))?;
        let is_error = event.event == "error"
            || value.get("error").is_some_and(|error| !error.is_null())
            || value.get("object").and_then(serde_json::Value::as_str) == Some("error");
        if is_error {
            let (error_type, message) = error_in_value(&value)
                .unwrap_or_else(|| (None, excerpt(data, MAX_CHUNK_EXCERPT_CHARS)));
            return Err(DecodeError {
                error_type,
                message,
            });
        }
        let chunk = Chunk::deserialize(&value).map_err(|error| {
            DecodeError::new(format!(
                "unexpected chunk ({error}): {}",
                excerpt(data, MAX_CHUNK_EXCERPT_CHARS)
            ))
        })?;
        self.read_chunk(chunk, shown);
        Ok(())
    }

    fn is_complete(&self) -> bool {
        self.done
    }

    fn finish(self) -> Result<CallOutput, DecodeError> {
        if !self.done && self.finish.is_none() {
            return Err(DecodeError::new("stream ended before the answer finished"));
        }
        Ok(CallOutput {
            text: self.text,
            usage: self.usage,
            finish: self.finish.unwrap_or(FinishReason::Stop),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::StreamEvent;
    use crate::agent::http::FeedOne;

    fn data(data: &str) -> SseEvent<'_> {
        SseEvent::message(data)
    }

    fn feed_all(lines: &[&str]) -> (OpenAiStream, Vec<StreamEvent>) {
        let mut stream = OpenAiStream::new();
        let mut shown = Vec::new();
        for line in lines {
            shown.extend(stream.feed_one(data(line)).expect("chunk accepted"));
        }
        (stream, shown)
    }

    const ROLE: &str = r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}"#;
    const HELLO: &str = r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}],"usage":null}"#;
    const STOP: &str = r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}"#;
    const USAGE: &str = r#"{"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}"#;

    #[test]
    fn usage_after_the_finish_reason_is_kept() {
        let (stream, shown) = feed_all(&[ROLE, HELLO, STOP, USAGE, "[DONE]"]);
        assert!(stream.is_complete());
        assert_eq!(shown, vec![StreamEvent::Text("Hello".to_string())]);
        let output = stream.finish().unwrap();
        assert_eq!(output.text, "Hello");
        assert_eq!(
            output.usage,
            Some(Usage {
                input_tokens: 9,
                output_tokens: 2
            })
        );
        assert_eq!(output.finish, FinishReason::Stop);
    }

    #[test]
    fn null_choices_in_the_usage_chunk_are_accepted() {
        let usage =
            r#"{"id":"c","choices":null,"usage":{"prompt_tokens":1,"completion_tokens":1}}"#;
        let (stream, _) = feed_all(&[HELLO, STOP, usage]);
        assert!(stream.finish().unwrap().usage.is_some());
    }

    #[test]
    fn reasoning_is_shown_but_not_answered() {
        let thinking = r#"{"choices":[{"index":0,"delta":{"reasoning_content":"Let me see."}}]}"#;
        let other = r#"{"choices":[{"index":0,"delta":{"reasoning":"Hmm.","content":null}}]}"#;
        let (stream, shown) = feed_all(&[thinking, other, HELLO, STOP]);
        assert_eq!(
            shown,
            vec![
                StreamEvent::Reasoning("Let me see.".to_string()),
                StreamEvent::Reasoning("Hmm.".to_string()),
                StreamEvent::Text("Hello".to_string()),
            ]
        );
        assert_eq!(stream.finish().unwrap().text, "Hello");
    }

    #[test]
    fn both_reasoning_fields_in_one_delta_show_once() {
        let both = r#"{"choices":[{"index":0,"delta":{"reasoning_content":"A","reasoning":"A"}}]}"#;
        let (_, shown) = feed_all(&[both]);
        assert_eq!(shown, vec![StreamEvent::Reasoning("A".to_string())]);
    }

    #[test]
    fn length_is_reported() {
        let length = r#"{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#;
        let (stream, _) = feed_all(&[HELLO, length, "[DONE]"]);
        assert_eq!(stream.finish().unwrap().finish, FinishReason::Length);
    }

    #[test]
    fn an_end_without_done_or_finish_reason_fails() {
        let (stream, _) = feed_all(&[ROLE, HELLO]);
        assert_eq!(
            stream.finish().unwrap_err().message,
            "stream ended before the answer finished"
        );
    }

    #[test]
    fn a_finish_reason_without_done_is_enough() {
        let (stream, _) = feed_all(&[HELLO, STOP]);
        let output = stream.finish().unwrap();
        assert_eq!(output.usage, None);
    }

    #[test]
    fn an_error_object_fails_with_its_message() {
        let mut stream = OpenAiStream::new();
        stream.feed_one(data(HELLO)).unwrap();
        let error = stream
            .feed_one(data(
                r#"{"error":{"message":"The server had an error","type":"server_error","code":null}}"#,
            ))
            .unwrap_err();
        assert_eq!(error.error_type.as_deref(), Some("server_error"));
        assert_eq!(error.message, "The server had an error");
    }

    #[test]
    fn malformed_json_names_the_problem() {
        let mut stream = OpenAiStream::new();
        let error = stream
            .feed_one(data(r#"{"choices":[{"index":0,"#))
            .unwrap_err();
        assert!(error.message.starts_with("malformed JSON chunk"), "{error}");
        assert!(error.message.contains(r#"{"choices""#), "{error}");
    }

    #[test]
    fn a_usage_null_is_not_a_usage() {
        let (stream, _) = feed_all(&[HELLO, STOP, "[DONE]"]);
        assert_eq!(stream.finish().unwrap().usage, None);
    }
}
