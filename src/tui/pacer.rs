//! When the event loop draws a frame, at two paces (issue 56). What the
//! person does (a key, the mouse, a resize) is drawn at once. Streamed text
//! is drawn at most once per frame window of the text's pace
//! ([`TEXT_INTERVAL_MS`], `--stream-fps`), slower
//! ([`BACKGROUND_INTERVAL_MS`]) while the terminal is not focused or the
//! only new text is in panes off the screen: people read streamed text, and
//! a line that appears within a few tens of milliseconds looks instant. The
//! windows open with the boundaries of the clock answer streams are read on
//! (the same pace: reads follow it), and a window's frame is drawn once the
//! runtime has gone idle (every stream read at the boundary is then in it)
//! or, if it stays busy, [`FRAME_PHASE_MS`] after the boundary. The loop
//! (`tui::run`) tells the pacer what happened — a frame drawn, the person
//! acting, the runtime going idle, the focus coming and going — and asks it
//! whether to draw now and when to wake for the frame it holds back.
//!
//! Not responsible for what a frame draws (the state's damage says that)
//! nor for the waiting itself (the loop's `select!`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The longest a key waits for its frame, in milliseconds (a frame at 60
/// fps): it is drawn at once, so this is the frame's own time.
pub const FRAME_INTERVAL_MS: u64 = 16;
/// The default pace of streamed text, in milliseconds between frames
/// (about 31 fps): a divisor of tokio's 64 ms timer slot, so the read clock
/// costs one wake per read (see `agent::http::paced::start_clock`).
pub const TEXT_INTERVAL_MS: u64 = crate::agent::http::paced::READ_INTERVAL_MS;
/// The pace of streamed text while the terminal is not focused, or the
/// only new text is in panes off the screen, in milliseconds (about 16 fps;
/// also a divisor of the timer's slot).
pub const BACKGROUND_INTERVAL_MS: u64 = 64;
/// Fastest and slowest text paces `--stream-fps` takes.
pub const MAX_STREAM_FPS: f64 = 60.0;
pub const MIN_STREAM_FPS: f64 = 1.0;

/// The text pace of this process's interface, in milliseconds.
static TEXT_PACE_MS: AtomicU64 = AtomicU64::new(TEXT_INTERVAL_MS);

/// Sets the pace of streamed text to `fps` frames a second (`--stream-fps`,
/// the configuration's `stream_fps`), and the paced reads with it. Out of
/// [`MIN_STREAM_FPS`]..=[`MAX_STREAM_FPS`] is refused in words.
pub fn set_stream_fps(fps: f64) -> Result<(), String> {
    if !(MIN_STREAM_FPS..=MAX_STREAM_FPS).contains(&fps) {
        return Err(format!(
            "{fps} is not a frame rate from {MIN_STREAM_FPS} to {MAX_STREAM_FPS}"
        ));
    }
    let ms = (1000.0 / fps).round() as u64;
    TEXT_PACE_MS.store(ms, Ordering::Relaxed);
    crate::agent::http::paced::set_read_interval(Duration::from_millis(ms));
    Ok(())
}

/// The text pace set for this process.
pub fn text_interval() -> Duration {
    Duration::from_millis(TEXT_PACE_MS.load(Ordering::Relaxed))
}
/// How long after each boundary of the clock answer streams are read on
/// (`agent::http::paced`) a frame is drawn even if the runtime has not gone
/// idle, in milliseconds: time for the text read at the boundary to reach
/// the interface, so that it is drawn in that window rather than one frame
/// later.
pub const FRAME_PHASE_MS: u64 = 3;

/// The pacing of the loop's frames.
#[derive(Clone, Copy, Debug)]
pub struct FramePacer {
    /// When the last frame was drawn.
    last_draw: Option<Instant>,
    /// The person acted since the last frame: the next is drawn at once.
    person_acted: bool,
    /// The runtime went idle while this window's frame waited for it.
    idle_came: bool,
    /// The pace of streamed text when the person is looking.
    text: Duration,
    /// The terminal said it lost the focus.
    unfocused: bool,
    /// The text waiting to be drawn is all in panes off the screen.
    hidden_only: bool,
}

impl Default for FramePacer {
    fn default() -> Self {
        FramePacer {
            last_draw: None,
            person_acted: false,
            idle_came: false,
            text: text_interval(),
            unfocused: false,
            hidden_only: false,
        }
    }
}

/// The frame window at one turn of the loop, as it stood before the
/// turn's frame (if any) was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    now: Instant,
    /// When the window after the last frame's opens; `None`: no frame yet.
    opens: Option<Instant>,
}

impl Window {
    /// The window is open: a frame may be drawn as soon as the runtime
    /// goes idle.
    pub fn is_open(&self) -> bool {
        self.opens.is_none_or(|opens| self.now >= opens)
    }

