//! The transport shared by the HTTP providers (`openai`, `anthropic`).
//!
//! Responsible for: the secret [`ApiKey`], the [`Endpoint`] and its
//! [`HttpLimits`], building the HTTP clients, sending a streaming request
//! and supervising it the way the official SDKs do (retrying 408, 409, 429
//! and 5xx with jittered exponential backoff, honouring `retry-after-ms` and
//! `retry-after`, retrying connection failures that happened before any byte
//! of the body arrived), the idle timeout, the cap on one buffered SSE event
//! and on the bytes of one answer's stream ([`MAX_ANSWER_STREAM_BYTES`]),
//! turning provider error bodies into [`HttpFailure`]s, and the pieces the
//! `doctor` reachability probe ([`super::probe`]) sends its request with.
//! Reading one answer's body (byte supervision, SSE framing, feeding the
//! decoder, and the same over recorded bytes) is its `stream` submodule;
//! the connection answers stream on, read once per frame rather than at
//! every arrival, is [`paced`].
//!
//! Not responsible for: what the events of a stream mean (each provider's
//! [`SseDecoder`] does that, as a pure state machine), timing out a whole call
//! or retrying a call that failed part-way (the engine and protocol do that),
//! or choosing models and keys (configuration does). It knows no provider:
//! the providers and the probe use it, never the other way round.
//!
//! A stream that broke after its first byte is never retried here: the text
//! already sent to the pane belongs to a failed attempt, and only the engine
//! may start a new one.

use std::error::Error as StdError;
use std::fmt;
use std::sync::{Arc, Once, OnceLock};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use futures::StreamExt;
use futures::future::BoxFuture;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};

use super::{AgentError, AgentInfo, CallOutput, EventSender, StreamEvent};

pub mod paced;
mod stream;

use paced::{PacedClient, PostError};
use stream::{StreamFailure, pump_events};

pub use stream::{
    EventTooLarge, RecordedCall, SseEventSizeGuard, decode_recorded, decode_recorded_within,
};

/// Default time allowed to open a TCP (and TLS) connection, in milliseconds.
pub const DEFAULT_CONNECT_TIMEOUT_MS: u64 = 10_000;
/// Longest wait for the rest of a failure's body (a small JSON error), when
/// no idle limit is configured.
pub const ERROR_BODY_WAIT_MS: u64 = 30_000;
/// Default number of transport retries after the first attempt.
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// Default wait before the first transport retry, in milliseconds.
pub const DEFAULT_BACKOFF_INITIAL_MS: u64 = 500;
/// Default longest wait between two transport retries, in milliseconds.
pub const DEFAULT_BACKOFF_MAX_MS: u64 = 8_000;
/// Default longest `retry-after` that is honoured, in milliseconds.
pub const DEFAULT_RETRY_AFTER_CAP_MS: u64 = 60_000;

/// Largest single SSE event accepted, in bytes (field names and values,
/// line breaks not counted). A bigger one fails the call instead of growing
/// a buffer without bound.
pub const MAX_SSE_EVENT_BYTES: usize = 1024 * 1024;
/// Most bytes of one answer's stream, in bytes: everything received on the
/// wire (SSE framing, JSON, keep-alive comments, reasoning), not only the
/// answer's text. A stream that goes on past it fails the call instead of
/// filling the journal and memory. At the 200 to 300 bytes an OpenAI-style
/// chunk takes per token, it leaves room for well over 200,000 tokens; the
/// `command` provider's cap, on text alone, is
/// [`super::command::MAX_ANSWER_BYTES`].
pub const MAX_ANSWER_STREAM_BYTES: usize = 64 * 1024 * 1024;
/// Most bytes of a non-streaming error body read to find its message.
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;
/// Longest provider message kept in an error, in characters.
const MAX_ERROR_MESSAGE_CHARS: usize = 400;
/// Longest excerpt of a malformed chunk quoted in an error, in characters.
pub(crate) const MAX_CHUNK_EXCERPT_CHARS: usize = 120;
/// Share of a backoff delay that jitter may remove (0.25: the delay lands
/// between 75 % and 100 % of the exponential value).
const BACKOFF_JITTER_FRACTION: f64 = 0.25;

/// What a secret looks like wherever it could be printed.
const REDACTED: &str = "***";

/// An API key. It never appears in `Debug`, `Display`, logs or error text,
/// and it cannot be serialised.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(value: String) -> Self {
        ApiKey(value)
    }

    /// The key in environment variable `var`, if it is set and not blank.
    pub fn from_env(var: &str) -> Option<Self> {
        std::env::var(var)
            .ok()
            .map(|value| value.trim().to_string())
            .filter(|value| !value.is_empty())
            .map(ApiKey)
    }

    /// The secret itself, for a request header and nothing else.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// A header value holding `prefix` + the key, marked sensitive so that
    /// the HTTP stack never prints it.
    pub(crate) fn header_value(&self, prefix: &str) -> Result<HeaderValue, HttpFailure> {
        let mut value =
            HeaderValue::from_str(&format!("{prefix}{}", self.expose())).map_err(|_| {
                HttpFailure::setup(
                    "-",
                    "the API key contains characters that cannot be sent in an HTTP header",
                )
            })?;
        value.set_sensitive(true);
        Ok(value)
    }
}

/// The headers every provider's request starts with: a JSON body, and an
/// answer streamed as server-sent events.
pub(crate) fn json_stream_headers() -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
    headers
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({REDACTED})")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKey({REDACTED})")
    }
}

