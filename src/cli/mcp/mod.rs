//! `quorum mcp`: quorum's protocols as Model Context Protocol tools over
//! stdio (issue 54), for the coding agents its users work in, on the
//! official Rust SDK (`rmcp`).
//!
//! Owns the server: its tools (one a protocol of the registry, and
//! `status`, `result`, `rule`, `resume`, `list`), its resources (each
//! debate's deliverables) and the debates it drives. A debate a tool
//! starts is the same journaled, crash-safe run as `quorum run` makes; the
//! tool returns at once with its id and folder. Not responsible for any
//! protocol rule, the record's format or drawing; nothing here writes to
//! stdout, which is the transport.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, JsonObject, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt};
use serde_json::{Value, json};

use crate::protocol::ItemDecision;

use super::{EXIT_FAILURE, EXIT_USAGE, McpArgs, RunFlags};

mod debates;
mod resources;
mod tools;

use debates::{Debates, Live};
use tools::Who;

/// The names of the tools the server offers, for `quorum doctor`.
pub(super) fn tool_names() -> Vec<String> {
    tools::all()
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect()
}

/// Longest a `status` call waits, in seconds.
const MAX_WAIT_SECS: f64 = 600.0;

/// Serves until the client closes stdin; then waits for the debates that
/// can go on without it (a policy or a person moderates them), and stops
/// the ones waiting on the caller, whose records can be resumed.
pub async fn run(args: McpArgs) -> ExitCode {
    if !(args.speed.is_finite() && args.speed > 0.0) {
        eprintln!("quorum: --speed must be a positive number");
        return ExitCode::from(EXIT_USAGE);
    }
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(error) => {
            eprintln!("quorum: cannot read the current folder: {error}");
            return ExitCode::from(EXIT_FAILURE);
        }
    };
    let flags = RunFlags {
        headless: true,
        out: if args.out.is_absolute() {
            args.out
        } else {
            cwd.join(args.out)
        },
        config: args.config,
        prompts: args.prompts,
        speed: args.speed,
        allow_outside_context: args.allow_outside_context,
        ..RunFlags::default()
    };
    // Nobody watches the answers stream: read at the record's pace.
    crate::agent::http::paced::read_unwatched();
    let server = Server {
        debates: Arc::new(Debates::new(flags, cwd)),
    };
    let debates = server.debates.clone();
    let service = match server.serve(rmcp::transport::stdio()).await {
        Ok(service) => service,
        Err(error) => {
            eprintln!("quorum: the MCP client did not start a session: {error}");
            return ExitCode::from(EXIT_FAILURE);
        }
    };
    if let Err(error) = service.waiting().await {
        eprintln!("quorum: the MCP session ended: {error}");
    }
    finish_after_disconnect(&debates).await;
    ExitCode::SUCCESS
}

/// The client is gone: a debate a policy or a person moderates runs to its
/// end; one waiting for the caller's rulings is left, resumable.
async fn finish_after_disconnect(debates: &Debates) {
    for live in debates.running() {
        if live.who == Who::Caller {
            eprintln!(
                "quorum: the client left while {} waited on its rulings; continue it with: quorum resume {}",
                live.id,
                super::shell_path(&live.dir)
            );
            continue;
        }
        eprintln!("quorum: the client left; {} runs on to its end", live.id);
        let mut state = live.state.clone();
        while !state.borrow().ended() {
            if state.changed().await.is_err() {
                break;
            }
        }
    }
}

#[derive(Clone)]
struct Server {
    debates: Arc<Debates>,
}

/// A tool's answer the caller reads: structured content and a short text.
fn answer(value: Value, text: impl Into<String>) -> CallToolResponse {
    let mut result = CallToolResult::structured(value);
    result.content = vec![ContentBlock::text(text.into())];
    result.into()
}

/// A tool's failure the caller reads (not a protocol error).
fn refusal(message: impl Into<String>) -> CallToolResponse {
    CallToolResult::error(vec![ContentBlock::text(message.into())]).into()
}

fn string_arg<'a>(arguments: &'a JsonObject, key: &str) -> Result<&'a str, String> {
    match arguments.get(key) {
        Some(Value::String(text)) => Ok(text),
        Some(other) => Err(format!("{key}: expected a string, got {other}")),
        None => Err(format!("{key}: missing")),
    }
}

/// The keys of `arguments` none of `known`: named, so a typo is not
/// silently dropped.
fn unknown_keys(arguments: &JsonObject, known: &[&str]) -> Result<(), String> {
    match arguments.keys().find(|key| !known.contains(&key.as_str())) {
        Some(key) => Err(format!(
            "{key}: not an argument of this tool (its arguments: {})",
            known.join(", ")
        )),
        None => Ok(()),
    }
}

