//! The material `quorum probe` shows its judges: short questions whose
//! answers quorum computes itself, each with answers of known, controlled
//! quality, generated from templates in code by a seed. Nothing is
//! downloaded and nothing is random beyond the seed: one seed and one
//! count give the same material on every machine and every version that
//! keeps these templates.
//!
//! Responsible for the questions and answers only; what a judge is asked
//! about them is [`super::prompts`]'s.

use serde::{Deserialize, Serialize};

/// One question with its answers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    pub question: String,
    /// Correct, with the working that shows why.
    pub complete: String,
    /// Correct, with no working: a little worse than [`Self::complete`].
    pub terse: String,
    /// [`Self::complete`] with neutral padding around it: the question
    /// restated and the answer said again, nothing new.
    pub padded: String,
    /// Words that answer nothing: what a lenient judge scores well.
    pub dummy: String,
}

/// A deterministic generator of 64-bit numbers (SplitMix64): small,
/// fixed, and the same everywhere, unlike a library's generator whose
/// algorithm may change between versions.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `low..=high`.
    fn between(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low + 1)
    }

    fn pick<'a>(&mut self, choices: &[&'a str]) -> &'a str {
        choices[(self.next() % choices.len() as u64) as usize]
    }
}

const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// Content-free answers: they sound like answers and say nothing.
const DUMMIES: [&str; 4] = [
    "That is a good question, and the answer depends on several factors that are worth considering carefully.",
    "There are many ways to look at this, and each of them has its merits in the right context.",
    "The answer follows from the question itself once it is considered with appropriate care.",
    "It is important to think this through step by step; the result is what one would expect.",
];

/// The `count` items of `seed`.
pub fn generate(seed: u64, count: u32) -> Vec<Item> {
    let mut rng = SplitMix(seed);
    (0..count).map(|index| item(&mut rng, index)).collect()
}

fn item(rng: &mut SplitMix, index: u32) -> Item {
    let (question, result, working) = match index % 5 {
        0 => {
            let (a, b) = (rng.between(12, 99), rng.between(12, 99));
            (
                format!("What is {a} + {b}?"),
                format!("{a} + {b} = {}", a + b),
                format!(
                    "Add the tens ({} + {} = {}) and the units ({} + {} = {}), then combine them.",
                    a / 10 * 10,
                    b / 10 * 10,
                    a / 10 * 10 + b / 10 * 10,
                    a % 10,
                    b % 10,
                    a % 10 + b % 10
                ),
            )
        }
        1 => {
            let hours = rng.between(2, 12);
            (
                format!("How many minutes are in {hours} hours?"),
                format!("{hours} hours are {} minutes", hours * 60),
                format!(
                    "Each hour has 60 minutes, so multiply: {hours} × 60 = {}.",
                    hours * 60
                ),
            )
        }
        2 => {
            let start = rng.between(0, 6) as usize;
            let days = rng.between(3, 20);
            let end = DAYS[(start + days as usize) % 7];
            (
                format!(
                    "If today is {}, what day is it in {days} days?",
                    DAYS[start]
                ),
                format!("It is {end}"),
                format!(
                    "A week has 7 days, so only the remainder of {days} ÷ 7 matters: {}; count {} days on from {}.",
                    days % 7,
                    days % 7,
                    DAYS[start]
                ),
            )
        }
        3 => {
            let (width, height) = (rng.between(2, 40), rng.between(2, 40));
            let perimeter = 2 * (width + height);
            (
                format!("What is the perimeter of a {width} m by {height} m rectangle?"),
                format!("The perimeter is {perimeter} m"),
                format!(
                    "A rectangle has two sides of each length: 2 × ({width} + {height}) = {perimeter}."
                ),
            )
        }
        _ => {
            let (a, b) = (rng.between(101, 999), rng.between(101, 999));
            let (a, b) = if a == b { (a, b + 1) } else { (a, b) };
            let larger = a.max(b);
            (
                format!("Which is larger, {a} or {b}?"),
                format!("{larger} is larger"),
                format!(
                    "Compare the digits from the left: {larger} exceeds {} at the first digit where they differ.",
                    a.min(b)
                ),
            )
        }
    };
    let complete = format!("{result}. {working}");
    let terse = format!("{result}.");
    let opener = rng.pick(&[
        "To restate the question:",
        "The question asks:",
        "Put another way, the question is:",
    ]);
    let closer = rng.pick(&[
        "To summarise, the answer given above stands:",
        "In short, and to repeat the result:",
        "So, once more, the answer is:",
    ]);
    let padded = format!("{opener} {question} {complete} {closer} {result}.");
    let dummy = rng.pick(&DUMMIES).to_string();
    Item {
        question,
        complete,
        terse,
        padded,
        dummy,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jm_02_material_is_deterministic_by_seed() {
        assert_eq!(generate(7, 20), generate(7, 20));
        assert_ne!(generate(7, 20), generate(8, 20));
        // A longer run starts with the shorter one.
        assert_eq!(generate(7, 5)[..], generate(7, 20)[..5]);
        // Pinned, so that a change of the generator (and so of every saved
        // probe's material) is a deliberate one.
        assert_eq!(generate(1, 1)[0].question, "What is 21 + 75?");
    }

    #[test]
    fn jm_02_answers_have_the_controlled_qualities() {
        for item in generate(42, 50) {
            // The padded answer holds the complete one and adds no number
            // the complete answer lacks.
            assert!(item.padded.contains(&item.complete));
            assert!(item.padded.len() > item.complete.len() + 20);
            let numbers = |text: &str| {
                text.split(|c: char| !c.is_ascii_digit())
                    .filter(|n| !n.is_empty())
                    .map(str::to_string)
                    .collect::<std::collections::BTreeSet<_>>()
            };
            let extra: Vec<_> = numbers(&item.padded)
                .difference(&numbers(&format!("{} {}", item.question, item.complete)))
                .cloned()
                .collect();
            assert!(extra.is_empty(), "padding added {extra:?}: {}", item.padded);
            // The terse answer is the complete one's first sentence.
            assert!(item.complete.starts_with(item.terse.trim_end_matches('.')));
            assert!(!item.dummy.chars().any(|c| c.is_ascii_digit()));
        }
    }
}
