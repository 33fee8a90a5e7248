//! End-to-end runs of the five-phase council on the real binary (issue 12,
//! "Tests that must exist"; RULES.md section 10, FP-01..FP-55, A20..A24):
//! the built-in demo and its deliverable pair, quick intensity, a
//! participant that times out and is skipped, the security-elevated preset,
//! fallback (asked for, and forced by a silent devil's advocate), the
//! brainstorm demo and its handoff, budget exhaustion, `quorum verdict`
//! recomputing from an edited final position, resume after a kill -9 in a
//! challenge round, and bad input (unknown domain, intensity and preset;
//! malformed JSON findings).
use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use quorum::agent::script::Script;
use serde_json::Value as Json;
use support::council::{defenses, devil, finding, findings, position};
use support::run::{QUORUM, Ran, Sandbox, only_run, quorum_in};
use support::{ScriptBuilder, scripted_spec, spec_yaml};
use yaml_serde::Value;

const SCOPE: &str = "The order service's checkout endpoint before the holiday peak";

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|_| panic!("{name} is written"))
}

fn record(dir: &Path) -> Json {
    serde_json::from_str(&read(dir, "council.json")).expect("council.json is JSON")
}

/// The exit code of a verdict (the one table: PASS 0, CONCERNS 6, FAIL 7).
fn code_of(verdict: &str) -> i32 {
    match verdict {
        "PASS" => 0,
        "CONCERNS" => 6,
        "FAIL" => 7,
        other => panic!("not a verdict: {other}"),
    }
}

/// `args` with `--out OUT` after them, run in the sandbox; the one run
/// folder under OUT.
fn run_in(sandbox: &Sandbox, args: &[&str], out: &str) -> (Ran, PathBuf) {
    let out = sandbox.path().join(out);
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--out", out.to_str().unwrap()]);
    let ran = quorum_in(sandbox.path(), &all, &[], None);
    assert!(
        out.exists(),
        "no run folder\n--- stdout\n{}\n--- stderr\n{}",
        ran.stdout,
        ran.stderr
    );
    let dir = only_run(&out);
    (ran, dir)
}

/// `quorum demo --protocol council --headless --speed 50` with `extra`.
fn demo(sandbox: &Sandbox, extra: &[&str], out: &str) -> (Ran, PathBuf) {
    let mut args = vec![
        "demo",
        "--protocol",
        "council",
        "--headless",
        "--speed",
        "50",
    ];
    args.extend_from_slice(extra);
    run_in(sandbox, &args, out)
}

/// The built-in demo's spec, as `quorum demo --export-script` writes it.
fn demo_text(sandbox: &Sandbox, mode: Option<&str>) -> String {
    let path = sandbox.path().join("exported-demo.yaml");
    let mut args = vec![
        "demo",
        "--protocol",
        "council",
        "--export-script",
        path.to_str().unwrap(),
    ];
    if let Some(mode) = mode {
        args.extend(["--mode", mode]);
    }
    sandbox.quorum(&args, &[]).assert_code(0);
    std::fs::read_to_string(path).unwrap()
}

