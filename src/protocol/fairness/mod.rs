//! Fair judging (issue 29), for every protocol whose panel scores or votes:
//! what a judge may learn of who wrote what, the order it reads things in,
//! whether it judges an author of its own model family, and how many
//! independent votes the panel really cast.
//!
//! * [`Fairness`] is a debate's setting, journaled on its first line so that
//!   a resume or a replay judges alike; a debate journaled before it has
//!   none and folds as it ran.
//! * [`family`] knows model families, [`mask`] hides self-identification
//!   in what other agents read, [`order`] gives each judge its own order,
//!   and [`agreement`] measures the panel after the fact.
//!
//! Pure: no I/O and no clock. Not responsible for applying any of it to a
//! prompt or a verdict: each protocol does, where it builds them.

pub mod agreement;
pub use crate::config::family;
pub mod mask;
pub mod order;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use family::{Family, Recusal};

/// A debate's fair-judging setting.
///
/// Its [`Default`] is what a debate journaled before issue 29 ran with
/// (nothing blind, the order as written, no recusal), so that such a
/// journal folds, resumes and replays exactly as it ran; a new debate gets
/// [`Fairness::new`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fairness {
    /// What a judge reads names no agent, provider or model, and an
    /// author's self-identification is masked.
    #[serde(default)]
    pub blind: bool,
    /// Each judge's order of what it reads, and of its criteria, is drawn
    /// from this seed; none: everyone reads in the order written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_seed: Option<u64>,
    #[serde(default = "legacy_recusal")]
    pub recusal: Recusal,
    /// The model family of each role slot whose family is known
    /// (`judge.analyst: anthropic`); a slot missing here is of no known
    /// family and is never taken for anyone's kin.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub families: BTreeMap<String, Family>,
    /// The slot of a judge that scores only the final revision
    /// (`judge.strategist`), so the revise loop is never tuned to its
    /// taste; none: every judge scores every round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_out: Option<String>,
}

fn legacy_recusal() -> Recusal {
    Recusal::Off
}

impl Default for Fairness {
    fn default() -> Self {
        Fairness {
            blind: false,
            order_seed: None,
            recusal: legacy_recusal(),
            families: BTreeMap::new(),
            held_out: None,
        }
    }
}

impl Fairness {
    /// A new debate's setting: blind unless `blind` is false, each judge
    /// in its own order drawn from `order_seed`, the given recusal policy.
    pub fn new(
        blind: bool,
        order_seed: u64,
        recusal: Recusal,
        families: BTreeMap<String, Family>,
    ) -> Fairness {
        Fairness {
            blind,
            order_seed: Some(order_seed),
            recusal,
            families,
            held_out: None,
        }
    }

    /// This setting with the judge in `slot` held out of every round but
    /// the one that decides.
    pub fn holding_out(self, slot: Option<String>) -> Fairness {
        Fairness {
            held_out: slot,
            ..self
        }
    }

    /// Whether the judge in `slot` scores only the final revision.
    pub fn holds_out(&self, slot: &str) -> bool {
        self.held_out.as_deref() == Some(slot)
    }

    /// What a debate journaled before fair judging ran with.
    pub fn is_legacy(&self) -> bool {
        *self == Fairness::default()
    }

    /// `items` in the order the judge in `slot` reads them.
    pub fn arrange<T: Clone>(&self, items: &[T], slot: &str) -> Vec<T> {
        match self.order_seed {
            Some(seed) => order::arrange(items, seed, slot),
            None => items.to_vec(),
        }
    }

    /// The judge's criteria in the order it reads them.
    pub fn arrange_criteria<T: Clone>(&self, criteria: &[T], slot: &str) -> Vec<T> {
        self.arrange(criteria, &order::criteria_slot(slot))
    }

