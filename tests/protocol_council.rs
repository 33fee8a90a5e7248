//! The five-phase council's rules (RULES.md section 10, FP-01..FP-55,
//! A20-A24), checked against the pure state machine: inputs in, effects
//! and documents out, no I/O, no clock, no tokio. Each test names the rules
//! it checks.

use crate::support;

use std::sync::Arc;

use quorum::prompts::PromptSet;
use quorum::protocol::Questions;
use quorum::protocol::council::model::{
    CHECKER, ChallengeState, CouncilMode, DEVIL, FindingState, Intensity, Preset, ProposalStatus,
    Severity,
};
use quorum::protocol::council::verdict;
use quorum::protocol::council::verdict::similarity::{MERGE_OVERLAP, overlap};
use quorum::protocol::council::{Council, CouncilConfig, Step};
use quorum::protocol::fairness::{Fairness, Family, Recusal};
use quorum::protocol::payoff::Preceded;
use quorum::protocol::{ContextDoc, ItemDecision, Outcome, Protocol, Verdict};
use serde_json::{Value, json};
use support::harness::t0;

const SCOPE: &str = "The payment webhook handler";
const MATERIAL: &str = "UNIQUE-MATERIAL-LINE: hmac.Equal on line 14";

type Harness = support::harness::Harness<Council>;

fn config(
    domains: &[&str],
    intensity: Intensity,
    preset: Preset,
    mode: CouncilMode,
) -> CouncilConfig {
    let mut config = CouncilConfig {
        topic: SCOPE.into(),
        context: vec![ContextDoc {
            name: "webhooks.go".into(),
            text: MATERIAL.into(),
        }],
        review_id: "r-test".into(),
        mode,
        domains: domains.iter().map(|d| d.to_string()).collect(),
        intensity,
        preset,
        fallback: false,
        context_summary: "Review the handler that credits balances.".into(),
        context_policy: "minimal-non-leading".into(),
        task_context: None,
        outputs: "/tmp/quorum-council-tests/.outputs".into(),
        seating: support::harness::seated(Default::default()),
        binds_rulings: true,
        stability: Default::default(),
    };
    for slot in config.participants() {
        config.seating.agents.insert(slot, "script:scripted".into());
    }
    config
}

fn harness(config: CouncilConfig) -> Harness {
    Harness::start(Council::new(config, Arc::new(PromptSet::builtin())))
}

fn standard() -> Harness {
    harness(config(
        &["security", "performance"],
        Intensity::Standard,
        Preset::Default,
        CouncilMode::Review,
    ))
}

/// A finding as a participant writes it.
fn finding(severity: &str, title: &str, description: &str, domains: &[&str]) -> Value {
    json!({
        "id": "F001",
        "severity": severity,
        "title": title,
        "description": description,
        "evidence": "line 14",
        "recommendation": "fix it",
        "domains": domains,
    })
}

fn findings(participant: &str, list: &[Value]) -> String {
    format!(
        "```json\n{}\n```\n",
        json!({"participant": participant, "phase": 1, "findings": list})
    )
}

fn json_block(value: Value) -> String {
    format!("```json\n{value}\n```\n")
}

fn challenge(to: &str, finding: &str, text: &str, severity: &str) -> Value {
    json!({
        "type": "challenge", "from": DEVIL, "to": to, "finding_id": finding,
        "basis": "missing-assumption", "challenge": text, "severity_challenge": severity,
    })
}

fn devil(challenges: &[Value]) -> String {
    json_block(json!({"challenges": challenges, "discoveries": []}))
}

fn responses(list: &[Value]) -> String {
    json_block(json!({"responses": list}))
}

fn position(participant: &str, stances: &[(&str, &str)], merges: &[(&str, &str)]) -> String {
    json_block(json!({
        "participant": participant,
        "positions": stances.iter().map(|(id, stance)| json!({"id": id, "stance": stance, "note": "because"})).collect::<Vec<_>>(),
        "merges": merges.iter().map(|(a, b)| json!({"findings": [a, b], "agree": true})).collect::<Vec<_>>(),
        "summary": "done",
    }))
}

/// Phase 1 of [`standard`]: security brings a HIGH (F001) and a MEDIUM
/// (F002), performance a HIGH (F003), the checker a LOW (F004), the
/// devil's advocate nothing.
fn published() -> Harness {
    published_from(standard())
}

/// `h` with the independent phase answered as [`published`] answers it.
fn published_from(mut h: Harness) -> Harness {
    h.answer(
        "expert.security/independent/r0",
        &findings(
            "expert.security",
            &[
                finding(
                    "HIGH",
                    "Timing attack",
                    "The signature comparison leaks timing.",
                    &["security"],
                ),
                finding(
                    "MEDIUM",
                    "Replays accepted",
                    "Old deliveries are processed again.",
                    &["security"],
                ),
            ],
        ),
    );
    h.answer(
        "expert.performance/independent/r0",
        &findings(
            "expert.performance",
            &[finding(
                "HIGH",
                "Slow ledger call",
                "The ledger call blocks the answer.",
                &[],
            )],
        ),
    );
    h.answer(
        "integration-checker/independent/r0",
        &findings(
            CHECKER,
            &[finding(
                "LOW",
                "Shared pool",
                "Retries hold checkout connections.",
                &["reliability"],
            )],
        ),
    );
    h.answer("devil-advocate/independent/r0", &findings(DEVIL, &[]));
    h
}

/// [`published`], then the devil's advocate challenges the severities of
/// F001 and F003, both delivered, and F001's origin accepts MEDIUM.
fn severities_challenged() -> Harness {
    let mut h = published();
    h.answer(
        "devil-advocate/challenge/r1",
        &devil(&[
            challenge(
                "expert.security",
                "F001",
                "constant-time",
                "MEDIUM not HIGH because it needs local access",
            ),
            challenge(
                "expert.performance",
                "F003",
                "fast",
                "LOW not HIGH because cached",
            ),
        ]),
    );
    h.accept_all();
    h.answer(
        "expert.security/responses/r1",
        &responses(&[json!({"type": "defense", "finding_id": "F001", "response": "yes, local only", "accept_severity": true})]),
    );
    h
}

/// Every present participant gives `stances` (the same for all) and the
/// council ends.
fn finish_with(h: &mut Harness, stances: &[(&str, &str)]) {
    for role in h.protocol.present() {
        let prefix = format!("{role}/final/");
        if h.is_live(&prefix) {
            h.answer(&prefix, &position(&role, stances, &[]));
        }
    }
}

fn outcome_state(h: &Harness, id: &str) -> FindingState {
    h.protocol
        .assessment()
        .expect("assessed")
        .outcome(id)
        .unwrap_or_else(|| panic!("no outcome for {id}"))
        .state
}

// ---- input and parameters -----------------------------------------------------

/// FP-01, FP-02, FP-03, FP-04, FP-05: a council configured with nothing but
/// a scope reviews (`review`) at `standard` intensity under the
/// minimal-non-leading policy, with a generated UUID as its review id, and
/// records every input field in its definition.
#[test]
fn fp_01_02_03_04_05_defaults_and_input_fields() {
    use quorum::protocol::kind::{Configure, ProtocolKind, Setting};
    let configured = quorum::protocol::council::KIND
        .configure(&Configure::default())
        .unwrap();
    let definition = configured.define(Setting {
        topic: SCOPE.into(),
        seating: support::harness::seated(Default::default()),
        ..Setting::default()
    });
    let config: CouncilConfig = definition.config().unwrap();
    assert_eq!(config.mode, CouncilMode::Review);
    assert_eq!(config.intensity, Intensity::Standard);
    assert_eq!(config.context_policy, "minimal-non-leading");
    assert_eq!(
        config.context_summary, SCOPE,
        "the task defaults to the scope"
    );
    let id = &config.review_id;
    assert_eq!(id.len(), 36, "{id}");
    assert_eq!(id.matches('-').count(), 4, "{id}");
    assert_eq!(&id[14..15], "4", "a version-4 UUID: {id}");
    let fields: Value = serde_json::to_value(&definition).unwrap();
    for field in [
        "review_id",
        "topic",
        "mode",
        "domains",
        "intensity",
        "context_summary",
        "context_policy",
    ] {
        assert!(fields.get(field).is_some(), "{field} is recorded");
    }
    for mode in [
        "review",
        "audit",
        "brainstorm",
        "design",
        "research",
        "synthesis",
    ] {
        assert!(CouncilMode::parse(mode).is_some(), "{mode}");
    }
    assert!(CouncilMode::parse("architecture").is_none());
}

/// FP-01, FP-05 (issue 60): `context_policy` is an input like the others:
/// `--context-policy minimal-non-leading` is taken and recorded, and any
/// other policy is refused naming the flag and why (the first round of
/// every council mode is discovery or diverging, which must be minimal and
/// non-leading).
#[test]
fn fp_01_fp_05_the_context_policy_can_be_set_and_only_to_what_round_one_allows() {
    use quorum::protocol::kind::{Configure, FlagValue, ProtocolKind, Setting};
    let configure = |policy: &str| {
        let flags = [FlagValue::new(
            "--context-policy",
            "context_policy",
            yaml_serde::Value::String(policy.into()),
        )];
        quorum::protocol::council::KIND
            .configure(&Configure {
                flags: &flags,
                ..Configure::default()
            })
            .map(|configured| {
                let definition = configured.define(Setting {
                    topic: SCOPE.into(),
                    seating: support::harness::seated(Default::default()),
                    ..Setting::default()
                });
                definition.config::<CouncilConfig>().unwrap()
            })
    };
    let config = configure("minimal-non-leading").expect("taken");
    assert_eq!(config.context_policy, "minimal-non-leading");
    let refused = configure("full-context").unwrap_err().to_string();
    assert!(refused.contains("--context-policy"), "{refused}");
    assert!(
        refused.contains("`full-context` is not a context policy quorum can run"),
        "{refused}"
    );
}

/// A22, FP-19 (issue 60): the creative / UX / content task context is
/// reachable: `--task-context content` gives the devil's advocate and the
/// integration checker that context's guidance, each its own, seats the
/// ux, content and accessibility experts when no domain is named (each
/// with its own domain prompt), and is recorded in council.json.
#[test]
fn a22_fp_19_the_creative_ux_content_context_is_chosen_by_a_flag() {
    use quorum::protocol::kind::{Configure, FlagValue, ProtocolKind, Setting};
    let flags = [FlagValue::new(
        "--task-context",
        "task_context",
        yaml_serde::Value::String("content".into()),
    )];
    let configured = quorum::protocol::council::KIND
        .configure(&Configure {
            flags: &flags,
            ..Configure::default()
        })
        .unwrap();
    let mut config: CouncilConfig = configured
        .define(Setting {
            topic: SCOPE.into(),
            seating: support::harness::seated(Default::default()),
            ..Setting::default()
        })
        .config()
        .unwrap();
    assert_eq!(config.domains, ["ux", "content", "accessibility"]);
    for slot in config.participants() {
        config.seating.agents.insert(slot, "script:scripted".into());
    }
    let h = harness(config);
    let devil = h.prompt_of("devil-advocate/independent/r0");
    assert!(
        devil.contains("This council is a creative / UX / content review."),
        "{devil}"
    );
    assert!(devil.contains("only its most practised users"), "{devil}");
    let checker = h.prompt_of("integration-checker/independent/r0");
    assert!(
        checker.contains("breaks a structure or a wording another part relies on"),
        "{checker}"
    );
    let content = h.prompt_of("expert.content/independent/r0");
    assert!(content.contains("consistent terms"), "{content}");
    let record: Value = serde_json::from_str(&h.document("council.json")).unwrap();
    assert_eq!(record["task_context"], "content");
    // Unknown contexts are refused with the list.
    let flags = [FlagValue::new(
        "--task-context",
        "task_context",
        yaml_serde::Value::String("marketing".into()),
    )];
    let refused = quorum::protocol::council::KIND
        .configure(&Configure {
            flags: &flags,
            ..Configure::default()
        })
        .err()
        .expect("refused")
        .to_string();
    assert!(
        refused.contains("code, security, architecture, research, content"),
        "{refused}"
    );
}