/// `text` with `from` replaced once; panics when it is not there.
fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` not in the text");
    text.replacen(from, to, 1)
}

/// A council spec on [`SCOPE`], every role scripted, with `domains`,
/// `intensity` and the YAML lines of `extra`.
fn spec(script: Script, domains: &[&str], intensity: &str, extra: &str) -> String {
    let mut spec = scripted_spec(SCOPE, script);
    spec.protocol = "council".into();
    spec.options.insert(
        Value::String("domains".into()),
        Value::Sequence(
            domains
                .iter()
                .map(|d| Value::String(d.to_string()))
                .collect(),
        ),
    );
    spec.options.insert(
        Value::String("intensity".into()),
        Value::String(intensity.into()),
    );
    spec.options.insert(
        Value::String("review_id".into()),
        Value::String("e2e".into()),
    );
    format!("{}{extra}", spec_yaml(&spec))
}

/// `quorum run SPEC --headless` in the sandbox with `extra` flags.
fn run_spec(sandbox: &Sandbox, text: &str, extra: &[&str], out: &str) -> (Ran, PathBuf) {
    let path = sandbox.write(&format!("{out}.yaml"), text);
    let mut args = vec!["run", path.to_str().unwrap(), "--headless"];
    args.extend_from_slice(extra);
    run_in(sandbox, &args, out)
}

/// The deliverable pair's files in `folder`, by name.
fn pair_in(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .unwrap_or_else(|_| panic!("{} exists", folder.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The YAML front matter of a deliverable: its lines between the `---`.
fn front_matter(markdown: &str) -> Vec<String> {
    let body = markdown
        .strip_prefix("---\n")
        .expect("the deliverable starts with front matter");
    let end = body.find("\n---\n").expect("the front matter ends");
    body[..end].lines().map(str::to_string).collect()
}

/// The value of `key` in front-matter `lines`.
fn field<'a>(lines: &'a [String], key: &str) -> Option<&'a str> {
    lines
        .iter()
        .find_map(|line| line.strip_prefix(&format!("{key}: ")))
}

/// Every path under `dir` that is a symbolic link.
fn symlinks_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                found.push(path);
            } else if meta.is_dir() {
                pending.push(path);
            }
        }
    }
    found
}

/// The built-in demo writes its run folder (phase-1/, phase-3/round-1/,
/// phase-5/, council.json, packets.jsonl, transcript.md, summary.md,
/// journal.jsonl) and the deliverable pair
/// `.outputs/debate/{YYYYMMDD-HHMMSS}-debate-demo-webhooks.{md,json}` with
/// the seed's front matter (FP-52, FP-53), creates no symlink (FP-54), ends
/// CONCERNS with exit 6 (FP-40), and `--outputs DIR` moves the pair (FP-52).
#[test]
fn fp_52_fp_53_fp_54_the_demo_writes_its_folder_and_the_deliverable_pair() {
    let sandbox = Sandbox::new();
    let (ran, dir) = demo(&sandbox, &[], "out");
    ran.assert_code(6);
    assert!(ran.stdout.starts_with("**CONCERNS.**"), "{}", ran.stdout);
    for name in [
        "council.json",
        "packets.jsonl",
        "transcript.md",
        "summary.md",
        "journal.jsonl",
        "phase-1/expert.security.md",
        "phase-1/expert.performance.md",
        "phase-1/expert.reliability.md",
        "phase-1/expert.data.md",
        "phase-1/integration-checker.md",
        "phase-1/devil-advocate.md",
        "phase-3/round-1/devil-advocate.md",
        "phase-3/round-1/expert.security.md",
        "phase-3/round-2/devil-advocate.md",
        "phase-5/expert.security.md",
        "phase-5/integration-checker.md",
        "phase-5/devil-advocate.md",
    ] {
        assert!(dir.join(name).is_file(), "{name} is written");
    }
    let council = record(&dir);
    assert_eq!(council["verdict"], "CONCERNS");
    assert_eq!(council["type"], "debate-protocol");
    assert_eq!(council["review_id"], "demo-webhooks");
    // FP-49..FP-51: every line of packets.jsonl is a JSON packet or envelope.
    let packets = read(&dir, "packets.jsonl");
    assert!(packets.lines().count() > 10);
    for line in packets.lines() {
        let packet: Json = serde_json::from_str(line).expect("a packet per line");
        assert_eq!(packet["schema_version"], "1.0", "{line}");
    }

    // The deliverable pair (FP-52, FP-53), under the artifact root `--out`
    // names (issue 62), never in the working directory.
    let folder = sandbox.path().join("out/.outputs/debate");
    assert!(!sandbox.path().join(".outputs").exists());
    let names = pair_in(&folder);
    let pattern = regex::Regex::new(r"^(\d{8}-\d{6})-debate-demo-webhooks\.(md|json)$").unwrap();
    assert_eq!(names.len(), 2, "{names:?}");
    let stems: Vec<String> = names
        .iter()
        .map(|name| {
            let captures = pattern
                .captures(name)
                .unwrap_or_else(|| panic!("{name} is not a deliverable name"));
            captures[1].to_string()
        })
        .collect();
    assert_eq!(stems[0], stems[1], "one stem for the pair: {names:?}");
    assert!(names[0].ends_with(".json") && names[1].ends_with(".md"));
    // The end of the run says where the pair went.
    for name in &names {
        let line = format!("Delivered: {}", folder.join(name).display());
        assert!(ran.stdout.contains(&line), "{line} in\n{}", ran.stdout);
    }
    // The stamp is the council's start.
    let started = council["started_at"].as_str().unwrap();
    let started = chrono::DateTime::parse_from_rfc3339(started).expect("started_at is ISO 8601");
    assert_eq!(started.format("%Y%m%d-%H%M%S").to_string(), stems[0]);

    let markdown = std::fs::read_to_string(folder.join(&names[1])).unwrap();
    let lines = front_matter(&markdown);
    assert_eq!(field(&lines, "skill"), Some("debate-protocol"));
    assert_eq!(field(&lines, "artifact_type"), Some("debate"));
    assert_eq!(
        field(&lines, "domains"),
        Some("[security, performance, reliability, data]")
    );
    assert_eq!(field(&lines, "verdict"), Some("CONCERNS"));
    assert_eq!(field(&lines, "intensity"), Some("standard"));
    assert_eq!(field(&lines, "review_id"), Some("\"demo-webhooks\""));
    assert_eq!(
        field(&lines, "context_summary"),
        Some(
            "\"Review the webhook handler that credits customer balances when the payment provider reports a settled charge.\""
        )
    );
    let stamp = field(&lines, "timestamp").expect("a timestamp");
    chrono::DateTime::parse_from_rfc3339(stamp)
        .unwrap_or_else(|error| panic!("timestamp `{stamp}` is not ISO 8601: {error}"));
    assert!(field(&lines, "type").is_none(), "not a fallback");
    assert!(field(&lines, "budget_exhausted").is_none());
    assert!(markdown.contains(&read(&dir, "summary.md")));

    let companion: Json =
        serde_json::from_str(&std::fs::read_to_string(folder.join(&names[0])).unwrap()).unwrap();
    assert_eq!(companion["verdict"], "CONCERNS");
    assert_eq!(companion["review_id"], "demo-webhooks");
    assert_eq!(companion["skill"], "debate-protocol");
    // FP-38, A24: the dissent is in the JSON.
    let disputed = companion["disputed_findings"].as_array().unwrap();
    assert!(disputed.iter().any(|d| d["id"] == "F003"), "{disputed:?}");
    assert!(!companion["rounds"].as_array().unwrap().is_empty());
    assert!(!companion["positions"].as_object().unwrap().is_empty());

    // A21: `quorum verdict` derives the same from the folder, merge included.
    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(6);
    assert!(
        verdict.stdout.starts_with(&format!(
            "CONCERNS\n{}\n",
            council["rule"].as_str().unwrap()
        )),
        "{}",
        verdict.stdout
    );

    // FP-54: no symlink anywhere, no "latest".
    assert_eq!(symlinks_under(sandbox.path()), Vec::<PathBuf>::new());

    // --outputs DIR moves the pair; nothing new under .outputs.
    let moved = sandbox.path().join("elsewhere");
    let (ran, _) = demo(
        &sandbox,
        &["--outputs", moved.to_str().unwrap()],
        "out-moved",
    );
    ran.assert_code(6);
    let moved_names = pair_in(&moved.join("debate"));
    assert_eq!(moved_names.len(), 2, "{moved_names:?}");
    assert!(moved_names.iter().all(|name| pattern.is_match(name)));
    assert_eq!(pair_in(&folder), names, "the default root is left alone");
    assert!(!sandbox.path().join("out-moved/.outputs").exists());
    assert_eq!(symlinks_under(sandbox.path()), Vec::<PathBuf>::new());
}

/// FP-06, FP-22, FP-33: at quick intensity only phases 1, 2 and 5 run: no
/// challenge round (no phase-3 files, `rounds` empty) and no synthesis (no
/// merge proposed); the exit code follows the verdict.
#[test]
fn fp_06_quick_intensity_runs_no_challenge_and_no_synthesis() {
    let sandbox = Sandbox::new();
    let (ran, dir) = demo(&sandbox, &["--intensity", "quick"], "out");
    let council = record(&dir);
    let verdict = council["verdict"].as_str().expect("a verdict");
    ran.assert_code(code_of(verdict));
    assert!(!dir.join("phase-3").exists(), "no challenge round");
    assert!(dir.join("phase-5/devil-advocate.md").is_file());
    assert_eq!(council["intensity"], "quick");
    assert_eq!(council["max_rounds"], 0);
    assert_eq!(council["phases"], serde_json::json!([1, 2, 5]));
    assert_eq!(council["rounds"], serde_json::json!([]));
    assert_eq!(council["challenges"], serde_json::json!([]));
    assert_eq!(council["merges"]["proposed"], serde_json::json!([]));
    let transcript = read(&dir, "transcript.md");
    assert!(!transcript.contains("stage: challenge"), "{transcript}");
    assert!(!transcript.contains("stage: synthesis"), "{transcript}");
    assert!(transcript.contains("stage: final"));
}

/// FP-09, A20: the budget counts every call, and when it runs out the
/// council records `budget_exhausted`. At quick intensity with four
/// experts the budget (6 + 5 = 11 calls) cannot hold one Phase 1 and one
/// Phase 5 call per participant (12): every participant still gives its
/// final position (FP-37), and the record says the budget was exhausted.
#[test]
fn fp_09_a20_quick_intensity_stays_within_its_budget_or_records_exhaustion() {
    let sandbox = Sandbox::new();
    let (_, dir) = demo(&sandbox, &["--intensity", "quick"], "out");
    let budget = &record(&dir)["budget"];
    let used = budget["used"].as_u64().unwrap();
    let limit = budget["limit"].as_u64().unwrap();
    assert_eq!(limit, 11, "quick = reviewer_count + 5, DA and IC counted");
    assert_eq!(used, 12, "{budget}");
    assert_eq!(budget["exhausted"], true, "{budget}");
    assert!(
        budget["reason"].as_str().unwrap().contains("1 over its 11"),
        "{budget}"
    );
}

/// FP-14, FP-37, A20: an expert whose Phase 1 call times out on both
/// attempts is skipped: TIMEOUT, RETRY and SKIP lines with their call ids
/// in transcript.md, the participant `out` in council.json and not asked
/// in the rounds; it is still asked for a final position on what the
/// others found (FP-37: every participant, issue 60), and the council
/// ends with a verdict.
#[test]
fn fp_14_a_participant_timing_out_twice_is_skipped_and_the_council_ends() {
    let sandbox = Sandbox::new();
    let text = demo_text(&sandbox, None);
    let text = replace_once(&text, "timeout_secs: 600", "timeout_secs: 1");
    let text = replace_once(
        &text,
        "  replies:\n",
        "  replies:\n    - {role: expert.performance, stage: independent, attempt: 1, fault: timeout}\n    - {role: expert.performance, stage: independent, attempt: 2, fault: timeout}\n",
    );
    let (ran, dir) = run_spec(&sandbox, &text, &["--speed", "50"], "out");
    let council = record(&dir);
    let verdict = council["verdict"]
        .as_str()
        .expect("the council ends with a verdict");
    ran.assert_code(code_of(verdict));
    let transcript = read(&dir, "transcript.md");
    for line in [
        "**TIMEOUT** `expert.performance/independent/r0/a1`",
        "**RETRY** `expert.performance/independent/r0/a1`",
        "**TIMEOUT** `expert.performance/independent/r0/a2`",
        "**SKIP** `expert.performance/independent/r0/a2`",
        "expert.performance gave no Phase 1 answer",
    ] {
        assert!(transcript.contains(line), "{line} in\n{transcript}");
    }
    // Not asked in the rounds; asked for a final position on what the
    // others found, as every participant is (FP-37, issue 60).
    assert!(
        !transcript.contains("`expert.performance/responses/"),
        "not asked in the rounds"
    );
    assert!(
        transcript.contains("`expert.performance/final/r2/a1`"),
        "asked for a final position"
    );
    assert!(
        transcript.contains("it takes no part in the rounds and is asked for a final position"),
        "{transcript}"
    );
    let performance = council["participants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "expert.performance")
        .expect("still on the roster");
    assert_eq!(performance["out"], true, "{performance}");
    assert!(!performance["final_position"].is_null(), "{performance}");
    assert!(dir.join("phase-5/expert.performance.md").is_file());
    assert!(!dir.join("phase-1/expert.performance.md").exists());
    assert!(dir.join("phase-5/expert.security.md").is_file());
    // Its findings are not in the inventory.
    let inventory = council["inventory"].as_array().unwrap();
    assert!(
        inventory
            .iter()
            .all(|f| f["origins"] != serde_json::json!(["expert.performance"])),
        "{inventory:?}"
    );
    // Both attempts counted against the budget (A20).
    assert!(council["budget"]["used"].as_u64().unwrap() >= 7);
}

