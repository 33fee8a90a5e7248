//! The writing review's critique, moderation and rulings (RULES.md A16,
//! A18, DR-60): the critic reviews the draft first, the moderator rules on
//! its items, the judges and the merge are bound by the rulings, and quorum
//! checks the merge against them.

use std::sync::Arc;

use super::test_support::{SLOTS, calls, config, document, finished, now, only_call, timed_out};
use super::*;
use crate::protocol::{CallSpec, Input, Outcome, Protocol, Questions};

/// The draft under review, with a figure for the critic to question.
const DRAFT: &str = "Welcome to on-call. It is very important that you read everything. Pages \
                     are answered within 5 minutes.";

/// A review of `DRAFT` started, with the critic's call.
fn critic_started() -> (WritingReview, CallSpec) {
    let mut review = WritingReview::new(config(&SLOTS, DRAFT), Arc::new(PromptSet::builtin()));
    let critic = only_call(&review.start(now()));
    (review, critic)
}

const CRITIQUE: &str = "```yaml\nitems:\n  - location: second sentence\n    type: clarity\n    severity: major\n    text: Say what to read first instead of asking for everything.\n  - location: first sentence\n    type: tone\n    severity: minor\n    text: The welcome is flat; say who the page is for.\n  - id: X7\n    location: \"third sentence, '5 minutes'\"\n    type: evidence\n    severity: note\n    text: Where does the 5-minute figure come from?\n```\n";

fn rewrite(role: &str) -> String {
    format!("```yaml\nrewrite: |\n  On-call, rewritten by the {role}.\n```\n")
}

/// A merge whose one change answers `answers` (none when empty).
fn merge(answers: &[&str]) -> String {
    let mut out = "```yaml\nsummary: The first page now says what to read first.\nrevised_draft: |\n  Welcome to on-call. Read the first-hour list first. Pages are answered within 5 minutes.\nchanges:\n".to_string();
    for id in answers {
        out.push_str(&format!(
            "  - location: second sentence ({id})\n    type: clarity\n    before: It is very important that you read everything.\n    after: Read the first-hour list first.\n    rationale: One task beats a plea.\n    answers: {id}\n"
        ));
    }
    if answers.is_empty() {
        out = out.replace("changes:\n", "changes: []\n");
    }
    out.push_str("```\n");
    out
}

/// Started, critiqued and moderated with `decisions` (c1, c2, c3 in order,
/// each with an optional note); returns the review and the judges' calls.
fn moderated(decisions: [(ItemDecision, Option<&str>); 3]) -> (WritingReview, Vec<CallSpec>) {
    let (mut review, critic) = critic_started();
    review.handle(&finished(&critic.request.call_id, CRITIQUE), now());
    for (index, (decision, note)) in decisions.into_iter().enumerate() {
        let decided = Input::ItemDecided {
            item_id: format!("c{}", index + 1),
            decision,
            note: note.map(str::to_string),
            ruler: None,
        };
        assert!(review.handle(&decided, now()).is_empty());
    }
    let effects = review.handle(&Input::ModerationSubmitted, now());
    (review, calls(&effects))
}

fn judges_answer(review: &mut WritingReview, judges: &[CallSpec]) -> CallSpec {
    let mut effects = Vec::new();
    for spec in judges {
        effects = review.handle(&finished(&spec.request.call_id, &rewrite("x")), now());
    }
    only_call(&effects)
}

use ItemDecision::{Accept, Defer, Reject};