/// FP-06, FP-07, FP-08, FP-09: the intensities' phases, rounds and
/// budgets, with the devil's advocate and the integration checker counted
/// as reviewers (A20).
#[test]
fn fp_06_07_08_09_intensities() {
    assert_eq!(Intensity::Quick.phases(), &[1, 2, 5]);
    assert_eq!(Intensity::Quick.max_rounds(), 0);
    assert_eq!(Intensity::Standard.phases(), &[1, 2, 3, 4, 5]);
    assert_eq!(Intensity::Standard.max_rounds(), 3);
    assert_eq!(Intensity::Thorough.phases(), &[1, 2, 3, 4, 5]);
    assert_eq!(Intensity::Thorough.max_rounds(), 5);
    let c = config(
        &["security", "performance"],
        Intensity::Standard,
        Preset::Default,
        CouncilMode::Review,
    );
    assert_eq!(
        c.budget(),
        3 * 4 + 10,
        "two experts + DA + IC = 4 reviewers"
    );
    assert_eq!(Intensity::Quick.budget(4), 9);
    assert_eq!(Intensity::Thorough.budget(4), 30);
}

/// FP-10, FP-11, FP-12: the presets' numbers, and both "unused" numbers
/// used as A20 resolves: the devil's advocate's vote weighs da_weight, and
/// a finding tagged `security` needs security_threshold.
#[test]
fn fp_10_11_12_presets_and_what_their_numbers_do() {
    let d = Preset::Default.params();
    assert_eq!(
        (d.da_weight, d.consensus_threshold, d.security_threshold),
        (0.40, 0.50, 0.67)
    );
    let e = Preset::SecurityElevated.params();
    assert_eq!(
        (e.da_weight, e.consensus_threshold, e.security_threshold),
        (0.50, 0.67, 0.75)
    );

    // Two experts, the checker (1 each) and the devil's advocate (0.4):
    // 3.4 weighted positions in all.
    let mut h = published();
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    finish_with(&mut h, &[("F002", "endorse"), ("F004", "endorse")]);
    // Every participant endorsed F002 (security) and F004 (not).
    let a = h.protocol.assessment().unwrap();
    let f002 = a.outcome("F002").unwrap();
    assert_eq!(
        f002.threshold, 0.67,
        "security-tagged: the security threshold"
    );
    assert_eq!(a.outcome("F004").unwrap().threshold, 0.50);
    assert!(
        f002.rule.contains("3.4 of 3.4"),
        "DA weighs 0.4: {}",
        f002.rule
    );
}

// ---- roster and phase 1 -------------------------------------------------------------

/// FP-13, FP-14: the roster is the experts plus the devil's advocate and
/// the integration checker, and all of them are called at once, each with
/// the same scope and task.
#[test]
fn fp_13_14_roster_and_parallel_independent_phase() {
    let h = standard();
    let roles: Vec<String> = h
        .protocol
        .describe()
        .roles
        .into_iter()
        .map(|r| r.slot)
        .collect();
    assert_eq!(
        roles,
        ["expert.security", "expert.performance", CHECKER, DEVIL]
    );
    for role in &roles {
        let prompt = h.prompt_of(&format!("{role}/independent/r0"));
        assert!(prompt.contains(SCOPE), "{role}");
        assert!(
            prompt.contains("Review the handler that credits balances."),
            "{role}"
        );
        assert!(prompt.contains(MATERIAL), "{role}");
    }
    assert_eq!(h.live.len(), 4, "all four at once");
}

/// FP-15, FP-17, FP-19, A22: the Phase 1 prompt gives the role, task,
/// scope and domains, says to work alone, gives the expert's focus and
/// standards and the JSON format; the devil's advocate and the checker get
/// their own instructions and the challenge guidance of the mode's task
/// context (review → code, audit → security, design → architecture,
/// research → research).
#[test]
fn fp_15_17_19_phase_one_prompts() {
    let h = standard();
    let security = h.prompt_of("expert.security/independent/r0");
    for needed in [
        "Security expert",
        "Task",
        "Scope",
        "security, performance",
        "must not try to guess or coordinate",
        "OWASP ASVS",
        "attack surface",
        "\"severity\": \"CRITICAL | HIGH | MEDIUM | LOW | INFO\"",
        "\"recommendation\"",
    ] {
        assert!(security.contains(needed), "{needed}");
    }
    let da = h.prompt_of("devil-advocate/independent/r0");
    assert!(
        da.contains("devil's advocate") && da.contains("real defect or a preference"),
        "{da}"
    );
    let ic = h.prompt_of("integration-checker/independent/r0");
    assert!(ic.contains("integration checker") && ic.contains("seams"));
    for (mode, words) in [
        (CouncilMode::Audit, "exploitable in practice"),
        (CouncilMode::Research, "follows from its sources"),
        (CouncilMode::Synthesis, "follows from its sources"),
    ] {
        let h = harness(config(
            &["security"],
            Intensity::Standard,
            Preset::Default,
            mode,
        ));
        assert!(
            h.prompt_of("devil-advocate/independent/r0").contains(words),
            "{mode:?}"
        );
    }
}

/// FP-16: Phase 1 answers are JSON findings with the seed's fields; an
/// answer with none to read is unusable: kept with a MALFORMED marker,
/// excluded and not retried. A finding missing its severity costs that
/// finding alone (issue 59): its participant is asked about it once (a call
/// the budget affords), then it is left out, keeping the board id its
/// place gives it, and the record says so.
#[test]
fn fp_16_malformed_findings_are_kept_marked_and_not_retried() {
    let mut h = standard();
    let prose = "I looked at it and found a few things worth a closer look.";
    h.answer("expert.security/independent/r0", prose);
    assert!(!h.is_live("expert.security/independent/r0"), "not retried");
    let file = h.document("phase-1/expert.security.md");
    assert!(file.starts_with("<!-- MALFORMED: "), "{file}");
    assert!(file.ends_with(prose));
    assert!(h.log_text().contains("excluded, not retried"));

    let mut h = standard();
    let bad = "```json\n{\"findings\": [{\"title\": \"x\", \"description\": \"y\"}, {\"severity\": \"HIGH\", \"title\": \"z\", \"description\": \"w\"}]}\n```\n";
    h.answer("expert.security/independent/r0", bad);
    let repair = h.call("expert.security/independent/r0/a2");
    assert!(
        repair.request.prompt.contains("findings[0].severity"),
        "names the field: {}",
        repair.request.prompt
    );
    h.answer("expert.security/independent/r0/a2", bad);
    assert!(!h.is_live("expert.security/independent/r0"), "asked once");
    for role in [
        "expert.performance",
        "integration-checker",
        "devil-advocate",
    ] {
        h.answer(&format!("{role}/independent/r0"), &findings(role, &[]));
    }
    let ids: Vec<&str> = h
        .protocol
        .findings()
        .iter()
        .map(|f| f.id.as_str())
        .collect();
    assert_eq!(ids, ["F002"], "the finding left out keeps F001");
    let log = h.log_text();
    assert!(
        log.contains("left out finding F001 of the expert.security's answer"),
        "{log}"
    );
    let unread = h.protocol.unread();
    assert_eq!(unread.len(), 1);
    assert_eq!(unread[0].what, "finding F001");
}

/// FP-18, FP-49: round 1 carries a discovery packet that is minimal and
/// non-leading: no prior findings or proposals, independent discovery and
/// no leading context demanded; no Phase 1 prompt carries another
/// participant's output.
#[test]
fn fp_18_49_phase_one_is_minimal_and_non_leading() {
    let h = standard();
    let prompt = h.prompt_of("expert.performance/independent/r0");
    assert!(prompt.contains("\"packet_type\": \"discovery\""));
    assert!(prompt.contains("\"prior_findings\": []"));
    assert!(prompt.contains("\"avoid_leading_context\": true"));
    assert!(prompt.contains("\"independent_discovery\": true"));
    for field in [
        "schema_version",
        "review_id",
        "artifact",
        "objective",
        "constraints",
        "output_contract",
        "proposal-v1",
        "finding-v1",
        "\"mutation\": \"forbidden\"",
    ] {
        assert!(prompt.contains(field), "{field}");
    }
    let mut h = standard();
    h.answer(
        "expert.security/independent/r0",
        &findings(
            "expert.security",
            &[finding("HIGH", "LEAKED-TITLE", "x", &[])],
        ),
    );
    assert!(
        !h.prompt_of("expert.performance/independent/r0")
            .contains("LEAKED-TITLE")
    );
}

// ---- phase 2 -------------------------------------------------------------------

/// FP-20, FP-21: quorum numbers every finding F001… in roster order with
/// its origin, and the whole list goes into every later prompt at once.
#[test]
fn fp_20_21_numbering_and_publication() {
    let h = published();
    let ids: Vec<(String, String)> = h
        .protocol
        .findings()
        .iter()
        .map(|f| (f.id.clone(), f.origins.join(",")))
        .collect();
    assert_eq!(
        ids,
        [
            ("F001".into(), "expert.security".into()),
            ("F002".into(), "expert.security".into()),
            ("F003".into(), "expert.performance".into()),
            ("F004".into(), CHECKER.to_string()),
        ]
    );
    let prompt = h.prompt_of("devil-advocate/challenge/r1");
    for id in ["F001", "F002", "F003", "F004"] {
        assert!(prompt.contains(id), "{id}");
    }
    assert!(
        h.log_text()
            .contains("published 4 findings to every participant")
    );
}

// ---- phase 3 -------------------------------------------------------------------

/// FP-22, FP-06, FP-33: a quick council calls no one between Phase 1 and
/// the final positions, and proposes no merge even of identical findings.
#[test]
fn fp_22_06_33_quick_runs_no_challenge_and_no_synthesis() {
    let mut h = harness(config(
        &["security", "performance"],
        Intensity::Quick,
        Preset::Default,
        CouncilMode::Review,
    ));
    let same = "The ledger call blocks the answer for seconds.";
    h.answer(
        "expert.security/independent/r0",
        &findings("s", &[finding("HIGH", "a", same, &[])]),
    );
    h.answer(
        "expert.performance/independent/r0",
        &findings("p", &[finding("HIGH", "b", same, &[])]),
    );
    h.answer("integration-checker/independent/r0", &findings("i", &[]));
    h.answer("devil-advocate/independent/r0", &findings("d", &[]));
    assert!(!h.was_started("devil-advocate/challenge"));
    assert!(h.is_live("expert.security/final/r0"));
    assert!(h.protocol.merge_candidates().is_empty());
    finish_with(&mut h, &[]);
    assert!(h.protocol.rounds().is_empty());
}

/// FP-23, FP-26: each round calls the devil's advocate first; a participant
/// is called only after its answer, and only with the challenges addressed
/// to it; a participant with none is called too (issue 26), and sees none.
#[test]
fn fp_23_26_devil_first_then_each_target_alone() {
    let mut h = published();
    assert!(h.is_live("devil-advocate/challenge/r1"));
    assert!(!h.was_started("expert.security/responses"));
    h.answer(
        "devil-advocate/challenge/r1",
        &devil(&[
            challenge(
                "expert.security",
                "F001",
                "SECRET-FOR-SECURITY: hmac.Equal is constant-time",
                "",
            ),
            challenge(
                "expert.performance",
                "F003",
                "SECRET-FOR-PERFORMANCE: it is fast",
                "",
            ),
        ]),
    );
    h.accept_all();
    let security = h.prompt_of("expert.security/responses/r1");
    assert!(security.contains("SECRET-FOR-SECURITY"));
    assert!(!security.contains("SECRET-FOR-PERFORMANCE"));
    let performance = h.prompt_of("expert.performance/responses/r1");
    assert!(performance.contains("SECRET-FOR-PERFORMANCE"));
    assert!(!performance.contains("SECRET-FOR-SECURITY"));
    let checker = h.prompt_of("integration-checker/responses/r1");
    assert!(
        !checker.contains("SECRET-FOR-SECURITY") && !checker.contains("SECRET-FOR-PERFORMANCE")
    );
    assert!(!h.was_started("devil-advocate/responses"));
}

/// FP-24, A22: the devil's advocate must challenge every CRITICAL or HIGH
/// finding it did not bring; one it leaves out is logged and recorded, not
/// asked for again.
#[test]
fn fp_24_omitted_mandatory_challenges_are_logged_not_retried() {
    let mut h = published();
    let prompt = h.prompt_of("devil-advocate/challenge/r1");
    assert!(prompt.contains("You must challenge each of these CRITICAL or HIGH findings, which you did not bring: F001, F003"));
    h.answer(
        "devil-advocate/challenge/r1",
        &devil(&[challenge(
            "expert.security",
            "F001",
            "constant-time compare",
            "",
        )]),
    );
    assert!(h.log_text().contains("left F003 (HIGH) unchallenged"));
    assert_eq!(h.protocol.rounds()[0].omitted, ["F003"]);
    assert!(!h.is_live("devil-advocate/challenge/r1"), "not retried");
}

