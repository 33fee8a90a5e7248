//! The stability receipt (issue 55): after a panel's verdict, the deciding
//! round judged again under K counterbalanced variants, and whether the
//! verdict holds in each. Also how a verdict reached with judges missing
//! names them, and says whether they were the slowest.
//!
//! Responsible for what every protocol's receipt shares: its two spec keys
//! and flags ([`STABILITY_OPTION`], [`REQUIRE_STABILITY_OPTION`]) and their
//! check, what a variant may change ([`Variant`]: each judge's reading
//! order, the order of its criteria, the neutral labels of the authors),
//! the receipt itself ([`Receipt`]: stable in k of K, the variants that
//! flipped; what it counts, [`Counted`]: a verdict, or a comparison's
//! recommended option), what `require_stability` guards ([`Guard`]) and
//! the rule in words when it turns an outcome down, and the sentence on
//! missing judges ([`missing_judges`]). Not responsible for asking the
//! judges or deriving any verdict or ranking: each protocol asks its
//! judges as in its deciding round and derives each variant's outcome with
//! the very code of its real one.

use serde::{Deserialize, Serialize};

use super::fairness::order;
use super::kind::{OptionSpec, ValueKind};

/// The most variants a receipt takes: each is a whole panel's calls again.
pub const MAX_VARIANTS: u32 = 9;

/// The stage name of variant `k`'s calls (`stability-2`): each variant's
/// calls have a slot of their own, so a resumed or reopened debate never
/// takes one variant's answer for another's.
pub fn stage_of_variant(k: u32) -> String {
    format!("{STAGE_PREFIX}{k}")
}

/// The variant a call's stage names (`stability-2` → 2); `None` for a
/// call of any other stage.
pub fn variant_of_stage(stage: &str) -> Option<u32> {
    stage.strip_prefix(STAGE_PREFIX)?.parse().ok()
}

const STAGE_PREFIX: &str = "stability-";

/// `--stability K` / `stability: K`.
pub const STABILITY_OPTION: OptionSpec = OptionSpec {
    key: "stability",
    flag: "stability",
    value_name: "K",
    help: "After the verdict (or a comparison's ranking), judge the deciding round again under K variants (each judge's order and the authors' labels changed; 1 to 9, off by default: it costs K panels of calls, forecast first) and report \"verdict stable in k of K\" (\"recommendation stable in k of K\")",
    kind: ValueKind::Integer,
    values: &[],
};

/// `--require-stability` / `require_stability: true`.
pub const REQUIRE_STABILITY_OPTION: OptionSpec = OptionSpec {
    key: "require_stability",
    flag: "require-stability",
    value_name: "",
    help: "With --stability: an ADOPT (review) or PASS (council) that does not hold in all K variants becomes ESCALATE (CONCERNS); a comparison's recommendation that does not is withdrawn",
    kind: ValueKind::Switch(true),
    values: &[],
};

/// A debate's receipt setting, journaled in its definition. The default
/// (no variants, nothing required) is a debate without a receipt, and
/// one journaled before receipts existed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stability {
    /// How many variants are judged after the verdict; 0: no receipt.
    #[serde(default, rename = "stability", skip_serializing_if = "is_zero")]
    pub variants: u32,
    /// The verdict that would adopt (or pass) must hold in all of them.
    #[serde(
        default,
        rename = "require_stability",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub required: bool,
    /// A verdict reached with judges missing names them and says whether
    /// they were the slowest ([`missing_judges`]). Every debate started
    /// now does; one journaled before (the field absent) folds with the
    /// rules it ran with, so its transcript rebuilds as it was.
    #[serde(
        default,
        rename = "names_missing_judges",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub names_missing: bool,
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

impl Stability {
    pub fn is_on(&self) -> bool {
        self.variants > 0
    }
}

