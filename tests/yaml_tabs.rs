//! Tabs mixed with spaces in an agent's YAML answer (issue 26), read
//! through a protocol's own reader: the root-cause analysis's findings.
//! The answer is read when exactly one of the usual tab widths (2, 4, 8)
//! makes valid YAML of it, with a note naming the width; it is refused,
//! at the line of the first tab, when two widths read it differently.

use quorum::protocol::rca::parse::read_findings;

/// A debugger indented its list with spaces, then pressed Tab for the
/// evidence of the first hypothesis: at 2 columns the tab lines `evidence`
/// up with `claim`; at 4 or 8 it would continue the claim's text.
#[test]
fn a_findings_answer_with_a_tab_among_spaces_is_read_at_the_one_width_that_works() {
    let answer = "My hypotheses.\n\n```yaml\nhypotheses:\n  - claim: The pool is exhausted at peak\n\t  evidence: [pg_stat_activity shows 100 of 100 busy]\n```\n";
    let read = read_findings(answer).expect("read at width 2");
    assert_eq!(read.value.len(), 1);
    assert_eq!(read.value[0].claim, "The pool is exhausted at peak");
    assert_eq!(
        read.value[0].evidence,
        ["pg_stat_activity shows 100 of 100 busy"]
    );
    assert_eq!(
        read.notes,
        [
            "read tabs mixed with spaces as 2 columns wide (the only width of 2, 4 and 8 at which it reads)"
        ]
    );
}

/// Two tabs at the start of a line of a `|` block give text indented
/// differently at 4 and at 8 columns (at 2 the line falls out of the
/// block): refused, naming the line of the tab in the whole answer.
#[test]
fn a_findings_answer_that_two_tab_widths_read_differently_is_refused() {
    let answer = "Here.\n```yaml\nhypotheses:\n  - claim: |\n      The pool is exhausted\n\t\tat peak\n```\n";
    let error = read_findings(answer).expect_err("no one reading");
    assert_eq!(error.line, Some(6), "{error}");
    assert!(
        error.message.contains(
            "mixes tabs with spaces, and a tab 4 or 8 columns wide gives different answers"
        ),
        "{error}"
    );
}

/// Tabs among spaces that no width makes valid stay refused as before,
/// with the hint to indent with spaces.
#[test]
fn a_findings_answer_that_no_tab_width_reads_is_refused_with_the_hint() {
    let answer =
        "```yaml\nhypotheses:\n  - claim: The pool is exhausted\n\t   evidence: [x]\n```\n";
    let error = read_findings(answer).expect_err("no width reads");
    assert!(
        error
            .message
            .ends_with("(indent with spaces; YAML does not allow tabs)"),
        "{error}"
    );
}
