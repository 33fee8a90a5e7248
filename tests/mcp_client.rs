//! Issue 54: `quorum mcp` driven by a client nobody here wrote, the
//! official MCP Python SDK (`mcp` on PyPI, installed by .ci/run), through
//! tests/mcp/client.py: a scripted decision review started with moderator
//! `caller`, followed with `status` and its progress notifications, its
//! items ruled on through `rule`, its result, list and resources read, and
//! bad input refused naming the field.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::isolate;
use crate::support::pty::PtyRun;
use crate::support::run::{QUORUM, Sandbox};

/// Longest any step of the attach test waits.
const WAIT: std::time::Duration = std::time::Duration::from_secs(120);

/// A Python that imports the MCP SDK and PyYAML: `QUORUM_MCP_PYTHON`, or
/// `python3` when it has them; its real path, so the test's isolated HOME
/// does not get in the way of a version manager's shim.
fn python_with_the_sdk() -> Option<PathBuf> {
    let candidate = std::env::var_os("QUORUM_MCP_PYTHON").unwrap_or_else(|| "python3".into());
    let found = Command::new(candidate)
        .args(["-c", "import mcp, yaml, sys; print(sys.executable)"])
        .output()
        .ok()
        .filter(|ran| ran.status.success())?;
    let path = String::from_utf8(found.stdout).ok()?;
    Some(PathBuf::from(path.trim()))
}

/// The SDK's Python, or `None` when there is none here, which fails the
/// test under QUORUM_REQUIRE_MCP_CLIENT (.ci/run sets it).
fn the_sdk() -> Option<PathBuf> {
    let python = python_with_the_sdk();
    if python.is_none() {
        assert!(
            std::env::var_os("QUORUM_REQUIRE_MCP_CLIENT").is_none(),
            "QUORUM_REQUIRE_MCP_CLIENT is set and no Python with the `mcp` SDK was found \
             (set QUORUM_MCP_PYTHON)"
        );
        eprintln!("no Python with the MCP SDK here: the client test is left to .ci/run");
    }
    python
}

/// `python tests/mcp/SCRIPT QUORUM ARGS…` in the sandbox, isolated as
/// quorum's own runs are (the server it starts inherits that).
fn client(python: &Path, sandbox: &Sandbox, script: &str, args: &[&str]) -> Command {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp")
        .join(script);
    let mut command = Command::new(python);
    isolate(&mut command, sandbox.path())
        .arg(script)
        .arg(QUORUM)
        .args(args);
    command
}

