//! Persist-on-collect, proven on the library engine (INF-02, INF-03, INF-04).
//!
//! A [`Spy`] protocol wraps the real decision review and delegates every
//! method to it. When the engine hands it a finished judge call, the spy first
//! looks at the disk: the judge's raw file must already exist and hold exactly
//! the text the protocol is about to parse, the journal must already end with
//! that input, and the protocol must not hold that answer yet. Only then is
//! the input passed on, after which the protocol must hold that very text
//! (the judge's file is the engine's: the protocol renders it no more).
use crate::support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use chrono::{Local, Utc};
use quorum::agent::script::{Script, ScriptAgent};
use quorum::artifact::{Journal, RunDir, read_journal};
use quorum::engine::{
    DebateDefinition, Engine, JournalEvent, ModerationPolicy, Moderator, RoleAgent, Roster, Update,
};
use quorum::prompts::PromptSet;
use quorum::protocol::decision_review::model::{
    Criterion, CritiqueMode, JudgeRole, Verdict, architecture_panel,
};
use quorum::protocol::decision_review::verdict::Thresholds;
use quorum::protocol::decision_review::{
    DecisionReview, Participants, ReviewConfig, ReviewMode, judge_slot_role,
};
use quorum::protocol::documents::Documents;
use quorum::protocol::{
    AnswerFile, Effect, Input, LogEntry, LogKind, Outcome, Progress, Protocol, Timestamp,
};
use serde_json::Value as Json;
use support::{ScriptBuilder, judge_config, judge_text, revision_text, scores};
use tokio::sync::mpsc;

/// The default deadline of every role in these tests.
const TIMEOUT: Duration = Duration::from_secs(600);

/// `judges/judge-{role}.md`, or `-round-{N}` from round 2 on, for a judge
/// call id such as `judge.analyst/evaluation/r2/a1` (INF-05, A8).
fn judge_file_of(call_id: &str) -> String {
    let mut parts = call_id.split('/');
    let slot = parts.next().expect("role slot");
    let role = slot.strip_prefix("judge.").expect("a judge call");
    assert_eq!(parts.next(), Some("evaluation"), "{call_id}");
    let round: u32 = parts
        .next()
        .and_then(|round| round.strip_prefix('r'))
        .and_then(|round| round.parse().ok())
        .unwrap_or_else(|| panic!("no round in {call_id}"));
    if round == 1 {
        format!("judges/judge-{role}.md")
    } else {
        format!("judges/judge-{role}-round-{round}.md")
    }
}

/// True when `contents` is `raw` as a judge file shows it: verbatim, or
/// verbatim behind the MALFORMED marker line (INF-07).
fn shows_verbatim(contents: &str, raw: &str) -> bool {
    contents == raw
        || contents.starts_with("<!-- MALFORMED: ")
            && contents.split_once('\n').map(|(_, rest)| rest) == Some(raw)
}

/// `(role, round)` of a judge call id.
fn judge_of(call_id: &str) -> (JudgeRole, u32) {
    let mut parts = call_id.split('/');
    let role = JudgeRole::of_slot(parts.next().unwrap()).expect("a judge call");
    let round = parts
        .nth(1)
        .and_then(|round| round.strip_prefix('r'))
        .and_then(|round| round.parse().ok())
        .expect("a round");
    (role, round)
}

/// Delegates everything to `inner`, checking persist-on-collect around
/// every finished judge call.
struct Spy {
    inner: DecisionReview,
    run_dir: PathBuf,
    /// Judge calls checked before the protocol saw them, in order.
    checked: Vec<String>,
    /// For each, how many answers journaled with it waited to be parsed.
    waiting: Vec<usize>,
}

impl Spy {
    fn new(inner: DecisionReview, run_dir: &Path) -> Self {
        Spy {
            inner,
            run_dir: run_dir.to_path_buf(),
            checked: Vec::new(),
            waiting: Vec::new(),
        }
    }

    fn answer_file(&self, path: &str) -> Option<AnswerFile> {
        self.inner
            .answer_files()
            .into_iter()
            .find(|file| file.path == path)
    }