/// FP-25, FP-50: a delivered challenge travels in an envelope whose
/// payload is the seed's challenge message.
#[test]
fn fp_25_50_challenge_message_and_envelope() {
    let mut h = published();
    h.answer(
        "devil-advocate/challenge/r1",
        &devil(&[challenge(
            "expert.security",
            "F001",
            "constant-time compare",
            "MEDIUM not HIGH because",
        )]),
    );
    h.accept_all();
    let envelope = h
        .protocol
        .exchange()
        .records()
        .iter()
        .find(|r| r["message_kind"] == "challenge")
        .expect("an envelope for the challenge")
        .clone();
    assert_eq!(envelope["packet_type"], "exchange_envelope");
    assert_eq!(envelope["schema_version"], "1.0");
    assert_eq!(envelope["exchange_mode"], "coordinator-mediated");
    assert_eq!(envelope["session_id"], "r-test");
    assert_eq!(envelope["round"], 1);
    assert!(envelope["message_id"].as_str().unwrap().starts_with("MSG"));
    let payload = &envelope["payload"];
    assert_eq!(payload["type"], "challenge");
    assert_eq!(payload["from"], DEVIL);
    assert_eq!(payload["to"], "expert.security");
    assert_eq!(payload["finding_id"], "F001");
    assert_eq!(payload["challenge"], "constant-time compare");
    assert_eq!(payload["severity_challenge"], "MEDIUM not HIGH because");
    assert_eq!(envelope["to"]["participant_id"], "expert.security");
    for field in ["references", "delivery"] {
        assert!(envelope.get(field).is_some(), "{field}");
    }
}

/// FP-27, FP-31: each of the six response types is read; a discovery gets
/// the next id, is marked discovered, and a HIGH one must be challenged in
/// the next round.
#[test]
fn fp_27_31_response_types_and_discoveries() {
    let mut h = published();
    h.answer(
        "devil-advocate/challenge/r1",
        &devil(&[
            challenge("expert.security", "F001", "constant-time", ""),
            challenge("expert.performance", "F003", "fast enough", ""),
        ]),
    );
    h.accept_all();
    h.answer(
        "expert.security/responses/r1",
        &responses(&[
            json!({"type": "withdrawal", "finding_id": "F001", "response": "right"}),
            json!({"type": "corroboration", "finding_id": "F003", "response": "seen it"}),
            json!({"type": "merge-proposal", "finding_id": "F002", "merge_with": "F004", "response": "same"}),
        ]),
    );
    h.answer(
        "expert.performance/responses/r1",
        &responses(&[
            json!({"type": "defense", "finding_id": "F003", "response": "trace shows 9.8 s", "evidence": "trace"}),
            json!({"type": "cross-challenge", "finding_id": "F002", "challenge": "replays are blocked by the provider's nonce"}),
            json!({"type": "discovery", "response": "new", "finding": finding("HIGH", "Crash loses events", "no transaction", &[])}),
        ]),
    );
    h.answer("integration-checker/responses/r1", &responses(&[]));
    let kinds: Vec<&str> = h
        .protocol
        .responses()
        .iter()
        .map(|r| r.kind.as_str())
        .collect();
    for kind in [
        "withdrawal",
        "corroboration",
        "merge-proposal",
        "defense",
        "cross-challenge",
        "discovery",
    ] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }
    let discovered = h.protocol.finding("F005").expect("the next id");
    assert!(discovered.discovered);
    assert_eq!(discovered.origins, ["expert.performance"]);
    assert_eq!(discovered.round, 1);
    // Round 2: F005 is HIGH and not the DA's: mandatory now.
    assert!(h.is_live("devil-advocate/challenge/r2"));
    assert!(h.protocol.mandatory().contains(&"F005".to_string()));
    // The cross-challenge waits for the moderator of round 2.
    let cross = h
        .protocol
        .challenges()
        .iter()
        .find(|c| c.from == "expert.performance")
        .unwrap();
    assert_eq!(cross.to, "expert.security");
    assert_eq!(cross.state, ChallengeState::Proposed);
}

/// FP-28: the devil's advocate's prompt defines a valid challenge by its
/// three forms and lists the invalid kinds.
#[test]
fn fp_28_the_devil_is_told_what_a_challenge_is() {
    let h = published();
    let prompt = h.prompt_of("devil-advocate/challenge/r1");
    for needed in [
        "missing-assumption",
        "alternative-explanation",
        "non-applicability",
        "no mechanism",
        "no reason",
        "a comparison that does not apply here",
        "the same claim in other words",
        "you have an opinion, not a challenge",
    ] {
        assert!(prompt.contains(needed), "{needed}");
    }
}

/// FP-29, A22: the moderator drops a challenge that gives no reason; it is
/// never delivered. One that states no basis is flagged in its item.
#[test]
fn fp_29_the_moderator_drops_invalid_challenges() {
    let mut h = published();
    let mut opinion = challenge(
        "expert.security",
        "F001",
        "I don't think this is a big deal",
        "",
    );
    opinion.as_object_mut().unwrap().remove("basis");
    h.answer(
        "devil-advocate/challenge/r1",
        &devil(&[
            opinion,
            challenge("expert.performance", "F003", "cached", ""),
        ]),
    );
    let items = h.moderation.clone().unwrap();
    let c1 = items.iter().find(|i| i.id == "C1").unwrap();
    assert_eq!(c1.category, "no basis stated");
    assert!(c1.text.contains("Reject it if it gives no reason"));
    h.moderate(&[("C1", ItemDecision::Reject, Some("no mechanism"))]);
    // Asked as a bystander of C2 (FP-23), never about C1.
    assert!(
        !h.prompt_of("expert.security/responses")
            .contains("big deal")
    );
    let c1 = &h.protocol.challenges()[0];
    assert_eq!(c1.state, ChallengeState::Dropped);
    assert_eq!(c1.moderation[0].note.as_deref(), Some("no mechanism"));
    assert!(
        h.log_text()
            .contains("C1 dropped as no challenge: no mechanism")
    );
}

/// FP-30, A22: the rounds stop early after a round that delivered no
/// challenge, and at max_rounds otherwise.
#[test]
fn fp_30_rounds_stop_early_or_at_the_limit() {
    let mut h = published();
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    assert!(
        h.protocol
            .stopped()
            .unwrap()
            .contains("round 1 delivered no challenge")
    );
    assert_eq!(h.protocol.step(), Step::Final);

    // Thorough: keeps going while challenges are delivered, up to 5.
    let mut h = harness(config(
        &["security"],
        Intensity::Thorough,
        Preset::Default,
        CouncilMode::Review,
    ));
    h.answer(
        "expert.security/independent/r0",
        &findings("s", &[finding("MEDIUM", "a", "x", &[])]),
    );
    h.answer("integration-checker/independent/r0", &findings("i", &[]));
    h.answer("devil-advocate/independent/r0", &findings("d", &[]));
    for round in 1..=5 {
        h.answer(
            &format!("devil-advocate/challenge/r{round}"),
            &devil(&[challenge("expert.security", "F001", "again", "")]),
        );
        h.accept_all();
        h.answer(
            &format!("expert.security/responses/r{round}"),
            &responses(&[json!({"type": "defense", "finding_id": "F001", "response": "still"})]),
        );
        h.answer(
            &format!("integration-checker/responses/r{round}"),
            &responses(&[]),
        );
    }
    assert!(!h.was_started("devil-advocate/challenge/r6"));
    assert!(
        h.protocol
            .stopped()
            .unwrap()
            .contains("round 5 was the last")
    );
}

/// FP-32, A21: a severity changes only when the origin accepts the
/// severity challenge; a defense that does not accept it keeps it.
#[test]
fn fp_32_severity_moves_only_when_the_origin_accepts() {
    let mut h = severities_challenged();
    h.answer(
        "expert.performance/responses/r1",
        &responses(&[
            json!({"type": "defense", "finding_id": "F003", "response": "no, trace shows 9 s"}),
        ]),
    );
    let f1 = h.protocol.finding("F001").unwrap();
    assert_eq!(f1.severity, Severity::Medium);
    assert_eq!(f1.reported_severity, Severity::High);
    assert!(
        f1.severity_changes[0]
            .why
            .contains("C1 accepted by expert.security")
    );
    assert_eq!(h.protocol.finding("F003").unwrap().severity, Severity::High);
}

/// JM-30, JM-33 (issue 55, did the debate pay): each participant's own
/// verdict from its Phase 1 findings (the council's verdict rule, every one
/// of its findings confirmed as reported), the plain vote they make, and
/// every word that moved after it with what preceded it: a severity
/// conceded to a challenge that brought no evidence is pressure; a devil's
/// advocate won over by a defense that brought evidence moved on evidence;
/// a word nobody else spoke to in between moved on nothing new.
#[test]
fn jm_30_33_a_council_shows_the_plain_vote_and_what_moved_each_word() {
    let mut h = severities_challenged();
    h.answer(
        "expert.performance/responses/r1",
        &responses(&[json!({"type": "defense", "finding_id": "F003", "response": "no, it is slow", "evidence": "the trace shows 9 s on line 14"})]),
    );
    if h.is_live("integration-checker/responses/r1") {
        h.answer(
            "integration-checker/responses/r1",
            &responses(&[
                json!({"type": "corroboration", "finding_id": "F004", "response": "seen it"}),
            ]),
        );
    }
    if h.is_live("devil-advocate/challenge/r2") {
        h.answer("devil-advocate/challenge/r2", &devil(&[]));
    }
    let finals = [
        ("expert.security", vec![("F003", "endorse")]),
        ("expert.performance", vec![("F001", "endorse")]),
        (CHECKER, vec![("F004", "dispute")]),
        (DEVIL, vec![("F001", "endorse"), ("F003", "endorse")]),
    ];
    for (role, stances) in finals {
        let prefix = format!("{role}/final/");
        assert!(h.is_live(&prefix), "{role}");
        h.answer(&prefix, &position(role, &stances, &[]));
    }
    let Some(Outcome::Decided { verdict, .. }) = h.finished.clone() else {
        panic!("no verdict: {:?}", h.finished);
    };
    let payoff = h
        .protocol
        .payoff()
        .expect("a council with a verdict has the section");
    let votes: Vec<(&str, &str)> = payoff
        .votes
        .iter()
        .map(|vote| (vote.voter.as_str(), vote.decision.as_str()))
        .collect();
    assert_eq!(
        votes,
        [
            ("expert.security", "CONCERNS"),
            ("expert.performance", "CONCERNS"),
            (CHECKER, "PASS"),
            (DEVIL, "PASS"),
        ]
    );
    assert_eq!(payoff.votes[0].why, "F001 HIGH, F002 MEDIUM");
    assert_eq!(payoff.plain_vote, None, "two against two is no majority");
    assert_eq!(payoff.decided, verdict.to_string());
    let moved = |who: &str, on: &str| {
        payoff
            .changes
            .iter()
            .find(|change| change.who == who && change.on == on)
            .unwrap_or_else(|| panic!("{who} on {on}: {:?}", payoff.changes))
    };
    let conceded = moved("expert.security", "F001");
    assert_eq!(
        (conceded.from.as_str(), conceded.to.as_str()),
        ("HIGH", "MEDIUM")
    );
    assert_eq!(conceded.preceded_by, Preceded::Pressure);
    assert!(
        conceded.why.contains("C1 from devil-advocate"),
        "{}",
        conceded.why
    );
    let won_over = moved(DEVIL, "F003");
    assert_eq!(
        (won_over.from.as_str(), won_over.to.as_str()),
        ("dispute", "endorse")
    );
    assert_eq!(won_over.preceded_by, Preceded::Evidence);
    assert!(
        won_over
            .why
            .contains("expert.performance's defense on F003")
    );
    let turned = moved(CHECKER, "F004");
    assert_eq!(
        (turned.from.as_str(), turned.to.as_str()),
        ("endorse", "dispute")
    );
    assert_eq!(turned.preceded_by, Preceded::Nothing);
    // The devil's advocate challenged F001 and endorsed it at the end,
    // after a defense that brought no evidence.
    assert_eq!(moved(DEVIL, "F001").preceded_by, Preceded::Pressure);
    // In council.json, the summary's later sections and the board.
    let record: Value = serde_json::from_str(&h.document("council.json")).unwrap();
    assert_eq!(record["payoff"]["votes"][2]["decision"], "PASS");
    assert!(record["payoff"]["plain_vote"].is_null());
    let summary = h.document("summary.md");
    let section = summary.find("## Did the debate pay?").expect("the section");
    assert!(section > summary.find("## How this was decided").unwrap());
    assert!(summary[section..].contains("would have had no majority (CONCERNS: 2, PASS: 2)"));
    assert_eq!(h.protocol.board().payoff, payoff.lines());
}

