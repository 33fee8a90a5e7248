//! Reading an answer item by item, the same way in every protocol (issue
//! 59: one slip costs one item).
//!
//! A reader in `parse` keeps every item it can read and returns the ones it
//! cannot as [`Slip`]s, each located (line, field, what it found). This
//! module decides what happens next, once for every protocol:
//!
//! - nothing slipped: the answer is read;
//! - some items slipped: the agent is asked once about those items alone,
//!   naming each problem ([`REPAIR_ITEMS_TEMPLATE`]); its answer is read the
//!   same way, and whichever of the two readings keeps more items is the
//!   one the debate goes on with (the first when the repair cannot be read
//!   at all, or never comes). What still slips is left out, each item
//!   recorded as [`Unread`] with what that changed, in words the protocol
//!   gives;
//! - nothing of the answer can be read: the protocol's own whole-answer
//!   path, as before (one repair, then what that role's absence means).
//!
//! A slot has one repair, whichever kind it was. Where the rules fix the
//! consequence of a slip without asking again (a judge is never re-asked:
//! RULES.md A14), the protocol does not call [`DebateCore::read_by_item`]
//! and says itself what it left out.
//!
//! Not responsible for what an item means, nor for the words saying what
//! leaving it out changed: each protocol gives those.

use std::sync::Arc;

use super::calls::Answer;
use super::debate::DebateCore;
use super::supervision::LiveCall;
use super::unread::{Repaired, Unread};
use super::{CallSpec, Effect, LogKind, Timestamp};
use crate::parse::{ParseError, Read, Slip};
use crate::prompts::REPAIR_ITEMS_TEMPLATE;

/// An answer read item by item ([`DebateCore::read_by_item`]).
pub enum ByItem<T> {
    /// Read: what was kept, with the items left out in `read.slips`.
    Read(ItemReading<T>),
    /// The agent was asked once about the items that could not be read;
    /// its answer comes back to the same handler.
    Asked(Vec<Effect>),
    /// Nothing of the answer could be read: the protocol's own path.
    Unreadable(ParseError),
}

/// What an answer read item by item gave the debate.
pub struct ItemReading<T> {
    /// The items kept, the notes, and the items left out (`slips`).
    pub read: Read<T>,
    /// Items of the first answer that only the repair made readable.
    pub repaired: Vec<Slip>,
    /// The text read, when it is the first answer rather than the one
    /// this call brought (the repair read worse, or never came).
    pub first: Option<Arc<str>>,
}

impl<T> ItemReading<T> {
    /// The text the reading is of: the first answer, or `answer`'s own.
    pub fn text<'a>(&'a self, answer: &Answer<'a>) -> &'a str {
        self.first.as_deref().unwrap_or(answer.output)
    }
}

/// How one slip is put to the agent: what quorum calls the item, then the
/// located problem.
fn problem(slip: &Slip) -> String {
    slip.to_string()
}

/// Whether two slips are of the same item.
fn same_item(a: &Slip, b: &Slip) -> bool {
    match (&a.id, &b.id) {
        (Some(a), Some(b)) => a == b,
        _ => a.index.is_some() && a.index == b.index && a.error.field == b.error.field,
    }
}

impl<S: super::Stage, R> DebateCore<S, R> {
    /// Reads `answer` with `read`, item by item (see the module): the
    /// reading, a repair asked about the items that could not be read, or
    /// the whole answer's error. `kept` counts the items a reading kept,
    /// to choose between an answer and its repair.
    pub fn read_by_item<T>(
        &mut self,
        answer: &Answer<'_>,
        read: impl Fn(&str) -> Result<Read<T>, ParseError>,
        kept: impl Fn(&T) -> usize,
    ) -> ByItem<T> {
        self.read_by_item_if(answer, Ok(()), read, kept)
    }

