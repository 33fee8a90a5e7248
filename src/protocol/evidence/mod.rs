//! What a debate's agents cited, checked, for every protocol (issue 52).
//!
//! A protocol's [`super::debate::DebateCore`] holds one [`Evidence`]: the
//! debate's sources ([`crate::evidence::Sources`], loaded once when the
//! protocol is built) and a ledger of checked citations filed under the
//! claim they support, in the protocol's own words (`H1`, `block B2`,
//! `finding F3`). A protocol files a claim's texts when it reads an
//! answer ([`Evidence::file`]); the same answers file the same checks on a
//! resume or a replay, so the ledger is never journaled on its own.
//!
//! What the ledger changes is each protocol's rule, stated where its
//! verdict is derived; what is shared is here: the sources block every
//! evidence-asking prompt carries ([`Evidence::prompt`]), the check
//! results a judge or critic is shown ([`Evidence::findings_for`]), and
//! the "Evidence" section every reader-first deliverable carries
//! ([`Evidence::section`]) with its machine-readable twin
//! (`evidence.yaml`, [`Evidence::yaml`]).

pub mod recheck;
mod requests;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::ContextDoc;
pub use crate::evidence::Claim;
use crate::evidence::sources::{LeftOut, Tree};
use crate::evidence::{RepoLimits, SourceKind, SourceRecord, Sources};
use crate::parse::citations::{MAX_CITATIONS, citations};

/// The file every debate folder with sources or citations carries.
pub const EVIDENCE_YAML: &str = "evidence.yaml";

/// The heading of the deliverable's section.
pub const EVIDENCE_HEADING: &str = "## Evidence";

/// The most files of a tree a prompt lists by name.
const LISTED_FILES: usize = 300;
/// The most files a prompt shows whole because the topic names them.
const SHOWN_FILES: usize = 4;
/// The most bytes of one such file a prompt shows.
const SHOWN_BYTES: usize = 32 << 10;

/// Lines `first..=last` of `text` (counted from 1), each after its number,
/// as prompts show a source, within `room` bytes (what they take is taken
/// from it); and whether the lines were cut short for want of room.
fn numbered(text: &str, first: u32, last: u32, room: &mut usize) -> (String, bool) {
    let mut rows = String::new();
    let wanted = text
        .lines()
        .enumerate()
        .skip(first.saturating_sub(1) as usize)
        .take((last.saturating_add(1)).saturating_sub(first) as usize);
    for (at, line) in wanted {
        let row = format!("{:>5}  {line}\n", at + 1);
        if row.len() > *room {
            return (rows, true);
        }
        *room -= row.len();
        rows.push_str(&row);
    }
    (rows, false)
}

/// `evidence.yaml`: the sources' records, what a tree left out, and every
/// claim's checked citations.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct EvidenceRecord {
    #[serde(default)]
    pub sources: Vec<SourceRecord>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<LeftOut>,
    #[serde(default)]
    pub claims: BTreeMap<String, Claim>,
}

impl EvidenceRecord {
    /// `evidence.yaml` read back; `None` when it does not read.
    pub fn read(yaml: &str) -> Option<EvidenceRecord> {
        yaml_serde::from_str(yaml).ok()
    }
}

/// A debate's sources and what its agents cited.
#[derive(Clone, Debug, Default)]
pub struct Evidence {
    /// The debate checks its citations: started since issue 52. One
    /// journaled before files nothing and writes no section, so that its
    /// files rebuild as they were.
    active: bool,
    sources: Arc<Sources>,
    records: Vec<SourceRecord>,
    /// Claims in the order first filed, each with its checks.
    claims: Vec<(String, Claim)>,
    /// Sources that changed since the debate started, in words.
    changed: Vec<String>,
    /// What each role asked to be shown, for its next prompt
    /// ([`Evidence::file_requests`]).
    asked: Vec<(String, requests::Asked)>,
}

impl Evidence {
    /// A debate with nothing to cite.
    pub fn none() -> Evidence {
        Evidence::default()
    }

