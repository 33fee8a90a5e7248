//! Proof that a protocol is its rules and nothing else (issue 31): a
//! seventh protocol, the devil's advocate debate of `devils_advocate/`,
//! defined here with quorum's public API only, registered at run time and
//! then run by the real engine headless and in a `TestBackend` interface,
//! journaled, resumed after a cut at every record, replayed, opened and its
//! verdict recomputed: the conformance suite every built-in protocol
//! passes, and the commands a person types, in-process.

mod devils_advocate;
mod support;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use devils_advocate::{DEMO, INFO, KIND, NAME};
use quorum::cli::Source;
use quorum::protocol::kind::{CommandSpec, KindInfo, ProtocolKind};
use quorum::protocol::registry;
use support::conformance;

/// `quorum ARGS…` in this process, with the seventh protocol registered;
/// its exit code.
async fn quorum(args: &[&str]) -> ExitCode {
    devils_advocate::register();
    let invocation = quorum::cli::parse_from(std::iter::once("quorum").chain(args.iter().copied()));
    quorum::cli::run(invocation).await
}

/// The one debate folder under `out`.
fn run_folder(out: &Path) -> PathBuf {
    let entries: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries[0].clone()
}

/// The demo, headless, every objection decided by `moderation`; the folder.
async fn demo(out: &Path, moderation: &str) -> (ExitCode, PathBuf) {
    let code = quorum(&[
        "demo",
        "--protocol",
        NAME,
        "--headless",
        "--speed",
        "100",
        "--moderation",
        moderation,
        "--out",
        out.to_str().unwrap(),
    ])
    .await;
    (code, run_folder(out))
}

#[test]
fn it_joins_the_registry_once_and_clashes_are_refused() {
    devils_advocate::register();
    devils_advocate::register();
    let found: Vec<&str> = registry::kinds()
        .iter()
        .map(|kind| kind.name())
        .filter(|name| *name == NAME)
        .collect();
    assert_eq!(found, [NAME], "registered once");
    assert!(registry::find(NAME).is_some());
    assert_eq!(
        registry::find_command("advocate").map(|(kind, _)| kind.name()),
        Some(NAME)
    );
    assert!(registry::known_slot("referee"));
    assert!(
        registry::templates()
            .iter()
            .any(|template| template.file_name == "advocate-case.md.j2")
    );

    static SAME_NAME: Renamed = Renamed(INFO);
    let error = registry::register(&SAME_NAME).unwrap_err();
    assert!(error.contains("already known"), "{error}");
    static TAKES_REVIEW: Renamed = Renamed(KindInfo {
        name: "another",
        commands: &[command("review")],
        ..INFO
    });
    let error = registry::register(&TAKES_REVIEW).unwrap_err();
    assert!(error.contains("`review`"), "{error}");
    static TAKES_RUN: Renamed = Renamed(KindInfo {
        name: "yet-another",
        commands: &[command("run")],
        ..INFO
    });
    let error = quorum::cli::register(&TAKES_RUN).unwrap_err();
    assert!(error.contains("quorum's own"), "{error}");
    // A template of the same file name would silently replace the other's.
    static SAME_TEMPLATES: Renamed = Renamed(KindInfo {
        name: "copycat",
        commands: &[command("copycat")],
        ..INFO
    });
    let error = registry::register(&SAME_TEMPLATES).unwrap_err();
    assert!(error.contains("advocate-case.md.j2"), "{error}");
    static SHARED_TEMPLATE: Renamed = Renamed(KindInfo {
        name: "repairer",
        commands: &[command("repairer")],
        templates: &[quorum::prompts::REPAIR_TEMPLATE],
        ..INFO
    });
    let error = registry::register(&SHARED_TEMPLATE).unwrap_err();
    assert!(error.contains("repair.md.j2"), "{error}");
    for refused in ["another", "yet-another", "copycat", "repairer"] {
        assert!(registry::find(refused).is_none(), "{refused}");
    }
}

/// Its roster is where its seats are declared: every seat's slot reads
/// back into its role and a slot it does not seat into none, and its role
/// slots are those it declared before the roster (issue 63).
#[test]
fn its_roster_reads_slots_back_into_roles_and_gives_its_role_slots() {
    use devils_advocate::Role;
    use quorum::protocol::RoleGroup;
    use quorum::protocol::kind::{Configure, RoleSlot};
    use quorum::protocol::supervision::Slot;

    let roster = devils_advocate::roster();
    let seated: Vec<(&str, Option<Role>)> = roster
        .seats()
        .iter()
        .map(|seat| {
            let slot = Slot::new(seat.slot.clone(), "case", 1);
            (seat.slot.as_str(), roster.role_of(&slot))
        })
        .collect();
    assert_eq!(
        seated,
        [
            ("proposer", Some(Role::Proposer)),
            ("devil", Some(Role::Devil)),
            ("referee", Some(Role::Referee)),
        ]
    );
    for unknown in ["judge.analyst", "critic", ""] {
        assert_eq!(roster.role_of(&Slot::new(unknown, "case", 1)), None);
    }
    let configured = KIND.configure(&Configure::default()).unwrap();
    assert_eq!(
        configured.roles(),
        [
            RoleSlot::new("proposer", RoleGroup::Lead),
            RoleSlot::new("devil", RoleGroup::Challenger),
            RoleSlot::new("referee", RoleGroup::Panel),
        ]
    );
}

/// The seventh protocol under another name, command or templates, to be
/// refused.
struct Renamed(KindInfo);

/// The seventh protocol's command under another name.
const fn command(name: &'static str) -> CommandSpec {
    CommandSpec {
        name,
        ..INFO.commands[0]
    }
}

