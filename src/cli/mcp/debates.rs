//! The debates `quorum mcp` drives: each is prepared, recorded and run by
//! the same code as a headless run (`prepare`, `open_record`, the engine),
//! in a task of the server, while a second task keeps what a `status`
//! call shows (its stage, its transcript lines, the items waiting for a
//! ruling, its result) and says each line to the client as a log
//! notification. A ruling from the `rule` tool reaches the engine through
//! its controller, checked by item id first, as the interface checks it.
//!
//! Not responsible for the protocol's rules, the journal's format or the
//! tools' schemas; nothing here writes to stdout, which is the transport.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rmcp::model::ProgressNotificationParam;
use rmcp::service::{Peer, RoleServer};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};

use crate::engine::{Command, Controller, Engine, EngineError, Moderator, Update, WhenOver};
use crate::protocol::kind::ProtocolKind;
use crate::protocol::{Input, ItemDecision, ModerationItem, OverrideAction, Protocol};

use super::super::RunFlags;
use super::super::prepare::{Source, prepare};
use super::tools::{Who, spec_text};

/// Who answers for a step held at the budget: a person in `attach`, or
/// nobody (the debate stops before the step, resumable with more).
fn when_over(who: Who) -> WhenOver {
    if who == Who::Person {
        WhenOver::Ask
    } else {
        WhenOver::Stop
    }
}

/// How many transcript lines a debate keeps for `status`.
const KEPT_LINES: usize = 200;

/// What a debate's `status` shows, kept up to date from its updates.
#[derive(Clone, Debug, Default)]
pub(super) struct State {
    pub stage: String,
    pub round: u32,
    pub max_round: u32,
    /// The last [`KEPT_LINES`] lines of its transcript, as headless prints
    /// them.
    pub lines: VecDeque<String>,
    /// Every line so far, counted.
    pub line_count: usize,
    /// The items of the moderation under way, in order; empty when nothing
    /// waits for a ruling.
    pub waiting: Vec<ModerationItem>,
    /// Each item's decision as the board shows it.
    pub decided: BTreeMap<String, ItemDecision>,
    /// The result (as `--json` prints it) once the debate has ended.
    pub result: Option<Value>,
    /// Why the engine itself stopped, when it did.
    pub failure: Option<String>,
    /// What the items waiting ask of whom, in a line (`… needs a ruling on
    /// 3 items (c1, c2, c3): call `rule` …`); none when nothing waits.
    pub asked: Option<String>,
    /// A judge's call held for the person's decision, in a line.
    pub held: Option<String>,
    /// A step held at the budget for the person's decision, in a line.
    pub budget: Option<String>,
}

impl State {
    /// What the debate waits on a person for besides items, in a line.
    pub(super) fn held_for(&self) -> Option<&String> {
        self.held.as_ref().or(self.budget.as_ref())
    }
}

impl State {
    pub(super) fn ended(&self) -> bool {
        self.result.is_some() || self.failure.is_some()
    }
}

/// A debate this server drives.
pub(super) struct Live {
    pub id: String,
    pub dir: PathBuf,
    pub who: Who,
    controller: Controller,
    pub state: watch::Receiver<State>,
}

/// What a debate tool hands back.
pub(super) struct Started {
    pub id: String,
    pub dir: PathBuf,
    pub label: String,
    pub who: Who,
}

/// What [`Debates::launch`] runs a debate with.
struct Launch {
    run_dir: crate::artifact::RunDir,
    who: Who,
    label: String,
    updates: mpsc::UnboundedReceiver<Update>,
    lock: crate::artifact::DebateLock,
}

/// The debates of this server, and where they are recorded.
pub(super) struct Debates {
    flags: RunFlags,
    /// The folder the server runs in: a call's relative paths resolve
    /// against it and stay inside it.
    cwd: PathBuf,
    live: Mutex<BTreeMap<String, Arc<Live>>>,
}

impl Debates {
    pub(super) fn new(flags: RunFlags, cwd: PathBuf) -> Debates {
        Debates {
            flags,
            cwd,
            live: Mutex::new(BTreeMap::new()),
        }
    }