/// Timeouts and retry policy of one endpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpLimits {
    /// Time allowed to open a connection.
    pub connect_timeout: Duration,
    /// Longest silence before the response headers or mid-stream; a longer
    /// one fails the call with "no data for N s".
    pub idle_timeout: Option<Duration>,
    /// Transport retries after the first attempt.
    pub max_retries: u32,
    /// Wait before the first retry; doubled for each further retry, jittered.
    pub backoff_initial: Duration,
    /// Longest wait between two retries computed by backoff.
    pub backoff_max: Duration,
    /// Longest `retry-after` honoured; a longer one is cut to this.
    pub retry_after_cap: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            connect_timeout: Duration::from_millis(DEFAULT_CONNECT_TIMEOUT_MS),
            // None: a reasoning model may think for minutes before its first
            // token; the call's deadline bounds the wait.
            idle_timeout: None,
            max_retries: DEFAULT_MAX_RETRIES,
            backoff_initial: Duration::from_millis(DEFAULT_BACKOFF_INITIAL_MS),
            backoff_max: Duration::from_millis(DEFAULT_BACKOFF_MAX_MS),
            retry_after_cap: Duration::from_millis(DEFAULT_RETRY_AFTER_CAP_MS),
        }
    }
}

/// Where a provider lives and how to talk to it.
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    /// Absent for local servers that need none.
    pub api_key: Option<ApiKey>,
    pub limits: HttpLimits,
}

impl Endpoint {
    /// `base_url` joined with `path` (which starts with `/`).
    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url.trim_end_matches('/'))
    }
}

/// What went wrong in an HTTP provider call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HttpFailureKind {
    /// The provider answered with a non-success status.
    Status,
    /// No connection could be made, or it broke before the response.
    Connect,
    /// Nothing arrived for longer than the idle timeout.
    Idle,
    /// The response stream broke, carried an error, or made no sense.
    Stream,
    /// The request could not even be built (bad URL, bad key characters).
    Setup,
}

/// A failed HTTP provider call, with what the provider said about it.
///
/// The message never contains the API key: it is replaced by `***` even when
/// a server echoes it back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpFailure {
    /// `openai` or `anthropic`.
    pub provider: String,
    pub kind: HttpFailureKind,
    /// The HTTP status, when the provider answered with a failure status.
    pub status: Option<u16>,
    /// The provider's own error code or type: `invalid_api_key`,
    /// `overloaded_error`, ...
    pub error_type: Option<String>,
    pub message: String,
    /// The provider's request id (`x-request-id` / `request-id`), for support.
    pub request_id: Option<String>,
    /// HTTP attempts made, retries included.
    pub attempts: u32,
}

impl HttpFailure {
    fn new(provider: &str, kind: HttpFailureKind, message: impl Into<String>) -> Self {
        HttpFailure {
            provider: provider.to_string(),
            kind,
            status: None,
            error_type: None,
            message: message.into(),
            request_id: None,
            attempts: 1,
        }
    }

    pub(super) fn setup(provider: &str, message: impl Into<String>) -> Self {
        HttpFailure::new(provider, HttpFailureKind::Setup, message)
    }

    /// The same failure, attributed to `provider`.
    pub(crate) fn for_provider(mut self, provider: &str) -> Self {
        self.provider = provider.to_string();
        self
    }

    /// Replaces every occurrence of `key` in the texts of this failure.
    pub(super) fn redacted(mut self, key: Option<&ApiKey>) -> Self {
        if let Some(key) = key.map(ApiKey::expose).filter(|key| !key.is_empty()) {
            self.message = self.message.replace(key, REDACTED);
            self.error_type = self.error_type.map(|text| text.replace(key, REDACTED));
            self.request_id = self.request_id.map(|text| text.replace(key, REDACTED));
        }
        self
    }
}

impl fmt::Display for HttpFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.provider)?;
        if let Some(status) = self.status {
            write!(f, "HTTP {status} ")?;
        }
        if let Some(error_type) = &self.error_type {
            write!(f, "{error_type}: ")?;
        }
        f.write_str(&self.message)?;
        let mut notes = Vec::new();
        if let Some(request_id) = &self.request_id {
            notes.push(format!("request id {request_id}"));
        }
        if self.attempts > 1 {
            notes.push(format!("{} attempts", self.attempts));
        }
        if !notes.is_empty() {
            write!(f, " ({})", notes.join("; "))?;
        }
        Ok(())
    }
}

impl StdError for HttpFailure {}

/// Why a provider's stream state machine rejected its input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// The provider's error type when the stream carried an error event.
    pub error_type: Option<String>,
    pub message: String,
}

impl DecodeError {
    pub fn new(message: impl Into<String>) -> Self {
        DecodeError {
            error_type: None,
            message: message.into(),
        }
    }