    /// The sources of a debate: its context documents (a document a
    /// record calls a log is one) and the source tree its records name,
    /// walked again as it is now; each source whose hash differs from the
    /// one recorded at the start is noted ([`Evidence::changed`]). `active`
    /// is false for a debate journaled before citations were checked: it
    /// gets [`Evidence::none`].
    pub fn open(context: &[ContextDoc], records: &[SourceRecord], active: bool) -> Evidence {
        if !active {
            return Evidence::none();
        }
        let kind_of = |name: &str| {
            records
                .iter()
                .find(|record| record.kind == SourceKind::Log && record.name == name)
                .map_or(SourceKind::Context, |record| record.kind)
        };
        let mut documents: Vec<(String, SourceKind, String)> = context
            .iter()
            .map(|doc| (doc.name.clone(), kind_of(&doc.name), doc.text.clone()))
            .collect();
        // A log the protocol does not paste (a council's context is kept
        // minimal) is still a source: read again from where it was.
        for record in records.iter().filter(|r| r.kind == SourceKind::Log) {
            if context.iter().any(|doc| doc.name == record.name) {
                continue;
            }
            if let Some(text) = record
                .path
                .as_deref()
                .and_then(|path| std::fs::read_to_string(path).ok())
            {
                documents.push((record.name.clone(), SourceKind::Log, text));
            }
        }
        let tree = records
            .iter()
            .find(|record| record.kind == SourceKind::Repo)
            .and_then(|record| record.path.as_deref())
            .map(|root| {
                Tree::walk_shared(root, RepoLimits::default()).unwrap_or_else(|why| Tree {
                    record: SourceRecord::of_file(SourceKind::Repo, "repo", Some(root), ""),
                    files: Vec::new(),
                    left_out: vec![LeftOut {
                        name: root.display().to_string(),
                        why,
                    }],
                })
            });
        let mut changed = Vec::new();
        for record in records {
            let now = match (record.kind, &tree) {
                (SourceKind::Repo, Some(tree)) => {
                    (tree.record.sha256 != record.sha256).then(|| record.changed_words())
                }
                _ => record.changed(RepoLimits::default()),
            };
            changed.extend(now);
        }
        Evidence {
            active: true,
            sources: Sources::shared(documents, tree),
            records: records.to_vec(),
            claims: Vec::new(),
            changed,
            asked: Vec::new(),
        }
    }

    /// Each source that no longer reads as it did when the debate started,
    /// in words.
    pub fn changed(&self) -> &[String] {
        &self.changed
    }

    pub fn sources(&self) -> &Sources {
        &self.sources
    }

    /// The debate has something to cite.
    pub fn has_sources(&self) -> bool {
        !self.sources.is_empty()
    }

    /// What the definition recorded of each source.
    pub fn records(&self) -> &[SourceRecord] {
        &self.records
    }