    /// The window's phase is over: its frame is drawn, idle or not.
    pub fn is_late(&self) -> bool {
        let phase = Duration::from_millis(FRAME_PHASE_MS);
        self.opens.is_none_or(|opens| self.now >= opens + phase)
    }

    /// When the loop wakes to draw the damage it holds back: the window's
    /// opening, or once it is open the end of its phase.
    pub fn next_frame(&self) -> Instant {
        let phase = Duration::from_millis(FRAME_PHASE_MS);
        match self.opens {
            Some(opens) if self.now < opens => opens,
            Some(opens) => opens + phase,
            None => self.now,
        }
    }
}

impl FramePacer {
    /// The window the loop is in at `now`.
    pub fn window(&self, now: Instant) -> Window {
        let interval = self.interval();
        Window {
            now,
            opens: self
                .last_draw
                .map(|drawn| next_frame_window(drawn, interval)),
        }
    }

    /// The pace streamed text is drawn at now.
    pub fn interval(&self) -> Duration {
        if self.unfocused || self.hidden_only {
            self.text.max(Duration::from_millis(BACKGROUND_INTERVAL_MS))
        } else {
            self.text
        }
    }

    /// The terminal gained (`true`) or lost the focus: the text's pace, and
    /// the reads', follow.
    pub fn focus(&mut self, focused: bool) {
        self.unfocused = !focused;
        let reads = if self.unfocused {
            self.text.max(Duration::from_millis(BACKGROUND_INTERVAL_MS))
        } else {
            self.text
        };
        crate::agent::http::paced::set_read_interval(reads);
    }

    /// Whether the text waiting to be drawn is all in panes off the screen
    /// (a folded region, a zoomed pane's neighbours).
    pub fn hidden_only(&mut self, hidden_only: bool) {
        self.hidden_only = hidden_only;
    }

    /// Whether to draw now, in `window`, with the state `damaged` or not:
    /// the person acted, the window's phase is over, or the window is open
    /// and the runtime went idle. The runtime's going idle counts for this
    /// turn only.
    pub fn frame_due(&mut self, window: &Window, damaged: bool) -> bool {
        let due = damaged
            && (self.person_acted || window.is_late() || (window.is_open() && self.idle_came));
        self.idle_came = false;
        due
    }

    /// A frame was drawn `at`.
    pub fn drawn(&mut self, at: Instant) {
        self.person_acted = false;
        self.last_draw = Some(at);
    }

    /// The person pressed a key, used the mouse or resized the terminal.
    pub fn person_acted(&mut self) {
        self.person_acted = true;
    }

    /// The runtime went idle while the window's frame waited for it.
    pub fn idle_came(&mut self) {
        self.idle_came = true;
    }
}

