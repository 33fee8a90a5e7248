//! Which findings quorum proposes for a merge (A22): the Jaccard overlap of
//! the words of two descriptions, and the pairs of active findings above
//! [`MERGE_OVERLAP`], found without comparing every pair.
//!
//! Not responsible for whether a proposed merge happens: the origins agree
//! in their final positions and the parent module applies it.

use std::collections::{BTreeSet, HashMap};

use super::round2;
use crate::protocol::council::model::{Finding, MergeCandidate};

/// Word overlap above which two findings are proposed for a merge (A22).
pub const MERGE_OVERLAP: f64 = 0.70;

/// The lowercase words of `text`: runs of letters and digits.
pub fn tokens(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The Jaccard similarity of the words of two descriptions (A22): shared
/// words ÷ words in either, from 0 to 1.
pub fn overlap(a: &str, b: &str) -> f64 {
    let (a, b) = (tokens(a), tokens(b));
    let union = a.union(&b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(&b).count() as f64 / union as f64
}

/// Pairs of active findings whose descriptions overlap by more than
/// [`MERGE_OVERLAP`], in inventory order.
///
/// Comparing every pair would cost the square of the inventory. Two word
/// sets can overlap that much only if they share a word among their rarest
/// few (prefix filtering): with the words of every description ordered
/// rarest first, a set of `n` words whose overlap with another reaches
/// `t` shares at least `⌈t·n⌉` words with it, so the two share one of
/// their first `n − ⌊t·n⌋ + 1` words. Only pairs that do are compared,
/// exactly as [`overlap`] does.
pub fn overlapping(findings: &[Finding]) -> Vec<MergeCandidate> {
    let active: Vec<&Finding> = findings.iter().filter(|f| f.active()).collect();
    // Every description's words, as numbers, each word once.
    let mut numbers: HashMap<String, usize> = HashMap::new();
    let sets: Vec<Vec<usize>> = active
        .iter()
        .map(|finding| {
            tokens(&finding.text.description)
                .into_iter()
                .map(|word| {
                    let next = numbers.len();
                    *numbers.entry(word).or_insert(next)
                })
                .collect()
        })
        .collect();
    // Rarest first: by how many descriptions use a word, then its number.
    let mut used_by = vec![0usize; numbers.len()];
    for set in &sets {
        for &word in set {
            used_by[word] += 1;
        }
    }
    let ordered: Vec<Vec<usize>> = sets
        .iter()
        .map(|set| {
            let mut set = set.clone();
            set.sort_unstable_by_key(|&word| (used_by[word], word));
            set
        })
        .collect();
    // Who has each word among its first few, and the pairs that share one.
    let mut holders: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut candidates: Vec<(usize, usize)> = Vec::new();
    let mut met_by = vec![usize::MAX; active.len()];
    for (later, set) in ordered.iter().enumerate() {
        let prefix = set.len() - (MERGE_OVERLAP * set.len() as f64).floor() as usize + 1;
        for &word in &set[..prefix.min(set.len())] {
            let earlier = holders.entry(word).or_default();
            for &other in earlier.iter() {
                if met_by[other] != later {
                    met_by[other] = later;
                    candidates.push((other, later));
                }
            }
            earlier.push(later);
        }
    }
    candidates.sort_unstable();
    let mut pairs = Vec::new();
    for (a, b) in candidates {
        let share = share_of(&sets[a], &sets[b]);
        if share > MERGE_OVERLAP {
            pairs.push(MergeCandidate {
                findings: [active[a].id.clone(), active[b].id.clone()],
                proposed_by: "quorum".into(),
                overlap: round2(share),
            });
        }
    }
    pairs
}

/// [`overlap`] of two sets of word numbers, each word once in each.
fn share_of(a: &[usize], b: &[usize]) -> f64 {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let large: std::collections::HashSet<usize> = large.iter().copied().collect();
    let shared = small.iter().filter(|word| large.contains(word)).count();
    let union = a.len() + b.len() - shared;
    if union == 0 {
        return 0.0;
    }
    shared as f64 / union as f64
}

#[cfg(test)]
mod tests {
    use super::super::tests::finding;
    use super::*;

    /// Every pair compared, as before prefix filtering.
    fn overlapping_by_every_pair(findings: &[Finding]) -> Vec<MergeCandidate> {
        let active: Vec<&Finding> = findings.iter().filter(|f| f.active()).collect();
        let mut pairs = Vec::new();
        for (index, a) in active.iter().enumerate() {
            for b in &active[index + 1..] {
                let share = overlap(&a.text.description, &b.text.description);
                if share > MERGE_OVERLAP {
                    pairs.push(MergeCandidate {
                        findings: [a.id.clone(), b.id.clone()],
                        proposed_by: "quorum".into(),
                        overlap: round2(share),
                    });
                }
            }
        }
        pairs
    }

    proptest::proptest! {
        #[test]
        fn prefix_filtering_proposes_the_merges_every_pair_would(
            descriptions in proptest::collection::vec(
                (proptest::collection::vec("[a-f]|[A-F][0-9]|the", 0..12), proptest::bool::weighted(0.1)),
                0..24,
            ),
        ) {
            let findings: Vec<Finding> = descriptions
                .iter()
                .enumerate()
                .map(|(index, (words, withdrawn))| finding(index + 1, &words.join(" "), *withdrawn))
                .collect();
            proptest::prop_assert_eq!(
                overlapping(&findings),
                overlapping_by_every_pair(&findings)
            );
        }
    }
}
