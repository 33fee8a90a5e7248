//! End-to-end runs of the real `quorum` binary against HTTP providers on a
//! local server: whole debates on `openai`, on judges split across
//! `openai`, `anthropic` and `command`, the usage the providers report, a
//! refused key, `quorum doctor`'s probe, and canary keys that never reach
//! anything quorum writes or prints.
//!
//! The server here answers like a model that plays every role well: it reads
//! which role, stage and round a prompt is for (from the prompt's own opening
//! lines) and streams the built-in demo's scripted reply for it, in the
//! OpenAI or Anthropic streaming format, with usage figures it records. It
//! listens on 127.0.0.1 only and stops with the test.
use crate::support;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use quorum::agent::CallRequest;
use quorum::agent::script::Script;
use serde_json::{Value as Json, json};
use support::provider_server::classify;
use support::run::{only_run, quorum_in_async as quorum};
use tokio::sync::oneshot;
use yaml_serde::Value;

const TOPIC: &str = "Should we move billing to event sourcing?";
const OPENAI_CANARY: &str = "sk-canary-openai-9c41be07d2f3a8";
const ANTHROPIC_CANARY: &str = "sk-ant-canary-51d8e2a7c0b96f";
/// Characters of streamed text per SSE event.
const SSE_PIECE_CHARS: usize = 200;

// ---- the role-aware model server ----------------------------------------------------

/// One request as the server saw it.
#[derive(Clone, Debug)]
struct Seen {
    path: String,
    model: String,
    authorization: Option<String>,
    api_key: Option<String>,
    /// `role/stage/round`, or why the prompt was not understood.
    call: String,
    /// The usage the server reported for it.
    input_tokens: u64,
    output_tokens: u64,
}

/// How the server answers every call.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Behaviour {
    /// The demo's reply for the role, streamed.
    Answer,
    /// 401 with an OpenAI-style error that echoes the key, as some servers do.
    RefuseKey,
    /// The critic's first request gets a 429 asking to wait 20 ms; every
    /// other request is answered.
    RateLimitCriticOnce,
}

struct ServerState {
    script: Script,
    behaviour: Behaviour,
    seen: Mutex<Vec<Seen>>,
}

struct ModelServer {
    port: u16,
    state: Arc<ServerState>,
    shutdown: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl ModelServer {
    async fn start(behaviour: Behaviour) -> Self {
        let spec = quorum::spec::parse(
            Path::new("demo.yaml"),
            quorum::protocol::decision_review::kind::DEMO_SPEC,
        )
        .expect("the demo spec parses");
        let state = Arc::new(ServerState {
            script: spec.script.expect("the demo has a script"),
            behaviour,
            seen: Mutex::new(Vec::new()),
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let port = listener.local_addr().unwrap().port();
        let app = Router::new()
            .route("/v1/chat/completions", post(complete))
            .route("/v1/messages", post(complete))
            .route("/v1/models", get(models))
            .with_state(state.clone());
        let (shutdown, stop) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stop.await;
                })
                .await;
        });
        ModelServer {
            port,
            state,
            shutdown: Some(shutdown),
            task,
        }
    }

    fn openai_base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    fn anthropic_base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn seen(&self) -> Vec<Seen> {
        self.state.seen.lock().unwrap().clone()
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        self.task.abort();
    }
}

/// The demo's reply for a call: the first attempt that is not a fault.
fn reply_for(script: &Script, (role, stage, round): &(String, String, u32)) -> Option<String> {
    (1..=3).find_map(|attempt| {
        let request = CallRequest {
            call_id: format!("{role}/{stage}/r{round}/a{attempt}"),
            role: role.clone(),
            stage: stage.clone(),
            round: *round,
            attempt,
            // The runs these answers feed accept every item.
            prompt: support::every_item_accepted_prompt(),
        };
        let reply = script.reply_for(&request).ok()?;
        reply
            .fault
            .is_none()
            .then(|| support::text_with_every_item_accepted(reply))?
    })
}

fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(SSE_PIECE_CHARS)
        .map(|piece| piece.iter().collect())
        .collect()
}

