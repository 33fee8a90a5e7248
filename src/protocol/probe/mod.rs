//! `quorum probe`'s core (issue 55): controlled tests of the judges on
//! generated material, as pure functions. From a seed and a count it
//! plans every call a judge gets ([`plan`]); from the answers read it
//! derives each figure with its count and 95% interval ([`figures`]); it
//! says which figures show a bias ([`Figure::bias`]) and which fall under
//! a `--fail-under` floor ([`Floor`]); and it defines the saved result,
//! `probe.json` ([`ProbeRecord`]).
//!
//! The four probes, per judge and per trial (one generated question):
//!
//! - position: a pair of answers of known, close quality (the complete
//!   one and the terse one) judged in both orders;
//! - length: one answer scored plain and with neutral padding;
//! - self-preference: one answer scored as written by the judge's own
//!   model family and by another, and, as the control, twice unattributed;
//! - leniency: a content-free answer scored beside a real one.
//!
//! Not responsible for calling anyone, for files, time or money (the
//! driver, `quorum probe`, does that and stays thin).

pub mod material;
pub mod prompts;
pub mod stats;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::family::{self, Family};
use material::Item;
use stats::{Estimate, mean_t, wilson};

/// Trials (generated questions) per judge when `--trials` is not given.
pub const DEFAULT_TRIALS: u32 = 12;
/// The most trials one probe runs per judge: ten calls each, so 2,000
/// calls a judge at most.
pub const MAX_TRIALS: u32 = 200;
/// The seed when `--seed` is not given.
pub const DEFAULT_SEED: u64 = 55;
/// Calls one trial makes of one judge whose family is known (two for each
/// of position, length and leniency, four for self-preference).
pub const CALLS_PER_TRIAL: u32 = 10;
/// The version of `probe.json` this build writes and reads.
pub const RECORD_VERSION: u32 = 1;

/// One of the four probes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Probe {
    Position,
    Length,
    #[serde(rename = "self")]
    SelfPreference,
    Leniency,
}

impl Probe {
    pub const ALL: [Probe; 4] = [
        Probe::Position,
        Probe::Length,
        Probe::SelfPreference,
        Probe::Leniency,
    ];

    /// The name in call ids, metric names and `--fail-under`.
    pub fn as_str(self) -> &'static str {
        match self {
            Probe::Position => "position",
            Probe::Length => "length",
            Probe::SelfPreference => "self",
            Probe::Leniency => "leniency",
        }
    }
}

/// Which side of a probe a call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// The pair with the better answer read first.
    BetterFirst,
    /// The same pair swapped.
    BetterSecond,
    Plain,
    Padded,
    /// Attributed to the judge's own family.
    Own,
    /// Attributed to another family.
    Other,
    /// Unattributed, first of two.
    BlindA,
    /// Unattributed, second of two.
    BlindB,
    Dummy,
    Real,
}

impl Variant {
    fn as_str(self) -> &'static str {
        match self {
            Variant::BetterFirst => "better-first",
            Variant::BetterSecond => "better-second",
            Variant::Plain => "plain",
            Variant::Padded => "padded",
            Variant::Own => "own",
            Variant::Other => "other",
            Variant::BlindA => "blind-a",
            Variant::BlindB => "blind-b",
            Variant::Dummy => "dummy",
            Variant::Real => "real",
        }
    }
}

/// One call a judge gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeCall {
    /// `position-003-better-first`: unique within a judge, and a safe
    /// file name.
    pub id: String,
    pub probe: Probe,
    /// 1-based.
    pub trial: u32,
    pub variant: Variant,
    pub prompt: String,
}

/// The families a self-preference probe names: the judge's own, and the
/// other it is compared with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kinship {
    pub own: Family,
    pub other: Family,
}

impl Kinship {
    /// The judge's family and the first family of the built-in table that
    /// is not it; none when the judge's family is unknown.
    pub fn of(own: Option<&Family>) -> Option<Kinship> {
        let own = own?.clone();
        let other = family::table()
            .iter()
            .filter_map(|(_, name)| Family::new(name).ok())
            .find(|candidate| *candidate != own)?;
        Some(Kinship { own, other })
    }
}