    pub(super) fn root(&self) -> &Path {
        &self.flags.out
    }

    pub(super) fn live(&self, id: &str) -> Option<Arc<Live>> {
        self.live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
    }

    /// Every debate still running here, with who moderates it.
    pub(super) fn running(&self) -> Vec<Arc<Live>> {
        self.live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .filter(|live| !live.state.borrow().ended())
            .cloned()
            .collect()
    }

    /// Prepares and starts a debate of `kind` from a tool call's
    /// arguments; an error is a message for the caller, naming the field.
    pub(super) fn start(
        &self,
        kind: &dyn ProtocolKind,
        arguments: &rmcp::model::JsonObject,
    ) -> Result<Started, String> {
        let (text, who) = spec_text(kind, arguments)?;
        let mut flags = self.flags.clone();
        // What the journal records as the debate's moderation, for a later
        // `quorum resume`: the policy, or, where someone rules (the person
        // or the caller), `person`, so that a resume waits for a ruling
        // rather than deciding the items by itself.
        flags.moderation = Some(match who {
            Who::Policy(policy) => policy,
            Who::Person | Who::Caller => crate::spec::ModerationPolicy::Person,
        });
        let name = self.cwd.join("arguments");
        let mut prepared = prepare(
            Source::Inline {
                name: name.clone(),
                text,
            },
            &flags,
        )
        .map_err(|mut error| {
            // The arguments are not a file the caller has: the field and
            // the line of the arguments as JSON say where.
            if error.file.as_deref() == Some(name.as_path()) {
                error.file = Some(PathBuf::from("arguments"));
            }
            error.to_string()
        })?;
        if !prepared.human_roles.is_empty() {
            return Err(format!(
                "agents: {} played by a person (`human`) needs quorum's interactive interface, \
                 not a tool call",
                prepared.human_roles.join(", ")
            ));
        }
        // A person moderates live: a round that needs their word (a held
        // judge, a step at the budget) waits for it, as headless
        // `--moderation person` does.
        prepared.definition.set_moderated(who == Who::Person);
        let label = prepared.label.clone();
        let (run_dir, journal, lock) =
            super::super::session::open_record(&prepared.definition, &prepared.setup, &flags)
                .map_err(|error| format!("{error:#}"))?;
        let moderator = match who {
            Who::Policy(policy) => Moderator::policy(policy),
            Who::Person | Who::Caller => Moderator::external(),
        };
        let protocol = prepared.protocol();
        let (engine, updates) = super::super::engine_with_updates(
            protocol,
            run_dir.clone(),
            journal,
            prepared.roster,
            moderator,
            [],
        );
        let engine = engine
            .without_stream_updates()
            .with_budget(prepared.setup.budget.unwrap_or_default(), when_over(who));
        Ok(self.launch(
            Launch {
                run_dir,
                who,
                label,
                updates,
                lock,
            },
            engine,
            Engine::run,
        ))
    }

    /// Takes an interrupted debate under the root up again and runs it
    /// here, moderated by `who`.
    pub(super) fn resume(&self, dir: &Path, who: Who) -> Result<Started, String> {
        let taken = super::super::resume::take_up(
            dir,
            self.flags.config.as_deref(),
            |_| match who {
                Who::Policy(policy) => Moderator::policy(policy),
                Who::Person | Who::Caller => Moderator::external(),
            },
            when_over(who),
        )?;
        let super::super::resume::TakenUp {
            lock,
            run_dir,
            engine,
            updates,
            point,
            label,
        } = taken;
        Ok(self.launch(
            Launch {
                run_dir,
                who,
                label,
                updates,
                lock,
            },
            engine,
            move |engine| engine.resume(point, false),
        ))
    }