// ---- phase 4 -------------------------------------------------------------------

/// FP-34, A22: overlap is the Jaccard similarity of the lowercase words of
/// two descriptions; above 0.70 a merge is proposed, at or below it none.
#[test]
fn fp_34_overlap_is_word_jaccard_above_seventy_percent() {
    assert_eq!(overlap("a b c", "a b c"), 1.0);
    assert_eq!(
        overlap("A, b; C!", "c B a"),
        1.0,
        "case and punctuation aside"
    );
    assert!((overlap("a b c d", "a b c e") - 0.6).abs() < 1e-9);
    assert_eq!(overlap("", ""), 0.0);
    let eight = "one two three four five six seven eight";
    // 8 shared of 9 words: 0.89 > 0.70.
    assert!(overlap(eight, &format!("{eight} nine")) > MERGE_OVERLAP);
    // 7 shared of 10 words: exactly 0.70 is not above it.
    let seven_of_ten = overlap("a b c d e f g h i", "a b c d e f g j");
    assert!((seven_of_ten - 0.7).abs() < 1e-9, "{seven_of_ten}");
    assert!(seven_of_ten <= MERGE_OVERLAP);
}

/// A finished council where security's F001 and performance's F003 say
/// the same thing; `merges` are the votes given by each origin.
fn overlapping(merge_votes: &[(&str, bool)]) -> Harness {
    let mut h = standard();
    let same = "The handler waits for the ledger before it answers the provider, so slow ledger calls cause retries.";
    h.answer(
        "expert.security/independent/r0",
        &findings(
            "s",
            &[finding("MEDIUM", "Waits for ledger", same, &["security"])],
        ),
    );
    h.answer(
        "expert.performance/independent/r0",
        &findings(
            "p",
            &[finding(
                "HIGH",
                "Ledger on the request path",
                &format!("{same} Badly."),
                &[],
            )],
        ),
    );
    h.answer("integration-checker/independent/r0", &findings("i", &[]));
    h.answer("devil-advocate/independent/r0", &findings("d", &[]));
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    assert_eq!(
        h.protocol.merge_candidates().len(),
        1,
        "proposed by overlap"
    );
    for role in h.protocol.present() {
        let prefix = format!("{role}/final/");
        let agree = merge_votes
            .iter()
            .find(|(r, _)| *r == role)
            .map(|(_, a)| *a);
        let text = json_block(json!({
            "participant": role,
            "positions": [{"id": "F001", "stance": "endorse"}, {"id": "F002", "stance": "endorse"}],
            "merges": agree.map(|a| vec![json!({"findings": ["F001", "F002"], "agree": a})]).unwrap_or_default(),
        }));
        h.answer(&prefix, &text);
    }
    h
}

/// FP-35, FP-36: a merge happens only when both origins agree; the merged
/// finding takes the next id and the higher severity, the parts become
/// `merged`.
#[test]
fn fp_35_36_merges_need_both_origins() {
    let h = overlapping(&[("expert.security", true), ("expert.performance", true)]);
    let a = h.protocol.assessment().unwrap();
    let merged = a
        .findings
        .iter()
        .find(|f| f.id == "F003")
        .expect("merged finding");
    assert_eq!(merged.merged_from, ["F001", "F002"]);
    assert_eq!(merged.severity, Severity::High);
    assert_eq!(merged.text.domains, ["security", "performance"]);
    assert_eq!(outcome_state(&h, "F001"), FindingState::Merged);
    assert_eq!(outcome_state(&h, "F002"), FindingState::Merged);
    assert_eq!(outcome_state(&h, "F003"), FindingState::Confirmed);

    let h = overlapping(&[("expert.security", true), ("expert.performance", false)]);
    let a = h.protocol.assessment().unwrap();
    assert_eq!(
        a.merges[0].refused.as_deref(),
        Some("expert.performance did not agree")
    );
    assert!(a.findings.iter().all(|f| f.merged_into.is_none()));
}

/// FP-36, A21: confirmed by weighted share (challenged and unchallenged
/// alike), withdrawn by the origin, disputed when challenged or disputed
/// and short of the threshold, unconfirmed otherwise; `discovered` is a
/// flag, not a state.
#[test]
fn fp_36_finding_states() {
    let mut h = published();
    h.answer(
        "devil-advocate/challenge/r1",
        &devil(&[
            challenge("expert.security", "F001", "constant-time", ""),
            challenge("expert.performance", "F003", "fast", ""),
        ]),
    );
    h.accept_all();
    h.answer(
        "expert.security/responses/r1",
        &responses(&[json!({"type": "withdrawal", "finding_id": "F001", "response": "right"})]),
    );
    h.answer(
        "expert.performance/responses/r1",
        &responses(&[json!({"type": "defense", "finding_id": "F003", "response": "no"})]),
    );
    h.answer("integration-checker/responses/r1", &responses(&[]));
    h.answer("devil-advocate/challenge/r2", &devil(&[]));
    // F002 (security MEDIUM): only its origin, 1 of 3.4. F003 challenged
    // and backed by its origin alone, nobody disputing: disputed all the
    // same. F004 (LOW): endorsed by both experts, 3 of 3.4.
    h.answer(
        "expert.security/final/",
        &position("expert.security", &[("F004", "endorse")], &[]),
    );
    h.answer(
        "expert.performance/final/",
        &position("expert.performance", &[("F004", "endorse")], &[]),
    );
    h.answer(
        "integration-checker/final/",
        &position(CHECKER, &[("F003", "abstain")], &[]),
    );
    h.answer("devil-advocate/final/", &position(DEVIL, &[], &[]));
    assert_eq!(outcome_state(&h, "F001"), FindingState::Withdrawn);
    assert_eq!(outcome_state(&h, "F002"), FindingState::Unconfirmed);
    assert_eq!(outcome_state(&h, "F003"), FindingState::Disputed);
    assert_eq!(outcome_state(&h, "F004"), FindingState::Confirmed);
    let a = h.protocol.assessment().unwrap();
    assert!(
        a.outcome("F003")
            .unwrap()
            .rule
            .starts_with("challenged and not confirmed")
    );
}

// ---- phase 5 and the verdict ---------------------------------------------------------

/// FP-37, FP-38: every participant is asked for a final position, and
/// dissent is kept as `disputed_findings`, even on a confirmed finding.
#[test]
fn fp_37_38_final_positions_and_dissent() {
    let mut h = published();
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    for role in ["expert.security", "expert.performance", CHECKER, DEVIL] {
        assert!(h.is_live(&format!("{role}/final/")), "{role}");
    }
    h.answer(
        "expert.security/final/",
        &position("expert.security", &[("F003", "endorse")], &[]),
    );
    h.answer(
        "expert.performance/final/",
        &position("expert.performance", &[], &[]),
    );
    h.answer(
        "integration-checker/final/",
        &position(CHECKER, &[("F003", "endorse")], &[]),
    );
    h.answer(
        "devil-advocate/final/",
        &position(DEVIL, &[("F003", "dispute")], &[]),
    );
    let a = h.protocol.assessment().unwrap();
    assert_eq!(outcome_state(&h, "F003"), FindingState::Confirmed);
    let dissent = a.disputed_findings.iter().find(|d| d.id == "F003").unwrap();
    assert_eq!(dissent.dissenters[0].participant, DEVIL);
    let record: Value = serde_json::from_str(&h.document("council.json")).unwrap();
    assert_eq!(record["disputed_findings"][0]["id"], "F003");
}

