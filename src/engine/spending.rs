//! The engine's spending room: every step's forecast, and the gate that
//! holds a step which would take the debate over its budget.
//!
//! A step is the calls a protocol asks for at once (a round's judges, a
//! phase's participants, one retry). Before any of them starts, the engine
//! forecasts the step ([`Forecast`]) and publishes it. With a budget, it adds
//! what was spent, what the calls still running are forecast to cost and
//! the step; when that would cross the limit the step is held, before any
//! of its calls is sent, and:
//! - at the interface the person decides ([`BudgetDecision`]): raise the
//!   limit, stop here, or go on once (this step only; the next is checked
//!   again);
//! - headless, the engine stops once the calls already running have
//!   answered (they are paid for), and `quorum resume DIR --budget X`
//!   continues: the held step is what a resumed fold starts again.
//!
//! Every reach of the limit and every decision is journaled
//! ([`BudgetEvent`]). Calls already running always finish: the gate holds
//! what has not been sent.
//!
//! Not responsible for the arithmetic ([`crate::protocol::budget`]) or for
//! a protocol's own limits: a council's call budget is its rule and
//! applies first; this money or token limit then holds any step, whatever
//! the protocol.

use serde::{Deserialize, Serialize};

use super::{Engine, EngineError, JournalEvent, Update};
use crate::agent::human::HUMAN_PROVIDER;
use crate::protocol::budget::{Budget, Crossing, Forecast, PlannedCall, Spend};
use crate::protocol::usage::UsageLedger;
use crate::protocol::{Effect, Protocol};

/// What the person decided about a held step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum BudgetDecision {
    /// A new limit; the held step is checked against it.
    Raise { limit: Budget },
    /// Run the held step, over the limit; the next step is checked again.
    GoOnce,
    /// End the run here, resumable with a larger budget.
    Stop,
}

/// A budget fact, as the journal keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BudgetEvent {
    /// A step was held: it would have crossed the limit.
    Reached(BudgetQuestion),
    /// The person (or `quorum resume --budget`) decided.
    Decided { decision: BudgetDecision },
    /// The run stopped before the held step.
    Stopped { limit: Budget },
}

impl BudgetEvent {
    /// One line for a reader of the record: `held a step: spent …`.
    pub fn describe(&self) -> String {
        match self {
            BudgetEvent::Reached(question) => format!("held a step: {}", question.describe()),
            BudgetEvent::Decided {
                decision: BudgetDecision::Raise { limit },
            } => format!("raised the budget: {}", limit.describe()),
            BudgetEvent::Decided {
                decision: BudgetDecision::GoOnce,
            } => "let the held step go on once, over the budget".to_string(),
            BudgetEvent::Decided {
                decision: BudgetDecision::Stop,
            } => "chose to stop here".to_string(),
            BudgetEvent::Stopped { limit } => format!(
                "stopped before the held step (budget {}); resumable with a larger one",
                limit.describe()
            ),
        }
    }
}

/// A held step, as the person is asked about it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BudgetQuestion {
    pub limit: Budget,
    /// Spent by the calls that have answered.
    pub spent: Spend,
    /// Forecast for the calls still running.
    pub running: Spend,
    /// The held step.
    pub step: Forecast,
    pub crossed: Vec<Crossing>,
}

impl BudgetQuestion {
    /// Spent, running and the step together.
    pub fn committed(&self) -> Spend {
        self.spent + self.running + self.step.spend()
    }

    /// Whether money is counted (a money limit, or a priced call).
    pub fn priced(&self) -> bool {
        self.limit.usd.is_some() || self.spent.usd > 0.0 || self.step.usd > 0.0
    }

    /// One line: `spent $1.20 · 40,000 tokens; the next step, 3 calls ≈
    /// $1.40 · …, would cross $2.50`.
    pub fn describe(&self) -> String {
        let priced = self.priced();
        let mut line = format!(
            "spent {}; the next step, {}, would cross the budget of {}",
            self.spent.describe_against(priced, self.limit.usd),
            self.step.describe(priced),
            self.limit.describe()
        );
        if self.running.tokens > 0 {
            line.push_str(&format!(
                " (with {} for the calls still running)",
                self.running.describe(priced)
            ));
        }
        line
    }