impl ProtocolKind for Renamed {
    fn info(&self) -> &KindInfo {
        &self.0
    }
    fn configure(
        &self,
        input: &quorum::protocol::kind::Configure<'_>,
    ) -> Result<Box<dyn quorum::protocol::kind::Configured>, quorum::located::SpecError> {
        KIND.configure(input)
    }
    fn build(
        &self,
        input: quorum::protocol::kind::Build<'_>,
    ) -> Result<Box<dyn quorum::protocol::Protocol>, String> {
        KIND.build(input)
    }
}

/// The conformance suite of every built-in protocol: persist before parse,
/// the fold equal to the live state after every record, resume from a cut
/// at any record to the same files, replay, and the interface drawing it
/// at 80×24 and 200×60.
#[tokio::test(start_paused = true)]
async fn it_passes_the_conformance_suite() {
    devils_advocate::register();
    let whole = conformance::record_whole(NAME, Source::DemoOf(NAME.into()), Vec::new()).await;
    conformance::check_persisted(NAME, &whole);
    assert_eq!(
        whole.spy.raw_paths.len(),
        4,
        "every answer has its raw file"
    );
    conformance::check_fold(NAME, &whole);
    let resumed = conformance::check_resume(NAME, &whole).await;
    assert!(resumed >= 5, "only {resumed} cuts resumed");
    let mut screens = Vec::new();
    conformance::check_replay(NAME, &whole, |moment, app| {
        for (width, height) in [(80u16, 24u16), (200, 60)] {
            screens.push((moment.to_string(), conformance::draw(app, width, height)));
        }
    });
    for (moment, screen) in &screens[..2] {
        assert!(
            screen.contains("Referee") && screen.contains("Devil"),
            "{moment}:\n{screen}"
        );
    }
    for (moment, screen) in &screens[2..] {
        assert!(screen.contains("ADOPT"), "{moment}:\n{screen}");
    }
}

/// The demo honours the rulings: accepted objections are answered in the
/// defence and the referee adopts; rejected ones are not answered and the
/// referee says the case was set aside: revise.
#[tokio::test]
async fn its_demo_runs_headless_and_binds_the_rulings() {
    let accepted = tempfile::tempdir().unwrap();
    let (code, dir) = demo(accepted.path(), "accept").await;
    assert_eq!(code, ExitCode::SUCCESS);
    let defence = std::fs::read_to_string(dir.join("rounds/defence-proposer.md")).unwrap();
    assert!(
        defence.contains("o1:") && defence.contains("o2:"),
        "{defence}"
    );
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(summary.starts_with("# ADOPT"), "{summary}");
    let record = std::fs::read_to_string(dir.join("debate.yaml")).unwrap();
    assert!(record.contains("ruling: accepted"), "{record}");

    let rejected = tempfile::tempdir().unwrap();
    let (code, dir) = demo(rejected.path(), "reject").await;
    assert_eq!(code, ExitCode::from(3), "revise");
    let defence = std::fs::read_to_string(dir.join("rounds/defence-proposer.md")).unwrap();
    assert!(
        !defence.contains("o1:") && !defence.contains("o2:"),
        "a rejected objection is not acted on: {defence}"
    );
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(summary.starts_with("# REVISE"), "{summary}");
}

/// Its command, `quorum run` of its demo spec, `quorum verdict`, `quorum
/// replay`, `quorum open` and `quorum resume` all reach it through the
/// registry.
#[tokio::test]
async fn every_command_knows_it() {
    let out = tempfile::tempdir().unwrap();
    let spec = out.path().join("advocate.yaml");
    std::fs::write(&spec, DEMO).unwrap();
    let root = out.path().join("debates");
    let code = quorum(&[
        "run",
        spec.to_str().unwrap(),
        "--headless",
        "--speed",
        "100",
        "--out",
        root.to_str().unwrap(),
    ])
    .await;
    assert_eq!(code, ExitCode::SUCCESS);
    let dir = run_folder(&root);
    let dir_arg = dir.to_str().unwrap();

    assert_eq!(quorum(&["verdict", dir_arg]).await, ExitCode::SUCCESS);
    let recomputed = KIND
        .recompute(&quorum::input::RecordFolder::new(&dir), None)
        .unwrap();
    assert_eq!(recomputed.verdict, Some(quorum::protocol::Verdict::Adopt));
    assert!(
        recomputed.rule.contains("scored 4 of 5"),
        "{}",
        recomputed.rule
    );

    let journal = std::fs::read(dir.join("journal.jsonl")).unwrap();
    assert_eq!(
        quorum(&["replay", dir_arg, "--headless", "--speed", "1000"]).await,
        ExitCode::SUCCESS
    );
    assert_eq!(
        quorum(&["open", dir_arg, "--headless", "--json"]).await,
        ExitCode::SUCCESS
    );
    assert_eq!(
        std::fs::read(dir.join("journal.jsonl")).unwrap(),
        journal,
        "replay and open write nothing"
    );

    // A finished debate resumed is already done: same verdict, same files.
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert_eq!(
        quorum(&["resume", dir_arg, "--headless"]).await,
        ExitCode::SUCCESS
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("summary.md")).unwrap(),
        summary
    );

    // Recomputed from a record whose score was edited, the verdict follows.
    let record = std::fs::read_to_string(dir.join("debate.yaml")).unwrap();
    std::fs::write(
        dir.join("debate.yaml"),
        record.replace("score: 4", "score: 2"),
    )
    .unwrap();
    assert_eq!(quorum(&["verdict", dir_arg]).await, ExitCode::from(4));
}