/// Why `variants` and `required` make no receipt setting: `(key,
/// problem)`. `not_here` says why this debate has no verdict to
/// re-judge (a council that ends with a handoff), if it has none.
pub fn check(
    variants: u32,
    required: bool,
    not_here: Option<&str>,
) -> Result<(), (&'static str, String)> {
    if variants > MAX_VARIANTS {
        return Err((
            STABILITY_OPTION.key,
            format!(
                "a stability receipt takes 1 to {MAX_VARIANTS} variants (each is the whole panel's calls again), got {variants}"
            ),
        ));
    }
    if let Some(why) = not_here
        && (variants > 0 || required)
    {
        let key = if variants > 0 {
            STABILITY_OPTION.key
        } else {
            REQUIRE_STABILITY_OPTION.key
        };
        return Err((
            key,
            format!("{why}: it has no verdict for a stability receipt to re-judge"),
        ));
    }
    if required && variants == 0 {
        return Err((
            REQUIRE_STABILITY_OPTION.key,
            "`require_stability` needs a receipt to read: add `stability: K` (or --stability K), K from 1 to 9".into(),
        ));
    }
    Ok(())
}

/// The neutral labels the variants give the authors, in turn: none of
/// them is a role's name, so a judge that favours a name favours none.
const LABELS: &[(&str, &str)] = &[
    ("author A", "reviewer B"),
    ("the first writer", "the second writer"),
    ("party P", "party Q"),
    ("contributor 1", "contributor 2"),
    ("the drafting side", "the examining side"),
];

/// What variant `number` of a receipt changes: nothing a judge scores,
/// only how it reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variant {
    pub number: u32,
    /// Each judge's order of what it reads (and of its criteria) is drawn
    /// from this seed, not the debate's.
    pub seed: u64,
    /// The judge reads its order back to front: variant 2 reads variant
    /// 1's order reversed, 4 reads 3's, so every pair puts what one read
    /// first last.
    pub reversed: bool,
    /// What the author of the work (the proposer) is called.
    pub author_label: String,
    /// What its challenger (the critic) is called.
    pub challenger_label: String,
}

impl Variant {
    /// Variant `number` (from 1) of a debate whose own order seed is
    /// `debate_seed` (0 for a debate read in the order written).
    pub fn new(debate_seed: u64, number: u32) -> Variant {
        // Variants 2k-1 and 2k share a draw; the second reads it reversed.
        let pair = number.div_ceil(2);
        let seed = order::seed_of(&format!("{debate_seed:016x}/stability/{pair}"));
        let (author, challenger) = LABELS[(number as usize - 1) % LABELS.len()];
        Variant {
            number,
            seed,
            reversed: number.is_multiple_of(2),
            author_label: author.to_string(),
            challenger_label: challenger.to_string(),
        }
    }

    /// The first `count` variants.
    pub fn all(debate_seed: u64, count: u32) -> Vec<Variant> {
        (1..=count).map(|k| Variant::new(debate_seed, k)).collect()
    }

    /// `items` in the order the judge in `slot` reads them in this variant.
    pub fn arrange<T: Clone>(&self, items: &[T], slot: &str) -> Vec<T> {
        let mut arranged = order::arrange(items, self.seed, slot);
        if self.reversed {
            arranged.reverse();
        }
        arranged
    }

    /// The judge's criteria in the order it reads them in this variant.
    pub fn arrange_criteria<T: Clone>(&self, criteria: &[T], slot: &str) -> Vec<T> {
        self.arrange(criteria, &order::criteria_slot(slot))
    }

    /// `variant 2 (each judge reads variant 1's order back to front; the
    /// authors called "the first writer" and "the second writer")`.
    pub fn describe(&self) -> String {
        let order = if self.reversed {
            format!(
                "each judge reads variant {}'s order back to front",
                self.number - 1
            )
        } else {
            "each judge reads in an order drawn afresh".to_string()
        };
        format!(
            "variant {} ({order}; the authors called \"{}\" and \"{}\")",
            self.number, self.author_label, self.challenger_label
        )
    }
}

/// What a receipt counts: whether each variant gave the deciding round's
/// verdict, or recommended the option its comparison recommended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counted {
    /// A panel's verdict: its word (`ADOPT`, `CONCERNS`, …).
    #[default]
    Verdict,
    /// A comparison's recommendation: the option's id, or none when no
    /// option was ranked first without a dealbreaker.
    Recommendation,
}

