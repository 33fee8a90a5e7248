//! The `anthropic` provider against a local server speaking the Messages
//! streaming format byte for byte, and its stream parser against recorded
//! streams split at random places.

use crate::support;

use std::time::{Duration, Instant};

use proptest::prelude::*;
use quorum::agent::anthropic::{AnthropicAgent, AnthropicStream};
use quorum::agent::http::{ApiKey, Endpoint, RecordedCall, decode_recorded};
use quorum::agent::{Agent, FinishReason, Usage};
use support::provider_server::{
    Frame, ProviderServer, ScriptedResponse, anthropic_answer, anthropic_event, failure_text,
    run_call, shown_reasoning, shown_text, split_at, stream_fixture, test_limits,
};

const FIXTURES: [&str; 2] = ["anthropic-messages.sse", "anthropic-thinking.sse"];

const OVERLOADED: &str =
    r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;

fn agent(server: &ProviderServer, key: Option<&str>) -> AnthropicAgent {
    let endpoint = Endpoint {
        base_url: server.anthropic_base_url(),
        api_key: key.map(|key| ApiKey::new(key.to_string())),
        limits: test_limits(),
    };
    AnthropicAgent::new(endpoint, "claude-test")
}

#[tokio::test]
async fn a_documented_stream_is_answered_and_the_request_is_right() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::sse(stream_fixture(
        "anthropic-messages.sse",
    )));
    let agent = agent(&server, Some("sk-ant-test"));

    let (shown, outcome) = run_call(&agent, "Review this decision.").await;
    let output = outcome.expect("answer");

    let expected =
        "Hello! Here is the plan: keep the ledger append-only — nothing is ever rewritten. 🙂";
    assert_eq!(output.text, expected);
    assert_eq!(shown_text(&shown), expected);
    assert_eq!(
        output.usage,
        Some(Usage {
            input_tokens: 25,
            output_tokens: 15
        })
    );
    assert_eq!(output.finish, FinishReason::Stop);

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some("sk-ant-test"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("authorization"), None);
    assert_eq!(
        request.body,
        serde_json::json!({
            "model": "claude-test",
            "max_tokens": 8192,
            "stream": true,
            "messages": [{"role": "user", "content": "Review this decision."}],
        })
    );
    assert_eq!(agent.info().provider, "anthropic");
    assert_eq!(agent.info().model, "claude-test");
}

#[tokio::test]
async fn max_tokens_is_sent_and_a_max_tokens_stop_is_length() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::sse(anthropic_answer(
        "cut short",
        "max_tokens",
    )));
    let agent = agent(&server, None).with_max_tokens(100);
    let (_, outcome) = run_call(&agent, "q").await;
    assert_eq!(outcome.expect("answer").finish, FinishReason::Length);
    let request = &server.requests()[0];
    assert_eq!(request.body["max_tokens"], 100);
    assert_eq!(request.header("x-api-key"), None);
}

#[tokio::test]
async fn thinking_is_shown_as_reasoning_and_kept_out_of_the_answer() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::sse(stream_fixture(
        "anthropic-thinking.sse",
    )));
    let (shown, outcome) = run_call(&agent(&server, None), "q").await;
    let output = outcome.expect("answer");
    assert!(shown_reasoning(&shown).starts_with("I need to weigh the migration cost."));
    assert!(!output.text.contains("migration cost"));
    assert!(!output.text.contains("EqQB"), "signatures are not text");
    assert_eq!(output.finish, FinishReason::Length);
}

#[tokio::test]
async fn an_overloaded_error_event_after_http_200_fails_with_its_message() {
    let server = ProviderServer::start().await;
    let start = anthropic_answer("never", "end_turn")
        .split("event: content_block_delta")
        .next()
        .expect("stream head")
        .to_string();
    server.push(
        ScriptedResponse::sse(start + &anthropic_event("error", OVERLOADED))
            .header("request-id", "req_018EeWyXxfu5pfWkrYcMdjWG"),
    );
    let (_, outcome) = run_call(&agent(&server, None), "q").await;
    assert_eq!(
        failure_text(outcome),
        "anthropic: overloaded_error: Overloaded (request id req_018EeWyXxfu5pfWkrYcMdjWG)"
    );
    assert_eq!(server.requests().len(), 1, "a stream error is not retried");
}

