//! The pictures of the screens in `docs/screens/`, which the README shows,
//! are what the interface draws now: each protocol's demo is run in-process
//! (every item accepted), played into the interface, drawn into the same
//! `TestBackend` buffer the snapshot tests read at the moment that tells
//! most about it (the moderator's turn where there is one, else mid-way),
//! and written as SVG by `quorum::tui::svg`.
//!
//! `QUORUM_UPDATE_SCREENS=1 cargo test --test suite screens::` writes them again;
//! without it the test fails when a picture differs from what the
//! generator writes now, or when `docs/screens/` holds one it no longer
//! writes.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::TimeZone;
use quorum::cli::{RunFlags, Source, prepare};
use quorum::engine::{Engine, ModerationPolicy, Moderator, Update};
use quorum::protocol::kind::FlagValue;
use quorum::tui::theme::Theme;
use quorum::tui::{App, DebateInfo};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use tokio::sync::mpsc;

/// The size of every picture: wide enough for the side-by-side layout.
const COLUMNS: u16 = 160;
const ROWS: u16 = 46;

/// One picture: its file name, the demo it shows and the flags that pick
/// that demo, and what it is of.
struct Screen {
    file: &'static str,
    demo: Option<&'static str>,
    flags: &'static [(&'static str, &'static str)],
    moment: Moment,
    title: &'static str,
}

#[derive(Clone, Copy, PartialEq)]
enum Moment {
    /// The moderator's turn, if the debate has one; else half way.
    Telling,
    /// The end, with the result view.
    End,
}

const SCREENS: &[Screen] = &[
    Screen {
        file: "decision-review",
        demo: None,
        flags: &[],
        moment: Moment::Telling,
        title: "A decision review waiting for the moderator's decisions on the critique",
    },
    Screen {
        file: "decision-review-verdict",
        demo: None,
        flags: &[],
        moment: Moment::End,
        title: "A decision review's verdict, with the rule that decided it",
    },
    Screen {
        file: "comparative",
        demo: None,
        flags: &[("mode", "comparative")],
        moment: Moment::Telling,
        title: "A comparative review of two options",
    },
    Screen {
        file: "writing",
        demo: None,
        flags: &[("mode", "writing")],
        moment: Moment::Telling,
        title: "A decision review in writing mode",
    },
    Screen {
        file: "challenge",
        demo: Some("challenge"),
        flags: &[],
        moment: Moment::Telling,
        title: "quorum challenge: one critic against a claim",
    },
    Screen {
        file: "panel",
        demo: Some("panel"),
        flags: &[],
        moment: Moment::Telling,
        title: "quorum panel: several experts answer at once",
    },
    Screen {
        file: "premortem",
        demo: Some("premortem"),
        flags: &[],
        moment: Moment::Telling,
        title: "quorum premortem: how the plan failed, imagined",
    },
    Screen {
        file: "redteam",
        demo: Some("redteam"),
        flags: &[],
        moment: Moment::Telling,
        title: "quorum redteam: findings waiting for triage",
    },
    Screen {
        file: "adversary",
        demo: Some("adversary"),
        flags: &[],
        moment: Moment::Telling,
        title: "quorum adversary: the five-phase adversarial analysis",
    },
    Screen {
        file: "plan",
        demo: Some("plan"),
        flags: &[],
        moment: Moment::Telling,
        title: "A planning debate waiting for the moderator's decisions",
    },
    Screen {
        file: "rca",
        demo: Some("rca"),
        flags: &[],
        moment: Moment::Telling,
        title: "A root-cause analysis with its hypotheses board",
    },
    Screen {
        file: "council",
        demo: Some("council"),
        flags: &[],
        moment: Moment::Telling,
        title: "A council review: experts' findings and the devil's advocate's challenges",
    },
    Screen {
        file: "council-brainstorm",
        demo: Some("council"),
        flags: &[("mode", "brainstorm")],
        moment: Moment::Telling,
        title: "A council brainstorm: proposals challenged and converged",
    },
];

fn screens_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/screens")
}