    /// Reads and checks every citation of `texts`, filed under `claim`
    /// (replacing what was filed there before: a revised answer stands
    /// on its own citations).
    pub fn file<'t>(&mut self, claim: &str, texts: impl IntoIterator<Item = &'t str>) -> &Claim {
        static NOTHING: Claim = Claim {
            checked: Vec::new(),
            excess: false,
            pending: false,
        };
        if !self.active {
            return &NOTHING;
        }
        let found = self.checked(texts);
        let index = match self.claims.iter().position(|(name, _)| name == claim) {
            Some(index) => {
                self.claims[index].1 = found;
                index
            }
            None => {
                self.claims.push((claim.to_string(), found));
                self.claims.len() - 1
            }
        };
        &self.claims[index].1
    }

    /// Keeps `claim`'s place in the order claims are shown before anything
    /// is filed under it: a protocol whose answers are its claims reserves
    /// each one when it starts the call, so that answers arriving in any
    /// order (a panel's reviewers, a writing review's judges) are shown in
    /// the order they were asked for, the same in every run.
    pub fn reserve(&mut self, claim: &str) {
        if !self.active || self.claims.iter().any(|(name, _)| name == claim) {
            return;
        }
        self.claims.push((
            claim.to_string(),
            Claim {
                pending: true,
                ..Claim::default()
            },
        ));
    }

    /// Every citation of `texts` read and checked, at most
    /// [`MAX_CITATIONS`] in all; the rest are counted as excess.
    fn checked<'t>(&self, texts: impl IntoIterator<Item = &'t str>) -> Claim {
        let mut found = Claim::default();
        for text in texts {
            let cited = citations(text, &|name| self.sources.knows(name));
            found.excess |= cited.excess;
            let room = MAX_CITATIONS.saturating_sub(found.checked.len());
            found.excess |= cited.citations.len() > room;
            let take = cited.citations.len().min(room);
            found
                .checked
                .extend(self.sources.check(&cited.citations[..take]));
        }
        found
    }

    /// What `claim` cites, checked; `None` when nothing was filed for it.
    pub fn of(&self, claim: &str) -> Option<&Claim> {
        self.claims
            .iter()
            .find(|(name, found)| name == claim && !found.pending)
            .map(|(_, found)| found)
    }

    /// Every claim filed, in order (a place reserved and not yet filed is
    /// marked `pending`).
    pub fn claims(&self) -> &[(String, Claim)] {
        &self.claims
    }

    /// Every citation checked so far.
    pub fn counts(&self) -> (usize, usize, usize) {
        let all: usize = self.claims.iter().map(|(_, c)| c.checked.len()).sum();
        let verified: usize = self.claims.iter().map(|(_, c)| c.verified()).sum();
        let failed: usize = self.claims.iter().map(|(_, c)| c.failed()).sum();
        (all, verified, failed)
    }

    /// The block every evidence-asking prompt carries: what may be cited,
    /// under which names, and the one shape of a citation. `topic` picks
    /// the files of a tree shown whole.
    pub fn prompt(&self, topic: &str) -> String {
        if !self.active {
            return String::new();
        }
        let mut out = String::from(
            "## Citing evidence\n\nquorum checks every citation mechanically against the sources below. A quote or a line that is not in them counts against the point it supports, so cite only what you can see here, in one of two shapes:\n\n- a quote: the exact words in quotation marks, a dash, the source: `\"pool exhausted (size 20)\" — app.log` (add the line if you know it: `— app.log:L212`);\n- a span: the source and its lines, `src/webhooks.go:L17-L22`, optionally followed by the exact words quoted from those lines.\n\n",
        );
        if !self.has_sources() {
            out.push_str("No sources were given to this debate: citations cannot be checked, so say where each piece of evidence comes from.\n");
            return out;
        }
        out.push_str(&Evidence::how_to_ask());
        out.push_str("\nSources, by the name a citation uses:\n\n");
        let mut tree_files = Vec::new();
        for (name, kind, lines, _) in self.sources.list() {
            match kind {
                SourceKind::Repo => tree_files.push((name, lines)),
                kind => out.push_str(&format!("- `{name}` ({}, {lines} lines)\n", kind.as_str())),
            }
        }
        if !tree_files.is_empty() {
            let tree = self.sources.tree.as_deref().unwrap_or("repo");
            out.push_str(&format!(
                "- the source tree `{tree}`, {} files, each by its path:\n",
                tree_files.len()
            ));
            for (name, lines) in tree_files.iter().take(LISTED_FILES) {
                out.push_str(&format!("  - `{name}` ({lines} lines)\n"));
            }
            if tree_files.len() > LISTED_FILES {
                out.push_str(&format!(
                    "  - … and {} more files\n",
                    tree_files.len() - LISTED_FILES
                ));
            }
            if !self.sources.left_out.is_empty() {
                out.push_str(&format!(
                    "  ({} files of the tree were left out: links, binary files, files too large, or past the tree's limit)\n",
                    self.sources.left_out.len()
                ));
            }
            let shown = self.sources.named_in(topic, SHOWN_FILES);
            for name in shown {
                let text = self.sources.text(name).unwrap_or_default();
                out.push_str(&format!("\n### `{name}`, with its line numbers\n\n"));
                let mut room = SHOWN_BYTES;
                let (mut rows, cut) = numbered(text, 1, u32::MAX, &mut room);
                if cut {
                    rows.push_str("…\n");
                }
                out.push_str(&crate::words::fenced(&rows, ""));
                out.push('\n');
            }
        }
        out
    }

    /// Each citation of `texts`, checked, one line each (`✓ "…" — app.log
    /// (verified at app.log:L3)`), without filing them: what the
    /// moderator's view of an item shows. Empty for a debate that checks
    /// nothing.
    pub fn lines_for<'t>(&self, texts: impl IntoIterator<Item = &'t str>) -> Vec<String> {
        if !self.active {
            return Vec::new();
        }
        let mut lines = Vec::new();
        for text in texts {
            let cited = citations(text, &|name| self.sources.knows(name));
            let claim = Claim {
                checked: self.sources.check_where_cited(&cited.citations),
                excess: cited.excess,
                pending: false,
            };
            lines.extend(claim.lines());
        }
        lines
    }

    /// What one answer cites, checked, without filing it: a tally in words
    /// (`cites 4: 3 verified, 1 not found or out of range`) and each
    /// citation's line, for the transcript and the answer's pane. `None`
    /// when the answer cites nothing or the debate checks nothing.
    pub fn marks(&self, answer: &str) -> Option<(String, Vec<String>)> {
        if !self.active {
            return None;
        }
        let claim = self.checked([answer]);
        if claim.checked.is_empty() && !claim.excess {
            return None;
        }
        Some((claim.tally(), claim.lines()))
    }

    /// What checking found for `claims`, for a judge's or critic's prompt:
    /// one line per citation that is not verified, saying so. Empty when
    /// every citation verified or none was made.
    pub fn findings_for<'c>(&self, claims: impl IntoIterator<Item = &'c str>) -> String {
        let mut out = String::new();
        for claim in claims {
            let Some(found) = self.of(claim) else {
                continue;
            };
            for checked in found.checked.iter().filter(|c| !c.status.verified()) {
                out.push_str(&format!(
                    "- {claim}: {} — {}\n",
                    checked.citation.shape(),
                    checked.status.words()
                ));
            }
            if found.excess {
                out.push_str(&format!(
                    "- {claim}: more than {MAX_CITATIONS} citations; the rest were not checked\n"
                ));
            }
        }
        out
    }

    /// What checking found wanting in every claim filed so far, for the
    /// prompt of a synthesizer who writes the reader's document from those
    /// answers: one line per citation that is not verified, saying so,
    /// without the call it came from (the synthesizer reads the answers
    /// by what they say, not by who said them). Empty when every citation
    /// verified or none was made.
    pub fn findings_in_all(&self) -> String {
        let mut out = String::new();
        for (_, found) in &self.claims {
            for checked in found.checked.iter().filter(|c| !c.status.verified()) {
                out.push_str(&format!(
                    "- {} — {}\n",
                    checked.citation.shape(),
                    checked.status.words()
                ));
            }
            if found.excess {
                out.push_str(&format!(
                    "- more than {MAX_CITATIONS} citations in one answer; the rest were not checked\n"
                ));
            }
        }
        out
    }

    /// The deliverable's "Evidence" section: each claim's citations with
    /// their status, and any source that changed. `None` when nothing was
    /// cited and no source was given.
    pub fn section(&self) -> Option<String> {
        if !self.active {
            return None;
        }
        let changed = &self.changed;
        // Only a protocol that reads citations files claims: one that has
        // not read them says nothing about them (not "none cited"); with no
        // source and no citation there is nothing to say either.
        let cited = self
            .claims
            .iter()
            .any(|(_, claim)| !claim.checked.is_empty() || claim.excess);
        let filed = self.claims.iter().any(|(_, claim)| !claim.pending);
        if !filed || (!cited && !self.has_sources()) {
            return None;
        }
        let (all, verified, failed) = self.counts();
        let mut out = format!("{EVIDENCE_HEADING}\n\n");
        out.push_str(&if all == 0 {
            "No answer cited a source.".to_string()
        } else {
            format!(
                "quorum checked {} against the sources, mechanically: {verified} verified, {failed} did not, and {} could not be checked.",
                crate::words::counted(all, "citation", "citations"),
                all - verified - failed
            )
        });
        out.push_str("\n\n");
        for note in changed.iter() {
            out.push_str(&format!("- ⚠ {note}\n"));
        }
        for (claim, found) in &self.claims {
            if found.checked.is_empty() && !found.excess {
                continue;
            }
            out.push_str(&format!("**{claim}**\n\n"));
            for line in found.lines() {
                out.push_str(&format!("- {line}\n"));
            }
            out.push('\n');
        }
        Some(out)
    }

    /// The same as data, for `evidence.yaml`.
    pub fn yaml(&self) -> String {
        yaml_serde::to_string(&EvidenceRecord {
            sources: self.records.clone(),
            left_out: self.sources.left_out.clone(),
            claims: self
                .claims
                .iter()
                .filter(|(_, claim)| !claim.pending)
                .cloned()
                .collect(),
        })
        .unwrap_or_default()
    }
}