impl Counted {
    fn is_verdict(&self) -> bool {
        *self == Counted::Verdict
    }

    /// `verdict`, `recommendation`: what is stable in k of K.
    pub fn noun(self) -> &'static str {
        match self {
            Counted::Verdict => "verdict",
            Counted::Recommendation => "recommendation",
        }
    }

    /// What a variant gave, in words: `REVISE`, `recommended B`, `ranked
    /// no option first`.
    fn outcome(self, outcome: Option<&str>) -> String {
        match (self, outcome) {
            (Counted::Verdict, outcome) => outcome.unwrap_or("no verdict").to_string(),
            (Counted::Recommendation, Some(option)) => format!("recommended {option}"),
            (Counted::Recommendation, None) => "ranked no option first".to_string(),
        }
    }

    /// What variant `k` gave, in words: `variant 2 gave REVISE`, `variant
    /// 2 recommended B`, `variant 2 ranked no option first`.
    fn gave(self, k: u32, outcome: Option<&str>) -> String {
        match self {
            Counted::Verdict => format!("variant {k} gave {}", self.outcome(outcome)),
            Counted::Recommendation => format!("variant {k} {}", self.outcome(outcome)),
        }
    }

    /// What held or did not: `the ADOPT`, `the recommendation of A`.
    fn subject(self, outcome: Option<&str>) -> String {
        match (self, outcome) {
            (Counted::Verdict, outcome) => format!("the {}", outcome.unwrap_or("verdict")),
            (Counted::Recommendation, Some(option)) => format!("the recommendation of {option}"),
            (Counted::Recommendation, None) => "no recommendation".to_string(),
        }
    }
}

/// What `require_stability` guards in a protocol, and what becomes of an
/// outcome it guards that did not hold in every variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// A verdict that must hold, and the verdict it becomes when it does
    /// not: `[ADOPT, ESCALATE]` (a review), `[PASS, CONCERNS]` (a council).
    /// Any other verdict stands as it is.
    Verdict([crate::protocol::Verdict; 2]),
    /// Any recommendation: withdrawn when it does not hold, so no option
    /// is recommended (a comparison; the ranking stays).
    Recommendation,
}

impl Guard {
    /// Whether it guards `outcome`, what the deciding round gave.
    pub fn guards(self, outcome: Option<&str>) -> bool {
        match self {
            Guard::Verdict([guarded, _]) => outcome == Some(guarded.as_str()),
            Guard::Recommendation => outcome.is_some(),
        }
    }

    /// What a guarded outcome that did not hold becomes, as a rule ends
    /// (`→ ESCALATE`, `→ no option recommended`).
    pub fn instead(self) -> &'static str {
        match self {
            Guard::Verdict([_, instead]) => instead.as_str(),
            Guard::Recommendation => "no option recommended",
        }
    }

    /// ` Stability was required for an ADOPT, so the verdict is
    /// ESCALATE.`: what the requirement did to `outcome`, what the
    /// deciding round gave, for a summary; `held` when it held in every
    /// variant.
    fn sentence(self, outcome: Option<&str>, held: bool) -> String {
        if held {
            return " Stability was required, and it held.".to_string();
        }
        let guarded = self.guards(outcome);
        match self {
            Guard::Verdict([guarded_verdict, instead]) => {
                let word = guarded_verdict.as_str();
                let article = match word.starts_with(['A', 'E', 'I', 'O', 'U']) {
                    true => "an",
                    false => "a",
                };
                match guarded {
                    true => format!(
                        " Stability was required for {article} {word}, so the verdict is {instead}."
                    ),
                    false => format!(
                        " Stability was required for {article} {word}; this verdict stands as it is."
                    ),
                }
            }
            Guard::Recommendation => match guarded {
                true => {
                    " Stability was required for a recommendation, so no option is recommended."
                        .to_string()
                }
                false => {
                    " Stability was required for a recommendation; there was none to withdraw."
                        .to_string()
                }
            },
        }
    }
}