fn openai_stream(model: &str, text: &str, input: u64, output: u64) -> String {
    let mut body = String::new();
    let mut event = |value: Json| body.push_str(&format!("data: {value}\n\n"));
    for piece in pieces(text) {
        event(
            json!({"id": "chatcmpl-test", "object": "chat.completion.chunk", "model": model,
            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]}),
        );
    }
    event(
        json!({"id": "chatcmpl-test", "object": "chat.completion.chunk", "model": model,
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    );
    event(
        json!({"id": "chatcmpl-test", "object": "chat.completion.chunk", "model": model,
        "choices": [], "usage": {"prompt_tokens": input, "completion_tokens": output,
        "total_tokens": input + output}}),
    );
    body.push_str("data: [DONE]\n\n");
    body
}

fn anthropic_stream(model: &str, text: &str, input: u64, output: u64) -> String {
    let mut body = String::new();
    let mut event = |name: &str, value: Json| {
        body.push_str(&format!("event: {name}\ndata: {value}\n\n"));
    };
    event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_test",
        "type": "message", "role": "assistant", "content": [], "model": model,
        "stop_reason": null, "usage": {"input_tokens": input, "output_tokens": 1}}}),
    );
    event(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "text", "text": ""}}),
    );
    event("ping", json!({"type": "ping"}));
    for piece in pieces(text) {
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": piece}}),
        );
    }
    event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    );
    event(
        "message_delta",
        json!({"type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": null},
        "usage": {"output_tokens": output}}),
    );
    event("message_stop", json!({"type": "message_stop"}));
    body
}

async fn complete(State(state): State<Arc<ServerState>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let body: Json = serde_json::from_slice(&body).unwrap_or(Json::Null);
    let header = |name: &str| {
        parts
            .headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string)
    };
    let model = body["model"].as_str().unwrap_or_default().to_string();
    let prompt = body["messages"][0]["content"].as_str().unwrap_or_default();
    let call = classify(prompt);
    let text = call
        .as_ref()
        .and_then(|call| reply_for(&state.script, call));
    // Deterministic usage figures the test can add up.
    let input_tokens = 1_000 + prompt.len() as u64 / 10;
    let output_tokens = text.as_deref().map_or(0, |text| 10 + text.len() as u64 / 7);
    state.seen.lock().unwrap().push(Seen {
        path: parts.uri.path().to_string(),
        model: model.clone(),
        authorization: header("authorization"),
        api_key: header("x-api-key"),
        call: call
            .as_ref()
            .map_or("unrecognised prompt".into(), |(role, stage, round)| {
                format!("{role}/{stage}/{round}")
            }),
        input_tokens,
        output_tokens,
    });
    if state.behaviour == Behaviour::RefuseKey {
        let key = header("authorization").unwrap_or_default();
        let error = json!({"error": {"message": format!("Incorrect API key provided: {key}. You can find your API key at the dashboard."),
            "type": "invalid_request_error", "code": "invalid_api_key"}});
        return Response::builder()
            .status(StatusCode::UNAUTHORIZED)
            .header("content-type", "application/json")
            .body(Body::from(error.to_string()))
            .unwrap();
    }
    if state.behaviour == Behaviour::RateLimitCriticOnce
        && call.as_ref().is_some_and(|(role, _, _)| role == "critic")
        && state
            .seen
            .lock()
            .unwrap()
            .iter()
            .filter(|seen| seen.call.starts_with("critic/"))
            .count()
            == 1
    {
        return Response::builder()
            .status(StatusCode::TOO_MANY_REQUESTS)
            .header("content-type", "application/json")
            .header("retry-after-ms", "20")
            .body(Body::from(
                json!({"error": {"message": "Rate limit reached for requests", "type": "requests", "code": "rate_limit_exceeded"}})
                    .to_string(),
            ))
            .unwrap();
    }
    let Some(text) = text else {
        return Response::builder()
            .status(StatusCode::BAD_REQUEST)
            .header("content-type", "application/json")
            .body(Body::from(
                json!({"error": {"message": "test server: no reply for this prompt", "type": "test_error"}})
                    .to_string(),
            ))
            .unwrap();
    };
    let stream = if parts.uri.path() == "/v1/messages" {
        anthropic_stream(&model, &text, input_tokens, output_tokens)
    } else {
        openai_stream(&model, &text, input_tokens, output_tokens)
    };
    Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "text/event-stream")
        .body(Body::from(stream))
        .unwrap()
}

async fn models(State(state): State<Arc<ServerState>>) -> Response {
    if state.behaviour == Behaviour::RefuseKey {
        return Response::builder()
            .status(StatusCode::UNAUTHORIZED)
            .header("content-type", "application/json")
            .body(Body::from(
                json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})
                    .to_string(),
            ))
            .unwrap();
    }
    Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "application/json")
        .body(Body::from(
            json!({"object": "list", "data": [{"id": "test-model"}, {"id": "test-claude"}]})
                .to_string(),
        ))
        .unwrap()
}