    /// A malformed JSON chunk: the parser's complaint and the start of the chunk.
    pub(crate) fn malformed_json(error: &serde_json::Error, data: &str) -> Self {
        DecodeError::new(format!(
            "malformed JSON chunk ({error}): {}",
            excerpt(data, MAX_CHUNK_EXCERPT_CHARS)
        ))
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.error_type {
            Some(error_type) => write!(f, "{error_type}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// One SSE event as a decoder reads it, borrowed from the framing's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SseEvent<'a> {
    /// The event's type: `message` where the stream names none.
    pub event: &'a str,
    /// Its data lines, joined by `\n`.
    pub data: &'a str,
}

impl<'a> SseEvent<'a> {
    /// An event of no named type (`message`).
    pub fn message(data: &'a str) -> Self {
        SseEvent {
            event: "message",
            data,
        }
    }
}

/// What a decoder gives to show, a read's worth at a time: the text pieces
/// of one read's events joined into one, and the reasoning pieces too, so
/// that a read of dozens of small events costs one piece downstream, not
/// one each.
#[derive(Debug, Default)]
pub struct Shown(Vec<StreamEvent>);

impl Shown {
    /// A piece of the answer.
    pub fn text(&mut self, piece: &str) {
        match self.0.last_mut() {
            Some(StreamEvent::Text(text)) => text.push_str(piece),
            _ => self.0.push(StreamEvent::Text(piece.to_owned())),
        }
    }

    /// A piece of reasoning.
    pub fn reasoning(&mut self, piece: &str) {
        match self.0.last_mut() {
            Some(StreamEvent::Reasoning(text)) => text.push_str(piece),
            _ => self.0.push(StreamEvent::Reasoning(piece.to_owned())),
        }
    }

    /// Takes what was given so far, in order.
    pub fn take(&mut self) -> std::vec::Drain<'_, StreamEvent> {
        self.0.drain(..)
    }
}

/// A decoder fed one event on its own, for tests: what it gives to show.
#[cfg(test)]
pub(crate) trait FeedOne {
    fn feed_one(&mut self, event: SseEvent<'_>) -> Result<Vec<StreamEvent>, DecodeError>;
}

#[cfg(test)]
impl<D: SseDecoder> FeedOne for D {
    fn feed_one(&mut self, event: SseEvent<'_>) -> Result<Vec<StreamEvent>, DecodeError> {
        let mut shown = Shown::default();
        self.feed(event, &mut shown)?;
        Ok(shown.take().collect())
    }
}

/// One provider's streaming format as a pure, incremental state machine: SSE
/// events in, display events out, the whole answer at the end. No I/O, no
/// clock; the transport drives it.
pub trait SseDecoder: Send {
    /// Takes the next SSE event, giving `shown` what to show right away.
    fn feed(&mut self, event: SseEvent<'_>, shown: &mut Shown) -> Result<(), DecodeError>;

    /// True once the stream announced its end (`[DONE]`, `message_stop`);
    /// nothing after that is read.
    fn is_complete(&self) -> bool;

    /// The answer, once the byte stream has ended (or [`Self::is_complete`]).
    fn finish(self) -> Result<CallOutput, DecodeError>;
}

/// Whether a status is worth another attempt (the official SDKs' list: 408
/// request timeout, 409 lock conflict, 429 rate limit, every 5xx including
/// Anthropic's 529 "overloaded").
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || (500..=599).contains(&status)
}

/// The provider's own retry hint: `x-should-retry: true|false` overrides the
/// status rule.
fn should_retry(status: u16, headers: &HeaderMap) -> bool {
    match header_text(headers, "x-should-retry") {
        Some("true") => true,
        Some("false") => false,
        _ => is_retryable_status(status),
    }
}

/// A URL as errors show it: without `user:password@` and without the query,
/// where a proxy or gateway may carry a credential.
pub fn shown_url(url: &str) -> String {
    let without_query = url.split(['?', '#']).next().unwrap_or(url);
    match without_query.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let host = authority.rsplit('@').next().unwrap_or(authority);
            let hidden = if host.len() < authority.len() {
                "***@"
            } else {
                ""
            };
            format!("{scheme}://{hidden}{host}{path}")
        }
        None => without_query.to_string(),
    }
}

/// The wait a failed response asks for: `retry-after-ms` (milliseconds),
/// else `retry-after` (seconds, or an HTTP date compared with `now`).
/// Negative, unparseable or past values are ignored.
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    if let Some(millis) = header_text(headers, "retry-after-ms")
        .and_then(|text| text.trim().parse::<f64>().ok())
        .filter(|millis| millis.is_finite() && *millis >= 0.0)
    {
        // A value too large for a Duration is as good as "very long": the
        // caller caps it at retry_after_cap.
        return Some(Duration::try_from_secs_f64(millis / 1000.0).unwrap_or(Duration::MAX));
    }
    let text = header_text(headers, "retry-after")?.trim();
    if let Ok(seconds) = text.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0)
            .then(|| Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX));
    }
    let date = chrono::DateTime::parse_from_rfc2822(text).ok()?;
    SystemTime::from(date).duration_since(now).ok()
}

/// How long to wait before retry number `retry` (1-based).
///
/// A provider's `retry_after` wins, cut to `limits.retry_after_cap`.
/// Otherwise `backoff_initial` doubles per retry up to `backoff_max`, and
/// `jitter_unit` (uniform in `[0, 1)`) removes up to a quarter of it so that
/// many clients do not retry in step.
pub fn retry_delay(
    retry: u32,
    limits: &HttpLimits,
    retry_after: Option<Duration>,
    jitter_unit: f64,
) -> Duration {
    if let Some(wait) = retry_after {
        return wait.min(limits.retry_after_cap);
    }
    let doublings = retry.saturating_sub(1).min(31);
    let exponential = limits
        .backoff_initial
        .saturating_mul(1u32 << doublings)
        .min(limits.backoff_max);
    let keep = 1.0 - BACKOFF_JITTER_FRACTION * jitter_unit.clamp(0.0, 1.0);
    exponential.mul_f64(keep)
}

/// The HTTP side of one provider agent: its endpoint and its own client.
#[derive(Debug)]
pub(crate) struct Transport {
    provider: &'static str,
    endpoint: Endpoint,
    client: Result<StreamClient, HttpFailure>,
}

impl Transport {
    pub(crate) fn new(provider: &'static str, endpoint: Endpoint) -> Self {
        let client = StreamClient::new(&endpoint).map_err(|message| {
            HttpFailure::setup(provider, format!("cannot build the HTTP client: {message}"))
        });
        Transport {
            provider,
            endpoint,
            client,
        }
    }

    /// What an agent answering with `model` through this transport is.
    pub(crate) fn agent_info(&self, model: &str) -> AgentInfo {
        AgentInfo {
            provider: self.provider.to_string(),
            model: model.to_string(),
        }
    }

    fn fail(&self, failure: HttpFailure) -> AgentError {
        AgentError::Http(failure.redacted(self.endpoint.api_key.as_ref()))
    }

