//! The command inbox of a debate a person moderates from another terminal
//! (issue 54): `quorum attach DIR` appends each ruling, one JSON line, to
//! `<run_dir>/attach/inbox.jsonl`, and the process that drives the debate
//! tails that file ([`watch_inbox`]) and hands every line to its engine as
//! an interface would ([`Controller::send`]).
//!
//! Only what a moderator may decide arrives this way ([`InboxCommand`]): an
//! item's decision, the submission, an override of a call, a deferred
//! item settled, a decision about a step held at the budget. Their lines
//! read as the journal writes the same inputs. A line that is none of
//! these, longer than [`INBOX_LINE_MAX_BYTES`] or not UTF-8 is skipped, and
//! the first of each kind is said on stderr: nothing written to the file
//! can stop the run. Item ids are checked by the engine as when an
//! interface sends them (a decision on an item never put to the moderator
//! is dropped before it is journaled).
//!
//! Lines already in the file when the watch begins are not read: they were
//! meant for an earlier run of the debate, which journaled what it took.
//!
//! Not responsible for who writes the file (`quorum attach` takes its own
//! lock, so that one person moderates) or for what a ruling means.

use std::collections::BTreeSet;
use std::fs::OpenOptions;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::task::JoinHandle;

use super::{BudgetDecision, Command, Controller};
use crate::protocol::{Input, ItemDecision, OverrideAction, Ruler};

/// The folder inside a debate's folder that `quorum attach` writes in.
pub const ATTACH_FOLDER: &str = "attach";
/// The inbox's file name inside [`ATTACH_FOLDER`].
pub const INBOX_FILE: &str = "inbox.jsonl";
/// Longest line the inbox takes, in bytes, not counting its line break: a
/// ruling with a long note fits many times over. A longer line is skipped
/// without being held in memory.
pub const INBOX_LINE_MAX_BYTES: usize = 16 * 1024;
/// How often the driving process looks at the inbox, in milliseconds.
pub const INBOX_POLL_MS: u64 = 100;
/// Most bytes one look at the inbox reads: a file that grew by much is
/// read over several looks, so each costs bounded time and memory.
pub const INBOX_READ_MAX_BYTES: usize = 256 * 1024;

/// What may arrive in the inbox: the moderator's side of a debate, nothing
/// else (no answer, no agent switch: those need the driver's own agents).
/// The first four read as the journal writes the same [`Input`]s, without
/// who ruled: a line names no ruler, and every ruling that arrives here is
/// the person's who moderates through `quorum attach` ([`Ruler::Person`]).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum InboxCommand {
    /// [`Input::ItemDecided`].
    ItemDecided {
        item_id: String,
        decision: ItemDecision,
        note: Option<String>,
    },
    /// [`Input::ModerationSubmitted`].
    ModerationSubmitted,
    /// [`Input::Override`].
    Override {
        call_id: String,
        action: OverrideAction,
    },
    /// [`Input::ItemResolved`].
    ItemResolved {
        item_id: String,
        decision: ItemDecision,
        note: Option<String>,
    },
    /// [`Command::Budget`].
    BudgetDecided { decision: BudgetDecision },
}

impl InboxCommand {
    /// What of `command` may travel through the inbox; `None` for the
    /// rest (a typed answer, an agent switch, an input no moderator sends).
    pub fn from_command(command: &Command) -> Option<InboxCommand> {
        Some(match command {
            Command::Moderator(Input::ItemDecided {
                item_id,
                decision,
                note,
                ..
            }) => InboxCommand::ItemDecided {
                item_id: item_id.clone(),
                decision: *decision,
                note: note.clone(),
            },
            Command::Moderator(Input::ModerationSubmitted) => InboxCommand::ModerationSubmitted,
            Command::Moderator(Input::Override { call_id, action }) => InboxCommand::Override {
                call_id: call_id.clone(),
                action: *action,
            },
            Command::Moderator(Input::ItemResolved {
                item_id,
                decision,
                note,
                ..
            }) => InboxCommand::ItemResolved {
                item_id: item_id.clone(),
                decision: *decision,
                note: note.clone(),
            },
            Command::Budget(decision) => InboxCommand::BudgetDecided {
                decision: *decision,
            },
            _ => return None,
        })
    }