/// What one variant of the receipt gave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariantVerdict {
    pub variant: u32,
    /// What it gave, as the receipt counts it: the word the protocol's
    /// verdict prints (`ADOPT`, `REVISE`, …), or the option a comparison
    /// recommended (`B`; none when it ranked no option first).
    pub verdict: Option<String>,
    /// The rule that derived it, as the real verdict's rule reads (a
    /// comparison's: its ranking and conditional recommendation).
    pub rule: String,
}

/// The receipt: what the deciding round gave and what each variant gave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// What the outcomes are: verdicts (left out, as every receipt of a
    /// verdict was before comparisons had one) or recommendations.
    #[serde(default, skip_serializing_if = "Counted::is_verdict")]
    pub counts: Counted,
    /// What the deciding round gave, before any requirement.
    pub verdict: Option<String>,
    pub variants: Vec<VariantVerdict>,
}

impl Receipt {
    /// How many variants gave the same as the deciding round.
    pub fn stable(&self) -> usize {
        self.variants
            .iter()
            .filter(|variant| variant.verdict == self.verdict)
            .count()
    }

    /// The variants that gave something else.
    pub fn flipped(&self) -> Vec<&VariantVerdict> {
        self.variants
            .iter()
            .filter(|variant| variant.verdict != self.verdict)
            .collect()
    }

    /// It held in every variant.
    pub fn holds(&self) -> bool {
        self.flipped().is_empty()
    }

    /// The receipt as a `--json` result gives it: its fields, its
    /// `summary`, how many variants were `stable`, and whether stability
    /// was `required`.
    pub fn json(&self, required: bool) -> serde_json::Value {
        let mut value = serde_json::to_value(self).unwrap_or_default();
        value["summary"] = self.summary().into();
        value["stable"] = self.stable().into();
        value["required"] = required.into();
        value
    }

    /// What `variant` gave, in words: `REVISE`, `recommended B`.
    pub fn outcome_of(&self, variant: &VariantVerdict) -> String {
        self.counts.outcome(variant.verdict.as_deref())
    }

    /// What each variant that flipped gave: `variant 2 gave REVISE`.
    fn flips(&self) -> Vec<String> {
        self.flipped()
            .iter()
            .map(|variant| {
                self.counts
                    .gave(variant.variant, variant.verdict.as_deref())
            })
            .collect()
    }

    /// `verdict stable in 2 of 3 (variant 2 gave REVISE)`,
    /// `recommendation stable in 2 of 3 (variant 2 recommended B)`.
    pub fn summary(&self) -> String {
        let mut line = format!(
            "{} stable in {} of {}",
            self.counts.noun(),
            self.stable(),
            self.variants.len()
        );
        let flips = self.flips();
        if !flips.is_empty() {
            line.push_str(&format!(" ({})", flips.join(", ")));
        }
        line
    }

    /// The receipt's paragraph in a summary's "How this was decided":
    /// what was judged again and how (`[what, how]`: `the deciding round
    /// was judged again`, `each judge reading in another order, …`), in
    /// how many variants the outcome held, what the requirement (`guard`,
    /// when `required`) did, and what each variant that flipped gave.
    pub fn markdown(&self, [what, how]: [&str; 2], required: bool, guard: Guard) -> String {
        let mut out = format!(
            "Stability receipt: {what} under {} ({how}): {}.",
            crate::words::counted(self.variants.len(), "variant", "variants"),
            self.summary()
        );
        if required {
            out.push_str(&guard.sentence(self.verdict.as_deref(), self.holds()));
        }
        out.push_str("\n\n");
        for variant in self.flipped() {
            out.push_str(&format!(
                "- Variant {}: {} — {}\n",
                variant.variant,
                self.counts.outcome(variant.verdict.as_deref()),
                crate::words::one_line(&variant.rule)
            ));
        }
        if !self.holds() {
            out.push('\n');
        }
        out
    }

