//! Fair judging in a writing review (issue 29): nobody's work is scored
//! there, so what it protects is what the judges and the merge read. The
//! critic's items reach the judges, and the rewrites reach the merge, with
//! their authors' self-identification masked; the merge reads the
//! rewrites in an order of its own; and the judges' optional scores of the
//! draft, asked on every aspect, measure how alike they read it.
//!
//! Not responsible for the prompts themselves ([`super::rewrites`]) nor
//! for the files ([`super::documents`]).

use serde_json::json;

use super::{RewriteState, SYNTHESIZER, WritingReview};
use crate::protocol::fairness::Blindfold;
use crate::protocol::fairness::agreement::{self, Agreement};
use crate::protocol::{LogKind, Timestamp};

impl WritingReview {
    /// What hides the seated agents' self-identification, when blind; a
    /// name the draft or its material has is the text's own and is kept,
    /// so no rewrite loses it on its way to the merge.
    pub(super) fn blindfold(&self) -> Blindfold {
        let seating = &self.config.seating;
        let material = [self.config.topic.as_str(), self.config.draft.text.as_str()]
            .into_iter()
            .chain(self.config.context.iter().map(|doc| doc.text.as_str()));
        Blindfold::for_agents(
            &seating.fairness,
            seating.agents.values().map(String::as_str),
        )
        .sparing(material)
    }

    /// The usable rewrites as the merge reads them: masked through
    /// `blindfold`, in the merge's own order.
    pub(super) fn rewrites_as_read(&self, blindfold: &mut Blindfold) -> Vec<serde_json::Value> {
        let rewrites: Vec<serde_json::Value> = self
            .judges
            .iter()
            .filter_map(|judge| match &judge.state {
                RewriteState::Rewritten { rewrite, .. } => {
                    let mut text = rewrite.text.clone();
                    blindfold.cover(&mut text);
                    let notes: Vec<String> = rewrite
                        .notes
                        .iter()
                        .map(|note| {
                            let mut note = note.clone();
                            blindfold.cover(&mut note);
                            note
                        })
                        .collect();
                    Some(json!({
                        "role": judge.seat.role.as_str(),
                        "focus": judge.seat.role.focus(),
                        "text": text,
                        "notes": notes,
                    }))
                }
                _ => None,
            })
            .collect();
        self.config.seating.fairness.arrange(&rewrites, SYNTHESIZER)
    }

    /// Notes how `reader` (the judges, the merge) reads what others wrote,
    /// and each masking in it not noted before.
    pub(super) fn note_fair_reading(&mut self, reader: &str, now: Timestamp) {
        let fairness = &self.config.seating.fairness;
        if fairness.is_legacy() {
            return;
        }
        let how = match (fairness.blind, reader == "the merge") {
            (true, true) => "blind, the rewrites in its own order",
            (false, true) => "not blind, the rewrites in its own order",
            (true, false) => "the critic's items blind",
            (false, false) => "the critic's items as written (not blind)",
        };
        self.log(
            now,
            LogKind::Note,
            None,
            format!("fair judging: {reader} read {how}"),
        );
        let mut blindfold = self.blindfold();
        let _ = self.rulings_context_with(&mut blindfold);
        if reader == "the merge" {
            let _ = self.rewrites_as_read(&mut blindfold);
        }
        let masked = blindfold.into_distinct();
        for masking in masked {
            self.log(
                now,
                LogKind::Note,
                None,
                format!("fair judging: {masking} in what {reader} read"),
            );
            if !self.masked.contains(&masking) {
                self.masked.push(masking);
            }
        }
    }

    /// How far the judges' scores of the draft agreed, each aspect a unit
    /// (issue 29); measured once every rewrite is in, noted and kept.
    pub(super) fn measure_agreement(&mut self, now: Timestamp) {
        if self.config.seating.fairness.is_legacy() {
            return;
        }
        let scorers: Vec<_> = self
            .judges
            .iter()
            .filter_map(|judge| match &judge.state {
                RewriteState::Rewritten { rewrite, .. } => Some(&rewrite.scores),
                _ => None,
            })
            .collect();
        let units = super::parse::Aspect::ALL
            .iter()
            .map(|aspect| {
                scorers
                    .iter()
                    .map(|scores| scores.get(aspect).copied())
                    .collect()
            })
            .collect();
        let measured = agreement::agreement(&agreement::Ratings {
            judges: scorers.len(),
            units,
        });
        self.log(
            now,
            LogKind::Note,
            None,
            format!("the judges' scores of the draft: {}", measured.summary()),
        );
        self.agreement = Some(measured);
    }