/// The script of the security-elevated tests: the security expert reports a
/// LOW finding and an INFO finding, both tagged `security`; every other
/// participant endorses them in its final position except the devil's
/// advocate, who abstains, so both are confirmed at 3.0 of 3.5 (0.86, over
/// the 0.75 security threshold) under the security-elevated preset.
fn low_security_script() -> Script {
    let both = [("F001", "endorse"), ("F002", "endorse")];
    ScriptBuilder::default()
        .reply(
            "expert.security",
            "independent",
            None,
            None,
            &findings(
                "expert.security",
                &[
                    finding(
                        "LOW",
                        "Error pages name the framework version",
                        &["security"],
                    ),
                    finding("INFO", "The CSP header is report-only", &["security"]),
                ],
            ),
        )
        .reply(
            "expert.performance",
            "independent",
            None,
            None,
            &findings("expert.performance", &[]),
        )
        .reply(
            "integration-checker",
            "independent",
            None,
            None,
            &findings("integration-checker", &[]),
        )
        .reply(
            "devil-advocate",
            "independent",
            None,
            None,
            &findings("devil-advocate", &[]),
        )
        .reply(
            "expert.security",
            "final",
            None,
            None,
            &position("expert.security", &[]),
        )
        .reply(
            "expert.performance",
            "final",
            None,
            None,
            &position("expert.performance", &both),
        )
        .reply(
            "integration-checker",
            "final",
            None,
            None,
            &position("integration-checker", &both),
        )
        .reply(
            "devil-advocate",
            "final",
            None,
            None,
            &position(
                "devil-advocate",
                &[("F001", "abstain"), ("F002", "abstain")],
            ),
        )
        .build()
}

/// `quorum council SCOPE` on `script` with two experts at quick intensity
/// and `extra` flags.
fn council_command(
    sandbox: &Sandbox,
    script: &Script,
    extra: &[&str],
    out: &str,
) -> (Ran, PathBuf) {
    let path = sandbox.write(
        &format!("{out}-script.yaml"),
        &yaml_serde::to_string(script).unwrap(),
    );
    let outputs = sandbox.path().join(format!("{out}-outputs"));
    let mut args = vec![
        "council",
        SCOPE,
        "--outputs",
        outputs.to_str().unwrap(),
        "--domain",
        "security",
        "--domain",
        "performance",
        "--intensity",
        "quick",
        "--review-id",
        "e2e-security",
        "--script",
        path.to_str().unwrap(),
        "--agent",
        "default=script",
        "--headless",
    ];
    args.extend_from_slice(extra);
    run_in(sandbox, &args, out)
}