// ---- running the binary --------------------------------------------------------------

fn all_files(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                files.insert(path, String::from_utf8_lossy(&bytes).into_owned());
            }
        }
    }
    files
}

/// No fragment of either canary anywhere in `texts` or under `dir`.
fn assert_no_key(dir: &Path, texts: &[&str]) {
    let files = all_files(dir);
    for canary in [OPENAI_CANARY, ANTHROPIC_CANARY] {
        let fragment = &canary[canary.len() - 12..];
        for (path, contents) in &files {
            assert!(
                !contents.contains(fragment),
                "{} holds a key",
                path.display()
            );
        }
        for text in texts {
            assert!(!text.contains(fragment), "output holds a key:\n{text}");
        }
    }
}

fn yaml_of(path: &Path) -> Value {
    yaml_serde::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value:?}"))
}

/// The demo's verdict path: REVISE in round 1, ADOPT in round 2.
const EXPECTED_FILES: [&str; 14] = [
    "critique.md",
    "debate.yaml",
    "evidence.yaml",
    "journal.jsonl",
    "judges/judge-aesthete-round-2.md",
    "judges/judge-aesthete.md",
    "judges/judge-analyst-round-2.md",
    "judges/judge-analyst.md",
    "judges/judge-stylist-round-2.md",
    "judges/judge-stylist.md",
    "proposal.md",
    "revision.md",
    "summary.md",
    "transcript.md",
];