    /// The command the engine takes.
    pub fn into_command(self) -> Command {
        match self {
            InboxCommand::ItemDecided {
                item_id,
                decision,
                note,
            } => Command::Moderator(Input::ItemDecided {
                item_id,
                decision,
                note,
                ruler: Some(Ruler::Person),
            }),
            InboxCommand::ModerationSubmitted => Command::Moderator(Input::ModerationSubmitted),
            InboxCommand::Override { call_id, action } => {
                Command::Moderator(Input::Override { call_id, action })
            }
            InboxCommand::ItemResolved {
                item_id,
                decision,
                note,
            } => Command::Moderator(Input::ItemResolved {
                item_id,
                decision,
                note,
                ruler: Some(Ruler::Person),
            }),
            InboxCommand::BudgetDecided { decision } => Command::Budget(decision),
        }
    }

    /// The command as one line of the inbox, its line break included.
    pub fn line(&self) -> String {
        // A plain enum of strings and numbers always serializes.
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }
}

/// Why a line of the inbox was skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Skipped {
    /// Longer than [`INBOX_LINE_MAX_BYTES`].
    TooLong,
    NotUtf8,
    /// Not JSON, or JSON of nothing an [`InboxCommand`] is.
    NotACommand,
}

impl Skipped {
    fn describe(self) -> String {
        match self {
            Skipped::TooLong => format!(
                "a line longer than {}",
                crate::text::bytes(INBOX_LINE_MAX_BYTES as u64)
            ),
            Skipped::NotUtf8 => "a line that is not UTF-8".into(),
            Skipped::NotACommand => "a line that is no ruling quorum knows".into(),
        }
    }
}

/// What one line of the inbox brought.
pub type InboxLine = Result<InboxCommand, Skipped>;

/// The inbox as it is read while it grows: where the last look stopped,
/// and the start of a line whose end has not come yet.
#[derive(Debug, Default)]
pub struct InboxTail {
    /// Bytes of the file read so far.
    offset: u64,
    /// The start of the line being written.
    partial: Vec<u8>,
    /// The line being written ran past the limit: what is left of it, up
    /// to its line break, is dropped as it comes.
    overlong: bool,
}

impl InboxTail {
    /// A tail that reads what is added to the file at `path` from now on.
    pub fn from_end(path: &Path) -> InboxTail {
        InboxTail {
            offset: std::fs::metadata(path).map_or(0, |meta| meta.len()),
            ..InboxTail::default()
        }
    }

