//! PC-31, PC-33 on the real binary (issue 26): the plan's critique log is
//! checked row by row against the items by id, so a synthesizer that swaps
//! the resolutions of two critic challenges (every (source, resolution)
//! pair and every count still right) is caught and its log recomputed.
use crate::support;

use std::path::{Path, PathBuf};

use support::run::{Sandbox, quorum_in};

/// The planning demo exported, with `edit` applied to its text.
fn demo_spec(sandbox: &Sandbox, edit: impl Fn(String) -> String) -> PathBuf {
    let path = sandbox.path().join("demo.yaml");
    sandbox
        .quorum(
            &[
                "demo",
                "--protocol",
                "plan",
                "--export-script",
                path.to_str().unwrap(),
            ],
            &[],
        )
        .assert_code(0);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, edit(text)).unwrap();
    path
}

/// Runs `spec` headless, each item decided as the planner proposed (the
/// decisions the demo's synthesizer writes its counts for).
fn plan_md(sandbox: &Sandbox, spec: &Path) -> String {
    let out = sandbox.path().join("out");
    quorum_in(
        sandbox.path(),
        &[
            "run",
            spec.to_str().unwrap(),
            "--headless",
            "--speed",
            "200",
            "--moderation",
            "planner",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
        None,
    )
    .assert_code(0);
    std::fs::read_to_string(support::run::only_run(&out).join("plan.md")).unwrap()
}

const C1_ACCEPTED: &str =
    "| C1 | Critic | The export can read another tenant's rows | Security | Accepted |";
const C2_REJECTED: &str =
    "| C2 | Critic | Large exports cannot finish inside a request | Operations | Rejected |";

#[test]
fn pc_31_pc_33_swapped_resolutions_in_the_log_are_caught_on_the_real_binary() {
    let sandbox = Sandbox::new();
    let as_written = demo_spec(&sandbox, |text| text);
    let plan = plan_md(&sandbox, &as_written);
    assert!(
        plan.contains(C1_ACCEPTED) && plan.contains(C2_REJECTED),
        "{plan}"
    );
    assert!(
        !plan.contains("quorum recomputed this log"),
        "the demo's own log is right: {plan}"
    );

    let sandbox = Sandbox::new();
    let swapped = demo_spec(&sandbox, |text| {
        assert!(text.contains(C1_ACCEPTED) && text.contains(C2_REJECTED));
        text.replace(
            C1_ACCEPTED,
            &C1_ACCEPTED.replace("| Accepted |", "| Rejected |"),
        )
        .replace(
            C2_REJECTED,
            &C2_REJECTED.replace("| Rejected |", "| Accepted |"),
        )
    });
    let plan = plan_md(&sandbox, &swapped);
    assert!(
        plan.contains("quorum recomputed this log from the recorded decisions"),
        "{plan}"
    );
    assert!(
        plan.contains(C1_ACCEPTED) && plan.contains(C2_REJECTED),
        "the log quorum writes has each item's own resolution: {plan}"
    );
}
