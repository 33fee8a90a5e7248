//! Each judge's own order of what it reads (issue 29): the blocks of a
//! tree, the options of a comparison, the findings of a council, and its
//! criteria. A judge that favours whatever comes first then favours a
//! different thing for each judge, and no one order is the panel's.
//!
//! The order is drawn from the debate's seed (journaled on its first line)
//! and the judge's slot, with a generator written out here rather than
//! borrowed, so that a resume, a replay or a later quorum gives every judge
//! byte for byte the prompt it had. Not responsible for choosing the seed
//! (the CLI does, once per debate) or for what is ordered.

/// The order in which a judge reads `count` things: a permutation of
/// `0..count`, the same for the same seed, slot and count, and different
/// from slot to slot.
pub fn permutation(seed: u64, slot: &str, count: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..count).collect();
    let mut draw = SplitMix64(seed ^ fnv1a(slot.as_bytes()));
    // Fisher–Yates, from the back.
    for last in (1..count).rev() {
        let pick = draw.below(last as u64 + 1) as usize;
        order.swap(last, pick);
    }
    order
}

/// `items` in the order a judge reads them.
pub fn arrange<T: Clone>(items: &[T], seed: u64, slot: &str) -> Vec<T> {
    permutation(seed, slot, items.len())
        .into_iter()
        .map(|index| items[index].clone())
        .collect()
}

/// A debate's seed, from its topic: two runs of one question give each
/// judge the same order, so they can be compared (and a fork judges as its
/// origin did); another question, other orders.
pub fn seed_of(topic: &str) -> u64 {
    fnv1a(topic.as_bytes())
}

/// The order of a judge's criteria: drawn apart from its blocks', so that
/// the two orders are not the same shuffle.
pub fn criteria_slot(slot: &str) -> String {
    format!("{slot}#criteria")
}

/// FNV-1a, 64 bits: a stable hash of the slot's name (std's hashers may
/// change between releases; this one cannot).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Steele, Lea and Flood's SplitMix64: tiny, fixed, and good enough to
/// shuffle a dozen blocks.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `bound` (which is at least 1), without the bias of a
    /// plain remainder: draws that fall in the incomplete last span are
    /// drawn again.
    fn below(&mut self, bound: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % bound;
        loop {
            let value = self.next();
            if value < zone {
                return value % bound;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_permutation_holds_every_index_once() {
        for count in 0..12 {
            let mut order = permutation(7, "judge.analyst", count);
            order.sort_unstable();
            assert_eq!(order, (0..count).collect::<Vec<_>>());
        }
    }

    #[test]
    fn the_same_seed_and_slot_give_the_same_order_and_other_slots_another() {
        let analyst = permutation(42, "judge.analyst", 8);
        assert_eq!(analyst, permutation(42, "judge.analyst", 8));
        let orders: std::collections::BTreeSet<Vec<usize>> = [
            "judge.analyst",
            "judge.stylist",
            "judge.aesthete",
            "judge.strategist",
        ]
        .into_iter()
        .map(|slot| permutation(42, slot, 8))
        .collect();
        assert_eq!(orders.len(), 4, "four judges, four orders: {orders:?}");
        assert_ne!(analyst, permutation(43, "judge.analyst", 8));
    }

    /// The generator is pinned: a later quorum must give a journaled
    /// debate's judges the orders they had (a resume's prompts are
    /// byte-identical).
    #[test]
    fn the_orders_are_pinned_across_releases() {
        assert_eq!(permutation(1, "judge.analyst", 5), vec![2, 3, 4, 0, 1]);
        assert_eq!(
            permutation(1, &criteria_slot("judge.analyst"), 3),
            vec![0, 2, 1]
        );
    }

    #[test]
    fn every_order_of_three_is_drawn_about_as_often() {
        let mut counts = std::collections::BTreeMap::new();
        for seed in 0..6000 {
            *counts
                .entry(permutation(seed, "judge.analyst", 3))
                .or_insert(0) += 1;
        }
        assert_eq!(counts.len(), 6);
        for (order, count) in counts {
            assert!(
                (800..1200).contains(&count),
                "{order:?} drawn {count} times"
            );
        }
    }

    #[test]
    fn arrange_follows_the_permutation() {
        let items = ["b1", "b2", "b3", "b4", "b5"];
        let arranged = arrange(&items, 1, "judge.analyst");
        let order = permutation(1, "judge.analyst", 5);
        assert_eq!(
            arranged,
            order.iter().map(|index| items[*index]).collect::<Vec<_>>()
        );
    }
}
