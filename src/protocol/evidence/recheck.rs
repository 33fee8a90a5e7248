//! `quorum verdict`'s second look at the evidence (issue 52): every
//! citation `evidence.yaml` records, checked again against the debate's
//! sources as they are on disk now, when each still hashes as recorded.
//! A protocol's evidence rule (EV-07, EV-08, EV-09) is then derived from
//! these checks rather than from the statuses its record states, so an
//! edited record cannot make a failed citation count as verified.

use std::collections::BTreeMap;

use super::{ContextDoc, EVIDENCE_YAML, Evidence, EvidenceRecord};
use crate::evidence::SourceRecord;
use crate::evidence::{Claim, RepoLimits};
use crate::input::{RecordFileError, RecordFiles};

/// Each claim of a debate's `evidence.yaml` by name, its citations checked
/// again against the sources as they are now ([`recheck`]).
pub type Rechecked = BTreeMap<String, Claim>;

/// The claims of `files`' `evidence.yaml` checked again, and what the
/// person is told: a status that differs from the recorded one, or why
/// nothing was checked again. `None` when the debate records no evidence,
/// or its sources changed (the recorded checks then stand, and `verdict`
/// says which changed).
/// `context` and `records` are what the debate's definition recorded.
pub fn recheck(
    context: &[ContextDoc],
    records: &[SourceRecord],
    files: &dyn RecordFiles,
) -> (Option<Rechecked>, Vec<String>) {
    let yaml = match files.read(EVIDENCE_YAML, "evidence record") {
        Ok(yaml) => yaml,
        Err(RecordFileError::Missing(_)) => return (None, Vec::new()),
        Err(error) => {
            let shown = files.shown(EVIDENCE_YAML);
            return (
                None,
                vec![format!("{shown}: {error}; the recorded checks stand")],
            );
        }
    };
    let Some(record) = EvidenceRecord::read(&yaml) else {
        let shown = files.shown(EVIDENCE_YAML);
        return (
            None,
            vec![format!("{shown} does not read; the recorded checks stand")],
        );
    };
    if records
        .iter()
        .any(|record| record.changed(RepoLimits::default()).is_some())
    {
        return (
            None,
            vec!["a source changed since the debate, so its citations were not checked again; the recorded checks stand".into()],
        );
    }
    let evidence = Evidence::open(context, records, true);
    let mut readings = Vec::new();
    let mut rechecked = Rechecked::new();
    for (name, recorded) in record.claims {
        let citations: Vec<_> = recorded
            .checked
            .iter()
            .map(|checked| checked.citation.clone())
            .collect();
        let claim = Claim {
            checked: evidence.sources().check(&citations),
            excess: recorded.excess,
            pending: false,
        };
        for (was, now) in recorded.checked.iter().zip(&claim.checked) {
            if was.status != now.status {
                readings.push(format!(
                    "{EVIDENCE_YAML}: {name}: {} was recorded as {} and checks now as {}; the check counts",
                    now.citation.shape(),
                    was.status.words(),
                    now.status.words()
                ));
            }
        }
        rechecked.insert(name, claim);
    }
    (Some(rechecked), readings)
}

/// What a record says is unverified (claim → why), as the fresh checks
/// have it when there are any (`rechecked`): for each claim `names`, `why`
/// of its checks. Where the two differ a reading says so, naming `record`,
/// and the fresh checks count.
pub fn unverified_now(
    rechecked: Option<&Rechecked>,
    record: &str,
    recorded: &BTreeMap<String, String>,
    names: impl IntoIterator<Item = String>,
    why: impl Fn(&Claim) -> Option<String>,
    readings: &mut Vec<String>,
) -> BTreeMap<String, String> {
    let Some(claims) = rechecked else {
        return recorded.clone();
    };
    let fresh: BTreeMap<String, String> = names
        .into_iter()
        .filter_map(|name| {
            let why = why(claims.get(&name)?)?;
            Some((name, why))
        })
        .collect();
    for name in recorded.keys().chain(fresh.keys()) {
        let (was, now) = (recorded.get(name), fresh.get(name));
        // A name in both maps, or in neither, reads the same both ways.
        if was.is_some() == now.is_some() {
            continue;
        }
        readings.push(match now {
            Some(why) => format!(
                "{record}: {name} counts as unverified, as its citations check now: {why}"
            ),
            None => format!(
                "{record}: {name} is recorded as unverified, but its citations check now; they count"
            ),
        });
    }
    fresh
}

#[cfg(test)]
mod tests {
    use super::*;

    /// EV-04: a citation whose recorded status was edited is checked again
    /// against the sources, and the check counts.
    #[test]
    fn ev_04_an_edited_status_is_checked_again_and_the_check_counts() {
        let dir = tempfile::tempdir().unwrap();
        let yaml = "sources: []\nclaims:\n  H1:\n    checked:\n      - citation:\n          source: app.log\n          quote: pool wait p99=900ms\n        status: verified\n        source: app.log\n        lines:\n          first: 1\n          last: 1\n";
        std::fs::write(dir.path().join(EVIDENCE_YAML), yaml).unwrap();
        let context = [ContextDoc {
            name: "app.log".into(),
            text: "pool wait p99=38ms\n".into(),
        }];
        let folder = crate::input::RecordFolder::new(dir.path());
        let (rechecked, readings) = recheck(&context, &[], &folder);
        let claim = &rechecked.expect("checked again")["H1"];
        assert!(claim.none_verified(), "{claim:?}");
        assert_eq!(readings.len(), 1, "{readings:?}");
        assert!(
            readings[0]
                .contains("was recorded as verified at app.log:L1 and checks now as not found"),
            "{}",
            readings[0]
        );
    }
}