    /// A provider agent's call: [`stream_call`](Self::stream_call) with the
    /// headers `headers` makes from the endpoint's key (failing to make them
    /// is the provider's error).
    pub(crate) fn call<'a, D: SseDecoder + 'a>(
        &'a self,
        path: &'static str,
        headers: fn(Option<&ApiKey>) -> Result<HeaderMap, HttpFailure>,
        body: Vec<u8>,
        new_decoder: fn() -> D,
        events: EventSender,
    ) -> BoxFuture<'a, Result<CallOutput, AgentError>> {
        Box::pin(async move {
            let headers = headers(self.endpoint.api_key.as_ref())
                .map_err(|failure| AgentError::Http(failure.for_provider(self.provider)))?;
            self.stream_call(path, headers, body, new_decoder, &events)
                .await
        })
    }

    /// POSTs `body` to `path` and decodes the streamed answer, retrying what
    /// the transport may retry.
    pub(crate) async fn stream_call<D: SseDecoder>(
        &self,
        path: &str,
        headers: HeaderMap,
        body: Vec<u8>,
        new_decoder: impl Fn() -> D,
        events: &EventSender,
    ) -> Result<CallOutput, AgentError> {
        let client = self
            .client
            .as_ref()
            .map_err(|failure| self.fail(failure.clone()))?;
        let limits = &self.endpoint.limits;
        let url = self.endpoint.url(path);
        let body = Bytes::from(body);
        let provider = self.provider;
        let mut attempts = 0;
        loop {
            attempts += 1;
            let may_retry = attempts <= limits.max_retries;
            let with_context = |mut failure: HttpFailure, request_id: Option<String>| {
                failure.attempts = attempts;
                failure.request_id = request_id;
                self.fail(failure)
            };
            let sent = client.post(&url, &headers, body.clone(), limits).await;
            let response = match sent.map_err(|failure| failure.for_provider(provider)) {
                Ok(response) => response,
                Err(failure) if may_retry && failure.kind == HttpFailureKind::Connect => {
                    let failure = failure.redacted(self.endpoint.api_key.as_ref());
                    tracing::warn!(attempts, %failure, "retrying after a connection failure");
                    let delay = retry_delay(attempts, limits, None, fastrand::f64());
                    announce_retry(events, attempts, limits, failure.to_string(), delay);
                    tokio::time::sleep(delay).await;
                    continue;
                }
                Err(failure) => return Err(with_context(failure, None)),
            };
            let request_id = request_id(response.headers());
            let status = response.status().as_u16();
            if !response.status().is_success() {
                let retry = should_retry(status, response.headers());
                let wait = retry_after(response.headers(), SystemTime::now());
                let failure = failure_from_response(provider, response, limits).await;
                if retry && may_retry {
                    let failure = failure.redacted(self.endpoint.api_key.as_ref());
                    tracing::warn!(attempts, %failure, "retrying after a failure status");
                    let delay = retry_delay(attempts, limits, wait, fastrand::f64());
                    announce_retry(events, attempts, limits, failure.to_string(), delay);
                    tokio::time::sleep(delay).await;
                    continue;
                }
                return Err(with_context(failure, request_id));
            }
            if is_json(response.headers()) {
                let failure = failure_from_json_answer(provider, response, limits).await;
                return Err(with_context(failure, request_id));
            }
            let mut decoder = new_decoder();
            let pumped = pump_events(
                response.bytes_stream().boxed(),
                limits.idle_timeout,
                MAX_ANSWER_STREAM_BYTES,
                &mut decoder,
                events,
            )
            .await;
            match pumped {
                Err(failure) if may_retry && failure.retryable() => {
                    tracing::warn!(
                        provider,
                        attempts,
                        "retrying: the body broke before its first byte"
                    );
                    let delay = retry_delay(attempts, limits, None, fastrand::f64());
                    let reason = failure.into_http_failure(provider).to_string();
                    announce_retry(events, attempts, limits, reason, delay);
                    tokio::time::sleep(delay).await;
                }
                Err(failure) => {
                    return Err(with_context(
                        failure.into_http_failure(provider),
                        request_id,
                    ));
                }
                Ok(()) => {
                    return decoder.finish().map_err(|error| {
                        with_context(
                            StreamFailure::Decode(error).into_http_failure(provider),
                            request_id,
                        )
                    });
                }
            }
        }
    }
}

/// Tells the engine, for the transcript, that attempt `attempts` failed
/// with `reason` and the request goes again after `wait`.
fn announce_retry(
    events: &EventSender,
    attempts: u32,
    limits: &HttpLimits,
    reason: String,
    wait: Duration,
) {
    events.send(StreamEvent::Retrying {
        retry: attempts,
        of: limits.max_retries,
        reason,
        wait,
    });
}

/// The client a transport streams answers with: the paced one
/// ([`paced`]) unless the endpoint is reached through a proxy or the frame
/// interval is 0, then reqwest's, which reads at every arrival.
#[derive(Debug)]
enum StreamClient {
    Paced(Box<PacedClient>),
    Plain(reqwest::Client),
}

impl StreamClient {
    fn new(endpoint: &Endpoint) -> Result<StreamClient, String> {
        if paced::frame_interval().is_zero() || through_proxy(&endpoint.base_url) {
            return build_client(&endpoint.limits).map(StreamClient::Plain);
        }
        install_crypto_provider();
        Ok(StreamClient::Paced(Box::new(PacedClient::new(
            tls_config()?,
            endpoint.limits.connect_timeout,
        ))))
    }

    /// POSTs `body` to `url`, allowing the connect timeout plus the idle
    /// timeout for the response headers.
    async fn post(
        &self,
        url: &str,
        headers: &HeaderMap,
        body: Bytes,
        limits: &HttpLimits,
    ) -> Result<reqwest::Response, HttpFailure> {
        match self {
            StreamClient::Plain(client) => {
                let request = client.post(url).headers(headers.clone()).body(body);
                send_within(request, url, limits).await
            }
            StreamClient::Paced(client) => {
                let sending = async {
                    client
                        .post(url, headers, body)
                        .await
                        .map_err(|error| paced_failure(&error, url, limits))
                };
                headers_within(limits, sending).await
            }
        }
    }
}

