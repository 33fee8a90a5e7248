//! The report's "From the proposal to the revision" (issue 61): the time
//! to write the page of a debate whose one part was rewritten, as the part
//! grows, against the word-by-word diff the page used to make (quadratic:
//! a 60,000-word part rewritten took 42 s). Sentences are compared now,
//! at most [`DIFF_SEGMENTS_MAX`] a side, and a longer part is shown as its
//! two texts, cut.
//!
//! Numbers, not assertions. Run with `cargo bench --bench report`.

use std::time::{Duration, Instant};

use quorum::protocol::ChangedPart;
use quorum::share::html::{DIFF_SEGMENTS_MAX, render};
use quorum::share::{Report, markdown};

/// Words of the rewritten part, smallest to largest.
const WORDS: [usize; 4] = [2_000, 5_000, 20_000, 60_000];
/// The largest part the old word diff is timed on (it took 4.6 s at
/// 20,000 words).
const OLD_DIFF_WORDS_MAX: usize = 20_000;
/// Runs of each measurement; the median is shown.
const RUNS: usize = 3;

/// A part of `words` words in sentences of twelve, `tag` in every word.
fn text(words: usize, tag: &str) -> String {
    (0..words)
        .map(|n| {
            if n % 12 == 11 {
                format!("{tag}{n}. ")
            } else {
                format!("{tag}{n} ")
            }
        })
        .collect()
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn time(mut work: impl FnMut()) -> Duration {
    median(
        (0..RUNS)
            .map(|_| {
                let started = Instant::now();
                work();
                started.elapsed()
            })
            .collect(),
    )
}

fn main() {
    println!("report/changes: compare at most {DIFF_SEGMENTS_MAX} sentences a side");
    for words in WORDS {
        let (before, after) = (text(words, "old"), text(words, "new"));
        // Half the sentences kept, half rewritten: a diff, not two texts.
        let half: String = before
            .split_inclusive(". ")
            .enumerate()
            .map(|(n, sentence)| {
                if n % 2 == 0 {
                    sentence.to_string()
                } else {
                    sentence.replace("old", "new")
                }
            })
            .collect();
        let report = |after: &str| Report {
            changes: vec![ChangedPart {
                part: "b1".into(),
                before: before.clone(),
                after: after.to_string(),
                causes: Vec::new(),
                markdown: false,
            }],
            ..Default::default()
        };
        let (rewritten, edited) = (report(&after), report(&half));
        let mut bytes = 0;
        let page = time(|| bytes = render(&rewritten).len());
        let page_edited = time(|| {
            render(&edited);
        });
        let file = time(|| {
            markdown::render(&rewritten);
        });
        let old = (words <= OLD_DIFF_WORDS_MAX).then(|| {
            time(|| {
                similar::TextDiff::from_words(before.as_str(), after.as_str()).ratio();
            })
        });
        println!(
            "report/changes: {words:>6} words: page {:>8.1} ms ({bytes} bytes), half edited {:>8.1} ms, report.md {:>6.1} ms; old word diff {}",
            page.as_secs_f64() * 1e3,
            page_edited.as_secs_f64() * 1e3,
            file.as_secs_f64() * 1e3,
            old.map_or("not timed".to_string(), |old| format!(
                "{:.1} ms ({:.0}× the page)",
                old.as_secs_f64() * 1e3,
                old.as_secs_f64() / page.as_secs_f64()
            ))
        );
    }
}
