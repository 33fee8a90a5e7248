//! What quorum could not read of a debate's answers and went on without
//! (issue 59), and the section every reader-first deliverable carries about
//! it. Below both the debate's skeleton (which keeps the list) and the
//! reading item by item (which adds to it).

use serde::{Deserialize, Serialize};

/// Something of a debate's answers quorum could not read and left out, and
/// what leaving it out changed. Every reader-first deliverable lists these
/// ([`unread_md`]); `debate.yaml` and the JSON outputs
/// carry them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Unread {
    /// The call whose answer it was.
    pub call_id: String,
    /// Whose answer: the role slot (`critic`, `expert.reliability`).
    pub whose: String,
    /// What of it: `critique item c3`, `its final position`.
    pub what: String,
    /// Why it could not be read, as the reader located it.
    pub why: String,
    /// What leaving it out changed, in words: `it was not put to the
    /// moderator`.
    pub effect: String,
}

/// An item of an answer that only its repair made readable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repaired {
    pub call_id: String,
    /// Whose answer: the role slot.
    pub whose: String,
    /// The item, as the log names it: `c3`, `Challenge 2`.
    pub what: String,
}

/// The heading of the section that says what could not be read.
pub const UNREAD_HEADING: &str = "## What could not be read";

/// The section a reader-first deliverable carries when something of the
/// answers could not be read (issue 59): whose it was, what, why, and what
/// leaving it out changed, one line each. `None` when everything was read:
/// the section is there only when it has something to say.
pub fn unread_md(unread: &[Unread]) -> Option<String> {
    if unread.is_empty() {
        return None;
    }
    let mut section = format!(
        "{UNREAD_HEADING}\n\nquorum could not read these parts of the answers, and went on without them:\n\n"
    );
    for entry in unread {
        section.push_str(&format!(
            "- The {}'s {} ({}). {}\n",
            entry.whose,
            entry.what,
            entry.why,
            sentence(&entry.effect)
        ));
    }
    Some(section)
}

/// `deliverable` with the section that says what could not be read
/// ([`unread_md`]) after its opening: before its first `## ` heading that
/// follows the opening, or at its end. Unchanged when everything was read,
/// or when it says so already.
pub fn with_unread(deliverable: &str, unread: &[Unread]) -> String {
    let Some(section) = unread_md(unread) else {
        return deliverable.to_string();
    };
    if deliverable.contains(UNREAD_HEADING) {
        return deliverable.to_string();
    }
    match deliverable.find("\n## ") {
        Some(at) => format!(
            "{}\n\n{section}\n{}",
            deliverable[..at].trim_end(),
            &deliverable[at + 1..]
        ),
        None => format!("{}\n\n{section}", deliverable.trim_end()),
    }
}

/// `text` as a sentence: capitalised, ending with a full stop.
fn sentence(text: &str) -> String {
    let text = text.trim();
    let mut chars = text.chars();
    let mut sentence = match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
        None => return String::new(),
    };
    if !sentence.ends_with(['.', '!', '?']) {
        sentence.push('.');
    }
    sentence
}
