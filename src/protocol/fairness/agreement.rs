//! How independent was a judging panel, really?
//!
//! A verdict backed by three judges is only as strong as three votes if the
//! judges reached their scores independently. This module looks at the scores
//! judges gave to the same units and reports two numbers:
//!
//! * **Krippendorff's alpha** (ordinal): how much the judges agreed, beyond
//!   what their overall mix of scores would produce by chance. 1 is perfect
//!   agreement, 0 is chance-level, negative is systematic disagreement.
//! * **Effective number of independent votes**: how many truly independent
//!   judges the panel was worth, given how closely their scores moved
//!   together.
//!
//! Both are computed only from units that at least two judges scored, because
//! a score nobody else gave says nothing about agreement.

/// One panel's scores: `units[u][j]` is judge j's score of unit u.
///
/// A unit is anything scored (for example "block b2" or "integration"); a
/// score is a small ordinal number, 1 to 5 in practice, where only the order
/// of the numbers matters. `None` means that judge did not score that unit.
/// Each row should have `judges` cells; a short row is read as if the missing
/// cells were `None`, and cells past `judges` are ignored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ratings {
    /// How many judges (columns) the panel had.
    pub judges: usize,
    /// One row per unit, one cell per judge.
    pub units: Vec<Vec<Option<u8>>>,
}

/// How much a panel agreed and how many independent votes it was worth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Agreement {
    /// Krippendorff's alpha with the ordinal difference function, over the
    /// units at least two judges scored. `None` when it cannot be measured:
    /// either no unit was scored by two judges, or every one of those scores
    /// was the same number, so there is no variation to agree or disagree
    /// about.
    pub alpha: Option<f64>,
    /// The effective number of independent votes, between 1 and `judges`.
    /// `None` when no two judges scored at least 2 units in common.
    pub effective_votes: Option<f64>,
    /// Judges who took part: those who scored at least one unit that another
    /// judge also scored.
    pub judges: usize,
    /// Units at least two judges scored.
    pub units: usize,
}

/// Measures a panel's agreement and independence from its scores.
///
/// Never panics; an empty or sparse table gives `None` for whatever cannot be
/// measured.
#[must_use]
pub fn agreement(ratings: &Ratings) -> Agreement {
    let table = Table {
        units: &ratings.units,
        judges: ratings.judges,
    };
    Agreement {
        alpha: alpha_ordinal(table),
        effective_votes: effective_votes_in(table),
        judges: table.participants().len(),
        units: table.pairable_units().count(),
    }
}

impl Agreement {
    /// One line for a scoreboard or record, for example
    /// "judges' agreement 0.62 (1 = full, 0 = chance), worth 2.4 of 3 independent judges, on 11 shared scores".
    /// Parts that could not be measured are described in words instead.
    #[must_use]
    pub fn summary(&self) -> String {
        if self.units == 0 {
            return "agreement: too few scores in common to measure".to_string();
        }
        // With at least one unit scored by two judges, alpha is missing only
        // because every pooled score was the same.
        // Said for a newcomer: what the figure means, then its name.
        let agreement = match self.alpha {
            Some(alpha) => format!("judges' agreement {alpha:.2} (1 = full, 0 = chance)"),
            None => "agreement: all judges gave the same score everywhere".to_string(),
        };
        let votes = match self.effective_votes {
            Some(votes) => format!("worth {votes:.1} of {} independent judges", self.judges),
            None => "too few shared scores to tell how independent the judges were".to_string(),
        };
        format!(
            "{agreement}, {votes}, on {}",
            crate::words::counted(self.units, "shared score", "shared scores")
        )
    }

    /// True when the panel was effectively fewer than two independent votes
    /// as [`Self::summary`] shows them (to one decimal: 1.98 reads 2.0 and
    /// is not flagged, so a report never warns beside a figure that says
    /// two), which is worth flagging as an uncertainty in a report. False
    /// when independence could not be measured at all: check
    /// `effective_votes.is_none()` for that case.
    #[must_use]
    pub fn fewer_than_two_votes(&self) -> bool {
        self.effective_votes
            .is_some_and(|votes| (votes * 10.0).round() / 10.0 < 2.0)
    }
}