/// A16: the critic reads the draft first; its answer goes to critique.md
/// before it is read; its items, numbered c1, c2, ... by quorum whatever
/// the critic called them, go to the moderator, and the board shows them
/// with their decisions; the judges start only once the moderation is
/// submitted.
#[test]
fn a16_the_critic_reviews_the_draft_and_the_moderator_rules_before_any_rewrite() {
    let (mut review, critic) = critic_started();
    assert_eq!(critic.request.role, "critic");
    assert_eq!(critic.request.stage, "critique");
    assert_eq!(critic.raw_output_path.as_deref(), Some("critique.md"));
    assert!(critic.request.prompt.contains("It is very important"));
    let stages: Vec<String> = review.board().stages.into_iter().map(|s| s.id).collect();
    assert_eq!(
        stages,
        ["critique", "moderation", "rewrites", "merge", "done"]
    );

    let effects = review.handle(&finished(&critic.request.call_id, CRITIQUE), now());
    let [Effect::AwaitModeration { items }] = effects.as_slice() else {
        panic!("expected the moderation, got {effects:?}");
    };
    let ids: Vec<&str> = items.iter().map(|item| item.id.as_str()).collect();
    assert_eq!(
        ids,
        ["c1", "c2", "c3"],
        "quorum numbers them; X7 is ignored"
    );
    assert_eq!(items[0].target, "second sentence");
    assert_eq!(items[0].category, "clarity");
    assert_eq!(items[0].severity, "major");
    assert_eq!(items[2].category, "evidence");
    assert_eq!(review.step(), Step::Moderation);
    assert!(review.board().needs_moderator);
    // The critique is kept as it came; its file is the engine's, written
    // once when the answer came, never a document rendered again.
    assert_eq!(review.critique().unwrap().raw, CRITIQUE);
    assert!(
        review
            .documents()
            .iter()
            .all(|doc| doc.path != "critique.md")
    );

    // Submitting before every item is decided is refused.
    let decide = |id: &str, decision| Input::ItemDecided {
        item_id: id.into(),
        decision,
        note: None,
        ruler: None,
    };
    review.handle(&decide("c1", Accept), now());
    assert!(review.handle(&Input::ModerationSubmitted, now()).is_empty());
    assert!(
        review
            .log()
            .iter()
            .any(|entry| entry.message == "cannot submit yet: c2, c3 still undecided")
    );
    review.handle(&decide("c2", Reject), now());
    review.handle(&decide("c3", Defer), now());
    let board = review.board();
    let decided: Vec<_> = board.items.iter().map(|item| item.decision).collect();
    assert_eq!(decided, [Some(Accept), Some(Reject), Some(Defer)]);
    let judges = calls(&review.handle(&Input::ModerationSubmitted, now()));
    assert_eq!(judges.len(), 3);
    assert!(judges.iter().all(|spec| spec.request.stage == "rewrites"));
    assert!(!review.board().needs_moderator);
    // A decision after the moderation is over changes nothing.
    review.handle(&decide("c2", Accept), now());
    assert_eq!(review.ruling("c2").map(|(d, _)| d), Some(Reject));
}

/// A16: every judge's rewrite prompt carries the accepted items as
/// directives with the moderator's notes, the rejected ones with their
/// notes as what not to act on, the deferred ones as open questions, and
/// the one standard rulings section, which reads back as decided.
#[test]
fn a16_the_rulings_reach_every_rewrite_prompt() {
    let (_, judges) = moderated([
        (Accept, Some("Name the first-hour list.")),
        (Reject, Some("The welcome stays as it is.")),
        (Defer, None),
    ]);
    assert_eq!(judges.len(), 3);
    for judge in &judges {
        let prompt = &judge.request.prompt;
        let wanted = prompt.find("## What the moderator wants changed").unwrap();
        let rejected = prompt.find("## Items the moderator rejected").unwrap();
        let open = prompt.find("## Open questions").unwrap();
        let section = prompt.find(crate::rulings::HEADING).unwrap();
        assert!(wanted < rejected && rejected < open && open < section);
        assert!(prompt[wanted..rejected].contains("### c1: second sentence (clarity, major)"));
        assert!(prompt[wanted..rejected].contains("Moderator's note: Name the first-hour list."));
        assert!(prompt[rejected..open].contains("### c2: first sentence (tone, minor)"));
        assert!(prompt[rejected..open].contains("Moderator's note: The welcome stays as it is."));
        assert!(prompt[open..section].contains("- c3 (third sentence, '5 minutes')"));
        let read = crate::rulings::read(prompt);
        assert_eq!(
            read.get("c1"),
            Some(&Ruled::Accepted),
            "{}",
            judge.request.call_id
        );
        assert_eq!(read.get("c2"), Some(&Ruled::Rejected));
        assert_eq!(read.get("c3"), Some(&Ruled::Deferred));
        assert!(prompt.contains(
            "- c2: rejected — do not act on it. Moderator's note: The welcome stays as it is."
        ));
    }
}