    /// How far the judges' scores of the draft agreed, once measured.
    pub fn agreement(&self) -> Option<&Agreement> {
        self.agreement.as_ref()
    }

    /// Each self-identification masked in what the judges and the merge
    /// read.
    pub fn masked(&self) -> &[String] {
        &self.masked
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::test_support::{SLOTS, calls, config, document, finished, now, only_call};
    use super::super::*;
    use crate::protocol::Questions;
    use crate::protocol::fairness::{Fairness, Recusal};
    use crate::protocol::{Input, Protocol};

    const DRAFT: &str = "Welcome to on-call. Read everything. Pages are answered within 5 minutes.";

    /// The critic names itself in its one item.
    const CRITIQUE: &str = "```yaml\nitems:\n  - location: second sentence\n    type: clarity\n    severity: major\n    text: As Claude, I would say what to read first.\n```\n";

    fn rewrite(role: &str, scores: [u8; 4]) -> String {
        format!(
            "```yaml\nrewrite: |\n  On-call, rewritten by the {role}. As GPT-4.1 I kept it short.\nnotes:\n  - \"c1: first-hour list\"\nscores:\n  clarity: {}\n  structure: {}\n  tone: {}\n  evidence: {}\n```\n",
            scores[0], scores[1], scores[2], scores[3]
        )
    }

    /// A review judged fairly under `seed` (or from before fair judging),
    /// critiqued and its one item accepted; returns it and the judges'
    /// calls.
    fn moderated(fair: Option<u64>) -> (WritingReview, Vec<crate::protocol::CallSpec>) {
        moderated_draft(fair, DRAFT)
    }

    /// [`moderated`], of `draft`.
    fn moderated_draft(
        fair: Option<u64>,
        draft: &str,
    ) -> (WritingReview, Vec<crate::protocol::CallSpec>) {
        let mut config = config(&SLOTS, draft);
        if let Some(seed) = fair {
            config.seating.fairness = Fairness::new(true, seed, Recusal::Off, Default::default());
        }
        let mut review = WritingReview::new(config, Arc::new(PromptSet::builtin()));
        let critic = only_call(&review.start(now()));
        review.handle(&finished(&critic.request.call_id, CRITIQUE), now());
        review.handle(
            &Input::ItemDecided {
                item_id: "c1".into(),
                decision: ItemDecision::Accept,
                note: None,
                ruler: None,
            },
            now(),
        );
        let effects = review.handle(&Input::ModerationSubmitted, now());
        (review, calls(&effects))
    }

    /// The merge's call once every judge answered with `scores`.
    fn rewritten(
        review: &mut WritingReview,
        judges: &[crate::protocol::CallSpec],
        scores: [[u8; 4]; 3],
    ) -> crate::protocol::CallSpec {
        let mut effects = Vec::new();
        for (spec, scores) in judges.iter().zip(scores) {
            let role = spec.request.role.clone();
            effects = review.handle(
                &finished(&spec.request.call_id, &rewrite(&role, scores)),
                now(),
            );
        }
        only_call(&effects)
    }

    fn order(prompt: &str) -> Vec<String> {
        prompt
            .lines()
            .filter_map(|line| line.strip_prefix("### The "))
            .filter(|line| line.contains("'s rewrite"))
            .map(str::to_string)
            .collect()
    }

    const SCORES: [[u8; 4]; 3] = [[3, 2, 3, 2], [2, 3, 2, 2], [3, 3, 3, 1]];

    /// Issue 29, the writing mode: the judges read the critic's items with
    /// its self-identification masked and are asked to score every aspect;
    /// the merge reads the rewrites masked, in its own order drawn from the
    /// seed; each masking is noted once, and the judges' agreement is
    /// measured, recorded and shown.
    #[test]
    fn issue_29_a_fair_writing_review_reads_blind_and_measures_its_judges() {
        let (mut review, judges) = moderated(Some(4));
        for judge in &judges {
            let prompt = &judge.request.prompt;
            assert!(prompt.contains("As [model], I would say"), "{prompt}");
            assert!(!prompt.contains("Claude"), "{prompt}");
            for aspect in ["clarity: 3", "structure: 3", "tone: 3", "evidence: 3"] {
                assert!(prompt.contains(aspect), "{aspect} in {prompt}");
            }
            assert!(prompt.contains("score every aspect listed"), "{prompt}");
        }
        let merge = rewritten(&mut review, &judges, SCORES);
        let prompt = &merge.request.prompt;
        assert!(!prompt.contains("GPT-4.1"), "{prompt}");
        assert!(!prompt.contains("Claude"), "{prompt}");
        assert_eq!(order(prompt).len(), 3);

        let orders: std::collections::BTreeSet<Vec<String>> = (0..8)
            .map(|seed| {
                let (mut review, judges) = moderated(Some(seed));
                order(&rewritten(&mut review, &judges, SCORES).request.prompt)
            })
            .collect();
        assert!(orders.len() > 1, "one order for every seed: {orders:?}");

        let transcript = document(&review, "transcript.md");
        let note = "fair judging: masked `Claude` as [model] in what the judges read";
        assert_eq!(transcript.matches(note).count(), 1, "{transcript}");
        assert!(
            transcript.contains("in what the merge read"),
            "{transcript}"
        );
        let agreement = review.agreement().expect("measured");
        assert_eq!((agreement.judges, agreement.units), (3, 4));
        assert!(review.board().agreement.is_some_and(|line| {
            line.starts_with("The judges' scores of the draft: judges' agreement")
        }),);
        let yaml = document(&review, "debate.yaml");
        // Under the evaluation stage, as every decision review has them.
        assert!(yaml.contains("\n    agreement:\n      alpha:"), "{yaml}");
        assert!(yaml.contains("\n    masked:\n    - masked"), "{yaml}");
        let synthesizer = review
            .describe()
            .roles
            .into_iter()
            .find(|role| role.slot == SYNTHESIZER)
            .unwrap();
        assert_eq!(synthesizer.marks, ["blind", "own order"]);
    }

    /// Issue 29: a writing review from before fair judging reads and asks
    /// as it did: the critic's words as written, scores on the judge's own
    /// aspects only, the rewrites in panel order, no agreement.
    #[test]
    fn issue_29_a_writing_review_from_before_reads_as_it_ran() {
        let (mut review, judges) = moderated(None);
        let aesthete = &judges[0].request.prompt;
        assert!(aesthete.contains("As Claude, I would say"), "{aesthete}");
        assert!(!aesthete.contains("evidence: 3"), "{aesthete}");
        assert!(!aesthete.contains("score every aspect"), "{aesthete}");
        let merge = rewritten(&mut review, &judges, SCORES);
        assert_eq!(
            order(&merge.request.prompt),
            [
                "aesthete's rewrite (reads for argument elegance, creative reasoning, intellectual beauty)",
                "stylist's rewrite (reads for clarity, persuasiveness, rhetorical skill, accessibility)",
                "analyst's rewrite (reads for logical rigor, evidence quality, internal consistency)"
            ]
        );
        assert!(review.agreement().is_none());
        assert_eq!(review.board().agreement, None);
    }

    /// Issue 29: a name the draft itself has is the text's own: a rewrite
    /// keeps it on its way to the merge, while a judge's naming of itself
    /// is masked.
    #[test]
    fn issue_29_the_drafts_own_names_reach_the_merge_unmasked() {
        let draft = "Support moves to Claude on 1 March. Read everything.";
        let (mut review, judges) = moderated_draft(Some(2), draft);
        let merge = rewritten(&mut review, &judges, SCORES);
        let prompt = &merge.request.prompt;
        assert!(
            prompt.contains("rewritten by the judge.aesthete. As [model] I kept it short"),
            "{prompt}"
        );
        // The critic's "As Claude" is spared too: the draft names Claude.
        assert!(prompt.contains("As Claude, I would say"), "{prompt}");
    }
}