/// Krippendorff's alpha for ordinal scores, over every unit with at least two
/// scores (units scored once are ignored; rows may have different lengths).
///
/// Follows the coincidence-matrix method of Krippendorff (2011), "Computing
/// Krippendorff's Alpha-Reliability": alpha = 1 - observed disagreement /
/// disagreement expected by chance. The ordinal difference between two scores
/// grows with how many pooled scores lie between them, so disagreeing 1 vs 2
/// counts for little when almost nobody gave a 1 or a 2 but much when those
/// scores are common.
///
/// Returns `None` when no unit has two scores, and also when all pooled scores
/// are equal: then chance disagreement is zero and alpha would be 0/0.
/// Krippendorff leaves that case undefined; reporting 1.0 would claim
/// reliability the data cannot show.
#[must_use]
pub fn krippendorff_alpha_ordinal(units: &[Vec<Option<u8>>]) -> Option<f64> {
    alpha_ordinal(Table::widest(units))
}

/// The effective number of independent votes among the first `judges`
/// columns of `units`: how many fully independent judges the panel was worth.
///
/// It is the participation ratio of the judges' correlation matrix C,
/// (trace C)² / trace(C²) = k² / Σᵢⱼ ρᵢⱼ², where k is the number of judges who
/// scored a unit another judge also scored, and ρᵢⱼ is the Pearson correlation
/// of judges i and j over the units both scored. It equals k when the judges'
/// scores are uncorrelated, 1 when they all move together perfectly (or
/// perfectly opposite, which is just as predictable), and 9/5 = 1.8 for two
/// identical judges plus one independent judge.
///
/// A pair's correlation is undefined when they share fewer than 2 units or
/// when either gave the same score on every shared unit. Such a pair counts as
/// uncorrelated (ρ = 0: no evidence of dependence), except that two judges who
/// gave the same single score on 2 or more shared units count as ρ = 1:
/// identical verdicts are not independent votes.
///
/// Returns `None` when no two judges share at least 2 units. The result is
/// clamped to [1, k] to absorb rounding.
#[must_use]
pub fn effective_votes(units: &[Vec<Option<u8>>], judges: usize) -> Option<f64> {
    effective_votes_in(Table { units, judges })
}

/// A read-only view of a ratings table that tolerates ragged rows: a cell
/// missing from a short row counts as "not scored", and cells past `judges`
/// are ignored.
#[derive(Clone, Copy)]
struct Table<'a> {
    units: &'a [Vec<Option<u8>>],
    judges: usize,
}

impl<'a> Table<'a> {
    /// A view wide enough to see every cell of every row.
    fn widest(units: &'a [Vec<Option<u8>>]) -> Self {
        let judges = units.iter().map(Vec::len).max().unwrap_or(0);
        Table { units, judges }
    }

    fn score(self, unit: &[Option<u8>], judge: usize) -> Option<u8> {
        if judge < self.judges {
            unit.get(judge).copied().flatten()
        } else {
            None
        }
    }

    fn scores(self, unit: &'a [Option<u8>]) -> impl Iterator<Item = u8> + 'a {
        unit.iter().take(self.judges).flatten().copied()
    }

    /// Units at least two judges scored: the only ones that say anything
    /// about agreement.
    fn pairable_units(self) -> impl Iterator<Item = &'a [Option<u8>]> {
        self.units
            .iter()
            .map(Vec::as_slice)
            .filter(move |unit| self.scores(unit).nth(1).is_some())
    }

    /// Judges who scored at least one pairable unit, in column order.
    fn participants(self) -> Vec<usize> {
        (0..self.judges)
            .filter(|&judge| {
                self.pairable_units()
                    .any(|unit| self.score(unit, judge).is_some())
            })
            .collect()
    }
}