/// `deliverable` with `section` at its end, before what a deliverable
/// keeps last: its closing pointer to the full record (`Full record: …`)
/// or the list of its events (`## Events`, `## Log`); unchanged when it
/// carries one already.
pub fn with_section(deliverable: &str, section: &str) -> String {
    if deliverable.contains(EVIDENCE_HEADING) {
        return deliverable.to_string();
    }
    let body = deliverable.trim_end();
    let last_line = body.rfind('\n').map_or(0, |at| at + 1);
    let at = ["\n## Events\n", "\n## Log\n"]
        .iter()
        .filter_map(|heading| body.rfind(heading).map(|at| at + 1))
        .min()
        .or_else(|| {
            body[last_line..]
                .starts_with("Full record:")
                .then_some(last_line)
        });
    match at {
        Some(at) => format!(
            "{}\n\n{}\n\n{}\n",
            body[..at].trim_end(),
            section.trim_end(),
            &body[at..]
        ),
        None => format!("{body}\n\n{}\n", section.trim_end()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_goes_before_the_pointer_or_the_events() {
        let section = "## Evidence\n\nx.\n";
        assert_eq!(
            with_section("# T\n\nBody.\n\nFull record: a.md\n", section),
            "# T\n\nBody.\n\n## Evidence\n\nx.\n\nFull record: a.md\n"
        );
        assert_eq!(
            with_section("# T\n\n## Events\n\n- e\n", section),
            "# T\n\n## Evidence\n\nx.\n\n## Events\n\n- e\n"
        );
        assert_eq!(
            with_section("# T\n\nBody.\n", section),
            "# T\n\nBody.\n\n## Evidence\n\nx.\n"
        );
    }

    /// Answers that arrive in any order are shown in the order their calls
    /// were started; a place reserved and never filed shows nowhere.
    #[test]
    fn reserved_claims_keep_the_order_asked_whatever_order_they_are_filed_in() {
        let context = [ContextDoc {
            name: "notes.md".into(),
            text: "pool exhausted (size 20)\n".into(),
        }];
        let mut evidence = Evidence::open(&context, &[], true);
        for claim in ["a/reviews/r1", "b/reviews/r1", "c/reviews/r1"] {
            evidence.reserve(claim);
        }
        evidence.file("c/reviews/r1", ["\"pool exhausted (size 20)\" — notes.md"]);
        evidence.file("a/reviews/r1", ["\"pool exhausted (size 99)\" — notes.md"]);
        let section = evidence.section().unwrap();
        let a = section.find("**a/reviews/r1**").unwrap();
        let c = section.find("**c/reviews/r1**").unwrap();
        assert!(a < c, "{section}");
        assert!(!section.contains("b/reviews/r1"), "{section}");
        assert!(!evidence.yaml().contains("b/reviews/r1"));
        assert!(evidence.of("b/reviews/r1").is_none());
    }
}