/// Whether the proxy settings in the environment (`HTTPS_PROXY`,
/// `NO_PROXY`…) send requests to `url` through a proxy.
fn through_proxy(url: &str) -> bool {
    let Ok(uri) = url.parse::<http::Uri>() else {
        return false;
    };
    hyper_util::client::proxy::matcher::Matcher::from_env()
        .intercept(&uri)
        .is_some()
}

/// Sends `request`, allowing the connect timeout plus the idle timeout for
/// the response headers.
pub(super) async fn send_within(
    request: reqwest::RequestBuilder,
    url: &str,
    limits: &HttpLimits,
) -> Result<reqwest::Response, HttpFailure> {
    let sending = async {
        request
            .send()
            .await
            .map_err(|error| send_failure(error, url, limits))
    };
    headers_within(limits, sending).await
}

/// `sending`, failed when its response headers have not come within the
/// connect timeout plus the idle timeout (with no idle limit, the call's
/// deadline is the bound).
async fn headers_within(
    limits: &HttpLimits,
    sending: impl Future<Output = Result<reqwest::Response, HttpFailure>>,
) -> Result<reqwest::Response, HttpFailure> {
    let Some(idle) = limits.idle_timeout else {
        return sending.await;
    };
    let headers_timeout = limits.connect_timeout.saturating_add(idle);
    tokio::time::timeout(headers_timeout, sending)
        .await
        .unwrap_or_else(|_| {
            Err(HttpFailure::new(
                "-",
                HttpFailureKind::Idle,
                format!("no response headers within {}", seconds(headers_timeout)),
            ))
        })
}

/// Why a request got no response, from either client.
enum Unsent<'e> {
    /// The URL (or a header) could not make a request.
    InvalidUrl(&'e dyn StdError),
    /// No connection within the connect timeout.
    ConnectTimeout,
    /// Connecting or sending failed otherwise.
    Unreachable(&'e dyn StdError),
}

fn send_failure(error: reqwest::Error, url: &str, limits: &HttpLimits) -> HttpFailure {
    let error = error.without_url();
    let unsent = if error.is_builder() {
        Unsent::InvalidUrl(&error)
    } else if error.is_connect() && error.is_timeout() {
        Unsent::ConnectTimeout
    } else {
        Unsent::Unreachable(&error)
    };
    unsent_failure(unsent, url, limits)
}

fn paced_failure(error: &PostError, url: &str, limits: &HttpLimits) -> HttpFailure {
    let unsent = match error {
        PostError::Url(_) => Unsent::InvalidUrl(error),
        _ if error.is_connect_timeout() => Unsent::ConnectTimeout,
        PostError::Send(_) => Unsent::Unreachable(error),
    };
    unsent_failure(unsent, url, limits)
}

/// The failure a request that got no response is reported as.
fn unsent_failure(unsent: Unsent<'_>, url: &str, limits: &HttpLimits) -> HttpFailure {
    let url = &shown_url(url);
    let connect = |message: String| HttpFailure::new("-", HttpFailureKind::Connect, message);
    match unsent {
        Unsent::InvalidUrl(error) => {
            HttpFailure::setup("-", format!("invalid URL {url}: {}", error_chain(error)))
        }
        Unsent::ConnectTimeout => connect(format!(
            "cannot connect to {url} within {}",
            seconds(limits.connect_timeout)
        )),
        Unsent::Unreachable(error) => {
            connect(format!("cannot reach {url}: {}", error_chain(error)))
        }
    }
}

/// A failure status turned into an error with the provider's own message.
pub(super) async fn failure_from_response(
    provider: &str,
    response: reqwest::Response,
    limits: &HttpLimits,
) -> HttpFailure {
    let status = response.status();
    let body = read_capped(response, error_body_wait(limits)).await;
    let (error_type, message) =
        parse_error_body(&body).unwrap_or_else(|| (None, fallback_message(&body, status)));
    HttpFailure {
        status: Some(status.as_u16()),
        error_type,
        message,
        ..HttpFailure::new(provider, HttpFailureKind::Status, "")
    }
}

/// A success status whose body is JSON instead of an event stream: some
/// servers report errors this way, others ignored `stream: true`.
async fn failure_from_json_answer(
    provider: &str,
    response: reqwest::Response,
    limits: &HttpLimits,
) -> HttpFailure {
    let body = read_capped(response, error_body_wait(limits)).await;
    let (error_type, message) = parse_error_body(&body).unwrap_or_else(|| {
        (
            None,
            "the provider answered with JSON instead of an event stream".to_string(),
        )
    });
    HttpFailure {
        error_type,
        message,
        ..HttpFailure::new(provider, HttpFailureKind::Stream, "")
    }
}

fn fallback_message(body: &[u8], status: reqwest::StatusCode) -> String {
    let text = String::from_utf8_lossy(body);
    let text = one_line(&text);
    if text.is_empty() {
        status
            .canonical_reason()
            .unwrap_or("no message")
            .to_string()
    } else {
        excerpt(&text, MAX_ERROR_MESSAGE_CHARS)
    }
}

/// Reads at most [`MAX_ERROR_BODY_BYTES`] of a body, giving up quietly on
/// silence or a broken connection.
/// How long a failure's body may take between two pieces.
pub(super) fn error_body_wait(limits: &HttpLimits) -> Duration {
    limits
        .idle_timeout
        .unwrap_or(Duration::from_millis(ERROR_BODY_WAIT_MS))
}

pub(super) async fn read_capped(response: reqwest::Response, idle_timeout: Duration) -> Vec<u8> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while body.len() < MAX_ERROR_BODY_BYTES {
        match tokio::time::timeout(idle_timeout, stream.next()).await {
            Ok(Some(Ok(chunk))) => body.extend_from_slice(&chunk),
            _ => break,
        }
    }
    body.truncate(MAX_ERROR_BODY_BYTES);
    body
}

