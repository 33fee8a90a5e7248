//! One agent's pane: its badge, the text streamed into it (raw and as
//! cards), where its view scrolled to and how a following view keeps up
//! with a fast stream, and the prompt and editor of a role the person
//! plays.

use std::time::{Duration, Instant};

use ratatui_textarea::TextArea;

use super::RoleInfo;
use crate::text::Sanitizer;
use crate::tui::cards::Cards;
use crate::tui::markdown::{Segment, StreamDoc};

/// How often, at most, a following pane scrolls when its text arrives
/// faster than it can be read: a jump leaves free the rows that this long
/// of the stream fills (five sixths of the view at the most), so that the
/// rows above stand still between jumps. Text slower than four rows a
/// second (a model a person reads along with) scrolls a row at a time, as
/// it arrives. Four moves a second read calmer than ten of a few rows
/// each, and every jump sends the pane's whole view again: at 100 rows a
/// second in a view of 57 rows, a jump every 100 ms sent each row of text
/// about six times, one every 250 ms twice (issue 56).
pub const JUMP_EVERY: Duration = Duration::from_millis(250);

/// How often, at most, a pane jumps when its text comes faster than
/// [`SKIMMED_ROWS_PER_SECOND`]: nobody reads along at that pace, so the
/// jumps are half as many, each sending the view again for twice the rows.
pub const FAST_JUMP_EVERY: Duration = Duration::from_millis(500);

/// Rows a second past which a stream is skimmed, not read along with.
pub const SKIMMED_ROWS_PER_SECOND: f64 = 20.0;

/// The least stretch of a stream its rate is measured over: text that
/// came in one burst has no rate, and a jump then leaves no rows free.
const RATE_WINDOW: Duration = Duration::from_millis(50);

/// An agent pane's badge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaneStatus {
    Waiting,
    Streaming,
    Done,
    TimedOut,
    Retrying,
    Skipped,
    Malformed,
    Failed,
    /// A role played by the person: their answer is wanted.
    NeedsAnswer,
}

impl PaneStatus {
    /// Its call is under way (or its answer is wanted): while one is, the
    /// idle rows of panes give it theirs.
    pub fn is_busy(self) -> bool {
        matches!(
            self,
            PaneStatus::Streaming
                | PaneStatus::Retrying
                | PaneStatus::TimedOut
                | PaneStatus::NeedsAnswer
        )
    }
}

/// A pane's rate of tokens a second as its badge shows it.
pub fn rate_text(rate: f64) -> String {
    format!("{rate:.0}")
}

/// A scroll position that follows the stream while it is at the bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scroll {
    /// First visible line when not following.
    pub top: usize,
    pub follow: bool,
    /// Following, the first visible line where the last jump left it
    /// ([`AgentPane::follow_the_stream`]); `None` for the last page.
    pub held: Option<usize>,
}

impl Default for Scroll {
    fn default() -> Self {
        Scroll {
            top: 0,
            follow: true,
            held: None,
        }
    }
}

impl Scroll {
    /// The first visible line for `total` lines in a view `height` tall.
    /// Following, it is the last page, or up to [`Scroll::free_rows`]
    /// further on, where a jump left rows free below the text.
    pub fn first_line(&self, total: usize, height: usize) -> usize {
        let last_page = total.saturating_sub(height);
        if self.follow {
            self.held.map_or(last_page, |held| {
                held.clamp(last_page, last_page + Self::free_rows(total, height))
            })
        } else {
            self.top.min(last_page)
        }
    }

    /// Moves by `delta` lines; reaching the bottom resumes following, leaving
    /// it stops following.
    pub fn scroll_by(&mut self, delta: isize, total: usize, height: usize) {
        let last_page = total.saturating_sub(height);
        let next = self
            .first_line(total, height)
            .saturating_add_signed(delta)
            .min(last_page);
        self.top = next;
        self.follow = next >= last_page;
        self.held = None;
    }

    /// The most rows a following view of `height` rows leaves free below
    /// `total` rows of text: five sixths of it, once the text fills it.
    /// Only text far faster than anyone reads fills that much in a jump's
    /// time, and every jump sends the whole view again: at two thirds, a
    /// stream of 110 rows a second in a view of 56 jumped every 330 ms,
    /// not at its 500 ms, and the jumps were two fifths of what the
    /// interface wrote (issue 56).
    pub fn free_rows(total: usize, height: usize) -> usize {
        if total > height { height * 5 / 6 } else { 0 }
    }

