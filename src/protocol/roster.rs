//! A debate's roster: the seats a protocol fills, each declared once.
//!
//! A [`Seat`] is one role slot of a debate: its slot name (`critic`,
//! `debugger.alpha`, `judge.analyst`), the title its pane shows, its
//! [`RoleGroup`], the slot whose agent plays it when nothing names it
//! (a synthesizer played by the lead's agent), and the protocol's own
//! typed role (`Role::Critic`, `Role::Debugger("alpha")`). A protocol
//! builds its [`Roster`] once from its options, and everything that lists
//! the seats derives from it: the role slots its configuration resolves
//! agents for ([`Roster::role_slots`], for
//! [`Configured::roles`](super::kind::Configured::roles)), the roles the
//! interfaces introduce ([`Roster::role_infos`]), and the slot a call is
//! started in ([`DebateCore::slot`](super::DebateCore::slot)).
//!
//! When an answer comes back, [`Roster::role_of`] reads its slot's text
//! back into the typed role, once, for the skeleton, which hands the role
//! to the protocol: a protocol matches on its stage and its role, never on
//! a slot's text.
//!
//! Not responsible for who plays a seat (the call plumbing,
//! [`Calls::agent`], records that and every switch), nor for what a role
//! does in a debate (the protocol's rules decide).

use super::calls::Calls;
use super::kind::RoleSlot;
use super::supervision::Slot;
use super::{RoleGroup, RoleInfo};

/// One seat of a debate: a role slot with its title, its group, whom it
/// defaults to and the protocol's typed role `R` for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seat<R> {
    /// The protocol's own name for the role, which its rules match on.
    pub role: R,
    /// The slot name calls, file names, journals and `--agent` use:
    /// `proposer`, `judge.analyst`, `debugger.alpha`.
    pub slot: String,
    /// How a pane is titled: `Proposer`, `Analyst`, `Debugger alpha`.
    pub title: String,
    pub group: RoleGroup,
    /// Unless something names this slot itself, it is played by the agent
    /// of this one (a synthesizer by the lead's agent).
    pub defaults_to: Option<String>,
}

impl<R> Seat<R> {
    /// The seat of `role`, in `slot`, titled `title`, in `group`; played by
    /// whoever is named for `slot`.
    pub fn new(
        role: R,
        slot: impl Into<String>,
        title: impl Into<String>,
        group: RoleGroup,
    ) -> Self {
        Seat {
            role,
            slot: slot.into(),
            title: title.into(),
            group,
            defaults_to: None,
        }
    }

    /// The same seat, played by `slot`'s agent unless it is named itself.
    pub fn defaulting_to(self, slot: impl Into<String>) -> Self {
        Seat {
            defaults_to: Some(slot.into()),
            ..self
        }
    }

    /// The seat as the configuration resolves its agent.
    pub fn role_slot(&self) -> RoleSlot {
        RoleSlot {
            slot: self.slot.clone(),
            group: self.group,
            defaults_to: self.defaults_to.clone(),
        }
    }
}

/// Every seat of one debate, in the order agents are resolved and panes
/// are laid out within a group. Built once by the protocol from its
/// options; a debate's roster does not change while it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Roster<R> {
    seats: Vec<Seat<R>>,
}

impl<R> FromIterator<Seat<R>> for Roster<R> {
    fn from_iter<I: IntoIterator<Item = Seat<R>>>(seats: I) -> Self {
        Roster {
            seats: seats.into_iter().collect(),
        }
    }
}

impl<R: Clone + PartialEq> Roster<R> {
    /// A roster of `seats`, in their order.
    pub fn new(seats: impl IntoIterator<Item = Seat<R>>) -> Self {
        seats.into_iter().collect()
    }

    /// Every seat, in order.
    pub fn seats(&self) -> &[Seat<R>] {
        &self.seats
    }

    /// Every role slot, in order: what
    /// [`Configured::roles`](super::kind::Configured::roles) gives the
    /// configuration to resolve an agent for each.
    pub fn role_slots(&self) -> Vec<RoleSlot> {
        self.seats.iter().map(Seat::role_slot).collect()
    }

    /// Every seat as the interfaces introduce it, with the agent `calls`
    /// says plays it now (after any switch); not binding, unmarked.
    pub fn role_infos(&self, calls: &Calls) -> Vec<RoleInfo> {
        self.role_infos_with(calls, |_, info| info)
    }

