//! `quorum open`: the debates under an artifact root with their verdicts and
//! the deferred items still open; one debate shown, or its deferred items
//! settled after the verdict (`--resolve ID=accept|reject [--note TEXT]`).
//!
//! A settlement is an input like any other: taken under the debate's lock,
//! journaled, handed to the protocol and written into debate.yaml,
//! critique.md, transcript.md and summary.md. Every check happens before
//! anything is written. The interactive view of one debate is
//! `browse::open_interactive`.
//!
//! Not responsible for the rules of settling (the protocol's) or for running
//! the reopened round (`quorum resume --reopen`).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde::Serialize;

use crate::artifact::DebateLock;
use crate::engine::{Moderator, Roster};
use crate::protocol::{Input, ItemDecision, ModerationItem, Outcome, Protocol};
use crate::text::{sanitize, terminal_safe_json};

use super::prepare::{Reloaded, reload};
use super::{Failure, OpenArgs, usage};

pub async fn run(args: OpenArgs) -> ExitCode {
    let result = match &args.dir {
        None if !args.resolve.is_empty() => Err(usage(
            "--resolve needs the debate's folder: quorum open DIR --resolve ID=accept",
        )),
        None => list(&args.out, args.json),
        Some(dir) if !args.resolve.is_empty() => {
            settle(dir, &args.resolve, args.note.as_deref(), args.json)
        }
        Some(dir) => {
            let interactive = !args.headless
                && !args.json
                && std::io::IsTerminal::is_terminal(&std::io::stdin())
                && std::io::IsTerminal::is_terminal(&std::io::stdout());
            if interactive {
                super::browse::open_interactive(dir, args.theme.as_deref())
                    .await
                    .map_err(Failure::Run)
            } else {
                show(dir, args.json)
            }
        }
    };
    super::exit_code(result)
}

/// Characters of an item's text shown per line of a listing.
const LISTED_ITEM_CHARS: usize = 100;