    /// Runs `engine` (as `run` drives it: from the start, or from where its
    /// journal left off) in a task of the server, a second task following
    /// its updates, and keeps it under its id.
    fn launch<F>(&self, launch: Launch, engine: Engine, run: impl FnOnce(Engine) -> F) -> Started
    where
        F: Future<Output = Result<(crate::protocol::Outcome, Box<dyn Protocol>), EngineError>>
            + Send
            + 'static,
    {
        let Launch {
            run_dir,
            who,
            label,
            updates,
            lock,
        } = launch;
        let dir = run_dir.path().to_path_buf();
        let controller = engine.controller();
        let debate = run(engine);
        let id = dir
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (state_tx, state_rx) = watch::channel(State::default());
        let state_tx = Arc::new(state_tx);
        let live = Arc::new(Live {
            id: id.clone(),
            dir: dir.clone(),
            who,
            controller,
            state: state_rx,
        });
        let follower = tokio::spawn(follow(updates, state_tx.clone(), live.clone()));
        // A person's rulings arrive from `quorum attach` through the
        // debate's inbox.
        let inbox = (who == Who::Person)
            .then(|| crate::engine::inbox::watch_inbox(&dir, live.controller.clone()));
        let run_dir_path = dir.clone();
        tokio::spawn(async move {
            let result = debate.await;
            if let Some(inbox) = inbox {
                inbox.abort();
            }
            // The record is complete; another quorum may take it now.
            drop(lock);
            // Every update the engine sent is in the state first.
            let _ = follower.await;
            if result.is_ok() {
                // Off the runtime's threads: the server's other debates go on.
                let filed = run_dir_path.clone();
                let _ =
                    tokio::task::spawn_blocking(move || super::super::library::file_ended(&filed))
                        .await;
            }
            state_tx.send_modify(|state| match result {
                Ok((outcome, protocol)) => {
                    state.result = Some(result_value(&outcome, protocol.as_ref(), &run_dir_path));
                }
                Err(EngineError::OverBudget(question)) => {
                    state.failure = Some(format!(
                        "stopped at the budget: {}; the record can be resumed with a higher budget",
                        question.describe()
                    ));
                }
                Err(error) => state.failure = Some(format!("{error:#}")),
            });
        });
        self.live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone(), live);
        Started {
            id,
            dir,
            label,
            who,
        }
    }

    /// Hands the caller's rulings to the debate: every id must be one of
    /// the items waiting, each item ruled on once, and, to submit, every
    /// waiting item must have a ruling. Nothing is sent when any check
    /// fails.
    pub(super) fn rule(
        &self,
        live: &Live,
        rulings: &[(String, ItemDecision, Option<String>)],
        submit: bool,
    ) -> Result<usize, String> {
        match live.who {
            Who::Caller => {}
            Who::Person => {
                return Err(format!(
                    "a person moderates {}: they rule in `quorum attach {}`, not through this tool",
                    live.id,
                    super::super::shell_path(&live.dir)
                ));
            }
            Who::Policy(policy) => {
                return Err(format!(
                    "{} is moderated by the `{}` policy: nothing waits for your rulings",
                    live.id,
                    policy.as_str()
                ));
            }
        }
        let state = live.state.borrow().clone();
        if state.ended() {
            return Err(format!("{} has ended: nothing waits for a ruling", live.id));
        }
        if state.waiting.is_empty() {
            return Err(format!(
                "nothing waits for a ruling in {} now (stage {}); `status` with wait_secs waits until something does",
                live.id, state.stage
            ));
        }
        let waiting: BTreeSet<&str> = state.waiting.iter().map(|item| item.id.as_str()).collect();
        let mut seen = BTreeSet::new();
        for (item, _, _) in rulings {
            if !waiting.contains(item.as_str()) {
                return Err(format!(
                    "rulings: `{item}` is not an item waiting for a ruling; the items are {}",
                    waiting.iter().copied().collect::<Vec<_>>().join(", ")
                ));
            }
            if !seen.insert(item.as_str()) {
                return Err(format!("rulings: `{item}` is ruled on twice"));
            }
        }
        if submit {
            let missing: Vec<&str> = waiting
                .iter()
                .copied()
                .filter(|id| !seen.contains(id) && !state.decided.contains_key(*id))
                .collect();
            if !missing.is_empty() {
                return Err(format!(
                    "rulings: to submit, every waiting item needs a ruling; none yet for {} (or set submit: false)",
                    missing.join(", ")
                ));
            }
        }
        for (item, decision, note) in rulings {
            live.controller.send(Command::Moderator(Input::ItemDecided {
                item_id: item.clone(),
                decision: *decision,
                note: note.clone(),
                ruler: Some(crate::protocol::Ruler::Caller),
            }));
        }
        if submit {
            live.controller
                .send(Command::Moderator(Input::ModerationSubmitted));
        }
        Ok(rulings.len())
    }
}