    /// [`read_by_item`](Self::read_by_item), asking the agent about the
    /// items it could not read only when `may_ask` allows (a council with
    /// no call to spare in its budget says why not, and goes on without
    /// them).
    pub fn read_by_item_if<T>(
        &mut self,
        answer: &Answer<'_>,
        may_ask: Result<(), String>,
        read: impl Fn(&str) -> Result<Read<T>, ParseError>,
        kept: impl Fn(&T) -> usize,
    ) -> ByItem<T> {
        let call_id = answer.call.call_id();
        let now = answer.now;
        if let Some(first) = answer.call.first_reply.clone() {
            return self.after_item_repair(answer, first, read, kept);
        }
        let reading = match read(answer.output) {
            Ok(reading) => reading,
            Err(error) => return ByItem::Unreadable(error),
        };
        if reading.slips.is_empty() || answer.call.repaired {
            return ByItem::Read(ItemReading {
                read: reading,
                repaired: Vec::new(),
                first: None,
            });
        }
        let problems: Vec<String> = reading.slips.iter().map(problem).collect();
        let message = format!(
            "{} of the {}'s {} answer could not be read: {}",
            crate::words::counted(problems.len(), "item", "items"),
            answer.call.slot.role,
            answer.call.slot.stage,
            problems.join("; ")
        );
        self.calls
            .push_log(now, LogKind::LeftOut, Some(&call_id), message);
        if let Err(why) = may_ask {
            let message = format!("not asked about them again: {why}");
            self.calls
                .push_log(now, LogKind::Note, Some(&call_id), message);
            return ByItem::Read(ItemReading {
                read: reading,
                repaired: Vec::new(),
                first: None,
            });
        }
        match self.ask_about_items(answer.clone(), &problems) {
            Some(spec) => ByItem::Asked(vec![Effect::StartCall(spec)]),
            None => ByItem::Read(ItemReading {
                read: reading,
                repaired: Vec::new(),
                first: None,
            }),
        }
    }

    /// The one repair about the items of `answer` that could not be read.
    fn ask_about_items(&mut self, answer: Answer<'_>, problems: &[String]) -> Option<CallSpec> {
        let template = (self.prompts.as_ref(), &REPAIR_ITEMS_TEMPLATE);
        self.calls.repair_items(answer, problems, template)
    }

    /// The reading after the repair of `first`'s unreadable items: the
    /// repair's, unless it cannot be read or keeps fewer items, when the
    /// first answer's stands (and the log says why).
    fn after_item_repair<T>(
        &mut self,
        answer: &Answer<'_>,
        first: Arc<str>,
        read: impl Fn(&str) -> Result<Read<T>, ParseError>,
        kept: impl Fn(&T) -> usize,
    ) -> ByItem<T> {
        let call_id = answer.call.call_id();
        let before = match read(&first) {
            Ok(before) => before,
            // The first answer read when its repair was asked; should the
            // reader no longer read it, only the repair is left to read.
            Err(_) => {
                return match read(answer.output) {
                    Ok(again) => ByItem::Read(ItemReading {
                        read: again,
                        repaired: Vec::new(),
                        first: None,
                    }),
                    Err(error) => ByItem::Unreadable(error),
                };
            }
        };
        let stands = |core: &mut DebateCore<S, R>, why: String| {
            let message =
                format!("{why}: the first answer stands, without the items it could not read");
            core.calls
                .push_log(answer.now, LogKind::Note, Some(&call_id), message);
            // The repair is kept for the record, as any answer not used,
            // and the call's file holds the answer that was read.
            core.unusable.push(super::calls::Unusable {
                call_id: call_id.clone(),
                raw: answer.output.to_string(),
                reason: why,
            });
            if let Some(path) = &answer.call.raw_output_path {
                core.kept_files.retain(|document| &document.path != path);
                core.kept_files
                    .push(super::AnswerFile::kept(path.clone(), first.to_string()));
            }
        };
        match read(answer.output) {
            Err(error) => {
                stands(self, format!("the repair could not be read ({error})"));
                ByItem::Read(ItemReading {
                    read: before,
                    repaired: Vec::new(),
                    first: Some(first),
                })
            }
            Ok(again) if kept(&again.value) < kept(&before.value) => {
                stands(
                    self,
                    format!(
                        "the repair kept fewer items ({}) than the first answer ({})",
                        kept(&again.value),
                        kept(&before.value)
                    ),
                );
                ByItem::Read(ItemReading {
                    read: before,
                    repaired: Vec::new(),
                    first: Some(first),
                })
            }
            Ok(again) => {
                let repaired: Vec<Slip> = before
                    .slips
                    .into_iter()
                    .filter(|slip| !again.slips.iter().any(|still| same_item(slip, still)))
                    .collect();
                if !repaired.is_empty() {
                    let named: Vec<String> = repaired.iter().map(slip_name).collect();
                    let message = format!("read after the repair: {}", named.join(", "));
                    self.calls
                        .push_log(answer.now, LogKind::Note, Some(&call_id), message);
                    self.repaired.extend(named.into_iter().map(|what| Repaired {
                        call_id: call_id.clone(),
                        whose: answer.call.slot.role.clone(),
                        what,
                    }));
                }
                ByItem::Read(ItemReading {
                    read: again,
                    repaired,
                    first: None,
                })
            }
        }
    }