/// `text` on one line, cut to `max` characters with an ellipsis.
fn shortened(text: &str, max: usize) -> String {
    let line = crate::words::one_line(text);
    if line.chars().count() <= max {
        return line;
    }
    let mut cut: String = line.chars().take(max.saturating_sub(1)).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// Where a debate stands, as `quorum open` lists it.
#[serde_with::skip_serializing_none]
#[derive(Debug, Serialize)]
pub(super) struct Listing {
    dir: PathBuf,
    topic: String,
    /// `ADOPT`, `REVISE`, ... or `failed: <why>`, `interrupted`, `running`.
    state: String,
    /// The other quorum that still has a finished debate open (its
    /// interface shows the result until it quits), if one does.
    held_by: Option<String>,
    /// What to do next, if anything.
    next: Option<String>,
    reopen_pending: bool,
    /// Deferred items can be settled now (the debate has its verdict, or
    /// its deliverable).
    settleable: bool,
    open_items: Vec<ModerationItem>,
    /// What the debate leaves to find out (a plan's unverified
    /// assumptions).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    open_questions: Vec<String>,
    /// The debate this one was forked from, and where.
    forked_from: Option<super::notes::ForkOrigin>,
    /// The debate this one took its input from (`--from DIR`).
    #[serde(skip_serializing_if = "Option::is_none")]
    handed_from: Option<super::notes::ChainOrigin>,
}

impl Listing {
    /// Where the debate in `dir` stands; an error names the file of the
    /// folder that could not be read (its `fork.json` or `from.json`).
    fn of(dir: &Path, reloaded: &Reloaded) -> Result<Listing, String> {
        let review = &reloaded.folded.protocol;
        let dir_text = super::shell_path(dir);
        let holder = DebateLock::holder(dir);
        let (state, next) = match (review.outcome(), &holder) {
            (None, Some(holder)) => (format!("running ({holder})"), None),
            (None, None) => (
                format!("interrupted at {}", review.progress().stage),
                Some(format!("quorum resume {dir_text}")),
            ),
            (Some(outcome), holder) => {
                let state = match outcome {
                    Outcome::Decided { verdict, .. } => verdict.as_str().to_string(),
                    Outcome::Completed { deliverable, .. } => format!("completed: {deliverable}"),
                    Outcome::Failed { reason } => {
                        format!("failed: {}", sanitize(&crate::words::one_line(reason)))
                    }
                };
                // Another quorum has it open: nothing can be written yet.
                let next = if holder.is_some() {
                    None
                } else if review.reopen_pending() {
                    Some(format!("quorum resume {dir_text} --reopen"))
                } else if !reloaded.folded.finish_journaled {
                    Some(format!("quorum resume {dir_text}"))
                } else if review.open_items().is_empty() {
                    None
                } else {
                    Some(format!(
                        "quorum open {dir_text} --resolve ID=accept|reject [--note TEXT]"
                    ))
                };
                (state, next)
            }
        };
        let forked_from = super::notes::forked_from(dir)?;
        let handed_from = super::notes::handed_from(dir)?;
        Ok(Listing {
            dir: dir.to_path_buf(),
            topic: review.describe().topic,
            state,
            held_by: holder.filter(|_| review.outcome().is_some()),
            next,
            reopen_pending: review.reopen_pending(),
            settleable: reloaded.folded.finish_journaled
                && matches!(
                    review.outcome(),
                    Some(Outcome::Decided { .. } | Outcome::Completed { .. })
                ),
            open_items: review.open_items(),
            open_questions: review.open_questions(),
            forked_from,
            handed_from,
        })
    }

    /// The listing as a person reads it, made inert for a terminal: the
    /// folder's name, its notes and its items are someone else's text.
    fn print(&self, out: &mut impl Write) -> std::io::Result<()> {
        let mut text = Vec::new();
        self.write_lines(&mut text)?;
        out.write_all(sanitize(&String::from_utf8_lossy(&text)).as_bytes())
    }

    fn write_lines(&self, out: &mut impl Write) -> std::io::Result<()> {
        let items = match (self.open_items.len(), self.settleable) {
            (0, _) => "no open deferred items".to_string(),
            (1, true) => "1 open deferred item".to_string(),
            (n, true) => format!("{n} open deferred items"),
            (n, false) => format!("{n} deferred so far, to settle after the verdict"),
        };
        let reopened = if self.reopen_pending {
            " · reopened"
        } else {
            ""
        };
        writeln!(out, "{}", self.dir.display())?;
        if let Some(fork) = &self.forked_from {
            writeln!(
                out,
                "  fork of {} at {}",
                fork.origin.display(),
                crate::text::clipped(&fork.at)
            )?;
        }
        if let Some(source) = &self.handed_from {
            writeln!(
                out,
                "  takes what {} handed on",
                crate::text::clipped(&source.describe())
            )?;
        }
        writeln!(out, "  {}", sanitize(&self.topic))?;
        let held = match &self.held_by {
            Some(holder) => format!(" · still open in another quorum ({holder})"),
            None => String::new(),
        };
        writeln!(out, "  {}{reopened}{held} · {items}", self.state)?;
        for item in &self.open_items {
            writeln!(
                out,
                "    {}  {} · {} · {}  {}",
                item.id,
                sanitize(&item.about()),
                item.severity,
                item.category,
                sanitize(&shortened(&item.text, LISTED_ITEM_CHARS))
            )?;
        }
        if !self.open_questions.is_empty() {
            writeln!(out, "  to investigate:")?;
            for question in &self.open_questions {
                writeln!(
                    out,
                    "    {}",
                    sanitize(&shortened(question, LISTED_ITEM_CHARS))
                )?;
            }
        }
        if let Some(next) = &self.next {
            writeln!(out, "  next: {next}")?;
        }
        Ok(())
    }
}

/// A folder that looked like a debate and could not be read, with why.
pub(super) type Unreadable = (PathBuf, String);

/// Where every debate folder directly under `out` stands, oldest first
/// (their names end in the start time), and the folders that could not be
/// read, each with why.
pub(super) fn listings(out: &Path) -> Result<(Vec<Listing>, Vec<Unreadable>), Failure> {
    let entries = match std::fs::read_dir(out) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(usage(format!(
                "{} does not exist: no debate has been recorded there (see --out)",
                out.display()
            )));
        }
        Err(error) => return Err(error.into()),
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        // A journal of any kind (a link, a FIFO) marks a debate folder,
        // which is then listed or named as unreadable, never waited on.
        .filter(|path| {
            std::fs::symlink_metadata(path.join(crate::engine::resume::JOURNAL_FILE)).is_ok()
        })
        .collect();
    dirs.sort_by_key(|dir| {
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        // `<slug>-YYYYMMDD-HHMMSS[-N]`: sort by the time, then the name.
        let stamp: String = name
            .rsplit('-')
            .filter(|part| part.len() >= 6 && part.bytes().all(|b| b.is_ascii_digit()))
            .take(2)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        (stamp, name.into_owned())
    });
    let mut listings = Vec::new();
    let mut unreadable = Vec::new();
    // Debates citing the same source tree walk it once here (issue 52).
    let _walks = crate::evidence::sources::SharedWalks::begin();
    for dir in &dirs {
        match reload(dir).map_err(|error| super::with_causes(&error)) {
            Ok(reloaded) => match Listing::of(dir, &reloaded) {
                Ok(listing) => listings.push(listing),
                Err(error) => unreadable.push((dir.clone(), error)),
            },
            Err(error) => unreadable.push((dir.clone(), error)),
        }
    }
    Ok((listings, unreadable))
}