    /// How the panel is kept fair, in a few words for a scoreboard
    /// (`blind · each judge its own order · recusal: flag`); none for a
    /// debate from before fair judging.
    pub fn describe(&self) -> Option<String> {
        if self.is_legacy() {
            return None;
        }
        let mut parts = vec![if self.blind { "blind" } else { "not blind" }];
        if self.order_seed.is_some() {
            parts.push("each judge its own order");
        }
        let recusal = format!("recusal: {}", self.recusal.as_str());
        let held_out = self
            .held_out
            .as_ref()
            .map(|slot| format!("{slot} held out for the final revision"));
        Some(
            parts
                .into_iter()
                .map(str::to_string)
                .chain([recusal])
                .chain(held_out)
                .collect::<Vec<_>>()
                .join(" · "),
        )
    }

    /// How the judge in `slot` judges `author`'s work, a word or two each,
    /// for its pane: `blind`, `own order`, `≈ anthropic` (flagged kin) or
    /// `recused`; nothing for a debate from before fair judging.
    pub fn marks(&self, slot: &str, author: &str) -> Vec<String> {
        let mut marks = Vec::new();
        if self.blind {
            marks.push("blind".to_string());
        }
        if self.order_seed.is_some() {
            marks.push("own order".to_string());
        }
        if self.holds_out(slot) {
            marks.push("held out".to_string());
        }
        if let Some(kin) = self.kinship(slot, author) {
            marks.push(match kin.recused() {
                true => "recused".to_string(),
                false => format!("≈ {}", kin.family),
            });
        }
        marks
    }

    /// The family of a role slot, when known.
    pub fn family(&self, slot: &str) -> Option<&Family> {
        self.families.get(slot)
    }

    /// Whether the judge in `judge` shares a family with the author in
    /// `author`, under a policy that compares families.
    pub fn kinship(&self, judge: &str, author: &str) -> Option<Kinship> {
        if self.recusal == Recusal::Off {
            return None;
        }
        let family = self.family(judge)?;
        family::same_family(Some(family), self.family(author)).then(|| Kinship {
            judge: judge.to_string(),
            author: author.to_string(),
            family: family.clone(),
            policy: self.recusal,
        })
    }
}

/// A judge of the same model family as an author it judges.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kinship {
    /// The judge's slot: `judge.analyst`.
    pub judge: String,
    /// The author's slot: `proposer`.
    pub author: String,
    pub family: Family,
    pub policy: Recusal,
}

impl Kinship {
    /// Whether the judge is left out.
    pub fn recused(&self) -> bool {
        self.policy == Recusal::Recuse
    }

    /// `judge.analyst shares the proposer's model family (anthropic): recused`.
    pub fn describe(&self) -> String {
        let what = if self.recused() { "recused" } else { "flagged" };
        format!(
            "{} shares the {}'s model family ({}): {what}",
            self.judge, self.author, self.family
        )
    }
}

/// Hides an author's self-identification in what other agents read, and
/// keeps what it hid for the record; lets text through untouched when the
/// debate is not blind.
pub struct Blindfold {
    masker: Option<mask::Masker>,
    masked: Vec<String>,
    /// The person's own material, lowercased: a name it contains is what
    /// the debate is about, not an author naming itself, and is spared.
    spare: String,
}