/// FP-37 (issue 60): every participant submits a final position, one
/// given up in Phase 1 included: it takes no part in the rounds, is asked
/// at the end on what the others found, and its word counts.
#[test]
fn fp_37_a_participant_given_up_in_phase_one_still_gives_a_final_position() {
    let mut h = standard();
    h.answer(
        "expert.security/independent/r0",
        &findings(
            "expert.security",
            &[finding(
                "HIGH",
                "Timing attack",
                "The comparison leaks.",
                &[],
            )],
        ),
    );
    h.time_out("expert.performance/independent/r0");
    h.answer(
        "integration-checker/independent/r0",
        &findings(CHECKER, &[]),
    );
    h.answer("devil-advocate/independent/r0", &findings(DEVIL, &[]));
    assert!(
        h.log_text()
            .contains("expert.performance gave no Phase 1 answer"),
        "{}",
        h.log_text()
    );
    h.answer(
        "devil-advocate/challenge/r1",
        &devil(&[challenge(
            "expert.security",
            "F001",
            "Is the comparison reachable?",
            "MEDIUM",
        )]),
    );
    h.accept_all();
    assert!(!h.was_started("expert.performance/responses"));
    h.answer(
        "expert.security/responses/r1",
        &responses(&[
            json!({"type": "defense", "finding_id": "F001", "response": "Yes, on every request."}),
        ]),
    );
    if h.is_live("integration-checker/responses/r1") {
        h.answer("integration-checker/responses/r1", &responses(&[]));
    }
    if h.is_live("devil-advocate/challenge/r2") {
        h.answer("devil-advocate/challenge/r2", &devil(&[]));
    }
    assert!(
        h.is_live("expert.performance/final/"),
        "{:?}\n{}",
        h.live
            .iter()
            .map(|c| c.request.call_id.clone())
            .collect::<Vec<_>>(),
        h.log_text()
    );
    let prompt = h.prompt_of("expert.performance/final/");
    assert!(prompt.contains("Timing attack"), "{prompt}");
    h.answer(
        "expert.performance/final/",
        &position("expert.performance", &[("F001", "dispute")], &[]),
    );
    finish_with(&mut h, &[("F001", "endorse")]);
    let record: Value = serde_json::from_str(&h.document("council.json")).unwrap();
    let performance = record["participants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "expert.performance")
        .unwrap();
    assert_eq!(performance["out"], true);
    assert!(!performance["final_position"].is_null(), "{performance}");
    let outcome = h
        .protocol
        .assessment()
        .unwrap()
        .outcome("F001")
        .unwrap()
        .clone();
    // Its dispute is weighed: 2.4 of 3.4, not 2.4 of 2.4.
    assert!(outcome.rule.contains("2.4 of 3.4"), "{}", outcome.rule);
}

/// A18, FP-39 (issue 60): a council concludes only from a quorum of usable
/// answers, a majority of its roster, in Phase 1 and in the final
/// positions. Below it the council ends as a recorded failure with the
/// reason in words, never a PASS that nobody reviewed.
#[test]
fn a18_fp_39_a_council_without_a_quorum_of_answers_fails_instead_of_passing() {
    // Phase 1: three of four time out twice; one answer is not a quorum.
    let mut h = standard();
    h.time_out("expert.security/independent/r0");
    h.time_out("expert.performance/independent/r0");
    h.time_out("integration-checker/independent/r0");
    h.answer("devil-advocate/independent/r0", &findings(DEVIL, &[]));
    let Some(Outcome::Failed { reason }) = h.finished.clone() else {
        panic!("no failure: {:?}", h.finished);
    };
    assert_eq!(
        reason,
        "only 1 of the 4 participants gave a Phase 1 answer quorum could read, short of the quorum of 3: the council concludes nothing from so few"
    );
    let summary = h.document("summary.md");
    assert!(summary.contains("**No result.**"), "{summary}");
    assert!(!summary.contains("PASS"), "{summary}");
    let record: Value = serde_json::from_str(&h.document("council.json")).unwrap();
    assert!(record["verdict"].is_null(), "{record}");

    // Prose nobody can read counts as no answer.
    let mut h = standard();
    for role in ["expert.security", "expert.performance", CHECKER] {
        h.answer(
            &format!("{role}/independent/r0"),
            "I looked and it seemed fine to me.",
        );
    }
    h.answer("devil-advocate/independent/r0", &findings(DEVIL, &[]));
    assert!(
        matches!(&h.finished, Some(Outcome::Failed { reason }) if reason.starts_with("only 1 of the 4")),
        "{:?}",
        h.finished
    );

    // Final positions: Phase 1 read, then only two of four final positions.
    let mut h = published();
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    h.answer(
        "expert.security/final/",
        &position("expert.security", &[("F003", "endorse")], &[]),
    );
    h.answer(
        "expert.performance/final/",
        &position("expert.performance", &[], &[]),
    );
    h.time_out("integration-checker/final/");
    h.time_out("devil-advocate/final/");
    let Some(Outcome::Failed { reason }) = h.finished.clone() else {
        panic!("no failure: {:?}", h.finished);
    };
    assert!(
        reason.starts_with("only 2 of the 4 participants gave a final position"),
        "{reason}"
    );
    // Three of four is a quorum.
    let mut h = published();
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    for role in ["expert.security", "expert.performance", CHECKER] {
        h.answer(&format!("{role}/final/"), &position(role, &[], &[]));
    }
    h.time_out("devil-advocate/final/");
    assert!(
        matches!(h.finished, Some(Outcome::Decided { .. })),
        "{:?}",
        h.finished
    );
}

/// A18, FP-48 (issue 60): a brainstorm below the quorum hands nothing off,
/// and its summary says so and why.
#[test]
fn a18_fp_48_a_brainstorm_without_a_quorum_has_nothing_to_hand_off() {
    let mut h = harness(config(
        &["architecture"],
        Intensity::Standard,
        Preset::Default,
        CouncilMode::Brainstorm,
    ));
    h.time_out("expert.architecture/independent/r0");
    h.time_out("integration-checker/independent/r0");
    h.answer(
        "devil-advocate/independent/r0",
        &json_block(json!({"proposals": [proposal("Do nothing", json!({}))]})),
    );
    assert!(
        matches!(&h.finished, Some(Outcome::Failed { reason }) if reason.starts_with("only 1 of the 3")),
        "{:?}",
        h.finished
    );
    assert!(!h.was_started("synthesizer/handoff"));
    let summary = h.document("summary.md");
    assert!(summary.contains("nothing to hand off"), "{summary}");
    assert!(
        summary.contains("only 1 of the 3 participants"),
        "{summary}"
    );
}

fn outcomes(
    list: &[(&str, FindingState, Severity)],
) -> (
    Vec<verdict::FindingOutcome>,
    Vec<quorum::protocol::council::model::Finding>,
) {
    let outcomes = list
        .iter()
        .map(|(id, state, severity)| verdict::FindingOutcome {
            id: id.to_string(),
            state: *state,
            severity: *severity,
            share: 1.0,
            threshold: 0.5,
            rule: String::new(),
        })
        .collect();
    let findings = list
        .iter()
        .map(
            |(id, _, severity)| quorum::protocol::council::model::Finding {
                id: id.to_string(),
                origins: vec!["expert.security".into()],
                severity: *severity,
                reported_severity: *severity,
                text: quorum::protocol::council::model::FindingText {
                    title: "t".into(),
                    description: "d".into(),
                    domains: if id.ends_with('S') {
                        vec!["security".into()]
                    } else {
                        Vec::new()
                    },
                    ..Default::default()
                },
                discovered: false,
                round: 0,
                severity_changes: Vec::new(),
                withdrawn: None,
                merged_from: Vec::new(),
                merged_into: None,
            },
        )
        .collect();
    (outcomes, findings)
}

fn decide(list: &[(&str, FindingState, Severity)], preset: Preset) -> (Verdict, String) {
    let (o, f) = outcomes(list);
    verdict::verdict_of(&o, preset, &f)
}

/// FP-39, FP-40, FP-41, A23: FAIL > CONCERNS > PASS; "multiple" MEDIUM is
/// two or more; under security-elevated any confirmed security finding at
/// LOW or above fails, INFO does not. The rule names the findings.
#[test]
fn fp_39_40_41_verdict_logic() {
    use FindingState::{Confirmed as C, Disputed as D, Unconfirmed as U};
    use Severity::*;
    let (v, rule) = decide(&[("F001", C, Critical)], Preset::Default);
    assert_eq!(
        (v, rule.as_str()),
        (Verdict::Fail, "1 confirmed CRITICAL finding (F001) → FAIL")
    );
    let (v, rule) = decide(
        &[("F001", C, High), ("F002", C, High), ("F003", C, High)],
        Preset::Default,
    );
    assert_eq!(
        (v, rule.as_str()),
        (
            Verdict::Fail,
            "3 confirmed HIGH findings (F001, F002, F003) → FAIL"
        )
    );
    let (v, rule) = decide(&[("F003", C, High), ("F007", C, High)], Preset::Default);
    assert_eq!(
        (v, rule.as_str()),
        (
            Verdict::Concerns,
            "2 confirmed HIGH findings (F003, F007) → CONCERNS"
        )
    );
    let (v, _) = decide(&[("F001", C, Medium), ("F002", C, Medium)], Preset::Default);
    assert_eq!(v, Verdict::Concerns);
    let (v, _) = decide(&[("F001", C, Medium), ("F002", C, Low)], Preset::Default);
    assert_eq!(v, Verdict::Pass, "one MEDIUM is not multiple");
    let (v, rule) = decide(&[("F001", D, High), ("F002", U, Critical)], Preset::Default);
    assert_eq!(
        (v, rule.as_str()),
        (
            Verdict::Concerns,
            "1 disputed CRITICAL or HIGH finding (F001); 1 unconfirmed CRITICAL finding (F002) that no one refuted → CONCERNS"
        )
    );
    let (v, _) = decide(&[("F001", D, Medium), ("F002", U, Medium)], Preset::Default);
    assert_eq!(
        v,
        Verdict::Pass,
        "unconfirmed and disputed MEDIUM do not count"
    );
    // Security-elevated: a confirmed LOW security finding fails; INFO not.
    let (v, rule) = decide(&[("F001S", C, Low)], Preset::SecurityElevated);
    assert_eq!(v, Verdict::Fail, "{rule}");
    assert!(rule.contains("F001S") && rule.contains("security-elevated"));
    assert_eq!(
        decide(&[("F001S", C, Info)], Preset::SecurityElevated).0,
        Verdict::Pass
    );
    assert_eq!(
        decide(&[("F001S", C, Low)], Preset::Default).0,
        Verdict::Pass
    );
    // Precedence: FAIL reasons win over CONCERNS ones.
    let (v, rule) = decide(&[("F001", C, Critical), ("F002", D, High)], Preset::Default);
    assert_eq!(v, Verdict::Fail);
    assert!(!rule.contains("disputed"));
    assert_eq!(decide(&[], Preset::Default).0, Verdict::Pass);
}

/// FP-39 end to end: the council's outcome is the verdict, with its rule,
/// and the exit code of the one table.
#[test]
fn fp_39_a_council_decides_with_exit_codes() {
    let mut h = published();
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    finish_with(&mut h, &[("F001", "endorse"), ("F003", "endorse")]);
    let Some(Outcome::Decided { verdict, rule }) = h.finished.clone() else {
        panic!("{:?}", h.finished)
    };
    assert_eq!(verdict, Verdict::Concerns);
    assert_eq!(rule, "2 confirmed HIGH findings (F001, F003) → CONCERNS");
    assert_eq!(Verdict::Pass.exit_code(), 0);
    assert_eq!(Verdict::Concerns.exit_code(), 6);
    assert_eq!(Verdict::Fail.exit_code(), 7);
}

// ---- budget, fallback ------------------------------------------------------------------

/// FP-09, A20: every call counts, retries included; a round starts only if
/// it leaves room for one final position per participant; when it does
/// not, the rounds end, `budget_exhausted` is recorded and the final
/// positions still run.
#[test]
fn fp_09_budget_counts_retries_and_ends_the_rounds() {
    // One expert: a retry of its Phase 1 call counts.
    let mut h = harness(config(
        &["security"],
        Intensity::Standard,
        Preset::Default,
        CouncilMode::Review,
    ));
    let call_id = h.call("expert.security/independent/r0").request.call_id;
    h.send(quorum::protocol::Input::CallFailed {
        call_id,
        failure: quorum::protocol::CallFailure::TimedOut {
            after_ms: 1,
            staged: false,
        },
        partial_chars: 0,
        elapsed_ms: 1,
    });
    assert_eq!(h.protocol.budget_used(), 4, "three calls and one retry");

    // Four experts: 6 reviewers, 3 × 6 + 10 = 28 calls. Phase 1 takes 6,
    // and every round the devil and five targets take 6 more: round 3
    // runs out before its fourth target, leaving 6 for the final positions.
    let domains = ["security", "performance", "reliability", "data"];
    let mut h = harness(config(
        &domains,
        Intensity::Standard,
        Preset::Default,
        CouncilMode::Review,
    ));
    assert_eq!(h.protocol.config().budget(), 28);
    let targets: Vec<String> = domains
        .iter()
        .map(|d| format!("expert.{d}"))
        .chain([CHECKER.to_string()])
        .collect();
    for role in &targets {
        h.answer(
            &format!("{role}/independent/r0"),
            &findings(role, &[finding("MEDIUM", role, role, &[])]),
        );
    }
    h.answer("devil-advocate/independent/r0", &findings(DEVIL, &[]));
    for round in 1..=3 {
        let list: Vec<Value> = targets
            .iter()
            .enumerate()
            .map(|(i, role)| challenge(role, &format!("F{:03}", i + 1), "again", ""))
            .collect();
        h.answer(&format!("devil-advocate/challenge/r{round}"), &devil(&list));
        h.accept_all();
        for (i, role) in targets.iter().enumerate() {
            let prefix = format!("{role}/responses/r{round}");
            if h.is_live(&prefix) {
                h.answer(&prefix, &responses(&[json!({"type": "defense", "finding_id": format!("F{:03}", i + 1), "response": "still"})]));
            }
        }
    }
    let exhausted = h.protocol.budget_exhausted().expect("exhausted");
    assert!(
        exhausted.contains("budget exhausted in round 3 before expert.data could answer"),
        "{exhausted}"
    );
    assert_eq!(
        h.protocol.budget_used(),
        28,
        "22 before, and the six final positions"
    );
    let undelivered: Vec<&str> = h
        .protocol
        .challenges()
        .iter()
        .filter(|c| c.state == ChallengeState::Undelivered)
        .map(|c| c.to.as_str())
        .collect();
    assert_eq!(undelivered, ["expert.data", CHECKER]);
    assert_eq!(
        h.protocol.step(),
        Step::Final,
        "the final positions still run"
    );
    finish_with(&mut h, &[]);
    assert_eq!(h.protocol.budget_used(), 28, "never over the budget");
    assert!(h.finished.is_some());
    let record: Value = serde_json::from_str(&h.document("council.json")).unwrap();
    assert_eq!(record["budget"]["exhausted"], true);
    assert_eq!(record["budget"]["limit"], 28);
    let md = &h.protocol.publications()[0].contents;
    assert!(md.contains("\nbudget_exhausted: true\n"));
}

/// FP-42, A24: fallback on the flag skips phases 3 and 4 and is marked in
/// the JSON; a devil's advocate given up in Phase 1 makes a council fall
/// back on its own.
#[test]
fn fp_42_fallback() {
    let mut c = config(
        &["security"],
        Intensity::Standard,
        Preset::Default,
        CouncilMode::Review,
    );
    c.fallback = true;
    let mut h = harness(c);
    h.answer(
        "expert.security/independent/r0",
        &findings("s", &[finding("HIGH", "a", "x", &[])]),
    );
    h.answer("integration-checker/independent/r0", &findings("i", &[]));
    h.answer("devil-advocate/independent/r0", &findings("d", &[]));
    assert!(!h.was_started("devil-advocate/challenge"));
    finish_with(&mut h, &[]);
    let record: Value = serde_json::from_str(&h.document("council.json")).unwrap();
    assert_eq!(record["type"], "debate-protocol-fallback");

    let mut h = harness(config(
        &["security"],
        Intensity::Standard,
        Preset::Default,
        CouncilMode::Review,
    ));
    h.answer(
        "expert.security/independent/r0",
        &findings("s", &[finding("HIGH", "a", "x", &[])]),
    );
    h.answer("integration-checker/independent/r0", &findings("i", &[]));
    h.time_out("devil-advocate/independent/r0");
    assert!(h.protocol.fallback().unwrap().contains("devil's advocate"));
    assert!(!h.was_started("devil-advocate/challenge"));
    // Out of the rounds, but asked for its final position (FP-37).
    assert!(h.is_live("devil-advocate/final/"));
    assert!(h.is_live("expert.security/final/"));
}

// ---- brainstorm ----------------------------------------------------------------------

fn proposal(title: &str, lineage: Value) -> Value {
    json!({
        "title": title, "summary": format!("{title} summary"), "rationale": "why",
        "proposal_type": "implementation", "maturity": "sketched",
        "tradeoffs": ["cost"], "dependencies": [], "open_questions": ["how big?"], "risks": ["drift"],
        "lineage": lineage,
    })
}

/// FP-43, FP-44, FP-45, FP-46, FP-47, FP-48, A24: a brainstorm runs
/// Diverge → Expand → Challenge → Converge → Handoff over proposal objects
/// P001…, a combination retires what it merges, the weighted vote accepts,
/// rejects or parks, and it ends with a handoff and no verdict.
#[test]
fn fp_43_to_48_brainstorm() {
    let mut h = harness(config(
        &["architecture"],
        Intensity::Standard,
        Preset::Default,
        CouncilMode::Brainstorm,
    ));
    let roles: Vec<String> = h
        .protocol
        .describe()
        .roles
        .into_iter()
        .map(|r| r.slot)
        .collect();
    assert!(roles.contains(&"synthesizer".to_string()));
    assert!(
        h.prompt_of("expert.architecture/independent/r0")
            .contains("\"proposals\"")
    );
    let one = |t: &str| json_block(json!({"proposals": [proposal(t, json!({}))]}));
    h.answer("expert.architecture/independent/r0", &one("Nightly dump"));
    h.answer("integration-checker/independent/r0", &one("Change feed"));
    h.answer("devil-advocate/independent/r0", &one("Do nothing"));
    assert_eq!(h.protocol.proposals().len(), 3);
    assert_eq!(h.protocol.proposals()[0].id, "P001");
    assert_eq!(h.protocol.proposals()[0].status, ProposalStatus::Proposed);
    // Expand: the expert combines P001 and P002 into P004.
    assert!(h.is_live("expert.architecture/expand/"));
    h.answer(
        "expert.architecture/expand/",
        &json_block(json!({"expansions": [{"proposal_id": "P003", "note": "cheapest"}], "proposals": [proposal("Dump plus feed", json!({"merged_from": ["P001", "P002"]}))]})),
    );
    h.answer(
        "integration-checker/expand/",
        &json_block(json!({"expansions": [], "proposals": []})),
    );
    h.answer(
        "devil-advocate/expand/",
        &json_block(json!({"expansions": [], "proposals": []})),
    );
    let status = |h: &Harness, id: &str| h.protocol.proposal(id).unwrap().status;
    // Its own P001 is retired at once; the checker's P002 waits for the
    // checker's word (issue 60).
    assert_eq!(status(&h, "P001"), ProposalStatus::Merged);
    assert_eq!(status(&h, "P002"), ProposalStatus::Proposed);
    assert_eq!(status(&h, "P003"), ProposalStatus::Expanded);
    // Challenge: the devil questions P004; the expert revises it.
    h.answer(
        "devil-advocate/challenge/r1",
        &json_block(json!({"challenges": [{"to": "expert.architecture", "finding_id": "P004", "basis": "missing-assumption", "challenge": "assumes the feed is ordered"}], "discoveries": []})),
    );
    h.accept_all();
    h.answer(
        "expert.architecture/responses/r1",
        &json_block(json!({"responses": [{"type": "defense", "finding_id": "P004", "response": "ordered per tenant", "revision": "Dump plus a per-tenant ordered feed"}]})),
    );
    h.answer(
        "integration-checker/responses/r1",
        &json_block(json!({"responses": []})),
    );
    assert_eq!(status(&h, "P004"), ProposalStatus::Revised);
    h.answer(
        "devil-advocate/challenge/r2",
        &json_block(json!({"challenges": [], "discoveries": []})),
    );
    // Converge.
    h.answer(
        "expert.architecture/final/",
        &position("expert.architecture", &[("P003", "dispute")], &[]),
    );
    h.answer(
        "integration-checker/final/",
        &position(CHECKER, &[("P004", "endorse"), ("P003", "park")], &[]),
    );
    h.answer(
        "devil-advocate/final/",
        &position(DEVIL, &[("P004", "endorse"), ("P003", "endorse")], &[]),
    );
    assert_eq!(status(&h, "P004"), ProposalStatus::Accepted);
    assert_eq!(status(&h, "P003"), ProposalStatus::Parked);
    assert_ne!(status(&h, "P002"), ProposalStatus::Merged);
    // Handoff.
    h.answer(
        "synthesizer/handoff/",
        &json_block(json!({"accepted_direction": "Ship the dump with an ordered feed.", "open_questions": ["Retention?"], "next_step": "Prototype the feed."})),
    );
    assert!(matches!(h.finished, Some(Outcome::Completed { .. })));
    let summary = h.document("summary.md");
    assert!(summary.contains("**Direction:** Ship the dump with an ordered feed."));
    let record: Value = serde_json::from_str(&h.document("council.json")).unwrap();
    assert!(record.get("verdict").is_none());
    assert_eq!(record["handoff"]["next_step"], "Prototype the feed.");
    assert_eq!(
        record["proposals"][3]["lineage"]["merged_from"],
        json!(["P001", "P002"])
    );
    assert_eq!(
        record["proposals"][3]["maturity"], "sketched",
        "status and maturity apart"
    );
    let md = &h.protocol.publications()[0].contents;
    assert!(!md.contains("\nverdict:"), "{md}");
}

/// FP-43, FP-47 (issue 60): a proposal that would retire another
/// participant's (merge, supersede or split it) needs that origin's
/// agreement, asked in its final position as a merge of findings is;
/// without it both stand and converge on their own, and the rule says so.
#[test]
fn fp_47_retiring_anothers_proposal_needs_its_origins_agreement() {
    let run = |agree: bool| {
        let mut h = harness(config(
            &["architecture"],
            Intensity::Standard,
            Preset::Default,
            CouncilMode::Brainstorm,
        ));
        let one = |t: &str| json_block(json!({"proposals": [proposal(t, json!({}))]}));
        h.answer("expert.architecture/independent/r0", &one("Nightly dump"));
        h.answer("integration-checker/independent/r0", &one("Change feed"));
        h.answer("devil-advocate/independent/r0", &one("Do nothing"));
        // The devil's advocate supersedes the checker's P002 with P004.
        h.answer(
            "expert.architecture/expand/",
            &json_block(json!({"expansions": [], "proposals": []})),
        );
        h.answer(
            "integration-checker/expand/",
            &json_block(json!({"expansions": [], "proposals": []})),
        );
        h.answer(
            "devil-advocate/expand/",
            &json_block(json!({"expansions": [], "proposals": [proposal("Feed, batched", json!({"supersedes": ["P002"]}))]})),
        );
        assert_eq!(
            h.protocol.proposal("P002").unwrap().status,
            ProposalStatus::Proposed,
            "not retired before its origin's word"
        );
        h.answer(
            "devil-advocate/challenge/r1",
            &json_block(json!({"challenges": [], "discoveries": []})),
        );
        let prompt = h.prompt_of("integration-checker/final/");
        assert!(prompt.contains("P004 supersedes P002"), "{prompt}");
        let stances = [
            ("P001", "endorse"),
            ("P002", "endorse"),
            ("P004", "endorse"),
        ];
        h.answer(
            "integration-checker/final/",
            &json_block(json!({
                "participant": CHECKER,
                "positions": stances.iter().map(|(id, st)| json!({"id": id, "stance": st})).collect::<Vec<_>>(),
                "merges": [{"findings": ["P002", "P004"], "agree": agree}],
                "summary": "done",
            })),
        );
        for role in ["expert.architecture", DEVIL] {
            h.answer(&format!("{role}/final/"), &position(role, &stances, &[]));
        }
        let outcome = h
            .protocol
            .proposal_outcomes()
            .iter()
            .find(|o| o.id == "P002")
            .unwrap()
            .clone();
        (h.protocol.proposal("P002").unwrap().status, outcome.rule)
    };
    let (status, rule) = run(true);
    assert_eq!(status, ProposalStatus::Superseded);
    assert_eq!(
        rule,
        "superseded by P004 (devil-advocate), with its origin integration-checker's agreement"
    );
    let (status, rule) = run(false);
    assert_eq!(status, ProposalStatus::Accepted, "{rule}");
    assert!(
        rule.ends_with(
            "P004 (devil-advocate) would have it superseded, but its origin integration-checker did not agree, so it stands on its own"
        ),
        "{rule}"
    );
}

// ---- packets and artifacts ----------------------------------------------------------

/// FP-51, A24: packets and envelopes are issued once: everything issued
/// before an input is unchanged after it.
#[test]
fn fp_51_packets_are_immutable() {
    let mut h = standard();
    let mut before = h.document("packets.jsonl");
    let steps: Vec<(&str, String)> = vec![
        (
            "expert.security/independent/r0",
            findings("s", &[finding("HIGH", "a", "x", &[])]),
        ),
        ("expert.performance/independent/r0", findings("p", &[])),
        ("integration-checker/independent/r0", findings("i", &[])),
        ("devil-advocate/independent/r0", findings("d", &[])),
        (
            "devil-advocate/challenge/r1",
            devil(&[challenge("expert.security", "F001", "c", "")]),
        ),
    ];
    for (prefix, text) in steps {
        h.answer(prefix, &text);
        let after = h.document("packets.jsonl");
        assert!(
            after.starts_with(&before),
            "{prefix} rewrote an issued packet"
        );
        assert!(after.len() > before.len(), "{prefix} issued nothing");
        before = after;
    }
    for line in before.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        assert_eq!(record["schema_version"], "1.0");
    }
}

