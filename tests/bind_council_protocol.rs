//! The moderator's rulings bind the council's acting agents (issue 26),
//! checked on the pure state machine: the prompts of the final positions
//! and of the responses carry the standard rulings section; an answer that
//! rests on a dropped challenge, or leaves a delivered one unanswered, is
//! asked about once more naming the discrepancy; what still disagrees is
//! logged and stated in the deliverable.

use crate::support;

use std::sync::Arc;

use quorum::prompts::PromptSet;
use quorum::protocol::ItemDecision;
use quorum::protocol::council::model::{
    CHECKER, ChallengeState, CouncilMode, DEVIL, Intensity, Preset,
};
use quorum::protocol::council::{Council, CouncilConfig};
use serde_json::{Value, json};

type Harness = support::harness::Harness<Council>;

fn council() -> Harness {
    Harness::start(Council::new(config(), Arc::new(PromptSet::builtin())))
}

fn config() -> CouncilConfig {
    let mut config = CouncilConfig {
        topic: "The payment webhook handler".into(),
        context: Vec::new(),
        review_id: "r-bind".into(),
        mode: CouncilMode::Review,
        domains: vec!["security".into(), "performance".into()],
        intensity: Intensity::Standard,
        preset: Preset::Default,
        fallback: false,
        context_summary: "Review the handler that credits balances.".into(),
        context_policy: "minimal-non-leading".into(),
        task_context: None,
        outputs: "/tmp/quorum-bind-council-tests/.outputs".into(),
        seating: support::harness::seated(Default::default()),
        binds_rulings: true,
        stability: Default::default(),
    };
    for slot in config.participants() {
        config.seating.agents.insert(slot, "script:scripted".into());
    }
    config
}

fn block(value: Value) -> String {
    format!("```json\n{value}\n```\n")
}

fn findings(participant: &str, list: &[(&str, &str)]) -> String {
    let list: Vec<Value> = list
        .iter()
        .map(|(severity, title)| {
            json!({"severity": severity, "title": title, "description": format!("{title}, in detail."),
                   "evidence": "line 14", "recommendation": "fix it", "domains": []})
        })
        .collect();
    block(json!({"participant": participant, "phase": 1, "findings": list}))
}

fn position(participant: &str, stances: &[(&str, &str, &str)], summary: &str) -> String {
    block(json!({
        "participant": participant,
        "positions": stances.iter().map(|(id, stance, note)| json!({"id": id, "stance": stance, "note": note})).collect::<Vec<_>>(),
        "merges": [],
        "summary": summary,
    }))
}

/// Phase 1 and round 1 up to the moderation: security brings F001 (HIGH),
/// performance F002 (HIGH); the devil's advocate challenges both, C1 on
/// F001 and C2 on F002.
fn challenged() -> Harness {
    challenged_in(council())
}

fn challenged_in(mut h: Harness) -> Harness {
    h.answer(
        "expert.security/independent/r0",
        &findings(
            "expert.security",
            &[("HIGH", "Timing attack on the signature")],
        ),
    );
    h.answer(
        "expert.performance/independent/r0",
        &findings(
            "expert.performance",
            &[("HIGH", "Ledger call in the request")],
        ),
    );
    h.answer(
        "integration-checker/independent/r0",
        &findings(CHECKER, &[]),
    );
    h.answer("devil-advocate/independent/r0", &findings(DEVIL, &[]));
    let challenge = |to: &str, id: &str| {
        json!({"type": "challenge", "from": DEVIL, "to": to, "finding_id": id,
               "basis": "missing-assumption", "challenge": format!("{id} assumes what the code does not do."),
               "severity_challenge": ""})
    };
    h.answer(
        "devil-advocate/challenge/r1",
        &block(json!({"challenges": [challenge("expert.security", "F001"), challenge("expert.performance", "F002")], "discoveries": []})),
    );
    h
}

fn defense(id: &str) -> String {
    block(
        json!({"responses": [{"type": "defense", "finding_id": id, "response": "It holds.", "evidence": "trace 7f3a"}]}),
    )
}

