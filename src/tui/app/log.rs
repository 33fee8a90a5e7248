//! The debate's log as the interface folds it: a line in the transcript for
//! each entry, the badge of the pane whose call it is about, the notice a
//! failed attempt leaves in that pane, and the prompts (retry, skip, switch
//! model) that a failure raises and a later entry makes moot.
//!
//! Not responsible for what the log says (the engine and the protocol write
//! it) nor for how a prompt is answered (`input`).

use crate::protocol::{LogEntry, LogKind, Timestamp};
use crate::text::sanitize;

use super::{App, Layer, OverridePrompt, PaneStatus};
use crate::tui::markdown::Segment;

impl App {
    /// One line in the transcript: the time, a mark for its kind, the text.
    pub(super) fn transcript_line(&mut self, at: Timestamp, kind: LogKind, message: &str) {
        let line = format!(
            "{} {} {}\n",
            at.with_timezone(&chrono::Local).format("%H:%M:%S"),
            log_mark(kind),
            sanitize(message)
        );
        self.transcript.push(Segment::Answer, &line);
    }

    pub(super) fn log(&mut self, entry: LogEntry) {
        self.transcript_line(entry.at, entry.kind, &entry.message);
        if entry.kind == LogKind::Stage {
            // A new stage: a prompt about a role with nothing running and no
            // round held for it offers choices that act on nothing now.
            self.close_passed_prompts(
                |app, prompt| {
                    app.panes[prompt.pane].live_call().is_none() && !app.held(prompt.pane)
                },
                "the debate moved on",
                entry.at,
            );
        }
        let Some(call_id) = entry.call_id.as_deref() else {
            return;
        };
        let Some(&index) = self.pane_by_call.get(call_id) else {
            return;
        };
        let pane = &mut self.panes[index];
        let current = pane.call_id.as_deref() == Some(call_id);
        let status = match entry.kind {
            LogKind::Timeout => Some(PaneStatus::TimedOut),
            LogKind::Skip => Some(PaneStatus::Skipped),
            LogKind::Malformed => Some(PaneStatus::Malformed),
            LogKind::Failure => Some(PaneStatus::Failed),
            LogKind::CallFinished => Some(PaneStatus::Done),
            _ => None,
        };
        if let Some(status) = status
            && current
        {
            pane.status = status;
        }
        if entry.kind == LogKind::CallFinished && current {
            // The role answered (an automatic retry succeeded, say): a prompt
            // about its failed or stuck call has nothing left to decide.
            self.close_passed_prompts(
                |_, prompt| prompt.pane == index,
                &format!("{call_id} answered"),
                entry.at,
            );
            return;
        }
        let pane = &mut self.panes[index];
        if entry.kind == LogKind::Cited {
            if current {
                pane.mark_citations(&entry.details);
            }
            return;
        }
        if matches!(
            entry.kind,
            LogKind::Timeout | LogKind::Failure | LogKind::Malformed | LogKind::Skip
        ) {
            let notice = sanitize(&crate::words::one_line(&entry.message));
            pane.push_notice(&notice);
            let by_person = self.overridden.contains(call_id);
            let skippable = !self.board.required_roles.contains(&pane.role.slot);
            if entry.kind != LogKind::Skip || (skippable && !by_person) {
                self.raise_override(OverridePrompt {
                    pane: index,
                    what: notice,
                    kind: entry.kind,
                });
            }
        }
    }

    /// Closes every override prompt `passed` says is out of date, leaving a
    /// line in the transcript for each that says why.
    fn close_passed_prompts(
        &mut self,
        passed: impl Fn(&App, &OverridePrompt) -> bool,
        why: &str,
        at: Timestamp,
    ) {
        let mut closed = Vec::new();
        let mut index = 0;
        while index < self.layers.len() {
            match &self.layers[index] {
                Layer::Override(prompt) if passed(self, prompt) => {
                    closed.push(prompt.title(&self.panes[prompt.pane].role.title));
                    self.layers.remove(index);
                }
                _ => index += 1,
            }
        }
        for title in closed {
            let message = format!("\"{title}\" closed by itself: {why}");
            self.transcript_line(at, LogKind::Note, &message);
        }
    }
}

/// A one-character mark per kind of transcript line.
fn log_mark(kind: LogKind) -> &'static str {
    match kind {
        LogKind::Stage => "▸",
        LogKind::CallStarted => "→",
        LogKind::CallFinished => "✓",
        LogKind::Timeout => "⏱",
        LogKind::Cancel => "✗",
        LogKind::Retry => "↻",
        LogKind::Skip => "⤼",
        LogKind::Failure => "!",
        LogKind::Malformed => "?",
        LogKind::LeftOut => "✗",
        LogKind::Cited => "§",
        LogKind::Moderation => "⚖",
        LogKind::Override => "☛",
        LogKind::Verdict => "★",
        LogKind::Note => "·",
    }
}
