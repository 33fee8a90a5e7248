//! An in-process provider server for the HTTP provider tests.
//!
//! It listens on 127.0.0.1 (a fresh port per test), answers
//! `/v1/chat/completions` (OpenAI), `/v1/messages` (Anthropic) and
//! `/v1/models` from a queue of scripted responses — status, headers, and
//! body frames streamed with `Body::from_stream`, with pauses, stalls and
//! cut connections — and records every request it receives. It stops when
//! dropped.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use futures::StreamExt;
use quorum::agent::{Agent, AgentError, CallOutput, CallRequest, StreamEvent};
use tokio::sync::{oneshot, watch};

/// One piece of a scripted response body.
#[derive(Clone, Debug)]
pub enum Frame {
    /// These bytes, sent as one chunk.
    Bytes(Vec<u8>),
    /// A pause before the next frame.
    Delay(Duration),
    /// The connection breaks: the body ends with an error, never properly.
    Cut,
    /// A `: keep-alive` comment every period, until the client goes away.
    KeepAliveForever(Duration),
    /// These bytes, sent `times` times over as fast as the client reads
    /// them: a stream that looks endless up to a bound a test chooses.
    Repeat { bytes: Vec<u8>, times: usize },
}

impl Frame {
    pub fn text(text: &str) -> Frame {
        Frame::Bytes(text.as_bytes().to_vec())
    }
}

/// What the server answers to one request.
#[derive(Clone, Debug)]
pub struct ScriptedResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// Wait before sending the status and headers.
    pub headers_delay: Duration,
    pub frames: Vec<Frame>,
}

impl ScriptedResponse {
    /// 200 with an event stream made of `frames`.
    pub fn stream(frames: Vec<Frame>) -> Self {
        ScriptedResponse {
            status: 200,
            headers: vec![(
                "content-type".to_string(),
                "text/event-stream; charset=utf-8".to_string(),
            )],
            headers_delay: Duration::ZERO,
            frames,
        }
    }

    /// 200 with an event stream of these bytes in one chunk.
    pub fn sse(body: impl AsRef<[u8]>) -> Self {
        ScriptedResponse::stream(vec![Frame::Bytes(body.as_ref().to_vec())])
    }

    /// `status` with a JSON body.
    pub fn json(status: u16, body: &str) -> Self {
        ScriptedResponse {
            status,
            headers: vec![("content-type".to_string(), "application/json".to_string())],
            headers_delay: Duration::ZERO,
            frames: vec![Frame::text(body)],
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    pub fn headers_delay(mut self, delay: Duration) -> Self {
        self.headers_delay = delay;
        self
    }
}

/// One request as the server received it.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// Lower-case names.
    pub headers: BTreeMap<String, String>,
    /// The JSON body, or `Null` when there was none.
    pub body: serde_json::Value,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

#[derive(Default)]
struct Shared {
    queue: Mutex<VecDeque<ScriptedResponse>>,
    requests: Mutex<Vec<RecordedRequest>>,
}

struct ServerState {
    shared: Arc<Shared>,
    abandoned_bodies: watch::Sender<usize>,
}

/// A running provider server; stopped when dropped.
pub struct ProviderServer {
    port: u16,
    shared: Arc<Shared>,
    abandoned_bodies: watch::Receiver<usize>,
    shutdown: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl ProviderServer {
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local address").port();
        let shared = Arc::new(Shared::default());
        let (abandoned_sender, abandoned_bodies) = watch::channel(0);
        let state = Arc::new(ServerState {
            shared: shared.clone(),
            abandoned_bodies: abandoned_sender,
        });
        let app = Router::new()
            .route("/v1/chat/completions", post(answer))
            .route("/v1/messages", post(answer))
            .route("/v1/models", get(answer))
            .with_state(state);
        let (shutdown, stop) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stop.await;
                })
                .await;
        });
        ProviderServer {
            port,
            shared,
            abandoned_bodies,
            shutdown: Some(shutdown),
            task,
        }
    }

    /// The base URL an OpenAI endpoint is configured with.
    pub fn openai_base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The base URL an Anthropic endpoint is configured with.
    pub fn anthropic_base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Queues the answer to the next request.
    pub fn push(&self, response: ScriptedResponse) {
        self.shared.queue.lock().unwrap().push_back(response);
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// Waits until `count` response bodies were dropped before their last
    /// frame: the client went away. `None` after `limit`.
    pub async fn wait_for_abandoned_bodies(&self, count: usize, limit: Duration) -> Option<()> {
        let mut receiver = self.abandoned_bodies.clone();
        tokio::time::timeout(limit, receiver.wait_for(|seen| *seen >= count))
            .await
            .ok()
            .and_then(Result::ok)
            .map(|_| ())
    }
}

