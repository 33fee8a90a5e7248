//! The `openai` provider against a local server speaking the Chat
//! Completions streaming format byte for byte, and its stream parser against
//! recorded streams split at every possible place.

use crate::support;

use std::time::Duration;

use proptest::prelude::*;
use quorum::agent::http::{ApiKey, Endpoint, decode_recorded};
use quorum::agent::openai::{OpenAiAgent, OpenAiStream};
use quorum::agent::{Agent, FinishReason, StreamEvent, Usage};
use support::provider_server::{
    Frame, ProviderServer, ScriptedResponse, failure_text, openai_events, openai_finish_chunk,
    openai_text_chunk, run_call, shown_reasoning, shown_text, split_at, stream_fixture,
    test_limits,
};

const FIXTURES: [&str; 4] = [
    "openai-chat.sse",
    "openai-usage.sse",
    "openai-reasoning.sse",
    "openai-reasoning-content-crlf.sse",
];

fn agent(server: &ProviderServer, key: Option<&str>) -> OpenAiAgent {
    let endpoint = Endpoint {
        base_url: server.openai_base_url(),
        api_key: key.map(|key| ApiKey::new(key.to_string())),
        limits: test_limits(),
    };
    OpenAiAgent::new(endpoint, "gpt-test")
}

#[tokio::test]
async fn a_documented_stream_with_usage_is_answered_and_the_request_is_right() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::sse(stream_fixture("openai-usage.sse")));
    let agent = agent(&server, Some("sk-test-key"));

    let (shown, outcome) = run_call(&agent, "Should billing use event sourcing?").await;
    let output = outcome.expect("answer");

    let expected = "Event sourcing keeps every change as an immutable fact; the ledger is the truth. \
                    Naïve replays cost time.";
    assert_eq!(output.text, expected);
    assert_eq!(shown_text(&shown), expected);
    assert_eq!(
        output.usage,
        Some(Usage {
            input_tokens: 31,
            output_tokens: 21
        })
    );
    assert_eq!(output.finish, FinishReason::Stop);

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), Some("Bearer sk-test-key"));
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(
        request.body,
        serde_json::json!({
            "model": "gpt-test",
            "messages": [{"role": "user", "content": "Should billing use event sourcing?"}],
            "stream": true,
            "stream_options": {"include_usage": true},
        })
    );
    assert_eq!(agent.info().provider, "openai");
    assert_eq!(agent.info().model, "gpt-test");
}

#[tokio::test]
async fn without_a_key_no_authorization_is_sent_and_max_tokens_is_passed_when_set() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::sse(stream_fixture("openai-chat.sse")));
    let agent = agent(&server, None).with_max_tokens(Some(256));

    let (_, outcome) = run_call(&agent, "hi").await;
    assert!(outcome.is_ok());

    let request = &server.requests()[0];
    assert_eq!(request.header("authorization"), None);
    assert_eq!(request.body["max_tokens"], 256);
}

#[tokio::test]
async fn reasoning_content_is_shown_as_reasoning_and_kept_out_of_the_answer() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::sse(stream_fixture(
        "openai-reasoning-content-crlf.sse",
    )));
    let (shown, outcome) = run_call(&agent(&server, None), "q").await;
    let output = outcome.expect("answer");

    assert_eq!(
        shown_reasoning(&shown),
        "Okay, the question is about 日本語 text."
    );
    assert_eq!(output.text, "Short answer: it depends on");
    assert!(!output.text.contains("Okay"));
    assert_eq!(output.finish, FinishReason::Length, "finish_reason length");
}

#[tokio::test]
async fn keep_alive_comments_and_the_reasoning_field_are_understood() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::sse(stream_fixture(
        "openai-reasoning.sse",
    )));
    let (shown, outcome) = run_call(&agent(&server, None), "q").await;
    let output = outcome.expect("answer");

    assert_eq!(
        shown_reasoning(&shown),
        "The user asks whether to adopt it. Weigh cost vs risk…"
    );
    assert_eq!(output.text, "Adopt it, with a fallback plan.");
    assert_eq!(
        output.usage,
        Some(Usage {
            input_tokens: 14,
            output_tokens: 64
        })
    );
}

