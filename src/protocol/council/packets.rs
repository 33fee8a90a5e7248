//! The packetized exchange (FP-49..FP-51, A24): every prompt a council
//! sends carries a `CouncilTaskPacket`, and every message (a prompt, a
//! published inventory, a delivered challenge, an answer, the synthesis,
//! the final summary) travels in an `ExchangeEnvelope`. quorum is the
//! coordinator: every exchange is coordinator-mediated.
//!
//! Packets and envelopes are issued once and never changed: the record
//! only grows, and it is derived from the journal, so a resumed council
//! issues the same ones with the same ids. They are written, one JSON
//! object per line, to `packets.jsonl`.

use serde_json::{Value, json};

use super::CouncilConfig;
use super::model::{Challenge, MergeCandidate};

/// Every packet and envelope says this.
pub const SCHEMA_VERSION: &str = "1.0";

/// What a packet asks for (FP-49).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    Discovery,
    Challenge,
    Reconciliation,
    FinalPosition,
}

impl PacketKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PacketKind::Discovery => "discovery",
            PacketKind::Challenge => "challenge",
            PacketKind::Reconciliation => "reconciliation",
            PacketKind::FinalPosition => "final-position",
        }
    }
}

/// The council's packets and envelopes, in the order they were issued.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Exchange {
    session: String,
    records: Vec<Value>,
    packets: usize,
    messages: usize,
}

const COORDINATOR: &str = "coordinator";

impl Exchange {
    pub fn new(config: &CouncilConfig) -> Self {
        Exchange {
            session: config.review_id.clone(),
            ..Exchange::default()
        }
    }

    /// Everything issued so far, oldest first.
    pub fn records(&self) -> &[Value] {
        &self.records
    }

    /// `packets.jsonl`: one record per line.
    pub fn jsonl(&self) -> String {
        let mut out = String::new();
        for record in &self.records {
            out.push_str(&serde_json::to_string(record).unwrap_or_default());
            out.push('\n');
        }
        out
    }

    fn envelope(
        &mut self,
        round: u32,
        from: &str,
        to: &str,
        kind: &str,
        references: Value,
        payload: Value,
    ) {
        self.messages += 1;
        self.records.push(json!({
            "packet_type": "exchange_envelope",
            "schema_version": SCHEMA_VERSION,
            "message_id": format!("MSG{:03}", self.messages),
            "session_id": self.session,
            "round": round,
            "exchange_mode": "coordinator-mediated",
            "from": {"participant_id": from, "council_id": "root"},
            "to": {"participant_id": to, "council_id": "root"},
            "message_kind": kind,
            "references": references,
            "payload": payload,
            "delivery": {"transport": "cli-prompt"},
        }));
    }

    /// Issues the packet of a prompt to `role` and the envelope that
    /// carries it; returns the packet, which goes into the prompt. Round 1
    /// of discovery is minimal and non-leading: scope, objective,
    /// constraints and the output contract, and no one's findings (FP-18).
    #[allow(clippy::too_many_arguments)]
    pub fn packet(
        &mut self,
        config: &CouncilConfig,
        kind: PacketKind,
        role: &str,
        round: u32,
        findings: &[String],
        proposals: &[String],
        artifact: &str,
    ) -> Value {
        self.packets += 1;
        let id = format!("PKT{:03}", self.packets);
        let discovery = kind == PacketKind::Discovery;
        let objective = match kind {
            PacketKind::Discovery if config.mode.proposes() => {
                "propose approaches independently, with their tradeoffs and risks"
            }
            PacketKind::Discovery => {
                "find what is wrong, weaker than it looks, or missing, with evidence"
            }
            PacketKind::Challenge => "challenge or answer challenges of the published inventory",
            PacketKind::Reconciliation => "improve, combine or reconcile the published inventory",
            PacketKind::FinalPosition => "give a final position on every item of the inventory",
        };
        let packet = json!({
            "packet_type": kind.as_str(),
            "schema_version": SCHEMA_VERSION,
            "packet_id": id,
            "review_id": config.review_id,
            "mode": config.mode.as_str(),
            "artifact": {"scope": config.topic},
            "objective": objective,
            "domains": config.domains,
            "constraints": {
                "mutation": "forbidden",
                "evidence_required": true,
                "independent_discovery": discovery,
                "avoid_leading_context": discovery,
            },
            "context": {
                "minimal_background": config.context_summary,
                "known_claims": [],
                "prior_findings": if discovery { Vec::new() } else { findings.to_vec() },
                "prior_proposals": if discovery { Vec::new() } else { proposals.to_vec() },
            },
            "output_contract": {
                "format": "json",
                "proposal_schema": "proposal-v1",
                "finding_schema": "finding-v1",
            },
        });
        self.records.push(packet.clone());
        self.envelope(
            round,
            COORDINATOR,
            role,
            "prompt",
            json!({"packet_ids": [id], "proposal_ids": [], "finding_ids": [], "artifact_ids": [artifact]}),
            json!({"packet_id": id}),
        );
        packet
    }

    /// An answer came back from `role` and was kept in `file`.
    pub fn response(&mut self, role: &str, round: u32, file: &str, call_id: &str) {
        self.envelope(
            round,
            role,
            COORDINATOR,
            "response",
            json!({"packet_ids": [], "proposal_ids": [], "finding_ids": [], "artifact_ids": [file]}),
            json!({"call_id": call_id}),
        );
    }

    /// The inventory went to every participant (FP-21).
    pub fn broadcast(&mut self, participants: &[String], ids: &[String], kind: &str) {
        let (findings, proposals): (Vec<&String>, Vec<&String>) =
            ids.iter().partition(|id| id.starts_with('F'));
        for participant in participants {
            self.envelope(
                0,
                COORDINATOR,
                participant,
                kind,
                json!({"packet_ids": [], "proposal_ids": proposals, "finding_ids": findings, "artifact_ids": []}),
                json!({"published": ids.len()}),
            );
        }
    }

    /// A challenge was delivered to its target alone (FP-25, FP-26).
    pub fn challenge(&mut self, challenge: &Challenge, round: u32) {
        self.envelope(
            round,
            &challenge.from,
            &challenge.to,
            "challenge",
            json!({"packet_ids": [], "proposal_ids": [], "finding_ids": [challenge.finding_id], "artifact_ids": []}),
            json!({
                "type": "challenge",
                "id": challenge.id,
                "from": challenge.from,
                "to": challenge.to,
                "finding_id": challenge.finding_id,
                "challenge": challenge.challenge,
                "severity_challenge": challenge.severity_challenge,
            }),
        );
    }

    /// Phase 4's merge proposals went to the participants.
    pub fn synthesis(&mut self, participants: &[String], merges: &[MergeCandidate]) {
        let ids: Vec<&String> = merges.iter().flat_map(|m| m.findings.iter()).collect();
        for participant in participants {
            self.envelope(
                0,
                COORDINATOR,
                participant,
                "synthesis",
                json!({"packet_ids": [], "proposal_ids": [], "finding_ids": ids, "artifact_ids": []}),
                json!({"merges_proposed": merges.len()}),
            );
        }
    }

    /// The result went out.
    pub fn final_summary(&mut self, participants: &[String]) {
        for participant in participants {
            self.envelope(
                0,
                COORDINATOR,
                participant,
                "final_summary",
                json!({"packet_ids": [], "proposal_ids": [], "finding_ids": [], "artifact_ids": ["summary.md"]}),
                json!({}),
            );
        }
    }
}