    /// A limit that would let the held step run: the committed figure
    /// and half as much again on each part that is limited, rounded up
    /// (to a dollar, to 10,000 tokens).
    pub fn suggested(&self) -> Budget {
        let committed = self.committed();
        Budget {
            // Never more than `--budget` takes, so the command quorum
            // prints with it is one quorum accepts.
            usd: self.limit.usd.map(|_| {
                (committed.usd * 1.5)
                    .ceil()
                    .clamp(1.0, crate::protocol::budget::MAX_BUDGET_USD)
            }),
            tokens: self.limit.tokens.map(|_| {
                ((committed.tokens.saturating_mul(3) / 2).div_ceil(10_000) * 10_000)
                    .clamp(1, crate::protocol::budget::MAX_BUDGET_TOKENS)
            }),
        }
    }
}

/// Who answers when a step would cross the budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WhenOver {
    /// Nobody is at a keyboard: stop before the step (headless).
    #[default]
    Stop,
    /// The person at the interface decides.
    Ask,
}

/// The gate's state.
#[derive(Default)]
pub(super) struct Spending {
    pub(super) limit: Budget,
    pub(super) when_over: WhenOver,
    /// Effects held back, in order, while the person decides or the run
    /// stops: the step, and whatever followed from answers meanwhile.
    held: Option<Vec<Effect>>,
    /// The question the held step raised.
    question: Option<BudgetQuestion>,
    /// The person chose to go on once: the next step passes unchecked.
    once: bool,
    /// The run ends once no call is running.
    stopping: bool,
    /// A raise given when the run was resumed, journaled as it starts.
    raised_on_resume: Option<Budget>,
}

impl Spending {
    /// Whether the run is to end now: it is stopping and nothing runs.
    pub(super) fn stops_now(&self, calls_running: bool) -> bool {
        self.stopping && !calls_running
    }
}

impl<P: Protocol + ?Sized> Engine<P> {
    /// Sets the budget and who answers when a step would cross it.
    pub fn with_budget(mut self, limit: Budget, when_over: WhenOver) -> Self {
        self.spending.limit = limit;
        self.spending.when_over = when_over;
        self
    }

    /// A larger budget given to a resumed run (`quorum resume --budget`):
    /// journaled as a raise when the run picks up.
    pub fn with_budget_raised(mut self, raise: Budget) -> Self {
        self.spending.raised_on_resume = raise.is_set().then_some(raise);
        self
    }

    /// Journals and applies the raise given on resume, if any.
    pub(super) fn raise_on_resume(&mut self) -> Result<(), EngineError> {
        if let Some(limit) = self.spending.raised_on_resume.take() {
            let decision = BudgetDecision::Raise { limit };
            self.record_budget(BudgetEvent::Decided { decision })?;
            self.spending.limit = self.spending.limit.overridden_by(limit);
            self.publish(Update::BudgetDecided { decision });
        }
        Ok(())
    }

    /// The effects of `queue` to apply now: all of them, unless it starts
    /// calls that would take the debate over its budget; then none, and
    /// the step waits for a decision (or for the run to stop).
    pub(super) fn admit(&mut self, queue: Vec<Effect>) -> Result<Vec<Effect>, EngineError> {
        if let Some(held) = &mut self.spending.held {
            if queue
                .iter()
                .any(|effect| matches!(effect, Effect::Finished(_)))
            {
                // The debate ended without the held step (the answers still
                // running settled it): nothing is left to spend on.
                self.spending.held = None;
                self.spending.question = None;
                self.spending.stopping = false;
                return Ok(queue
                    .into_iter()
                    .filter(|effect| !matches!(effect, Effect::StartCall(_)))
                    .collect());
            }
            held.extend(queue);
            return Ok(Vec::new());
        }
        let planned: Vec<(String, String, usize)> = queue
            .iter()
            .filter_map(|effect| match effect {
                Effect::StartCall(spec) => Some((
                    spec.request.role.clone(),
                    spec.request.prompt.chars().count(),
                )),
                _ => None,
            })
            .filter_map(|(role, chars)| self.paid_agent(&role).map(|agent| (role, agent, chars)))
            .collect();
        if planned.is_empty() {
            return Ok(queue);
        }
        let checked = self.spending.limit.is_set() && !std::mem::take(&mut self.spending.once);
        let running: Vec<(String, String, usize)> = match checked {
            true => self
                .books
                .values()
                .filter_map(|book| {
                    self.paid_agent(&book.role)
                        .map(|agent| (book.role.clone(), agent, book.prompt_chars))
                })
                .collect(),
            false => Vec::new(),
        };
        let empty = UsageLedger::default();
        let ledger = self.protocol.usage().unwrap_or(&empty);
        let question = BudgetQuestion {
            limit: self.spending.limit,
            spent: Spend::of(ledger),
            running: Forecast::of(&planned_calls(&running), ledger).spend(),
            step: Forecast::of(&planned_calls(&planned), ledger),
            crossed: Vec::new(),
        };
        self.publish(Update::Forecast {
            step: question.step.clone(),
            limit: self.spending.limit,
        });
        let crossed = match checked {
            true => self.spending.limit.crossed_by(question.committed()),
            false => Vec::new(),
        };
        if crossed.is_empty() {
            return Ok(queue);
        }
        let question = BudgetQuestion {
            crossed,
            ..question
        };
        self.record_budget(BudgetEvent::Reached(question.clone()))?;
        tracing::info!(question = %question.describe(), "budget reached");
        self.spending.held = Some(queue);
        self.spending.question = Some(question.clone());
        self.spending.stopping = self.spending.when_over == WhenOver::Stop;
        self.publish(Update::BudgetReached(question));
        Ok(Vec::new())
    }

