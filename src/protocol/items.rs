//! The moderator's book, shared by the protocols that raise items (a
//! decision review's critique items, a root-cause analysis's challenges
//! and rulings, a council's challenges): every item asked about, what it is
//! about, the decision and note (changeable until the moderation is
//! submitted), which submission settled it, and how a deferred item was
//! settled after the end. Deciding, submitting and settling later are the
//! same in every such protocol and are logged the same way; what a settled
//! decision does, and whether an item may be settled later, is the
//! protocol's.

use std::collections::{BTreeMap, HashMap};

use super::calls::Calls;
use super::{BoardItem, ItemDecision, ItemResolution, LogKind, ModerationItem, Ruler, Timestamp};
use crate::rulings::{Ruled, Ruling};

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
    /// Who made the decision, where it was recorded.
    pub ruler: Option<Ruler>,
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
    /// Deferred items settled after the end, by item id; a later
    /// settlement replaces an earlier one.
    resolutions: BTreeMap<String, ItemResolution>,
}

impl<S> Default for ItemBook<S> {
    fn default() -> Self {
        ItemBook {
            records: Vec::new(),
            by_id: HashMap::new(),
            resolutions: BTreeMap::new(),
        }
    }
}

impl<S: Clone> ItemBook<S> {
    pub fn records(&self) -> &[ItemRecord<S>] {
        &self.records
    }