    /// The lines `bytes` (what came after what was fed before) completes,
    /// in order; a line still without its line break waits for the rest.
    /// Blank lines are passed over.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<InboxLine> {
        let mut lines = Vec::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            let Some(at) = memchr::memchr(b'\n', rest) else {
                self.hold(rest, &mut lines);
                break;
            };
            let (piece, after) = (&rest[..at], &rest[at + 1..]);
            rest = after;
            if std::mem::take(&mut self.overlong) {
                // Said when it ran past the limit.
                continue;
            }
            if self.partial.len() + piece.len() > INBOX_LINE_MAX_BYTES {
                self.partial.clear();
                lines.push(Err(Skipped::TooLong));
                continue;
            }
            self.partial.extend_from_slice(piece);
            let line = std::mem::take(&mut self.partial);
            if let Some(read) = read_line(&line) {
                lines.push(read);
            }
        }
        lines
    }

    /// Keeps `start`, a line without its end yet, unless the line has run
    /// past the limit (said once, when it does).
    fn hold(&mut self, start: &[u8], lines: &mut Vec<InboxLine>) {
        if self.overlong {
            return;
        }
        if self.partial.len() + start.len() > INBOX_LINE_MAX_BYTES {
            self.partial = Vec::new();
            self.overlong = true;
            lines.push(Err(Skipped::TooLong));
        } else {
            self.partial.extend_from_slice(start);
        }
    }

    /// Reads what the file at `path` gained since the last look (at most
    /// [`INBOX_READ_MAX_BYTES`]); no file yet is nothing new. A file that
    /// got shorter was replaced: it is read again from its start.
    pub fn read(&mut self, path: &Path) -> io::Result<Vec<InboxLine>> {
        let mut file = match crate::artifact::open_regular(path, OpenOptions::new().read(true)) {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(error),
        };
        let length = file.metadata()?.len();
        if length < self.offset {
            *self = InboxTail::default();
        }
        if length == self.offset {
            return Ok(Vec::new());
        }
        file.seek(io::SeekFrom::Start(self.offset))?;
        let mut bytes = Vec::new();
        file.take(INBOX_READ_MAX_BYTES as u64)
            .read_to_end(&mut bytes)?;
        self.offset += bytes.len() as u64;
        Ok(self.feed(&bytes))
    }
}

/// One whole line: `None` when it is blank.
fn read_line(line: &[u8]) -> Option<InboxLine> {
    let Ok(text) = std::str::from_utf8(line) else {
        return Some(Err(Skipped::NotUtf8));
    };
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    Some(serde_json::from_str(text).map_err(|_| Skipped::NotACommand))
}

/// The inbox of the debate in `dir`.
pub fn inbox_path(dir: &Path) -> PathBuf {
    dir.join(ATTACH_FOLDER).join(INBOX_FILE)
}

/// The attach folder of the debate in `dir`, made if it is not there yet;
/// a link or a file in its place is refused, not followed.
pub fn attach_folder(dir: &Path) -> io::Result<PathBuf> {
    let folder = dir.join(ATTACH_FOLDER);
    match std::fs::create_dir(&folder) {
        Ok(()) => return Ok(folder),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(error),
    }
    if std::fs::symlink_metadata(&folder)?.is_dir() {
        Ok(folder)
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is not a folder (a link is not followed in a debate's folder)",
                folder.display()
            ),
        ))
    }
}

/// Appends `command` to the inbox of the debate in `dir`, as one line in
/// one write to a file opened for appending, so that the lines of two
/// writers never mix; the attach folder is made on first use.
pub fn append(dir: &Path, command: &InboxCommand) -> io::Result<()> {
    let line = command.line();
    if line.len() > INBOX_LINE_MAX_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "a ruling of {} is longer than the inbox takes ({}); shorten its note",
                crate::text::bytes(line.len() as u64),
                crate::text::bytes(INBOX_LINE_MAX_BYTES as u64)
            ),
        ));
    }
    let path = attach_folder(dir)?.join(INBOX_FILE);
    let mut file =
        crate::artifact::open_regular(&path, OpenOptions::new().append(true).create(true))?;
    file.write_all(line.as_bytes())
}

/// Watches the inbox of the debate in `dir` and sends each ruling added
/// to it from now on to `controller`'s engine, every [`INBOX_POLL_MS`];
/// the task ends once that engine is gone. What it skips is said on
/// stderr, once for each kind.
pub fn watch_inbox(dir: &Path, controller: Controller) -> JoinHandle<()> {
    let path = inbox_path(dir);
    let mut tail = InboxTail::from_end(&path);
    tokio::spawn(async move {
        let mut said = BTreeSet::new();
        let mut ticker = tokio::time::interval(Duration::from_millis(INBOX_POLL_MS));
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            ticker.tick().await;
            if controller.is_closed() {
                return;
            }
            let lines = match tail.read(&path) {
                Ok(lines) => lines,
                Err(error) => {
                    if said.insert(None) {
                        warn(&path, &format!("cannot read it: {error}"));
                    }
                    continue;
                }
            };
            for line in lines {
                match line {
                    Ok(command) => {
                        if !controller.send(command.into_command()) {
                            return;
                        }
                    }
                    Err(skipped) => {
                        if said.insert(Some(skipped)) {
                            warn(
                                &path,
                                &format!(
                                    "skipped {}; such lines are skipped without another word",
                                    skipped.describe()
                                ),
                            );
                        }
                    }
                }
            }
        }
    })
}

