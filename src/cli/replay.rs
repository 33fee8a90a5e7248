//! `quorum replay DIR`: plays a recorded debate back as it happened.
//!
//! The journal is folded as `quorum resume` folds it, which yields every
//! update an interface saw while the debate ran, each with the time it was
//! journaled; streamed text was journaled in batches as it arrived, so its
//! timing is the real one. (A journal written before streamed text was
//! recorded shows each answer at once, when its call finished.) Playback
//! keeps the recorded gaps, divided by `--speed`, except that a pause longer
//! than [`MAX_REPLAY_GAP_MS`] is shortened to it.
//!
//! In a terminal the TUI plays the debate read-only; otherwise (or with
//! `--headless`) the transcript lines are printed on stdout at their pace,
//! then the outcome. Either way the exit code is 0: a replay succeeded when
//! it was shown, whatever the verdict.
//!
//! Not responsible for changing anything: a replay takes no lock and writes
//! nothing to the debate's folder.

use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use color_eyre::eyre::WrapErr;

use crate::engine::Update;
use crate::protocol::{Outcome, Timestamp};
use crate::tui::app::{MAX_REPLAY_SPEED, MIN_REPLAY_SPEED, Moment};

use super::prepare::{Reloaded, reload};
use super::{EXIT_FAILURE, EXIT_USAGE, ReplayArgs};

/// Longest pause a replay keeps, in milliseconds of recorded time: a person
/// who thought for ten minutes before deciding an item should not stall the
/// replay, so any longer gap between two recorded updates plays as this.
pub const MAX_REPLAY_GAP_MS: u64 = 3000;

pub async fn run(args: ReplayArgs) -> ExitCode {
    match replay(args).await {
        Ok(code) => code,
        Err(error) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&format!("{error:#}")));
            ExitCode::from(EXIT_FAILURE)
        }
    }
}