/// Keeps `state` up to date from a debate's updates (what `status`
/// shows, and the progress a waiting `status` call sends); a judge round
/// held for a missing judge is let go, as headless does, unless a person
/// moderates (they decide in `attach`).
async fn follow(
    mut updates: mpsc::UnboundedReceiver<Update>,
    state: Arc<watch::Sender<State>>,
    live: Arc<Live>,
) {
    let mut released = BTreeSet::new();
    while let Some(update) = updates.recv().await {
        match update {
            Update::Progress(progress) => state.send_modify(|state| {
                state.stage = progress.stage.clone();
                state.round = progress.round;
                state.max_round = progress.max_round;
            }),
            Update::Log(entry) => {
                let line = super::super::headless::progress_line(&entry);
                state.send_modify(|state| {
                    state.lines.push_back(line);
                    state.line_count += 1;
                    while state.lines.len() > KEPT_LINES {
                        state.lines.pop_front();
                    }
                });
            }
            Update::BudgetReached(question) => {
                let line = format!(
                    "{} waits at its budget ({}): a person decides in quorum attach {}",
                    live.id,
                    question.describe(),
                    super::super::shell_path(&live.dir)
                );
                state.send_modify(|state| state.budget = Some(line));
            }
            Update::BudgetDecided { .. } => state.send_modify(|state| state.budget = None),
            Update::ModerationNeeded { items } => {
                let asked = match live.who {
                    Who::Caller => Some("call `rule` with a ruling on each".to_string()),
                    Who::Person => Some(format!(
                        "a person rules in `quorum attach {}`",
                        super::super::shell_path(&live.dir)
                    )),
                    Who::Policy(_) => None,
                };
                if let Some(asked) = asked {
                    let line = format!(
                        "{} needs a ruling on {} item{} ({}): {asked}",
                        live.id,
                        items.len(),
                        if items.len() == 1 { "" } else { "s" },
                        items
                            .iter()
                            .map(|item| item.id.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                    state.send_modify(|state| state.asked = Some(line));
                }
                state.send_modify(|state| state.waiting = items);
            }
            Update::Board(board) => {
                if live.who == Who::Person && !board.held_calls.is_empty() {
                    // A judge's call is held: the person decides in
                    // `attach` whether to run it again or go on without it.
                    let line = format!(
                        "{} holds {} for a person's decision (run it again or go on without it): quorum attach {}",
                        live.id,
                        board.held_calls.join(", "),
                        super::super::shell_path(&live.dir)
                    );
                    state.send_modify(|state| state.held = Some(line));
                } else {
                    state.send_modify(|state| state.held = None);
                }
                if live.who != Who::Person {
                    for call_id in &board.held_calls {
                        if released.insert(call_id.clone()) {
                            live.controller.send(Command::Moderator(Input::Override {
                                call_id: call_id.clone(),
                                action: OverrideAction::Skip,
                            }));
                        }
                    }
                }
                state.send_modify(|state| {
                    state.decided = board
                        .items
                        .iter()
                        .filter_map(|item| Some((item.item.id.clone(), item.decision?)))
                        .collect();
                    if !board.needs_moderator {
                        state.waiting.clear();
                        state.asked = None;
                    }
                });
            }
            _ => {}
        }
    }
}

/// Says each new line of `live` as progress of the request whose token
/// is `token`, until something needs the caller, the debate ends or
/// `wait` runs out.
pub(super) async fn wait_for_news(
    live: &Live,
    peer: &Peer<RoleServer>,
    token: Option<rmcp::model::ProgressToken>,
    wait: std::time::Duration,
) {
    let mut state = live.state.clone();
    let mut said = state.borrow().line_count;
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        {
            let now = state.borrow_and_update().clone();
            if let Some(token) = &token {
                let new = now.line_count.saturating_sub(said).min(now.lines.len());
                for line in now.lines.iter().skip(now.lines.len() - new) {
                    let _ = peer
                        .notify_progress(
                            ProgressNotificationParam::new(token.clone(), now.line_count as f64)
                                .with_message(crate::text::sanitize(line)),
                        )
                        .await;
                }
            }
            said = now.line_count;
            let needs_caller =
                !now.waiting.is_empty() && matches!(live.who, Who::Caller | Who::Person);
            if now.ended() || needs_caller || now.held_for().is_some() {
                // What it waits for, said as progress too.
                let needs = now
                    .asked
                    .as_ref()
                    .filter(|_| needs_caller)
                    .or(now.held_for());
                if let (Some(token), Some(needs)) = (&token, needs) {
                    let _ = peer
                        .notify_progress(
                            ProgressNotificationParam::new(token.clone(), now.line_count as f64)
                                .with_message(crate::text::sanitize(needs)),
                        )
                        .await;
                }
                return;
            }
        }
        tokio::select! {
            changed = state.changed() => if changed.is_err() { return },
            () = tokio::time::sleep_until(deadline) => return,
        }
    }
}

/// The result of an ended debate: what `--json` prints, the items with
/// their rulings, and the files it delivered.
pub(super) fn result_value(
    outcome: &crate::protocol::Outcome,
    protocol: &dyn Protocol,
    dir: &Path,
) -> Value {
    let mut value = super::super::headless::result_json(outcome, protocol, dir);
    let items: Vec<Value> = protocol
        .board()
        .items
        .iter()
        .map(|item| {
            json!({
                "id": item.item.id,
                "about": item.item.about(),
                "severity": item.item.severity,
                "category": item.item.category,
                "text": item.item.text,
                "ruling": item.decision.map(|decision| decision.choose("accept", "reject", "defer")),
                "note": item.note,
                "evidence": item.evidence,
            })
        })
        .collect();
    let deliverables: Vec<String> = super::resources::files_of(dir)
        .into_iter()
        .map(|name| dir.join(name).display().to_string())
        .chain(
            protocol
                .publications()
                .into_iter()
                .map(|publication| publication.path.display().to_string()),
        )
        .collect();
    if let Value::Object(map) = &mut value {
        map.insert("items".into(), Value::Array(items));
        map.insert("deliverables".into(), json!(deliverables));
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Ruler;

    /// JM-65: the rulings an MCP caller gives through `rule` reach the
    /// debate as the caller's, never a person's, so the library counts
    /// none of them as a label.
    #[tokio::test]
    async fn jm_65_an_mcp_callers_rulings_are_the_callers() {
        let (controller, mut commands) = Controller::channel();
        let waiting = ["c1", "c2"].map(|id| ModerationItem {
            id: id.into(),
            ..ModerationItem::default()
        });
        let (_updates, state) = watch::channel(State {
            waiting: waiting.to_vec(),
            ..State::default()
        });
        let live = Live {
            id: "d1".into(),
            dir: PathBuf::from("d1"),
            who: Who::Caller,
            controller,
            state,
        };
        let debates = Debates::new(RunFlags::default(), PathBuf::from("."));
        let rulings = [
            ("c1".to_string(), ItemDecision::Reject, None),
            (
                "c2".to_string(),
                ItemDecision::Accept,
                Some("fine".to_string()),
            ),
        ];
        assert_eq!(debates.rule(&live, &rulings, true), Ok(2));
        for id in ["c1", "c2"] {
            match commands.recv().await {
                Some(Command::Moderator(Input::ItemDecided { item_id, ruler, .. })) => {
                    assert_eq!((item_id.as_str(), ruler), (id, Some(Ruler::Caller)));
                }
                other => panic!("not a ruling: {other:?}"),
            }
        }
        assert!(matches!(
            commands.recv().await,
            Some(Command::Moderator(Input::ModerationSubmitted))
        ));
    }
}