    /// Leaves each of `slips` out of `call`'s answer: logged, and kept as
    /// [`Unread`] for the record and every deliverable. `what` names an
    /// item (`critique item c3`), `effect` says what leaving it out
    /// changed.
    pub fn leave_out(
        &mut self,
        call: &LiveCall,
        now: Timestamp,
        slips: &[Slip],
        what: impl Fn(&Slip) -> String,
        effect: impl Fn(&Slip) -> String,
    ) {
        let call_id = call.call_id();
        for slip in slips {
            let unread = Unread {
                call_id: call_id.clone(),
                whose: call.slot.role.clone(),
                what: what(slip),
                why: slip.error.to_string(),
                effect: effect(slip),
            };
            let message = format!(
                "left out {} of the {}'s answer ({}): {}",
                unread.what, unread.whose, unread.why, unread.effect
            );
            self.calls
                .push_log(now, LogKind::LeftOut, Some(&call_id), message);
            self.unread.push(unread);
        }
    }

    /// Forgets what an earlier answer of `call`'s slot (its role, stage and
    /// round) left unread: a later answer of the slot (a judge run again)
    /// replaces it.
    pub fn forget_unread_of(&mut self, call: &LiveCall) {
        let slot = call.slot.call_id(0);
        let prefix = slot.trim_end_matches("a0");
        self.unread
            .retain(|entry| !entry.call_id.starts_with(prefix));
    }

    /// Records something of `call`'s answer that could not be read, with
    /// what that changed, where no slip names it (a whole judge's scores,
    /// a participant's final position).
    pub fn record_unread(&mut self, call: &LiveCall, what: String, why: String, effect: String) {
        self.unread.push(Unread {
            call_id: call.call_id(),
            whose: call.slot.role.clone(),
            what,
            why,
            effect,
        });
    }
}

/// How a slip's item is named in the log: its id, else where it stands
/// (`changes[2]`, the field's path up to its item), else its place.
pub fn slip_name(slip: &Slip) -> String {
    match (&slip.id, slip.index, &slip.error.field) {
        (Some(id), _, _) => id.clone(),
        (None, _, Some(field)) => match field.find(']') {
            Some(end) => field[..=end].to_string(),
            None => field.clone(),
        },
        (None, Some(index), None) => format!("item {}", index + 1),
        (None, None, None) => "an item".to_string(),
    }
}

/// The item a slip is about by its place in its list, counted from 1 for
/// people (`change 3`), or as [`slip_name`] names it.
pub fn numbered(slip: &Slip, what: &str) -> String {
    match (&slip.id, slip.index) {
        (None, Some(index)) => format!("{what} {}", index + 1),
        _ => format!("{what} {}", slip_name(slip)),
    }
}