/// A16, DR-60: the merge's prompt carries the rulings, asks each change
/// to name the item it answers, and a merge that follows them is kept as
/// it is; the change list of summary.md is written from the rulings.
#[test]
fn a16_the_merge_is_bound_by_the_rulings_and_its_changes_name_their_items() {
    let (mut review, judges) =
        moderated([(Accept, None), (Reject, Some("Keep it.")), (Defer, None)]);
    let merge_call = judges_answer(&mut review, &judges);
    let prompt = &merge_call.request.prompt;
    assert!(prompt.contains("## Critique items the moderator accepted"));
    assert!(prompt.contains("## Critique items the moderator rejected"));
    assert!(prompt.contains("answers: c1"));
    let read = crate::rulings::read(prompt);
    assert_eq!(read.len(), 3);
    assert_eq!(read.get("c2"), Some(&Ruled::Rejected));
    // The rulings come before the rewrites, whose text an agent wrote.
    assert!(
        prompt.find(crate::rulings::HEADING).unwrap() < prompt.find("## The rewrites").unwrap()
    );

    let effects = review.handle(
        &finished(&merge_call.request.call_id, &merge(&["C1"])),
        now(),
    );
    assert!(matches!(
        effects.last(),
        Some(Effect::Finished(Outcome::Completed { .. }))
    ));
    let merged = review.merged().unwrap();
    assert_eq!(merged.merge.changes[0].answers.as_deref(), Some("c1"));
    assert!(merged.against_rulings.is_empty());
    let summary = document(&review, "summary.md");
    let changes = summary.find("## What changed and why").unwrap();
    let list = &summary[changes..summary.find("## How this was made").unwrap()];
    assert!(
        list.contains("- c1 (accepted): answered. *second sentence*"),
        "{list}"
    );
    assert!(
        list.contains("  - **second sentence (C1)** (clarity): One task beats a plea."),
        "{list}"
    );
    // c2's location quotes no wording of the draft: nothing to check it by.
    assert!(
        list.contains("- c2 (rejected): no change names it, as you ruled (the item quotes none of the draft's wording, so the text could not be checked). *first sentence* (tone, minor): The welcome is flat; say who the page is for. Your note: Keep it."),
        "{list}"
    );
    assert!(
        list.contains("- c3 (deferred): left open, as you ruled."),
        "{list}"
    );
    assert!(!summary.contains("against your ruling"), "{summary}");
    let yaml = document(&review, "debate.yaml");
    for needle in [
        "critique:",
        "file: critique.md",
        "decision: rejected",
        "note: Keep it.",
        "answers: c1",
    ] {
        assert!(yaml.contains(needle), "{needle}:\n{yaml}");
    }
}

/// A16: a merge that changes the text for a rejected item, acts on a
/// deferred one and leaves an accepted one unanswered is asked once more,
/// naming each discrepancy; still so after that, it is kept, logged, and
/// said plainly in summary.md's opening and change list and in debate.yaml,
/// never passed as done.
#[test]
fn a16_a_merge_against_the_rulings_is_asked_once_more_then_stated_plainly() {
    let (mut review, judges) = moderated([(Accept, None), (Reject, None), (Defer, None)]);
    let first = judges_answer(&mut review, &judges);
    let against = merge(&["c2", "c3", "c9"]);
    let effects = review.handle(&finished(&first.request.call_id, &against), now());
    let again = only_call(&effects);
    assert_eq!(again.request.call_id, "synthesizer/merge/r1/a2");
    let prompt = &again.request.prompt;
    assert!(prompt.contains("## Your previous reply goes against the moderator's rulings"));
    for said in [
        "- the merge changed “second sentence (c2)” for c2, which the moderator rejected",
        "- the merge changed “second sentence (c3)” for c3, which the moderator left open (deferred)",
        "- the change to “second sentence (c9)” names c9, which is no item of the critique",
        "- no change answers c1 (second sentence), which the moderator accepted",
    ] {
        assert!(prompt.contains(said), "{said}:\n{prompt}");
    }
    // The rulings still read back from the prompt asking again.
    assert_eq!(
        crate::rulings::read(prompt).get("c2"),
        Some(&Ruled::Rejected)
    );
    assert!(
        review.merged().is_none(),
        "nothing is kept before the answer asked again"
    );

    let effects = review.handle(&finished(&again.request.call_id, &merge(&["c2"])), now());
    assert!(matches!(
        effects.last(),
        Some(Effect::Finished(Outcome::Completed { .. }))
    ));
    let merged = review.merged().unwrap();
    assert_eq!(
        merged.against_rulings.len(),
        2,
        "{:?}",
        merged.against_rulings
    );
    assert!(review.log().iter().any(|entry| {
        entry.kind == LogKind::Note
            && entry
                .message
                .contains("still goes against your rulings after being asked again")
            && entry
                .message
                .contains("the merge changed “second sentence (c2)” for c2, which you rejected")
    }));
    let lead = review.summary_lead().unwrap();
    assert!(
        lead.contains("**Against your rulings.** Asked once more, the revised text still goes against what you decided: the merge changed “second sentence (c2)” for c2, which you rejected; no change answers c1 (second sentence), which you accepted."),
        "{lead}"
    );
    let summary = document(&review, "summary.md");
    assert!(
        summary.contains("- c1 (accepted): no change answers it, although you accepted it."),
        "{summary}"
    );
    assert!(
        summary.contains(
            "- c2 (rejected): the merge changed the text for it anyway, against your ruling."
        ),
        "{summary}"
    );
    let yaml = document(&review, "debate.yaml");
    assert!(yaml.contains("against_rulings:"), "{yaml}");
    assert!(yaml.contains("for c2, which you rejected"), "{yaml}");
    let transcript = document(&review, "transcript.md");
    assert!(
        transcript.contains("### `synthesizer/merge/r1/a1` (asked again: against the rulings:"),
        "{transcript}"
    );
}

