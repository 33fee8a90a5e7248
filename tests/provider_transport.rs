//! Transport supervision of the HTTP providers against injected faults:
//! retryable statuses with and without `retry-after`, statuses that fail at
//! once, refused and hanging connections, streams cut or stalled part-way,
//! cancellation, and the `doctor` probe.

use crate::support;

use std::time::{Duration, Instant};

use quorum::agent::http::{ApiKey, Endpoint, HttpFailureKind, HttpLimits};
use quorum::agent::openai::OpenAiAgent;
use quorum::agent::probe::{ProbeKind, probe};
use quorum::agent::{Agent, AgentError, CallOutput, StreamEvent};
use support::provider_server::{
    Blackhole, Frame, ProviderServer, ScriptedResponse, call_request, openai_events,
    openai_finish_chunk, openai_text_chunk, refused_base_url, run_call, shown_text, test_limits,
};

/// Generous bound for "the server noticed the client went away".
const SERVER_NOTICE_LIMIT: Duration = Duration::from_secs(5);

fn agent_at(base_url: String, limits: HttpLimits) -> OpenAiAgent {
    let endpoint = Endpoint {
        base_url,
        api_key: Some(ApiKey::new("sk-transport-secret".to_string())),
        limits,
    };
    OpenAiAgent::new(endpoint, "gpt-test")
}

fn agent(server: &ProviderServer) -> OpenAiAgent {
    agent_at(server.openai_base_url(), test_limits())
}

fn answer(text: &str) -> String {
    let chunk = openai_text_chunk(text);
    let stop = openai_finish_chunk("stop");
    openai_events(&[&chunk, &stop, "[DONE]"])
}

fn failure(outcome: Result<CallOutput, AgentError>) -> quorum::agent::http::HttpFailure {
    match outcome {
        Ok(output) => panic!("expected a failure, got {output:?}"),
        Err(AgentError::Http(failure)) => failure,
        Err(other) => panic!("expected an HTTP failure, got {other:?}"),
    }
}

#[tokio::test]
async fn a_429_with_retry_after_is_retried_after_the_wait() {
    let server = ProviderServer::start().await;
    server.push(
        ScriptedResponse::json(
            429,
            r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
        )
        .header("retry-after", "1"),
    );
    server.push(ScriptedResponse::sse(answer("after the wait")));

    let started = Instant::now();
    let (_, outcome) = run_call(&agent(&server), "q").await;

    assert_eq!(outcome.expect("answer").text, "after the wait");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "retry-after was not honoured: {:?}",
        started.elapsed()
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_500_then_success_is_an_answer() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::json(
        500,
        r#"{"error":{"message":"internal","type":"server_error"}}"#,
    ));
    server.push(ScriptedResponse::sse(answer("second time lucky")));
    let (_, outcome) = run_call(&agent(&server), "q").await;
    assert_eq!(outcome.expect("answer").text, "second time lucky");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body, requests[1].body, "the same request again");
}

#[tokio::test]
async fn retries_stop_after_max_retries_with_the_last_message() {
    let server = ProviderServer::start().await;
    for _ in 0..3 {
        server.push(ScriptedResponse::json(
            503,
            "<html>upstream unavailable</html>",
        ));
    }
    server.push(ScriptedResponse::sse(answer("too late")));
    let failure = failure(run_call(&agent(&server), "q").await.1);
    assert_eq!(
        failure.to_string(),
        "openai: HTTP 503 <html>upstream unavailable</html> (3 attempts)"
    );
    assert_eq!(failure.kind, HttpFailureKind::Status);
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn zero_retries_means_one_attempt() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::json(502, ""));
    let no_retries = HttpLimits {
        max_retries: 0,
        ..test_limits()
    };
    let agent = agent_at(server.openai_base_url(), no_retries);
    let failure = failure(run_call(&agent, "q").await.1);
    assert_eq!(failure.to_string(), "openai: HTTP 502 Bad Gateway");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn statuses_that_cannot_succeed_fail_at_once() {
    for status in [400, 401, 403, 404, 422] {
        let server = ProviderServer::start().await;
        server.push(ScriptedResponse::json(
            status,
            r#"{"error":{"message":"nope","type":"invalid_request_error"}}"#,
        ));
        server.push(ScriptedResponse::sse(answer("never")));
        let failure = failure(run_call(&agent(&server), "q").await.1);
        assert_eq!(
            failure.to_string(),
            format!("openai: HTTP {status} invalid_request_error: nope")
        );
        assert_eq!(failure.status, Some(status));
        assert_eq!(server.requests().len(), 1, "status {status}");
    }
}