impl Blindfold {
    /// For a debate under `fairness`, whose agents run `models` (masked
    /// wherever they appear, over the built-in names).
    pub fn new<'a>(fairness: &Fairness, models: impl IntoIterator<Item = &'a str>) -> Blindfold {
        Blindfold {
            masker: fairness.blind.then(|| mask::Masker::new(models)),
            masked: Vec::new(),
            spare: String::new(),
        }
    }

    /// This blindfold sparing every name that `material` (the topic, the
    /// context, a draft: what the person gave) contains: a debate about
    /// which model to buy, or a draft that names one, keeps those names in
    /// what agents read and write back.
    pub fn sparing<'a>(mut self, material: impl IntoIterator<Item = &'a str>) -> Blindfold {
        for text in material {
            self.spare.push_str(&text.to_lowercase());
            self.spare.push('\n');
        }
        self
    }

    /// For a debate under `fairness` whose agents are `agents`
    /// (`provider:model`): a scripted or human role's label names no model,
    /// so only the others' models are masked by name.
    pub fn for_agents<'a>(
        fairness: &Fairness,
        agents: impl IntoIterator<Item = &'a str>,
    ) -> Blindfold {
        let models = agents.into_iter().filter_map(|agent| {
            let (provider, model) = agent.split_once(':')?;
            (!matches!(provider, "script" | "human")).then_some(model)
        });
        Blindfold::new(fairness, models)
    }

    /// Masks `text` in place, but the names the person's material has.
    pub fn cover(&mut self, text: &mut String) {
        let Some(masker) = &self.masker else {
            return;
        };
        let result = masker.mask(text);
        if result.maskings.is_empty() {
            return;
        }
        if self.spare.is_empty() {
            self.masked
                .extend(result.maskings.iter().map(mask::Masking::describe));
            *text = result.text;
            return;
        }
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for masking in &result.maskings {
            let end = masking.offset + masking.found.len();
            out.push_str(&text[copied..masking.offset]);
            if self.spare.contains(&masking.found.to_lowercase()) {
                out.push_str(&text[masking.offset..end]);
            } else {
                out.push_str(masking.replaced_by);
                self.masked.push(masking.describe());
            }
            copied = end;
        }
        out.push_str(&text[copied..]);
        *text = out;
    }

    /// Masks every text inside `value` (the keys are quorum's own).
    pub fn cover_json(&mut self, value: &mut serde_json::Value) {
        match value {
            serde_json::Value::String(text) => self.cover(text),
            serde_json::Value::Array(items) => {
                items.iter_mut().for_each(|item| self.cover_json(item))
            }
            serde_json::Value::Object(fields) => {
                fields.values_mut().for_each(|field| self.cover_json(field));
            }
            _ => {}
        }
    }

    /// What was masked, in order: `masked \`Claude\` as [model]`.
    pub fn into_masked(self) -> Vec<String> {
        self.masked
    }

    /// What was masked, each masking once, sorted: what a record notes
    /// when several readers read the same text.
    pub fn into_distinct(self) -> Vec<String> {
        let mut masked = self.masked;
        masked.sort();
        masked.dedup();
        masked
    }
}