/// A16: a merge asked again that now follows the rulings is kept clean.
#[test]
fn a16_a_merge_that_follows_the_rulings_when_asked_again_is_kept_clean() {
    let (mut review, judges) = moderated([(Accept, None), (Reject, None), (Reject, None)]);
    let first = judges_answer(&mut review, &judges);
    let again =
        only_call(&review.handle(&finished(&first.request.call_id, &merge(&["c2"])), now()));
    review.handle(&finished(&again.request.call_id, &merge(&["c1"])), now());
    let merged = review.merged().unwrap();
    assert!(merged.against_rulings.is_empty());
    assert!(
        !review
            .summary_lead()
            .unwrap()
            .contains("Against your rulings")
    );
    assert!(document(&review, "summary.md").contains("- c1 (accepted): answered."));
}

/// A16: with every item rejected, a merge with no change follows the
/// rulings; the summary claims no change for any item.
#[test]
fn a16_every_item_rejected_and_no_change_is_consistent() {
    let (mut review, judges) = moderated([(Reject, None), (Reject, None), (Reject, None)]);
    let call = judges_answer(&mut review, &judges);
    assert!(
        !call
            .request
            .prompt
            .contains("## Critique items the moderator accepted")
    );
    review.handle(&finished(&call.request.call_id, &merge(&[])), now());
    assert!(review.merged().unwrap().against_rulings.is_empty());
    let summary = document(&review, "summary.md");
    // c3 quotes the draft's "5 minutes", still there; c1 and c2 quote
    // nothing to check.
    for (id, said) in [
        (
            "c1",
            "no change names it, as you ruled (the item quotes none",
        ),
        (
            "c2",
            "no change names it, as you ruled (the item quotes none",
        ),
        ("c3", "no change, as you ruled."),
    ] {
        assert!(
            summary.contains(&format!("- {id} (rejected): {said}")),
            "{summary}"
        );
    }
}

/// DR-60, A16, RF-18, issue 60: a change is checked against the revised
/// draft, not taken from its `answers:` label. A change labelled as
/// answering an accepted item that the revised draft does not show (its
/// old text still there) never makes the item answered: the change list,
/// the opening, debate.yaml and the report say it in words. A deferred
/// item whose quoted wording changed with no change naming it is no longer
/// "left open, as you ruled"; a rejected one whose quoted wording is
/// still there is "no change, as you ruled".
#[test]
fn dr_60_a16_a_change_the_revised_draft_does_not_show_is_never_reported_as_answered() {
    let (mut review, judges) = moderated([(Accept, None), (Reject, None), (Defer, None)]);
    let call = judges_answer(&mut review, &judges);
    // The label says c1 is answered; the revised draft keeps the old
    // sentence, and drops the deferred item's "5 minutes" unasked.
    let unshown = merge(&["c1"]).replace(
        "Welcome to on-call. Read the first-hour list first. Pages are answered within 5 minutes.",
        "Welcome to on-call. It is very important that you read everything. Pages are answered at once.",
    );
    let effects = review.handle(&finished(&call.request.call_id, &unshown), now());
    assert!(matches!(
        effects.last(),
        Some(Effect::Finished(Outcome::Completed { .. }))
    ));
    let merged = review.merged().unwrap();
    assert!(
        merged.against_rulings.is_empty(),
        "by its labels the merge follows the rulings: {:?}",
        merged.against_rulings
    );
    let summary = document(&review, "summary.md");
    let list = &summary[summary.find("## What changed and why").unwrap()
        ..summary.find("## How this was made").unwrap()];
    assert!(!list.contains("(accepted): answered"), "{list}");
    assert!(
        list.contains("- c1 (accepted): not answered, although you accepted it: the revised draft does not show the change labelled as answering it."),
        "{list}"
    );
    assert!(
        list.contains(
            "    - not in the revised draft: labelled as answering c1, but the revised draft still has the old text\n"
        ),
        "{list}"
    );
    assert!(
        list.contains("- c3 (deferred): you left it open and no change names it, yet the revised draft no longer has “5 minutes”, the wording it points at."),
        "{list}"
    );
    let lead = review.summary_lead().unwrap();
    assert!(
        lead.contains(
            "**Not in the revised text.** What the changes claim and what the revised text shows disagree: \
             the change to “second sentence (c1)” is labelled as answering c1, but the revised draft still has the old text; \
             no change names c3, which you left open, yet the revised draft no longer has “5 minutes”."
        ),
        "{lead}"
    );
    let yaml = document(&review, "debate.yaml");
    assert!(yaml.contains("not_in_revised_draft:"), "{yaml}");
    assert!(
        yaml.contains("is labelled as answering c1, but the revised draft still has the old text"),
        "{yaml}"
    );
    let causes: Vec<String> = review
        .changes()
        .into_iter()
        .flat_map(|part| part.causes)
        .collect();
    assert!(
        causes[0].ends_with(
            "; not in the revised draft: labelled as answering c1, but the revised draft still has the old text"
        ),
        "{causes:?}"
    );

    // The same merge with its text as it says: c1 answered, and nothing
    // to report; the rejected c2 quotes nothing, the deferred c3's words
    // are there.
    let (mut review, judges) = moderated([(Accept, None), (Reject, None), (Defer, None)]);
    let call = judges_answer(&mut review, &judges);
    review.handle(&finished(&call.request.call_id, &merge(&["c1"])), now());
    let summary = document(&review, "summary.md");
    assert!(summary.contains("- c1 (accepted): answered."), "{summary}");
    assert!(
        summary.contains("- c3 (deferred): left open, as you ruled."),
        "{summary}"
    );
    assert!(!summary.contains("not in the revised draft"), "{summary}");
    assert!(
        !summary.contains("**Not in the revised text.**"),
        "{summary}"
    );
    assert!(!document(&review, "debate.yaml").contains("not_in_revised_draft"));
}