    /// The answer the protocol holds for the judge of `call_id`.
    fn held(&self, call_id: &str) -> Option<String> {
        let (role, round) = judge_of(call_id);
        self.inner
            .evaluations()
            .iter()
            .find(|evaluation| evaluation.round == round)?
            .judges
            .get(&role)?
            .raw
            .clone()
    }

    /// The engine has collected a judge's answer and is about to apply it;
    /// returns how many answers journaled after it wait to be parsed.
    fn before_judge_input(&self, call_id: &str, output: &str) -> usize {
        let relative = judge_file_of(call_id);
        // INF-02: the raw file is on disk, verbatim, before anything else.
        let on_disk =
            std::fs::read_to_string(self.run_dir.join(&relative)).unwrap_or_else(|error| {
                panic!("{relative} is not on disk when {call_id} is applied: {error}")
            });
        // INF-04: what the protocol gets is what the file holds.
        assert_eq!(
            on_disk, output,
            "{relative} differs from the output handed to the protocol"
        );
        // The input is journaled (fsynced) before the protocol sees it; only
        // answers collected together with it (and their streamed text) may
        // follow it, each to be parsed in turn.
        let journal = read_journal::<Json>(&self.run_dir.join("journal.jsonl"))
            .expect("the journal reads back");
        let is_answer =
            |event: &Json| event["event"] == "input" && event["input"]["type"] == "call_finished";
        let position = journal
            .records
            .iter()
            .rposition(|record| {
                is_answer(&record.event) && record.event["input"]["call_id"] == call_id
            })
            .unwrap_or_else(|| panic!("{call_id} is not journaled before it is parsed"));
        assert_eq!(journal.records[position].event["input"]["output"], output);
        let after = &journal.records[position + 1..];
        for record in after {
            assert!(
                is_answer(&record.event) || record.event["event"] == "streamed",
                "{call_id}: only answers collected with it follow it: {}",
                record.event
            );
        }
        let waiting: Vec<String> = after
            .iter()
            .filter(|record| is_answer(&record.event))
            .map(|record| {
                record.event["input"]["call_id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        for other in &waiting {
            let relative = judge_file_of(other);
            assert!(
                self.run_dir.join(&relative).is_file(),
                "{relative}, collected with {call_id}, is on disk before either is parsed"
            );
        }
        // INF-03: the scores are not applied yet: the protocol does not hold
        // this answer.
        assert!(
            self.held(call_id).as_deref() != Some(output),
            "the protocol already holds {call_id}'s answer before it was applied"
        );
        waiting.len()
    }

    /// The protocol has applied the judge's answer: it holds it verbatim,
    /// and a file it keeps marked (an answer that could not be read) shows
    /// it verbatim too.
    fn after_judge_input(&self, call_id: &str, output: &str) {
        assert_eq!(
            self.held(call_id).as_deref(),
            Some(output),
            "the protocol did not take {call_id}'s answer as persisted"
        );
        let relative = judge_file_of(call_id);
        if let Some(file) = self.answer_file(&relative) {
            let contents = file.for_disk();
            assert!(
                shows_verbatim(&contents, output),
                "{relative} as the protocol marks it is not the persisted output:\n{contents}"
            );
        }
    }
}

impl Protocol for Spy {
    fn start(&mut self, now: Timestamp) -> Vec<Effect> {
        self.inner.start(now)
    }

    fn handle(&mut self, input: &Input, now: Timestamp) -> Vec<Effect> {
        let judge_output = match input {
            Input::CallFinished {
                call_id, output, ..
            } if call_id.starts_with("judge.") => Some((call_id.clone(), output.clone())),
            _ => None,
        };
        if let Some((call_id, output)) = &judge_output {
            let waiting = self.before_judge_input(call_id, output);
            self.waiting.push(waiting);
        }
        let effects = self.inner.handle(input, now);
        if let Some((call_id, output)) = judge_output {
            self.after_judge_input(&call_id, &output);
            self.checked.push(call_id);
        }
        effects
    }

    fn progress(&self) -> Progress {
        self.inner.progress()
    }

    fn log(&self) -> &[LogEntry] {
        self.inner.log()
    }

    fn render_documents(&self, out: &mut Documents<'_>) {
        self.inner.render_documents(out)
    }

    fn answer_files(&self) -> Vec<AnswerFile> {
        self.inner.answer_files()
    }

    fn outcome(&self) -> Option<&Outcome> {
        self.inner.outcome()
    }
}

impl quorum::protocol::Questions for Spy {
    fn describe(&self) -> quorum::protocol::Description {
        self.inner.describe()
    }

    fn summary_lead(&self) -> Option<String> {
        self.inner.summary_lead()
    }
}

/// What one engine run left behind.
struct Finished {
    _temp: tempfile::TempDir,
    run_dir: PathBuf,
    outcome: Outcome,
    checked: Vec<String>,
    waiting: Vec<usize>,
    updates: Vec<Update>,
}

/// Runs a decision review on `script` through the engine with a [`Spy`],
/// as `quorum run` would (accept every critique item); `timeouts` sets the
/// deadline of some roles.
async fn run_spied(script: Script, timeouts: &[(&str, Duration)]) -> Finished {
    let (ran, left) = run_spied_in(script, timeouts, |_| {}).await;
    let (outcome, checked, waiting) = ran.expect("the engine runs to an outcome");
    Finished {
        _temp: left.temp,
        run_dir: left.run_dir,
        outcome,
        checked,
        waiting,
        updates: left.updates,
    }
}

/// What a run left whether or not the engine returned an outcome.
struct Left {
    temp: tempfile::TempDir,
    run_dir: PathBuf,
    updates: Vec<Update>,
}

/// What an engine run returned: the outcome and the spy's findings.
type Ran = Result<(Outcome, Vec<String>, Vec<usize>), quorum::engine::EngineError>;

/// [`run_spied`], with `prepare` given the run folder before the engine
/// starts, and whatever the engine returned.
async fn run_spied_in(
    script: Script,
    timeouts: &[(&str, Duration)],
    prepare: impl FnOnce(&Path),
) -> (Ran, Left) {
    run_controlled(script, timeouts, prepare, |_| {}).await
}

/// [`run_spied_in`], with `control` given the engine's controller before
/// it starts.
async fn run_controlled(
    script: Script,
    timeouts: &[(&str, Duration)],
    prepare: impl FnOnce(&Path),
    control: impl FnOnce(quorum::engine::Controller),
) -> (Ran, Left) {
    let temp = tempfile::tempdir().expect("temporary folder");
    let run_dir = RunDir::create(temp.path(), "persist-on-collect", Local::now()).expect("run dir");
    prepare(run_dir.path());
    let script = Arc::new(script);
    let panel = architecture_panel(false);
    let mut roster = Roster::default();
    let mut participants = Participants::default();
    let slots = ["proposer".to_string(), "critic".to_string()]
        .into_iter()
        .chain(panel.iter().map(|judge| judge_slot_role(judge.role)));
    for slot in slots {
        let agent = Arc::new(ScriptAgent::new(script.clone(), 1.0));
        let id = quorum::agent::Agent::info(agent.as_ref()).to_string();
        match slot.strip_prefix("judge.").and_then(JudgeRole::parse) {
            Some(judge) => {
                participants.judges.insert(judge, id);
            }
            None if slot == "proposer" => participants.proposer = id,
            None => participants.critic = id,
        }
        let timeout = timeouts
            .iter()
            .find(|(role, _)| *role == slot)
            .map_or(TIMEOUT, |(_, timeout)| *timeout);
        roster.insert(slot, RoleAgent { agent, timeout });
    }
    let config = ReviewConfig {
        topic: "Should the raw judge files be written first?".to_string(),
        context: Vec::new(),
        mode: ReviewMode::Architecture,
        options: Vec::new(),
        critique_mode: CritiqueMode::default(),
        high_stakes: false,
        panel,
        max_rounds: 2,
        thresholds: Thresholds::default(),
        participants,
        started_at: Utc::now(),
        hold_for_moderator: false,
        checks_rulings: true,
        fairness: Default::default(),
        handed: None,
        sources: Vec::new(),
        checks_evidence: true,
        weighs_payoff: true,
        stability: Default::default(),
        calibration: Vec::new(),
    };
    let mut journal = Journal::create(&run_dir.path().join("journal.jsonl")).expect("journal");
    journal
        .append(
            Utc::now(),
            &JournalEvent::DebateStarted {
                definition: Box::new(DebateDefinition::from(config.clone())),
                setup: None,
            },
        )
        .expect("journal the definition");
    let protocol = Spy::new(
        DecisionReview::new(config, Arc::new(PromptSet::builtin())),
        run_dir.path(),
    );
    let (updates_tx, mut updates_rx) = mpsc::unbounded_channel();
    let engine = Engine::new(
        Box::new(protocol),
        run_dir.clone(),
        journal,
        roster,
        Moderator::policy(ModerationPolicy::Accept),
        updates_tx,
    );
    control(engine.controller());
    let ran = engine
        .run()
        .await
        .map(|(outcome, spy)| (outcome, spy.checked, spy.waiting));
    let mut updates = Vec::new();
    while let Ok(update) = updates_rx.try_recv() {
        updates.push(update);
    }
    let left = Left {
        temp,
        run_dir: run_dir.path().to_path_buf(),
        updates,
    };
    (ran, left)
}

/// The checks every run shares: the spy checked exactly the judge calls the
/// journal records as finished; each judge file still holds the journaled
/// output; and the engine announced each file before logging the answer.
fn check_against_journal(finished: &Finished) -> Vec<String> {
    let journal = read_journal::<Json>(&finished.run_dir.join("journal.jsonl"))
        .expect("the journal reads back");
    assert!(journal.torn_tail.is_none());
    let judge_outputs: Vec<(String, String)> = journal
        .records
        .iter()
        .map(|record| &record.event)
        .filter(|event| {
            event["event"] == "input"
                && event["input"]["type"] == "call_finished"
                && event["input"]["call_id"]
                    .as_str()
                    .is_some_and(|id| id.starts_with("judge."))
        })
        .map(|event| {
            (
                event["input"]["call_id"].as_str().unwrap().to_string(),
                event["input"]["output"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let journaled: Vec<&String> = judge_outputs.iter().map(|(id, _)| id).collect();
    let checked: Vec<&String> = finished.checked.iter().collect();
    assert_eq!(
        checked, journaled,
        "every finished judge call was checked before it was applied, in journal order"
    );

    for (call_id, output) in &judge_outputs {
        let relative = judge_file_of(call_id);
        let contents = std::fs::read_to_string(finished.run_dir.join(&relative))
            .unwrap_or_else(|error| panic!("{relative}: {error}"));
        assert!(
            shows_verbatim(&contents, output),
            "{relative} does not hold the journaled output of {call_id}"
        );

        // The file was announced on disk before the answer was logged.
        let persisted = finished
            .updates
            .iter()
            .position(|update| {
                matches!(update, Update::RawPersisted { call_id: id, path }
                    if id == call_id && *path == relative)
            })
            .unwrap_or_else(|| panic!("no RawPersisted update for {call_id}"));
        let answered = finished
            .updates
            .iter()
            .position(|update| {
                matches!(update, Update::Log(entry)
                    if entry.kind == LogKind::CallFinished
                        && entry.call_id.as_deref() == Some(call_id.as_str()))
            })
            .unwrap_or_else(|| panic!("no CallFinished log entry for {call_id}"));
        assert!(
            persisted < answered,
            "{call_id}: the file must be on disk before the answer is applied"
        );
    }
    journaled.into_iter().cloned().collect()
}

/// INF-02, INF-03, INF-04: on the ADOPT path every judge's raw file is on
/// disk, verbatim, before the protocol applies its scores, and the protocol
/// parses exactly what the file holds.
#[tokio::test(start_paused = true)]
async fn inf_02_03_04_judge_raw_files_are_on_disk_before_their_scores_are_applied() {
    let finished = run_spied(ScriptBuilder::adopt_path().build(), &[]).await;
    assert!(
        matches!(&finished.outcome, Outcome::Decided { verdict, .. } if *verdict == Verdict::Adopt),
        "{:?}",
        finished.outcome
    );
    let judges = check_against_journal(&finished);
    assert_eq!(
        finished.checked.len(),
        3,
        "one check per judge call: {judges:?}"
    );
    let mut files: Vec<String> = judges.iter().map(|id| judge_file_of(id)).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "judges/judge-aesthete.md",
            "judges/judge-analyst.md",
            "judges/judge-stylist.md"
        ]
    );
}

/// INF-02, INF-03: judges that answer at the same moment are journaled
/// together (one fsync) and every raw file is on disk before the first of
/// them is parsed; then each is parsed in the journal's order.
#[tokio::test(start_paused = true)]
async fn inf_02_03_judges_answering_together_are_all_persisted_before_the_first_is_parsed() {
    let mut script = ScriptBuilder::adopt_path().build();
    script.pace.first_token_ms = 100;
    script.pace.chars_per_second = u32::MAX;
    script.pace.chunk_chars = 1 << 20;
    let finished = run_spied(script, &[]).await;
    assert!(
        matches!(&finished.outcome, Outcome::Decided { .. }),
        "{:?}",
        finished.outcome
    );
    let judges = check_against_journal(&finished);
    assert_eq!(judges.len(), 3, "{judges:?}");
    assert_eq!(
        finished.waiting,
        [2, 1, 0],
        "all three were on record and on disk before the first was parsed"
    );
}

/// INF-02..05, INF-07: the same holds in a second round (`-round-2` files),
/// for a judge answering on its retry after a timeout, and for a malformed
/// answer, which is on disk verbatim before the protocol marks it.
#[tokio::test(start_paused = true)]
async fn inf_03_round_two_retried_and_malformed_judges_are_persisted_first() {
    let analyst = judge_config(JudgeRole::Analyst, false);
    let script = ScriptBuilder::adopt_path()
        .reply(
            "judge.analyst",
            "evaluation",
            Some(1),
            None,
            &judge_text(
                &analyst,
                scores(4, &[("b2", Criterion::Feasibility, 2)]),
                [4, 4, 4],
            ),
        )
        .reply(
            "proposer",
            "revision",
            Some(2),
            None,
            &revision_text(&["d1"]),
        )
        .fault("judge.stylist", "evaluation", Some(1), Some(1), "timeout")
        .fault("judge.aesthete", "evaluation", Some(2), None, "malformed")
        .build();
    let finished = run_spied(script, &[("judge.stylist", Duration::from_secs(5))]).await;
    assert!(
        matches!(&finished.outcome, Outcome::Decided { .. }),
        "{:?}",
        finished.outcome
    );
    let judges = check_against_journal(&finished);
    assert_eq!(
        judges.len(),
        6,
        "three judges in each of two rounds: {judges:?}"
    );
    assert!(judges.contains(&"judge.stylist/evaluation/r1/a2".to_string()));
    assert!(judges.contains(&"judge.aesthete/evaluation/r2/a1".to_string()));
    let malformed =
        std::fs::read_to_string(finished.run_dir.join("judges/judge-aesthete-round-2.md")).unwrap();
    assert!(malformed.starts_with("<!-- MALFORMED: "), "{malformed}");
    for round_two in ["analyst", "stylist", "aesthete"] {
        assert!(
            finished
                .run_dir
                .join(format!("judges/judge-{round_two}-round-2.md"))
                .is_file()
        );
    }
}

/// A rewrite of the artifact files that fails while the debate goes on (it
/// runs off the engine's thread) ends the debate with an error naming the
/// file, leaves no temporary file behind, and loses nothing journaled.
#[tokio::test(start_paused = true)]
async fn a_rewrite_that_fails_in_the_background_stops_the_debate_and_names_the_file() {
    let (ran, finished) = run_spied_in(ScriptBuilder::adopt_path().build(), &[], |dir| {
        std::fs::create_dir(dir.join("transcript.md")).unwrap();
    })
    .await;
    let error = ran
        .expect_err("a folder stands where transcript.md goes")
        .to_string();
    assert!(error.contains("transcript.md"), "{error}");
    let names: Vec<String> = std::fs::read_dir(&finished.run_dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|name| name.starts_with(".transcript.md.")),
        "{names:?}"
    );
    let journal = read_journal::<Json>(&finished.run_dir.join("journal.jsonl")).unwrap();
    assert!(journal.torn_tail.is_none());
    assert!(journal.records.len() >= 2, "the debate got under way");
}

/// A stalled call given more time still times out, at the later deadline:
/// the call task polls its deadline only now and then, and after the first
/// deadline fired it must poll it again to be woken by the second.
#[tokio::test(start_paused = true)]
async fn a_stalled_call_given_more_time_times_out_at_the_later_deadline() {
    let script = ScriptBuilder::adopt_path()
        .fault("critic", "critique", Some(1), Some(1), "timeout")
        .build();
    let started = tokio::time::Instant::now();
    let timeouts = [("critic", Duration::from_secs(5))];
    let run = run_controlled(
        script,
        &timeouts,
        |_| {},
        |controller| {
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_secs(4)).await;
                controller.send(quorum::engine::Command::Moderator(Input::Override {
                    call_id: "critic/critique/r1/a1".to_string(),
                    action: quorum::protocol::OverrideAction::WaitLonger { extra_ms: 5_000 },
                }));
            });
        },
    );
    let (ran, left) = tokio::time::timeout(Duration::from_secs(3_600), run)
        .await
        .expect("the stalled call timed out and the debate went on");
    ran.expect("the debate ends");
    let journal = read_journal::<Json>(&left.run_dir.join("journal.jsonl")).unwrap();
    let failed = journal
        .records
        .iter()
        .find(|record| {
            record.event["input"]["type"] == "call_failed"
                && record.event["input"]["call_id"] == "critic/critique/r1/a1"
        })
        .expect("the first critique timed out");
    assert_eq!(
        failed.event["input"]["failure"]["kind"], "timed_out",
        "{}",
        failed.event
    );
    assert!(
        started.elapsed() >= Duration::from_secs(10),
        "not before the later deadline: {:?}",
        started.elapsed()
    );
}

