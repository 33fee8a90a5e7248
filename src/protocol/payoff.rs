//! Did the debate pay? (issue 55, JM-30..JM-36.) Beside a verdict a panel
//! decided, three facts a person weighing the debate's cost needs:
//!
//! * **the plain vote**: what the panel's first, independent round would
//!   have decided by a plain majority (each voter's own verdict from its
//!   own first answer, one voter one vote, no weights, no rounds after);
//! * **every position that changed** after that round, and what came
//!   before the change: new evidence, pressure alone, or nothing at all;
//! * **what the rounds after the vote cost**, and that cost per changed
//!   position.
//!
//! A debate whose verdict is the plain vote's and in which nobody moved
//! bought nothing with its later rounds but their cost; one whose verdict
//! differs, moved by evidence, did. A 2025 study (arXiv:2508.17536) finds
//! majority voting explains most of multi-agent debate's gains, so quorum
//! shows the comparison instead of assuming the debate helped.
//!
//! Pure and protocol-blind: each protocol whose panel decides a verdict
//! works out, in its own `payoff` module, its voters' votes, its changes and
//! which of its calls came after the vote; this module counts, words and
//! serialises them for the debate's record, the report, the result screen
//! and `--json`. Not responsible for deciding anything: the
//! verdict stands as the protocol's rules derived it.

use serde::{Deserialize, Serialize};

use super::budget::{tokens_text, usd_text};
use super::usage::{CallUsage, UsageLedger, UsageTotals};

/// The section debate.yaml, the report and `--json` carry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Payoff {
    /// What the first, independent round was, in words: `the judges'
    /// scores of round 1`.
    pub first_round: String,
    /// Each voter's own decision from its first answer, in panel order.
    pub votes: Vec<Vote>,
    /// What more than half of the votes said; none when no decision had a
    /// majority, or nobody voted.
    pub plain_vote: Option<String>,
    /// What the debate decided, by its own rules.
    pub decided: String,
    /// Every position that changed after the first round, in order.
    pub changes: Vec<PositionChange>,
    /// What the calls after the first round cost (retries and repairs
    /// included; a stability receipt's calls, which re-judge rather than
    /// debate, are not).
    pub after_vote: Spent,
}

/// One voter's decision in the first round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Vote {
    /// The role slot: `judge.analyst`, `expert.security`.
    pub voter: String,
    /// `ADOPT`, `CONCERNS`, `option A`.
    pub decision: String,
    /// Why, in a few words (`b2 correctness 2`): what its own answer
    /// implies, not a reason it gave.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub why: String,
}

/// A position that moved after the first round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PositionChange {
    /// The role slot whose position it is.
    pub who: String,
    /// What the position is on: `the verdict`, `F002`.
    pub on: String,
    pub from: String,
    pub to: String,
    /// When it moved: `round 2`, `the final positions`.
    pub when: String,
    pub preceded_by: Preceded,
    /// What came before it, in words: `the revision rewrote b2, which it
    /// had scored below the pass mark`.
    pub why: String,
}

/// What came before a position changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preceded {
    /// Something new reached the voter on that subject: a rewritten block,
    /// a response that brought evidence.
    Evidence,
    /// The voter was challenged or asked again, with nothing new to read
    /// on that subject.
    Pressure,
    /// Nothing on that subject reached the voter between its two
    /// positions.
    Nothing,
}

impl Preceded {
    pub fn as_str(self) -> &'static str {
        match self {
            Preceded::Evidence => "new evidence",
            Preceded::Pressure => "pressure alone",
            Preceded::Nothing => "nothing new",
        }
    }
}