/// A16: a critique with no items needs no moderation: the judges start.
#[test]
fn a16_a_critique_with_no_items_goes_straight_to_the_rewrites() {
    let (mut review, critic) = critic_started();
    let effects = review.handle(
        &finished(&critic.request.call_id, "```yaml\nitems: []\n```"),
        now(),
    );
    assert_eq!(calls(&effects).len(), 3);
    assert!(
        review
            .log()
            .iter()
            .any(|entry| entry.message == "no critique items to moderate")
    );
    assert!(
        !calls(&effects)[0]
            .request
            .prompt
            .contains(crate::rulings::HEADING)
    );
}

/// A18: the critic is required. An unreadable critique is repaired once,
/// quoting the error; a second unreadable answer ends the run failed; so
/// does a critic that times out twice. One bad item costs that item alone
/// (issue 59): the critic is asked about it once, and the debate goes on
/// without it, saying so.
#[test]
fn a18_an_unreadable_critique_is_repaired_once_and_a_silent_critic_fails_the_run() {
    let (mut review, critic) = critic_started();
    let bad = CRITIQUE.replace("severity: major", "severity: huge");
    let repair = only_call(&review.handle(&finished(&critic.request.call_id, &bad), now()));
    assert_eq!(repair.request.call_id, "critic/critique/r1/a2");
    assert!(
        repair.request.prompt.contains("c1: line")
            && repair.request.prompt.contains("items[0].severity"),
        "{}",
        repair.request.prompt
    );
    assert_eq!(repair.raw_output_path.as_deref(), Some("critique.md"));
    let effects = review.handle(&finished(&repair.request.call_id, &bad), now());
    let Some(Effect::AwaitModeration { items }) = effects.last() else {
        panic!("the debate goes on: {effects:?}");
    };
    let ids: Vec<&str> = items.iter().map(|item| item.id.as_str()).collect();
    assert_eq!(
        ids,
        ["c2", "c3"],
        "c1 is left out, the others keep their ids"
    );
    let summary = document(&review, "transcript.md");
    assert!(summary.contains("left out critique item c1"), "{summary}");

    let (mut review, critic) = critic_started();
    let prose = "I think the draft is fine, mostly.";
    let repair = only_call(&review.handle(&finished(&critic.request.call_id, prose), now()));
    let effects = review.handle(&finished(&repair.request.call_id, prose), now());
    assert!(matches!(
        effects.last(),
        Some(Effect::Finished(Outcome::Failed { .. }))
    ));
    assert!(document(&review, "transcript.md").contains("unusable:"));

    let (mut review, critic) = critic_started();
    let retry = only_call(&review.handle(&timed_out(&critic.request.call_id), now()));
    let effects = review.handle(&timed_out(&retry.request.call_id), now());
    assert!(matches!(
        effects.last(),
        Some(Effect::Finished(Outcome::Failed { reason })) if reason.contains("the critic gave no answer in the critique stage")
    ));
}