async fn replay(args: ReplayArgs) -> color_eyre::Result<ExitCode> {
    if !(MIN_REPLAY_SPEED..=MAX_REPLAY_SPEED).contains(&args.speed) {
        eprintln!(
            "quorum: --speed must be between {MIN_REPLAY_SPEED} and {MAX_REPLAY_SPEED} (got {})",
            args.speed
        );
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    let theme = match super::interactive::choose_theme(args.theme.as_deref(), None) {
        Ok(theme) => theme,
        Err(error) => {
            eprintln!("quorum: --theme: {}", crate::text::for_stderr(&error));
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    let Reloaded {
        folded, history, ..
    } = match reload(&args.dir) {
        Ok(reloaded) => reloaded,
        Err(error) => {
            eprintln!("quorum: {}", crate::text::for_stderr(&error.to_string()));
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    let timeline = timeline(history);
    let interactive = !args.headless
        && std::io::IsTerminal::is_terminal(&std::io::stdin())
        && std::io::IsTerminal::is_terminal(&std::io::stdout());
    if !interactive {
        return match print_paced(&timeline, args.speed).await {
            // The reader stopped reading (`| head`): nothing more to show.
            Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
                Err(error).wrap_err("printing the transcript")
            }
            _ => Ok(ExitCode::SUCCESS),
        };
    }
    let _log = super::interactive::log_to_file();
    let info = crate::tui::DebateInfo::of(&*folded.protocol, args.dir.clone());
    let deliverable = info.deliverable.clone();
    let now = Instant::now();
    let app = crate::tui::App::new(info, theme, now).replaying(args.speed, now);
    tracing::info!(dir = %args.dir.display(), speed = args.speed, "replay started");
    let ending = crate::tui::run::replay(app, timeline)
        .await
        .wrap_err("running the interface")?;
    if let crate::tui::run::Ending::Finished(outcome) = ending {
        println!(
            "{}\nFull record: {}",
            super::interactive::outcome_line(&outcome),
            args.dir.join(&deliverable).display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The recorded updates with their playback times: the recorded time since
/// the first one, each gap longer than [`MAX_REPLAY_GAP_MS`] shortened to it
/// (a gap that runs backwards, from a clock set back, counts as none).
pub(super) fn timeline(history: Vec<(Timestamp, Update)>) -> Vec<Moment> {
    let max_gap = Duration::from_millis(MAX_REPLAY_GAP_MS);
    let Some(start) = history.first().map(|(at, _)| *at) else {
        return Vec::new();
    };
    let mut previous = start;
    let mut at = Duration::ZERO;
    history
        .into_iter()
        .map(|(time, update)| {
            let gap = (time - previous).to_std().unwrap_or_default();
            at = at.saturating_add(gap.min(max_gap));
            previous = time;
            Moment {
                at,
                recorded: (time - start).to_std().unwrap_or_default(),
                update,
            }
        })
        .collect()
}

/// Prints the transcript lines of `timeline` at their pace, then how the
/// debate ended, once the whole recording has played.
async fn print_paced(timeline: &[Moment], speed: f64) -> std::io::Result<()> {
    let start = tokio::time::Instant::now();
    let mut stdout = std::io::stdout();
    let mut outcome: Option<&Outcome> = None;
    for moment in timeline {
        match &moment.update {
            Update::Log(entry) => {
                tokio::time::sleep_until(start + moment.at.div_f64(speed)).await;
                writeln!(stdout, "{}", super::headless::progress_line(entry))?;
            }
            Update::Finished(finished) => outcome = Some(finished),
            // Reopened after that verdict: it no longer ends the recording.
            Update::Progress(progress) if !progress.finished => outcome = None,
            _ => {}
        }
    }
    if let Some(last) = timeline.last() {
        tokio::time::sleep_until(start + last.at.div_f64(speed)).await;
    }
    match outcome {
        Some(outcome) => writeln!(stdout, "{}", super::interactive::outcome_line(outcome)),
        None => writeln!(
            stdout,
            "no ending: the recording stops before the debate did (`quorum resume` carries it on)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(seconds: f64) -> Timestamp {
        chrono::Utc
            .with_ymd_and_hms(2026, 11, 30, 12, 0, 0)
            .unwrap()
            + chrono::TimeDelta::milliseconds((seconds * 1000.0) as i64)
    }

    fn progress(stage: &str) -> Update {
        Update::Progress(crate::protocol::Progress {
            stage: stage.into(),
            round: 1,
            finished: false,
            ..Default::default()
        })
    }

    /// The timeline of a debate that reached each stage at its second.
    fn stages_at(stages: &[(f64, &str)]) -> Vec<Moment> {
        timeline(
            stages
                .iter()
                .map(|&(seconds, stage)| (at(seconds), progress(stage)))
                .collect(),
        )
    }

    /// When each moment plays.
    fn playback(moments: &[Moment]) -> Vec<Duration> {
        moments.iter().map(|moment| moment.at).collect()
    }

    #[test]
    fn long_pauses_are_shortened_and_the_rest_kept() {
        let moments = stages_at(&[
            (0.0, "proposal"),
            (0.25, "critique"),
            // Ten minutes of thinking before the next step.
            (600.25, "moderation"),
            (601.0, "revision"),
        ]);
        assert_eq!(
            playback(&moments),
            [
                Duration::ZERO,
                Duration::from_millis(250),
                Duration::from_millis(250 + MAX_REPLAY_GAP_MS),
                Duration::from_millis(1000 + MAX_REPLAY_GAP_MS),
            ]
        );
        assert_eq!(moments[3].recorded, Duration::from_secs(601));
        assert_eq!(moments[2].update, progress("moderation"));
    }

    #[test]
    fn a_clock_set_back_counts_as_no_gap() {
        let moments = stages_at(&[(10.0, "proposal"), (5.0, "critique"), (6.0, "moderation")]);
        assert_eq!(
            playback(&moments),
            [Duration::ZERO, Duration::ZERO, Duration::from_secs(1)]
        );
    }

    #[test]
    fn an_empty_history_is_an_empty_timeline() {
        assert!(timeline(Vec::new()).is_empty());
    }
}
