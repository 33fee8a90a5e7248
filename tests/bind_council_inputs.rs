//! Files a person hands quorum are refused on a key they do not have
//! (issue 26): a misspelt key in an option of a comparative review is
//! named with its file, line and field, and nothing is written. (A
//! council's own options are refused the same way by the spec reader.)
use crate::support;

use support::run::Sandbox;

const COMPARATIVE_DEMO: &str = include_str!("../demo/review-comparative.yaml");

/// Issue 26: `pth:` in an option entry (meant as `path:`) used to be
/// dropped without a word, and the run went ahead on the option's text
/// alone; it is refused naming `options[0].pth` at its line, before any
/// run folder is made.
#[test]
fn issue_26_an_unknown_key_in_an_option_is_refused_with_file_line_and_field() {
    let sandbox = Sandbox::new();
    let first = "  - \"A: A jobs table in the Postgres we already run (SKIP LOCKED)\"";
    assert!(COMPARATIVE_DEMO.contains(first));
    let line = COMPARATIVE_DEMO
        .lines()
        .position(|l| l == first)
        .expect("the first option")
        + 1;
    let spec = COMPARATIVE_DEMO.replacen(
        first,
        "  - {id: A, text: \"A jobs table in Postgres\", pth: options/postgres.md}",
        1,
    );
    let path = sandbox.write("comparative.yaml", &spec);
    let out = sandbox.path().join("out");
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
    assert!(
        ran.stderr.contains(&format!(
            "comparative.yaml:{line}: options[0].pth: unknown key `pth`; an option may have id (or name), text and path"
        )),
        "{}",
        ran.stderr
    );
    assert!(!out.exists(), "nothing is written for a refused spec");

    // The keys an option has still read, `name` for `id` included.
    let spec = COMPARATIVE_DEMO.replacen(
        first,
        "  - {name: A, text: \"A jobs table in the Postgres we already run\"}",
        1,
    );
    let path = sandbox.write("named.yaml", &spec);
    let ran = sandbox.quorum(
        &[
            "run",
            path.to_str().unwrap(),
            "--headless",
            "--speed",
            "50",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    assert!(!ran.stderr.contains("unknown key"), "{}", ran.stderr);
}
