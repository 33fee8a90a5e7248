//! Drives a protocol's pure state machine in tests: inputs one second
//! apart, the calls it starts, the moderation it opens, how it ends.

use chrono::{DateTime, TimeZone, Utc};
use quorum::protocol::{
    CallFailure, CallSpec, Effect, Input, ItemDecision, ModerationItem, Outcome, Protocol, Verdict,
};

pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap()
}

/// A debate seated with `agents` (slot → `provider:model`) at [`t0`],
/// with no prices, no live moderator and the setting of a debate from
/// before fair judging.
#[allow(dead_code)]
pub fn seated(agents: std::collections::BTreeMap<String, String>) -> quorum::protocol::Seating {
    quorum::protocol::Seating {
        agents,
        started_at: t0(),
        // Under the rules a new debate runs under.
        edition: quorum::protocol::Edition::CURRENT,
        ..Default::default()
    }
}

/// A protocol under test and what it asked for.
pub struct Harness<P: Protocol> {
    pub protocol: P,
    pub now: DateTime<Utc>,
    pub live: Vec<CallSpec>,
    pub started: Vec<CallSpec>,
    pub moderation: Option<Vec<ModerationItem>>,
    pub finished: Option<Outcome>,
}

impl<P: Protocol> Harness<P> {
    /// Starts `protocol` at [`t0`].
    pub fn start(mut protocol: P) -> Harness<P> {
        let effects = protocol.start(t0());
        let mut harness = Harness {
            protocol,
            now: t0(),
            live: Vec::new(),
            started: Vec::new(),
            moderation: None,
            finished: None,
        };
        harness.record(effects);
        harness
    }

    fn record(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            match effect {
                Effect::StartCall(spec) => {
                    self.live.push(spec.clone());
                    self.started.push(spec);
                }
                Effect::CancelCall { call_id } => {
                    self.live.retain(|spec| spec.request.call_id != call_id)
                }
                Effect::AwaitModeration { items } => self.moderation = Some(items),
                Effect::Finished(outcome) => self.finished = Some(outcome),
            }
        }
    }

    pub fn send(&mut self, input: Input) {
        self.now += chrono::Duration::seconds(1);
        if let Input::CallFinished { call_id, .. } | Input::CallFailed { call_id, .. } = &input {
            self.live.retain(|spec| &spec.request.call_id != call_id);
        }
        let effects = self.protocol.handle(&input, self.now);
        self.record(effects);
    }

    /// The live call whose id starts with `prefix` (`critic/challenge/r2`).
    pub fn call(&self, prefix: &str) -> CallSpec {
        self.live
            .iter()
            .find(|spec| spec.request.call_id.starts_with(prefix))
            .unwrap_or_else(|| {
                let live: Vec<_> = self.live.iter().map(|s| &s.request.call_id).collect();
                panic!("no live call {prefix}; live: {live:?}")
            })
            .clone()
    }

    pub fn is_live(&self, prefix: &str) -> bool {
        self.live
            .iter()
            .any(|spec| spec.request.call_id.starts_with(prefix))
    }

    pub fn was_started(&self, prefix: &str) -> bool {
        self.started
            .iter()
            .any(|spec| spec.request.call_id.starts_with(prefix))
    }

    /// The prompt of the call that started first with `prefix`.
    pub fn prompt_of(&self, prefix: &str) -> String {
        self.started
            .iter()
            .find(|spec| spec.request.call_id.starts_with(prefix))
            .unwrap_or_else(|| panic!("no call {prefix} was started"))
            .request
            .prompt
            .clone()
    }

    pub fn answer(&mut self, prefix: &str, text: &str) {
        let call_id = self.call(prefix).request.call_id;
        self.send(Input::CallFinished {
            call_id,
            output: text.to_string(),
            usage: None,
            usage_estimated: false,
            ttft_ms: None,
            elapsed_ms: 900,
        });
    }

    /// Times the call out twice: its slot is given up.
    pub fn time_out(&mut self, prefix: &str) {
        for _ in 0..2 {
            let call_id = self.call(prefix).request.call_id;
            self.send(Input::CallFailed {
                call_id,
                failure: CallFailure::TimedOut {
                    after_ms: 600_000,
                    staged: false,
                },
                partial_chars: 0,
                elapsed_ms: 600_000,
            });
        }
    }

    /// Decides the open moderation: the listed items as given, every other
    /// one accepted; then submits.
    pub fn moderate(&mut self, decisions: &[(&str, ItemDecision, Option<&str>)]) {
        let items = self.moderation.take().expect("a moderation is open");
        for item in items {
            let (decision, note) = decisions
                .iter()
                .find(|(id, _, _)| *id == item.id)
                .map(|(_, decision, note)| (*decision, note.map(str::to_string)))
                .unwrap_or((ItemDecision::Accept, None));
            self.send(Input::ItemDecided {
                item_id: item.id,
                decision,
                note,
                ruler: None,
            });
        }
        self.send(Input::ModerationSubmitted);
    }

    pub fn accept_all(&mut self) {
        self.moderate(&[]);
    }

    pub fn verdict(&self) -> Verdict {
        match self.finished.as_ref().expect("finished") {
            Outcome::Decided { verdict, .. } => *verdict,
            other => panic!("no verdict: {other:?}"),
        }
    }

    /// `path` as the protocol has it: a document, or an answer it keeps
    /// otherwise (marked).
    pub fn document(&self, path: &str) -> String {
        let kept = self.protocol.answer_files();
        self.protocol
            .documents()
            .into_iter()
            .find(|document| document.path == path)
            .map(|document| document.contents)
            .or_else(|| {
                kept.into_iter()
                    .find(|file| file.path == path)
                    .map(|file| file.for_disk().into_owned())
            })
            .unwrap_or_else(|| panic!("no {path}"))
    }

    pub fn log_text(&self) -> String {
        self.protocol
            .log()
            .iter()
            .map(|entry| entry.message.clone())
            .collect::<Vec<_>>()
            .join("\n")
    }
}