    /// The moderator's rulings as an acting agent reads them
    /// ([`crate::rulings::section`]): each item's latest settled decision,
    /// with its note, in the order the items were first raised. A decision
    /// not yet submitted is no ruling.
    pub fn rulings(&self) -> Vec<Ruling> {
        let mut order: Vec<&str> = Vec::new();
        let mut latest: HashMap<&str, &ItemRecord<S>> = HashMap::new();
        for record in self.records.iter().filter(|record| record.settled) {
            if record.decision.is_none() {
                continue;
            }
            let id = record.item.id.as_str();
            if latest.insert(id, record).is_none() {
                order.push(id);
            }
        }
        order
            .iter()
            .filter_map(|id| {
                let record = latest[id];
                let ruled = Ruled::from(record.decision?);
                Some(Ruling::new(id.to_string(), ruled, record.note.as_deref()))
            })
            .collect()
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
            ruler: None,
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

    /// Who made the latest settled decision on the item `item_id`, where
    /// it was recorded.
    pub fn settled_ruler(&self, item_id: &str) -> Option<Ruler> {
        self.places_of(item_id)
            .iter()
            .rev()
            .map(|&place| &self.records[place])
            .find(|record| record.settled)
            .and_then(|record| record.ruler)
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
            record.ruler = None;
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

    /// Records `decision`, `note` and who ruled on the open item `item_id`
    /// and logs it, `verb` saying what the decision means for its subject ("held
    /// back"); a decision while no moderation is `open`, or on an item that
    /// is not open, is logged as ignored.
    pub fn decide(
        &mut self,
        calls: &mut Calls,
        now: Timestamp,
        open: bool,
        (item_id, decision, note, ruler): (&str, ItemDecision, Option<&str>, Option<Ruler>),
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
        let note = clean_note(note);
        record.decision = Some(decision);
        record.note = note.clone();
        record.ruler = ruler;
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

    /// How the deferred item `item_id` was settled after the end.
    pub fn resolution(&self, item_id: &str) -> Option<&ItemResolution> {
        self.resolutions.get(item_id)
    }

    /// Settles the deferred item `item_id` after the end with `decision`
    /// (accept or reject), kept with who settled it, and logs it: `c3 deferred → accepted after the
    /// verdict: note`, `after` naming the end. A settlement replaces an
    /// earlier one, and the log says so. Whether it may be settled is the
    /// protocol's to say first.
    pub fn resolve(
        &mut self,
        calls: &mut Calls,
        now: Timestamp,
        (item_id, decision, note, ruler): (&str, ItemDecision, Option<&str>, Option<Ruler>),
        after: &str,
    ) {
        let note = clean_note(note);
        let mut message = format!("{item_id} deferred → {} {after}", decision.past_tense());
        if let Some(earlier) = self.resolutions.get(item_id) {
            message.push_str(&format!(
                ", replacing the earlier resolution ({})",
                earlier.decision.past_tense()
            ));
        }
        if let Some(note) = &note {
            message.push_str(&format!(": {note}"));
        }
        calls.push_log(now, LogKind::Moderation, None, message);
        let resolution = ItemResolution {
            decision,
            note,
            at: now,
            ruler,
        };
        self.resolutions.insert(item_id.to_string(), resolution);
    }

    /// Every item with its decision, and how it was settled after the end,
    /// for the board.
    pub fn board_items(&self) -> Vec<BoardItem> {
        self.records
            .iter()
            .map(|record| BoardItem {
                item: record.item.clone(),
                decision: record.decision,
                note: record.note.clone(),
                ruler: record.ruler,
                resolution: self.resolution(&record.item.id).cloned(),
                evidence: Vec::new(),
            })
            .collect()
    }
}

/// A moderator's note as kept: trimmed, and none when blank.
pub fn clean_note(note: Option<&str>) -> Option<String> {
    note.map(str::trim)
        .filter(|note| !note.is_empty())
        .map(str::to_string)
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn at(second: u32) -> Timestamp {
        use chrono::TimeZone;
        chrono::Utc
            .with_ymd_and_hms(2026, 1, 1, 0, 0, second)
            .unwrap()
    }

    /// Issue 63: the rulings an agent reads come from the book alone: each
    /// item's latest submitted decision, in the order the items were first
    /// raised; a decision not yet submitted is none.
    #[test]
    fn the_rulings_are_each_items_latest_submitted_decision_in_order() {
        let mut calls = Calls::new(BTreeMap::new(), BTreeMap::new());
        let mut book = ItemBook::default();
        let item = |id: &str| ModerationItem {
            id: id.into(),
            ..ModerationItem::default()
        };
        let verb = |_: &(), decision: ItemDecision| decision.past_tense();
        book.push(item("c1"), (), 1);
        book.push(item("c2"), (), 1);
        book.decide(
            &mut calls,
            at(1),
            true,
            ("c2", ItemDecision::Reject, None, None),
            verb,
        );
        book.decide(
            &mut calls,
            at(2),
            true,
            ("c1", ItemDecision::Defer, Some(" later "), None),
            verb,
        );
        assert!(book.rulings().is_empty(), "nothing is submitted yet");
        book.submit(&mut calls, at(3)).expect("every item decided");
        book.reoffer("c1", 2);
        book.decide(
            &mut calls,
            at(4),
            true,
            ("c1", ItemDecision::Accept, None, None),
            verb,
        );
        book.submit(&mut calls, at(5)).expect("every item decided");
        let rulings = book.rulings();
        let ids: Vec<&str> = rulings.iter().map(|ruling| ruling.id.as_str()).collect();
        assert_eq!(ids, ["c1", "c2"]);
        assert_eq!(rulings[0].ruled, Ruled::Accepted);
        assert_eq!(rulings[1].ruled, Ruled::Rejected);
    }

    /// A deferred item settled after the end is kept in the book, shown on
    /// the board and logged the same way for every protocol; a second
    /// settlement replaces the first and the log says which it replaced.
    #[test]
    fn a_settlement_after_the_end_is_kept_logged_and_replaceable() {
        let mut calls = Calls::new(BTreeMap::new(), BTreeMap::new());
        let mut book = ItemBook::default();
        let item = ModerationItem {
            id: "c3".into(),
            ..ModerationItem::default()
        };
        book.push(item, (), 1);
        book.resolve(
            &mut calls,
            at(1),
            ("c3", ItemDecision::Accept, Some("  first thought "), None),
            "after the verdict",
        );
        book.resolve(
            &mut calls,
            at(2),
            ("c3", ItemDecision::Reject, Some(" "), Some(Ruler::Person)),
            "after the verdict",
        );
        let messages: Vec<&str> = calls.log().iter().map(|e| e.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "c3 deferred → accepted after the verdict: first thought",
                "c3 deferred → rejected after the verdict, replacing the earlier resolution (accepted)",
            ]
        );
        let resolution = book.resolution("c3").expect("settled");
        assert_eq!(
            (
                resolution.decision,
                resolution.note.as_deref(),
                resolution.at,
                resolution.ruler
            ),
            (ItemDecision::Reject, None, at(2), Some(Ruler::Person))
        );
        let board = book.board_items();
        assert_eq!(board[0].resolution.as_ref(), Some(resolution));
        assert_eq!(book.resolution("c9"), None);
    }
}