#[tokio::test]
async fn the_provider_can_forbid_a_retry() {
    let server = ProviderServer::start().await;
    server
        .push(ScriptedResponse::json(503, r#"{"error":"down"}"#).header("x-should-retry", "false"));
    let failure = failure(run_call(&agent(&server), "q").await.1);
    assert_eq!(failure.to_string(), "openai: HTTP 503 down");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_connection_cut_mid_stream_fails_without_a_transport_retry() {
    let server = ProviderServer::start().await;
    let first = openai_text_chunk("The first half");
    server.push(ScriptedResponse::stream(vec![
        Frame::text(&openai_events(&[&first])),
        Frame::Delay(Duration::from_millis(20)),
        Frame::Cut,
    ]));
    server.push(ScriptedResponse::sse(answer("never")));
    let (shown, outcome) = run_call(&agent(&server), "q").await;
    assert_eq!(
        shown_text(&shown),
        "The first half",
        "partial text was shown"
    );
    let failure = failure(outcome);
    assert_eq!(failure.kind, HttpFailureKind::Stream);
    assert!(
        failure
            .to_string()
            .starts_with("openai: the stream broke part-way: "),
        "{failure}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_connection_cut_before_the_first_byte_is_retried() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::stream(vec![Frame::Cut]));
    server.push(ScriptedResponse::sse(answer("reconnected")));
    let (_, outcome) = run_call(&agent(&server), "q").await;
    assert_eq!(outcome.expect("answer").text, "reconnected");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_stream_that_stalls_past_the_idle_timeout_fails() {
    let server = ProviderServer::start().await;
    let first = openai_text_chunk("Thinking about");
    server.push(ScriptedResponse::stream(vec![
        Frame::text(&openai_events(&[&first])),
        Frame::Delay(Duration::from_secs(30)),
        Frame::text(&answer(" it")),
    ]));
    let short_idle = HttpLimits {
        idle_timeout: Some(Duration::from_millis(300)),
        ..test_limits()
    };
    let agent = agent_at(server.openai_base_url(), short_idle);
    let started = Instant::now();
    let (shown, outcome) = run_call(&agent, "q").await;
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(shown_text(&shown), "Thinking about");
    let failure = failure(outcome);
    assert_eq!(failure.to_string(), "openai: no data for 0.3 s");
    assert_eq!(failure.kind, HttpFailureKind::Idle);
    assert_eq!(server.requests().len(), 1);
}

/// A reasoning model may stream nothing for minutes: by default there is
/// no idle limit, only the call's deadline (kept by the engine).
#[tokio::test]
async fn by_default_a_long_silence_before_the_first_token_is_waited_out() {
    assert_eq!(HttpLimits::default().idle_timeout, None);
    let server = ProviderServer::start().await;
    server.push(
        ScriptedResponse::stream(vec![
            Frame::Delay(Duration::from_millis(600)),
            Frame::text(&answer("considered")),
        ])
        .headers_delay(Duration::from_millis(600)),
    );
    let no_idle_limit = HttpLimits {
        idle_timeout: None,
        ..test_limits()
    };
    let agent = agent_at(server.openai_base_url(), no_idle_limit);
    let (_, outcome) = run_call(&agent, "q").await;
    assert_eq!(outcome.expect("answer").text, "considered");
}

#[tokio::test]
async fn keep_alive_comments_keep_a_slow_stream_alive() {
    let server = ProviderServer::start().await;
    let mut frames = vec![Frame::text(&openai_events(&[&openai_text_chunk("slow")]))];
    for _ in 0..4 {
        frames.push(Frame::Delay(Duration::from_millis(150)));
        frames.push(Frame::text(": keep-alive\n\n"));
    }
    frames.push(Frame::text(&answer(" but steady")));
    server.push(ScriptedResponse::stream(frames));
    let short_idle = HttpLimits {
        idle_timeout: Some(Duration::from_millis(400)),
        ..test_limits()
    };
    let agent = agent_at(server.openai_base_url(), short_idle);
    let (_, outcome) = run_call(&agent, "q").await;
    assert_eq!(outcome.expect("answer").text, "slow but steady");
}

#[tokio::test]
async fn a_server_silent_before_its_headers_times_out() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::sse(answer("late")).headers_delay(Duration::from_secs(30)));
    let short = HttpLimits {
        connect_timeout: Duration::from_millis(200),
        idle_timeout: Some(Duration::from_millis(300)),
        ..test_limits()
    };
    let agent = agent_at(server.openai_base_url(), short);
    let started = Instant::now();
    let failure = failure(run_call(&agent, "q").await.1);
    assert!(started.elapsed() >= Duration::from_millis(500));
    assert_eq!(
        failure.to_string(),
        "openai: no response headers within 0.5 s"
    );
    assert_eq!(failure.kind, HttpFailureKind::Idle);
}

#[tokio::test]
async fn a_refused_connection_is_retried_then_reported() {
    let base_url = refused_base_url().await;
    let agent = agent_at(base_url.clone(), test_limits());
    let started = Instant::now();
    let failure = failure(run_call(&agent, "q").await.1);
    assert!(
        started.elapsed() >= Duration::from_millis(15),
        "backed off twice"
    );
    assert_eq!(failure.kind, HttpFailureKind::Connect);
    assert_eq!(failure.attempts, 3);
    let text = failure.to_string();
    assert!(
        text.starts_with(&format!(
            "openai: cannot reach {base_url}/chat/completions: "
        )),
        "{text}"
    );
    assert!(text.ends_with("(3 attempts)"), "{text}");
    assert!(!text.contains("sk-transport-secret"));
}

#[tokio::test]
async fn a_connection_that_never_opens_hits_the_connect_timeout() {
    let blackhole = Blackhole::start().await;
    let short_connect = HttpLimits {
        connect_timeout: Duration::from_millis(200),
        max_retries: 1,
        ..test_limits()
    };
    let base_url = blackhole.openai_base_url();
    let agent = agent_at(base_url.clone(), short_connect);
    let started = Instant::now();
    let failure = failure(run_call(&agent, "q").await.1);
    assert!(
        started.elapsed() >= Duration::from_millis(400),
        "two attempts"
    );
    assert_eq!(
        failure.to_string(),
        format!("openai: cannot connect to {base_url}/chat/completions within 0.2 s (2 attempts)")
    );
}

#[tokio::test]
async fn dropping_the_call_closes_the_connection() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::stream(vec![
        Frame::text(&openai_events(&[&openai_text_chunk("streaming...")])),
        Frame::KeepAliveForever(Duration::from_millis(20)),
    ]));
    let agent = agent(&server);
    let (sender, mut receiver) = quorum::agent::events::channel();
    let mut call = agent.call(call_request("q"), sender);
    tokio::select! {
        outcome = &mut call => panic!("the call should still be running: {outcome:?}"),
        first = receiver.recv() => {
            assert_eq!(first, Some(StreamEvent::Text("streaming...".to_string())));
        }
    }
    drop(call);
    assert!(
        server
            .wait_for_abandoned_bodies(1, SERVER_NOTICE_LIMIT)
            .await
            .is_some(),
        "the server never saw the client go away"
    );
}

#[tokio::test]
async fn probe_lists_models_with_the_call_headers() {
    let server = ProviderServer::start().await;
    server.push(ScriptedResponse::json(
        200,
        r#"{"object":"list","data":[{"id":"a","object":"model"},{"id":"b","object":"model"},{"id":"c","object":"model"}]}"#,
    ));
    let endpoint = Endpoint {
        base_url: server.openai_base_url(),
        api_key: Some(ApiKey::new("sk-probe".to_string())),
        limits: test_limits(),
    };
    let answer = probe(&endpoint, ProbeKind::OpenAi)
        .await
        .expect("reachable");
    assert_eq!(answer, "answers (HTTP 200, 3 models)");
    let request = &server.requests()[0];
    assert_eq!(request.method, "GET");
    assert_eq!(request.path, "/v1/models");
    assert_eq!(request.header("authorization"), Some("Bearer sk-probe"));
}

#[tokio::test]
async fn probe_reports_a_refusal_with_the_provider_message() {
    let server = ProviderServer::start().await;
    server.push(
        ScriptedResponse::json(
            401,
            r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
        )
        .header("request-id", "req_probe"),
    );
    let endpoint = Endpoint {
        base_url: server.anthropic_base_url(),
        api_key: Some(ApiKey::new("sk-ant-probe".to_string())),
        limits: test_limits(),
    };
    let error = probe(&endpoint, ProbeKind::Anthropic)
        .await
        .expect_err("refused");
    assert_eq!(
        error.to_string(),
        "anthropic: HTTP 401 authentication_error: invalid x-api-key (request id req_probe)"
    );
    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/models");
    assert_eq!(request.header("x-api-key"), Some("sk-ant-probe"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
}

#[tokio::test]
async fn probe_reports_an_unreachable_endpoint() {
    let endpoint = Endpoint {
        base_url: refused_base_url().await,
        api_key: None,
        limits: test_limits(),
    };
    let error = probe(&endpoint, ProbeKind::OpenAi)
        .await
        .expect_err("refused");
    assert!(
        error.to_string().starts_with("openai: cannot reach "),
        "{error}"
    );
}

#[tokio::test]
async fn a_key_that_cannot_be_a_header_fails_before_any_request() {
    let server = ProviderServer::start().await;
    let endpoint = Endpoint {
        base_url: server.openai_base_url(),
        api_key: Some(ApiKey::new("sk-line\nbreak".to_string())),
        limits: test_limits(),
    };
    let agent = OpenAiAgent::new(endpoint, "gpt-test");
    let failure = failure(run_call(&agent, "q").await.1);
    assert_eq!(
        failure.to_string(),
        "openai: the API key contains characters that cannot be sent in an HTTP header"
    );
    assert_eq!(failure.kind, HttpFailureKind::Setup);
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_base_url_without_a_scheme_is_named_in_the_error() {
    let agent = agent_at("localhost:11434/v1".to_string(), test_limits());
    let failure = failure(run_call(&agent, "q").await.1);
    assert_eq!(failure.kind, HttpFailureKind::Setup);
    assert!(
        failure
            .to_string()
            .starts_with("openai: invalid URL localhost:11434/v1/chat/completions: "),
        "{failure}"
    );
}