    pub fn to_top(&mut self) {
        self.top = 0;
        self.follow = false;
        self.held = None;
    }

    pub fn to_bottom(&mut self) {
        self.follow = true;
        self.held = None;
    }
}

/// Where a following view last scrolled to the end of its text: when the
/// newest text then shown had arrived, how many rows there were, and the
/// width they were laid out for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Jump {
    at: Option<Instant>,
    rows: usize,
    width: u16,
}

/// A role the person plays, while its answer is wanted.
pub struct HumanAnswer {
    pub call_id: String,
    /// The prompt, to read while writing: from its start, and scrolled
    /// like a pane while the answer is not being written.
    pub prompt: StreamDoc,
    pub prompt_scroll: Scroll,
    /// The rows the prompt is shown in.
    pub prompt_viewport: usize,
    pub editor: TextArea<'static>,
    /// Why the last submitted answer was not accepted.
    pub error: Option<String>,
}

/// One agent's pane.
pub struct AgentPane {
    pub role: RoleInfo,
    /// `provider:model` of the current call.
    pub agent: String,
    pub status: PaneStatus,
    /// The answers as streamed (sanitised, otherwise byte for byte).
    pub doc: StreamDoc,
    /// The same answers with their structured records read as cards.
    pub cards: Cards,
    /// The pane shows `doc` rather than `cards` (`t` switches).
    pub raw: bool,
    /// Where the view scrolled to, in the rows of whichever it shows.
    pub scroll: Scroll,
    /// The call whose text the pane shows now.
    pub call_id: Option<String>,
    pub attempt: u32,
    pub stage: String,
    pub(super) call_started: Option<Instant>,
    pub(super) first_chunk: Option<Instant>,
    /// When the newest text arrived, in the debate's time.
    pub(super) last_chunk: Option<Instant>,
    /// Where a following view last scrolled to the end.
    jump: Option<Jump>,
    pub(super) streamed_chars: usize,
    /// Output tokens per second of the live call, as last computed.
    pub tokens_per_second: Option<f64>,
    pub(super) sanitizer: Sanitizer,
    pub(super) reasoning_sanitizer: Sanitizer,
    pub human: Option<HumanAnswer>,
    /// Lines visible at the last layout.
    pub viewport: usize,
    /// How the citations of the pane's latest answer checked out, verified
    /// and failed (issue 52); `None` until an answer cites something.
    pub cited: Option<(usize, usize)>,
}

impl AgentPane {
    pub(super) fn new(role: RoleInfo) -> Self {
        AgentPane {
            agent: role.agent.clone(),
            role,
            status: PaneStatus::Waiting,
            doc: StreamDoc::new(),
            cards: Cards::new(),
            raw: false,
            scroll: Scroll::default(),
            call_id: None,
            attempt: 0,
            stage: String::new(),
            call_started: None,
            first_chunk: None,
            last_chunk: None,
            jump: None,
            streamed_chars: 0,
            tokens_per_second: None,
            sanitizer: Sanitizer::new(),
            reasoning_sanitizer: Sanitizer::new(),
            human: None,
            viewport: 0,
            cited: None,
        }
    }

    /// What the scroll keys read in this pane, as its line count and the
    /// rows it is shown in: the text, or the prompt of a role the person
    /// plays.
    pub fn read_rows(&self) -> (usize, usize) {
        match &self.human {
            Some(human) => (human.prompt.line_count(), human.prompt_viewport),
            None => (self.shown().line_count(), self.viewport),
        }
    }

    /// The scroll of what the scroll keys read ([`Self::read_rows`]), with
    /// its line count and rows.
    pub fn read_scroll(&mut self) -> (&mut Scroll, usize, usize) {
        let (total, rows) = self.read_rows();
        let scroll = match &mut self.human {
            Some(human) => &mut human.prompt_scroll,
            None => &mut self.scroll,
        };
        (scroll, total, rows)
    }

    /// The document the pane shows: the raw text or the cards.
    pub fn shown(&self) -> &StreamDoc {
        if self.raw {
            &self.doc
        } else {
            self.cards.doc()
        }
    }

