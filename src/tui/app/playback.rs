//! The clock of a replay: where in the recording the playback is, how fast
//! it moves, whether it is paused, and the debate's own clock for the
//! header.
//!
//! Responsible for turning wall-clock time into playback time and back, so
//! the run loop knows when the next recorded update is due and the state
//! knows what time it is in the debate. Not responsible for the recording
//! (the caller builds the [`Moment`]s, long pauses already shortened) or for
//! waiting (the run loop sleeps until [`Playback::due`]).

use std::time::{Duration, Instant};

use crate::engine::Update;

/// Slowest replay speed.
pub const MIN_REPLAY_SPEED: f64 = 0.01;
/// Fastest replay speed.
pub const MAX_REPLAY_SPEED: f64 = 10_000.0;

/// One recorded update and when to show it.
#[derive(Clone, Debug, PartialEq)]
pub struct Moment {
    /// Playback time: the recorded time since the start, with long pauses
    /// shortened, before the speed divides it.
    pub at: Duration,
    /// The recorded time since the start, as it happened.
    pub recorded: Duration,
    pub update: Update,
}

/// A replay's clock.
#[derive(Clone, Debug, PartialEq)]
pub struct Playback {
    /// Playback time per wall-clock time (2 = twice as fast as recorded).
    pub speed: f64,
    pub paused: bool,
    /// Every moment of the recording has been shown.
    pub ended: bool,
    /// Playback time reached at `synced`.
    position: Duration,
    synced: Instant,
    /// The last moment shown: its playback and recorded times.
    shown: (Duration, Duration),
}

impl Playback {
    /// A playback at the start of the recording, running from `now`;
    /// `speed` is clamped to [`MIN_REPLAY_SPEED`]..=[`MAX_REPLAY_SPEED`].
    pub fn new(speed: f64, now: Instant) -> Playback {
        Playback {
            speed: clamp_speed(speed),
            paused: false,
            ended: false,
            position: Duration::ZERO,
            synced: now,
            shown: (Duration::ZERO, Duration::ZERO),
        }
    }

    /// Playback time at `now`.
    pub fn position(&self, now: Instant) -> Duration {
        if self.paused {
            return self.position;
        }
        let wall = now.saturating_duration_since(self.synced);
        self.position.saturating_add(wall.mul_f64(self.speed))
    }

    /// When playback time reaches `at`; `None` while paused.
    pub fn due(&self, at: Duration, now: Instant) -> Option<Instant> {
        if self.paused {
            return None;
        }
        let ahead = at.saturating_sub(self.position(now));
        Some(now.checked_add(ahead.div_f64(self.speed)).unwrap_or(now))
    }

    fn resync(&mut self, now: Instant) {
        self.position = self.position(now);
        self.synced = now;
    }

    pub fn toggle_pause(&mut self, now: Instant) {
        self.resync(now);
        self.paused = !self.paused;
    }

    /// Changes the speed from `now` on, within the bounds.
    pub fn set_speed(&mut self, speed: f64, now: Instant) {
        self.resync(now);
        self.speed = clamp_speed(speed);
    }

    /// `moment` is being shown.
    pub fn showing(&mut self, moment: &Moment) {
        self.shown = (moment.at, moment.recorded);
    }

    /// The debate's clock at `now`: the recorded time of the last moment
    /// shown, running on from there at the playback's pace until the
    /// recording ends.
    pub fn recorded_elapsed(&self, now: Instant) -> Duration {
        let (at, recorded) = self.shown;
        if self.ended {
            return recorded;
        }
        recorded.saturating_add(self.position(now).saturating_sub(at))
    }
}

fn clamp_speed(speed: f64) -> f64 {
    if speed.is_nan() {
        return 1.0;
    }
    speed.clamp(MIN_REPLAY_SPEED, MAX_REPLAY_SPEED)
}

/// `×2`, `×0.5`, `×50`, `×0.01`: the speed as the header shows it.
pub fn speed_label(speed: f64) -> String {
    let rounded = (speed * 100.0).round() / 100.0;
    let text = format!("{rounded:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("×{text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn playback_time_runs_at_the_speed_and_stops_while_paused() {
        let start = Instant::now();
        let mut playback = Playback::new(4.0, start);
        assert_eq!(playback.position(start + SECOND), 4 * SECOND);
        assert_eq!(
            playback.due(8 * SECOND, start + SECOND),
            Some(start + 2 * SECOND),
            "4 s of playback ahead at ×4 is 1 s away"
        );
        playback.toggle_pause(start + SECOND);
        assert!(playback.paused);
        assert_eq!(playback.position(start + 10 * SECOND), 4 * SECOND);
        assert_eq!(playback.due(8 * SECOND, start + 10 * SECOND), None);
        playback.toggle_pause(start + 10 * SECOND);
        assert_eq!(playback.position(start + 11 * SECOND), 8 * SECOND);
    }

    #[test]
    fn a_speed_change_keeps_the_position_reached() {
        let start = Instant::now();
        let mut playback = Playback::new(1.0, start);
        playback.set_speed(2.0, start + 3 * SECOND);
        assert_eq!(playback.position(start + 3 * SECOND), 3 * SECOND);
        assert_eq!(playback.position(start + 4 * SECOND), 5 * SECOND);
        playback.set_speed(1e9, start + 4 * SECOND);
        assert_eq!(playback.speed, MAX_REPLAY_SPEED);
        playback.set_speed(0.0, start + 4 * SECOND);
        assert_eq!(playback.speed, MIN_REPLAY_SPEED);
    }

    #[test]
    fn the_debate_clock_jumps_over_a_shortened_pause() {
        let start = Instant::now();
        let mut playback = Playback::new(1.0, start);
        // Recorded 10 minutes in, played 3 s in: the pause was shortened.
        playback.showing(&Moment {
            at: 3 * SECOND,
            recorded: 600 * SECOND,
            update: Update::Finished(crate::protocol::Outcome::Failed {
                reason: String::new(),
            }),
        });
        assert_eq!(playback.recorded_elapsed(start + 4 * SECOND), 601 * SECOND);
    }

    #[test]
    fn speed_labels() {
        assert_eq!(speed_label(2.0), "×2");
        assert_eq!(speed_label(0.5), "×0.5");
        assert_eq!(speed_label(0.25), "×0.25");
        assert_eq!(speed_label(50.0), "×50");
        assert_eq!(speed_label(10_000.0), "×10000");
    }
}