    /// [`role_infos`](Self::role_infos), each passed through `dress` with
    /// its seat: what a protocol adds of its own (a binding judge, the
    /// marks of how a seat judges fairly).
    pub fn role_infos_with(
        &self,
        calls: &Calls,
        dress: impl Fn(&Seat<R>, RoleInfo) -> RoleInfo,
    ) -> Vec<RoleInfo> {
        self.seats
            .iter()
            .map(|seat| {
                let info = calls.role_info(&seat.slot, seat.title.clone(), seat.group);
                dress(seat, info)
            })
            .collect()
    }

    /// The seat of `role`, if the debate seats it.
    pub fn seat(&self, role: &R) -> Option<&Seat<R>> {
        self.seats.iter().find(|seat| seat.role == *role)
    }

    /// The seat whose slot is named `slot`, if there is one.
    pub fn seat_named(&self, slot: &str) -> Option<&Seat<R>> {
        self.seats.iter().find(|seat| seat.slot == slot)
    }

    /// The role a call's `slot` seats: the one place a slot's text is read
    /// back into the protocol's typed role. `None` for a slot this debate
    /// does not seat.
    pub fn role_of(&self, slot: &Slot) -> Option<R> {
        self.role_named(&slot.role)
    }

    /// The role the slot named `slot` seats ([`role_of`](Self::role_of)
    /// for a slot name a record or a list of participants holds).
    pub fn role_named(&self, slot: &str) -> Option<R> {
        self.seat_named(slot).map(|seat| seat.role.clone())
    }

    /// The slot name of `role`'s seat, if the debate seats it.
    pub fn slot_of(&self, role: &R) -> Option<&str> {
        self.seat(role).map(|seat| seat.slot.as_str())
    }

    /// Whether the debate seats `role`.
    pub fn seats_role(&self, role: &R) -> bool {
        self.seat(role).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq, Eq)]
    enum Role {
        Lead,
        Judge(&'static str),
        Merge,
    }

    fn roster() -> Roster<Role> {
        Roster::new([
            Seat::new(Role::Lead, "proposer", "Proposer", RoleGroup::Lead),
            Seat::new(
                Role::Judge("analyst"),
                "judge.analyst",
                "Analyst",
                RoleGroup::Panel,
            ),
            Seat::new(
                Role::Merge,
                "synthesizer",
                "Synthesizer",
                RoleGroup::Synthesizer,
            )
            .defaulting_to("proposer"),
        ])
    }

    #[test]
    fn a_slot_reads_back_into_its_role_and_an_unknown_one_into_none() {
        let roster = roster();
        for seat in roster.seats() {
            let slot = Slot::new(seat.slot.clone(), "stage", 1);
            assert_eq!(roster.role_of(&slot), Some(seat.role.clone()));
            assert_eq!(roster.slot_of(&seat.role), Some(seat.slot.as_str()));
        }
        assert_eq!(
            roster.role_of(&Slot::new("judge.stylist", "stage", 1)),
            None
        );
        assert_eq!(roster.slot_of(&Role::Judge("stylist")), None);
        assert!(!roster.seats_role(&Role::Judge("stylist")));
    }

    #[test]
    fn the_role_slots_keep_the_order_groups_and_defaults() {
        assert_eq!(
            roster().role_slots(),
            vec![
                RoleSlot::new("proposer", RoleGroup::Lead),
                RoleSlot::new("judge.analyst", RoleGroup::Panel),
                RoleSlot::new("synthesizer", RoleGroup::Synthesizer).defaulting_to("proposer"),
            ]
        );
    }

    #[test]
    fn the_role_infos_name_who_plays_each_seat_now() {
        let agents = [("proposer", "a:one"), ("judge.analyst", "b:two")]
            .into_iter()
            .map(|(slot, agent)| (slot.to_string(), agent.to_string()))
            .collect();
        let calls = Calls::new(agents, Default::default());
        let infos = roster().role_infos(&calls);
        let shown: Vec<(&str, &str, RoleGroup, &str)> = infos
            .iter()
            .map(|info| {
                let (slot, title, agent) = (&info.slot, &info.title, &info.agent);
                (slot.as_str(), title.as_str(), info.group, agent.as_str())
            })
            .collect();
        assert_eq!(
            shown,
            vec![
                ("proposer", "Proposer", RoleGroup::Lead, "a:one"),
                ("judge.analyst", "Analyst", RoleGroup::Panel, "b:two"),
                ("synthesizer", "Synthesizer", RoleGroup::Synthesizer, ""),
            ]
        );
    }
}