#[tokio::test]
async fn keep_alive_comments_between_slow_chunks_are_ignored() {
    let server = ProviderServer::start().await;
    let hello = openai_text_chunk("Hello");
    let stop = openai_finish_chunk("stop");
    server.push(ScriptedResponse::stream(vec![
        Frame::text(": ping\n\n"),
        Frame::text(&openai_events(&[&hello])),
        Frame::Delay(Duration::from_millis(20)),
        Frame::text(":\n\n: still here\n\n"),
        Frame::text(&openai_events(&[&stop])),
        Frame::text("data: [DONE]\n\n"),
    ]));
    let (_, outcome) = run_call(&agent(&server, None), "q").await;
    assert_eq!(outcome.expect("answer").text, "Hello");
}

#[tokio::test]
async fn a_missing_usage_chunk_is_still_an_answer() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::sse(stream_fixture("openai-chat.sse")));
    let (_, outcome) = run_call(&agent(&server, None), "q").await;
    let output = outcome.expect("answer");
    assert_eq!(output.usage, None);
    assert_eq!(output.text, "Hello! How can I help you today — ça va ? 😊");
}

#[tokio::test]
async fn a_missing_done_after_a_finish_reason_is_an_answer() {
    let server = ProviderServer::start().await;
    let hello = openai_text_chunk("Hello");
    let stop = openai_finish_chunk("stop");
    server.push(ScriptedResponse::sse(openai_events(&[&hello, &stop])));
    let (_, outcome) = run_call(&agent(&server, None), "q").await;
    let output = outcome.expect("answer");
    assert_eq!(output.text, "Hello");
    assert_eq!(output.finish, FinishReason::Stop);
}

#[tokio::test]
async fn a_missing_done_without_a_finish_reason_fails() {
    let server = ProviderServer::start().await;
    let hello = openai_text_chunk("Hello");
    server.push(ScriptedResponse::sse(openai_events(&[&hello])));
    let (shown, outcome) = run_call(&agent(&server, None), "q").await;
    assert_eq!(shown_text(&shown), "Hello", "the partial text was shown");
    assert_eq!(
        failure_text(outcome),
        "openai: stream ended before the answer finished"
    );
    assert_eq!(server.requests().len(), 1, "not retried by the transport");
}

#[tokio::test]
async fn an_error_object_after_http_200_fails_with_its_message() {
    let server = ProviderServer::start().await;
    let hello = openai_text_chunk("Hel");
    let error = r#"{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}"#;
    server.push(
        ScriptedResponse::sse(openai_events(&[&hello, error])).header("x-request-id", "req_abc"),
    );
    let (_, outcome) = run_call(&agent(&server, None), "q").await;
    assert_eq!(
        failure_text(outcome),
        "openai: server_error: The server had an error while processing your request. (request id req_abc)"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_malformed_json_chunk_fails_naming_the_problem() {
    let server = ProviderServer::start().await;
    let hello = openai_text_chunk("Hello");
    server.push(ScriptedResponse::sse(openai_events(&[
        &hello,
        r#"{"id":"chatcmpl-test","choices":[{"index":0,"delta":{"content":"oops"#,
    ])));
    let (_, outcome) = run_call(&agent(&server, None), "q").await;
    let text = failure_text(outcome);
    assert!(text.starts_with("openai: malformed JSON chunk ("), "{text}");
    assert!(text.contains(r#"{"id":"chatcmpl-test""#), "{text}");
}

#[tokio::test]
async fn an_event_over_the_size_cap_fails_instead_of_buffering() {
    let server = ProviderServer::start().await;
    let huge = "x".repeat(1024 * 1024 + 10);
    server.push(ScriptedResponse::stream(vec![
        Frame::text("data: "),
        Frame::text(&huge),
    ]));
    let (_, outcome) = run_call(&agent(&server, None), "q").await;
    assert_eq!(
        failure_text(outcome),
        "openai: one stream event is larger than 1048576 bytes"
    );
}

#[tokio::test]
async fn a_json_answer_to_a_streaming_request_is_reported() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::json(
        200,
        r#"{"error":{"message":"streaming is disabled on this deployment","type":"invalid_request_error"}}"#,
    ));
    let (_, outcome) = run_call(&agent(&server, None), "q").await;
    assert_eq!(
        failure_text(outcome),
        "openai: invalid_request_error: streaming is disabled on this deployment"
    );
}

#[tokio::test]
async fn unauthorised_fails_at_once_with_the_provider_message_and_never_the_key() {
    let server = ProviderServer::start().await;
    let key = "sk-proj-SECRET0123456789";
    let body = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {key}. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}}}"#
    );
    server.push(ScriptedResponse::json(401, &body).header("x-request-id", "req_123"));
    let (_, outcome) = run_call(&agent(&server, Some(key)), "q").await;

    let error = outcome.expect_err("401 fails");
    let text = error.to_string();
    assert_eq!(
        text,
        "openai: HTTP 401 invalid_api_key: Incorrect API key provided: ***. You can find your API key \
         at https://platform.openai.com/account/api-keys. (request id req_123)"
    );
    assert!(!text.contains(key));
    assert!(!format!("{error:?}").contains(key));
    assert_eq!(server.requests().len(), 1, "not retried");
}

