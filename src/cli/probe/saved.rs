//! A probe on disk: its folder under the probes root (`probe.json`, the
//! reader-first `probe.md`, `calls.log`, and every raw answer under
//! `raw/ROLE/`), and the latest probes read back for `quorum doctor` and
//! `quorum report`.
//!
//! Every path is quorum's own: the folder is named by the time and the
//! seed, the files by role slot and call id, and each is written with
//! [`publish_within`], so nothing lands outside the probe's folder and no
//! model's text ever names a path. Not responsible for what the figures
//! are ([`crate::protocol::probe`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::artifact::publish_within;
use crate::protocol::probe::{self, FigureKind, ProbeRecord};
use crate::share::LatestProbe;

/// The largest `probe.json` read back, in bytes: far above any probe's
/// (200 trials of five judges is under 200 KB).
pub const MAX_RECORD_BYTES: u64 = 4 * 1024 * 1024;

/// The folder of one probe.
pub struct ProbeFolder {
    path: PathBuf,
}

impl ProbeFolder {
    /// A new folder `YYYYMMDD-HHMMSS-seedN` under `root` (created when
    /// missing), `-2`, `-3` … after it when the name is taken.
    pub fn create(
        root: &Path,
        at: chrono::DateTime<chrono::Utc>,
        seed: u64,
    ) -> std::io::Result<ProbeFolder> {
        std::fs::create_dir_all(root)?;
        let base = format!("{}-seed{seed}", at.format("%Y%m%d-%H%M%S"));
        for n in 1..1000u32 {
            let name = match n {
                1 => base.clone(),
                n => format!("{base}-{n}"),
            };
            let path = root.join(name);
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(ProbeFolder { path }),
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(error) => return Err(error),
            }
        }
        Err(std::io::Error::other(format!(
            "every name from {base} to {base}-999 is taken in {}",
            root.display()
        )))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&self, relative: &str, contents: &[u8]) -> std::io::Result<()> {
        publish_within(&self.path, &self.path.join(relative), contents)
            .map_err(|error| std::io::Error::other(error.to_string()))
    }

    /// The raw answer to `call_id`, keys masked; with `malformed`, marked
    /// as such on its first line (INF-07).
    pub fn save_raw(
        &self,
        role: &str,
        call_id: &str,
        text: &str,
        malformed: Option<&str>,
    ) -> std::io::Result<()> {
        let masker = crate::secrets::current();
        let text = masker.mask(text);
        let contents = match malformed {
            Some(reason) => format!(
                "<!-- MALFORMED: {} -->\n{text}",
                crate::text::clipped(reason).replace("--", "- -")
            ),
            None => text.into_owned(),
        };
        self.write(&format!("raw/{role}/{call_id}.md"), contents.as_bytes())
    }

    /// Adds a line to `calls.log`: a timeout, a failure, a retry, a skip
    /// or an unreadable answer, with its time and call (INF-17).
    pub fn log(&self, role: &str, call_id: &str, attempt: u32, what: &str) {
        use std::io::Write;
        let line = format!(
            "{} {role}/{call_id} attempt {attempt}: {}\n",
            chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            crate::secrets::current().mask(&crate::text::clipped(what))
        );
        let opened = crate::artifact::open_regular(
            &self.path.join("calls.log"),
            std::fs::OpenOptions::new().create(true).append(true),
        );
        if let Ok(mut file) = opened {
            let _ = file.write_all(line.as_bytes());
        }
    }

    /// Writes `probe.json` and `probe.md`.
    pub fn save(&self, record: &ProbeRecord, priced: bool) -> std::io::Result<()> {
        let json = serde_json::to_string_pretty(record).map_err(std::io::Error::other)?;
        self.write("probe.json", json.as_bytes())?;
        self.write("probe.md", markdown(record, priced).as_bytes())
    }
}

/// The headline: which judges show which bias, or that none does.
pub fn headline(record: &ProbeRecord) -> String {
    let biased: Vec<String> = record
        .judges
        .iter()
        .filter(|judge| !judge.biases().is_empty())
        .map(|judge| format!("{} {}", judge.role, judge.biases().join(", ")))
        .collect();
    match biased.len() {
        0 => format!(
            "No bias found in {}: no figure's 95% interval leaves out the value of an unbiased judge.",
            crate::words::counted(record.judges.len(), "judge", "judges")
        ),
        n => format!(
            "{n} of {} {} a bias: {}.",
            crate::words::counted(record.judges.len(), "judge", "judges"),
            if n == 1 { "shows" } else { "show" },
            biased.join("; ")
        ),
    }
}

/// The result as the terminal shows it: the headline, then each judge's
/// figures one a line.
pub fn summary(record: &ProbeRecord, priced: bool) -> String {
    let mut out = format!("{}\n\n", headline(record));
    for judge in &record.judges {
        let _ = writeln!(
            out,
            "{}  {}  (family {})",
            judge.role,
            judge.agent,
            judge.family.as_deref().unwrap_or("unknown")
        );
        for figure in &judge.figures {
            let bias = figure
                .bias()
                .map(|bias| format!("  ← {bias}"))
                .unwrap_or_default();
            let line = format!("  {:<18} {:<34}{bias}", figure.metric, figure.shown());
            let _ = writeln!(out, "{}", line.trim_end());
        }
        let _ = writeln!(out, "  {}\n", calls_line(judge));
    }
    let _ = writeln!(
        out,
        "Spent {} (forecast {}).",
        record.spent.describe(priced),
        record.forecast.describe(priced)
    );
    out
}