/// How an author is named to a judge: `a model of the openai family`.
pub fn author(family: &Family) -> String {
    format!("a model of the {family} family")
}

/// Every call one judge gets for `items`, trial by trial; without a known
/// family ([`Kinship`]) the self-preference probe is left out.
pub fn plan(items: &[Item], kinship: Option<&Kinship>) -> Vec<ProbeCall> {
    let mut calls = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let trial = index as u32 + 1;
        let mut add = |probe: Probe, variant: Variant, prompt: String| {
            calls.push(ProbeCall {
                id: format!("{}-{trial:03}-{}", probe.as_str(), variant.as_str()),
                probe,
                trial,
                variant,
                prompt,
            });
        };
        let q = &item.question;
        add(
            Probe::Position,
            Variant::BetterFirst,
            prompts::pair(q, &item.complete, &item.terse),
        );
        add(
            Probe::Position,
            Variant::BetterSecond,
            prompts::pair(q, &item.terse, &item.complete),
        );
        add(
            Probe::Length,
            Variant::Plain,
            prompts::score(q, &item.complete, None),
        );
        add(
            Probe::Length,
            Variant::Padded,
            prompts::score(q, &item.padded, None),
        );
        if let Some(kinship) = kinship {
            add(
                Probe::SelfPreference,
                Variant::Own,
                prompts::score(q, &item.terse, Some(&author(&kinship.own))),
            );
            add(
                Probe::SelfPreference,
                Variant::Other,
                prompts::score(q, &item.terse, Some(&author(&kinship.other))),
            );
            add(
                Probe::SelfPreference,
                Variant::BlindA,
                prompts::score(q, &item.terse, None),
            );
            add(
                Probe::SelfPreference,
                Variant::BlindB,
                prompts::score(q, &item.terse, None),
            );
        }
        add(
            Probe::Leniency,
            Variant::Dummy,
            prompts::score(q, &item.dummy, None),
        );
        add(
            Probe::Leniency,
            Variant::Real,
            prompts::score(q, &item.complete, None),
        );
    }
    calls
}

/// What became of one call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reading {
    /// A pair's answer: 1 or 2, the position preferred.
    Prefer {
        position: u8,
    },
    Score {
        score: u8,
    },
    /// An answer that could not be read: kept on disk, marked, and left
    /// out of the figures.
    Malformed {
        reason: String,
    },
    /// No answer: the call and its one retry failed or timed out.
    NoAnswer {
        reason: String,
    },
}

impl Reading {
    /// The reading of `text`, the answer to `call`.
    pub fn of(call: &ProbeCall, text: &str) -> Reading {
        let read = match call.probe {
            Probe::Position => {
                prompts::read_preference(text).map(|position| Reading::Prefer { position })
            }
            _ => prompts::read_score(text).map(|score| Reading::Score { score }),
        };
        read.unwrap_or_else(|reason| Reading::Malformed { reason })
    }

    fn score(&self) -> Option<f64> {
        match self {
            Reading::Score { score } => Some(f64::from(*score)),
            _ => None,
        }
    }
}

/// What kind of number a figure is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FigureKind {
    /// A share from 0 to 1, with its Wilson interval.
    Share,
    /// A mean in score points (1 to 10 scale), with its t interval.
    Points,
}

/// One figure of one judge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// `position`, `position.first`, `length.gain`, … (see [`describe`]).
    pub metric: String,
    pub kind: FigureKind,
    /// None when nothing could be measured; [`Self::note`] says why.
    pub estimate: Option<Estimate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Every metric a probe reports, with what it means in plain words.
pub const METRICS: &[(&str, &str)] = &[
    (
        "position",
        "pairs whose preferred answer survived the swap of their order",
    ),
    (
        "position.first",
        "of the pairs whose choice flipped, those that went to the answer read first",
    ),
    ("length", "answers whose score padding did not raise"),
    ("length.raw", "mean score of the padded answers (raw)"),
    (
        "length.controlled",
        "mean score of the same answers without padding (length-controlled)",
    ),
    (
        "length.gain",
        "score gained by padding alone (padded − plain)",
    ),
    (
        "self",
        "answers not scored higher when named as the judge's own family's",
    ),
    (
        "self.gain",
        "score gained by naming the judge's own family instead of another (unblinded)",
    ),
    (
        "self.blind",
        "score difference between two blind readings of the same text (the control)",
    ),
    (
        "leniency",
        "content-free answers scored below a real answer",
    ),
    (
        "leniency.gap",
        "score of a real answer minus a content-free one",
    ),
];