fn decode(chunks: Vec<Vec<u8>>) -> quorum::agent::http::RecordedCall {
    decode_recorded(OpenAiStream::new(), chunks)
}

/// What a fixture says, as its provider documents it.
struct Documented {
    fixture: &'static str,
    text: &'static str,
    reasoning: &'static str,
    usage: Option<Usage>,
    finish: FinishReason,
}

fn usage(input_tokens: u64, output_tokens: u64) -> Option<Usage> {
    Some(Usage {
        input_tokens,
        output_tokens,
    })
}

#[test]
fn every_fixture_decodes_to_what_it_documents() {
    let documented = [
        Documented {
            fixture: "openai-chat.sse",
            text: "Hello! How can I help you today — ça va ? 😊",
            reasoning: "",
            usage: None,
            finish: FinishReason::Stop,
        },
        Documented {
            fixture: "openai-usage.sse",
            text: "Event sourcing keeps every change as an immutable fact; the ledger is the truth. \
                   Naïve replays cost time.",
            reasoning: "",
            usage: usage(31, 21),
            finish: FinishReason::Stop,
        },
        Documented {
            fixture: "openai-reasoning.sse",
            text: "Adopt it, with a fallback plan.",
            reasoning: "The user asks whether to adopt it. Weigh cost vs risk…",
            usage: usage(14, 64),
            finish: FinishReason::Stop,
        },
        Documented {
            fixture: "openai-reasoning-content-crlf.sse",
            text: "Short answer: it depends on",
            reasoning: "Okay, the question is about 日本語 text.",
            usage: usage(22, 64),
            finish: FinishReason::Length,
        },
    ];
    for expected in documented {
        let name = expected.fixture;
        let call = decode(vec![stream_fixture(name)]);
        let output = call.outcome.expect(name);
        assert_eq!(output.text, expected.text, "{name}");
        assert_eq!(shown_text(&call.events), expected.text, "{name}");
        assert_eq!(shown_reasoning(&call.events), expected.reasoning, "{name}");
        assert_eq!(output.usage, expected.usage, "{name}");
        assert_eq!(output.finish, expected.finish, "{name}");
    }
}

/// Every place where a split is risky: around each line break, inside and
/// around each multi-byte character, around each field separator.
fn risky_cuts(bytes: &[u8]) -> Vec<usize> {
    let mut cuts: Vec<usize> = (0..bytes.len())
        .filter(|&at| matches!(bytes[at], b'\r' | b'\n' | b':') || !bytes[at].is_ascii())
        .flat_map(|at| [at, at + 1])
        .collect();
    cuts.dedup();
    cuts
}

#[test]
fn a_single_split_at_any_risky_place_decodes_the_same() {
    for name in FIXTURES {
        let bytes = stream_fixture(name);
        let whole = decode(vec![bytes.clone()]);
        for cut in risky_cuts(&bytes) {
            assert_eq!(
                decode(split_at(&bytes, &[cut])),
                whole,
                "{name} cut at {cut}"
            );
        }
    }
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
}

#[test]
fn a_cut_inside_a_multibyte_character_and_inside_crlf_is_harmless() {
    let bytes = stream_fixture("openai-reasoning-content-crlf.sse");
    let whole = decode(vec![bytes.clone()]);
    let japanese = "日本語".as_bytes();
    let inside_char = bytes
        .windows(japanese.len())
        .position(|window| window == japanese)
        .expect("fixture has Japanese text")
        + 1;
    let inside_crlf = bytes
        .windows(2)
        .position(|window| window == b"\r\n")
        .expect("fixture uses CRLF")
        + 1;
    assert_eq!(decode(split_at(&bytes, &[inside_char, inside_crlf])), whole);
    assert!(matches!(
        whole.events.first(),
        Some(StreamEvent::Reasoning(_))
    ));
}