impl Drop for ProviderServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        self.task.abort();
    }
}

async fn answer(State(state): State<Arc<ServerState>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let recorded = RecordedRequest {
        method: parts.method.to_string(),
        path: parts.uri.path().to_string(),
        headers: parts
            .headers
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_string(),
                    value.to_str().unwrap_or("<binary>").to_string(),
                )
            })
            .collect(),
        body: serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null),
    };
    state.shared.requests.lock().unwrap().push(recorded);
    let scripted = state.shared.queue.lock().unwrap().pop_front();
    let scripted = scripted.unwrap_or_else(|| {
        ScriptedResponse::json(
            400,
            r#"{"error":{"message":"provider_server: no scripted response left","type":"test_error"}}"#,
        )
    });
    tokio::time::sleep(scripted.headers_delay).await;
    let mut response = Response::new(body_of(scripted.frames, state.abandoned_bodies.clone()));
    *response.status_mut() = StatusCode::from_u16(scripted.status).expect("valid status");
    for (name, value) in scripted.headers {
        response.headers_mut().append(
            HeaderName::from_bytes(name.as_bytes()).expect("valid header name"),
            HeaderValue::from_str(&value).expect("valid header value"),
        );
    }
    response
}

/// Counts itself in `abandoned` when dropped before the body finished.
struct BodyState {
    frames: VecDeque<Frame>,
    finished: bool,
    abandoned: watch::Sender<usize>,
}

impl BodyState {
    /// The body ended as scripted; dropping it now is not an abandonment.
    fn mark_finished(&mut self) {
        self.finished = true;
    }
}

impl Drop for BodyState {
    fn drop(&mut self) {
        if !self.finished {
            self.abandoned.send_modify(|count| *count += 1);
        }
    }
}

fn body_of(frames: Vec<Frame>, abandoned: watch::Sender<usize>) -> Body {
    let state = BodyState {
        frames: frames.into(),
        finished: false,
        abandoned,
    };
    let stream = futures::stream::unfold(state, |mut state| async move {
        loop {
            let Some(frame) = state.frames.pop_front() else {
                state.mark_finished();
                return None;
            };
            match frame {
                Frame::Bytes(bytes) => return Some((Ok(Bytes::from(bytes)), state)),
                Frame::Delay(pause) => tokio::time::sleep(pause).await,
                Frame::Cut => {
                    state.mark_finished();
                    state.frames.clear();
                    let cut = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "cut");
                    return Some((Err(cut), state));
                }
                Frame::Repeat { bytes, times } => {
                    if times > 1 {
                        state.frames.push_front(Frame::Repeat {
                            bytes: bytes.clone(),
                            times: times - 1,
                        });
                    }
                    if times > 0 {
                        return Some((Ok(Bytes::from(bytes)), state));
                    }
                }
                Frame::KeepAliveForever(period) => {
                    tokio::time::sleep(period).await;
                    state.frames.push_front(Frame::KeepAliveForever(period));
                    return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), state));
                }
            }
        }
    });
    Body::from_stream(stream.boxed())
}

/// A call request for `prompt`, attempt 1.
/// Transport limits for tests: short backoffs, a few seconds of patience.
pub fn test_limits() -> quorum::agent::http::HttpLimits {
    quorum::agent::http::HttpLimits {
        connect_timeout: Duration::from_secs(2),
        idle_timeout: Some(Duration::from_secs(5)),
        max_retries: 2,
        backoff_initial: Duration::from_millis(10),
        backoff_max: Duration::from_millis(40),
        retry_after_cap: Duration::from_secs(5),
    }
}

/// The error text of a call that had to fail.
pub fn failure_text(outcome: Result<CallOutput, AgentError>) -> String {
    match outcome {
        Ok(output) => panic!("expected a failure, got {output:?}"),
        Err(error) => error.to_string(),
    }
}

/// `bytes` cut at `cuts` (taken modulo its length, in order) into chunks.
pub fn split_at(bytes: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
    let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut % (bytes.len() + 1)).collect();
    cuts.sort_unstable();
    let mut chunks = Vec::new();
    let mut start = 0;
    for cut in cuts.into_iter().chain([bytes.len()]) {
        chunks.push(bytes[start..cut].to_vec());
        start = cut;
    }
    chunks
}

pub fn call_request(prompt: &str) -> CallRequest {
    CallRequest {
        call_id: "proposer/proposal/r1/a1".to_string(),
        role: "proposer".to_string(),
        stage: "proposal".to_string(),
        round: 1,
        attempt: 1,
        prompt: prompt.to_string(),
    }
}