fn calls_line(judge: &probe::JudgeRecord) -> String {
    let mut line = format!("{} answers read", judge.read);
    for (count, what) in [
        (judge.malformed, "malformed (kept, left out)"),
        (judge.unanswered, "unanswered after the retry"),
        (judge.not_made, "not made (budget)"),
    ] {
        if count > 0 {
            line.push_str(&format!(", {count} {what}"));
        }
    }
    line
}

/// `probe.md`: the headline first, then what each figure means, then each
/// judge's table, then how it ran.
pub fn markdown(record: &ProbeRecord, priced: bool) -> String {
    let mut out = String::from("# Judge probe\n\n");
    let _ = writeln!(out, "{}\n", headline(record));
    if let Some(stopped) = &record.stopped {
        let _ = writeln!(
            out,
            "**Incomplete:** {}\n",
            crate::text::for_markdown(stopped)
        );
    }
    let _ = writeln!(
        out,
        "{} on {} generated questions (seed {}), {}{}. Each figure is given with its 95% interval \
         and the count it rests on: a share's interval is Wilson's, a mean's is Student's t. A bias \
         is reported only when the interval leaves out the value of an unbiased judge.\n",
        crate::words::counted(record.judges.len(), "judge", "judges"),
        record.trials,
        record.seed,
        record.at,
        if record.demo {
            ", the built-in scripted judges"
        } else {
            ""
        }
    );
    for judge in &record.judges {
        let _ = writeln!(
            out,
            "## {} — `{}`\n\nFamily: {}{}. {}.\n",
            judge.role,
            crate::text::for_markdown(&judge.agent),
            judge.family.as_deref().unwrap_or("unknown"),
            judge
                .other_family
                .as_deref()
                .map(|other| format!(" (compared with {other})"))
                .unwrap_or_default(),
            calls_line(judge)
        );
        out.push_str("| figure | value | 95% interval | n | means | bias |\n| --- | --- | --- | --- | --- | --- |\n");
        for figure in &judge.figures {
            let (value, interval, count) = match figure.estimate {
                Some(estimate) => {
                    let number = |x: f64| match figure.kind {
                        FigureKind::Points if !figure.is_level() => format!("{x:+.2}"),
                        _ => format!("{x:.2}"),
                    };
                    let interval = if estimate.low.is_finite() && estimate.high.is_finite() {
                        format!("{} to {}", number(estimate.low), number(estimate.high))
                    } else {
                        "none (one trial)".to_string()
                    };
                    (number(estimate.value), interval, estimate.count.to_string())
                }
                None => (
                    "not measured".to_string(),
                    figure.note.clone().unwrap_or_default(),
                    "0".to_string(),
                ),
            };
            let _ = writeln!(
                out,
                "| {} | {value} | {interval} | {count} | {} | {} |",
                figure.metric,
                probe::describe(&figure.metric),
                figure.bias().unwrap_or("")
            );
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "Spent {} (forecast {}). The raw answers are in `raw/`, one file a call; \
         timeouts, retries and unreadable answers are in `calls.log`.",
        record.spent.describe(priced),
        record.forecast.describe(priced)
    );
    out
}

/// Every probe saved under `root`, oldest first; an unreadable one is
/// passed over.
pub fn probes_in(root: &Path) -> Vec<ProbeRecord> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut found: Vec<ProbeRecord> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .filter_map(|entry| read_record(&entry.path().join("probe.json")))
        .collect();
    found.sort_by(|a, b| a.at.cmp(&b.at));
    found
}

fn read_record(path: &Path) -> Option<ProbeRecord> {
    let size = std::fs::symlink_metadata(path).ok()?.len();
    if size > MAX_RECORD_BYTES {
        return None;
    }
    let text = crate::artifact::read_regular(path).ok()?;
    let record: ProbeRecord = serde_json::from_str(&text).ok()?;
    (record.version == probe::RECORD_VERSION).then_some(record)
}

/// For each `(role, agent)` of `judges`, the latest probe of that agent
/// under `root`: the probe's date and its lines (`position 0.92 [0.65,
/// 0.99] n=12`, and each bias found). Within a probe, the judge of the
/// same role is taken first (the `script` provider's judges share one
/// name and differ by role), else any judge of that agent. An agent never
/// probed has none.
pub fn latest_of(root: &Path, judges: &[(String, String)]) -> Vec<Option<LatestProbe>> {
    let probes = probes_in(root);
    judges
        .iter()
        .map(|(role, agent)| {
            probes.iter().rev().find_map(|record| {
                let judge = record
                    .judges
                    .iter()
                    .find(|judge| judge.agent == *agent && judge.role == *role)
                    .or_else(|| record.judges.iter().find(|judge| judge.agent == *agent))?;
                let lines = judge
                    .figures
                    .iter()
                    .filter(|figure| {
                        probe::Probe::ALL
                            .iter()
                            .any(|probe| probe.as_str() == figure.metric)
                            || figure.bias().is_some()
                    })
                    .map(|figure| {
                        let bias = figure
                            .bias()
                            .map(|bias| format!(" — {bias}"))
                            .unwrap_or_default();
                        format!("{} {}{bias}", figure.metric, figure.shown())
                    })
                    .collect();
                let date = record.at.get(..10).unwrap_or(&record.at);
                let demo = if record.demo { " (demo)" } else { "" };
                Some(LatestProbe {
                    date: format!("{date}{demo}"),
                    lines,
                })
            })
        })
        .collect()
}