/// A judge's agent that notes, once the engine has gone back to waiting
/// (the paused clock moves only then), whether the judges' folder is made.
struct Watching {
    inner: Arc<dyn quorum::agent::Agent>,
    /// The judges' folder, known once the run folder is made.
    folder: Arc<std::sync::OnceLock<PathBuf>>,
    seen: Arc<std::sync::Mutex<Vec<bool>>>,
}

impl quorum::agent::Agent for Watching {
    fn info(&self) -> quorum::agent::AgentInfo {
        self.inner.info()
    }

    fn call<'a>(
        &'a self,
        request: quorum::agent::CallRequest,
        events: quorum::agent::EventSender,
    ) -> futures::future::BoxFuture<'a, Result<quorum::agent::CallOutput, quorum::agent::AgentError>>
    {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(1)).await;
            let folder = self.folder.get().expect("the run folder is made");
            self.seen.lock().unwrap().push(folder.is_dir());
            self.inner.call(request, events).await
        })
    }
}

/// INF-03, INF-05: the folder the judges' raw files go to is made while the
/// judges are out, so writing the files when their answers land (before
/// anything is parsed) costs no new folder and no fsync of its parent.
#[tokio::test(start_paused = true)]
async fn inf_03_the_judges_folder_is_made_while_they_are_out_not_when_they_answer() {
    let out = tempfile::tempdir().unwrap();
    let flags = quorum::cli::RunFlags {
        out: out.path().to_path_buf(),
        speed: 1.0,
        ..quorum::cli::RunFlags::default()
    };
    let mut prepared = quorum::cli::prepare(quorum::cli::Source::Demo, &flags).unwrap();
    let folder = Arc::new(std::sync::OnceLock::new());
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    for judge in architecture_panel(false) {
        let role = judge_slot_role(judge.role);
        let judge = prepared.roster.get(&role).expect("a judge slot").clone();
        let watching = Watching {
            inner: judge.agent,
            folder: folder.clone(),
            seen: seen.clone(),
        };
        prepared.roster.insert(
            role,
            RoleAgent {
                agent: Arc::new(watching),
                timeout: judge.timeout,
            },
        );
    }
    let (engine, run_dir, _updates) = support::review_engine(prepared, out.path(), "folders");
    folder.set(run_dir.path().join("judges")).unwrap();
    engine.run().await.expect("the demo debate ends");
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty(), "the judges were called");
    assert!(
        seen.iter().all(|made| *made),
        "made before any judge answered: {seen:?}"
    );
}