impl Server {
    fn debate(&self, arguments: &JsonObject) -> Result<Arc<Live>, String> {
        let id = string_arg(arguments, "debate")?;
        self.debates.live(id).ok_or_else(|| {
            match resources::debate_dir(self.debates.root(), id) {
                Ok(dir) => format!(
                    "debate: {id} is not running in this server; `result` reads it if it ended, `resume` continues it ({})",
                    dir.display()
                ),
                Err(error) => error,
            }
        })
    }

    fn start(&self, tool: &str, arguments: &JsonObject) -> CallToolResponse {
        let Some(kind) = tools::kind_of(tool) else {
            return refusal(format!("no tool `{tool}`"));
        };
        match self.debates.start(kind, arguments) {
            Ok(started) => {
                let next = match started.who {
                    Who::Person => format!(
                        "a person rules on its items in another terminal: quorum attach {}",
                        super::shell_path(&started.dir)
                    ),
                    Who::Caller => "call `status` (wait_secs) until items wait, then `rule`".into(),
                    Who::Policy(policy) => {
                        format!("its items are decided by the `{}` policy", policy.as_str())
                    }
                };
                let value = json!({
                    "debate": started.id,
                    "dir": started.dir.display().to_string(),
                    "protocol": started.label,
                    "moderator": started.who.as_str(),
                    "next": next,
                });
                answer(
                    value,
                    format!(
                        "Started the {} {} in {}; {next}.",
                        started.label,
                        started.id,
                        started.dir.display()
                    ),
                )
            }
            Err(error) => refusal(format!("{tool}: {error}")),
        }
    }