/// A16, DR-60: the critique's items are read with their location, type and
/// severity, numbered by quorum; a bad field is named with its line.
#[test]
fn a16_critique_items_are_read_and_a_bad_one_is_located() {
    let read = parse::parse_critique(CRITIQUE).unwrap().value;
    assert_eq!(read.len(), 3);
    assert_eq!(read[2].id, "c3");
    assert_eq!(read[2].location, "third sentence, '5 minutes'");
    assert_eq!(read[2].severity, parse::Severity::Note);
    let read = parse::parse_critique(&CRITIQUE.replace("type: tone", "type: grammar")).unwrap();
    assert_eq!(read.value.len(), 2, "the others are read");
    let error = &read.slips[0].error;
    assert_eq!(read.slips[0].id.as_deref(), Some("c2"));
    assert_eq!(error.field.as_deref(), Some("items[1].type"));
    assert_eq!(error.line, Some(8));
    let read = parse::parse_critique(
        "```yaml\nitems:\n  - location: x\n    type: tone\n    severity: minor\n```",
    )
    .unwrap();
    assert_eq!(read.slips[0].error.field.as_deref(), Some("items[0].text"));
    let error = parse::parse_critique("```yaml\nfindings: []\n```").unwrap_err();
    assert_eq!(error.field.as_deref(), Some("items"));
}

/// DR-60, A16: `answers:` is optional; written another way it is read as
/// the item it fits (noted); `none` is no item; an id that fits none is
/// kept as written for the check to name.
#[test]
fn dr_60_a_change_names_the_item_it_answers_if_any() {
    let text =
        |answers: &str| merge(&["c1"]).replace("answers: c1", &format!("answers: {answers}"));
    let ids = ["c1", "c2"];
    let read = parse::parse_merge_naming(&text("C2 (tone)"), &ids).unwrap();
    assert_eq!(read.value.changes[0].answers.as_deref(), Some("c2"));
    assert!(
        read.notes.iter().any(|note| note.contains("as c2")),
        "{:?}",
        read.notes
    );
    let read = parse::parse_merge_naming(&text("none"), &ids).unwrap();
    assert_eq!(read.value.changes[0].answers, None);
    let read = parse::parse_merge_naming(&text("c7"), &ids).unwrap();
    assert_eq!(read.value.changes[0].answers.as_deref(), Some("c7"));
    let read = parse::parse_merge_naming(&merge(&[]), &ids).unwrap();
    assert!(read.value.changes.is_empty());
}

/// A review journaled before the critique existed (no critic among its
/// agents) runs as it did: rewrites first, no items, no moderation.
#[test]
fn a_writing_review_journaled_without_a_critic_runs_as_before() {
    let mut legacy = config(&SLOTS, DRAFT);
    legacy.seating.agents.remove(CRITIC);
    let mut review = WritingReview::new(legacy, Arc::new(PromptSet::builtin()));
    let effects = review.start(now());
    assert_eq!(calls(&effects).len(), 3);
    assert!(
        calls(&effects)
            .iter()
            .all(|spec| spec.request.stage == "rewrites")
    );
    assert!(review.describe().items.is_none());
    assert_eq!(review.board().stages.len(), 3);
}

/// The built-in writing demo's script and draft.
fn demo() -> (crate::agent::script::Script, Draft) {
    let spec: yaml_serde::Value =
        yaml_serde::from_str(crate::protocol::decision_review::kind::WRITING_DEMO_SPEC).unwrap();
    let script = yaml_serde::to_string(&spec["script"]).unwrap();
    let draft = Draft {
        name: spec["draft"]["name"].as_str().unwrap().to_string(),
        text: spec["draft"]["text"].as_str().unwrap().to_string(),
    };
    (
        crate::agent::script::Script::from_yaml(&script).unwrap(),
        draft,
    )
}

/// What the demo's scripted agent answers to `spec`, as the scripted
/// provider would: the reply its prompt's rulings choose, assembled.
fn scripted(script: &crate::agent::script::Script, spec: &CallSpec) -> String {
    script
        .reply_for(&spec.request)
        .unwrap()
        .text_under(&crate::agent::script::Rulings::of(&spec.request.prompt))
        .unwrap()
}