/// FP-10, FP-11, FP-39, A20, A23: a confirmed LOW finding tagged `security`
/// passes under the default preset and FAILs (exit 7) under
/// `--preset security-elevated`, whose thresholds are da_weight 0.50,
/// consensus 0.67 and security 0.75; a confirmed INFO security finding does
/// not count (A23: LOW or above).
#[test]
fn fp_11_fp_39_a23_security_elevated_turns_a_confirmed_low_security_finding_into_fail() {
    let sandbox = Sandbox::new();
    let script = low_security_script();

    let (ran, dir) = council_command(&sandbox, &script, &[], "default");
    ran.assert_code(0);
    let council = record(&dir);
    assert_eq!(council["verdict"], "PASS", "{}", council["rule"]);
    assert_eq!(council["params"]["security_threshold"], 0.67, "FP-10");
    assert_eq!(council["params"]["da_weight"], 0.4, "FP-10");
    assert_eq!(council["params"]["consensus_threshold"], 0.5, "FP-10");
    let confirmed = council["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["state"] == "confirmed")
        .count();
    assert_eq!(confirmed, 2, "confirmed under the default preset too");

    let (ran, dir) = council_command(
        &sandbox,
        &script,
        &["--preset", "security-elevated"],
        "elevated",
    );
    ran.assert_code(7);
    let council = record(&dir);
    assert_eq!(council["preset"], "security-elevated");
    assert_eq!(council["params"]["da_weight"], 0.5, "FP-11");
    assert_eq!(council["params"]["consensus_threshold"], 0.67, "FP-11");
    assert_eq!(council["params"]["security_threshold"], 0.75, "FP-11");
    assert_eq!(council["verdict"], "FAIL");
    let rule = council["rule"].as_str().unwrap();
    assert_eq!(
        rule,
        "1 confirmed security finding at LOW or above under the security-elevated preset (F001) → FAIL"
    );
    let findings = council["findings"].as_array().unwrap();
    for id in ["F001", "F002"] {
        let f = findings.iter().find(|f| f["id"] == id).unwrap();
        assert_eq!(f["state"], "confirmed", "{f}");
        assert_eq!(f["threshold"], 0.75, "A20: the security threshold");
        assert_eq!(f["share"], 0.86, "3.0 of 3.5 with the DA at 0.5");
    }
    let folder = sandbox.path().join("elevated-outputs/debate");
    let names = pair_in(&folder);
    assert_eq!(names.len(), 2, "{names:?}");
    let markdown = std::fs::read_to_string(folder.join(&names[1])).unwrap();
    assert_eq!(field(&front_matter(&markdown), "verdict"), Some("FAIL"));
}

/// FP-42, A24: `--fallback` skips phases 3 and 4 (no phase-3 files, no
/// round, no merge) and goes straight to the final positions; the output is
/// marked `type: debate-protocol-fallback` in the front matter and
/// `"type": "debate-protocol-fallback"` in the JSON companion.
#[test]
fn fp_42_a24_fallback_skips_phases_3_and_4_and_marks_both_files() {
    let sandbox = Sandbox::new();
    let outputs = sandbox.path().join("fallback-outputs");
    let (ran, dir) = demo(
        &sandbox,
        &["--fallback", "--outputs", outputs.to_str().unwrap()],
        "out",
    );
    let council = record(&dir);
    let verdict = council["verdict"].as_str().expect("a verdict");
    ran.assert_code(code_of(verdict));
    assert!(!dir.join("phase-3").exists(), "no challenge round");
    assert!(
        dir.join("phase-5/devil-advocate.md").is_file(),
        "Phase 5 runs"
    );
    assert_eq!(council["type"], "debate-protocol-fallback");
    assert_eq!(council["fallback"], "fallback requested (--fallback)");
    assert_eq!(council["rounds"], serde_json::json!([]));
    assert_eq!(council["challenges"], serde_json::json!([]));
    assert_eq!(council["merges"]["proposed"], serde_json::json!([]));
    assert!(!read(&dir, "transcript.md").contains("stage: synthesis"));

    let folder = outputs.join("debate");
    let names = pair_in(&folder);
    assert_eq!(names.len(), 2, "{names:?}");
    let companion: Json =
        serde_json::from_str(&std::fs::read_to_string(folder.join(&names[0])).unwrap()).unwrap();
    assert_eq!(companion["type"], "debate-protocol-fallback");
    let markdown = std::fs::read_to_string(folder.join(&names[1])).unwrap();
    let lines = front_matter(&markdown);
    assert_eq!(field(&lines, "type"), Some("debate-protocol-fallback"));
    assert_eq!(field(&lines, "verdict"), Some(verdict));
}

/// FP-42, A24: a devil's advocate that gives no Phase 1 answer (timed out
/// twice) cannot take follow-up rounds: the council falls back on its own
/// and marks the output.
#[test]
fn fp_42_a24_a_devil_advocate_without_a_phase_1_answer_forces_fallback() {
    let sandbox = Sandbox::new();
    let text = demo_text(&sandbox, None);
    let text = replace_once(&text, "timeout_secs: 600", "timeout_secs: 1");
    let text = replace_once(
        &text,
        "  replies:\n",
        "  replies:\n    - {role: devil-advocate, stage: independent, attempt: 1, fault: timeout}\n    - {role: devil-advocate, stage: independent, attempt: 2, fault: timeout}\n",
    );
    let (ran, dir) = run_spec(&sandbox, &text, &["--speed", "50"], "out");
    let council = record(&dir);
    let verdict = council["verdict"].as_str().expect("a verdict");
    ran.assert_code(code_of(verdict));
    assert_eq!(council["type"], "debate-protocol-fallback");
    assert!(
        council["fallback"]
            .as_str()
            .unwrap()
            .contains("devil's advocate gave no Phase 1 answer"),
        "{}",
        council["fallback"]
    );
    assert!(!dir.join("phase-3").exists());
    assert_eq!(council["rounds"], serde_json::json!([]));
}

/// FP-43..FP-48, A24: the built-in brainstorm runs Diverge → Expand →
/// Challenge → Converge → Handoff over proposal objects P001… (one merged
/// in Expand, one parked, some accepted, one rejected), ends `completed`
/// with exit 0 and a handoff, and neither file of the deliverable pair
/// carries a verdict.
#[test]
fn fp_43_fp_48_the_brainstorm_demo_ends_with_a_handoff_not_a_verdict() {
    let sandbox = Sandbox::new();
    let (ran, dir) = demo(&sandbox, &["--mode", "brainstorm"], "out");
    ran.assert_code(0);
    assert!(ran.stdout.starts_with("**Direction:** "), "{}", ran.stdout);
    // FP-43: every stage left its files.
    for name in [
        "phase-1/expert.data.md",
        "phase-1/expert.security.md",
        "phase-1/expert.operations.md",
        "phase-1/integration-checker.md",
        "phase-1/devil-advocate.md",
        "expand/expert.data.md",
        "expand/devil-advocate.md",
        "phase-3/round-1/devil-advocate.md",
        "phase-3/round-1/expert.data.md",
        "phase-5/expert.operations.md",
        "handoff/synthesizer.md",
        "council.json",
        "packets.jsonl",
        "summary.md",
        "transcript.md",
        "journal.jsonl",
    ] {
        assert!(dir.join(name).is_file(), "{name} is written");
    }
    let transcript = read(&dir, "transcript.md");
    let order = [
        "stage: independent",
        "stage: expand",
        "stage: challenge (round 1",
        "stage: final",
        "stage: handoff",
        "completed: 4 accepted (P003, P005, P007, P008); handoff written by the synthesizer",
    ];
    let mut at = 0;
    for stage in order {
        let found = transcript[at..]
            .find(stage)
            .unwrap_or_else(|| panic!("{stage} after the stages before it"));
        at += found + stage.len();
    }

    let council = record(&dir);
    assert_eq!(council["mode"], "brainstorm");
    assert!(council.get("verdict").is_none(), "FP-48: no verdict");
    assert_eq!(
        council["inventory"],
        serde_json::json!([]),
        "FP-45: no findings"
    );
    let proposals = council["proposals"].as_array().unwrap();
    let statuses: Vec<(String, String)> = proposals
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_string(),
                p["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected = [
        ("P001", "merged"),
        ("P002", "parked"),
        ("P003", "accepted"),
        ("P004", "merged"),
        ("P005", "accepted"),
        ("P006", "rejected"),
        ("P007", "accepted"),
        ("P008", "accepted"),
    ];
    assert_eq!(
        statuses,
        expected
            .iter()
            .map(|(id, status)| (id.to_string(), status.to_string()))
            .collect::<Vec<_>>()
    );
    // FP-46: the proposal object, `status` and `maturity` apart (A24).
    for proposal in proposals {
        for key in [
            "id",
            "title",
            "summary",
            "rationale",
            "proposal_type",
            "maturity",
            "tradeoffs",
            "dependencies",
            "open_questions",
            "risks",
            "lineage",
            "status",
        ] {
            assert!(proposal.get(key).is_some(), "{key} in {proposal}");
        }
    }
    let p007 = &proposals[6];
    assert_eq!(
        p007["lineage"]["merged_from"],
        serde_json::json!(["P001", "P004"])
    );
    assert_eq!(p007["maturity"], "candidate");
    // The devil's advocate's discovery continues the sequence.
    assert_eq!(proposals[7]["origin"], "devil-advocate");
    // FP-44: the handoff.
    let handoff = &council["handoff"];
    assert!(
        handoff["accepted_direction"]
            .as_str()
            .unwrap()
            .starts_with("Build self-service export")
    );
    assert_eq!(handoff["open_questions"].as_array().unwrap().len(), 3);
    assert!(!handoff["next_step"].as_str().unwrap().is_empty());
    assert_eq!(council["convergence"].as_array().unwrap().len(), 8);

    // The pair: the seed's front matter without `verdict:` (A24).
    let folder = sandbox.path().join("out/.outputs/debate");
    let names = pair_in(&folder);
    let pattern = regex::Regex::new(r"^\d{8}-\d{6}-debate-demo-tenant-export\.(md|json)$").unwrap();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.iter().all(|name| pattern.is_match(name)), "{names:?}");
    let markdown = std::fs::read_to_string(folder.join(&names[1])).unwrap();
    let lines = front_matter(&markdown);
    assert!(field(&lines, "verdict").is_none(), "{lines:?}");
    assert!(!markdown.contains("\nverdict:"));
    assert_eq!(field(&lines, "skill"), Some("debate-protocol"));
    assert_eq!(field(&lines, "artifact_type"), Some("debate"));
    assert_eq!(
        field(&lines, "domains"),
        Some("[data, security, operations]")
    );
    assert_eq!(field(&lines, "intensity"), Some("standard"));
    assert_eq!(field(&lines, "mode"), Some("brainstorm"));
    assert!(markdown.contains("## Parked for later"));
    let companion: Json =
        serde_json::from_str(&std::fs::read_to_string(folder.join(&names[0])).unwrap()).unwrap();
    assert!(companion.get("verdict").is_none());
    assert_eq!(companion["handoff"], council["handoff"]);

    // `quorum verdict` says there is none to recompute.
    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(2);
    assert!(
        verdict
            .stderr
            .contains("a brainstorm or design council ends with a handoff, not a verdict"),
        "{}",
        verdict.stderr
    );
    assert_eq!(
        symlinks_under(sandbox.path()),
        Vec::<PathBuf>::new(),
        "FP-54"
    );
}