    async fn status(
        &self,
        arguments: &JsonObject,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, String> {
        unknown_keys(arguments, &["debate", "wait_secs", "lines"])?;
        let live = self.debate(arguments)?;
        let wait = match arguments.get("wait_secs") {
            None => 0.0,
            Some(value) => value
                .as_f64()
                .filter(|secs| (0.0..=MAX_WAIT_SECS).contains(secs))
                .ok_or_else(|| {
                    format!("wait_secs: expected a number of seconds from 0 to {MAX_WAIT_SECS}")
                })?,
        };
        let lines = match arguments.get("lines") {
            None => 20,
            Some(value) => value
                .as_u64()
                .filter(|n| *n <= 200)
                .ok_or("lines: expected a whole number from 0 to 200")?
                as usize,
        };
        if wait > 0.0 {
            debates::wait_for_news(
                &live,
                &context.peer,
                context.meta.get_progress_token(),
                Duration::from_secs_f64(wait),
            )
            .await;
        }
        Ok(status_answer(&live, lines))
    }

    async fn result(&self, arguments: &JsonObject) -> Result<CallToolResponse, String> {
        unknown_keys(arguments, &["debate"])?;
        let id = string_arg(arguments, "debate")?;
        if let Some(live) = self.debates.live(id) {
            let state = live.state.borrow().clone();
            if let Some(failure) = state.failure {
                return Err(format!("{id} stopped without a result: {failure}"));
            }
            let Some(result) = state.result else {
                return Err(format!(
                    "{id} is still running (stage {}); `status` with wait_secs waits for it",
                    state.stage
                ));
            };
            return Ok(result_answer(result));
        }
        let dir = resources::debate_dir(self.debates.root(), id)?;
        let reloaded = super::prepare::reload(&dir).map_err(|error| super::with_causes(&error))?;
        let protocol = &reloaded.folded.protocol;
        let Some(outcome) = protocol.outcome() else {
            return Err(format!(
                "{id} has not ended (stage {}); `resume` continues it",
                protocol.progress().stage
            ));
        };
        Ok(result_answer(debates::result_value(
            outcome,
            protocol.as_ref(),
            &dir,
        )))
    }

    fn rule(&self, arguments: &JsonObject) -> Result<CallToolResponse, String> {
        unknown_keys(arguments, &["debate", "rulings", "submit"])?;
        let live = self.debate(arguments)?;
        let submit = match arguments.get("submit") {
            None => true,
            Some(Value::Bool(submit)) => *submit,
            Some(other) => return Err(format!("submit: expected true or false, got {other}")),
        };
        let Some(Value::Array(given)) = arguments.get("rulings") else {
            return Err("rulings: expected a list of {item, decision, note}".into());
        };
        let mut rulings = Vec::with_capacity(given.len());
        for (index, ruling) in given.iter().enumerate() {
            let field = |key: &str| format!("rulings[{index}].{key}");
            let Value::Object(ruling) = ruling else {
                return Err(format!(
                    "rulings[{index}]: expected {{item, decision, note}}"
                ));
            };
            if let Some(key) = ruling
                .keys()
                .find(|key| !["item", "decision", "note"].contains(&key.as_str()))
            {
                return Err(format!("{}: not a key of a ruling", field(key)));
            }
            let item = string_arg(ruling, "item").map_err(|e| format!("rulings[{index}].{e}"))?;
            let decision = match string_arg(ruling, "decision")
                .map_err(|e| format!("rulings[{index}].{e}"))?
            {
                "accept" => ItemDecision::Accept,
                "reject" => ItemDecision::Reject,
                "defer" => ItemDecision::Defer,
                other => {
                    return Err(format!(
                        "{}: `{other}` is not accept, reject or defer",
                        field("decision")
                    ));
                }
            };
            let note = match ruling.get("note") {
                None => None,
                Some(Value::String(note)) => Some(note.clone()),
                Some(other) => {
                    return Err(format!("{}: expected a string, got {other}", field("note")));
                }
            };
            rulings.push((item.to_string(), decision, note));
        }
        let sent = self.debates.rule(&live, &rulings, submit)?;
        let text = if submit {
            format!(
                "{sent} ruling{} handed in; {} goes on",
                plural(sent),
                live.id
            )
        } else {
            format!(
                "{sent} ruling{} recorded; submit when every item has one",
                plural(sent)
            )
        };
        Ok(answer(
            json!({"debate": live.id, "sent": sent, "submitted": submit}),
            text,
        ))
    }

    fn list(&self, arguments: &JsonObject) -> Result<CallToolResponse, String> {
        unknown_keys(arguments, &[])?;
        let root = self.debates.root();
        if !root.exists() {
            return Ok(answer(json!({"debates": []}), "No debate is recorded yet."));
        }
        let (listings, unreadable) =
            super::open::listings(root).map_err(|failure| match failure {
                super::Failure::Usage(message) => message,
                super::Failure::Run(error) => format!("{error:#}"),
            })?;
        let count = listings.len();
        let mut value = json!({
            "debates": listings,
            "unreadable": unreadable
                .iter()
                .map(|(dir, error)| json!({"dir": dir, "error": error}))
                .collect::<Vec<_>>(),
        });
        if let Some(Value::Array(debates)) = value.get_mut("debates") {
            for debate in debates.iter_mut() {
                let id = debate["dir"].as_str().and_then(|dir| {
                    PathBuf::from(dir)
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                });
                if let (Some(id), Value::Object(map)) = (id, debate) {
                    map.insert("debate".into(), Value::from(id));
                }
            }
        }
        Ok(answer(
            value,
            format!("{count} debate{} under {}", plural(count), root.display()),
        ))
    }

    async fn resume(&self, arguments: &JsonObject) -> Result<CallToolResponse, String> {
        unknown_keys(arguments, &["debate", "moderator"])?;
        let id = string_arg(arguments, "debate")?;
        let who = match arguments.get("moderator") {
            None => Who::Person,
            Some(Value::String(word)) => Who::parse(word).ok_or_else(|| {
                format!(
                    "moderator: `{word}` is not one of {}",
                    Who::WORDS.join(", ")
                )
            })?,
            Some(other) => return Err(format!("moderator: expected a string, got {other}")),
        };
        if self
            .debates
            .live(id)
            .is_some_and(|live| !live.state.borrow().ended())
        {
            return Err(format!("{id} is running in this server: nothing to resume"));
        }
        let dir = resources::debate_dir(self.debates.root(), id)?;
        let started = self.debates.resume(&dir, who)?;
        Ok(answer(
            json!({
                "debate": started.id,
                "dir": started.dir.display().to_string(),
                "protocol": started.label,
                "moderator": who.as_str(),
            }),
            format!("Resumed {} in {}", started.id, started.dir.display()),
        ))
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn result_answer(result: Value) -> CallToolResponse {
    let text = match (&result["verdict"], &result["failure"]) {
        (Value::String(verdict), _) => format!(
            "{verdict}: {}\n\n{}",
            result["rule"].as_str().unwrap_or_default(),
            result["summary"].as_str().unwrap_or_default()
        ),
        (_, Value::String(failure)) => format!("No verdict: {failure}"),
        _ => result["summary"].as_str().unwrap_or_default().to_string(),
    };
    answer(result, crate::text::sanitize(&text))
}

fn status_answer(live: &Live, lines: usize) -> CallToolResponse {
    let state = live.state.borrow().clone();
    let waiting_for = match (state.waiting.is_empty() || state.ended(), live.who) {
        (true, _) | (false, Who::Policy(_)) => None,
        (false, who) => Some(who.as_str()),
    };
    let items: Vec<Value> = state
        .waiting
        .iter()
        .map(|item| {
            json!({
                "id": item.id,
                "about": item.about(),
                "severity": item.severity,
                "category": item.category,
                "text": item.text,
                "ruling": state.decided.get(&item.id).map(|d| d.choose("accept", "reject", "defer")),
            })
        })
        .collect();
    let shown: Vec<&String> = state
        .lines
        .iter()
        .skip(state.lines.len().saturating_sub(lines))
        .collect();
    let summary = match (&state.result, &state.failure, waiting_for) {
        (Some(result), _, _) => format!(
            "{} has ended: {}",
            live.id,
            result["verdict"].as_str().unwrap_or("completed")
        ),
        (_, Some(failure), _) => format!("{} stopped: {failure}", live.id),
        (_, _, Some("caller")) => format!(
            "{} waits for your rulings on {} item{}: call `rule`",
            live.id,
            items.len(),
            plural(items.len())
        ),
        (_, _, Some(_)) => format!(
            "{} waits for a person's rulings on {} item{}: quorum attach {}",
            live.id,
            items.len(),
            plural(items.len()),
            super::shell_path(&live.dir)
        ),
        _ => format!("{} is running: stage {}", live.id, state.stage),
    };
    answer(
        json!({
            "debate": live.id,
            "dir": live.dir.display().to_string(),
            "moderator": live.who.as_str(),
            "stage": state.stage,
            "round": state.round,
            "max_round": state.max_round,
            "ended": state.ended(),
            "verdict": state.result.as_ref().map(|result| result["verdict"].clone()),
            "failure": state.failure,
            "waiting_for": waiting_for,
            "needs": state
                .asked
                .as_deref()
                .filter(|_| waiting_for.is_some())
                .or(state.held_for().map(String::as_str)),
            "items": items,
            "lines": shown,
            "line_count": state.line_count,
        }),
        crate::text::sanitize(&summary),
    )
}

impl ServerHandler for Server {
    fn get_info(&self) -> InitializeResult {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build();
        InitializeResult::new(capabilities)
            .with_server_info(
                Implementation::new("quorum", env!("CARGO_PKG_VERSION")).with_title("quorum"),
            )
            .with_instructions(
                "quorum runs structured debates between AI agents and derives their verdicts \
                 mechanically from the judges' scores. Start one with a protocol's tool \
                 (decision_review, quick, council, plan, rca); it returns at once. Follow it \
                 with `status` (wait_secs), rule on its items with `rule` when you moderate \
                 (moderator: caller), and read the outcome with `result`; its documents are \
                 resources under quorum://debates/.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::all()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let arguments = request.arguments.unwrap_or_default();
        let answered = match request.name.as_ref() {
            "status" => self.status(&arguments, &context).await,
            "result" => self.result(&arguments).await,
            "rule" => self.rule(&arguments),
            "list" => self.list(&arguments),
            "resume" => self.resume(&arguments).await,
            tool if tools::kind_of(tool).is_some() => Ok(self.start(tool, &arguments)),
            tool => {
                return Err(McpError::invalid_params(format!("no tool `{tool}`"), None));
            }
        };
        Ok(answered.unwrap_or_else(|message| refusal(format!("{}: {message}", request.name))))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let mut listed = Vec::new();
        for (id, dir) in resources::debates_under(self.debates.root()) {
            for file in resources::files_of(&dir) {
                let uri = format!("{}{id}/{file}", resources::PREFIX);
                let mime = if file.ends_with(".md") {
                    "text/markdown"
                } else if file.ends_with(".html") {
                    "text/html"
                } else if file.ends_with(".json") {
                    "application/json"
                } else {
                    "text/plain"
                };
                listed.push(
                    Resource::new(uri, format!("{id}/{file}"))
                        .with_mime_type(mime)
                        .with_description(format!("{file} of the debate {id}")),
                );
            }
        }
        Ok(ListResourcesResult::with_all_items(listed))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        match resources::read(self.debates.root(), &request.uri) {
            Ok(text) => Ok(ReadResourceResult::new(vec![ResourceContents::text(
                text,
                request.uri.clone(),
            )])
            .into()),
            Err(message) => Err(McpError::resource_not_found(message, None)),
        }
    }
}
