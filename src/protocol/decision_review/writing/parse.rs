//! What quorum reads out of a writing review's answers: the critic's items
//! (each with where in the draft, its type, its severity and what is
//! wrong; quorum numbers them `c1`, `c2`, ...), a judge's rewrite (its full
//! revised text, optional notes and optional scores of the draft) and the
//! merge (`revised_draft` and `changes`, each change naming the critique
//! item it answers, if any; DR-60, A16), all with the shared lenient
//! reader, so an error names the line and the field.
//!
//! Not responsible for what a parse failure means (the state machine
//! decides: a judge's bad answer is malformed and left out, the critic and
//! the merge get one repair) or for rewriting what an agent wrote.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use yaml_serde::Value;

use crate::parse::normalise::{IdMatch, KnownIds};
use crate::parse::{Document, Fields, ParseError, Read, Shape, Slip, describe, quote};

const ITEM_SHAPE: Shape = Shape {
    what: "an item (a mapping with location, type, severity, text)",
    keys: &["id", "location", "type", "severity", "text"],
    id_key: None,
};
const CHANGE_SHAPE: Shape = Shape {
    what: "a change (a mapping with location, type, before, after, rationale)",
    keys: &[
        "location",
        "type",
        "before",
        "after",
        "rationale",
        "answers",
    ],
    id_key: None,
};

/// What a change in the merged text is about (DR-60), and the aspects a
/// writing judge may score the draft on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Aspect {
    Clarity,
    Structure,
    Tone,
    Evidence,
}

impl Aspect {
    pub const ALL: [Aspect; 4] = [
        Aspect::Clarity,
        Aspect::Structure,
        Aspect::Tone,
        Aspect::Evidence,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Aspect::Clarity => "clarity",
            Aspect::Structure => "structure",
            Aspect::Tone => "tone",
            Aspect::Evidence => "evidence",
        }
    }

    /// What a judge looks for under this aspect, for prompts.
    pub fn question(self) -> &'static str {
        match self {
            Aspect::Clarity => "Can a first-time reader follow every sentence without rereading?",
            Aspect::Structure => {
                "Does the order of the parts carry the argument, with nothing out of place?"
            }
            Aspect::Tone => {
                "Does the voice suit the readers and the purpose, without hype or hedging?"
            }
            Aspect::Evidence => {
                "Is every claim backed, and is nothing stated that the draft cannot support?"
            }
        }
    }

    fn choices() -> [(&'static str, Aspect); 4] {
        Aspect::ALL.map(|aspect| (aspect.as_str(), aspect))
    }
}

impl std::fmt::Display for Aspect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A judge's answer: its own full rewrite of the draft (DR-59), what it
/// changed, and, if it gave any, its scores of the original draft.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rewrite {
    pub text: String,
    pub notes: Vec<String>,
    /// Scores from 1 to 5 of the draft as it was, by aspect; optional (A16).
    pub scores: BTreeMap<Aspect, u8>,
}

/// One entry of the merge's change list (DR-60).
#[serde_with::skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// Where in the text: a paragraph, a section, a heading.
    pub location: String,
    #[serde(rename = "type")]
    pub kind: Aspect,
    pub before: String,
    pub after: String,
    pub rationale: String,
    /// The critique item the change answers (`c2`), if any (A16): one of
    /// the items as written, or as the merge wrote it when it names none.
    pub answers: Option<String>,
}

/// The merge of the rewrites: the whole revised text, the changes, and a
/// sentence or two on what changed and why for the reader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merge {
    pub revised_draft: String,
    pub changes: Vec<Change>,
    /// The merge's own summary of the changes; quorum writes one from the
    /// changes when it gave none.
    pub summary: Option<String>,
}

/// How much a critique item weighs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Major,
    Minor,
    Note,
}