/// Runs one call to the end and returns what it showed and what it returned.
pub async fn run_call(
    agent: &dyn Agent,
    prompt: &str,
) -> (Vec<StreamEvent>, Result<CallOutput, AgentError>) {
    let (sender, mut receiver) = quorum::agent::events::channel();
    let outcome = agent.call(call_request(prompt), sender).await;
    let mut shown = Vec::new();
    while let Some(event) = receiver.try_recv() {
        shown.push(event);
    }
    (shown, outcome)
}

/// The text of every `Text` event, joined.
pub fn shown_text(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The text of every `Reasoning` event, joined.
pub fn shown_reasoning(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::Reasoning(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// A fixture from `tests/fixtures/streams/`.
pub fn stream_fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/streams/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|error| panic!("read {path}: {error}"))
}

/// `data: {json}\n\n` for each chunk, as an OpenAI-compatible server sends it.
pub fn openai_events(chunks: &[&str]) -> String {
    chunks
        .iter()
        .map(|chunk| format!("data: {chunk}\n\n"))
        .collect()
}

/// An OpenAI chunk carrying `content` as answer text.
pub fn openai_text_chunk(content: &str) -> String {
    serde_json::json!({
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1_730_000_000,
        "model": "test-model",
        "choices": [{"index": 0, "delta": {"content": content}, "logprobs": null, "finish_reason": null}],
    })
    .to_string()
}

/// An OpenAI chunk carrying only a finish reason.
pub fn openai_finish_chunk(reason: &str) -> String {
    serde_json::json!({
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1_730_000_000,
        "model": "test-model",
        "choices": [{"index": 0, "delta": {}, "logprobs": null, "finish_reason": reason}],
    })
    .to_string()
}

/// `event: {name}\ndata: {json}\n\n`, as Anthropic sends it.
pub fn anthropic_event(name: &str, data: &str) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// A whole, successful Anthropic stream answering `text`.
pub fn anthropic_answer(text: &str, stop_reason: &str) -> String {
    let delta = serde_json::json!({
        "type": "content_block_delta", "index": 0,
        "delta": {"type": "text_delta", "text": text},
    });
    let message_delta = serde_json::json!({
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": null},
        "usage": {"output_tokens": 7},
    });
    [
        anthropic_event(
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_test","type":"message","role":"assistant","content":[],"model":"test-model","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1}}}"#,
        ),
        anthropic_event(
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        ),
        anthropic_event("content_block_delta", &delta.to_string()),
        anthropic_event(
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        anthropic_event("message_delta", &message_delta.to_string()),
        anthropic_event("message_stop", r#"{"type":"message_stop"}"#),
    ]
    .concat()
}

/// A base URL on which nothing listens: connections are refused.
pub async fn refused_base_url() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let port = listener.local_addr().expect("local address").port();
    drop(listener);
    format!("http://127.0.0.1:{port}/v1")
}

/// A listener whose accept queue is full: new connections are never
/// accepted, so connecting hangs until the client's connect timeout.
pub struct Blackhole {
    _listener: tokio::net::TcpListener,
    _queued: tokio::net::TcpStream,
    port: u16,
}

impl Blackhole {
    pub async fn start() -> Self {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket
            .bind("127.0.0.1:0".parse().expect("address"))
            .expect("bind 127.0.0.1:0");
        let listener = socket.listen(0).expect("listen");
        let port = listener.local_addr().expect("local address").port();
        let queued = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("the one queued connection");
        Blackhole {
            _listener: listener,
            _queued: queued,
            port,
        }
    }

    pub fn openai_base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }
}

/// `(role, stage, round)` of a prompt, read from the prompt templates'
/// opening lines (a decision review's): what a server answering a real
/// debate over the wire needs to know to pick the reply.
pub fn classify(prompt: &str) -> Option<(String, String, u32)> {
    let number_after = |marker: &str| -> Option<u32> {
        let rest = &prompt[prompt.find(marker)? + marker.len()..];
        rest.split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    };
    if prompt.starts_with("You are a judge") {
        let rest = &prompt[prompt.find("Your role: ")? + "Your role: ".len()..];
        let role = rest.split([' ', '\n']).next()?;
        return Some((
            format!("judge.{role}"),
            "evaluation".into(),
            number_after("(evaluation round ")?,
        ));
    }
    if prompt.starts_with("You are the proposer") {
        return Some(match number_after("(revision round ") {
            Some(round) => ("proposer".into(), "revision".into(), round),
            None => ("proposer".into(), "proposal".into(), 1),
        });
    }
    if prompt.starts_with("You are the critic") {
        return Some(("critic".into(), "critique".into(), 1));
    }
    None
}