/// A16, issue 26: for every one of the 243 mixes of accept, reject and
/// defer over the writing demo's five items, the demo's scripted judges
/// and merge give a deliverable consistent with the rulings: every
/// rewrite reads, the merge is never asked again, each accepted item is
/// answered by a change naming it, and no change names any other item.
#[test]
fn a16_every_mix_of_rulings_gives_a_consistent_writing_demo() {
    let (script, draft) = demo();
    let decisions = [Accept, Reject, Defer];
    for mix in 0..3usize.pow(5) {
        let ruled: Vec<ItemDecision> = (0..5)
            .map(|index| decisions[mix / 3usize.pow(index) % 3])
            .collect();
        let mut demo_config = config(&SLOTS, DRAFT);
        demo_config.draft = draft.clone();
        let mut review = WritingReview::new(demo_config, Arc::new(PromptSet::builtin()));
        let critic = only_call(&review.start(now()));
        let effects = review.handle(
            &finished(&critic.request.call_id, &scripted(&script, &critic)),
            now(),
        );
        assert!(
            matches!(effects.as_slice(), [Effect::AwaitModeration { items }] if items.len() == 5)
        );
        for (index, decision) in ruled.iter().enumerate() {
            review.handle(
                &Input::ItemDecided {
                    item_id: format!("c{}", index + 1),
                    decision: *decision,
                    note: None,
                    ruler: None,
                },
                now(),
            );
        }
        let judges = calls(&review.handle(&Input::ModerationSubmitted, now()));
        let mut effects = Vec::new();
        for judge in &judges {
            effects = review.handle(
                &finished(&judge.request.call_id, &scripted(&script, judge)),
                now(),
            );
        }
        assert!(
            review
                .judges()
                .iter()
                .all(|judge| matches!(judge.state, RewriteState::Rewritten { .. })),
            "{ruled:?}: every rewrite reads"
        );
        let merge = only_call(&effects);
        let effects = review.handle(
            &finished(&merge.request.call_id, &scripted(&script, &merge)),
            now(),
        );
        assert!(
            matches!(
                effects.last(),
                Some(Effect::Finished(Outcome::Completed { .. }))
            ),
            "{ruled:?}: {effects:?}"
        );
        let merged = review.merged().unwrap();
        assert!(
            merged.against_rulings.is_empty(),
            "{ruled:?}: {:?}",
            merged.against_rulings
        );
        let named: Vec<&str> = merged
            .merge
            .changes
            .iter()
            .filter_map(|change| change.answers.as_deref())
            .collect();
        let accepted: Vec<String> = (0..5)
            .filter(|index| ruled[*index] == Accept)
            .map(|index| format!("c{}", index + 1))
            .collect();
        assert_eq!(named, accepted, "{ruled:?}");
        // The demo's text bears out every change and leaves every other
        // item's quoted wording as the draft had it (issue 60).
        assert_eq!(
            documents::not_borne_out(&review),
            Vec::<String>::new(),
            "{ruled:?}"
        );
        if accepted.is_empty() {
            assert_eq!(merged.merge.revised_draft.trim(), draft.text.trim());
        }
    }
}

/// DR-16..DR-21, DR-43: the writing critic takes the architecture critic's
/// stances: its prompt states `CRITIQUE MODE: {mode}` and asks for that
/// stance's reading, and debate.yaml (`meta.critique_mode`), the
/// transcript and the summary record it. A review journaled before the
/// writing critic took a stance asks its critic as it did, with none, and
/// records none.
#[test]
fn dr_16_dr_18_dr_43_the_writing_critic_states_and_records_its_stance() {
    use crate::protocol::decision_review::model::CritiqueMode;
    let asks = [
        (
            CritiqueMode::Strict,
            "Give the draft no benefit of the doubt.",
        ),
        (
            CritiqueMode::GenerousSteelman,
            "Open each item's `text` with that best reading",
        ),
        (CritiqueMode::Neutral, "(\"Strength: …\")"),
    ];
    for (mode, asked) in asks {
        let mut config = config(&SLOTS, DRAFT);
        config.critique_mode = Some(mode);
        let mut review = WritingReview::new(config, Arc::new(PromptSet::builtin()));
        let critic = only_call(&review.start(now()));
        let prompt = &critic.request.prompt;
        assert!(
            prompt.contains(&format!("\n\nCRITIQUE MODE: {}\n\n", mode.as_str())),
            "{prompt}"
        );
        assert!(prompt.contains(asked), "{}: {prompt}", mode.as_str());
        for (other, other_asked) in asks {
            if other != mode {
                assert!(!prompt.contains(other_asked), "{}: {prompt}", mode.as_str());
            }
        }
        review.handle(&finished(&critic.request.call_id, CRITIQUE), now());
        let yaml: yaml_serde::Value =
            yaml_serde::from_str(&document(&review, "debate.yaml")).unwrap();
        assert_eq!(yaml["meta"]["critique_mode"], mode.as_str());
        assert_eq!(yaml["meta"]["mode"], "writing");
        assert!(
            document(&review, "transcript.md")
                .contains(&format!("critique {}, started", mode.as_str()))
        );
    }

    // Journaled before the stance: the prompt as it was, no stance recorded.
    let mut legacy = config(&SLOTS, DRAFT);
    legacy.critique_mode = None;
    let journaled = serde_json::to_value(&legacy).unwrap();
    assert!(journaled.get("critique_mode").is_none(), "{journaled}");
    let read: WritingConfig = serde_json::from_value(journaled).unwrap();
    assert_eq!(read.critique_mode, None);
    let mut review = WritingReview::new(read, Arc::new(PromptSet::builtin()));
    let critic = only_call(&review.start(now()));
    let prompt = &critic.request.prompt;
    assert!(!prompt.contains("CRITIQUE MODE"), "{prompt}");
    assert!(
        prompt.contains("make each one easy to decide on its own.\n\n## What the draft is for\n"),
        "{prompt}"
    );
    assert!(
        prompt.contains("## Your task\n\nList the problems worth fixing"),
        "{prompt}"
    );
    review.handle(&finished(&critic.request.call_id, CRITIQUE), now());
    let yaml: yaml_serde::Value = yaml_serde::from_str(&document(&review, "debate.yaml")).unwrap();
    assert!(yaml["meta"].get("critique_mode").is_none(), "{yaml:?}");
}