fn alpha_ordinal(table: Table) -> Option<f64> {
    let units: Vec<Vec<u8>> = table
        .pairable_units()
        .map(|unit| table.scores(unit).collect())
        .collect();

    // The distinct scores that occur, in order; matrices are indexed by
    // position in this list rather than by the score itself.
    let mut categories: Vec<u8> = units.iter().flatten().copied().collect();
    categories.sort_unstable();
    categories.dedup();
    if categories.len() < 2 {
        return None;
    }
    // Every score is in `categories`, so the lookup always succeeds; `?` on
    // it below is just a panic-free way to say so.
    let index = |score: u8| categories.binary_search(&score).ok();

    let mut coincidences = vec![vec![0.0_f64; categories.len()]; categories.len()];
    let mut totals = vec![0.0_f64; categories.len()];
    for scores in &units {
        // Each unit contributes one value per score, shared among the other
        // scores in that unit, so every unit weighs in proportion to its
        // number of scores however many judges scored it.
        let weight = 1.0 / (scores.len() - 1) as f64;
        for (i, &first) in scores.iter().enumerate() {
            let c = index(first)?;
            totals[c] += 1.0;
            for (j, &second) in scores.iter().enumerate() {
                if i != j {
                    coincidences[c][index(second)?] += weight;
                }
            }
        }
    }

    let distance = ordinal_distances(&totals);
    let pooled: f64 = totals.iter().sum();
    let mut observed = 0.0;
    let mut expected = 0.0;
    for c in 0..categories.len() {
        for k in 0..categories.len() {
            observed += coincidences[c][k] * distance[c][k];
            expected += totals[c] * totals[k] * distance[c][k];
        }
    }
    // `expected` is positive: there are at least two categories, each with a
    // nonzero total, and distinct categories are a positive distance apart.
    Some(1.0 - (pooled - 1.0) * observed / expected)
}

/// Squared ordinal differences between score categories, from how many
/// pooled scores fall in each: `δ²(c, k) = (Σ_{g=c..k} n_g − (n_c + n_k)/2)²`.
fn ordinal_distances(totals: &[f64]) -> Vec<Vec<f64>> {
    let len = totals.len();
    let mut distance = vec![vec![0.0; len]; len];
    for c in 0..len {
        for k in c + 1..len {
            let between: f64 = totals[c..=k].iter().sum();
            let spread = between - (totals[c] + totals[k]) / 2.0;
            distance[c][k] = spread * spread;
            distance[k][c] = spread * spread;
        }
    }
    distance
}

fn effective_votes_in(table: Table) -> Option<f64> {
    let judges = table.participants();
    let count = judges.len();
    if count < 2 {
        return None;
    }

    // Σᵢⱼ ρᵢⱼ²: each judge correlates perfectly with itself, and each pair
    // appears twice in the symmetric matrix.
    let mut sum_of_squares = count as f64;
    let mut any_pair_measured = false;
    for (position, &first) in judges.iter().enumerate() {
        for &second in &judges[position + 1..] {
            if let Some(rho) = correlation(table, first, second) {
                any_pair_measured = true;
                sum_of_squares += 2.0 * rho * rho;
            }
        }
    }
    if !any_pair_measured {
        return None;
    }
    let count = count as f64;
    Some((count * count / sum_of_squares).clamp(1.0, count))
}