/// A verdict's rule that says which judges scored their own family's work
/// (`all checks passed (judge.analyst shares the proposer's model family
/// (anthropic): flagged)`); a recused judge did not score and is not named.
pub fn rule_with_flags<'a>(
    rule: String,
    kinships: impl IntoIterator<Item = &'a Kinship>,
) -> String {
    let flagged: Vec<String> = kinships
        .into_iter()
        .filter(|kin| !kin.recused())
        .map(Kinship::describe)
        .collect();
    if flagged.is_empty() {
        rule
    } else {
        format!("{rule} ({})", flagged.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn families(pairs: &[(&str, &str)]) -> BTreeMap<String, Family> {
        pairs
            .iter()
            .map(|(slot, family)| (slot.to_string(), Family::new(family).expect("a family")))
            .collect()
    }

    fn fairness(recusal: Recusal) -> Fairness {
        Fairness::new(
            true,
            9,
            recusal,
            families(&[
                ("proposer", "anthropic"),
                ("judge.analyst", "anthropic"),
                ("judge.stylist", "openai"),
            ]),
        )
    }

    #[test]
    fn a_debate_journaled_before_fair_judging_reads_as_it_ran() {
        let old: Fairness = serde_json::from_str("{}").expect("reads");
        assert!(old.is_legacy());
        assert!(!old.blind);
        assert_eq!(old.recusal, Recusal::Off);
        assert_eq!(old.arrange(&[1, 2, 3], "judge.analyst"), vec![1, 2, 3]);
    }

    #[test]
    fn a_new_debate_is_blind_shuffled_and_flags_by_default_policy() {
        let new = fairness(Recusal::default());
        assert!(new.blind);
        assert_eq!(new.recusal, Recusal::Flag);
        let blocks: Vec<u32> = (1..=8).collect();
        assert_ne!(
            new.arrange(&blocks, "judge.analyst"),
            new.arrange(&blocks, "judge.stylist")
        );
        assert_eq!(
            new.arrange(&blocks, "judge.analyst"),
            new.arrange(&blocks, "judge.analyst")
        );
        assert_ne!(
            new.arrange(&blocks, "judge.analyst"),
            new.arrange_criteria(&blocks, "judge.analyst")
        );
    }

    #[test]
    fn a_judge_of_the_authors_family_is_flagged_or_recused_by_the_policy() {
        let flagged = fairness(Recusal::Flag)
            .kinship("judge.analyst", "proposer")
            .expect("kin");
        assert!(!flagged.recused());
        assert_eq!(
            flagged.describe(),
            "judge.analyst shares the proposer's model family (anthropic): flagged"
        );
        let recused = fairness(Recusal::Recuse)
            .kinship("judge.analyst", "proposer")
            .expect("kin");
        assert!(recused.recused());
        assert!(recused.describe().ends_with(": recused"));
        assert_eq!(
            fairness(Recusal::Off).kinship("judge.analyst", "proposer"),
            None
        );
        assert_eq!(
            fairness(Recusal::Flag).kinship("judge.stylist", "proposer"),
            None
        );
    }

    #[test]
    fn a_judges_pane_is_marked_with_how_it_judges() {
        assert_eq!(
            fairness(Recusal::Flag).marks("judge.analyst", "proposer"),
            ["blind", "own order", "≈ anthropic"]
        );
        assert_eq!(
            fairness(Recusal::Recuse).marks("judge.analyst", "proposer"),
            ["blind", "own order", "recused"]
        );
        assert_eq!(
            fairness(Recusal::Flag).marks("judge.stylist", "proposer"),
            ["blind", "own order"]
        );
        assert!(
            Fairness::default()
                .marks("judge.analyst", "proposer")
                .is_empty()
        );
    }

    /// A name the person's own material has is what the debate is about:
    /// it is spared, while an author's naming of itself is still masked.
    #[test]
    fn a_blindfold_spares_the_names_the_persons_material_has() {
        let fairness = fairness(Recusal::Flag);
        let mut blindfold = Blindfold::for_agents(&fairness, ["openai:gpt-4.1"])
            .sparing(["Should support move from Zendesk bots to Claude?"]);
        let mut text = "As GPT-4.1, I find Claude cheaper for support.".to_string();
        blindfold.cover(&mut text);
        assert_eq!(text, "As [model], I find Claude cheaper for support.");
        assert_eq!(blindfold.into_masked(), ["masked `GPT-4.1` as [model]"]);
        let mut unspared = Blindfold::for_agents(&fairness, ["openai:gpt-4.1"]);
        let mut text = "Claude is cheaper.".to_string();
        unspared.cover(&mut text);
        assert_eq!(text, "[model] is cheaper.");
    }

    #[test]
    fn unknown_families_are_never_kin() {
        let fairness = fairness(Recusal::Recuse);
        assert_eq!(fairness.kinship("judge.aesthete", "critic"), None);
        assert_eq!(fairness.kinship("judge.analyst", "critic"), None);
    }

    #[test]
    fn a_recusal_policy_reads_from_its_word_or_says_which_words_there_are() {
        assert_eq!("recuse".parse::<Recusal>(), Ok(Recusal::Recuse));
        assert_eq!(
            "abstain".parse::<Recusal>(),
            Err("`abstain` is not a recusal policy; use flag, recuse, off".to_string())
        );
    }

    #[test]
    fn the_setting_round_trips_through_the_journal() {
        let setting = fairness(Recusal::Recuse);
        let json = serde_json::to_string(&setting).expect("writes");
        assert_eq!(
            serde_json::from_str::<Fairness>(&json).expect("reads"),
            setting
        );
    }
}