    /// The rule that turns what the deciding round gave under
    /// `require_stability`, `None` when it held or `guard` does not guard
    /// it: `the ADOPT held in only 2 of 3 re-judged variants, and
    /// require_stability asks for all 3 (variant 2 gave REVISE) →
    /// ESCALATE`.
    pub fn requirement_rule(&self, guard: Guard) -> Option<String> {
        if self.holds() || !guard.guards(self.verdict.as_deref()) {
            return None;
        }
        Some(format!(
            "{} held in only {} of {} re-judged variants, and require_stability asks for all {} ({}) → {}",
            self.counts.subject(self.verdict.as_deref()),
            self.stable(),
            self.variants.len(),
            self.variants.len(),
            self.flips().join(", "),
            guard.instead()
        ))
    }
}

/// `rule` (one line ending in `→ VERDICT`) turned to `instead` by the
/// receipt's requirement: the reason goes before the new arrow.
pub fn rule_turned(rule: &str, requirement: &str) -> String {
    let reason = rule.rsplit_once(" → ").map_or(rule, |(reason, _)| reason);
    format!("{reason}; {requirement}")
}

/// One judge of a verdict's round, as the missing-judges sentence reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timed {
    /// `stylist`.
    pub who: String,
    /// Why it does not count (`skipped: timed out`); `None` for a judge
    /// whose answer counted.
    pub missing: Option<String>,
    /// How long its call ran, from its start to its answer or to giving
    /// up; `None` when that is not known.
    pub elapsed_ms: Option<u64>,
}

/// The sentence a verdict reached with judges missing carries: which
/// judges, why, and whether they were the slowest: `without the stylist
/// (skipped: timed out; it ran 600.0 s, longer than every judge that
/// answered, the slowest of which took 41.0 s)`. `None` when no judge is
/// missing. A judge recused for its model family was never asked and is
/// not passed here. `voter` is what the panel's members are called
/// (`judge`; a council's `participant`).
pub fn missing_judges(voter: &str, judges: &[Timed]) -> Option<String> {
    let missing: Vec<&Timed> = judges.iter().filter(|j| j.missing.is_some()).collect();
    if missing.is_empty() {
        return None;
    }
    let answered: Vec<&Timed> = judges.iter().filter(|j| j.missing.is_none()).collect();
    let named: Vec<String> = missing
        .iter()
        .map(|judge| {
            format!(
                "the {} ({})",
                judge.who,
                judge.missing.as_deref().unwrap_or_default()
            )
        })
        .collect();
    let fastest_missing = missing
        .iter()
        .map(|judge| judge.elapsed_ms)
        .collect::<Option<Vec<u64>>>()
        .and_then(|times| times.into_iter().min());
    let slowest_answer = answered
        .iter()
        .map(|judge| judge.elapsed_ms)
        .collect::<Option<Vec<u64>>>()
        .and_then(|times| times.into_iter().max());
    let they = if missing.len() == 1 { "it" } else { "they" };
    let slowest = match (answered.is_empty(), fastest_missing, slowest_answer) {
        (true, _, _) => format!("no {voter} answered for {they} to be compared with"),
        (false, Some(missing_ms), Some(answer_ms)) if missing_ms >= answer_ms => format!(
            "{they} were the slowest: every {voter} that answered took less (the slowest of them {})",
            crate::words::seconds(answer_ms)
        ),
        (false, Some(missing_ms), Some(answer_ms)) => format!(
            "{they} were not the slowest: {} ran {}, and a {voter} that answered took {}",
            if missing.len() == 1 {
                "it"
            } else {
                "the quickest of them"
            },
            crate::words::seconds(missing_ms),
            crate::words::seconds(answer_ms)
        ),
        _ => "the calls' times are not known, so whether they were the slowest is not".to_string(),
    };
    // `it were` reads wrong; one missing judge `was`.
    let slowest = if missing.len() == 1 {
        slowest.replacen("it were", "it was", 1)
    } else {
        slowest
    };
    Some(format!("without {}: {slowest}", named.join(", ")))
}