/// Four experts; every participant but the devil's advocate brings one
/// MEDIUM finding (F001..F005); the devil's advocate challenges all five
/// in every round and each origin defends.
fn tireless_devil_script() -> Script {
    let roster = [
        ("expert.security", "F001", "security"),
        ("expert.performance", "F002", "performance"),
        ("expert.reliability", "F003", "reliability"),
        ("expert.data", "F004", "data"),
        ("integration-checker", "F005", "architecture"),
    ];
    let everything: Vec<(&str, &str)> = roster.iter().map(|(_, id, _)| (*id, "endorse")).collect();
    let mut builder = ScriptBuilder::default()
        .reply(
            "devil-advocate",
            "independent",
            None,
            None,
            &findings("devil-advocate", &[]),
        )
        .reply(
            "devil-advocate",
            "challenge",
            None,
            None,
            &devil(
                &roster
                    .iter()
                    .map(|(who, id, _)| (*who, *id))
                    .collect::<Vec<_>>(),
            ),
        )
        .reply(
            "devil-advocate",
            "final",
            None,
            None,
            &position("devil-advocate", &everything),
        );
    for (who, id, domain) in roster {
        builder = builder
            .reply(
                who,
                "independent",
                None,
                None,
                &findings(
                    who,
                    &[finding(
                        "MEDIUM",
                        &format!("The {domain} gap {id}"),
                        &[domain],
                    )],
                ),
            )
            .reply(who, "responses", None, None, &defenses(&[id]))
            .reply(who, "final", None, None, &position(who, &everything));
    }
    builder.build()
}

