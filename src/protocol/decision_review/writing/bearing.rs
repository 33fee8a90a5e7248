//! Whether the revised draft bears out what the merge says of it (issue
//! 60). A change's `answers:` label and its `before` and `after` are the
//! merge's word; the revised draft is the fact. quorum reads the one
//! against the other, so that the deliverables call an item answered only
//! when the text shows it, and a rejected or deferred item untouched only
//! when the wording it points at is still there.
//!
//! How texts are matched: every run of whitespace (line breaks included)
//! counts as one space, leading and trailing whitespace is ignored, and
//! curly quotes count as straight ones; otherwise a quoted text must occur
//! exactly, case included. A change is borne out when its `before` occurs
//! fewer times in the revised draft than in the draft (it was replaced or
//! cut), or its `after` occurs more times (it was written in), or, for a
//! change whose `before` and `after` are one text (a move), when that text
//! is still there. An item's location is checked through the wording it
//! quotes (`second paragraph, "This means people will not be blamed."`):
//! wording of the draft that the revised draft holds fewer times was
//! changed.
//!
//! Not responsible for what the merge is asked or asked again (the state
//! machine), nor for how the deliverables word a result ([`super::documents`]).

use super::parse::{Change, CritiqueItem};

/// What the revised draft shows of one change the merge reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bearing {
    /// The revised draft shows the change.
    Made,
    /// The revised draft still has the change's old text, as often as the
    /// draft had it, and not its new text.
    OldTextStays,
    /// The revised draft has not the change's new text, and the draft
    /// never had its old text as quoted: nothing shows it was made.
    NotFound,
}

/// `text` as it is matched: whitespace runs as one space, trimmed, curly
/// quotes straight.
pub fn normalised(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .map(|c| match c {
            '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{00ab}' | '\u{00bb}' => '"',
            '\u{2018}' | '\u{2019}' | '\u{201a}' => '\'',
            other => other,
        })
        .collect()
}

/// How many times `needle` occurs in `haystack`, overlapping or not;
/// both already [`normalised`]. An empty needle occurs nowhere.
fn occurrences(haystack: &str, needle: &str) -> usize {
    if needle.is_empty() {
        return 0;
    }
    (0..haystack.len())
        .filter(|&start| haystack.is_char_boundary(start) && haystack[start..].starts_with(needle))
        .count()
}

/// What `revised` shows of `change` to `draft`.
pub fn bearing(change: &Change, draft: &str, revised: &str) -> Bearing {
    let (draft, revised) = (normalised(draft), normalised(revised));
    let (before, after) = (normalised(&change.before), normalised(&change.after));
    let was = occurrences(&draft, &before);
    let replaced = was > 0 && occurrences(&revised, &before) < was;
    let written = !after.is_empty() && occurrences(&revised, &after) > occurrences(&draft, &after);
    let moved = !after.is_empty() && after == before && occurrences(&revised, &after) > 0;
    if replaced || written || moved {
        Bearing::Made
    } else if was > 0 {
        Bearing::OldTextStays
    } else {
        Bearing::NotFound
    }
}

impl Bearing {
    /// Why a change labelled as answering `id` does not count as answering
    /// it, in a sentence: `labelled as answering c3, but the revised draft
    /// still has the old text`. `None` when it was made.
    pub fn against_label(self, change: &Change, id: Option<&str>) -> Option<String> {
        let label = match id {
            Some(id) => format!("labelled as answering {id}"),
            None => "listed as a change".to_string(),
        };
        let why = match self {
            Bearing::Made => return None,
            Bearing::OldTextStays => "but the revised draft still has the old text".to_string(),
            Bearing::NotFound if change.after.trim().is_empty() => {
                "but the text it cuts was never in the draft as quoted".to_string()
            }
            Bearing::NotFound if change.before.trim().is_empty() => {
                "but the revised draft does not have its new text".to_string()
            }
            Bearing::NotFound => "but the revised draft does not have its new text, and the \
                                  draft never had its old text as quoted"
                .to_string(),
        };
        Some(format!("{label}, {why}"))
    }
}

/// What the revised draft shows of the wording an item's location quotes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Untouched {
    /// Every quoted wording of the draft is still there.
    Yes,
    /// This quoted wording of the draft is gone, or there fewer times.
    Changed(String),
    /// The location quotes no wording the draft has: nothing to check.
    Unchecked,
}

/// Whether the wording `item`'s location quotes is as the draft had it.
pub fn untouched(item: &CritiqueItem, draft: &str, revised: &str) -> Untouched {
    let (draft, revised) = (normalised(draft), normalised(revised));
    let mut checked = false;
    for quoted in quotations(&item.location) {
        let quoted = normalised(&quoted);
        let was = occurrences(&draft, &quoted);
        if was == 0 {
            continue;
        }
        checked = true;
        if occurrences(&revised, &quoted) < was {
            return Untouched::Changed(quoted);
        }
    }
    if checked {
        Untouched::Yes
    } else {
        Untouched::Unchecked
    }
}