    pub fn shown_mut(&mut self) -> &mut StreamDoc {
        if self.raw {
            &mut self.doc
        } else {
            self.cards.doc_mut()
        }
    }

    /// Switches between the raw text and the cards. A view following the
    /// stream goes on following; a paused one keeps its place in
    /// proportion, the two views' rows being different.
    pub fn toggle_raw(&mut self) {
        let before = self.shown().line_count();
        self.raw = !self.raw;
        if !self.scroll.follow {
            let after = self.shown().line_count();
            self.scroll.top = (self.scroll.top * after).checked_div(before).unwrap_or(0);
        }
    }

    /// Keeps a following view's first line where it is while the text
    /// still fits below it, and once the text runs past the bottom, scrolls
    /// to the end and beyond it by the rows the stream fills in
    /// [`JUMP_EVERY`] ([`FAST_JUMP_EVERY`] past
    /// [`SKIMMED_ROWS_PER_SECOND`]) at the rate it has been arriving since
    /// the last such jump. The rows of a fast stream then stand still for
    /// most frames (only the rows it is writing change, which is all a
    /// frame then draws and sends), and every row of it is on screen as
    /// soon as it arrives. `width` is the view's: a new width starts afresh
    /// at the last page. Once no call of the pane runs, no rows are kept free for
    /// text to come: the view is the last page.
    pub fn follow_the_stream(&mut self, width: u16) {
        let running = matches!(self.status, PaneStatus::Streaming | PaneStatus::Retrying);
        if !self.scroll.follow || self.viewport == 0 || !running {
            self.jump = None;
            self.scroll.held = None;
            return;
        }
        let (total, height) = (self.shown().line_count(), self.viewport);
        let last_page = total.saturating_sub(height);
        let free = Scroll::free_rows(total, height);
        let at = self.last_chunk;
        let top = self.scroll.held.get_or_insert(last_page);
        match self.jump {
            Some(jump) if jump.width == width => {
                if *top > last_page + free {
                    // The text got shorter (the other view, say).
                    *top = last_page;
                } else if *top < last_page {
                    let seconds = at
                        .zip(jump.at)
                        .map(|(now, then)| now.saturating_duration_since(then))
                        .filter(|seconds| *seconds >= RATE_WINDOW)
                        .map(|seconds| seconds.as_secs_f64());
                    let ahead = seconds.map_or(0, |seconds| {
                        let rate = total.saturating_sub(jump.rows) as f64 / seconds;
                        let every = if rate > SKIMMED_ROWS_PER_SECOND {
                            FAST_JUMP_EVERY
                        } else {
                            JUMP_EVERY
                        };
                        (rate * every.as_secs_f64()) as usize
                    });
                    *top = last_page + ahead.min(free);
                    // A stretch too short to measure counts on into the
                    // next one.
                    if seconds.is_some() || jump.at.is_none() {
                        self.jump = Some(Jump {
                            at,
                            rows: total,
                            width,
                        });
                    }
                }
            }
            _ => {
                *top = last_page;
                self.jump = Some(Jump {
                    at,
                    rows: total,
                    width,
                });
            }
        }
    }

    /// A notice (a new attempt, a failure) in both views.
    pub(super) fn push_notice(&mut self, text: &str) {
        self.doc.push_notice(text);
        self.cards.push_notice(text);
    }

    /// Marks each citation of the answer just read (`✓ "…" — app.log
    /// (verified at app.log:L3)`, one line each, as quorum checked them)
    /// under the answer, in both views.
    pub(super) fn mark_citations(&mut self, lines: &[String]) {
        let count = |mark: char| lines.iter().filter(|l| l.starts_with(mark)).count();
        self.cited = Some((count('✓'), count('✗')));
        self.push_notice("its citations, as quorum checked them");
        let mut list = String::new();
        for line in lines {
            list.push_str("- ");
            list.push_str(&crate::text::sanitize(&crate::words::one_line(line)));
            list.push('\n');
        }
        self.doc.push(Segment::Answer, &list);
        self.cards.push(Segment::Answer, &list);
    }

    /// Whether a call of this pane is running (and so can be overridden).
    pub fn live_call(&self) -> Option<&str> {
        matches!(
            self.status,
            PaneStatus::Streaming | PaneStatus::Retrying | PaneStatus::NeedsAnswer
        )
        .then_some(self.call_id.as_deref())
        .flatten()
    }
}