/// C1 dropped with a note, C2 delivered and defended; round 2 raises
/// nothing: the final positions are asked for.
fn at_the_final_positions() -> Harness {
    let mut h = challenged();
    h.moderate(&[(
        "C1",
        ItemDecision::Reject,
        Some("line 14 already compares in constant time"),
    )]);
    h.answer("expert.performance/responses/r1", &defense("F002"));
    // Asked without a challenge of their own (FP-23): nothing to add.
    let nothing = block(json!({"responses": []}));
    h.answer("expert.security/responses/r1", &nothing);
    h.answer("integration-checker/responses/r1", &nothing);
    h.answer(
        "devil-advocate/challenge/r2",
        &block(json!({"challenges": [], "discoveries": []})),
    );
    h
}

/// Issue 26: the final position's prompt carries the standard rulings
/// section (C1 rejected with the moderator's note, C2 accepted) and says
/// what each is about; a position whose note rests on the dropped C1 is
/// asked about once more naming it, and one that still does is logged and
/// stated in the deliverable, near the top, never as done.
#[test]
fn issue_26_a_final_position_resting_on_a_dropped_challenge_is_asked_again_then_stated() {
    let mut h = at_the_final_positions();
    let prompt = h.prompt_of("devil-advocate/final/");
    assert!(
        prompt.contains(
            "- C1: rejected — do not act on it. Moderator's note: line 14 already compares in constant time\n"
        ),
        "{prompt}"
    );
    assert!(prompt.contains("- C2: accepted — address it\n"), "{prompt}");
    assert!(prompt.contains("\"about\": \"F001\""), "{prompt}");
    let resting = position(
        DEVIL,
        &[(
            "F001",
            "dispute",
            "As C1 showed, the comparison is constant-time.",
        )],
        "Only F002 holds.",
    );
    h.answer("devil-advocate/final/", &resting);
    let again = h.call("devil-advocate/final/");
    assert!(
        again.request.call_id.ends_with("/a2"),
        "{}",
        again.request.call_id
    );
    assert!(
        again.request.prompt.contains(
            "- your dispute of F001 rests on C1, a challenge of F001 the moderator dropped (the moderator's note: line 14 already compares in constant time): nothing may rest on it"
        ),
        "{}",
        again.request.prompt
    );
    for role in ["expert.security", "expert.performance", CHECKER] {
        h.answer(&format!("{role}/final/"), &position(role, &[], "Fine."));
    }
    assert!(
        h.finished.is_none(),
        "the devil's advocate is asked again first"
    );
    h.answer("devil-advocate/final/", &resting);
    assert!(h.finished.is_some());
    assert_eq!(
        h.protocol.against_rulings(),
        [
            "devil-advocate: your dispute of F001 rests on C1, a challenge of F001 the moderator dropped (the moderator's note: line 14 already compares in constant time): nothing may rest on it"
        ]
    );
    assert!(
        h.log_text()
            .contains("still against the moderator's rulings after asking again: devil-advocate: your dispute of F001 rests on C1"),
        "{}",
        h.log_text()
    );
    let summary = h.document("summary.md");
    let lead = summary.lines().nth(2).unwrap();
    assert!(
        lead.ends_with("Some answers still go against the moderator's rulings, so read this with the list below in mind."),
        "{summary}"
    );
    assert!(
        summary.contains("## Against the moderator's rulings"),
        "{summary}"
    );
    assert!(
        summary.contains("## Challenges the moderator set aside\n\n- C1 on F001"),
        "{summary}"
    );
    let record: Value = serde_json::from_str(&h.document("council.json")).unwrap();
    assert_eq!(record["against_rulings"].as_array().unwrap().len(), 1);
    assert_eq!(record["rulings"][0]["ruling"], "dropped");
}

/// Issue 26: a position that, asked again, no longer rests on the dropped
/// challenge leaves nothing against the rulings.
#[test]
fn issue_26_a_final_position_that_follows_the_rulings_when_asked_again_is_clean() {
    let mut h = at_the_final_positions();
    h.answer(
        "devil-advocate/final/",
        &position(DEVIL, &[("F001", "dispute", "C1 settles it.")], "."),
    );
    h.answer(
        "devil-advocate/final/",
        &position(DEVIL, &[("F001", "abstain", "Set aside; no view.")], "."),
    );
    for role in ["expert.security", "expert.performance", CHECKER] {
        h.answer(&format!("{role}/final/"), &position(role, &[], "Fine."));
    }
    assert!(h.finished.is_some());
    assert!(h.protocol.against_rulings().is_empty());
    assert!(
        !h.document("summary.md")
            .contains("## Against the moderator's rulings")
    );
}