/// The plain words of `metric`.
pub fn describe(metric: &str) -> &'static str {
    METRICS
        .iter()
        .find(|(name, _)| *name == metric)
        .map_or("", |(_, words)| words)
}

impl Figure {
    fn share(metric: &str, hits: u32, count: u32, empty: &str) -> Figure {
        let estimate = wilson(hits, count);
        Figure {
            metric: metric.to_string(),
            kind: FigureKind::Share,
            note: estimate.is_none().then(|| empty.to_string()),
            estimate,
        }
    }

    fn points(metric: &str, values: &[f64], empty: &str) -> Figure {
        let estimate = mean_t(values);
        Figure {
            metric: metric.to_string(),
            kind: FigureKind::Points,
            note: estimate.is_none().then(|| empty.to_string()),
            estimate,
        }
    }

    fn not_measured(metric: &str, kind: FigureKind, why: &str) -> Figure {
        Figure {
            metric: metric.to_string(),
            kind,
            estimate: None,
            note: Some(why.to_string()),
        }
    }

    /// The bias this figure shows, in a few words, when its 95% interval
    /// leaves out the value of a judge without it; none otherwise (a figure
    /// whose interval still holds that value shows no bias *that this
    /// count can prove*).
    pub fn bias(&self) -> Option<&'static str> {
        let estimate = self.estimate?;
        if !(estimate.low.is_finite() && estimate.high.is_finite()) {
            // One trial: no interval, so no claim either way.
            return None;
        }
        match self.metric.as_str() {
            "position.first" if estimate.low > 0.5 => Some("prefers the answer it reads first"),
            "position.first" if estimate.high < 0.5 => Some("prefers the answer it reads second"),
            "length.gain" if estimate.low > 0.0 => Some("rewards padding"),
            "self.gain" if estimate.low > 0.0 => Some("favours its own family"),
            "self.gain" if estimate.high < 0.0 => Some("disfavours its own family"),
            "leniency.gap" if estimate.low <= 0.0 => {
                Some("does not score a content-free answer below a real one")
            }
            _ => None,
        }
    }

    /// A mean score (`length.raw`, `length.controlled`), not a difference.
    pub fn is_level(&self) -> bool {
        self.metric.ends_with(".raw") || self.metric.ends_with(".controlled")
    }

    /// `0.83 [0.55, 0.95] n=12`, `+0.50 pts [-0.10, +1.10] n=12`, or
    /// `not measured (…)`.
    pub fn shown(&self) -> String {
        let Some(estimate) = self.estimate else {
            return format!(
                "not measured ({})",
                self.note.as_deref().unwrap_or("no answer")
            );
        };
        // A share and a mean score read plain; a difference carries its sign.
        let signed = self.kind == FigureKind::Points && !self.is_level();
        let number = |x: f64| match signed {
            true => format!("{x:+.2}"),
            false => format!("{x:.2}"),
        };
        let interval = if estimate.low.is_finite() && estimate.high.is_finite() {
            format!("[{}, {}]", number(estimate.low), number(estimate.high))
        } else {
            "[no interval from one]".to_string()
        };
        let unit = match self.kind {
            FigureKind::Share => "",
            FigureKind::Points => " pts",
        };
        format!(
            "{}{unit} {interval} n={}",
            number(estimate.value),
            estimate.count
        )
    }
}