/// Pearson correlation of two judges over the units both scored, with the
/// conventions of [`effective_votes`] for the undefined cases. `None` when
/// they share fewer than 2 units, so there is nothing to compare.
fn correlation(table: Table, first: usize, second: usize) -> Option<f64> {
    // Exact integer sums, so "this judge never varied" is decided exactly
    // rather than by a floating-point tolerance.
    let mut n: i128 = 0;
    let (mut sum_x, mut sum_y) = (0_i128, 0_i128);
    let (mut sum_xx, mut sum_yy, mut sum_xy) = (0_i128, 0_i128, 0_i128);
    for unit in table.units {
        let pair = table.score(unit, first).zip(table.score(unit, second));
        if let Some((x, y)) = pair {
            let (x, y) = (i128::from(x), i128::from(y));
            n += 1;
            sum_x += x;
            sum_y += y;
            sum_xx += x * x;
            sum_yy += y * y;
            sum_xy += x * y;
        }
    }
    if n < 2 {
        return None;
    }

    // n² times the variances and covariance; zero variance means a constant.
    let spread_x = n * sum_xx - sum_x * sum_x;
    let spread_y = n * sum_yy - sum_y * sum_y;
    let co_spread = n * sum_xy - sum_x * sum_y;
    let rho = match (spread_x == 0, spread_y == 0) {
        // Both constant: the same constant means identical verdicts.
        (true, true) if sum_x == sum_y => 1.0,
        (true, _) | (_, true) => 0.0,
        (false, false) => co_spread as f64 / ((spread_x as f64) * (spread_y as f64)).sqrt(),
    };
    Some(rho.clamp(-1.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny deterministic generator (xorshift64) so tests need no crates.
    struct Xorshift(u64);

    impl Xorshift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, bound: u64) -> u64 {
            self.next() % bound
        }

        fn score(&mut self) -> u8 {
            1 + self.below(5) as u8
        }
    }

    fn close(actual: f64, expected: f64, tolerance: f64) -> bool {
        (actual - expected).abs() <= tolerance
    }

    /// Builds a table from one closure per judge, called once per unit.
    fn table(units: usize, judges: usize, mut score: impl FnMut(usize, usize) -> u8) -> Ratings {
        Ratings {
            judges,
            units: (0..units)
                .map(|u| (0..judges).map(|j| Some(score(u, j))).collect())
                .collect(),
        }
    }

    /// Krippendorff (2011), reliability data with missing values: observers
    /// as columns A..D, units 1..12 as rows.
    fn krippendorff_example() -> Vec<Vec<Option<u8>>> {
        let observers: [[u8; 12]; 4] = [
            [1, 2, 3, 3, 2, 1, 4, 1, 2, 0, 0, 0],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, 0, 3],
            [0, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 0],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, 0],
        ];
        (0..12)
            .map(|u| {
                observers
                    .iter()
                    .map(|row| Some(row[u]).filter(|&s| s != 0))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn published_krippendorff_example_has_ordinal_alpha_0_815() {
        let units = krippendorff_example();
        let alpha = krippendorff_alpha_ordinal(&units);
        assert!(alpha.is_some_and(|a| close(a, 0.815, 0.001)), "{alpha:?}");
        // Unit 12 was scored by one observer only.
        let result = agreement(&Ratings { judges: 4, units });
        assert_eq!(result.units, 11);
        assert_eq!(result.judges, 4);
    }

    #[test]
    fn identical_varying_scores_give_alpha_one_and_one_vote() {
        let ratings = table(10, 3, |u, _| (u % 5) as u8 + 1);
        let result = agreement(&ratings);
        assert_eq!(result.alpha, Some(1.0));
        assert_eq!(result.effective_votes, Some(1.0));
        assert!(result.fewer_than_two_votes());
    }

    #[test]
    fn independent_noise_gives_alpha_near_zero_and_nearly_all_votes() {
        let mut rng = Xorshift(0x9E37_79B9_7F4A_7C15);
        let result = agreement(&table(200, 5, |_, _| rng.score()));
        let alpha = result.alpha.expect("noise varies");
        let votes = result.effective_votes.expect("judges share units");
        assert!(alpha.abs() < 0.1, "alpha {alpha}");
        assert!(votes > 4.5, "votes {votes}");
    }

    #[test]
    fn two_clones_plus_one_dissenter_are_worth_about_nine_fifths_votes() {
        let mut rng = Xorshift(42);
        let mut clone_score = 0;
        let ratings = table(200, 3, |_, judge| match judge {
            0 => {
                clone_score = rng.score();
                clone_score
            }
            1 => clone_score,
            _ => rng.score(),
        });
        let votes = agreement(&ratings).effective_votes.expect("shared units");
        assert!((1.7..=2.1).contains(&votes), "votes {votes}");
    }

    #[test]
    fn perfectly_reversed_judge_is_not_an_independent_vote() {
        let ratings = table(10, 2, |u, judge| {
            let score = (u % 5) as u8 + 1;
            if judge == 0 { score } else { 6 - score }
        });
        assert_eq!(effective_votes(&ratings.units, 2), Some(1.0));
    }

    #[test]
    fn units_scored_by_one_judge_do_not_count() {
        let ratings = Ratings {
            judges: 3,
            units: vec![
                vec![Some(1), Some(2), None],
                vec![Some(3), Some(3), None],
                vec![None, None, Some(5)],
                vec![Some(4), None, None],
                vec![],
            ],
        };
        let result = agreement(&ratings);
        assert_eq!(result.units, 2);
        assert_eq!(result.judges, 2, "the third judge shared no unit");
    }

    #[test]
    fn one_judge_has_no_effective_votes() {
        let ratings = table(10, 1, |u, _| (u % 5) as u8 + 1);
        let result = agreement(&ratings);
        assert_eq!(result.effective_votes, None);
        assert_eq!(result.alpha, None);
        assert_eq!(
            result.summary(),
            "agreement: too few scores in common to measure"
        );
        assert!(!result.fewer_than_two_votes());
    }

    #[test]
    fn no_pairable_units_means_no_alpha() {
        let units = vec![vec![Some(1), None], vec![None, Some(2)]];
        assert_eq!(krippendorff_alpha_ordinal(&units), None);
        assert_eq!(krippendorff_alpha_ordinal(&[]), None);
        assert_eq!(effective_votes(&[], 0), None);
        let empty = agreement(&Ratings::default());
        assert_eq!(
            empty.summary(),
            "agreement: too few scores in common to measure"
        );
    }

    #[test]
    fn the_same_score_everywhere_has_no_alpha_but_counts_as_one_vote() {
        let result = agreement(&table(4, 3, |_, _| 3));
        assert_eq!(result.alpha, None);
        assert_eq!(result.effective_votes, Some(1.0));
        assert_eq!(
            result.summary(),
            "agreement: all judges gave the same score everywhere, \
             worth 1.0 of 3 independent judges, on 4 shared scores"
        );
    }

    #[test]
    fn a_single_shared_unit_measures_alpha_but_not_votes() {
        let ratings = Ratings {
            judges: 2,
            units: vec![vec![Some(2), Some(4)]],
        };
        let result = agreement(&ratings);
        assert!(result.alpha.is_some());
        assert_eq!(result.effective_votes, None);
        assert!(!result.fewer_than_two_votes());
        let summary = result.summary();
        assert!(summary.starts_with("judges' agreement "), "{summary}");
        assert!(
            summary.ends_with(
                "(1 = full, 0 = chance), too few shared scores to tell how independent the \
                 judges were, on 1 shared score"
            ),
            "{summary}"
        );
    }

    #[test]
    fn summary_reports_alpha_votes_and_units() {
        let result = Agreement {
            alpha: Some(0.6234),
            effective_votes: Some(2.41),
            judges: 3,
            units: 11,
        };
        assert_eq!(
            result.summary(),
            "judges' agreement 0.62 (1 = full, 0 = chance), worth 2.4 of 3 independent judges, \
             on 11 shared scores"
        );
    }

    #[test]
    fn fewer_than_two_votes_is_strictly_below_two_as_shown() {
        let with_votes = |votes| Agreement {
            alpha: None,
            effective_votes: votes,
            judges: 3,
            units: 5,
        };
        assert!(with_votes(Some(1.0)).fewer_than_two_votes());
        assert!(with_votes(Some(1.94)).fewer_than_two_votes());
        assert!(!with_votes(Some(2.0)).fewer_than_two_votes());
        assert!(!with_votes(Some(2.8)).fewer_than_two_votes());
        assert!(!with_votes(None).fewer_than_two_votes());
    }

    #[test]
    fn ragged_rows_read_missing_cells_as_unscored() {
        let ratings = Ratings {
            judges: 2,
            units: vec![vec![Some(1)], vec![Some(2), Some(2), Some(9)]],
        };
        let result = agreement(&ratings);
        assert_eq!(result.units, 1);
        assert_eq!(result.alpha, None, "the 9 lies past the last judge");
    }

    #[test]
    fn random_panels_stay_within_bounds() {
        let mut rng = Xorshift(7);
        for _ in 0..50 {
            let judges = 1 + rng.below(6) as usize;
            let units = rng.below(40) as usize;
            let ratings = Ratings {
                judges,
                units: (0..units)
                    .map(|_| {
                        (0..judges)
                            .map(|_| (rng.below(4) != 0).then(|| rng.score()))
                            .collect()
                    })
                    .collect(),
            };
            let result = agreement(&ratings);
            if let Some(alpha) = result.alpha {
                assert!(alpha <= 1.0 + 1e-12, "alpha {alpha} for {ratings:?}");
            }
            if let Some(votes) = result.effective_votes {
                assert!(
                    (1.0..=judges as f64).contains(&votes) && votes <= result.judges as f64,
                    "votes {votes} for {ratings:?}"
                );
            }
        }
    }

    /// The warning follows the figure a reader sees: 1.98 shows as 2.0 and
    /// is no uncertainty; 1.94 shows as 1.9 and is.
    #[test]
    fn fewer_than_two_votes_agrees_with_the_figure_shown() {
        let at = |votes: f64| Agreement {
            alpha: Some(0.2),
            effective_votes: Some(votes),
            judges: 3,
            units: 4,
        };
        assert!(!at(1.98).fewer_than_two_votes());
        assert!(
            at(1.98)
                .summary()
                .contains("worth 2.0 of 3 independent judges")
        );
        assert!(at(1.94).fewer_than_two_votes());
        assert!(
            at(1.94)
                .summary()
                .contains("worth 1.9 of 3 independent judges")
        );
    }
}
