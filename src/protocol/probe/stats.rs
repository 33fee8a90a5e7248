//! The statistics of `quorum probe`: a share with its Wilson interval, a
//! mean with its Student-t interval, both at 95%.
//!
//! Responsible for the arithmetic only, on counts and numbers already
//! read; what is counted, and what a figure means, is [`super::figures`]'s.

use serde::{Deserialize, Serialize};

/// The standard normal quantile of a two-sided 95% interval.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// A figure with its 95% interval and the count it rests on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub value: f64,
    pub low: f64,
    pub high: f64,
    pub count: u32,
}

/// The share `hits / count` with its Wilson score interval at 95%; none
/// for a count of zero (nothing to measure). The Wilson interval stays
/// inside 0..1 and is honest at the small counts a probe has, where the
/// textbook `p ± z·√(p(1−p)/n)` collapses to a point at 0 or 1.
pub fn wilson(hits: u32, count: u32) -> Option<Estimate> {
    if count == 0 || hits > count {
        return None;
    }
    let n = f64::from(count);
    let p = f64::from(hits) / n;
    let z2 = Z_95 * Z_95;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = Z_95 / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Some(Estimate {
        value: p,
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
        count,
    })
}

/// The mean of `values` with its Student-t interval at 95%; none for no
/// values. One value has no spread to measure: its interval is the whole
/// real line, reported as infinite bounds (shown as "no interval").
pub fn mean_t(values: &[f64]) -> Option<Estimate> {
    let count = u32::try_from(values.len()).ok()?;
    if count == 0 {
        return None;
    }
    let n = f64::from(count);
    let mean = values.iter().sum::<f64>() / n;
    if count == 1 {
        return Some(Estimate {
            value: mean,
            low: f64::NEG_INFINITY,
            high: f64::INFINITY,
            count,
        });
    }
    let variance = values
        .iter()
        .map(|value| (value - mean).powi(2))
        .sum::<f64>()
        / (n - 1.0);
    let half = t_975(count - 1) * (variance / n).sqrt();
    Some(Estimate {
        value: mean,
        low: mean - half,
        high: mean + half,
        count,
    })
}

/// Student's t quantile at 0.975 for 1 to 30 degrees of freedom.
const T_975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// Student's t quantile at 0.975 for `df` degrees of freedom: the table up
/// to 30, beyond it the Cornish-Fisher expansion around the normal
/// quantile (within 0.001 of the exact value from 31 on).
pub fn t_975(df: u32) -> f64 {
    match df {
        0 => f64::INFINITY,
        1..=30 => T_975[df as usize - 1],
        _ => {
            let z = Z_95;
            let v = f64::from(df);
            z + (z.powi(3) + z) / (4.0 * v)
                + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * v * v)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-4
    }

    #[test]
    fn jm_01_wilson_matches_known_intervals() {
        // 8 of 10: (0.4902, 0.9433), as R's prop.test(correct = FALSE).
        let e = wilson(8, 10).unwrap();
        assert!(
            close(e.value, 0.8) && close(e.low, 0.4902) && close(e.high, 0.9433),
            "{e:?}"
        );
        // 0 of 10: (0, 0.2775); 10 of 10: (0.7225, 1).
        let none = wilson(0, 10).unwrap();
        assert!(close(none.low, 0.0) && close(none.high, 0.2775), "{none:?}");
        let all = wilson(10, 10).unwrap();
        assert!(close(all.low, 0.7225) && close(all.high, 1.0), "{all:?}");
        // 50 of 100: (0.4038, 0.5962).
        let half = wilson(50, 100).unwrap();
        assert!(
            close(half.low, 0.4038) && close(half.high, 0.5962),
            "{half:?}"
        );
        assert_eq!(wilson(0, 0), None);
        assert_eq!(wilson(3, 2), None);
    }

    #[test]
    fn jm_01_t_interval_matches_known_values() {
        // 1..=5: mean 3, sd 1.5811, t(4) = 2.776 → (1.0368, 4.9632).
        let e = mean_t(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        assert!(
            close(e.value, 3.0) && close(e.low, 1.0368) && close(e.high, 4.9632),
            "{e:?}"
        );
        assert_eq!(e.count, 5);
        // No spread: the interval is the point.
        let flat = mean_t(&[2.0, 2.0, 2.0]).unwrap();
        assert!(close(flat.low, 2.0) && close(flat.high, 2.0));
        let one = mean_t(&[4.0]).unwrap();
        assert!(one.low.is_infinite() && one.high.is_infinite());
        assert_eq!(mean_t(&[]), None);
    }

    #[test]
    fn jm_01_t_quantile_beyond_the_table_is_close_to_exact() {
        // Exact: t(40) = 2.0211, t(60) = 2.0003, t(120) = 1.9799.
        assert!(close(t_975(40), 2.0211), "{}", t_975(40));
        assert!(close(t_975(60), 2.0003), "{}", t_975(60));
        assert!(close(t_975(120), 1.9799), "{}", t_975(120));
        assert!(t_975(30) > t_975(31) && t_975(31) > t_975(1000));
    }
}
