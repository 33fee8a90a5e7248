//! The checked citations of one claim (a hypothesis, a finding, a judge's
//! reasons), and what they add up to (issue 52).

use serde::{Deserialize, Serialize};

use super::Checked;
use crate::parse::citations::MAX_CITATIONS;

/// The checked citations of one claim.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    #[serde(default)]
    pub checked: Vec<Checked>,
    /// The texts held more citations than quorum reads: the rest were not
    /// checked, and count as unverified.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub excess: bool,
    /// A place kept for a claim nothing was filed under yet
    /// (`Evidence::reserve`): shown nowhere until it is filed.
    #[serde(skip)]
    pub pending: bool,
}

impl Claim {
    /// Each citation as one line (`✓ "…" — app.log (verified at …)`), and
    /// the excess, if any.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .checked
            .iter()
            .map(|checked| crate::words::one_line(&checked.line()))
            .collect();
        if self.excess {
            lines.push(format!(
                "✗ more than {MAX_CITATIONS} citations: the rest were not checked"
            ));
        }
        lines
    }
}

impl Claim {
    /// The first citation that was checked and found wanting, if any; an
    /// excess of citations counts as one.
    pub fn first_failure(&self) -> Option<String> {
        if let Some(checked) = self.checked.iter().find(|c| c.status.failed()) {
            // `"…" — app.log, not found in app.log nor in any other
            // source`: read as "the source is not found", `is` misled.
            return Some(format!(
                "{}, {}",
                checked.citation.shape(),
                checked.status.words()
            ));
        }
        self.excess
            .then(|| format!("it cites more than {MAX_CITATIONS} sources, past what quorum checks"))
    }

    /// How many citations it makes and how they fared, in words, with the
    /// first that failed: `cited 4: 3 verified, 1 failed ("…" — app.log,
    /// not found in app.log nor in any other source)`.
    pub fn tally(&self) -> String {
        let all = self.checked.len();
        let (verified, failed) = (self.verified(), self.failed());
        let unchecked = all - verified - failed;
        let mut parts = vec![format!("{verified} verified")];
        if failed > 0 {
            parts.push(format!("{failed} failed"));
        }
        if unchecked > 0 {
            parts.push(format!("{unchecked} not checkable"));
        }
        let mut tally = format!("cited {all}: {}", parts.join(", "));
        if let Some(first) = self.first_failure() {
            tally.push_str(&format!(" ({first})"));
        }
        tally
    }

    /// Why nothing it cites can be counted on: it cites, none of it
    /// verified, and this is the first that failed. `None` when something
    /// verified or nothing was cited.
    pub fn all_failed(&self) -> Option<String> {
        self.none_verified().then(|| self.first_failure()).flatten()
    }

    /// Adds `other`'s checks to this claim's (the binding judges' reasons
    /// read as one claim).
    pub fn absorb(&mut self, other: &Claim) {
        self.checked.extend(other.checked.iter().cloned());
        self.excess |= other.excess;
    }

    /// It cites something, and nothing it cites verified.
    pub fn none_verified(&self) -> bool {
        (!self.checked.is_empty() || self.excess)
            && !self.checked.iter().any(|c| c.status.verified())
            && (self.excess || self.checked.iter().any(|c| c.status.failed()))
    }

    pub fn verified(&self) -> usize {
        self.checked.iter().filter(|c| c.status.verified()).count()
    }

    pub fn failed(&self) -> usize {
        self.checked.iter().filter(|c| c.status.failed()).count()
    }
}