impl Severity {
    pub const ALL: [Severity; 3] = [Severity::Major, Severity::Minor, Severity::Note];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Major => "major",
            Severity::Minor => "minor",
            Severity::Note => "note",
        }
    }

    fn choices() -> [(&'static str, Severity); 3] {
        Severity::ALL.map(|severity| (severity.as_str(), severity))
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing the critic found in the draft, numbered by quorum.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CritiqueItem {
    /// `c1`, `c2`, ... in the order the critic gave them.
    pub id: String,
    /// Where in the draft: a paragraph, a heading, a quoted phrase.
    pub location: String,
    #[serde(rename = "type")]
    pub kind: Aspect,
    pub severity: Severity,
    /// What is wrong there, and what would fix it.
    pub text: String,
}

/// Reads the critic's answer: `items:`, a list (empty when the draft needs
/// nothing), each with `location`, `type` (clarity, structure, tone or
/// evidence), `severity` (major, minor or note) and `text`. An `id:` the
/// critic wrote is passed over: quorum numbers the items `c1`, `c2`, ... by
/// their places, and an item it cannot read is left out as a slip named by
/// its number, the others keeping theirs (issue 59).
pub fn parse_critique(text: &str) -> Result<Read<Vec<CritiqueItem>>, ParseError> {
    let document = Document::load(text)?;
    let fields = document.root_fields("a mapping with `items:`")?;
    let (list, path) = fields.required_list("items")?;
    let items = document.read_items(list, &path, "items", ITEM_SHAPE, |index, item| {
        Ok(CritiqueItem {
            id: item_id(index),
            location: item.required_text("location")?,
            kind: item.required_choice("type", &Aspect::choices())?,
            severity: item.required_choice("severity", &Severity::choices())?,
            text: item.required_text("text")?,
        })
    })?;
    let read = document.read(items.into_iter().map(|(_, item)| item).collect());
    Ok(Read {
        slips: read
            .slips
            .into_iter()
            .map(|slip| match slip.index {
                Some(index) => slip.named(item_id(index)),
                None => slip,
            })
            .collect(),
        ..read
    })
}

/// The id quorum gives the critique item at `index` of the critic's list.
fn item_id(index: usize) -> String {
    format!("c{}", index + 1)
}

/// Reads a judge's rewrite: `rewrite:` (the full text, required), `notes:`
/// (text or a list of texts) and `scores:` (a mapping from an aspect to a
/// whole number from 1 to 5; optional). A score or a note that cannot be
/// read is left out as a slip, the rewrite kept (issue 59): the scores
/// decide nothing, and the rewrite is what the judge was asked for.
pub fn parse_rewrite(text: &str) -> Result<Read<Rewrite>, ParseError> {
    let document = Document::load(text)?;
    let fields = document.root_fields("a mapping with `rewrite:`")?;
    let rewrite = fields.required_text("rewrite")?;
    let notes = match fields.optional_texts("notes") {
        Ok(notes) => notes,
        Err(error) => {
            document.slip(Slip::of("notes", error));
            Vec::new()
        }
    };
    let mut scores = BTreeMap::new();
    if let Some((_, value)) = fields.get("scores")
        && !matches!(value, Value::Null)
    {
        let path = fields.path_of("scores");
        match Fields::new(
            &document,
            value,
            path.clone(),
            "a mapping from clarity, structure, tone or evidence to a score",
        ) {
            Err(error) => document.slip(Slip::of("scores", error)),
            Ok(scored) => {
                let scored = scored.about("scores");
                for (key, _) in scored.map.iter() {
                    match aspect_score(&document, &scored, key) {
                        Ok((aspect, score)) => {
                            scores.insert(aspect, score);
                        }
                        Err(error) => {
                            let name = key.as_str().map_or_else(|| describe(key), str::to_string);
                            document.slip(Slip::of(format!("score {name}"), error));
                        }
                    }
                }
            }
        }
    }
    Ok(document.read(Rewrite {
        text: rewrite,
        notes,
        scores,
    }))
}

/// One score of a rewrite's `scores:`: its aspect and its value.
fn aspect_score(
    document: &Document,
    scored: &Fields<'_>,
    key: &Value,
) -> Result<(Aspect, u8), ParseError> {
    let Some(name) = key.as_str() else {
        return Err(document.error(
            &scored.path,
            format!("expected an aspect's name; found {}", describe(key)),
        ));
    };
    let word = name.trim().to_ascii_lowercase();
    let names: Vec<&str> = Aspect::choices().iter().map(|(n, _)| *n).collect();
    let place = match names.iter().position(|known| *known == word) {
        Some(place) => place,
        None => match crate::parse::normalise::near_word(&word, &names) {
            Some(place) => {
                scored.note(format!(
                    "read the aspect {} as {}",
                    quote(name),
                    names[place]
                ));
                place
            }
            None => {
                return Err(scored.error(
                    name,
                    format!(
                        "expected one of {}; found {}",
                        names.join(", "),
                        describe(key)
                    ),
                ));
            }
        },
    };
    Ok((Aspect::ALL[place], scored.required_score(name)?))
}

/// Reads the merge: `revised_draft:` (the full text), `changes:` (a list,
/// each with location, type, before, after and rationale, and `answers:`
/// naming the critique item it answers, if any; an empty list is allowed
/// when nothing needed changing) and an optional `summary:`. `items` are
/// the critique's ids: an `answers:` written another way (`C2`, `c2 (tone)`)
/// is read as the one it fits, noted; one that fits none is kept as
/// written, for the check against the rulings to name.
pub fn parse_merge_naming(text: &str, items: &[&str]) -> Result<Read<Merge>, ParseError> {
    let known = KnownIds::new(items.iter().copied());
    let document = Document::load(text)?;
    let fields = document.root_fields("a mapping with `revised_draft:` and `changes:`")?;
    let revised_draft = fields.required_text("revised_draft")?;
    let (list, path) = fields.required_list("changes")?;
    let changes = document.read_items(list, &path, "changes", CHANGE_SHAPE, |_, change| {
        let read = Change {
            location: change.required_text("location")?,
            kind: change.required_choice("type", &Aspect::choices())?,
            // An addition has no before and a cut no after.
            before: change.optional_text("before")?.unwrap_or_default(),
            after: change.optional_text("after")?.unwrap_or_default(),
            rationale: change.required_text("rationale")?,
            answers: answered_item(&change, &known)?,
        };
        if read.before.is_empty() && read.after.is_empty() {
            return Err(change.error(
                "before",
                "a change needs the text before it, the text after it, or both",
            ));
        }
        Ok(read)
    })?;
    let changes = changes.into_iter().map(|(_, change)| change).collect();
    let summary = fields.optional_text("summary")?;
    Ok(document.read(Merge {
        revised_draft,
        changes,
        summary,
    }))
}

/// [`parse_merge_naming`] with no critique: an `answers:` is kept as
/// written.
pub fn parse_merge(text: &str) -> Result<Read<Merge>, ParseError> {
    parse_merge_naming(text, &[])
}

/// The item a change names under `answers:`; none for an absent, empty or
/// `none` value.
fn answered_item(change: &Fields<'_>, known: &KnownIds<'_>) -> Result<Option<String>, ParseError> {
    let Some(written) = change.optional_text("answers")? else {
        return Ok(None);
    };
    let word = written.trim().to_ascii_lowercase();
    if word.is_empty() || ["none", "-", "n/a", "no item", "null"].contains(&word.as_str()) {
        return Ok(None);
    }
    Ok(Some(match known.match_id(&written) {
        IdMatch::Exact(id) => id,
        IdMatch::Read(id) => {
            change.note(format!("read answers {} as {id}", quote(&written)));
            id
        }
        IdMatch::Ambiguous(ids) => {
            return Err(change.error(
                "answers",
                format!(
                    "{} could be any of {}; name one item",
                    quote(&written),
                    ids.join(", ")
                ),
            ));
        }
        IdMatch::Unknown => written.trim().to_string(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::whole;

    /// The first item `read` left out, as the error that refuses the
    /// answer whole; or the whole answer's own error.
    fn refused<T: std::fmt::Debug>(read: Result<Read<T>, ParseError>) -> ParseError {
        read.and_then(whole).unwrap_err()
    }

    const REWRITE: &str = "My rewrite follows.\n\n```yaml\nrewrite: |\n  Failover takes five steps.\n\n  First, fence the old primary.\nnotes:\n  - Cut the preamble.\nscores:\n  clarity: 2\n  Tone: \"3/5\"\n```\n";

    #[test]
    fn a_rewrite_is_read_with_its_notes_and_scores() {
        let read = parse_rewrite(REWRITE).unwrap();
        assert_eq!(
            read.value.text,
            "Failover takes five steps.\n\nFirst, fence the old primary."
        );
        assert_eq!(read.value.notes, ["Cut the preamble."]);
        assert_eq!(read.value.scores.get(&Aspect::Clarity), Some(&2));
        assert_eq!(read.value.scores.get(&Aspect::Tone), Some(&3));
        assert!(
            read.notes.iter().any(|note| note.contains("3/5")),
            "{:?}",
            read.notes
        );
    }

    /// A16: scores are optional; the rewrite is not.
    #[test]
    fn scores_are_optional_and_the_rewrite_is_required() {
        let read = parse_rewrite("```yaml\nrewrite: Shorter text.\n```").unwrap();
        assert!(read.value.scores.is_empty());
        let error = parse_rewrite("```yaml\nnotes: [x]\nscores: {clarity: 3}\n```").unwrap_err();
        assert_eq!(error.field.as_deref(), Some("rewrite"));
        assert_eq!(error.line, Some(2));
    }

    /// A bad score costs that score, located; the rewrite is read (issue
    /// 59). An aspect misspelt by a letter is read, noted.
    #[test]
    fn a_bad_score_or_aspect_is_located() {
        let read =
            parse_rewrite("```yaml\nrewrite: x\nscores:\n  clarity: 7\n  tone: 3\n```").unwrap();
        assert_eq!(read.value.text, "x");
        assert_eq!(read.value.scores.len(), 1, "the tone score is read");
        let error = &read.slips[0].error;
        assert_eq!(read.slips[0].id.as_deref(), Some("score clarity"));
        assert_eq!(error.field.as_deref(), Some("scores.clarity"));
        assert_eq!(error.line, Some(4));
        let error = refused(parse_rewrite(
            "```yaml\nrewrite: x\nscores:\n  beauty: 4\n```",
        ));
        assert_eq!(error.field.as_deref(), Some("scores.beauty"));
        assert!(
            error.message.contains("clarity, structure, tone, evidence"),
            "{error}"
        );
        let read = parse_rewrite("```yaml\nrewrite: x\nscores:\n  clarty: 4\n```").unwrap();
        assert_eq!(read.value.scores.get(&Aspect::Clarity), Some(&4));
        assert_eq!(
            read.notes,
            ["read the aspect \"clarty\" as clarity (scores)"]
        );
    }

    const MERGE: &str = "```yaml\nsummary: The steps now come first.\nrevised_draft: |\n  Five steps.\nchanges:\n  - location: opening paragraph\n    type: Structure\n    before: Background first.\n    after: Five steps.\n    rationale: A reader at 3 a.m. needs the steps.\n```\n";

    #[test]
    fn a_merge_is_read() {
        let merge = parse_merge(MERGE).unwrap().value;
        assert_eq!(merge.revised_draft, "Five steps.");
        assert_eq!(merge.changes.len(), 1);
        assert_eq!(merge.changes[0].kind, Aspect::Structure);
        assert_eq!(merge.summary.as_deref(), Some("The steps now come first."));
    }

    /// DR-60: each change is `{location, type ∈ {clarity, structure, tone,
    /// evidence}, before, after, rationale}`; anything else is refused
    /// where it stands.
    #[test]
    fn dr_60_changes_have_location_type_before_after_rationale() {
        let bad_type = MERGE.replace("type: Structure", "type: grammar");
        let error = refused(parse_merge(&bad_type));
        assert_eq!(error.field.as_deref(), Some("changes[0].type"));
        assert_eq!(error.line, Some(7));
        assert!(
            error.message.contains("clarity, structure, tone, evidence"),
            "{error}"
        );
        let no_rationale =
            MERGE.replace("    rationale: A reader at 3 a.m. needs the steps.\n", "");
        let error = refused(parse_merge(&no_rationale));
        assert_eq!(error.field.as_deref(), Some("changes[0].rationale"));
        let no_location = MERGE.replace("  - location: opening paragraph\n    type", "  - type");
        let error = refused(parse_merge(&no_location));
        assert_eq!(error.field.as_deref(), Some("changes[0].location"));
        let neither = MERGE
            .replace("    before: Background first.\n", "")
            .replace("    after: Five steps.\n", "");
        let error = refused(parse_merge(&neither));
        assert_eq!(error.field.as_deref(), Some("changes[0].before"));
        let error = parse_merge("```yaml\nchanges: []\n```").unwrap_err();
        assert_eq!(error.field.as_deref(), Some("revised_draft"));
        let serialised = yaml_serde::to_string(&parse_merge(MERGE).unwrap().value.changes).unwrap();
        for key in [
            "location:",
            "type: structure",
            "before:",
            "after:",
            "rationale:",
        ] {
            assert!(serialised.contains(key), "{key}: {serialised}");
        }
    }
}