/// DR-22, DR-44, DR-45: a writing review's debate.yaml is laid out as
/// every decision review's: `participants` with `proposer` (none: the
/// draft is the person's own), `critic` (the mephistopheles role) and
/// `judges` (role, agent, weight), plus the `synthesizer`; `stages` with
/// `proposal` (the draft), `critique` (the items with their rulings and
/// the raw answer), `evaluation` (the judges' rewrites) and `revision`
/// (the merge), keeping what a writing review records.
#[test]
fn dr_22_dr_44_dr_45_the_writing_record_has_every_decision_reviews_layout() {
    let (mut review, judges) =
        moderated([(Accept, None), (Reject, Some("Keep it.")), (Defer, None)]);
    let call = judges_answer(&mut review, &judges);
    review.handle(&finished(&call.request.call_id, &merge(&["c1"])), now());
    let yaml: yaml_serde::Value = yaml_serde::from_str(&document(&review, "debate.yaml")).unwrap();
    let keys = |value: &yaml_serde::Value| -> Vec<String> {
        value
            .as_mapping()
            .unwrap()
            .keys()
            .map(|key| key.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        keys(&yaml["participants"]),
        ["proposer", "critic", "judges", "synthesizer"]
    );
    assert!(yaml["participants"]["proposer"].is_null());
    assert_eq!(yaml["participants"]["critic"]["role"], "mephistopheles");
    assert_eq!(yaml["participants"]["critic"]["agent"], "script:scripted");
    let judge = &yaml["participants"]["judges"][2];
    assert_eq!(judge["role"], "analyst");
    assert_eq!(judge["weight"], "binding");
    assert_eq!(judge["agent"], "script:scripted");
    assert_eq!(judge["aspects"][0], "evidence");
    assert_eq!(yaml["participants"]["synthesizer"]["role"], "synthesizer");
    assert_eq!(
        keys(&yaml["stages"]),
        ["proposal", "critique", "revision", "evaluation"]
    );
    assert_eq!(yaml["stages"]["proposal"]["draft"], "handbook.md");
    assert_eq!(yaml["draft"]["text"], DRAFT);
    let critique = &yaml["stages"]["critique"];
    assert_eq!(critique["critiques"][1]["decision"], "rejected");
    assert_eq!(critique["critiques"][1]["note"], "Keep it.");
    assert_eq!(critique["raw_output"], CRITIQUE);
    assert_eq!(critique["file"], "critique.md");
    let revision = &yaml["stages"]["revision"];
    assert_eq!(revision["call_id"], "synthesizer/merge/r1/a1");
    assert!(
        revision["raw_output"]
            .as_str()
            .unwrap()
            .contains("revised_draft:")
    );
    let evaluation = &yaml["stages"]["evaluation"];
    assert_eq!(evaluation["judges"][0]["role"], "aesthete");
    assert_eq!(evaluation["judges"][0]["file"], "judges/judge-aesthete.md");
    assert_eq!(evaluation["judges"][0]["status"], "rewritten");
    assert_eq!(yaml["decision"]["changes"][0]["answers"], "c1");
    assert_eq!(yaml["meta"]["critique_mode"], "generous-steelman");
}