/// `rule` (one line ending in `→ VERDICT`) with `sentence` before its arrow.
pub fn rule_with(rule: &str, sentence: &str) -> String {
    match rule.rsplit_once(" → ") {
        Some((reason, verdict)) => format!("{reason}; {sentence} → {verdict}"),
        None => format!("{rule}; {sentence}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Verdict;

    fn timed(who: &str, missing: Option<&str>, elapsed_ms: Option<u64>) -> Timed {
        Timed {
            who: who.into(),
            missing: missing.map(str::to_string),
            elapsed_ms,
        }
    }

    /// JM-10: a receipt is off unless asked, at most 9 variants, and
    /// `require_stability` without variants is refused by its key.
    #[test]
    fn jm_10_the_receipt_is_off_by_default_and_bounded() {
        assert!(!Stability::default().is_on());
        assert_eq!(check(0, false, None), Ok(()));
        assert_eq!(check(9, true, None), Ok(()));
        let (key, problem) = check(10, false, None).unwrap_err();
        assert_eq!(key, "stability");
        assert!(problem.contains("1 to 9"), "{problem}");
        let (key, _) = check(0, true, None).unwrap_err();
        assert_eq!(key, "require_stability");
        let (key, problem) = check(3, false, Some("a brainstorm hands off")).unwrap_err();
        assert_eq!(key, "stability");
        assert!(problem.starts_with("a brainstorm hands off"), "{problem}");
    }

    /// JM-11: variants differ only in how the judges read: each pair shares
    /// a draw and the second reads it reversed; labels are neutral and
    /// change from variant to variant; every variant is a permutation.
    #[test]
    fn jm_11_variants_change_only_order_and_labels() {
        let items: Vec<u32> = (0..6).collect();
        let variants = Variant::all(42, 4);
        let first = variants[0].arrange(&items, "judge.analyst");
        let second = variants[1].arrange(&items, "judge.analyst");
        let mut reversed = first.clone();
        reversed.reverse();
        assert_eq!(second, reversed);
        for variant in &variants {
            let mut sorted = variant.arrange(&items, "judge.analyst");
            sorted.sort_unstable();
            assert_eq!(sorted, items, "a variant leaves nothing out");
            for label in [&variant.author_label, &variant.challenger_label] {
                for role in ["proposer", "critic", "oracle", "mephistopheles"] {
                    assert!(!label.contains(role), "{label}");
                }
            }
        }
        assert_ne!(variants[0].author_label, variants[1].author_label);
        // The same debate draws the same variants: a resume asks the same.
        assert_eq!(Variant::all(42, 4), variants);
        assert_ne!(Variant::new(43, 1).seed, variants[0].seed);
    }

    /// JM-13: stable in k of K, naming the variants that flipped and what
    /// they gave; under the requirement the rule says so in words.
    #[test]
    fn jm_13_the_receipt_counts_and_names_the_flips() {
        let gave = |variant, verdict: &str| VariantVerdict {
            variant,
            verdict: Some(verdict.into()),
            rule: String::new(),
        };
        let receipt = Receipt {
            counts: Counted::Verdict,
            verdict: Some("ADOPT".into()),
            variants: vec![gave(1, "ADOPT"), gave(2, "REVISE"), gave(3, "ADOPT")],
        };
        assert_eq!(receipt.stable(), 2);
        assert_eq!(
            receipt.summary(),
            "verdict stable in 2 of 3 (variant 2 gave REVISE)"
        );
        let guard = Guard::Verdict([Verdict::Adopt, Verdict::Escalate]);
        assert_eq!(
            receipt.requirement_rule(guard).as_deref(),
            Some(
                "the ADOPT held in only 2 of 3 re-judged variants, and require_stability asks for all 3 (variant 2 gave REVISE) → ESCALATE"
            )
        );
        assert_eq!(
            rule_turned("all good → ADOPT", "held in 2 of 3 → ESCALATE"),
            "all good; held in 2 of 3 → ESCALATE"
        );
        let steady = Receipt {
            counts: Counted::Verdict,
            verdict: Some("ADOPT".into()),
            variants: vec![gave(1, "ADOPT")],
        };
        assert!(steady.holds());
        assert_eq!(steady.requirement_rule(guard), None);
        assert_eq!(steady.summary(), "verdict stable in 1 of 1");
        let json = serde_json::to_value(&steady).unwrap();
        assert!(
            json.get("counts").is_none(),
            "as before comparisons: {json}"
        );
        assert_eq!(json["verdict"], "ADOPT");
        // Only the guarded verdict is turned: a REVISE that flipped stands.
        let revise = Receipt {
            verdict: Some("REVISE".into()),
            ..receipt.clone()
        };
        assert_eq!(revise.requirement_rule(guard), None);
        assert!(
            revise
                .markdown(["x", "y"], true, guard)
                .contains("Stability was required for an ADOPT; this verdict stands as it is."),
        );
    }

    /// JM-51: a comparison's receipt counts the option each variant
    /// recommended, in its own words; the requirement withdraws a
    /// recommendation that did not hold in all K, and only a
    /// recommendation (none has nothing to withdraw).
    #[test]
    fn jm_51_a_comparison_receipt_counts_recommendations() {
        let gave = |variant, option: Option<&str>| VariantVerdict {
            variant,
            verdict: option.map(str::to_string),
            rule: String::new(),
        };
        let receipt = Receipt {
            counts: Counted::Recommendation,
            verdict: Some("A".into()),
            variants: vec![gave(1, Some("A")), gave(2, Some("B")), gave(3, None)],
        };
        assert_eq!(receipt.stable(), 1);
        assert_eq!(
            receipt.summary(),
            "recommendation stable in 1 of 3 (variant 2 recommended B, variant 3 ranked no option first)"
        );
        assert_eq!(
            receipt.requirement_rule(Guard::Recommendation).as_deref(),
            Some(
                "the recommendation of A held in only 1 of 3 re-judged variants, and require_stability asks for all 3 (variant 2 recommended B, variant 3 ranked no option first) → no option recommended"
            )
        );
        let shown = receipt.markdown(["x", "y"], true, Guard::Recommendation);
        assert!(
            shown.contains(
                "Stability was required for a recommendation, so no option is recommended."
            ),
            "{shown}"
        );
        assert!(shown.contains("- Variant 2: recommended B — "), "{shown}");
        // Serialized, it says what it counts; a verdict's receipt does not.
        let json = serde_json::to_value(&receipt).unwrap();
        assert_eq!(json["counts"], "recommendation");
        assert_eq!(json["variants"][1]["verdict"], "B");
        let none = Receipt {
            verdict: None,
            variants: vec![gave(1, None), gave(2, Some("B"))],
            ..receipt
        };
        assert_eq!(
            none.summary(),
            "recommendation stable in 1 of 2 (variant 2 recommended B)"
        );
        assert_eq!(none.requirement_rule(Guard::Recommendation), None);
    }

    /// JM-14: a verdict with judges missing names them and says whether
    /// they were the slowest, from the calls' times.
    #[test]
    fn jm_14_missing_judges_are_named_with_whether_they_were_slowest() {
        assert_eq!(
            missing_judges("judge", &[timed("analyst", None, Some(1))]),
            None
        );
        let slowest = missing_judges(
            "judge",
            &[
                timed("analyst", None, Some(40_000)),
                timed("stylist", Some("skipped: timed out"), Some(600_000)),
                timed("aesthete", None, Some(41_000)),
            ],
        )
        .unwrap();
        assert_eq!(
            slowest,
            "without the stylist (skipped: timed out): it was the slowest: every judge that answered took less (the slowest of them 41.0 s)"
        );
        let not_slowest = missing_judges(
            "judge",
            &[
                timed("analyst", None, Some(40_000)),
                timed("stylist", Some("malformed: no yaml"), Some(3_000)),
            ],
        )
        .unwrap();
        assert!(
            not_slowest.contains("it was not the slowest: it ran 3.0 s"),
            "{not_slowest}"
        );
        let unknown = missing_judges(
            "judge",
            &[
                timed("analyst", None, None),
                timed("stylist", Some("skipped"), Some(3_000)),
            ],
        )
        .unwrap();
        assert!(unknown.contains("not known"), "{unknown}");
        assert_eq!(
            rule_with("a binding judge is missing → ESCALATE", "without x"),
            "a binding judge is missing; without x → ESCALATE"
        );
    }
}
