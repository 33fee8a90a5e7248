//! The conformance suite every protocol passes: the decision review, each
//! quick mode, the planning debate and the root-cause analysis, each on its
//! built-in demo, through the same code paths.
//!
//! For every protocol:
//! - **persist before parse**: when the protocol is handed an answer, it is
//!   already the journal's last record, and a call with a raw-output file
//!   has that file on disk, verbatim (INF-02, INF-03);
//! - **the fold equals the live state after every record**: folding any
//!   prefix of the journal gives the documents, board and progress the live
//!   protocol had at that point;
//! - **resume after a cut at any record gives the same files**: the journal
//!   cut after each record and resumed ends as the uninterrupted run did;
//! - **replay plays it**: the recorded moments, fed to the interface in
//!   replay mode, end where the debate ended;
//! - **the interface draws it** at 80×24 and 200×60 (insta snapshots), mid
//!   debate and at the end;
//! - **no secret is written**: run by the real binary with canary keys in
//!   the environment, no byte of them lands in any file.
//!
//! Tokio's clock is paused, so the scripted agents pace in virtual time.

use crate::support;

use quorum::cli::Source;
use support::conformance::{self, Whole};

/// Every protocol's demo, by the name `quorum demo --protocol` takes.
const PROTOCOLS: [&str; 11] = [
    "decision-review",
    "comparative",
    "writing",
    "challenge",
    "panel",
    "premortem",
    "redteam",
    "adversary",
    "plan",
    "rca",
    "council",
];

fn source(name: &str) -> Source {
    match name {
        "decision-review" | "comparative" | "writing" => Source::Demo,
        other => Source::DemoOf(other.to_string()),
    }
}

/// The flags that pick `name`'s demo besides its source: the decision
/// review's writing mode is `quorum demo --mode writing`.
fn demo_flags(name: &str) -> Vec<quorum::protocol::kind::FlagValue> {
    match name {
        "writing" | "comparative" => vec![quorum::protocol::kind::FlagValue {
            flag: "--mode".into(),
            key: "mode".into(),
            value: name.into(),
        }],
        // A council's deliverable pair goes to a folder of its own, not
        // into the working directory of the tests.
        "council" => vec![quorum::protocol::kind::FlagValue {
            flag: "--outputs".into(),
            key: "outputs".into(),
            value: tempfile::tempdir()
                .unwrap()
                .keep()
                .display()
                .to_string()
                .into(),
        }],
        _ => Vec::new(),
    }
}

/// Runs `name`'s demo in-process, every item accepted, with the spy.
async fn record_whole(name: &str) -> Whole {
    conformance::record_whole(name, source(name), demo_flags(name)).await
}

/// Persist before parse (INF-02, INF-03), for every protocol.
#[tokio::test(start_paused = true)]
async fn every_protocol_persists_before_it_parses() {
    for name in PROTOCOLS {
        let whole = record_whole(name).await;
        conformance::check_persisted(name, &whole);
        let with_files = whole.spy.raw_paths.len();
        if name == "decision-review" || name == "panel" {
            assert!(with_files >= 3, "{name}: its judges or reviewers persist");
        }
    }
}

/// The fold of any journal prefix is the state the live protocol had then.
#[tokio::test(start_paused = true)]
async fn every_protocols_fold_equals_its_live_state_after_every_record() {
    for name in PROTOCOLS {
        conformance::check_fold(name, &record_whole(name).await);
    }
}

/// Cut after any record and resumed, every protocol ends with the files of
/// the uninterrupted run, and loses no answer or decision.
#[tokio::test(start_paused = true)]
async fn every_protocol_resumes_from_any_cut_to_the_same_files() {
    for name in PROTOCOLS {
        let resumed = conformance::check_resume(name, &record_whole(name).await).await;
        assert!(resumed >= 5, "{name}: only {resumed} cuts resumed");
    }
}

/// The recorded moments of a debate played back in the interface end where
/// the debate ended, and the interface draws every protocol at both sizes.
#[tokio::test(start_paused = true)]
async fn every_protocol_replays_and_draws() {
    for name in PROTOCOLS {
        let whole = record_whole(name).await;
        conformance::check_replay(name, &whole, |moment, app| {
            for (width, height) in [(80u16, 24u16), (200, 60)] {
                let screen = conformance::draw(app, width, height);
                insta::assert_snapshot!(
                    format!("conformance_{name}_{moment}_{width}x{height}"),
                    screen
                );
            }
        });
    }
}

/// Canary keys in the environment never reach a file of any protocol's
/// debate, run by the real binary.
#[test]
fn no_protocol_writes_a_secret() {
    const CANARY: &str = "sk-canary-0f1e2d3c4b5a69788796a5b4c3d2e1f0";
    for name in PROTOCOLS {
        let sandbox = support::run::Sandbox::new();
        let out = sandbox.out();
        let mut args = vec!["demo", "--headless", "--speed", "50", "--json"];
        match name {
            "decision-review" => {}
            "comparative" => args.extend(["--mode", "comparative"]),
            "writing" => args.extend(["--mode", "writing"]),
            _ => args.extend(["--protocol", name]),
        }
        args.extend(["--out", out.to_str().unwrap()]);
        let ran = sandbox.quorum(
            &args,
            &[
                ("OPENAI_API_KEY", CANARY),
                ("ANTHROPIC_API_KEY", CANARY),
                ("QUORUM_TEST_SECRET", CANARY),
            ],
        );
        // 8: the rca demo headless leaves a rival standing (EV-07, A28).
        assert!(
            [0, 3, 5, 6, 8].contains(&ran.code),
            "{name}: {}\n{}",
            ran.stdout,
            ran.stderr
        );
        let outputs = sandbox.path().join(".outputs");
        let published = if outputs.exists() {
            support::files_under(&outputs)
        } else {
            Default::default()
        };
        for (path, bytes) in support::files_under(&out).into_iter().chain(published) {
            assert!(
                !String::from_utf8_lossy(&bytes).contains(CANARY),
                "{name}: {path} holds the canary"
            );
        }
        assert!(!ran.stdout.contains(CANARY) && !ran.stderr.contains(CANARY));
    }
}

/// A person's typed answer (`--human`) is refused before any protocol's
/// parser when it is blank or its call waits for none: the shared skeleton
/// checks both, the same way for every protocol, and names the fault.
#[test]
fn every_protocol_refuses_a_blank_answer_and_one_for_no_call() {
    for name in PROTOCOLS {
        let out = tempfile::tempdir().unwrap();
        let flags = quorum::cli::RunFlags {
            options: demo_flags(name),
            out: out.path().to_path_buf(),
            speed: 1.0,
            ..quorum::cli::RunFlags::default()
        };
        let mut protocol = quorum::cli::prepare(source(name), &flags)
            .unwrap()
            .protocol();
        let call_id = protocol
            .start(chrono::Utc::now())
            .into_iter()
            .find_map(|effect| match effect {
                quorum::protocol::Effect::StartCall(spec) => Some(spec.request.call_id),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{name} starts with a call"));
        assert_eq!(
            protocol.check_answer(&call_id, " \n\t"),
            Err("the answer is empty".to_string()),
            "{name}"
        );
        assert_eq!(
            protocol.check_answer("nobody/nothing/r1/a1", "an answer"),
            Err("nobody/nothing/r1/a1 is not waiting for an answer".to_string()),
            "{name}"
        );
    }
}