/// When the frame window after the one holding `drawn` opens: at the next
/// boundary of the read clock at `interval` (the text's pace). Windows open
/// with the reads, so each frame's reads are drawn as they arrive, and a
/// frame drawn between two boundaries (for a key, a tick) does not shift
/// the frames after it out of step with the reads, which would hold every
/// later chunk back by up to a frame.
pub fn next_frame_window(drawn: Instant, interval: Duration) -> Instant {
    crate::agent::http::paced::next_frame(tokio::time::Instant::from_std(drawn), interval)
        .into_std()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::http::paced::next_frame;

    /// The runtime's clock, which the tests hold still and move on.
    fn now() -> Instant {
        tokio::time::Instant::now().into_std()
    }

    /// Starts the read clock the process shares no later than this test's
    /// (so at the real time or before it, for the tests that read the real
    /// clock), then moves this test's clock an hour on: its boundaries are
    /// then counted from an epoch behind it, whichever test started it.
    ///
    /// The clock may have been started by any test, at any time: the test
    /// then waits for one of its boundaries at the slowest pace (a boundary
    /// of every pace), so that what it checks does not depend on where in
    /// a window the shared clock happens to put it.
    async fn start() -> FramePacer {
        crate::agent::http::paced::start_clock();
        tokio::time::advance(Duration::from_secs(3600)).await;
        let slowest = Duration::from_millis(BACKGROUND_INTERVAL_MS);
        tokio::time::sleep_until(next_frame(tokio::time::Instant::now(), slowest)).await;
        FramePacer::default()
    }

    #[tokio::test(start_paused = true)]
    async fn the_first_frame_is_drawn_at_once() {
        let mut pacer = start().await;
        let window = pacer.window(now());
        assert!(window.is_open() && window.is_late());
        assert_eq!(window.next_frame(), now());
        assert!(pacer.frame_due(&window, true));
        assert!(!pacer.frame_due(&window, false), "no damage, no frame");
    }

    #[tokio::test(start_paused = true)]
    async fn damage_waits_for_the_next_window_then_for_idle() {
        let mut pacer = start().await;
        let drawn = now();
        pacer.drawn(drawn);
        let window = pacer.window(now());
        assert!(!window.is_open());
        assert!(
            !pacer.frame_due(&window, true),
            "the window is not open yet"
        );
        // The idle runtime does not open a window early.
        pacer.idle_came();
        assert!(!pacer.frame_due(&window, true));
        let opens = window.next_frame();
        assert!(opens > drawn);
        assert!(opens - drawn <= Duration::from_millis(TEXT_INTERVAL_MS));
        tokio::time::sleep_until(tokio::time::Instant::from_std(opens)).await;
        let window = pacer.window(now());
        assert!(window.is_open() && !window.is_late());
        assert!(
            !pacer.frame_due(&window, true),
            "open, but the runtime is busy"
        );
        pacer.idle_came();
        assert!(
            pacer.frame_due(&window, true),
            "open, and the runtime went idle"
        );
        // Going idle counted for that turn only.
        assert!(!pacer.frame_due(&window, true));
    }

    #[tokio::test(start_paused = true)]
    async fn a_busy_runtime_gets_its_frame_a_phase_after_the_window_opens() {
        let mut pacer = start().await;
        pacer.drawn(now());
        let opens = pacer.window(now()).next_frame();
        tokio::time::sleep_until(tokio::time::Instant::from_std(opens)).await;
        let window = pacer.window(now());
        assert_eq!(
            window.next_frame(),
            opens + Duration::from_millis(FRAME_PHASE_MS)
        );
        tokio::time::sleep_until(tokio::time::Instant::from_std(window.next_frame())).await;
        let window = pacer.window(now());
        assert!(window.is_late());
        assert!(pacer.frame_due(&window, true));
    }

    #[tokio::test(start_paused = true)]
    async fn what_the_person_does_is_drawn_at_once() {
        let mut pacer = start().await;
        pacer.drawn(now());
        tokio::time::advance(Duration::from_millis(1)).await;
        pacer.person_acted();
        let window = pacer.window(now());
        assert!(!window.is_open());
        assert!(pacer.frame_due(&window, true));
        pacer.drawn(now());
        // Drawn: the next change waits for its window again.
        assert!(!pacer.frame_due(&pacer.window(now()), true));
    }

    #[tokio::test(start_paused = true)]
    async fn frames_keep_in_step_with_the_read_clock() {
        let mut pacer = start().await;
        let interval = pacer.interval();
        pacer.drawn(now());
        let first = pacer.window(now()).next_frame();
        // A frame drawn between two boundaries (a key) leaves the next
        // window at the next boundary, not an interval after the key.
        tokio::time::advance(Duration::from_millis(5)).await;
        pacer.person_acted();
        pacer.drawn(now());
        let next = pacer.window(now()).next_frame();
        assert!(
            next == first || next == first + interval,
            "{next:?} {first:?}"
        );
        assert_eq!(next_frame_window(next, interval), next + interval);
    }

    #[test]
    fn frame_windows_open_with_the_read_clock() {
        let interval = Duration::from_millis(TEXT_INTERVAL_MS);
        let start = Instant::now();
        for step in 0..200u64 {
            let drawn = start + Duration::from_micros(step * 370);
            let opens = next_frame_window(drawn, interval);
            assert!(opens > drawn, "the next window opens after the frame drawn");
            assert!(opens - drawn <= interval, "and within a frame of it");
            let before = tokio::time::Instant::from_std(opens - Duration::from_nanos(1));
            assert_eq!(
                next_frame(before, interval).into_std(),
                opens,
                "at a boundary of the read clock"
            );
            // A frame drawn for the text read at that boundary (just after
            // it) leaves the next window to the next boundary.
            assert_eq!(next_frame_window(opens, interval), opens + interval);
        }
    }

    /// Issue 56: text is drawn at its own pace, slower while the terminal
    /// is not focused or the text is off the screen; a key at once.
    #[tokio::test(start_paused = true)]
    async fn text_waits_for_its_pace_and_slows_when_nobody_looks() {
        let mut pacer = start().await;
        let text = Duration::from_millis(TEXT_INTERVAL_MS);
        let background = Duration::from_millis(BACKGROUND_INTERVAL_MS);
        assert_eq!(pacer.interval(), text);
        pacer.drawn(now());
        let opens = pacer.window(now()).next_frame();
        assert!(opens - now() <= text);
        pacer.focus(false);
        assert_eq!(pacer.interval(), background);
        let later = pacer.window(now()).next_frame();
        assert!(later - now() <= background);
        // A key is drawn at once, whatever the pace.
        pacer.person_acted();
        assert!(pacer.frame_due(&pacer.window(now()), true));
        pacer.focus(true);
        assert_eq!(pacer.interval(), text);
        pacer.hidden_only(true);
        assert_eq!(pacer.interval(), background);
        pacer.hidden_only(false);
        assert_eq!(pacer.interval(), text);
    }

    #[test]
    fn a_stream_fps_out_of_range_is_refused() {
        assert!(set_stream_fps(0.0).is_err());
        assert!(set_stream_fps(240.0).is_err());
        assert!(set_stream_fps(f64::NAN).is_err());
    }
}
