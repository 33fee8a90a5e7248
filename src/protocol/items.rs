//! The moderator's book, shared by the protocols that raise items (a
//! decision review's critique items, a root-cause analysis's challenges
//! and rulings, a council's challenges): every item asked about, what it is about, the decision and
//! note (changeable until the moderation is submitted), and which
//! submission settled it. Deciding and submitting are the same in every
//! such protocol and are logged the same way; what a settled decision does
//! is the protocol's.

use std::collections::HashMap;

use super::calls::Calls;
use super::{BoardItem, ItemDecision, LogKind, ModerationItem, Timestamp};

/// One item the moderator was asked about, with the decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemRecord<S> {
    pub item: ModerationItem,
    /// What it is about, in the protocol's terms.
    pub subject: S,
    /// The round whose moderation asked.
    pub round: u32,
    pub decision: Option<ItemDecision>,
    pub note: Option<String>,
    /// When the decision was made (the latest, when it was changed).
    pub decided_at: Option<Timestamp>,
    /// The moderation it belongs to was submitted.
    pub settled: bool,
}

/// Every item of a debate, in the order it was raised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemBook<S> {
    records: Vec<ItemRecord<S>>,
    /// Where the records of each item id stand in `records`, in order: a
    /// decision or a re-offer finds its item without a scan of every item
    /// of the debate.
    by_id: HashMap<String, Vec<usize>>,
}

impl<S> Default for ItemBook<S> {
    fn default() -> Self {
        ItemBook {
            records: Vec::new(),
            by_id: HashMap::new(),
        }
    }
}

impl<S: Clone> ItemBook<S> {
    pub fn records(&self) -> &[ItemRecord<S>] {
        &self.records
    }

    /// Asks about `item` at the next moderation.
    pub fn push(&mut self, item: ModerationItem, subject: S, round: u32) {
        self.by_id
            .entry(item.id.clone())
            .or_default()
            .push(self.records.len());
        self.records.push(ItemRecord {
            item,
            subject,
            round,
            decision: None,
            note: None,
            decided_at: None,
            settled: false,
        });
    }

    /// The items the open (or next) moderation asks about.
    pub fn pending(&self) -> impl Iterator<Item = &ItemRecord<S>> {
        self.records.iter().filter(|record| !record.settled)
    }

    pub fn pending_items(&self) -> Vec<ModerationItem> {
        self.pending().map(|record| record.item.clone()).collect()
    }

    /// The latest record of the item `item_id`.
    pub fn latest(&self, item_id: &str) -> Option<&ItemRecord<S>> {
        self.places_of(item_id)
            .last()
            .map(|&place| &self.records[place])
    }

    /// The places in `records` of the item `item_id`, first raised first.
    fn places_of(&self, item_id: &str) -> &[usize] {
        self.by_id.get(item_id).map_or(&[], Vec::as_slice)
    }

    /// Offers the item `item_id` again, in `round`, undecided (a challenge
    /// held back at an earlier moderation).
    pub fn reoffer(&mut self, item_id: &str, round: u32) {
        if let Some(&place) = self.places_of(item_id).first() {
            let record = &mut self.records[place];
            record.round = round;
            record.decision = None;
            record.note = None;
            record.decided_at = None;
            record.settled = false;
        }
    }

    /// Settles every item without a decision being applied (the debate has
    /// moved past them).
    pub fn close_all(&mut self) {
        for record in &mut self.records {
            record.settled = true;
        }
    }

    /// Records `decision` and `note` on the open item `item_id` and logs
    /// it, `verb` saying what the decision means for its subject ("held
    /// back"); a decision while no moderation is `open`, or on an item that
    /// is not open, is logged as ignored.
    pub fn decide(
        &mut self,
        calls: &mut Calls,
        now: Timestamp,
        open: bool,
        (item_id, decision, note): (&str, ItemDecision, Option<&str>),
        verb: impl Fn(&S, ItemDecision) -> &'static str,
    ) {
        let ignored = |calls: &mut Calls, why: &str| {
            let message = format!("ignored a decision on {item_id}: {why}");
            calls.push_log(now, LogKind::Note, None, message);
        };
        if !open {
            return ignored(calls, "no moderation is open");
        }
        let open_place = self
            .places_of(item_id)
            .iter()
            .copied()
            .find(|&place| !self.records[place].settled);
        let Some(record) = open_place.map(|place| &mut self.records[place]) else {
            return ignored(calls, "it is not open");
        };
        let note = note
            .map(str::trim)
            .filter(|note| !note.is_empty())
            .map(str::to_string);
        record.decision = Some(decision);
        record.note = note.clone();
        record.decided_at = Some(now);
        let verb = verb(&record.subject, decision);
        let message = match note {
            Some(note) => format!("{item_id} {verb}: {note}"),
            None => format!("{item_id} {verb}"),
        };
        calls.push_log(now, LogKind::Moderation, None, message);
    }

    /// Settles the open moderation: every pending item's subject, decision
    /// and note, in order. `None`, logged, while an item is undecided.
    pub fn submit(
        &mut self,
        calls: &mut Calls,
        now: Timestamp,
    ) -> Option<Vec<(S, ItemDecision, Option<String>)>> {
        let undecided: Vec<&str> = self
            .pending()
            .filter(|record| record.decision.is_none())
            .map(|record| record.item.id.as_str())
            .collect();
        if !undecided.is_empty() {
            let message = format!(
                "cannot submit yet: {} still undecided",
                undecided.join(", ")
            );
            calls.push_log(now, LogKind::Moderation, None, message);
            return None;
        }
        Some(
            self.records
                .iter_mut()
                .filter(|record| !record.settled)
                .map(|record| {
                    record.settled = true;
                    (
                        record.subject.clone(),
                        record.decision.unwrap_or(ItemDecision::Accept),
                        record.note.clone(),
                    )
                })
                .collect(),
        )
    }

    /// Every item with its decision, for the board.
    pub fn board_items(&self) -> Vec<BoardItem> {
        self.records
            .iter()
            .map(|record| BoardItem {
                item: record.item.clone(),
                decision: record.decision,
                note: record.note.clone(),
                resolution: None,
            })
            .collect()
    }
}

/// Accepted, rejected and deferred among `decided`, in that order.
pub fn tally<S>(decided: &[(S, ItemDecision, Option<String>)]) -> [usize; 3] {
    let mut counts = [0; 3];
    for (_, decision, _) in decided {
        counts[match decision {
            ItemDecision::Accept => 0,
            ItemDecision::Reject => 1,
            ItemDecision::Defer => 2,
        }] += 1;
    }
    counts
}