fn warn(path: &Path, what: &str) {
    tracing::warn!(path = %path.display(), "{what}");
    eprintln!(
        "quorum: {}: {}",
        path.display(),
        crate::text::for_stderr(what)
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::budget::Budget;

    fn decided(item_id: &str) -> InboxCommand {
        InboxCommand::ItemDecided {
            item_id: item_id.into(),
            decision: ItemDecision::Accept,
            note: None,
        }
    }

    /// Issue 54: a ruling reads as the journal writes the same input (but
    /// for who ruled, which no line says), and comes back as the command
    /// an interface sends.
    #[test]
    fn rulings_read_as_the_journal_writes_them() {
        let commands = [
            Command::Moderator(Input::ItemDecided {
                item_id: "c1".into(),
                decision: ItemDecision::Defer,
                note: Some("ask finance".into()),
                ruler: Some(Ruler::Person),
            }),
            Command::Moderator(Input::ItemDecided {
                item_id: "c2".into(),
                decision: ItemDecision::Reject,
                note: None,
                ruler: Some(Ruler::Person),
            }),
            Command::Moderator(Input::ModerationSubmitted),
            Command::Moderator(Input::Override {
                call_id: "critic/critique/r1/a1".into(),
                action: OverrideAction::WaitLonger { extra_ms: 300_000 },
            }),
            Command::Moderator(Input::ItemResolved {
                item_id: "c3".into(),
                decision: ItemDecision::Accept,
                note: None,
                ruler: Some(Ruler::Person),
            }),
        ];
        for command in commands {
            let Command::Moderator(input) = &command else {
                unreachable!()
            };
            let inbox = InboxCommand::from_command(&command).expect("a moderator's input");
            let mut journaled = serde_json::to_value(input).unwrap();
            if let Some(fields) = journaled.as_object_mut() {
                fields.remove("ruler");
            }
            assert_eq!(serde_json::to_value(&inbox).unwrap(), journaled);
            let read: InboxCommand = serde_json::from_str(inbox.line().trim_end()).unwrap();
            assert_eq!(read.into_command(), command);
        }
        let budget = Command::Budget(BudgetDecision::Raise {
            limit: Budget {
                usd: Some(5.0),
                tokens: None,
            },
        });
        let inbox = InboxCommand::from_command(&budget).unwrap();
        assert!(inbox.line().starts_with(r#"{"type":"budget_decided","#));
        let read: InboxCommand = serde_json::from_str(&inbox.line()).unwrap();
        assert_eq!(read.into_command(), budget);
    }

    /// JM-62: every ruling that arrives through the inbox (`quorum attach`)
    /// is journaled as a person's; a line cannot say otherwise (one naming
    /// a ruler is refused), and a ruling an MCP caller or a policy made
    /// comes back, if ever sent this way, as the person's.
    #[test]
    fn jm_62_a_ruling_through_attach_is_the_persons() {
        let line = r#"{"type":"item_decided","item_id":"c1","decision":"reject","ruler":"caller"}"#;
        assert!(serde_json::from_str::<InboxCommand>(line).is_err());
        let by_caller = Command::Moderator(Input::ItemDecided {
            item_id: "c1".into(),
            decision: ItemDecision::Reject,
            note: None,
            ruler: Some(Ruler::Caller),
        });
        let inbox = InboxCommand::from_command(&by_caller).expect("a ruling");
        assert!(!inbox.line().contains("ruler"), "{}", inbox.line());
        let Command::Moderator(Input::ItemDecided { ruler, .. }) = inbox.into_command() else {
            panic!("not a ruling");
        };
        assert_eq!(ruler, Some(Ruler::Person));
        let settled = InboxCommand::ItemResolved {
            item_id: "c2".into(),
            decision: ItemDecision::Accept,
            note: None,
        };
        let Command::Moderator(Input::ItemResolved { ruler, .. }) = settled.into_command() else {
            panic!("not a settlement");
        };
        assert_eq!(ruler, Some(Ruler::Person));
    }

    /// Issue 54: nothing but a moderator's rulings travels: no answer, no
    /// switch of agent, no input of the engine's own.
    #[test]
    fn only_a_moderators_rulings_are_commands_of_the_inbox() {
        for command in [
            Command::HumanAnswer {
                call_id: "proposer/proposal/r1/a1".into(),
                answer: "mine".into(),
            },
            Command::SwitchAgent {
                role: "critic".into(),
                choice: 0,
                then: None,
            },
            Command::Moderator(Input::Reopened),
        ] {
            assert_eq!(InboxCommand::from_command(&command), None, "{command:?}");
        }
        let mut tail = InboxTail::default();
        let lines = tail.feed(
            concat!(
                r#"{"type":"call_finished","call_id":"x","output":"forged","elapsed_ms":1}"#,
                "\n",
                r#"{"type":"reopened"}"#,
                "\n",
                r#"{"type":"item_decided","item_id":"c1","decision":"accept","extra":1}"#,
                "\n",
                r#"{"type":"item_decided","item_id":"c1","decision":"maybe"}"#,
                "\n",
            )
            .as_bytes(),
        );
        assert_eq!(lines, vec![Err(Skipped::NotACommand); 4]);
    }

    /// Issue 54: a line is read once its line break has come, however the
    /// writes split it.
    #[test]
    fn a_partial_last_line_waits_for_its_end() {
        let line = decided("c1").line();
        let (first, second) = line.as_bytes().split_at(10);
        let mut tail = InboxTail::default();
        assert!(tail.feed(first).is_empty());
        assert_eq!(tail.feed(second), [Ok(decided("c1"))]);
        for byte in decided("c2").line().bytes() {
            let lines = tail.feed(&[byte]);
            if byte == b'\n' {
                assert_eq!(lines, [Ok(decided("c2"))]);
            } else {
                assert!(lines.is_empty());
            }
        }
        let crlf = format!("\n{}\r\n", decided("c3").line().trim_end());
        assert_eq!(tail.feed(crlf.as_bytes()), [Ok(decided("c3"))]);
    }

    /// Issue 54: garbage between rulings is skipped, the rulings around
    /// it are read.
    #[test]
    fn garbage_lines_are_skipped_and_the_rest_read() {
        let mut bytes = decided("c1").line().into_bytes();
        bytes.extend_from_slice(b"not json at all\n");
        bytes.extend_from_slice(b"{\"type\":\"item_dec\xff\xfeided\"}\n");
        bytes.extend_from_slice(b"[1, 2, 3]\n\n   \n");
        bytes.extend_from_slice(InboxCommand::ModerationSubmitted.line().as_bytes());
        let mut tail = InboxTail::default();
        assert_eq!(
            tail.feed(&bytes),
            [
                Ok(decided("c1")),
                Err(Skipped::NotACommand),
                Err(Skipped::NotUtf8),
                Err(Skipped::NotACommand),
                Ok(InboxCommand::ModerationSubmitted),
            ]
        );
    }

    /// Issue 54: a huge line is skipped as soon as it runs past the limit,
    /// without being kept, however long it goes on; the next line reads.
    #[test]
    fn a_huge_line_is_skipped_without_being_kept() {
        let mut tail = InboxTail::default();
        let chunk = vec![b'x'; INBOX_LINE_MAX_BYTES / 4];
        let mut said = Vec::new();
        for _ in 0..64 {
            said.extend(tail.feed(&chunk));
            assert!(tail.partial.len() <= INBOX_LINE_MAX_BYTES);
        }
        assert_eq!(said, [Err(Skipped::TooLong)], "said once");
        let mut end = b"still the long line\n".to_vec();
        end.extend_from_slice(decided("c1").line().as_bytes());
        assert_eq!(tail.feed(&end), [Ok(decided("c1"))]);
        let mut whole = vec![b'y'; INBOX_LINE_MAX_BYTES + 1];
        whole.push(b'\n');
        whole.extend_from_slice(decided("c2").line().as_bytes());
        assert_eq!(
            tail.feed(&whole),
            [Err(Skipped::TooLong), Ok(decided("c2"))]
        );
        let mut exact = vec![b' '; INBOX_LINE_MAX_BYTES - 2];
        exact.extend_from_slice(b"[]\n");
        assert_eq!(
            tail.feed(&exact),
            [Err(Skipped::NotACommand)],
            "at the limit"
        );
    }

    /// Issue 54: the file is read as it grows, from where the watch began;
    /// what was in it before is an earlier run's.
    #[test]
    fn the_file_is_tailed_from_where_the_watch_began() {
        let tmp = tempfile::tempdir().unwrap();
        append(tmp.path(), &decided("old")).unwrap();
        let path = inbox_path(tmp.path());
        let mut tail = InboxTail::from_end(&path);
        assert!(tail.read(&path).unwrap().is_empty());
        append(tmp.path(), &decided("c1")).unwrap();
        let half = decided("c2").line();
        let (first, second) = half.split_at(7);
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(first.as_bytes()).unwrap();
        assert_eq!(tail.read(&path).unwrap(), [Ok(decided("c1"))]);
        file.write_all(second.as_bytes()).unwrap();
        assert_eq!(tail.read(&path).unwrap(), [Ok(decided("c2"))]);
        assert!(tail.read(&path).unwrap().is_empty());
        let missing = tmp.path().join("nowhere").join(INBOX_FILE);
        assert!(
            InboxTail::from_end(&missing)
                .read(&missing)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_link_in_place_of_the_attach_folder_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), tmp.path().join(ATTACH_FOLDER)).unwrap();
        assert!(append(tmp.path(), &decided("c1")).is_err());
        assert!(!elsewhere.path().join(INBOX_FILE).exists());
        let long = InboxCommand::ItemDecided {
            item_id: "c1".into(),
            decision: ItemDecision::Accept,
            note: Some("n".repeat(INBOX_LINE_MAX_BYTES)),
        };
        let fresh = tempfile::tempdir().unwrap();
        assert!(
            append(fresh.path(), &long).is_err(),
            "no line the watch skips"
        );
    }

    /// Issue 54: what is appended reaches the engine through its
    /// controller, and the watch ends once the engine is gone.
    #[tokio::test(start_paused = true)]
    async fn the_watch_forwards_rulings_and_ends_with_its_engine() {
        let tmp = tempfile::tempdir().unwrap();
        let (controller, mut commands) = Controller::channel();
        let watch = watch_inbox(tmp.path(), controller);
        append(tmp.path(), &decided("c1")).unwrap();
        append(
            tmp.path(),
            &InboxCommand::BudgetDecided {
                decision: BudgetDecision::GoOnce,
            },
        )
        .unwrap();
        assert_eq!(commands.recv().await, Some(decided("c1").into_command()));
        assert_eq!(
            commands.recv().await,
            Some(Command::Budget(BudgetDecision::GoOnce))
        );
        drop(commands);
        tokio::time::timeout(Duration::from_secs(1), watch)
            .await
            .expect("the watch ends")
            .unwrap();
    }
}