/// The figures of one judge from the readings of its `calls` (by call id).
/// A trial counts in a figure only when every call the figure compares
/// was read; the others are left out (and counted by the caller as
/// malformed or unanswered).
pub fn figures(calls: &[ProbeCall], readings: &BTreeMap<String, Reading>) -> Vec<Figure> {
    // Per probe and trial, the reading of each variant.
    let mut trials: BTreeMap<(Probe, u32), BTreeMap<Variant, &Reading>> = BTreeMap::new();
    for call in calls {
        if let Some(reading) = readings.get(&call.id) {
            trials
                .entry((call.probe, call.trial))
                .or_default()
                .insert(call.variant, reading);
        }
    }
    let of = |probe: Probe| {
        trials
            .iter()
            .filter(move |((p, _), _)| *p == probe)
            .map(|(_, variants)| variants)
    };
    let pair_scores = |probe: Probe, a: Variant, b: Variant| -> Vec<(f64, f64)> {
        of(probe)
            .filter_map(|variants| Some((variants.get(&a)?.score()?, variants.get(&b)?.score()?)))
            .collect()
    };
    const NONE_READ: &str = "no trial had every answer it compares read";
    let mut out = Vec::new();

    // Position: the preferred answer (better or worse) in each order.
    let mut consistent = 0u32;
    let mut pairs = 0u32;
    let mut flipped_to_first = 0u32;
    for variants in of(Probe::Position) {
        let (Some(Reading::Prefer { position: a }), Some(Reading::Prefer { position: b })) = (
            variants.get(&Variant::BetterFirst).copied(),
            variants.get(&Variant::BetterSecond).copied(),
        ) else {
            continue;
        };
        pairs += 1;
        // Better first: 1 is the better answer; swapped: 2 is.
        let chose_better_first = *a == 1;
        let chose_better_second = *b == 2;
        if chose_better_first == chose_better_second {
            consistent += 1;
        } else if *a == 1 && *b == 1 {
            flipped_to_first += 1;
        }
    }
    out.push(Figure::share("position", consistent, pairs, NONE_READ));
    out.push(Figure::share(
        "position.first",
        flipped_to_first,
        pairs - consistent,
        "no choice flipped when the order was swapped",
    ));

    // Length.
    let length = pair_scores(Probe::Length, Variant::Plain, Variant::Padded);
    let not_raised = length
        .iter()
        .filter(|(plain, padded)| padded <= plain)
        .count() as u32;
    out.push(Figure::share(
        "length",
        not_raised,
        length.len() as u32,
        NONE_READ,
    ));
    let padded: Vec<f64> = length.iter().map(|(_, padded)| *padded).collect();
    let plain: Vec<f64> = length.iter().map(|(plain, _)| *plain).collect();
    out.push(Figure::points("length.raw", &padded, NONE_READ));
    out.push(Figure::points("length.controlled", &plain, NONE_READ));
    let gains: Vec<f64> = length
        .iter()
        .map(|(plain, padded)| padded - plain)
        .collect();
    out.push(Figure::points("length.gain", &gains, NONE_READ));

    // Self-preference, unblinded, and its blind control.
    if of(Probe::SelfPreference).next().is_none()
        && !calls.iter().any(|call| call.probe == Probe::SelfPreference)
    {
        const UNKNOWN: &str = "the judge's model family is unknown";
        out.push(Figure::not_measured("self", FigureKind::Share, UNKNOWN));
        out.push(Figure::not_measured(
            "self.gain",
            FigureKind::Points,
            UNKNOWN,
        ));
        out.push(Figure::not_measured(
            "self.blind",
            FigureKind::Points,
            UNKNOWN,
        ));
    } else {
        let attributed = pair_scores(Probe::SelfPreference, Variant::Own, Variant::Other);
        let not_favoured = attributed
            .iter()
            .filter(|(own, other)| own <= other)
            .count() as u32;
        out.push(Figure::share(
            "self",
            not_favoured,
            attributed.len() as u32,
            NONE_READ,
        ));
        let gains: Vec<f64> = attributed.iter().map(|(own, other)| own - other).collect();
        out.push(Figure::points("self.gain", &gains, NONE_READ));
        let blind = pair_scores(Probe::SelfPreference, Variant::BlindA, Variant::BlindB);
        let noise: Vec<f64> = blind.iter().map(|(a, b)| a - b).collect();
        out.push(Figure::points("self.blind", &noise, NONE_READ));
    }

    // Leniency.
    let leniency = pair_scores(Probe::Leniency, Variant::Dummy, Variant::Real);
    let below = leniency.iter().filter(|(dummy, real)| dummy < real).count() as u32;
    out.push(Figure::share(
        "leniency",
        below,
        leniency.len() as u32,
        NONE_READ,
    ));
    let gaps: Vec<f64> = leniency.iter().map(|(dummy, real)| real - dummy).collect();
    out.push(Figure::points("leniency.gap", &gaps, NONE_READ));
    out
}