/// Issue 26: the responses' prompt carries the ruling that put each
/// challenge there; an answer that leaves a delivered challenge without a
/// response is asked about once more, naming it; still unanswered, it is
/// stated in the deliverable and the challenge stays unanswered.
#[test]
fn issue_26_a_delivered_challenge_left_unanswered_is_asked_about_once() {
    let mut h = challenged();
    h.accept_all();
    let prompt = h.prompt_of("expert.security/responses/r1");
    assert!(prompt.contains("- C1: accepted — address it\n"), "{prompt}");
    assert!(
        !prompt.contains("- C2:"),
        "a challenge goes to its target only: {prompt}"
    );
    let off_topic = block(
        json!({"responses": [{"type": "corroboration", "finding_id": "F002", "response": "Seen it too."}]}),
    );
    h.answer("expert.security/responses/r1", &off_topic);
    let again = h.call("expert.security/responses/r1");
    assert!(again.request.call_id.ends_with("/a2"));
    assert!(
        again.request.prompt.contains(
            "- C1 (on F001) was delivered to you and your answer gives no response about F001"
        ),
        "{}",
        again.request.prompt
    );
    h.answer("expert.security/responses/r1", &off_topic);
    h.answer("expert.performance/responses/r1", &defense("F002"));
    let c1 = h
        .protocol
        .challenges()
        .iter()
        .find(|c| c.id == "C1")
        .unwrap();
    assert_eq!(c1.state, ChallengeState::Unanswered);
    assert_eq!(
        h.protocol.against_rulings(),
        [
            "expert.security: C1 (on F001) was delivered to you and your answer gives no response about F001"
        ]
    );
    // Answered the second time: nothing left over.
    let mut h = challenged();
    h.accept_all();
    h.answer("expert.security/responses/r1", &off_topic);
    h.answer("expert.security/responses/r1", &defense("F001"));
    let c1 = h
        .protocol
        .challenges()
        .iter()
        .find(|c| c.id == "C1")
        .unwrap();
    assert_eq!(c1.state, ChallengeState::Answered);
    assert!(h.protocol.against_rulings().is_empty());
}

/// FP-23, FP-27 (issue 26): once a challenge is delivered in a round,
/// every other participant but the devil's advocate is asked too, with no
/// challenge of its own; its corroboration counts for the finding, its
/// cross-challenge goes to the moderator in the next round, and its
/// discovery gets the next id. Its prompt shows no challenge and no ruling.
#[test]
fn fp_23_fp_27_participants_other_than_the_target_may_corroborate_cross_challenge_and_discover() {
    let mut h = challenged();
    h.moderate(&[("C2", ItemDecision::Reject, None)]);
    // C1 went to security; performance and the checker are asked anyway.
    for role in ["expert.performance", CHECKER] {
        let prompt = h.prompt_of(&format!("{role}/responses/r1"));
        assert!(
            prompt.contains("This round's challenges went to other participants"),
            "{prompt}"
        );
        assert!(!prompt.contains("## The challenges put to you"), "{prompt}");
        assert!(!prompt.contains("## The moderator's rulings"), "{prompt}");
        assert!(
            !prompt.contains("F002 assumes"),
            "a dropped challenge stays unseen"
        );
    }
    assert!(!h.was_started("devil-advocate/responses"));
    h.answer("expert.security/responses/r1", &defense("F001"));
    h.answer(
        "expert.performance/responses/r1",
        &block(json!({"responses": [
            {"type": "corroboration", "finding_id": "F001", "response": "Our load tests saw the timing spread too."},
            {"type": "discovery", "response": "Seen while profiling.", "finding": {"severity": "MEDIUM", "title": "No request timeout", "description": "The handler sets no timeout on the ledger call.", "evidence": "line 18", "recommendation": "Set one.", "domains": ["performance"]}}
        ]})),
    );
    h.answer(
        "integration-checker/responses/r1",
        &block(json!({"responses": [
            {"type": "cross-challenge", "finding_id": "F001", "challenge": "hmac.Equal on line 14 compares in constant time."}
        ]})),
    );
    let responses = h.protocol.responses();
    assert!(responses.iter().any(|r| r.by == "expert.performance"
        && r.kind.as_str() == "corroboration"
        && r.finding_id == "F001"));
    let discovered = h
        .protocol
        .finding("F003")
        .expect("the discovery takes the next id");
    assert!(discovered.discovered);
    assert_eq!(discovered.origins, ["expert.performance"]);
    let cross = h
        .protocol
        .challenges()
        .iter()
        .find(|c| c.from == CHECKER)
        .expect("the cross-challenge is raised");
    assert_eq!(
        (cross.finding_id.as_str(), cross.to.as_str()),
        ("F001", "expert.security")
    );
    assert_eq!(cross.state, ChallengeState::Proposed);
    assert_eq!(cross.round, 2, "it goes to the moderator in round 2");
    assert!(h.is_live("devil-advocate/challenge/r2"));
}