/// What some calls cost.
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spent {
    pub calls: u32,
    /// Input and output tokens together.
    pub tokens: u64,
    /// Money of the calls with a price; none when none had one.
    pub usd: Option<f64>,
    /// Some token counts are quorum's estimates.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

impl Spent {
    /// What the calls of `ledger` that `after` says came after the vote
    /// cost: `after` gets each call's stage and round, read from its id
    /// (`judge.analyst/evaluation/r2/a1`).
    pub fn after(ledger: &UsageLedger, after: impl Fn(&str, u32) -> bool) -> Spent {
        let keep =
            |call: &CallUsage| stage_and_round(&call.call_id).is_some_and(|(s, r)| after(s, r));
        Spent::from(ledger.total_of(keep))
    }

    /// `41,200 tokens and $0.18 in 6 calls`.
    fn describe(&self) -> String {
        let money = self
            .usd
            .map(|usd| format!(" and {}", usd_text(usd)))
            .unwrap_or_default();
        let calls = crate::words::counted(self.calls as usize, "call", "calls");
        format!("{}{money} in {calls}", tokens_text(self.tokens))
    }

    /// The share of this cost each of `changes` positions carries:
    /// `20,600 tokens and $0.09`.
    fn per(&self, changes: usize) -> String {
        let count = changes.max(1) as u64;
        let money = self
            .usd
            .map(|usd| format!(" and {}", usd_text(usd / count as f64)))
            .unwrap_or_default();
        format!("{}{money}", tokens_text(self.tokens.div_ceil(count)))
    }
}

impl From<UsageTotals> for Spent {
    fn from(totals: UsageTotals) -> Spent {
        Spent {
            calls: totals.calls,
            tokens: totals.input_tokens.saturating_add(totals.output_tokens),
            usd: totals.cost_usd,
            estimated: totals.estimated,
        }
    }
}

/// The stage and round of a call id (`role/stage/rN/aM`); none for an id
/// of another shape.
pub fn stage_and_round(call_id: &str) -> Option<(&str, u32)> {
    let mut parts = call_id.rsplit('/');
    let _attempt = parts.next()?.strip_prefix('a')?;
    let round = parts.next()?.strip_prefix('r')?.parse().ok()?;
    let stage = parts.next()?;
    parts.next()?;
    Some((stage, round))
}

/// What more than half of `votes` decided; none when no decision did.
pub fn plain_majority(votes: &[Vote]) -> Option<String> {
    tally(votes)
        .into_iter()
        .find(|(_, count)| count * 2 > votes.len())
        .map(|(decision, _)| decision.to_string())
}

/// Each decision of `votes` with how many gave it, in the order first
/// given.
fn tally(votes: &[Vote]) -> Vec<(&str, usize)> {
    let mut tally: Vec<(&str, usize)> = Vec::new();
    for vote in votes {
        match tally
            .iter_mut()
            .find(|(decision, _)| *decision == vote.decision)
        {
            Some((_, count)) => *count += 1,
            None => tally.push((&vote.decision, 1)),
        }
    }
    tally
}

impl Payoff {
    /// The section of a debate whose first round gave `votes`, that
    /// decided `decided`, with `changes` after the vote costing
    /// `after_vote`.
    pub fn new(
        first_round: impl Into<String>,
        votes: Vec<Vote>,
        decided: impl Into<String>,
        changes: Vec<PositionChange>,
        after_vote: Spent,
    ) -> Payoff {
        Payoff {
            first_round: first_round.into(),
            plain_vote: plain_majority(&votes),
            votes,
            decided: decided.into(),
            changes,
            after_vote,
        }
    }

    /// The debate decided what the plain vote would have.
    pub fn agrees(&self) -> bool {
        self.plain_vote.as_deref() == Some(self.decided.as_str())
    }

    /// The changes that new evidence preceded.
    pub fn on_evidence(&self) -> usize {
        self.changes
            .iter()
            .filter(|change| change.preceded_by == Preceded::Evidence)
            .count()
    }

    /// The section in a few lines, for the result screen, the report and
    /// the transcript: the plain vote against the verdict, the changes by
    /// what preceded them, the cost per change.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![self.vote_line()];
        lines.push(self.changes_line());
        lines.push(self.cost_line());
        lines
    }

    fn tally(&self) -> String {
        tally(&self.votes)
            .iter()
            .map(|(decision, count)| format!("{decision}: {count}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn vote_line(&self) -> String {
        let of = self.votes.len();
        match &self.plain_vote {
            None if of == 0 => format!(
                "A plain vote of {} had no votes to count; the debate decided {}.",
                self.first_round, self.decided
            ),
            None => format!(
                "A plain vote of {} would have had no majority ({}); the debate decided {}.",
                self.first_round,
                self.tally(),
                self.decided
            ),
            Some(plain) if self.agrees() => format!(
                "A plain vote of {} would have decided {plain} too ({}); so did the debate.",
                self.first_round,
                self.tally()
            ),
            Some(plain) => format!(
                "A plain vote of {} would have decided {plain} ({}); the debate decided {}.",
                self.first_round,
                self.tally(),
                self.decided
            ),
        }
    }

    fn changes_line(&self) -> String {
        if self.changes.is_empty() {
            return "No position changed after the first round.".into();
        }
        let count = |preceded: Preceded| {
            self.changes
                .iter()
                .filter(|change| change.preceded_by == preceded)
                .count()
        };
        let parts: Vec<String> = [Preceded::Evidence, Preceded::Pressure, Preceded::Nothing]
            .into_iter()
            .filter(|preceded| count(*preceded) > 0)
            .map(|preceded| format!("{} after {}", count(preceded), preceded.as_str()))
            .collect();
        format!(
            "{} after the first round: {}.",
            crate::words::counted(self.changes.len(), "position changed", "positions changed"),
            parts.join(", ")
        )
    }

    fn cost_line(&self) -> String {
        let spent = &self.after_vote;
        if spent.calls == 0 {
            return "Nothing was spent after the first round.".into();
        }
        let estimated = if spent.estimated { " (estimated)" } else { "" };
        match self.changes.len() {
            0 => format!(
                "The rounds after it cost {}{estimated} and changed no position.",
                spent.describe()
            ),
            changes => format!(
                "The rounds after it cost {}{estimated}: {} per changed position.",
                spent.describe(),
                spent.per(changes)
            ),
        }
    }

    /// The section as Markdown, for a deliverable: the lines, then each
    /// vote and change. Agent text (a `why`) is the protocol's words, not
    /// an agent's.
    pub fn markdown(&self) -> String {
        let mut out = String::from("## Did the debate pay?\n\n");
        for line in self.lines() {
            out.push_str(&format!("{line}\n"));
        }
        out.push('\n');
        if !self.votes.is_empty() {
            out.push_str(&format!("Votes ({}):\n\n", self.first_round));
            for vote in &self.votes {
                let why = match vote.why.is_empty() {
                    true => String::new(),
                    false => format!(" ({})", vote.why),
                };
                out.push_str(&format!("- {}: {}{why}\n", vote.voter, vote.decision));
            }
            out.push('\n');
        }
        if !self.changes.is_empty() {
            out.push_str("What changed after it:\n\n");
            for change in &self.changes {
                out.push_str(&format!(
                    "- {} on {}: {} → {} ({}), after {}: {}\n",
                    change.who,
                    change.on,
                    change.from,
                    change.to,
                    change.when,
                    change.preceded_by.as_str(),
                    change.why
                ));
            }
            out.push('\n');
        }
        format!("{}\n", out.trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::usage::{CallUsage, UsageLedger};

    fn vote(voter: &str, decision: &str) -> Vote {
        Vote {
            voter: voter.into(),
            decision: decision.into(),
            why: String::new(),
        }
    }

    fn change(preceded_by: Preceded) -> PositionChange {
        PositionChange {
            who: "judge.analyst".into(),
            on: "the verdict".into(),
            from: "REVISE".into(),
            to: "ADOPT".into(),
            when: "round 2".into(),
            preceded_by,
            why: "the revision rewrote b2".into(),
        }
    }

    fn call(call_id: &str, tokens: u64, usd: Option<f64>) -> CallUsage {
        CallUsage {
            call_id: call_id.into(),
            role: call_id.split('/').next().unwrap().into(),
            agent: "openai:gpt-test".into(),
            input_tokens: Some(tokens / 2),
            output_tokens: Some(tokens - tokens / 2),
            estimated: false,
            ttft_ms: None,
            elapsed_ms: 10,
            output_tokens_per_second: None,
            cost_usd: usd,
        }
    }

    #[test]
    fn jm_30_a_plain_vote_is_what_more_than_half_the_votes_said() {
        let votes = [vote("a", "ADOPT"), vote("b", "REVISE"), vote("c", "ADOPT")];
        assert_eq!(plain_majority(&votes).as_deref(), Some("ADOPT"));
        // Half is not more than half: a tie has no majority.
        let tie = [vote("a", "ADOPT"), vote("b", "REVISE")];
        assert_eq!(plain_majority(&tie), None);
        let split = [vote("a", "PASS"), vote("b", "CONCERNS"), vote("c", "FAIL")];
        assert_eq!(plain_majority(&split), None);
        assert_eq!(plain_majority(&[]), None);
        assert_eq!(
            plain_majority(&[vote("a", "FAIL")]).as_deref(),
            Some("FAIL")
        );
    }

    #[test]
    fn jm_30_the_vote_line_says_whether_the_debate_agreed_with_the_plain_vote() {
        let same = Payoff::new(
            "the judges' scores of round 1",
            vec![vote("a", "ADOPT"), vote("b", "ADOPT"), vote("c", "REVISE")],
            "ADOPT",
            Vec::new(),
            Spent::default(),
        );
        assert!(same.agrees());
        assert_eq!(
            same.lines()[0],
            "A plain vote of the judges' scores of round 1 would have decided ADOPT too (ADOPT: 2, REVISE: 1); so did the debate."
        );
        let other = Payoff::new(
            "round 1",
            vec![vote("a", "REVISE"), vote("b", "ADOPT"), vote("c", "REJECT")],
            "ADOPT",
            Vec::new(),
            Spent::default(),
        );
        assert!(!other.agrees());
        assert!(other.lines()[0].contains("no majority (REVISE: 1, ADOPT: 1, REJECT: 1)"));
    }

    #[test]
    fn jm_32_the_rounds_after_the_vote_are_costed_per_changed_position() {
        let mut ledger = UsageLedger::default();
        ledger.record(call("judge.analyst/evaluation/r1/a1", 1_000, Some(0.01)));
        ledger.record(call("proposer/revision/r2/a1", 3_000, Some(0.03)));
        ledger.record(call("judge.analyst/evaluation/r2/a1", 1_000, Some(0.01)));
        let after = Spent::after(&ledger, |_, round| round >= 2);
        assert_eq!(after.calls, 2);
        assert_eq!(after.tokens, 4_000);
        assert!((after.usd.unwrap() - 0.04).abs() < 1e-9);
        let payoff = Payoff::new(
            "round 1",
            vec![vote("a", "REVISE")],
            "ADOPT",
            vec![change(Preceded::Evidence), change(Preceded::Pressure)],
            after,
        );
        let lines = payoff.lines();
        assert_eq!(
            lines[1],
            "2 positions changed after the first round: 1 after new evidence, 1 after pressure alone."
        );
        assert_eq!(
            lines[2],
            "The rounds after it cost 4,000 tokens and $0.04 in 2 calls: 2,000 tokens and $0.02 per changed position."
        );
        assert_eq!(payoff.on_evidence(), 1);
    }

    #[test]
    fn jm_32_rounds_that_changed_nothing_say_so() {
        let payoff = Payoff::new(
            "round 1",
            vec![vote("a", "ADOPT")],
            "ADOPT",
            Vec::new(),
            Spent {
                calls: 3,
                tokens: 9_000,
                usd: None,
                estimated: true,
            },
        );
        let lines = payoff.lines();
        assert_eq!(lines[1], "No position changed after the first round.");
        assert_eq!(
            lines[2],
            "The rounds after it cost 9,000 tokens in 3 calls (estimated) and changed no position."
        );
        let idle = Payoff::new("round 1", Vec::new(), "ADOPT", Vec::new(), Spent::default());
        assert_eq!(idle.lines()[2], "Nothing was spent after the first round.");
        assert!(idle.lines()[0].contains("had no votes to count"));
    }

    #[test]
    fn call_ids_give_their_stage_and_round() {
        assert_eq!(
            stage_and_round("judge.analyst/evaluation/r2/a1"),
            Some(("evaluation", 2))
        );
        assert_eq!(
            stage_and_round("expert.security/final/r0/a3"),
            Some(("final", 0))
        );
        assert_eq!(stage_and_round("evaluation/r2/a1"), None);
        assert_eq!(stage_and_round("nonsense"), None);
    }

    #[test]
    fn the_markdown_lists_votes_and_changes() {
        let payoff = Payoff::new(
            "round 1",
            vec![vote("judge.analyst", "REVISE")],
            "ADOPT",
            vec![change(Preceded::Evidence)],
            Spent::default(),
        );
        let markdown = payoff.markdown();
        assert!(markdown.starts_with("## Did the debate pay?\n"));
        assert!(markdown.contains("- judge.analyst: REVISE\n"));
        assert!(markdown.contains(
            "- judge.analyst on the verdict: REVISE → ADOPT (round 2), after new evidence: the revision rewrote b2\n"
        ));
    }
}
