//! The calibration figures, as arithmetic: a critic's acceptance precision
//! with its Wilson interval, and a judge's agreement with the moderator as
//! Cohen's kappa with the base rate beside it.
//!
//! Pure functions of counts: no database, no words. Which rulings and
//! labels are counted is the library's business ([`super`]); how a figure
//! is shown is the command's.

/// The normal quantile of a two-sided 95 % interval.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// A proportion with its 95 % Wilson score interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Proportion {
    pub share: f64,
    pub low: f64,
    pub high: f64,
}

/// `successes` of `trials` with its 95 % Wilson score interval; `None`
/// without a trial.
pub fn wilson(successes: u64, trials: u64) -> Option<Proportion> {
    if trials == 0 || successes > trials {
        return None;
    }
    let n = trials as f64;
    let share = successes as f64 / n;
    let z2 = Z_95 * Z_95;
    let denominator = 1.0 + z2 / n;
    let centre = (share + z2 / (2.0 * n)) / denominator;
    let half = Z_95 / denominator * (share * (1.0 - share) / n + z2 / (4.0 * n * n)).sqrt();
    // At 0 or all successes an end is exactly 0 or 1; rounding would miss it.
    Some(Proportion {
        share,
        low: if successes == 0 {
            0.0
        } else {
            (centre - half).max(0.0)
        },
        high: if successes == trials {
            1.0
        } else {
            (centre + half).min(1.0)
        },
    })
}

/// The two-by-two table of a judge's labels against the moderator's
/// rulings on the same items: `both` the judge flagged an item the person
/// accepted, `judge_only` flagged one they rejected, `person_only` left
/// alone one they accepted, `neither` left alone one they rejected.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Agreement {
    pub both: u64,
    pub judge_only: u64,
    pub person_only: u64,
    pub neither: u64,
}

/// Cohen's kappa of an [`Agreement`], with what it rests on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kappa {
    /// `None` when chance alone agrees every time (both raters gave one
    /// answer throughout): kappa is not defined then.
    pub kappa: Option<f64>,
    /// The share of the items the person accepted.
    pub base_rate: f64,
    /// The share of the items on which judge and person agreed.
    pub observed: f64,
    pub labels: u64,
}

impl Agreement {
    pub fn labels(&self) -> u64 {
        self.both + self.judge_only + self.person_only + self.neither
    }

    /// Counts one label: whether the judge flagged the item, whether the
    /// person accepted it.
    pub fn count(&mut self, judge_flagged: bool, person_accepted: bool) {
        match (judge_flagged, person_accepted) {
            (true, true) => self.both += 1,
            (true, false) => self.judge_only += 1,
            (false, true) => self.person_only += 1,
            (false, false) => self.neither += 1,
        }
    }

    /// Cohen's kappa, `(observed - chance) / (1 - chance)`; `None` without
    /// a label.
    pub fn kappa(&self) -> Option<Kappa> {
        let labels = self.labels();
        if labels == 0 {
            return None;
        }
        let n = labels as f64;
        let observed = (self.both + self.neither) as f64 / n;
        let judge_yes = (self.both + self.judge_only) as f64 / n;
        let person_yes = (self.both + self.person_only) as f64 / n;
        let chance = judge_yes * person_yes + (1.0 - judge_yes) * (1.0 - person_yes);
        let kappa =
            ((1.0 - chance).abs() > f64::EPSILON).then(|| (observed - chance) / (1.0 - chance));
        Some(Kappa {
            kappa,
            base_rate: person_yes,
            observed,
            labels,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-4
    }

    /// JM-21: the Wilson interval of known cases (Wilson 1927; Newcombe
    /// 1998, table I: 81 of 263 gives 0.2553-0.3662).
    #[test]
    fn jm_21_the_wilson_interval_matches_published_values() {
        let p = wilson(81, 263).unwrap();
        assert!(close(p.share, 0.3080), "{p:?}");
        assert!(close(p.low, 0.2553), "{p:?}");
        assert!(close(p.high, 0.3662), "{p:?}");
        // Newcombe's 15 of 148: 0.0624-0.1605.
        let p = wilson(15, 148).unwrap();
        assert!(close(p.low, 0.0624) && close(p.high, 0.1605), "{p:?}");
        // All successes: the upper end is 1, the lower end is not.
        let p = wilson(10, 10).unwrap();
        assert_eq!(p.high, 1.0);
        assert!(close(p.low, 0.7225), "{p:?}");
        assert_eq!(wilson(0, 10).unwrap().low, 0.0);
        assert_eq!(wilson(0, 0), None);
        assert_eq!(wilson(3, 2), None);
    }

    /// JM-22: Cohen's kappa of known tables, with the base rate beside it.
    #[test]
    fn jm_22_cohens_kappa_matches_known_tables() {
        // The textbook table: 20 yes/yes, 5 judge only, 10 person only,
        // 15 no/no: observed 0.7, chance 0.5, kappa 0.4.
        let table = Agreement {
            both: 20,
            judge_only: 5,
            person_only: 10,
            neither: 15,
        };
        let k = table.kappa().unwrap();
        assert!(close(k.kappa.unwrap(), 0.4), "{k:?}");
        assert!(close(k.observed, 0.7));
        assert!(close(k.base_rate, 0.6));
        assert_eq!(k.labels, 50);
        // Perfect agreement is 1, perfect disagreement on a balanced table -1.
        let perfect = Agreement {
            both: 7,
            neither: 3,
            ..Agreement::default()
        };
        assert!(close(perfect.kappa().unwrap().kappa.unwrap(), 1.0));
        let opposite = Agreement {
            judge_only: 5,
            person_only: 5,
            ..Agreement::default()
        };
        assert!(close(opposite.kappa().unwrap().kappa.unwrap(), -1.0));
        // A judge who flags everything a person accepted everything of:
        // chance agrees every time, and kappa is not a number.
        let one_answer = Agreement {
            both: 9,
            ..Agreement::default()
        };
        let k = one_answer.kappa().unwrap();
        assert_eq!(k.kappa, None);
        assert!(close(k.base_rate, 1.0));
        assert_eq!(Agreement::default().kappa(), None);
        let mut counted = Agreement::default();
        counted.count(true, true);
        counted.count(false, false);
        counted.count(true, false);
        assert_eq!(
            counted,
            Agreement {
                both: 1,
                judge_only: 1,
                neither: 1,
                person_only: 0
            }
        );
    }
}