/// FP-52, FP-53, FP-55, A24: once ended, the deliverable pair is
/// `{outputs}/debate/{YYYYMMDD-HHMMSS}-debate-{review_id}` .md with the
/// seed's front matter and .json carrying the inventory, rounds, positions
/// and disputed findings; before the end there is none.
#[test]
fn fp_52_53_55_the_deliverable_pair() {
    let mut h = published();
    assert!(
        h.protocol.publications().is_empty(),
        "nothing before the end"
    );
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    finish_with(&mut h, &[("F001", "endorse")]);
    let pair = h.protocol.publications();
    let stem = format!(
        "/tmp/quorum-council-tests/.outputs/debate/{}-debate-r-test",
        t0().format("%Y%m%d-%H%M%S")
    );
    assert_eq!(pair[0].path.display().to_string(), format!("{stem}.md"));
    assert_eq!(pair[1].path.display().to_string(), format!("{stem}.json"));
    let md = &pair[0].contents;
    assert!(
        md.starts_with("---\nskill: debate-protocol\ntimestamp: "),
        "{md}"
    );
    for line in [
        "artifact_type: debate",
        "domains: [security, performance]",
        "verdict: CONCERNS",
        "intensity: standard",
        "review_id: \"r-test\"",
        "context_summary: \"Review the handler that credits balances.\"",
    ] {
        assert!(md.contains(&format!("\n{line}\n")), "{line}");
    }
    let json: Value = serde_json::from_str(&pair[1].contents).unwrap();
    for field in [
        "inventory",
        "findings",
        "rounds",
        "challenges",
        "responses",
        "merges",
        "positions",
        "disputed_findings",
        "budget",
        "participants",
    ] {
        assert!(json.get(field).is_some(), "{field}");
    }
    assert_eq!(json["verdict"], "CONCERNS");
    assert_eq!(json["type"], "debate-protocol");
}