/// FP-09, A20: at standard intensity with four experts the budget is
/// 3 × 6 + 10 = 28 calls; a devil's advocate that challenges everything in
/// every round runs it out in round 3, before every target could answer.
/// The council keeps room for every final position, records
/// `budget.exhausted: true` in council.json and `budget_exhausted: true` in
/// the front matter, and still ends with a verdict.
#[test]
fn fp_09_a20_a_tireless_devil_exhausts_the_budget_and_it_is_recorded() {
    let sandbox = Sandbox::new();
    let text = spec(
        tireless_devil_script(),
        &["security", "performance", "reliability", "data"],
        "standard",
        "",
    );
    let (ran, dir) = run_spec(&sandbox, &text, &[], "out");
    let council = record(&dir);
    let verdict = council["verdict"].as_str().expect("a verdict");
    ran.assert_code(code_of(verdict));
    let budget = &council["budget"];
    assert_eq!(budget["limit"], 28, "3 × (4 experts + DA + IC) + 10");
    assert_eq!(budget["exhausted"], true, "{budget}");
    assert!(
        budget["used"].as_u64().unwrap() <= 28,
        "never over the budget: {budget}"
    );
    assert!(
        budget["reason"]
            .as_str()
            .unwrap()
            .starts_with("budget exhausted in round 3"),
        "{budget}"
    );
    assert_eq!(council["stopped"], "the budget ran out");
    // A round only starts when it leaves room for the final positions.
    for participant in council["participants"].as_array().unwrap() {
        let id = participant["id"].as_str().unwrap();
        assert!(
            dir.join(format!("phase-5/{id}.md")).is_file(),
            "{id}'s final position"
        );
    }
    let undelivered: Vec<&Json> = council["challenges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["state"] == "undelivered")
        .collect();
    assert!(!undelivered.is_empty(), "some challenges never went out");
    assert!(
        undelivered
            .iter()
            .all(|c| c["undelivered"] == "the budget ran out")
    );
    assert!(dir.join("phase-3/round-3/devil-advocate.md").is_file());
    assert!(!dir.join("phase-3/round-4").exists());

    let folder = sandbox.path().join("out/.outputs/debate");
    let names = pair_in(&folder);
    let markdown = std::fs::read_to_string(folder.join(&names[1])).unwrap();
    let lines = front_matter(&markdown);
    assert_eq!(field(&lines, "budget_exhausted"), Some("true"), "{lines:?}");
    let companion: Json =
        serde_json::from_str(&std::fs::read_to_string(folder.join(&names[0])).unwrap()).unwrap();
    assert_eq!(companion["budget"]["exhausted"], true);
}

/// Two experts at quick intensity; each endorses the other's MEDIUM finding,
/// so both are confirmed at 2.0 of 3.4 and the council ends CONCERNS.
fn two_mediums_script() -> Script {
    let abstain = [("F001", "abstain"), ("F002", "abstain")];
    ScriptBuilder::default()
        .reply(
            "expert.reliability",
            "independent",
            None,
            None,
            &findings(
                "expert.reliability",
                &[finding(
                    "MEDIUM",
                    "Payment retries are not idempotent",
                    &["reliability"],
                )],
            ),
        )
        .reply(
            "expert.data",
            "independent",
            None,
            None,
            &findings(
                "expert.data",
                &[finding(
                    "MEDIUM",
                    "Orders table has no foreign key to carts",
                    &["data"],
                )],
            ),
        )
        .reply(
            "integration-checker",
            "independent",
            None,
            None,
            &findings("integration-checker", &[]),
        )
        .reply(
            "devil-advocate",
            "independent",
            None,
            None,
            &findings("devil-advocate", &[]),
        )
        .reply(
            "expert.reliability",
            "final",
            None,
            None,
            &position("expert.reliability", &[("F002", "endorse")]),
        )
        .reply(
            "expert.data",
            "final",
            None,
            None,
            &position("expert.data", &[("F001", "endorse")]),
        )
        .reply(
            "integration-checker",
            "final",
            None,
            None,
            &position("integration-checker", &abstain),
        )
        .reply(
            "devil-advocate",
            "final",
            None,
            None,
            &position("devil-advocate", &abstain),
        )
        .build()
}

/// A21, FP-36, FP-40: `quorum verdict DIR` recomputes the verdict from
/// council.json and the final-position files: first the same as the run
/// (two confirmed MEDIUM findings → CONCERNS), then, once
/// `phase-5/expert.data.md` disputes F001 instead of endorsing it, F001
/// falls below the consensus threshold and the verdict becomes PASS.
#[test]
fn a21_quorum_verdict_changes_when_a_final_position_file_is_edited() {
    let sandbox = Sandbox::new();
    let text = spec(two_mediums_script(), &["reliability", "data"], "quick", "");
    let (ran, dir) = run_spec(&sandbox, &text, &[], "out");
    ran.assert_code(6);
    let council = record(&dir);
    assert_eq!(
        council["rule"],
        "2 confirmed MEDIUM findings (F001, F002) → CONCERNS"
    );

    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(6);
    assert!(
        verdict
            .stdout
            .starts_with("CONCERNS\n2 confirmed MEDIUM findings (F001, F002) → CONCERNS\n"),
        "{}",
        verdict.stdout
    );

    let file = dir.join("phase-5/expert.data.md");
    let text = std::fs::read_to_string(&file).unwrap();
    let at = text.find("\"F001\"").expect("F001 in the final position");
    let stance = at + text[at..].find("\"endorse\"").unwrap();
    let edited = format!(
        "{}\"dispute\"{}",
        &text[..stance],
        &text[stance + "\"endorse\"".len()..]
    );
    std::fs::write(&file, edited).unwrap();

    let verdict = sandbox.quorum(&["verdict", dir.to_str().unwrap()], &[]);
    verdict.assert_code(0);
    assert!(
        verdict.stdout.starts_with(
            "PASS\nno confirmed CRITICAL or HIGH finding, 1 confirmed MEDIUM, LOW or INFO, nothing grave disputed → PASS\n"
        ),
        "{}",
        verdict.stdout
    );
    assert!(
        verdict
            .stdout
            .contains("F001 MEDIUM: disputed by expert.data: 1.0 of 3.4 weighted positions"),
        "{}",
        verdict.stdout
    );
}

/// The demo, killed with kill -9 while the challenged experts answer in
/// round 1 (FP-23) and resumed, ends as the uninterrupted run did: the same
/// verdict and rule, the same finding states, the same round files.
#[test]
fn fp_23_resume_after_a_kill_during_a_challenge_round_ends_with_the_same_verdict() {
    let sandbox = Sandbox::new();
    let exported = sandbox.write("demo.yaml", &demo_text(&sandbox, None));
    let args = |out: &str| -> Vec<String> {
        [
            "run",
            exported.to_str().unwrap(),
            "--headless",
            "--speed",
            "20",
            "--out",
            sandbox.path().join(out).to_str().unwrap(),
            "--outputs",
            sandbox
                .path()
                .join(format!("{out}-outputs"))
                .to_str()
                .unwrap(),
        ]
        .map(str::to_string)
        .to_vec()
    };
    let reference_args = args("reference");
    let ran = quorum_in(
        sandbox.path(),
        &reference_args
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        &[],
        None,
    );
    ran.assert_code(6);
    let reference = only_run(&sandbox.path().join("reference"));
    // The record just after expert.data's round-1 answer was started.
    let journal = read(&reference, "journal.jsonl");
    let seq = journal
        .lines()
        .position(|line| line.contains("expert.data/responses/r1/a1"))
        .expect("expert.data answers in round 1") as u64
        + 1;

    let mut command = Command::new(QUORUM);
    support::isolate(&mut command, sandbox.path())
        .args(args("killed"))
        .env("QUORUM_TEST_STOP_AFTER_RECORD", seq.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = command.spawn().unwrap();
    let started = Instant::now();
    loop {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", child.id())).unwrap_or_default();
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, after)| after.trim_start().chars().next());
        if state == Some('T') {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "quorum ended before the hook stopped it"
        );
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "quorum never stopped"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let dir = only_run(&sandbox.path().join("killed"));
    assert!(!dir.join("summary.md").exists(), "killed before the end");
    assert!(
        !dir.join("phase-5").exists(),
        "killed in the challenge round"
    );

    let resumed = sandbox.quorum(&["resume", dir.to_str().unwrap(), "--headless"], &[]);
    resumed.assert_code(6);
    let (after, before) = (record(&dir), record(&reference));
    assert_eq!(after["verdict"], before["verdict"]);
    assert_eq!(after["rule"], before["rule"]);
    assert_eq!(after["findings"], before["findings"]);
    assert_eq!(after["disputed_findings"], before["disputed_findings"]);
    assert_eq!(after["rounds"], before["rounds"]);
    assert_eq!(after["budget"], before["budget"]);
    assert_eq!(read(&dir, "summary.md"), read(&reference, "summary.md"));
    for path in [
        "phase-3/round-1/devil-advocate.md",
        "phase-3/round-1/expert.data.md",
        "phase-3/round-1/expert.reliability.md",
        "phase-3/round-2/devil-advocate.md",
        "phase-5/expert.data.md",
    ] {
        assert_eq!(read(&dir, path), read(&reference, path), "{path}");
    }
    let pair = pair_in(&sandbox.path().join("killed-outputs/debate"));
    assert_eq!(pair.len(), 2, "the resumed run writes the pair: {pair:?}");
}

/// FP-04, FP-11, FP-13: unknown domain, intensity and preset are refused
/// with exit 2, an error naming the flag or field and the valid values,
/// and nothing written; from the command line and from a spec file.
#[test]
fn fp_04_fp_11_fp_13_unknown_domain_intensity_and_preset_are_refused() {
    let sandbox = Sandbox::new();
    let out = sandbox.path().join("out");
    let command = |extra: &[&str]| -> Ran {
        let mut args = vec![
            "council",
            SCOPE,
            "--headless",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        sandbox.quorum(&args, &[])
    };
    let ran = command(&["--domain", "astrology"]);
    ran.assert_code(2);
    assert!(
        ran.stderr.contains(
            "--domain: `astrology` is not a domain quorum knows; the domains are accessibility, api, architecture, brand, compliance, content, correctness, cost, data,"
        ),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("security, testing, ux"),
        "{}",
        ran.stderr
    );
    let ran = command(&["--intensity", "extreme"]);
    ran.assert_code(2);
    assert!(ran.stderr.contains("'extreme'"), "{}", ran.stderr);
    assert!(ran.stderr.contains("--intensity"), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("quick, standard, thorough"),
        "{}",
        ran.stderr
    );
    let ran = command(&["--preset", "paranoid"]);
    ran.assert_code(2);
    assert!(ran.stderr.contains("'paranoid'"), "{}", ran.stderr);
    assert!(ran.stderr.contains("--preset"), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("default, security-elevated"),
        "{}",
        ran.stderr
    );
    assert!(!out.exists(), "nothing written");

    // The same in a spec file.
    let demo = demo_text(&sandbox, None);
    let cases = [
        (
            replace_once(&demo, "intensity: standard", "intensity: extreme"),
            "intensity: unknown variant `extreme`, expected one of `quick`, `standard`, `thorough`",
        ),
        (
            replace_once(&demo, "mode: review\n", "mode: review\npreset: paranoid\n"),
            "preset: unknown variant `paranoid`, expected `default` or `security-elevated`",
        ),
        (
            replace_once(
                &demo,
                "domains: [security, performance, reliability, data]",
                "domains:\n  - security\n  - astrology",
            ),
            "bad.yaml:8: domains[1]: `astrology` is not a domain quorum knows; the domains are accessibility,",
        ),
    ];
    for (text, expected) in cases {
        let path = sandbox.write("bad.yaml", &text);
        let ran = sandbox.quorum(
            &[
                "run",
                path.to_str().unwrap(),
                "--headless",
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        );
        ran.assert_code(2);
        assert!(ran.stderr.contains(expected), "{expected}\n{}", ran.stderr);
        assert!(!out.exists(), "nothing written");
    }
}

/// FP-13: an unknown domain in a flow-style list (`domains: [a, b]`, as
/// the demo writes it) is reported at the line of `domains:`.
#[test]
fn fp_13_an_unknown_domain_in_a_flow_list_is_reported_at_its_line() {
    let sandbox = Sandbox::new();
    let demo = demo_text(&sandbox, None);
    let text = replace_once(
        &demo,
        "domains: [security, performance, reliability, data]",
        "domains: [security, astrology]",
    );
    let line = text
        .lines()
        .position(|line| line.starts_with("domains:"))
        .unwrap()
        + 1;
    let path = sandbox.write("bad.yaml", &text);
    let ran = sandbox.quorum(&["run", path.to_str().unwrap(), "--headless"], &[]);
    ran.assert_code(2);
    assert!(
        ran.stderr.contains(&format!(
            "bad.yaml:{line}: domains[1]: `astrology` is not a domain"
        )),
        "{}",
        ran.stderr
    );
}

/// FP-16, FP-20: an expert whose Phase 1 answer is malformed JSON is kept on
/// disk with a `<!-- MALFORMED:` marker at the top of its phase-1 file,
/// excluded from the inventory, and not retried (one call in the
/// transcript); it still takes part in Phase 5.
#[test]
fn fp_16_malformed_json_findings_are_kept_marked_excluded_and_not_retried() {
    let sandbox = Sandbox::new();
    let broken = "Here are my findings.\n\n```json\n{\"participant\": \"expert.data\", \"phase\": 1, \"findings\": [\n  {\"severity\": \"HIGH\", \"title\": \"Orphaned order rows\", \"description\": \"Deleting a cart leaves\n```\n";
    let script = ScriptBuilder::default()
        .reply(
            "expert.reliability",
            "independent",
            None,
            None,
            &findings(
                "expert.reliability",
                &[finding(
                    "MEDIUM",
                    "Payment retries are not idempotent",
                    &["reliability"],
                )],
            ),
        )
        .reply("expert.data", "independent", None, None, broken)
        .reply(
            "integration-checker",
            "independent",
            None,
            None,
            &findings("integration-checker", &[]),
        )
        .reply(
            "devil-advocate",
            "independent",
            None,
            None,
            &findings("devil-advocate", &[]),
        )
        .reply(
            "expert.reliability",
            "final",
            None,
            None,
            &position("expert.reliability", &[]),
        )
        .reply(
            "expert.data",
            "final",
            None,
            None,
            &position("expert.data", &[("F001", "endorse")]),
        )
        .reply(
            "integration-checker",
            "final",
            None,
            None,
            &position("integration-checker", &[("F001", "endorse")]),
        )
        .reply(
            "devil-advocate",
            "final",
            None,
            None,
            &position("devil-advocate", &[("F001", "abstain")]),
        )
        .build();
    let text = spec(script, &["reliability", "data"], "quick", "");
    let (ran, dir) = run_spec(&sandbox, &text, &[], "out");
    let council = record(&dir);
    let verdict = council["verdict"].as_str().expect("a verdict");
    ran.assert_code(code_of(verdict));

    let kept = read(&dir, "phase-1/expert.data.md");
    assert!(kept.starts_with("<!-- MALFORMED: "), "{kept}");
    assert!(kept.contains(broken), "the raw answer is kept whole");
    let inventory = council["inventory"].as_array().unwrap();
    assert_eq!(inventory.len(), 1, "{inventory:?}");
    assert_eq!(
        inventory[0]["origins"],
        serde_json::json!(["expert.reliability"])
    );
    assert!(!read(&dir, "council.json").contains("Orphaned order rows"));

    let transcript = read(&dir, "transcript.md");
    assert!(transcript.contains("`expert.data/independent/r0/a1`"));
    assert!(
        !transcript.contains("expert.data/independent/r0/a2"),
        "not retried"
    );
    assert!(
        transcript.contains("expert.data's independent answer is malformed")
            && transcript.contains("kept with a MALFORMED marker, excluded, not retried"),
        "{transcript}"
    );
    // Still a participant: its final position counts.
    assert!(dir.join("phase-5/expert.data.md").is_file());
    let data = council["participants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "expert.data")
        .unwrap();
    assert!(data.get("out").is_none(), "{data}");
}

/// FP-47, A24: a proposal its origin withdrew in a challenge round counts
/// its origin against it, not for it, when the council converges. In the
/// brainstorm demo edited so that expert.data withdraws P002 in round 1 and
/// says nothing more of it, while two others endorse it at the end, P002
/// has 2.0 of 4.4 (0.45 < 0.50) and stays parked.
#[test]
fn fp_47_a_withdrawn_proposal_is_not_backed_by_its_origin() {
    let sandbox = Sandbox::new();
    let text = demo_text(&sandbox, Some("brainstorm"));
    let text = replace_once(
        &text,
        "{\"type\": \"defense\", \"finding_id\": \"P002\", \"response\": \"Agreed that it is not needed for the first release, and the 9-day wait was my estimate, not the notes'; I withdraw it. The stream stays worth having once exports are used for continuous backup, so I keep it on the table for later rather than drop it.\",",
        "{\"type\": \"withdrawal\", \"finding_id\": \"P002\", \"response\": \"Agreed: not needed; I take it back.\",",
    );
    let text = replace_once(
        &text,
        "          {\"id\": \"P002\", \"stance\": \"park\", \"note\": \"Right idea for continuous backup, wrong time.\"},\n",
        "",
    );
    // expert.operations and the integration checker endorse it instead of parking it.
    let text = replace_once(
        &text,
        "{\"id\": \"P002\", \"stance\": \"park\"},",
        "{\"id\": \"P002\", \"stance\": \"endorse\"},",
    );
    let text = replace_once(
        &text,
        "{\"id\": \"P002\", \"stance\": \"park\"},",
        "{\"id\": \"P002\", \"stance\": \"endorse\"},",
    );
    let (ran, dir) = run_spec(&sandbox, &text, &["--speed", "50"], "out");
    ran.assert_code(0);
    let council = record(&dir);
    assert!(read(&dir, "transcript.md").contains("expert.data withdrew P002"));
    let outcome = council["convergence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == "P002")
        .unwrap()
        .clone();
    let rule = outcome["rule"].as_str().unwrap();
    let (for_it, against) = rule.split_once("against:").unwrap();
    assert!(
        !for_it.contains("expert.data"),
        "the origin withdrew it: {outcome}"
    );
    assert!(against.contains("expert.data"), "{outcome}");
    assert_eq!(outcome["status"], "parked", "{outcome}");
}