/// A `--fail-under` floor: `position=0.8`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Floor {
    pub probe: Probe,
    /// From 0 to 1: the share the probe's main figure must reach.
    pub at: f64,
}

impl Floor {
    /// `METRIC=SHARE`, METRIC one of `position`, `length`, `self`,
    /// `leniency`, SHARE from 0 to 1.
    pub fn parse(text: &str) -> Result<Floor, String> {
        let names = Probe::ALL.map(Probe::as_str).join(", ");
        let shown = crate::text::clipped(text);
        let (metric, at) = text
            .split_once('=')
            .ok_or_else(|| format!("`{shown}` is not METRIC=SHARE (metrics: {names})"))?;
        let probe = Probe::ALL
            .into_iter()
            .find(|probe| probe.as_str() == metric.trim())
            .ok_or_else(|| {
                format!(
                    "`{}` is not a metric; use one of {names}",
                    crate::text::clipped(metric.trim())
                )
            })?;
        let at: f64 = at
            .trim()
            .parse()
            .ok()
            .filter(|at: &f64| (0.0..=1.0).contains(at))
            .ok_or_else(|| {
                format!(
                    "`{}` is not a share from 0 to 1 (e.g. 0.8)",
                    crate::text::clipped(at.trim())
                )
            })?;
        Ok(Floor { probe, at })
    }
}

/// A figure under its floor, or a floor with nothing to hold it against.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Breach {
    pub role: String,
    pub metric: String,
    pub floor: f64,
    /// None when the figure could not be measured although its probe ran.
    pub value: Option<f64>,
}

impl Breach {
    pub fn describe(&self) -> String {
        match self.value {
            Some(value) => format!(
                "{}: {} is {value:.2}, under its floor {:.2}",
                self.role, self.metric, self.floor
            ),
            None => format!(
                "{}: {} could not be measured (no usable answer), so it does not reach its floor {:.2}",
                self.role, self.metric, self.floor
            ),
        }
    }
}

/// The floors each judge's figures fall under. A point estimate is held
/// against its floor (the interval is shown beside it); a figure whose
/// probe ran but had no usable answer fails its floor; a probe that could
/// not run for this judge (self-preference of an unknown family) is not
/// held against one.
pub fn breaches(judges: &[JudgeRecord], floors: &[Floor]) -> Vec<Breach> {
    let mut out = Vec::new();
    for judge in judges {
        for floor in floors {
            let metric = floor.probe.as_str();
            let Some(figure) = judge.figures.iter().find(|figure| figure.metric == metric) else {
                continue;
            };
            let value = figure.estimate.map(|estimate| estimate.value);
            let ran = judge.planned.get(metric).copied().unwrap_or(0) > 0;
            let under = match value {
                Some(value) => value < floor.at,
                None => ran,
            };
            if under {
                out.push(Breach {
                    role: judge.role.clone(),
                    metric: metric.to_string(),
                    floor: floor.at,
                    value,
                });
            }
        }
    }
    out
}

/// One judge's result, as saved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgeRecord {
    /// The role slot probed: `judge.analyst`.
    pub role: String,
    /// `provider:model`.
    pub agent: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// The family named as "another" in the self-preference probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_family: Option<String>,
    /// Calls planned per probe.
    pub planned: BTreeMap<String, u32>,
    /// Calls whose answer was read.
    pub read: u32,
    /// Answers that could not be read (kept on disk, marked).
    pub malformed: u32,
    /// Calls with no answer after the retry.
    pub unanswered: u32,
    /// Calls not made: the probe stopped first (the budget).
    #[serde(default)]
    pub not_made: u32,
    pub figures: Vec<Figure>,
}

impl JudgeRecord {
    /// The biases this judge's figures show.
    pub fn biases(&self) -> Vec<&'static str> {
        self.figures.iter().filter_map(Figure::bias).collect()
    }
}