fn check_tree(dir: &Path) {
    let files: Vec<String> = all_files(dir)
        .keys()
        .map(|path| {
            path.strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(files, EXPECTED_FILES, "the artifact tree");
}

// ---- the tests -----------------------------------------------------------------------

/// `quorum review --agent default=openai:test-model` with `OPENAI_BASE_URL`
/// at the local server: every role streams from it, the whole tree is
/// written, the verdict is the demo's, and the usage is exactly what the
/// server reported, never estimated. The key goes in the header only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openai_plays_every_role_of_a_whole_review() {
    let server = ModelServer::start(Behaviour::Answer).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let ran = quorum(
        dir.path(),
        &[
            "review",
            TOPIC,
            "--headless",
            "--out",
            out.to_str().unwrap(),
            "--agent",
            "default=openai:test-model",
        ],
        &[
            ("OPENAI_BASE_URL", &server.openai_base_url()),
            ("OPENAI_API_KEY", OPENAI_CANARY),
        ],
    )
    .await;
    ran.assert_code(0);
    let run = only_run(&out);
    check_tree(&run);
    let yaml = yaml_of(&run.join("debate.yaml"));
    assert_eq!(text(&yaml["outcome"]["verdict"]), "ADOPT");
    assert_eq!(
        text(&yaml["participants"]["proposer"]["agent"]),
        "openai:test-model"
    );
    for judge in yaml["participants"]["judges"].as_sequence().unwrap() {
        assert_eq!(text(&judge["agent"]), "openai:test-model");
    }

    let seen = server.seen();
    assert_eq!(seen.len(), 10, "{seen:#?}");
    for request in &seen {
        assert_eq!(request.path, "/v1/chat/completions");
        assert_eq!(request.model, "test-model");
        assert_ne!(request.call, "unrecognised prompt");
        assert_eq!(
            request.authorization.as_deref(),
            Some(format!("Bearer {OPENAI_CANARY}").as_str())
        );
    }
    let usage = &yaml["usage"];
    let calls = usage["calls"].as_sequence().unwrap();
    assert_eq!(calls.len(), 10);
    for call in calls {
        assert!(
            call.get("estimated").is_none(),
            "reported, not estimated: {call:?}"
        );
        assert!(call["ttft_ms"].as_u64().is_some(), "{call:?}");
    }
    let reported_in: u64 = seen.iter().map(|request| request.input_tokens).sum();
    let reported_out: u64 = seen.iter().map(|request| request.output_tokens).sum();
    assert_eq!(usage["total"]["input_tokens"].as_u64(), Some(reported_in));
    assert_eq!(usage["total"]["output_tokens"].as_u64(), Some(reported_out));
    let summary = std::fs::read_to_string(run.join("summary.md")).unwrap();
    let line = summary
        .lines()
        .find(|line| line.starts_with("Usage: "))
        .unwrap();
    assert!(!line.contains("estimated"), "{line}");
    assert!(
        line.contains(&format!("{} out", thousands(reported_out))),
        "{line}"
    );
    assert_no_key(&out, &[&ran.stdout, &ran.stderr]);
}

fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Judges split across `anthropic` (configured at the local server),
/// `openai` and a `command` program that prints a canned answer; costs where
/// prices are configured; both keys only in their own headers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn judges_split_across_openai_anthropic_and_a_command() {
    let server = ModelServer::start(Behaviour::Answer).await;
    let dir = tempfile::tempdir().unwrap();
    let spec = quorum::spec::parse(
        Path::new("demo.yaml"),
        quorum::protocol::decision_review::kind::DEMO_SPEC,
    )
    .unwrap();
    let script = spec.script.unwrap();
    for round in [1, 2] {
        let key = ("judge.stylist".to_string(), "evaluation".to_string(), round);
        std::fs::write(
            dir.path().join(format!("stylist-round-{round}.md")),
            reply_for(&script, &key).unwrap(),
        )
        .unwrap();
    }
    let judge = dir.path().join("stylist.sh");
    std::fs::write(
        &judge,
        "#!/bin/sh\nprompt=$(cat)\nhere=$(dirname \"$0\")\n\
         case \"$prompt\" in\n  *\"(evaluation round 2)\"*) cat \"$here/stylist-round-2.md\" ;;\n  *) cat \"$here/stylist-round-1.md\" ;;\nesac\n",
    )
    .unwrap();
    std::fs::set_permissions(&judge, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = dir.path().join("quorum.yaml");
    std::fs::write(
        &config,
        format!(
            "providers:\n  anthropic: {{ base_url: \"{}\" }}\n  stylist-cli: {{ kind: command, command: [\"{}\"] }}\n\
             prices:\n  \"openai:test-model\": {{ input: 2.0, output: 8.0 }}\n  test-claude: {{ input: 3.0, output: 15.0 }}\n",
            server.anthropic_base_url(),
            judge.display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let ran = quorum(
        dir.path(),
        &[
            "review",
            TOPIC,
            "--headless",
            "--json",
            "--out",
            out.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--agent",
            "default=openai:test-model",
            "--agent",
            "judge.analyst=anthropic:test-claude",
            "--agent",
            "judge.stylist=stylist-cli",
        ],
        &[
            ("OPENAI_BASE_URL", &server.openai_base_url()),
            ("OPENAI_API_KEY", OPENAI_CANARY),
            ("ANTHROPIC_API_KEY", ANTHROPIC_CANARY),
        ],
    )
    .await;
    ran.assert_code(0);
    let json: Json = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(json["verdict"], "ADOPT");
    let run = only_run(&out);
    check_tree(&run);
    let yaml = yaml_of(&run.join("debate.yaml"));
    let judges: BTreeMap<&str, &str> = yaml["participants"]["judges"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|judge| (text(&judge["role"]), text(&judge["agent"])))
        .collect();
    assert_eq!(
        judges,
        BTreeMap::from([
            ("analyst", "anthropic:test-claude"),
            ("stylist", "stylist-cli:stylist.sh"),
            ("aesthete", "openai:test-model"),
        ])
    );

    let seen = server.seen();
    let anthropic: Vec<&Seen> = seen.iter().filter(|s| s.path == "/v1/messages").collect();
    assert_eq!(anthropic.len(), 2, "the analyst, in two rounds");
    for request in &anthropic {
        assert_eq!(request.model, "test-claude");
        assert_eq!(request.api_key.as_deref(), Some(ANTHROPIC_CANARY));
        assert_eq!(request.authorization, None);
        assert!(
            request.call.starts_with("judge.analyst/"),
            "{}",
            request.call
        );
    }
    let openai: Vec<&Seen> = seen
        .iter()
        .filter(|s| s.path == "/v1/chat/completions")
        .collect();
    assert_eq!(
        openai.len(),
        6,
        "proposal, critique, two revisions, the aesthete twice"
    );
    for request in &openai {
        assert_eq!(
            request.authorization.as_deref(),
            Some(format!("Bearer {OPENAI_CANARY}").as_str())
        );
        assert_eq!(request.api_key, None);
    }

    // Costs: priced by provider:model for openai, by model for anthropic,
    // none for the command judge, whose tokens are estimated.
    let usage = &json["usage"];
    let agents = &usage["agents"];
    let priced = |agent: &str, input_price: f64, output_price: f64| {
        let totals = &agents[agent];
        let expected = (totals["input_tokens"].as_u64().unwrap() as f64 * input_price
            + totals["output_tokens"].as_u64().unwrap() as f64 * output_price)
            / 1_000_000.0;
        let cost = totals["cost_usd"].as_f64().unwrap();
        assert!(
            (cost - expected).abs() < 1e-9,
            "{agent}: {cost} vs {expected}"
        );
        cost
    };
    let total_cost =
        priced("openai:test-model", 2.0, 8.0) + priced("anthropic:test-claude", 3.0, 15.0);
    assert!(agents["stylist-cli:stylist.sh"].get("cost_usd").is_none());
    assert_eq!(agents["stylist-cli:stylist.sh"]["estimated"], true);
    assert!(agents["anthropic:test-claude"].get("estimated").is_none());
    let reported_cost = usage["total"]["cost_usd"].as_f64().unwrap();
    assert!((reported_cost - total_cost).abs() < 1e-9);
    assert_eq!(usage["total"]["calls_without_price"], 2);
    assert_eq!(
        usage["prices"]["anthropic:test-claude"]["output"], 15.0,
        "the price used is recorded under the participant"
    );
    assert_no_key(&out, &[&ran.stdout, &ran.stderr]);
}

/// A refused key: the provider's message is shown at once (a 401 cannot
/// succeed, so the identical request is not sent again), the run stops
/// without a verdict (exit 1), `quorum open` lists the folder as failed with
/// the reason (issue 62), and the key it echoed never appears anywhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_key_is_reported_at_once_without_the_key() {
    for provider in ["openai", "anthropic"] {
        let server = ModelServer::start(Behaviour::RefuseKey).await;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let agent = format!("default={provider}:test-model");
        let config = dir.path().join("config.yaml");
        std::fs::write(
            &config,
            format!(
                "providers:\n  openai: {{ base_url: \"{}\" }}\n  anthropic: {{ base_url: \"{}\" }}\n",
                server.openai_base_url(),
                server.anthropic_base_url()
            ),
        )
        .unwrap();
        let env = [
            ("OPENAI_API_KEY", OPENAI_CANARY),
            ("ANTHROPIC_API_KEY", ANTHROPIC_CANARY),
        ];
        let ran = quorum(
            dir.path(),
            &[
                "review",
                TOPIC,
                "--headless",
                "--out",
                out.to_str().unwrap(),
                "--config",
                config.to_str().unwrap(),
                "--agent",
                &agent,
            ],
            &env,
        )
        .await;
        ran.assert_code(1);
        assert!(ran.stderr.contains("401"), "{}", ran.stderr);
        assert!(
            ran.stderr.contains("Incorrect API key provided"),
            "{}",
            ran.stderr
        );
        let transcript = std::fs::read_to_string(only_run(&out).join("transcript.md")).unwrap();
        assert!(transcript.contains("401"), "{transcript}");
        assert!(
            transcript.contains("Incorrect API key provided"),
            "{transcript}"
        );
        assert!(!transcript.contains("identical prompt"), "{transcript}");
        assert_eq!(server.seen().len(), 1, "{provider}: no retry of a 401");
        let listed = quorum(dir.path(), &["open", "--out", out.to_str().unwrap()], &env).await;
        listed.assert_code(0);
        assert!(listed.stdout.contains("failed: "), "{}", listed.stdout);
        assert!(listed.stdout.contains("401"), "{}", listed.stdout);
        assert!(!listed.stdout.contains("no verdict"), "{}", listed.stdout);
        assert_no_key(&out, &[&ran.stdout, &ran.stderr, &listed.stdout]);
    }
}

/// `quorum doctor` probes HTTP providers: answering, refusing the key, and
/// nothing listening; the key itself is never printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_probes_http_providers() {
    let answering = ModelServer::start(Behaviour::Answer).await;
    let refusing = ModelServer::start(Behaviour::RefuseKey).await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("quorum.yaml");
    std::fs::write(
        &config,
        format!(
            "providers:\n  openai: {{ base_url: \"{}\" }}\n  anthropic: {{ base_url: \"{}\" }}\n  \
             gone: {{ kind: openai, base_url: \"http://{}/v1\" }}\n",
            answering.openai_base_url(),
            refusing.anthropic_base_url(),
            support::closed_address()
        ),
    )
    .unwrap();
    let ran = quorum(
        dir.path(),
        &["doctor", "--config", config.to_str().unwrap()],
        &[
            ("OPENAI_API_KEY", OPENAI_CANARY),
            ("ANTHROPIC_API_KEY", ANTHROPIC_CANARY),
        ],
    )
    .await;
    ran.assert_code(0);
    let section = |name: &str| {
        let start = ran
            .stdout
            .find(&format!("  {name} ("))
            .unwrap_or_else(|| panic!("no {name}:\n{}", ran.stdout));
        ran.stdout[start..]
            .lines()
            .take(3)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        section("openai").contains("answers (HTTP 200, 2 models)"),
        "{}",
        ran.stdout
    );
    assert!(
        section("anthropic").contains("refuses the request"),
        "{}",
        ran.stdout
    );
    assert!(section("anthropic").contains("401"), "{}", ran.stdout);
    assert!(
        section("gone").contains("does not answer"),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains("1 provider usable"), "{}", ran.stdout);
    assert!(
        ran.stdout.contains("anthropic:claude-sonnet-4-5"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("auto: ANTHROPIC_API_KEY is set"),
        "{}",
        ran.stdout
    );
    assert_no_key(dir.path(), &[&ran.stdout, &ran.stderr]);
}

/// INF-17: a request the transport sends again is an event in the
/// transcript, with its reason and its wait, not only a line in a log file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inf_17_a_transport_retry_is_in_the_transcript() {
    let server = ModelServer::start(Behaviour::RateLimitCriticOnce).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let ran = quorum(
        dir.path(),
        &[
            "review",
            TOPIC,
            "--headless",
            "--out",
            out.to_str().unwrap(),
            "--agent",
            "default=openai:test-model",
        ],
        &[
            ("OPENAI_BASE_URL", &server.openai_base_url()),
            ("OPENAI_API_KEY", OPENAI_CANARY),
        ],
    )
    .await;
    ran.assert_code(0);
    let critic_requests = server
        .seen()
        .iter()
        .filter(|seen| seen.call.starts_with("critic/"))
        .count();
    assert_eq!(critic_requests, 2);
    let run = only_run(&out);
    let transcript = std::fs::read_to_string(run.join("transcript.md")).unwrap();
    let line = transcript
        .lines()
        .find(|line| line.contains("transport retry 1 of 2"))
        .unwrap_or_else(|| panic!("no retry in the transcript:\n{transcript}"));
    assert!(line.contains("critic/critique/r1/a1"), "{line}");
    assert!(line.contains("in 0.0 s"), "{line}");
    assert!(line.contains("HTTP 429"), "{line}");
    assert!(line.contains("Rate limit reached"), "{line}");
    assert_no_key(&out, &[&ran.stdout, &ran.stderr]);
}

/// Issue 52: an OpenAI-compatible agent on a real HTTP server cites the
/// context; quorum checks each citation against it: the quote that is
/// there verifies, the one that is not is marked, and both are in the
/// deliverable's Evidence section and `evidence.yaml`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ev_03_an_http_agents_citations_are_checked_against_the_context() {
    let server = ModelServer::start(Behaviour::Answer).await;
    let dir = tempfile::tempdir().unwrap();
    let demo: serde_json::Value =
        yaml_serde::from_str(include_str!("../demo/billing-event-sourcing.yaml")).unwrap();
    let context = demo["context"][0]["text"].as_str().unwrap();
    let file = dir.path().join("current-billing.md");
    std::fs::write(&file, context).unwrap();
    let out = dir.path().join("out");
    let ran = quorum(
        dir.path(),
        &[
            "review",
            TOPIC,
            "--context",
            file.to_str().unwrap(),
            "--headless",
            "--out",
            out.to_str().unwrap(),
            "--agent",
            "default=openai:test-model",
        ],
        &[
            ("OPENAI_BASE_URL", &server.openai_base_url()),
            ("OPENAI_API_KEY", OPENAI_CANARY),
        ],
    )
    .await;
    ran.assert_code(0);
    let run = only_run(&out);
    let evidence = std::fs::read_to_string(run.join("evidence.yaml")).unwrap();
    assert!(
        evidence.contains("kind: context") && evidence.contains("name: current-billing.md"),
        "the file is recorded with its hash: {evidence}"
    );
    let summary = std::fs::read_to_string(run.join("summary.md")).unwrap();
    assert!(
        summary.contains(
            "- ✓ \"takes a median 3h10m each\" — current-billing.md (verified at current-billing.md:L6)"
        ),
        "{summary}"
    );
    assert!(
        summary.contains("- ✗ \"topics kept for 30 days\" — current-billing.md (not found"),
        "{summary}"
    );
    assert_no_key(&out, &[&ran.stdout, &ran.stderr]);
}
