//! The `doctor` reachability [`probe`]: asks an HTTP provider's endpoint
//! for its models, with the same headers a call would send.
//!
//! Sits above the providers: it uses the transport ([`super::http`]) and
//! each provider's request headers ([`super::openai`], [`super::anthropic`]),
//! so the transport depends on no provider. Not responsible for calls,
//! streams or retries (the transport and the providers do that) or for
//! deciding what to probe (`quorum doctor` does).

use super::AgentError;
use super::http::{
    Endpoint, HttpFailure, build_client, error_body_wait, failure_from_response, read_capped,
    request_id, send_within,
};

/// Which API a [`probe`] speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeKind {
    OpenAi,
    Anthropic,
}

/// Checks that an endpoint answers: lists its models with the same headers
/// a call would send. Returns e.g. "answers (HTTP 200, 3 models)".
pub async fn probe(endpoint: &Endpoint, kind: ProbeKind) -> Result<String, AgentError> {
    let (provider, path, headers) = match kind {
        ProbeKind::OpenAi => (
            "openai",
            "/models",
            super::openai::request_headers(endpoint.api_key.as_ref()),
        ),
        ProbeKind::Anthropic => (
            "anthropic",
            "/v1/models",
            super::anthropic::request_headers(endpoint.api_key.as_ref()),
        ),
    };
    let fail = |failure: HttpFailure| {
        AgentError::Http(
            failure
                .for_provider(provider)
                .redacted(endpoint.api_key.as_ref()),
        )
    };
    let headers = headers.map_err(fail)?;
    let client = build_client(&endpoint.limits)
        .map_err(|message| fail(HttpFailure::setup(provider, message)))?;
    let url = endpoint.url(path);
    let request = client.get(&url).headers(headers);
    let response = send_within(request, &url, &endpoint.limits)
        .await
        .map_err(fail)?;
    let request_id = request_id(response.headers());
    let status = response.status();
    if !status.is_success() {
        let mut failure = failure_from_response(provider, response, &endpoint.limits).await;
        failure.request_id = request_id;
        return Err(fail(failure));
    }
    let body = read_capped(response, error_body_wait(&endpoint.limits)).await;
    let models = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|value| value.get("data")?.as_array().map(Vec::len));
    Ok(match models {
        Some(1) => format!("answers (HTTP {}, 1 model)", status.as_u16()),
        Some(count) => format!("answers (HTTP {}, {count} models)", status.as_u16()),
        None => format!("answers (HTTP {})", status.as_u16()),
    })
}