/// Every debate folder directly under `out`, oldest first.
fn list(out: &Path, json: bool) -> Result<ExitCode, Failure> {
    let (listings, unreadable) = listings(out)?;
    let mut stdout = std::io::stdout().lock();
    if json {
        let value = serde_json::json!({
            "debates": listings,
            "unreadable": unreadable
                .iter()
                .map(|(dir, error)| serde_json::json!({ "dir": dir, "error": error }))
                .collect::<Vec<_>>(),
        });
        writeln!(
            stdout,
            "{}",
            terminal_safe_json(&serde_json::to_string_pretty(&value).unwrap_or_default())
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let open: usize = listings
        .iter()
        .filter(|listing| listing.settleable)
        .map(|listing| listing.open_items.len())
        .sum();
    let mut text = Vec::new();
    writeln!(
        text,
        "{} under {}{}, {open} open deferred item{}\n",
        match listings.len() + unreadable.len() {
            1 => "1 debate".to_string(),
            n => format!("{n} debates"),
        },
        out.display(),
        match unreadable.len() {
            0 => String::new(),
            n => format!(" ({n} unreadable)"),
        },
        if open == 1 { "" } else { "s" }
    )?;
    for listing in families(&listings) {
        listing.write_lines(&mut text)?;
        writeln!(text)?;
    }
    for (dir, error) in &unreadable {
        writeln!(
            text,
            "{}\n  unreadable: {}\n",
            dir.display(),
            crate::text::for_stderr(error)
        )?;
    }
    // Folder names and notes are someone else's: inert for a terminal.
    stdout.write_all(sanitize(&String::from_utf8_lossy(&text)).as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// `listings` in families: each debate followed by its forks (and theirs),
/// in the order listed; a fork whose origin is not listed stands alone.
fn families(listings: &[Listing]) -> Vec<&Listing> {
    let canonical = |dir: &Path| dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let dirs: Vec<PathBuf> = listings.iter().map(|l| canonical(&l.dir)).collect();
    let parent = |listing: &Listing| {
        let origin = &listing.forked_from.as_ref()?.origin;
        dirs.iter().position(|dir| dir == origin)
    };
    fn visit(at: usize, parents: &[Option<usize>], seen: &mut Vec<bool>, out: &mut Vec<usize>) {
        if seen[at] {
            return;
        }
        seen[at] = true;
        out.push(at);
        for (child, parent) in parents.iter().enumerate() {
            if *parent == Some(at) {
                visit(child, parents, seen, out);
            }
        }
    }
    let parents: Vec<Option<usize>> = listings.iter().map(parent).collect();
    let mut seen = vec![false; listings.len()];
    let mut order = Vec::new();
    for (at, parent) in parents.iter().enumerate() {
        if parent.is_none() {
            visit(at, &parents, &mut seen, &mut order);
        }
    }
    // Forks of each other (an edited fork.json): listed all the same.
    for at in 0..listings.len() {
        visit(at, &parents, &mut seen, &mut order);
    }
    order.into_iter().map(|at| &listings[at]).collect()
}

/// One debate, without the interface.
fn show(dir: &Path, json: bool) -> Result<ExitCode, Failure> {
    let reloaded = reload(dir).map_err(|error| usage(super::with_causes(&error)))?;
    if let Ok(recorded) = crate::engine::resume::Recorded::read(dir) {
        super::verdict_cmd::note_changed_sources(&recorded.definition);
    }
    let listing = Listing::of(dir, &reloaded).map_err(usage)?;
    let mut stdout = std::io::stdout().lock();
    if json {
        let text = serde_json::to_string_pretty(&listing).unwrap_or_default();
        writeln!(stdout, "{}", terminal_safe_json(&text))?;
    } else {
        listing.print(&mut stdout)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `c3=accept` → (`c3`, Accept).
fn parse_resolution(text: &str) -> Result<(String, ItemDecision), String> {
    let original = text;
    let shown = crate::text::clipped(text);
    let text = shown.as_str();
    let (id, word) = original
        .split_once('=')
        .ok_or_else(|| format!("--resolve {text}: expected ID=accept or ID=reject"))?;
    let decision = match ItemDecision::parse(word.trim()) {
        Some(decision @ (ItemDecision::Accept | ItemDecision::Reject)) => decision,
        Some(ItemDecision::Defer) => {
            return Err(format!(
                "--resolve {text}: the item is already deferred; settle it with accept or reject"
            ));
        }
        None => {
            return Err(format!(
                "--resolve {text}: `{}` is not accept or reject",
                crate::text::clipped(word.trim())
            ));
        }
    };
    Ok((id.trim().to_string(), decision))
}

/// Why `id` cannot be settled with `decision` now, if it cannot: the
/// protocol's rule, with the items there are when the id is unknown.
fn refusal(protocol: &dyn Protocol, id: &str, decision: ItemDecision) -> Option<String> {
    let reason = protocol.resolution_refusal(id, decision)?;
    let ids: Vec<String> = protocol
        .board()
        .items
        .into_iter()
        .map(|entry| entry.item.id)
        .collect();
    let items = if ids.iter().any(|known| known == id) || ids.is_empty() {
        String::new()
    } else {
        format!(" (items: {})", ids.join(", "))
    };
    Some(format!(
        "cannot settle {}: {reason}{items}",
        crate::text::clipped(id)
    ))
}

/// Why the debate in `dir` cannot take these settlements now, if it
/// cannot: no recorded end, nothing deferred, or an item the protocol
/// refuses.
fn settleable(
    dir: &Path,
    folded: &crate::engine::resume::Folded,
    parsed: &[(String, ItemDecision)],
) -> Result<(), Failure> {
    let review = &*folded.protocol;
    match review.outcome() {
        Some(Outcome::Decided { .. }) if folded.finish_journaled => {}
        Some(Outcome::Decided { .. }) | None => {
            return Err(usage(format!(
                "{} has no recorded verdict yet: finish it first with `quorum resume {}`",
                dir.display(),
                super::shell_path(dir)
            )));
        }
        Some(Outcome::Failed { .. }) => {
            return Err(usage(format!(
                "{} ended without a verdict; there is nothing to settle its deferred items against",
                dir.display()
            )));
        }
        Some(Outcome::Completed { deliverable, .. }) if review.open_items().is_empty() => {
            return Err(usage(format!(
                "{} delivered {deliverable} and has no deferred items to settle",
                dir.display()
            )));
        }
        Some(Outcome::Completed { .. }) if folded.finish_journaled => {}
        Some(Outcome::Completed { .. }) => {
            return Err(usage(format!(
                "{} has not recorded its end yet: finish it first with `quorum resume {}`",
                dir.display(),
                super::shell_path(dir)
            )));
        }
    }
    let refusals: Vec<String> = parsed
        .iter()
        .filter_map(|(id, decision)| refusal(review, id, *decision))
        .collect();
    if !refusals.is_empty() {
        return Err(usage(refusals.join("; ")));
    }
    Ok(())
}

fn settle(
    dir: &Path,
    resolutions: &[String],
    note: Option<&str>,
    json: bool,
) -> Result<ExitCode, Failure> {
    let parsed = resolutions
        .iter()
        .map(|text| parse_resolution(text))
        .collect::<Result<Vec<_>, _>>()
        .map_err(usage)?;
    let mut seen: Vec<&(String, ItemDecision)> = Vec::new();
    for resolution in &parsed {
        match seen.iter().find(|(id, _)| *id == resolution.0) {
            Some((id, earlier)) if *earlier != resolution.1 => {
                return Err(usage(format!(
                    "--resolve names {} twice, as {} and as {}: settle each item once",
                    crate::text::clipped(id),
                    earlier.as_str(),
                    resolution.1.as_str()
                )));
            }
            Some(_) => {}
            None => seen.push(resolution),
        }
    }
    let parsed: Vec<(String, ItemDecision)> = seen.into_iter().cloned().collect();
    // Checked before the lock is taken, so a refusal leaves the folder as
    // it was (a stale lock included); checked again under the lock, in
    // case the debate moved in between.
    let unlocked = reload(dir).map_err(|error| usage(super::with_causes(&error)))?;
    settleable(dir, &unlocked.folded, &parsed)?;
    drop(unlocked);
    let (
        lock,
        Reloaded {
            recorded, folded, ..
        },
    ) = super::resume::lock_and_reload(dir, "quorum open --resolve").map_err(usage)?;
    settleable(dir, &folded, &parsed)?;

    let (journal, run_dir) =
        super::resume::take_over(&recorded, dir, &*folded.protocol).map_err(Failure::Run)?;
    let (mut engine, _) = super::engine_with_updates(
        folded.protocol,
        run_dir,
        journal,
        Roster::default(),
        Moderator::external(),
        [],
    );
    let note = note.map(str::trim).filter(|note| !note.is_empty());
    for (id, decision) in &parsed {
        engine.settle(Input::ItemResolved {
            item_id: id.clone(),
            decision: *decision,
            note: note.map(str::to_string),
            ruler: Some(crate::protocol::Ruler::Person),
        })?;
    }
    // A person settled them: the library keeps the debate with its new rulings.
    super::library::file_ended(dir);
    let review = engine.protocol();
    let reopen = review.reopen_pending();
    let mut stdout = std::io::stdout().lock();
    if json {
        let value = serde_json::json!({
            "dir": dir,
            "resolved": parsed
                .iter()
                .map(|(id, decision)| serde_json::json!({ "id": id, "decision": decision.as_str(), "note": note }))
                .collect::<Vec<_>>(),
            "reopen_pending": reopen,
            "open_items": review.open_items(),
        });
        let text = serde_json::to_string_pretty(&value).unwrap_or_default();
        writeln!(stdout, "{}", terminal_safe_json(&text))?;
    } else {
        for (id, decision) in &parsed {
            writeln!(
                stdout,
                "{id}: {} after the verdict{}",
                match decision {
                    ItemDecision::Accept => "accepted",
                    _ => "rejected",
                },
                note.map(|note| format!(" ({})", sanitize(note)))
                    .unwrap_or_default()
            )?;
        }
        if reopen {
            writeln!(
                stdout,
                "The debate is reopened: `quorum resume {} --reopen` runs another revision and evaluation round for the accepted items.",
                super::shell_path(dir)
            )?;
        }
        let left = review.open_items().len();
        if left > 0 {
            writeln!(
                stdout,
                "{left} deferred item{} still open.",
                if left == 1 { "" } else { "s" }
            )?;
        }
    }
    drop(lock);
    Ok(ExitCode::SUCCESS)
}