#[tokio::test]
async fn http_529_overloaded_is_retried() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::json(529, OVERLOADED));
    server.push(ScriptedResponse::sse(anthropic_answer(
        "fine now", "end_turn",
    )));
    let (_, outcome) = run_call(&agent(&server, None), "q").await;
    assert_eq!(outcome.expect("answer").text, "fine now");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn http_529_every_time_gives_up_with_the_message() {
    let server = ProviderServer::start().await;
    for _ in 0..3 {
        server.push(ScriptedResponse::json(529, OVERLOADED).header("request-id", "req_x"));
    }
    let (_, outcome) = run_call(&agent(&server, None), "q").await;
    assert_eq!(
        failure_text(outcome),
        "anthropic: HTTP 529 overloaded_error: Overloaded (request id req_x; 3 attempts)"
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn unauthorised_fails_at_once_with_the_provider_message_and_never_the_key() {
    let server = ProviderServer::start().await;
    let key = "sk-ant-api03-SECRETSECRET";
    let body = format!(
        r#"{{"type":"error","error":{{"type":"authentication_error","message":"invalid x-api-key {key}"}}}}"#
    );
    server.push(ScriptedResponse::json(401, &body).header("request-id", "req_401"));
    let (_, outcome) = run_call(&agent(&server, Some(key)), "q").await;
    let text = failure_text(outcome);
    assert_eq!(
        text,
        "anthropic: HTTP 401 authentication_error: invalid x-api-key *** (request id req_401)"
    );
    assert!(!text.contains(key));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn an_end_without_message_stop_fails() {
    let server = ProviderServer::start().await;
    let whole = anthropic_answer("almost", "end_turn");
    let truncated = whole
        .split("event: message_stop")
        .next()
        .expect("stream head")
        .to_string();
    server.push(ScriptedResponse::sse(truncated));
    let (shown, outcome) = run_call(&agent(&server, None), "q").await;
    assert_eq!(shown_text(&shown), "almost");
    assert_eq!(
        failure_text(outcome),
        "anthropic: stream ended before the answer finished"
    );
}

#[tokio::test]
async fn pings_between_slow_deltas_and_unknown_events_are_ignored() {
    let server = ProviderServer::start().await;
    let whole = anthropic_answer("steady", "end_turn");
    let (head, tail) = whole
        .split_once("event: content_block_delta")
        .expect("a delta");
    server.push(ScriptedResponse::stream(vec![
        Frame::text(head),
        Frame::text(&anthropic_event("ping", r#"{"type": "ping"}"#)),
        Frame::Delay(Duration::from_millis(20)),
        Frame::text(&anthropic_event(
            "brand_new_event",
            r#"{"type":"brand_new_event","detail":{"x":1}}"#,
        )),
        Frame::text(&format!("event: content_block_delta{tail}")),
    ]));
    let (_, outcome) = run_call(&agent(&server, None), "q").await;
    assert_eq!(outcome.expect("answer").text, "steady");
}

#[tokio::test]
async fn a_retry_after_on_529_is_honoured() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::json(529, OVERLOADED).header("retry-after-ms", "400"));
    server.push(ScriptedResponse::sse(anthropic_answer("ok", "end_turn")));
    let started = Instant::now();
    let (_, outcome) = run_call(&agent(&server, None), "q").await;
    assert!(outcome.is_ok());
    assert!(
        started.elapsed() >= Duration::from_millis(400),
        "waited {:?}",
        started.elapsed()
    );
}

fn decode(chunks: Vec<Vec<u8>>) -> RecordedCall {
    decode_recorded(AnthropicStream::new(), chunks)
}

#[test]
fn every_fixture_decodes_to_what_it_documents() {
    let messages = decode(vec![stream_fixture("anthropic-messages.sse")]);
    let output = messages.outcome.expect("messages");
    assert_eq!(
        output.text,
        "Hello! Here is the plan: keep the ledger append-only — nothing is ever rewritten. 🙂"
    );
    assert_eq!(shown_reasoning(&messages.events), "");

    let thinking = decode(vec![stream_fixture("anthropic-thinking.sse")]);
    let output = thinking.outcome.expect("thinking");
    assert_eq!(
        output.text,
        "Adopt event sourcing for billing, but snapshot every 10 000 events so that rep"
    );
    assert_eq!(
        shown_reasoning(&thinking.events),
        "I need to weigh the migration cost.\n\nFirst, the write path: événements are append-only.\
         \nSecond, replay time grows with history; snapshots help."
    );
    assert_eq!(
        output.usage,
        Some(Usage {
            input_tokens: 86,
            output_tokens: 128
        })
    );
    assert_eq!(output.finish, FinishReason::Length);
}

#[test]
fn one_byte_chunks_decode_the_same() {
    for name in FIXTURES {
        let bytes = stream_fixture(name);
        let whole = decode(vec![bytes.clone()]);
        let bytewise: Vec<Vec<u8>> = bytes.iter().map(|byte| vec![*byte]).collect();
        assert_eq!(decode(bytewise), whole, "{name}");
    }
}

#[test]
fn a_cut_inside_every_multibyte_character_is_harmless() {
    for name in FIXTURES {
        let bytes = stream_fixture(name);
        let whole = decode(vec![bytes.clone()]);
        let inside_characters =
            (1..bytes.len()).filter(|&at| (bytes[at] & 0b1100_0000) == 0b1000_0000);
        for cut in inside_characters {
            assert_eq!(
                decode(split_at(&bytes, &[cut])),
                whole,
                "{name} cut at {cut}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_chunking_decodes_the_same(
        fixture in prop::sample::select(FIXTURES.to_vec()),
        cuts in prop::collection::vec(any::<usize>(), 0..40),
    ) {
        let bytes = stream_fixture(fixture);
        let whole = decode(vec![bytes.clone()]);
        prop_assert!(whole.outcome.is_ok());
        prop_assert_eq!(decode(split_at(&bytes, &cuts)), whole);
    }

    #[test]
    fn random_chunking_with_crlf_line_breaks_decodes_the_same(
        fixture in prop::sample::select(FIXTURES.to_vec()),
        cuts in prop::collection::vec(any::<usize>(), 0..40),
    ) {
        let crlf = String::from_utf8(stream_fixture(fixture)).unwrap().replace('\n', "\r\n");
        let bytes = crlf.into_bytes();
        let whole = decode(vec![bytes.clone()]);
        let unix = decode(vec![stream_fixture(fixture)]);
        prop_assert_eq!(&whole, &unix);
        prop_assert_eq!(decode(split_at(&bytes, &cuts)), whole);
    }
}