    /// Applies the person's decision about the held step; returns the
    /// effects released.
    pub(super) fn decide_budget(
        &mut self,
        decision: BudgetDecision,
    ) -> Result<Vec<Effect>, EngineError> {
        if self.spending.held.is_none() && !matches!(decision, BudgetDecision::Raise { .. }) {
            return Ok(Vec::new());
        }
        self.record_budget(BudgetEvent::Decided { decision })?;
        match decision {
            BudgetDecision::Raise { limit } => {
                self.spending.limit = self.spending.limit.overridden_by(limit);
                self.publish(Update::BudgetDecided { decision });
            }
            BudgetDecision::GoOnce => {
                self.spending.once = true;
                self.publish(Update::BudgetDecided { decision });
            }
            BudgetDecision::Stop => {
                self.spending.stopping = true;
                self.publish(Update::BudgetDecided { decision });
                return Ok(Vec::new());
            }
        }
        self.spending.question = None;
        Ok(self.spending.held.take().unwrap_or_default())
    }

    /// The run stops before the held step: journaled, and the error that
    /// says how to continue.
    pub(super) fn stop_for_budget(&mut self) -> EngineError {
        let question = self.spending.question.take();
        let limit = self.spending.limit;
        if let Err(error) = self.record_budget(BudgetEvent::Stopped { limit }) {
            return error;
        }
        EngineError::OverBudget(Box::new(question.unwrap_or(BudgetQuestion {
            limit,
            spent: Spend::default(),
            running: Spend::default(),
            step: Forecast::default(),
            crossed: Vec::new(),
        })))
    }

    fn record_budget(&mut self, event: BudgetEvent) -> Result<(), EngineError> {
        let now = self.now();
        self.records
            .record_durable(now, &JournalEvent::Budget { budget: event })
    }

    /// `provider:model` of the agent playing `role`, unless a person plays
    /// it (a typed answer costs nothing).
    fn paid_agent(&self, role: &str) -> Option<String> {
        let info = self.roster.get(role)?.agent.info();
        (info.provider != HUMAN_PROVIDER).then(|| info.to_string())
    }
}

fn planned_calls(calls: &[(String, String, usize)]) -> Vec<PlannedCall<'_>> {
    calls
        .iter()
        .map(|(role, agent, prompt_chars)| PlannedCall {
            role,
            agent,
            prompt_chars: *prompt_chars,
        })
        .collect()
}

/// The limit a recorded debate runs on: its first, then every raise, in
/// the journal's order.
pub fn recorded_limit<'a>(
    first: Budget,
    events: impl IntoIterator<Item = &'a JournalEvent>,
) -> Budget {
    events.into_iter().fold(first, |limit, event| match event {
        JournalEvent::Budget {
            budget:
                BudgetEvent::Decided {
                    decision: BudgetDecision::Raise { limit: raised },
                },
        } => limit.overridden_by(*raised),
        _ => limit,
    })
}