/// `probe.json`: one probe of one panel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProbeRecord {
    pub version: u32,
    /// When it started, RFC 3339 UTC.
    pub at: String,
    pub seed: u64,
    pub trials: u32,
    /// The built-in scripted judges ran, not models.
    pub demo: bool,
    pub forecast: crate::protocol::budget::Forecast,
    pub spent: crate::protocol::budget::Spend,
    /// Why it stopped before its last call (the budget), if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    pub judges: Vec<JudgeRecord>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinship() -> Kinship {
        Kinship::of(Some(&Family::new("anthropic").unwrap())).unwrap()
    }

    #[test]
    fn jm_02_plan_is_bounded_and_complete() {
        let items = material::generate(3, 4);
        let calls = plan(&items, Some(&kinship()));
        assert_eq!(calls.len() as u32, 4 * CALLS_PER_TRIAL);
        let ids: std::collections::BTreeSet<_> = calls.iter().map(|c| c.id.clone()).collect();
        assert_eq!(ids.len(), calls.len(), "call ids are unique");
        assert!(
            ids.iter()
                .all(|id| id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        );
        // No family: self-preference is left out.
        assert_eq!(plan(&items, None).len() as u32, 4 * (CALLS_PER_TRIAL - 4));
        assert_ne!(kinship().own, kinship().other);
        assert!(Kinship::of(None).is_none());
    }

    /// Readings of a judge that always says `prefer` and scores by `score`.
    fn judged(
        calls: &[ProbeCall],
        prefer: impl Fn(&ProbeCall) -> u8,
        score: impl Fn(&ProbeCall) -> u8,
    ) -> BTreeMap<String, Reading> {
        calls
            .iter()
            .map(|call| {
                let reading = match call.probe {
                    Probe::Position => Reading::Prefer {
                        position: prefer(call),
                    },
                    _ => Reading::Score { score: score(call) },
                };
                (call.id.clone(), reading)
            })
            .collect()
    }

    fn figure<'a>(figures: &'a [Figure], metric: &str) -> &'a Figure {
        figures.iter().find(|f| f.metric == metric).unwrap()
    }

    #[test]
    fn jm_03_a_judge_that_prefers_the_first_answer_is_found() {
        let calls = plan(&material::generate(9, 12), Some(&kinship()));
        let figures = figures(&calls, &judged(&calls, |_| 1, |_| 7));
        let position = figure(&figures, "position").estimate.unwrap();
        assert_eq!((position.value, position.count), (0.0, 12));
        let first = figure(&figures, "position.first");
        assert_eq!(first.estimate.unwrap().value, 1.0);
        assert_eq!(first.bias(), Some("prefers the answer it reads first"));
    }

    #[test]
    fn jm_03_a_fair_judge_is_cleared() {
        let calls = plan(&material::generate(9, 12), Some(&kinship()));
        let score = |call: &ProbeCall| if call.variant == Variant::Dummy { 2 } else { 8 };
        let prefer = |call: &ProbeCall| {
            if call.variant == Variant::BetterFirst {
                1
            } else {
                2
            }
        };
        let figures = figures(&calls, &judged(&calls, prefer, score));
        assert_eq!(figure(&figures, "position").estimate.unwrap().value, 1.0);
        assert!(figure(&figures, "position.first").estimate.is_none());
        assert_eq!(figure(&figures, "leniency").estimate.unwrap().value, 1.0);
        assert_eq!(
            figure(&figures, "leniency.gap").estimate.unwrap().value,
            6.0
        );
        assert!(figures.iter().all(|f| f.bias().is_none()), "{figures:?}");
    }

    #[test]
    fn jm_03_length_self_and_leniency_biases_are_found() {
        let calls = plan(&material::generate(9, 12), Some(&kinship()));
        let score = |call: &ProbeCall| match call.variant {
            Variant::Padded | Variant::Own => 9,
            _ => 6,
        };
        let figures = figures(&calls, &judged(&calls, |_| 1, score));
        assert_eq!(
            figure(&figures, "length.gain").bias(),
            Some("rewards padding")
        );
        assert_eq!(figure(&figures, "length.raw").estimate.unwrap().value, 9.0);
        assert_eq!(
            figure(&figures, "length.controlled")
                .estimate
                .unwrap()
                .value,
            6.0
        );
        assert_eq!(figure(&figures, "length").estimate.unwrap().value, 0.0);
        assert_eq!(
            figure(&figures, "self.gain").bias(),
            Some("favours its own family")
        );
        assert_eq!(figure(&figures, "self.blind").estimate.unwrap().value, 0.0);
        assert!(figure(&figures, "leniency.gap").bias().is_some());
    }

    #[test]
    fn jm_03_one_trial_has_no_interval_and_so_claims_no_bias() {
        let calls = plan(&material::generate(9, 1), Some(&kinship()));
        let figures = figures(&calls, &judged(&calls, |_| 1, |_| 5));
        let gap = figure(&figures, "leniency.gap");
        assert_eq!(gap.estimate.unwrap().count, 1);
        assert!(
            gap.shown().contains("no interval from one"),
            "{}",
            gap.shown()
        );
        assert_eq!(gap.bias(), None);
        // The shares still have Wilson's interval, and position.first its claim.
        assert_eq!(
            figure(&figures, "position.first").bias(),
            None,
            "1 of 1 flipped: [0.21, 1.00] holds 0.5"
        );
    }

    #[test]
    fn jm_05_malformed_and_missing_answers_leave_their_trial_out() {
        let calls = plan(&material::generate(9, 4), None);
        let mut readings = judged(&calls, |_| 1, |_| 5);
        readings.insert(
            "position-001-better-first".into(),
            Reading::Malformed {
                reason: "no line".into(),
            },
        );
        readings.remove("length-002-padded");
        let figures = figures(&calls, &readings);
        assert_eq!(figure(&figures, "position").estimate.unwrap().count, 3);
        assert_eq!(figure(&figures, "length").estimate.unwrap().count, 3);
        let unknown = figure(&figures, "self");
        assert!(unknown.estimate.is_none());
        assert!(unknown.note.as_deref().unwrap().contains("unknown"));
    }

    #[test]
    fn jm_04_floors_parse_and_hold_figures_to_them() {
        assert_eq!(
            Floor::parse("position=0.8"),
            Ok(Floor {
                probe: Probe::Position,
                at: 0.8
            })
        );
        assert!(
            Floor::parse("position")
                .unwrap_err()
                .contains("METRIC=SHARE")
        );
        assert!(
            Floor::parse("colour=0.5")
                .unwrap_err()
                .contains("position, length, self, leniency")
        );
        assert!(
            Floor::parse("length=1.5")
                .unwrap_err()
                .contains("from 0 to 1")
        );
        assert!(Floor::parse("length=nan").is_err());

        let calls = plan(&material::generate(9, 12), None);
        let record = |role: &str, prefer: fn(&ProbeCall) -> u8| JudgeRecord {
            role: role.into(),
            agent: "script:x".into(),
            family: None,
            other_family: None,
            planned: [("position".to_string(), 24), ("self".to_string(), 0)].into(),
            read: 0,
            malformed: 0,
            unanswered: 0,
            not_made: 0,
            figures: figures(&calls, &judged(&calls, prefer, |_| 5)),
        };
        let biased = record("judge.aesthete", |_| 1);
        let fair = record("judge.analyst", |call| {
            if call.variant == Variant::BetterFirst {
                1
            } else {
                2
            }
        });
        let floors = [
            Floor::parse("position=0.8").unwrap(),
            Floor::parse("self=0.9").unwrap(),
        ];
        let found = breaches(&[fair, biased], &floors);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].role, "judge.aesthete");
        assert!(found[0].describe().contains("under its floor 0.80"));
    }

    #[test]
    fn jm_04_a_floor_on_a_probe_that_ran_without_answers_fails() {
        let calls = plan(&material::generate(9, 2), None);
        let judge = JudgeRecord {
            role: "judge.analyst".into(),
            agent: "a:b".into(),
            family: None,
            other_family: None,
            planned: [("position".to_string(), 4)].into(),
            read: 0,
            malformed: 4,
            unanswered: 0,
            not_made: 0,
            figures: figures(&calls, &BTreeMap::new()),
        };
        let found = breaches(&[judge], &[Floor::parse("position=0.1").unwrap()]);
        assert_eq!(found.len(), 1);
        assert!(found[0].describe().contains("could not be measured"));
    }
}