#[test]
fn the_pictures_in_docs_are_the_screens_drawn_now() {
    // The transcript shows times in local time: the pictures are in UTC
    // wherever they are made. Set before any thread reads the time zone.
    // SAFETY: this binary has this one test, and nothing runs beside it yet.
    unsafe { std::env::set_var("TZ", "UTC") };
    let update = std::env::var_os("QUORUM_UPDATE_SCREENS").is_some();
    let dir = screens_dir();
    if update {
        std::fs::create_dir_all(&dir).unwrap();
    }
    let mut stale = Vec::new();
    for screen in SCREENS {
        let svg = picture(screen);
        assert!(svg.contains("</svg>"));
        let path = dir.join(format!("{}.svg", screen.file));
        if update {
            std::fs::write(&path, &svg).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(svg.as_str()) {
            stale.push(screen.file);
        }
    }
    let written: Vec<String> = SCREENS
        .iter()
        .map(|screen| format!("{}.svg", screen.file))
        .collect();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !written.contains(&name) {
            if update {
                std::fs::remove_file(dir.join(&name)).unwrap();
            } else {
                stale.push(Box::leak(name.into_boxed_str()));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "docs/screens differs from what the interface draws now: {stale:?}; \
         run `QUORUM_UPDATE_SCREENS=1 cargo test --test suite screens::` and look at the pictures"
    );
}

/// The picture of `screen`.
fn picture(screen: &Screen) -> String {
    let (updates, info) = record(screen);
    let now = Instant::now();
    let theme = Theme::builtin("dark").unwrap();
    let mut app = App::new(info, theme, now);
    for update in &updates {
        app.apply(update.clone(), now);
    }
    if screen.moment == Moment::End {
        app.show_report(
            "The verdict follows from the judges' scores.",
            vec![app.info.deliverable.clone()],
        );
    }
    let mut terminal = Terminal::new(TestBackend::new(COLUMNS, ROWS)).unwrap();
    app.prepare(Rect::new(0, 0, COLUMNS, ROWS));
    terminal
        .draw(|frame| quorum::tui::view::draw(&app, frame))
        .unwrap();
    quorum::tui::svg::render(terminal.backend().buffer(), screen.title)
}

/// Every update of `screen`'s demo, run in virtual time with every item
/// accepted, log times pinned; and what the interface is told about it.
fn record(screen: &Screen) -> (Vec<Update>, DebateInfo) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .unwrap();
    runtime.block_on(async {
        let out = tempfile::tempdir().unwrap();
        let mut options: Vec<FlagValue> = screen
            .flags
            .iter()
            .map(|(key, value)| FlagValue {
                flag: format!("--{key}"),
                key: (*key).into(),
                value: (*value).into(),
            })
            .collect();
        if screen.demo == Some("council") {
            // The council's deliverable pair goes to a folder of its own.
            options.push(FlagValue {
                flag: "--outputs".into(),
                key: "outputs".into(),
                value: out.path().join("outputs").display().to_string().into(),
            });
        }
        let flags = RunFlags {
            options,
            out: out.path().to_path_buf(),
            speed: 1.0,
            ..RunFlags::default()
        };
        let source = match screen.demo {
            None => Source::Demo,
            Some(name) => Source::DemoOf(name.to_string()),
        };
        let prepared = prepare(source, &flags).unwrap();
        let protocol = prepared.protocol();
        let info = DebateInfo::of(
            &*protocol,
            PathBuf::from(format!("/tmp/quorum/{}", screen.file)),
        );
        let run_dir =
            quorum::artifact::RunDir::create(out.path(), screen.file, chrono::Local::now())
                .unwrap();
        let journal =
            quorum::artifact::Journal::create(&run_dir.path().join("journal.jsonl")).unwrap();
        let (tx, mut rx) = mpsc::unbounded_channel();
        // For the moderator's turn nobody decides: the debate runs until it
        // waits for the decisions, and the picture is of that wait.
        let moderator = match screen.moment {
            Moment::Telling => Moderator::external(),
            Moment::End => Moderator::policy(ModerationPolicy::Accept),
        };
        let engine = Engine::new(protocol, run_dir, journal, prepared.roster, moderator, tx);
        let running = tokio::spawn(engine.run());
        let mut updates = Vec::new();
        // Virtual time: an hour of nothing means the debate waits (or is
        // over and its channel closed).
        while let Ok(Some(update)) =
            tokio::time::timeout(Duration::from_secs(3600), rx.recv()).await
        {
            updates.push(pinned(update));
        }
        let finished = running.is_finished();
        running.abort();
        if screen.moment == Moment::Telling && finished {
            // No moderator's turn: half way through the updates that are
            // not streamed text.
            let events: Vec<usize> = updates
                .iter()
                .enumerate()
                .filter(|(_, update)| !matches!(update, Update::Chunk { .. }))
                .map(|(at, _)| at)
                .collect();
            updates.truncate(events[events.len() / 2] + 1);
        }
        (updates, info)
    })
}

/// Log times and measured durations pinned, so a picture reads the same
/// on every run.
fn pinned(update: Update) -> Update {
    match update {
        Update::Log(mut entry) => {
            entry.at = chrono::Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap();
            entry.message = regex::Regex::new(r"answered in [\d.]+ s")
                .unwrap()
                .replace_all(&entry.message, "answered in 0.0 s")
                .into_owned();
            Update::Log(entry)
        }
        other => other,
    }
}