/// The error type and message of an error body in any of the shapes
/// providers use: `{"error":{"message","type","code"}}` (OpenAI and most
/// compatible servers), `{"type":"error","error":{"type","message"}}`
/// (Anthropic), `{"error":"text"}`, `{"message":"text"}`, `{"detail":"text"}`.
pub fn parse_error_body(body: &[u8]) -> Option<(Option<String>, String)> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    error_in_value(&value)
}

/// The error type and message inside a JSON value, if it is an error.
pub(crate) fn error_in_value(value: &serde_json::Value) -> Option<(Option<String>, String)> {
    let text = |value: Option<&serde_json::Value>| {
        value
            .and_then(serde_json::Value::as_str)
            .map(|text| excerpt(&one_line(text), MAX_ERROR_MESSAGE_CHARS))
            .filter(|text| !text.is_empty())
    };
    match value.get("error") {
        Some(error @ serde_json::Value::Object(_)) => {
            let error_type = text(error.get("code")).or_else(|| text(error.get("type")));
            let message = text(error.get("message")).unwrap_or_else(|| "no message".to_string());
            Some((error_type, message))
        }
        Some(serde_json::Value::String(message)) => Some((None, one_line(message))),
        _ => {
            let message = text(value.get("message")).or_else(|| text(value.get("detail")))?;
            Some((
                text(value.get("type")).filter(|kind| kind != "error"),
                message,
            ))
        }
    }
}

pub(super) fn request_id(headers: &HeaderMap) -> Option<String> {
    ["x-request-id", "request-id"]
        .into_iter()
        .find_map(|name| header_text(headers, name))
        .map(|id| excerpt(id, MAX_CHUNK_EXCERPT_CHARS))
}

fn is_json(headers: &HeaderMap) -> bool {
    header_text(headers, "content-type").is_some_and(|kind| kind.contains("json"))
}

fn header_text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// Makes sure rustls has its crypto provider (ring) before any client exists.
fn install_crypto_provider() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// The TLS set-up every HTTP client of this process shares: the platform's
/// certificate verifier (which reads the system's root certificates, so it
/// is built once, not once per agent) with HTTP/2 and HTTP/1.1 offered, as
/// reqwest would configure it itself.
fn tls_config() -> Result<rustls::ClientConfig, String> {
    static CONFIG: OnceLock<Result<rustls::ClientConfig, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let verifier = rustls_platform_verifier::Verifier::new(provider.clone())
                .map_err(|error| format!("cannot read the system's certificates: {error}"))?;
            let mut config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(|error| error.to_string())?
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(verifier))
                .with_no_client_auth();
            config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
            Ok(config)
        })
        .clone()
}

pub(super) fn build_client(limits: &HttpLimits) -> Result<reqwest::Client, String> {
    install_crypto_provider();
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls_config()?)
        .connect_timeout(limits.connect_timeout)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("quorum/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|error| error_chain(&error))
}

/// An error and its sources, joined with `: `, without repeats.
fn error_chain(error: &dyn StdError) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut current = Some(error);
    while let Some(error) = current {
        let text = error.to_string();
        if !parts.iter().any(|part| part.contains(&text)) {
            parts.push(text);
        }
        current = error.source();
    }
    parts.join(": ")
}