/// FP-54: the deliverable is written where its path says, never through a
/// symbolic link, and no link is created.
#[test]
fn fp_54_no_symlinks() {
    let dir = std::env::temp_dir().join(format!("quorum-fp54-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("real")).unwrap();
    std::os::unix::fs::symlink(dir.join("real"), dir.join("debate")).unwrap();
    let refused = quorum::artifact::publish(&dir.join("debate/x.md"), b"x");
    assert!(refused.is_err(), "a linked folder is refused");
    assert!(!dir.join("real/x.md").exists());
    quorum::artifact::publish(&dir.join("fine/x.md"), b"x").unwrap();
    let meta = std::fs::symlink_metadata(dir.join("fine/x.md")).unwrap();
    assert!(meta.file_type().is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

/// RF-04, RF-06, RF-07: the summary opens with the verdict in plain words
/// and no process provenance (no ids, role names or shares); the end-of-run
/// message is that opening.
#[test]
fn rf_04_06_07_reader_first_summary() {
    let mut h = published();
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    finish_with(&mut h, &[("F001", "endorse"), ("F003", "endorse")]);
    let lead = h.protocol.summary_lead().unwrap();
    assert!(lead.starts_with("**CONCERNS.**"), "{lead}");
    assert!(
        quorum::protocol::record::provenance(
            &lead,
            SCOPE,
            &quorum::protocol::registry::role_words()
        )
        .is_empty(),
        "{lead}"
    );
    for word in ["F001", "F003", "expert", "devil", "checker", "0.5"] {
        assert!(!lead.contains(word), "{word} in {lead}");
    }
    let summary = h.document("summary.md");
    assert!(summary.contains(&lead));
    assert!(summary.contains("## How this was decided"));
}

// ---- fair judging (issue 29) -------------------------------------------------------

/// The standard council, judging blind with each participant in its own
/// order.
fn blind() -> Harness {
    let mut config = config(
        &["security", "performance"],
        Intensity::Standard,
        Preset::Default,
        CouncilMode::Review,
    );
    config.seating.fairness = Fairness::new(true, 5, Recusal::Off, Default::default());
    harness(config)
}

/// The inventory a final position reads, as its prompt carries it.
fn final_inventory(h: &Harness, role: &str) -> Vec<Value> {
    let prompt = h.prompt_of(&format!("{role}/final/"));
    let start = prompt.find("```json\n[").expect("the inventory") + "```json\n".len();
    let end = start + prompt[start..].find("\n```").expect("its end");
    serde_json::from_str(&prompt[start..end]).expect("the inventory is JSON")
}

/// Issue 29: a blind council's final positions read the findings without
/// who raised them (each participant's own are listed apart), each in its
/// own order; a council from before fair judging reads them as it did.
#[test]
fn issue_29_final_positions_read_the_findings_blind_and_in_their_own_order() {
    let mut h = published_from(blind());
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    let mut orders = std::collections::BTreeSet::new();
    for role in ["expert.security", "expert.performance", CHECKER, DEVIL] {
        let inventory = final_inventory(&h, role);
        assert_eq!(inventory.len(), 4, "{role}");
        for finding in &inventory {
            assert!(
                finding.get("origin").is_none(),
                "{role} reads who raised {finding}"
            );
        }
        orders.insert(
            inventory
                .iter()
                .map(|finding| finding["id"].as_str().unwrap().to_string())
                .collect::<Vec<_>>(),
        );
    }
    assert!(
        orders.len() > 1,
        "every participant read one order: {orders:?}"
    );
    let security = h.prompt_of("expert.security/final/");
    assert!(security.contains("You brought F001, F002"), "{security}");

    let mut legacy = published();
    legacy.answer("devil-advocate/challenge/r1", &devil(&[]));
    let inventory = final_inventory(&legacy, "expert.performance");
    assert_eq!(inventory[0]["origin"], "expert.security");
    let ids: Vec<&str> = inventory
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["F001", "F002", "F003", "F004"]);
}

/// Issue 29: a participant's naming of itself in a finding is masked in
/// what the final positions read, and the transcript notes it once.
#[test]
fn issue_29_a_blind_council_masks_self_identification_for_the_final_positions() {
    let mut h = blind();
    h.answer(
        "expert.security/independent/r0",
        &findings(
            "expert.security",
            &[finding(
                "HIGH",
                "Timing attack",
                "As Claude, I see that the signature comparison leaks timing.",
                &["security"],
            )],
        ),
    );
    for role in ["expert.performance", CHECKER, DEVIL] {
        h.answer(&format!("{role}/independent/r0"), &findings(role, &[]));
    }
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    let prompt = h.prompt_of("expert.performance/final/");
    assert!(prompt.contains("As [model], I see that"), "{prompt}");
    let transcript = h.document("transcript.md");
    let note = "fair judging: masked `Claude` as [model] in what the final positions read";
    assert_eq!(transcript.matches(note).count(), 1, "{transcript}");
}

/// Issue 29: how far the final positions agreed goes into council.json and
/// the summary, and a council that voted as one says its confirmations rest
/// on fewer votes than its headcount.
#[test]
fn issue_29_the_final_positions_agreement_is_recorded() {
    let mut h = published_from(blind());
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    let all = [
        ("F001", "endorse"),
        ("F002", "endorse"),
        ("F003", "dispute"),
        ("F004", "endorse"),
    ];
    finish_with(&mut h, &all);
    let record: Value = serde_json::from_str(&h.document("council.json")).unwrap();
    let agreement = &record["agreement"];
    assert_eq!(agreement["participants"], 4, "{agreement}");
    assert_eq!(agreement["findings"], 4, "{agreement}");
    // Every participant voted alike; pairs that share one finding only
    // count as independent, so the figure is near one vote, not exactly.
    assert!(
        agreement["effective_votes"].as_f64().unwrap() < 2.0,
        "{agreement}"
    );
    assert_eq!(agreement["alpha"], 1.0, "{agreement}");
    let summary = h.document("summary.md");
    assert!(
        summary.contains("Final positions: judges' agreement"),
        "{summary}"
    );
    assert!(
        summary.contains("effectively fewer than two independent votes"),
        "{summary}"
    );
    assert!(
        h.document("transcript.md")
            .contains("the final positions: judges' agreement")
    );

    let mut legacy = published();
    legacy.answer("devil-advocate/challenge/r1", &devil(&[]));
    finish_with(&mut legacy, &all);
    let record: Value = serde_json::from_str(&legacy.document("council.json")).unwrap();
    assert!(
        record.get("agreement").is_none(),
        "a council from before keeps its record"
    );
}

/// Issue 29, recusal in the council: a participant of the same model family
/// as a finding's origin is left out of that finding's count under
/// `recuse`; council.json keeps the policy and the families, the rule and
/// the transcript say who was recused, and the participant's pane says so.
#[test]
fn issue_29_a_participant_of_the_origins_family_is_recused_from_its_findings() {
    let mut config = config(
        &["security", "performance"],
        Intensity::Standard,
        Preset::Default,
        CouncilMode::Review,
    );
    let families = [("expert.security", "anthropic"), (DEVIL, "anthropic")]
        .into_iter()
        .map(|(slot, family)| (slot.to_string(), Family::new(family).unwrap()))
        .collect();
    config.seating.fairness = Fairness::new(true, 5, Recusal::Recuse, families);
    let mut h = published_from(harness(config));
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    let all = [
        ("F001", "endorse"),
        ("F002", "endorse"),
        ("F003", "endorse"),
        ("F004", "endorse"),
    ];
    finish_with(&mut h, &all);
    let record: Value = serde_json::from_str(&h.document("council.json")).unwrap();
    assert_eq!(
        record["fairness"]["recusal"], "recuse",
        "{}",
        record["fairness"]
    );
    assert_eq!(record["fairness"]["families"][DEVIL], "anthropic");
    let f001 = record["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|finding| finding["id"] == "F001")
        .unwrap();
    let rule = f001["rule"].as_str().unwrap();
    assert!(
        rule.contains("devil-advocate recused: its origin's model family"),
        "{rule}"
    );
    assert!(!rule.contains("endorsed by devil-advocate"), "{rule}");
    // The performance expert's finding has no kin: the devil counts there.
    let f003 = record["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|finding| finding["origins"] == json!(["expert.performance"]))
        .unwrap();
    assert!(
        f003["rule"].as_str().unwrap().contains("devil-advocate"),
        "{f003}"
    );
    assert!(
        h.document("transcript.md")
            .contains("devil-advocate recused: its origin's model family"),
    );
    let description = h.protocol.describe();
    let devil_pane = description
        .roles
        .iter()
        .find(|role| role.slot == DEVIL)
        .unwrap();
    assert!(
        devil_pane
            .marks
            .contains(&"≈ anthropic recused".to_string()),
        "{:?}",
        devil_pane.marks
    );
    let performance = description
        .roles
        .iter()
        .find(|role| role.slot == "expert.performance")
        .unwrap();
    assert_eq!(performance.marks, ["blind", "own order"]);
}

/// Models a participant may be played by, of several families.
const MODELS: [&str; 6] = [
    "anthropic:claude-sonnet-4-5",
    "openai:gpt-4.1-mini",
    "gemini:gemini-2.5-pro",
    "ollama:llama3.1:8b",
    "mistral:mistral-large-2411",
    "deepseek:deepseek-r1",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(16))]

    /// Issue 29: when the council is blind, no final-position prompt holds
    /// the model of any participant, however a participant signed its
    /// finding, and none says who raised a finding.
    #[test]
    fn issue_29_blind_final_positions_name_no_participants_model(
        picks in proptest::collection::vec(0..MODELS.len(), 4),
        signer in 0..4usize,
    ) {
        let mut config = config(
            &["security", "performance"],
            Intensity::Standard,
            Preset::Default,
            CouncilMode::Review,
        );
        let slots = ["expert.security", "expert.performance", CHECKER, DEVIL];
        for (slot, pick) in slots.iter().zip(&picks) {
            config.seating.agents.insert(slot.to_string(), MODELS[*pick].into());
        }
        config.seating.fairness = Fairness::new(true, 5, Recusal::Off, Default::default());
        let mut h = harness(config);
        for (index, slot) in slots.iter().enumerate() {
            let model = MODELS[picks[index]].split_once(':').unwrap().1;
            let description = match index == signer {
                true => format!("As {model}, I see the comparison leak timing."),
                false => "The comparison leaks timing.".to_string(),
            };
            let list = [finding("MEDIUM", &format!("Leak seen by {index}"), &description, &["security"])];
            h.answer(&format!("{slot}/independent/r0"), &findings(slot, &list));
        }
        h.answer("devil-advocate/challenge/r1", &devil(&[]));
        for slot in slots {
            let prompt = h.prompt_of(&format!("{slot}/final/")).to_lowercase();
            for pick in &picks {
                let model = MODELS[*pick].split_once(':').unwrap().1.to_lowercase();
                proptest::prop_assert!(!prompt.contains(&model), "{} reads `{}`", slot, model);
            }
            for finding in final_inventory(&h, slot) {
                proptest::prop_assert!(finding.get("origin").is_none(), "{} reads an origin", slot);
            }
        }
    }
}

// ---- the stability receipt and the missing participants (issue 55) ------------

use quorum::protocol::council::stability as council_stability;
use quorum::protocol::stability::{Stability, Variant};

/// [`standard`] asking for a receipt of `variants`, `required` or not.
fn receipt_council(variants: u32, required: bool) -> Harness {
    let mut config = config(
        &["security", "performance"],
        Intensity::Standard,
        Preset::Default,
        CouncilMode::Review,
    );
    config.stability = Stability {
        variants,
        required,
        names_missing: true,
    };
    published_from(harness(config))
}

/// Each origin withdraws what it brought: nothing stands, a PASS.
fn withdrawing(role: &str) -> String {
    let own: &[(&str, &str)] = match role {
        "expert.security" => &[("F001", "withdraw"), ("F002", "withdraw")],
        "expert.performance" => &[("F003", "withdraw")],
        CHECKER => &[("F004", "withdraw")],
        _ => &[],
    };
    position(role, own, &[])
}

/// Every origin withdraws but performance, which keeps its HIGH F003,
/// and every other participant endorses it: a confirmed HIGH, CONCERNS.
fn keeping_f003(role: &str) -> String {
    let stances: &[(&str, &str)] = match role {
        "expert.security" => &[
            ("F001", "withdraw"),
            ("F002", "withdraw"),
            ("F003", "endorse"),
        ],
        "expert.performance" => &[("F003", "endorse")],
        CHECKER => &[("F004", "withdraw"), ("F003", "endorse")],
        _ => &[("F003", "endorse")],
    };
    position(role, stances, &[])
}

const PARTICIPANTS: [&str; 4] = ["expert.security", "expert.performance", CHECKER, DEVIL];

/// `h` to its final positions (no challenge delivered), each participant
/// answering with `answer(role)`.
fn final_positions(h: &mut Harness, answer: fn(&str) -> String) {
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    for role in PARTICIPANTS {
        let prefix = format!("{role}/final/");
        if h.is_live(&prefix) {
            h.answer(&prefix, &answer(role));
        }
    }
}

/// Variant `k`'s participants, each answering with `answer(role)`.
fn answer_variant(h: &mut Harness, k: u32, answer: fn(&str) -> String) {
    for role in PARTICIPANTS {
        let prefix = format!("{role}/stability-{k}/");
        if h.is_live(&prefix) {
            h.answer(&prefix, &answer(role));
        }
    }
}

fn receipt_json(h: &Harness) -> Value {
    let record: Value = serde_json::from_str(&h.document("council.json")).unwrap();
    record["stability"].clone()
}

/// JM-40: the receipt runs only when asked, and only once the final
/// positions have given their verdict: every participant whose position
/// counted is asked again under each variant, its answer to a file of its
/// own, the forecast said first; until every variant is in, the council
/// has not ended. A brainstorm, which ends with a handoff, refuses it.
#[test]
fn jm_40_the_receipt_runs_after_the_verdict_and_only_when_asked() {
    let mut plain = published();
    final_positions(&mut plain, withdrawing);
    assert_eq!(plain.verdict(), Verdict::Pass);
    assert!(!plain.log_text().contains("stability"));
    assert!(receipt_json(&plain).is_null());

    let mut h = receipt_council(2, false);
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    for role in PARTICIPANTS {
        assert!(!h.was_started(&format!("{role}/stability-")), "{role}");
        h.answer(&format!("{role}/final/"), &withdrawing(role));
    }
    assert!(h.protocol.outcome().is_none(), "the receipt comes first");
    for k in [1, 2] {
        for role in PARTICIPANTS {
            let call = h.call(&format!("{role}/stability-{k}/"));
            assert_eq!(
                call.raw_output_path.as_deref(),
                Some(format!("phase-5/stability/variant-{k}/{role}.md").as_str())
            );
        }
    }
    assert!(
        h.log_text()
            .contains("final positions: PASS; the stability receipt asks for them again under 2 variants: 8 calls ≈"),
        "{}",
        h.log_text()
    );
    // A person seated for a participant fills in a final position.
    let template = quorum::protocol::council::documents::answer_template(
        &h.protocol,
        "stability-1",
        "expert.security",
    );
    assert!(template.contains("\"positions\""), "{template}");
    answer_variant(&mut h, 1, withdrawing);
    assert!(h.protocol.outcome().is_none(), "variant 2 is still out");
    answer_variant(&mut h, 2, withdrawing);
    assert_eq!(h.verdict(), Verdict::Pass);
    let Some(Outcome::Decided { rule, .. }) = h.protocol.outcome() else {
        panic!("decided");
    };
    assert!(
        rule.ends_with("; verdict stable in 2 of 2 → PASS"),
        "{rule}"
    );
    assert_eq!(receipt_json(&h)["summary"], "verdict stable in 2 of 2");

    use quorum::protocol::kind::{Configure, FlagValue, ProtocolKind};
    let flags = [
        FlagValue {
            flag: "--mode".into(),
            key: "mode".into(),
            value: "brainstorm".into(),
        },
        FlagValue {
            flag: "--stability".into(),
            key: "stability".into(),
            value: 2.into(),
        },
    ];
    let refused = quorum::protocol::council::KIND
        .configure(&Configure {
            flags: &flags,
            ..Configure::default()
        })
        .err()
        .expect("a brainstorm has no verdict to re-judge");
    assert!(
        refused.to_string().contains("ends with a handoff"),
        "{refused}"
    );
}

/// JM-41: a variant's prompt is the final position's in another order,
/// the other participants under neutral labels: the same findings, the
/// same ids asked about, nothing else; variant 2 reads variant 1's order
/// back to front.
#[test]
fn jm_41_a_variant_prompt_differs_only_in_order_and_labels() {
    let mut h = receipt_council(2, false);
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    let real = final_inventory(&h, "expert.security");
    for role in PARTICIPANTS {
        h.answer(&format!("{role}/final/"), &withdrawing(role));
    }
    let inventory = |k: u32| -> Vec<Value> {
        let prompt = h.prompt_of(&format!("expert.security/stability-{k}/"));
        let start = prompt.find("```json\n[").expect("the inventory") + "```json\n".len();
        let end = start + prompt[start..].find("\n```").expect("its end");
        serde_json::from_str(&prompt[start..end]).expect("the inventory is JSON")
    };
    let (first, second) = (inventory(1), inventory(2));
    let ids = |list: &[Value]| -> Vec<String> {
        list.iter()
            .map(|f| f["id"].as_str().unwrap().to_string())
            .collect()
    };
    let mut reversed = ids(&first);
    reversed.reverse();
    assert_eq!(
        ids(&second),
        reversed,
        "variant 2 reads variant 1 back to front"
    );
    let mut sorted = ids(&first);
    sorted.sort();
    assert_eq!(sorted, ids(&real), "the same findings, none left out");
    let variant = Variant::new(0, 1);
    for finding in &first {
        let origin = finding["origin"].as_str().unwrap();
        let real = real.iter().find(|f| f["id"] == finding["id"]).unwrap();
        if real["origin"] == "expert.security" {
            assert_eq!(origin, "expert.security", "its own findings keep its name");
        } else {
            assert!(
                origin.starts_with(&variant.author_label),
                "{origin}: another's name is a neutral label"
            );
        }
        // Only the origin's name differs.
        let mut relabelled = finding.clone();
        relabelled["origin"] = real["origin"].clone();
        assert_eq!(&relabelled, real);
    }
}

/// JM-42, JM-43: each variant's verdict is derived by the code of the
/// real one: the rule of a variant whose positions keep F003 is the rule
/// a council whose final positions keep it gives; the receipt counts in
/// how many variants the verdict held and names the one that flipped.
#[test]
fn jm_42_43_a_variant_is_judged_by_the_real_verdicts_code_and_counted() {
    let mut kept = published();
    final_positions(&mut kept, keeping_f003);
    assert_eq!(kept.verdict(), Verdict::Concerns);
    let Some(Outcome::Decided {
        rule: kept_rule, ..
    }) = kept.protocol.outcome().cloned()
    else {
        panic!("decided");
    };

    let mut h = receipt_council(2, false);
    final_positions(&mut h, withdrawing);
    answer_variant(&mut h, 1, withdrawing);
    answer_variant(&mut h, 2, keeping_f003);
    assert_eq!(
        h.verdict(),
        Verdict::Pass,
        "without the requirement it stands"
    );
    let receipt = h.protocol.receipt().expect("the receipt is in").clone();
    assert_eq!(receipt.variants[1].rule, kept_rule);
    assert_eq!(receipt.stable(), 1);
    assert_eq!(
        receipt.summary(),
        "verdict stable in 1 of 2 (variant 2 gave CONCERNS)"
    );
    let json = receipt_json(&h);
    assert_eq!(json["variants"][1]["verdict"], "CONCERNS");
    assert_eq!(json["receipt"]["verdict"], "PASS");
    let summary = h.document("summary.md");
    assert!(
        summary.contains("verdict stable in 1 of 2 (variant 2 gave CONCERNS)"),
        "{summary}"
    );
}

/// JM-44: under `require_stability` a PASS that does not hold in every
/// variant is CONCERNS, the rule saying why in words; a verdict other than
/// PASS is not turned.
#[test]
fn jm_44_require_stability_turns_an_unstable_pass_to_concerns() {
    let mut h = receipt_council(2, true);
    final_positions(&mut h, withdrawing);
    answer_variant(&mut h, 1, withdrawing);
    answer_variant(&mut h, 2, keeping_f003);
    assert_eq!(h.verdict(), Verdict::Concerns);
    let Some(Outcome::Decided { rule, .. }) = h.protocol.outcome() else {
        panic!("decided");
    };
    assert!(
        rule.ends_with(
            "the PASS held in only 1 of 2 re-judged variants, and require_stability asks for all 2 (variant 2 gave CONCERNS) → CONCERNS"
        ),
        "{rule}"
    );
    assert!(
        h.document("summary.md")
            .contains("Stability was required for a PASS, so the verdict is CONCERNS."),
    );

    let mut steady = receipt_council(2, true);
    final_positions(&mut steady, keeping_f003);
    answer_variant(&mut steady, 1, keeping_f003);
    answer_variant(&mut steady, 2, withdrawing);
    assert_eq!(
        steady.verdict(),
        Verdict::Concerns,
        "a CONCERNS is not turned"
    );
    let Some(Outcome::Decided { rule, .. }) = steady.protocol.outcome() else {
        panic!("decided");
    };
    assert!(rule.ends_with("(variant 2 gave PASS) → CONCERNS"), "{rule}");
    assert!(!rule.contains("require_stability"), "{rule}");
}

/// JM-45: a verdict reached with participants missing from the final
/// positions names them, why, and whether they were the slowest; a
/// council journaled before keeps its old words.
#[test]
fn jm_45_missing_participants_are_named_with_whether_they_were_slowest() {
    let mut h = receipt_council(0, false);
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    for role in ["expert.security", CHECKER, DEVIL] {
        h.answer(&format!("{role}/final/"), &withdrawing(role));
    }
    h.time_out("expert.performance/final/");
    let Some(Outcome::Decided { rule, .. }) = h.protocol.outcome().cloned() else {
        panic!("decided: {}", h.log_text());
    };
    assert!(
        rule.contains("without the expert.performance (skipped: "),
        "{rule}"
    );
    assert!(
        rule.contains("it was the slowest: every participant that answered took less"),
        "{rule}"
    );
    let record: Value = serde_json::from_str(&h.document("council.json")).unwrap();
    assert!(
        record["final_calls"]["expert.performance"]["missing"]
            .as_str()
            .unwrap()
            .starts_with("skipped"),
        "{record}"
    );

    // Unreadable, and answering before the others: not the slowest.
    let mut h = receipt_council(0, false);
    h.answer("devil-advocate/challenge/r1", &devil(&[]));
    h.answer("expert.performance/final/", "no json here at all");
    for role in ["expert.security", CHECKER, DEVIL] {
        h.answer(&format!("{role}/final/"), &withdrawing(role));
    }
    let Some(Outcome::Decided { rule, .. }) = h.protocol.outcome().cloned() else {
        panic!("decided: {}", h.log_text());
    };
    assert!(
        rule.contains("without the expert.performance (its final position was unreadable): it was not the slowest"),
        "{rule}"
    );

    // A council from before names nobody.
    let mut legacy = published();
    legacy.answer("devil-advocate/challenge/r1", &devil(&[]));
    for role in ["expert.security", CHECKER, DEVIL] {
        legacy.answer(&format!("{role}/final/"), &withdrawing(role));
    }
    legacy.time_out("expert.performance/final/");
    let Some(Outcome::Decided { rule, .. }) = legacy.protocol.outcome() else {
        panic!("decided");
    };
    assert!(!rule.contains("without"), "{rule}");
    assert!(council_stability::missing_sentence(&Default::default()).is_none());
}

/// JM-46: a variant's answer goes to its file before it is read; one that
/// does not read is left out of its variant (never asked again, never
/// held for the moderator), and that variant's rule names it.
#[test]
fn jm_46_an_unreadable_variant_answer_is_left_out_and_named() {
    let mut h = receipt_council(1, false);
    final_positions(&mut h, withdrawing);
    let started = h.started.len();
    h.answer("devil-advocate/stability-1/", "not a position");
    for role in ["expert.security", "expert.performance", CHECKER] {
        h.answer(&format!("{role}/stability-1/"), &withdrawing(role));
    }
    assert_eq!(h.started.len(), started, "nothing asked again");
    let receipt = h.protocol.receipt().expect("done").clone();
    assert!(
        receipt.variants[0]
            .rule
            .contains("without the devil-advocate (its answer was unreadable"),
        "{}",
        receipt.variants[0].rule
    );
    assert!(
        h.log_text()
            .contains("left out of that variant (not retried)")
    );
    let file = h.document("phase-5/stability/variant-1/devil-advocate.md");
    assert!(file.starts_with("<!-- MALFORMED: "), "{file}");
    assert!(file.ends_with("not a position"), "{file}");
}