/// What the client wrote to `out`, once it ended well.
fn seen_by(ran: &std::process::Output, out: &Path) -> Value {
    assert!(
        ran.status.success(),
        "client failed:\n{}\n{}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

#[test]
fn a_real_mcp_client_starts_a_review_rules_on_its_items_and_reads_the_result() {
    let Some(python) = the_sdk() else {
        return;
    };
    let sandbox = Sandbox::new();
    sandbox
        .quorum(&["demo", "--export-script", "review.yaml"], &[])
        .assert_code(0);
    let out = sandbox.path().join("seen.json");
    let ran = client(
        &python,
        &sandbox,
        "client.py",
        &["review.yaml", out.to_str().unwrap()],
    )
    .output()
    .expect("run the MCP client");
    let seen = seen_by(&ran, &out);

    // One tool a protocol, and the tools on debates.
    let tools: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool.as_str().unwrap())
        .collect();
    for tool in [
        "decision_review",
        "quick",
        "council",
        "plan",
        "rca",
        "status",
        "result",
        "rule",
        "resume",
        "list",
    ] {
        assert!(tools.contains(&tool), "{tool} in {tools:?}");
    }
    // Progress went out while the caller waited.
    let progress = seen["progress"].as_array().unwrap();
    assert!(
        progress
            .iter()
            .any(|line| line.as_str().unwrap().contains("proposer answered")),
        "{progress:?}"
    );
    // And when the items wait, the progress says so.
    assert!(
        progress
            .iter()
            .any(|line| line.as_str().unwrap().contains("needs a ruling on")),
        "{progress:?}"
    );
    // A ruling on an item that does not wait is refused, naming the items.
    let wrong = seen["wrong_item"].as_str().unwrap();
    assert!(wrong.contains("`nope` is not an item waiting"), "{wrong}");
    // The caller's rulings bind: the result and the journal hold them.
    let rounds = seen["rounds"].as_array().unwrap();
    assert!(!rounds.is_empty(), "no items were put to the caller");
    let first = &rounds[0][0];
    let first_id = first["item"].as_str().unwrap();
    assert_eq!(first["decision"], "reject");
    let result = &seen["result"];
    assert_eq!(seen["result_error"], false);
    assert!(result["verdict"].is_string(), "{result}");
    let item = result["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["id"] == first_id)
        .unwrap_or_else(|| panic!("{first_id} in {result}"));
    assert_eq!(item["ruling"], "reject");
    assert_eq!(item["note"], "ruled by the caller");
    let dir = PathBuf::from(seen["started"]["dir"].as_str().unwrap());
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let decided: Vec<Value> = journal
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line.to_string().contains("\"item_decided\""))
        .collect();
    assert!(
        decided.iter().any(|line| {
            let text = line.to_string();
            text.contains(&format!("\"{first_id}\"")) && text.contains("\"reject\"")
        }),
        "the journal holds the caller's ruling on {first_id}"
    );
    // The deliverables are resources, and read as the files on disk.
    let id = seen["started"]["debate"].as_str().unwrap();
    assert_eq!(seen["list"], serde_json::json!([id]));
    assert_eq!(
        seen["summary_md"].as_str().unwrap(),
        std::fs::read_to_string(dir.join("summary.md")).unwrap()
    );
    // Bad input names the field, and no path leaves the server's folder.
    let bad = &seen["bad_input"];
    assert_eq!(bad["error"], true);
    assert!(bad["text"].as_str().unwrap().contains("critique"), "{bad}");
    let outside = &seen["outside"];
    assert_eq!(outside["error"], true);
    assert!(
        outside["text"]
            .as_str()
            .unwrap()
            .contains("context[0].path"),
        "{outside}"
    );
    // A client that leaves loses nothing: the debate waiting on it stops
    // there, and the next server's `resume` carries it to its end.
    assert_eq!(seen["left_waiting"], "caller");
    let not_here = seen["not_here"].as_str().unwrap();
    assert!(
        not_here.contains("not running in this server"),
        "{not_here}"
    );
    let resumed = &seen["resumed_result"];
    assert!(resumed["verdict"].is_string(), "{resumed}");
    assert!(
        resumed["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|item| item["ruling"] == "accept"),
        "{resumed}"
    );
    let again = seen["resume_ended"].as_str().unwrap();
    assert!(again.contains("nothing to resume"), "{again}");
}

/// Issue 54: every protocol is callable: each protocol's built-in demo,
/// its spec's keys as the arguments of the protocol's tool, runs to its
/// end under the `accept` policy, with its deliverable on disk.
#[test]
fn every_protocol_runs_through_its_tool() {
    let Some(python) = the_sdk() else {
        return;
    };
    let sandbox = Sandbox::new();
    let demos = [
        ("decision_review", "review"),
        ("quick", "quick"),
        ("council", "council"),
        ("plan", "plan"),
        ("rca", "rca"),
    ];
    let mut pairs = Vec::new();
    for (tool, protocol) in demos {
        let file = format!("{protocol}.yaml");
        sandbox
            .quorum(
                &["demo", "--protocol", protocol, "--export-script", &file],
                &[],
            )
            .assert_code(0);
        pairs.push(format!("{tool}={file}"));
    }
    let out = sandbox.path().join("seen.json");
    let ran = client(
        &python,
        &sandbox,
        "every_protocol.py",
        &[out.to_str().unwrap()],
    )
    .args(&pairs)
    .output()
    .expect("run the MCP client");
    let seen = seen_by(&ran, &out);
    for (_, protocol) in demos {
        let result = &seen[format!("{protocol}.yaml")];
        assert!(result["failure"].is_null(), "{protocol}: {result}");
        let deliverable = PathBuf::from(result["deliverable"].as_str().unwrap());
        assert!(
            deliverable.is_file(),
            "{protocol}: {}",
            deliverable.display()
        );
        assert!(
            !result["deliverables"].as_array().unwrap().is_empty(),
            "{protocol}: {result}"
        );
    }
}

/// Issue 54: a debate the server drives with moderator `person` waits for
/// the person, who moderates it in `quorum attach` in another terminal (a
/// pty here); the caller cannot rule in their place, and what it receives
/// carries the person's rulings.
#[test]
fn a_person_in_attach_rules_on_a_debate_the_server_drives() {
    let Some(python) = the_sdk() else {
        return;
    };
    let sandbox = Sandbox::new();
    sandbox
        .quorum(&["demo", "--export-script", "review.yaml"], &[])
        .assert_code(0);
    let started = sandbox.path().join("started.json");
    let out = sandbox.path().join("seen.json");
    let mut command = client(
        &python,
        &sandbox,
        "person.py",
        &[
            "review.yaml",
            started.to_str().unwrap(),
            out.to_str().unwrap(),
        ],
    );
    let driver = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run the MCP client");
    let deadline = std::time::Instant::now() + WAIT;
    while !started.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the debate never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let started: Value = serde_json::from_str(&std::fs::read_to_string(&started).unwrap()).unwrap();
    let dir = started["dir"].as_str().unwrap().to_string();

    let mut attach = PtyRun::spawn(&["attach", &dir], sandbox.path(), 120, 40);
    attach.wait_for("attached", WAIT);
    attach.wait_for("6 to decide", WAIT);
    attach.send("r");
    attach.wait_until("c1 rejected", WAIT, |screen| {
        screen
            .contents()
            .lines()
            .any(|line| line.contains("c1  b") && line.contains("reject"))
    });
    for _ in 1..6 {
        attach.send("a");
    }
    attach.wait_for("all decided", WAIT);
    attach.send("s");
    attach.wait_for("Written to", WAIT);
    attach.send("q");
    attach.wait_exit(WAIT);

    let ran = driver.wait_with_output().expect("the client ends");
    let seen = seen_by(&ran, &out);
    let waiting = seen["waiting"].as_array().unwrap();
    assert!(
        waiting
            .iter()
            .any(|line| line.as_str().unwrap().contains("quorum attach")),
        "status told the caller a person is waited for: {waiting:?}"
    );
    let refused = seen["caller_refused"].as_str().unwrap();
    assert!(refused.contains("a person moderates"), "{refused}");
    let items = seen["result"]["items"].as_array().unwrap();
    let ruling = |id: &str| {
        items
            .iter()
            .find(|item| item["id"] == id)
            .map(|item| item["ruling"].clone())
    };
    assert_eq!(ruling("c1"), Some(Value::from("reject")), "{items:?}");
    for id in ["c2", "c3", "c4", "c5", "c6"] {
        assert_eq!(ruling(id), Some(Value::from("accept")), "{id}: {items:?}");
    }
}