/// `text` with line breaks and runs of whitespace collapsed to single spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max_chars` characters of `text`, with `…` when cut.
pub(crate) fn excerpt(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// `120 s`, or `0.3 s` below ten seconds when not whole.
fn seconds(duration: Duration) -> String {
    let whole = duration.as_secs();
    if duration.subsec_millis() == 0 || whole >= 10 {
        format!("{whole} s")
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_client_shares_one_tls_set_up_offering_http2_and_http1() {
        let config = tls_config().expect("the platform's verifier builds");
        assert_eq!(
            config.alpn_protocols,
            [b"h2".to_vec(), b"http/1.1".to_vec()]
        );
        let again = tls_config().unwrap();
        assert!(
            Arc::ptr_eq(config.crypto_provider(), again.crypto_provider()),
            "built once"
        );
        build_client(&limits()).expect("a client builds on it");
    }

    fn limits() -> HttpLimits {
        HttpLimits {
            backoff_initial: Duration::from_millis(500),
            backoff_max: Duration::from_secs(8),
            retry_after_cap: Duration::from_secs(60),
            ..HttpLimits::default()
        }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn backoff_doubles_per_retry_without_jitter() {
        let limits = limits();
        let delays: Vec<_> = (1..=4)
            .map(|retry| retry_delay(retry, &limits, None, 0.0))
            .collect();
        assert_eq!(
            delays,
            [500, 1000, 2000, 4000].map(Duration::from_millis).to_vec()
        );
    }

    #[test]
    fn backoff_stops_growing_at_its_maximum() {
        let limits = limits();
        assert_eq!(retry_delay(5, &limits, None, 0.0), Duration::from_secs(8));
        assert_eq!(retry_delay(40, &limits, None, 0.0), Duration::from_secs(8));
        assert_eq!(
            retry_delay(u32::MAX, &limits, None, 0.0),
            Duration::from_secs(8)
        );
    }

    #[test]
    fn jitter_removes_at_most_a_quarter() {
        let limits = limits();
        assert_eq!(
            retry_delay(2, &limits, None, 1.0),
            Duration::from_millis(750)
        );
        assert_eq!(
            retry_delay(2, &limits, None, 0.5),
            Duration::from_millis(875)
        );
        for step in 0..100 {
            let delay = retry_delay(3, &limits, None, f64::from(step) / 100.0);
            assert!(delay <= Duration::from_secs(2) && delay >= Duration::from_millis(1500));
        }
    }

    #[test]
    fn retry_after_wins_over_backoff_and_is_capped() {
        let limits = limits();
        let asked = Some(Duration::from_secs(3));
        assert_eq!(retry_delay(1, &limits, asked, 0.9), Duration::from_secs(3));
        let too_long = Some(Duration::from_secs(3600));
        assert_eq!(
            retry_delay(1, &limits, too_long, 0.0),
            Duration::from_secs(60)
        );
        assert_eq!(
            retry_delay(1, &limits, Some(Duration::ZERO), 0.0),
            Duration::ZERO
        );
    }

    #[test]
    fn retry_after_reads_milliseconds_first() {
        let now = SystemTime::UNIX_EPOCH;
        let both = headers(&[("retry-after-ms", "250"), ("retry-after", "7")]);
        assert_eq!(retry_after(&both, now), Some(Duration::from_millis(250)));
        let seconds = headers(&[("retry-after", "7")]);
        assert_eq!(retry_after(&seconds, now), Some(Duration::from_secs(7)));
        let fractional = headers(&[("retry-after", "1.5")]);
        assert_eq!(
            retry_after(&fractional, now),
            Some(Duration::from_millis(1500))
        );
    }

    #[test]
    fn urls_in_errors_hide_credentials_and_queries() {
        assert_eq!(
            shown_url("https://user:secret@gw.example/v1/chat/completions?key=abc"),
            "https://***@gw.example/v1/chat/completions"
        );
        assert_eq!(
            shown_url("http://127.0.0.1:11434/v1/chat/completions"),
            "http://127.0.0.1:11434/v1/chat/completions"
        );
        assert_eq!(shown_url("localhost:11434/v1"), "localhost:11434/v1");
    }

    /// A server cannot crash a call with an absurd wait: it is read as
    /// "very long" and capped like any other.
    #[test]
    fn an_absurd_retry_after_is_capped_not_a_panic() {
        let now = SystemTime::UNIX_EPOCH;
        for (name, value) in [
            ("retry-after", "99999999999999999999"),
            ("retry-after-ms", "1e300"),
        ] {
            let wait = retry_after(&headers(&[(name, value)]), now);
            assert_eq!(wait, Some(Duration::MAX), "{name}: {value}");
            assert_eq!(
                retry_delay(1, &limits(), wait, 0.5),
                limits().retry_after_cap
            );
        }
    }

    #[test]
    fn retry_after_reads_an_http_date() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_470);
        let date = headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")]);
        assert_eq!(retry_after(&date, now), Some(Duration::from_secs(10)));
        let later = now + Duration::from_secs(100);
        assert_eq!(retry_after(&date, later), None);
    }

    #[test]
    fn retry_after_ignores_nonsense() {
        let now = SystemTime::UNIX_EPOCH;
        for value in ["soon", "-5", "NaN", ""] {
            let map = headers(&[("retry-after", value)]);
            assert_eq!(retry_after(&map, now), None, "{value:?}");
        }
        assert_eq!(retry_after(&HeaderMap::new(), now), None);
        let bad_ms = headers(&[("retry-after-ms", "-1"), ("retry-after", "2")]);
        assert_eq!(retry_after(&bad_ms, now), Some(Duration::from_secs(2)));
    }

    #[test]
    fn retryable_statuses_follow_the_sdks() {
        for status in [408, 409, 429, 500, 502, 503, 504, 529] {
            assert!(is_retryable_status(status), "{status}");
        }
        for status in [200, 400, 401, 403, 404, 413, 422] {
            assert!(!is_retryable_status(status), "{status}");
        }
    }

    #[test]
    fn should_retry_header_overrides_the_status() {
        assert!(!should_retry(503, &headers(&[("x-should-retry", "false")])));
        assert!(should_retry(400, &headers(&[("x-should-retry", "true")])));
        assert!(should_retry(503, &headers(&[("x-should-retry", "maybe")])));
    }

    #[test]
    fn a_stream_past_its_byte_cap_fails_naming_the_cap() {
        let chunk = |text: &str| {
            format!(
                "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"{text}\"}}}}]}}\n\n"
            )
        };
        let one = chunk("word ");
        // Bytes count, text or not: keep-alive comments too.
        let endless =
            std::iter::repeat_n([one.clone(), ": keep-alive\n\n".to_string()], 10_000).flatten();
        let cap = 4 * 1024;
        let recorded =
            decode_recorded_within(super::super::openai::OpenAiStream::new(), endless, cap);
        let error = recorded.outcome.unwrap_err().to_string();
        assert_eq!(
            error,
            "recorded: the answer's stream passed 4 KiB, the most quorum reads for one answer \
             (MAX_ANSWER_STREAM_BYTES); the call was stopped"
        );
        let shown: usize = recorded
            .events
            .iter()
            .map(|event| match event {
                StreamEvent::Text(text) => text.len(),
                _ => 0,
            })
            .sum();
        assert!(shown > 0 && shown < cap, "{shown} bytes of text shown");
        // Up to the cap itself, a stream is read to its end.
        let whole = [chunk("all of it"), "data: [DONE]\n\n".to_string()];
        let exact: usize = whole.iter().map(String::len).sum();
        let recorded =
            decode_recorded_within(super::super::openai::OpenAiStream::new(), whole, exact);
        assert_eq!(recorded.outcome.unwrap().text, "all of it");
    }

    #[test]
    fn size_guard_resets_at_each_blank_line() {
        let mut guard = SseEventSizeGuard::new(10);
        assert!(guard.check(b"data: 1234\n\n").is_ok());
        assert!(guard.check(b"data: 1234\r\n\r\n").is_ok());
        assert!(guard.check(b"data: 1234\r\r").is_ok());
        assert!(guard.check(b"data: 1234\n").is_ok());
        assert_eq!(
            guard.check(b"x\n\n"),
            Err(EventTooLarge { limit: 10 }),
            "two lines of one event add up"
        );
    }

    #[test]
    fn size_guard_counts_runs_as_it_counted_bytes() {
        /// The guard as it was, one byte at a time: the result per chunk.
        fn by_byte(limit: usize, chunks: &[&[u8]]) -> Vec<bool> {
            let (mut bytes, mut at_line_start, mut after_cr) = (0, true, false);
            let mut failed = false;
            chunks
                .iter()
                .map(|chunk| {
                    for &byte in *chunk {
                        match byte {
                            b'\n' if after_cr => after_cr = false,
                            b'\n' | b'\r' => {
                                if at_line_start {
                                    bytes = 0;
                                }
                                at_line_start = true;
                                after_cr = byte == b'\r';
                            }
                            _ => {
                                at_line_start = false;
                                after_cr = false;
                                bytes += 1;
                                if bytes > limit {
                                    failed = true;
                                }
                            }
                        }
                        if failed {
                            break;
                        }
                    }
                    !failed
                })
                .collect()
        }
        let mut random = fastrand::Rng::with_seed(15);
        for _ in 0..2000 {
            let text: Vec<u8> = (0..random.usize(0..60))
                .map(|_| [b'a', b'b', b'\n', b'\r'][random.usize(0..4)])
                .collect();
            let mut chunks: Vec<&[u8]> = Vec::new();
            let mut rest = &text[..];
            while !rest.is_empty() {
                let (chunk, after) = rest.split_at(random.usize(1..=rest.len()));
                chunks.push(chunk);
                rest = after;
            }
            let mut guard = SseEventSizeGuard::new(5);
            let mut failed = false;
            let runs: Vec<bool> = chunks
                .iter()
                .map(|chunk| {
                    failed = failed || guard.check(chunk).is_err();
                    !failed
                })
                .collect();
            assert_eq!(
                runs,
                by_byte(5, &chunks),
                "{:?}",
                String::from_utf8_lossy(&text)
            );
        }
    }

    #[test]
    fn size_guard_sees_terminators_split_across_chunks() {
        let mut guard = SseEventSizeGuard::new(10);
        assert!(guard.check(b"data: 1234\r").is_ok());
        assert!(guard.check(b"\n").is_ok());
        assert!(guard.check(b"\r").is_ok());
        assert!(guard.check(b"\ndata: 1234").is_ok());
        assert!(guard.check(b"\n\n").is_ok());
        assert!(guard.check(b"data: 12345").is_err());
    }

    #[test]
    fn error_bodies_of_every_known_shape() {
        let openai = br#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#;
        assert_eq!(
            parse_error_body(openai),
            Some((
                Some("invalid_api_key".to_string()),
                "Incorrect API key provided".to_string()
            ))
        );
        let anthropic =
            br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert_eq!(
            parse_error_body(anthropic),
            Some((
                Some("overloaded_error".to_string()),
                "Overloaded".to_string()
            ))
        );
        assert_eq!(
            parse_error_body(br#"{"error":"model not found"}"#),
            Some((None, "model not found".to_string()))
        );
        assert_eq!(
            parse_error_body(br#"{"detail":"Not Found"}"#),
            Some((None, "Not Found".to_string()))
        );
        assert_eq!(parse_error_body(b"<html>bad gateway</html>"), None);
        assert_eq!(parse_error_body(br#"{"choices":[]}"#), None);
    }

    #[test]
    fn api_key_never_prints() {
        let key = ApiKey::new("sk-secret-123".to_string());
        assert_eq!(format!("{key:?}"), "ApiKey(***)");
        assert_eq!(key.to_string(), "ApiKey(***)");
        let endpoint = Endpoint {
            base_url: "http://127.0.0.1:1".to_string(),
            api_key: Some(key),
            limits: HttpLimits::default(),
        };
        assert!(!format!("{endpoint:?}").contains("sk-secret"));
    }

    #[test]
    fn failures_redact_an_echoed_key() {
        let key = ApiKey::new("sk-secret-123".to_string());
        let failure = HttpFailure {
            status: Some(401),
            ..HttpFailure::new(
                "openai",
                HttpFailureKind::Status,
                "bad key sk-secret-123 given",
            )
        }
        .redacted(Some(&key));
        assert_eq!(failure.to_string(), "openai: HTTP 401 bad key *** given");
    }

    #[test]
    fn failure_display_reads_like_a_sentence() {
        let failure = HttpFailure {
            status: Some(401),
            error_type: Some("invalid_api_key".to_string()),
            request_id: Some("req_123".to_string()),
            ..HttpFailure::new(
                "openai",
                HttpFailureKind::Status,
                "Incorrect API key provided",
            )
        };
        assert_eq!(
            failure.to_string(),
            "openai: HTTP 401 invalid_api_key: Incorrect API key provided (request id req_123)"
        );
        let retried = HttpFailure {
            attempts: 3,
            ..HttpFailure::new("anthropic", HttpFailureKind::Connect, "cannot reach it")
        };
        assert_eq!(
            retried.to_string(),
            "anthropic: cannot reach it (3 attempts)"
        );
    }

    #[test]
    fn durations_print_in_seconds() {
        assert_eq!(seconds(Duration::from_secs(120)), "120 s");
        assert_eq!(seconds(Duration::from_millis(300)), "0.3 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(seconds(Duration::from_millis(12_500)), "12 s");
    }

    #[test]
    fn excerpts_cut_on_characters() {
        assert_eq!(excerpt("héllo wörld", 4), "héll…");
        assert_eq!(excerpt("short", 10), "short");
    }
}