/// The texts `location` quotes, in order: between double quotes (straight
/// or curly), or between single quotes that open after a space or a
/// bracket and close before one or a punctuation mark (so an apostrophe is
/// not a quote). Quotes of fewer than three characters are passed over.
pub fn quotations(location: &str) -> Vec<String> {
    let chars: Vec<char> = location.chars().collect();
    let mut out = Vec::new();
    let mut index = 0;
    while index < chars.len() {
        let open = chars[index];
        let close = match open {
            '"' => Some('"'),
            '\u{201c}' => Some('\u{201d}'),
            '\'' | '\u{2018}'
                if index == 0 || chars[index - 1].is_whitespace() || chars[index - 1] == '(' =>
            {
                Some(if open == '\'' { '\'' } else { '\u{2019}' })
            }
            _ => None,
        };
        let Some(close) = close else {
            index += 1;
            continue;
        };
        let single = close != '"' && close != '\u{201d}';
        let end = (index + 1..chars.len()).find(|&at| {
            chars[at] == close
                && (!single || chars.get(at + 1).is_none_or(|next| !next.is_alphanumeric()))
        });
        match end {
            Some(end) => {
                let quoted: String = chars[index + 1..end].iter().collect();
                if quoted.trim().chars().count() >= 3 {
                    out.push(quoted.trim().to_string());
                }
                index = end + 1;
            }
            None => index += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::decision_review::writing::parse::{Aspect, Severity};

    fn change(before: &str, after: &str) -> Change {
        Change {
            location: "second sentence".into(),
            kind: Aspect::Clarity,
            before: before.into(),
            after: after.into(),
            rationale: "why".into(),
            answers: Some("c1".into()),
        }
    }

    fn item(location: &str) -> CritiqueItem {
        CritiqueItem {
            id: "c1".into(),
            location: location.into(),
            kind: Aspect::Clarity,
            severity: Severity::Major,
            text: "what is wrong".into(),
        }
    }

    const DRAFT: &str = "Welcome to on-call.\nIt is very important that you read everything.\n\nPages are answered within 5 minutes.";

    /// Issue 60: a change counts as made when its old text is gone or its
    /// new text is there, whitespace and curly quotes aside; a change the
    /// revised draft does not show is named for what it lacks.
    #[test]
    fn a_change_is_made_only_as_the_revised_draft_shows_it() {
        let replaced = "Welcome to on-call. Read the first-hour list first. Pages are answered within 5 minutes.";
        let asked = change(
            "It is very   important that you\nread everything.",
            "Read the first-hour list first.",
        );
        assert_eq!(bearing(&asked, DRAFT, replaced), Bearing::Made);
        // Its new text reworded (a list), its old text gone: still made.
        let reworded =
            "Welcome to on-call.\n- Read the list.\nPages are answered within 5 minutes.";
        assert_eq!(bearing(&asked, DRAFT, reworded), Bearing::Made);
        // Nothing changed: the old text stays.
        assert_eq!(bearing(&asked, DRAFT, DRAFT), Bearing::OldTextStays);
        assert_eq!(
            Bearing::OldTextStays.against_label(&asked, Some("c3")),
            Some("labelled as answering c3, but the revised draft still has the old text".into())
        );
        // An addition: made when its text is written in.
        let added = change("", "Ask in #on-call.");
        assert_eq!(bearing(&added, DRAFT, DRAFT), Bearing::NotFound);
        assert_eq!(
            bearing(&added, DRAFT, &format!("{DRAFT} Ask in #on-call.")),
            Bearing::Made
        );
        // A cut: made when its text is gone.
        let cut = change("Welcome to on-call.", "");
        assert_eq!(bearing(&cut, DRAFT, replaced), Bearing::OldTextStays);
        assert_eq!(
            bearing(&cut, DRAFT, "Pages are answered within 5 minutes."),
            Bearing::Made
        );
        // A new text that was in the draft already shows nothing.
        let echo = change("It is very important", "read everything.");
        assert_eq!(bearing(&echo, DRAFT, DRAFT), Bearing::OldTextStays);
        // Misquoted: neither its old text in the draft nor its new one in
        // the revision.
        let misquoted = change("It is vital to read it all.", "Read the list.");
        assert_eq!(bearing(&misquoted, DRAFT, DRAFT), Bearing::NotFound);
        // Curly and straight quotes match.
        let quoted = change("the \u{201c}first hour\u{201d}", "the first-hour list");
        assert_eq!(
            bearing(
                &quoted,
                "Read the \"first hour\" notes.",
                "Read the \"first hour\" notes."
            ),
            Bearing::OldTextStays
        );
    }

    /// Issue 60: the wording an item's location quotes, in double or
    /// single quotes (an apostrophe is not one), is checked in the revised
    /// draft; a location that quotes nothing cannot be checked.
    #[test]
    fn an_items_quoted_wording_is_checked_in_the_revised_draft() {
        assert_eq!(
            quotations("second paragraph, \"This means people will not be blamed.\""),
            ["This means people will not be blamed."]
        );
        assert_eq!(
            quotations("third sentence, '5 minutes', and the team's \u{201c}first hour\u{201d}"),
            ["5 minutes", "first hour"]
        );
        assert!(quotations("the team's intro, don't touch").is_empty());
        let pointed = item("third sentence, 'within 5 minutes'");
        assert_eq!(untouched(&pointed, DRAFT, DRAFT), Untouched::Yes);
        assert_eq!(
            untouched(&pointed, DRAFT, "Pages are answered fast."),
            Untouched::Changed("within 5 minutes".into())
        );
        assert_eq!(
            untouched(&item("first sentence"), DRAFT, "Anything."),
            Untouched::Unchecked
        );
        assert_eq!(
            untouched(&item("the \"handbook\" heading"), DRAFT, "Anything."),
            Untouched::Unchecked,
            "wording the draft never had is nothing to check"
        );
    }
}