/// FP-23: a round that delivers no challenge asks nobody but the devil's
/// advocate.
#[test]
fn fp_23_a_round_that_delivers_nothing_asks_no_other_participant() {
    let mut h = challenged();
    h.moderate(&[
        ("C1", ItemDecision::Reject, None),
        ("C2", ItemDecision::Defer, None),
    ]);
    for role in ["expert.security", "expert.performance", CHECKER] {
        assert!(!h.was_started(&format!("{role}/responses")), "{role}");
    }
    assert!(h.is_live("devil-advocate/challenge/r2"));
}

/// Issue 26: an agent's pane shows the board's ids once findings are
/// numbered. Phase 1 asks each participant to number its own findings
/// with a prefix of its own (`security-1`), never with F-numbers, and at
/// publication quorum says which board id each became.
#[test]
fn issue_26_phase_1_ids_are_the_participants_own_and_publication_names_their_board_ids() {
    let mut h = council();
    let prompt = h.prompt_of("expert.security/independent/r0");
    assert!(prompt.contains("\"id\": \"security-1\""), "{prompt}");
    assert!(!prompt.contains("\"id\": \"F001\""), "{prompt}");
    assert!(
        h.prompt_of("integration-checker/independent/r0")
            .contains("\"id\": \"checker-1\"")
    );
    let with_ids = |participant: &str, ids: &[&str]| {
        let list: Vec<Value> = ids
            .iter()
            .map(|id| {
                json!({"id": id, "severity": "MEDIUM", "title": format!("Finding {id}"),
                       "description": format!("What {id} is."), "evidence": "line 1",
                       "recommendation": "fix", "domains": []})
            })
            .collect();
        block(json!({"participant": participant, "phase": 1, "findings": list}))
    };
    h.answer(
        "expert.security/independent/r0",
        &with_ids("expert.security", &["security-1", "security-2"]),
    );
    h.answer(
        "expert.performance/independent/r0",
        &with_ids("expert.performance", &["F001"]),
    );
    h.answer(
        "integration-checker/independent/r0",
        &findings(CHECKER, &[]),
    );
    h.answer("devil-advocate/independent/r0", &findings(DEVIL, &[]));
    assert!(
        h.log_text().contains(
            "board ids given to what each participant numbered itself: expert.security: security-1 → F001, security-2 → F002; expert.performance: F001 → F003"
        ),
        "{}",
        h.log_text()
    );
    // Every later prompt carries the board's ids.
    let devil = h.prompt_of("devil-advocate/challenge/r1");
    assert!(devil.contains("\"id\": \"F003\""), "{devil}");
}

/// Issue 26: a council journaled before its answers were held to the
/// rulings (no `binds_rulings` in the definition it starts from) folds as
/// it ran: no participant but a challenge's target is asked in a round,
/// and an answer that leaves a delivered challenge unanswered is kept as
/// it was, not asked about again.
#[test]
fn issue_26_a_council_journaled_before_the_rulings_bound_it_folds_as_it_ran() {
    let mut written = serde_json::to_value(config()).unwrap();
    written.as_object_mut().unwrap().remove("binds_rulings");
    let legacy: CouncilConfig = serde_json::from_value(written).unwrap();
    assert!(!legacy.binds_rulings);
    let mut h = challenged_in(Harness::start(Council::new(
        legacy,
        Arc::new(PromptSet::builtin()),
    )));
    h.moderate(&[("C2", ItemDecision::Reject, None)]);
    assert!(!h.was_started("expert.performance/responses"));
    assert!(!h.was_started("integration-checker/responses"));
    h.answer(
        "expert.security/responses/r1",
        &block(json!({"responses": []})),
    );
    assert!(
        !h.is_live("expert.security/responses/r1"),
        "not asked again"
    );
    assert!(h.is_live("devil-advocate/challenge/r2"));
    assert!(h.protocol.against_rulings().is_empty());
}
