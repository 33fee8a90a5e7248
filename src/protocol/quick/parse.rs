//! What quorum reads out of the quick modes' answers, which are prose: the
//! red team's vulnerability list (the one YAML block the prompt asks for),
//! the challenge's bottom line, the opening of a synthesizer's document, and
//! whether that opening names the debate's machinery (RF-06, RF-08).
//!
//! Not responsible for deciding what a parse failure means (the protocol
//! does) or for rewriting anything: a synthesizer's text is kept as written.

use yaml_serde::Value;

use crate::parse::{Document, ParseError, Read, Shape, Slip, describe};

/// How severe a vulnerability is, most severe first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Critical,
    High,
    Medium,
    Low,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::High => "high",
            Severity::Medium => "medium",
            Severity::Low => "low",
        }
    }
}

const SEVERITIES: [(&str, Severity); 4] = [
    ("critical", Severity::Critical),
    ("high", Severity::High),
    ("medium", Severity::Medium),
    ("low", Severity::Low),
];

const FINDING_SHAPE: Shape = Shape {
    what: "a finding (a mapping with title, severity, description, exploit)",
    keys: &["id", "title", "severity", "description", "exploit"],
    id_key: None,
};

/// One finding of a red team, numbered by quorum (`v1`, `v2`, …) in the
/// order the critic listed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vulnerability {
    pub id: String,
    pub title: String,
    pub severity: Severity,
    pub description: String,
    pub exploit: String,
}

/// Reads the `vulnerabilities:` list of a red-team report (a mapping with
/// that key, or a bare list). Each needs a `title`, a `severity` from the
/// closed set and an `exploit` scenario; `description` may be left out.
/// The notes say what was read other than as written (tabs, emphasised
/// keys); a finding that cannot be read is left out as a slip named by the
/// id its place gives it (`v3`), the others keeping theirs (issue 59).
pub fn parse_vulnerabilities(text: &str) -> Result<Read<Vec<Vulnerability>>, ParseError> {
    let document = Document::load(text)?;
    let (list, path) = document.main_list(
        "vulnerabilities",
        "`vulnerabilities:` with a list of findings",
    )?;
    let found = document.read_items(list, &path, "findings", FINDING_SHAPE, |index, fields| {
        Ok(Vulnerability {
            id: vulnerability_id(index),
            title: fields.required_text("title")?,
            severity: fields.required_choice("severity", &SEVERITIES)?,
            description: fields.optional_text("description")?.unwrap_or_default(),
            exploit: fields.required_text("exploit")?,
        })
    })?;
    let found: Vec<Vulnerability> = found.into_iter().map(|(_, finding)| finding).collect();
    if found.is_empty() && list.is_empty() {
        return Err(document.error(
            &path,
            format!(
                "expected at least one finding; found {}",
                describe(&Value::Sequence(Vec::new()))
            ),
        ));
    }
    let read = document.read(found);
    Ok(Read {
        slips: read
            .slips
            .into_iter()
            .map(|slip| match slip.index {
                Some(index) => slip.named(vulnerability_id(index)),
                None => slip,
            })
            .collect(),
        ..read
    })
}

/// The id quorum gives the finding at `index` of the red team's list.
fn vulnerability_id(index: usize) -> String {
    format!("v{}", index + 1)
}

/// A challenge's bottom line: the text after its `Bottom line:` (markdown
/// bold around the label allowed), up to the next blank line. Given more
/// than once, it reads when every one says the same, noted; bottom lines
/// that differ are a conflict that takes neither, a slip (issue 59: never
/// the last one silently). An empty one is no bottom line. Never an error
/// for the whole answer: the challenge itself is prose.
pub fn read_bottom_line(text: &str) -> Read<Option<String>> {
    let given = bottom_lines(text);
    let mut read = Read::exact(None);
    let mut distinct: Vec<&(usize, String)> = Vec::new();
    for line in &given {
        if !distinct.iter().any(|(_, seen)| seen == &line.1) {
            distinct.push(line);
        }
    }
    match distinct.as_slice() {
        [] => {}
        [(_, only)] => {
            if given.len() > 1 {
                read.notes.push(format!(
                    "read {} `Bottom line:` lines that say the same as one",
                    given.len()
                ));
            }
            read.value = Some(only.clone());
        }
        several => {
            let lines: Vec<String> = several.iter().map(|(line, _)| line.to_string()).collect();
            read.slips.push(Slip::of(
                "bottom line",
                ParseError {
                    line: Some(several[0].0),
                    field: Some("Bottom line".into()),
                    message: format!(
                        "{} `Bottom line:` lines say different things (lines {}); give one",
                        several.len(),
                        lines.join(", ")
                    ),
                },
            ));
        }
    }
    read
}

/// The challenge's bottom line when it has exactly one ([`read_bottom_line`]).
pub fn bottom_line(text: &str) -> Option<String> {
    read_bottom_line(text).value
}

/// Every non-empty `Bottom line:` of `text`, each with its continuation
/// lines up to the next blank line, with the 1-based line it starts on.
fn bottom_lines(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some(rest) = label_rest(line) else {
            continue;
        };
        let mut words = vec![rest.to_string()];
        for next in &lines[start + 1..] {
            if next.trim().is_empty() || label_rest(next).is_some() {
                break;
            }
            words.push(next.trim().to_string());
        }
        let joined = words.join(" ").trim().to_string();
        if !joined.is_empty() {
            found.push((start + 1, joined));
        }
    }
    found
}

/// What follows `Bottom line:` on `line`, if the line starts with it.
fn label_rest(line: &str) -> Option<&str> {
    let trimmed = line.trim().trim_start_matches(['*', '_', '>', ' ']);
    let lower = trimmed.to_ascii_lowercase();
    let label = "bottom line";
    if !lower.starts_with(label) {
        return None;
    }
    let rest = trimmed[label.len()..].trim_start_matches(['*', '_']);
    let rest = rest.strip_prefix(':')?;
    Some(rest.trim_start_matches(['*', '_']).trim())
}

/// A synthesizer's document split into its opening paragraph(s) — the text
/// before its first `## ` heading — and the rest. A title line it wrote
/// anyway (`# …`) is dropped: quorum adds its own.
pub fn split_opening(text: &str) -> (String, String) {
    let mut lines = text.trim().lines().peekable();
    if lines
        .peek()
        .is_some_and(|line| line.starts_with("# ") || line.trim() == "#")
    {
        lines.next();
    }
    let body: Vec<&str> = lines.collect();
    let heading = body
        .iter()
        .position(|line| line.starts_with("## "))
        .unwrap_or(body.len());
    let opening = body[..heading].join("\n").trim().to_string();
    let rest = body[heading..].join("\n").trim().to_string();
    (opening, rest)
}

/// The three angles of a panel review, as a reviewer's reading names them
/// (issue 29), in the panel's order: the aesthete's, the stylist's, the
/// analyst's.
pub const LENSES: [&str; 3] = ["elegance", "clarity", "rigour"];

/// The heading of the reading a reviewer gives last.
const READING_HEADING: &str = "your reading";

/// A reviewer's reading of the work on each lens, 1 to 10 (issue 29): no
/// score of the work, only what shows how alike the reviewers read it.
/// A lens it did not rate, or rated outside 1..=10, is `None`.
pub fn reading(review: &str) -> [Option<u8>; 3] {
    read_reading(review).value
}

/// [`reading`], with a slip for each lens rated twice with different
/// numbers, which is then `None` (issue 59: a conflict takes neither).
pub fn read_reading(review: &str) -> Read<[Option<u8>; 3]> {
    let mut read = Read::exact([None; 3]);
    let mut rated: [Vec<Option<u8>>; 3] = Default::default();
    let Some(section) = reading_section(review) else {
        return read;
    };
    for line in section.lines() {
        let line = line
            .trim()
            .trim_start_matches(['-', '*', ' '])
            .replace('*', "");
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let name = name.trim().to_lowercase();
        let lens = match name.as_str() {
            "rigor" => 2,
            name => match LENSES.iter().position(|lens| *lens == name) {
                Some(lens) => lens,
                None => continue,
            },
        };
        // `7`, `7/10`, `7 out of 10`: the number before anything else.
        let digits: String = value
            .trim()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        rated[lens].push(
            digits
                .parse::<u8>()
                .ok()
                .filter(|score| (1..=10).contains(score)),
        );
    }
    for (lens, given) in rated.iter().enumerate() {
        let mut distinct: Vec<Option<u8>> = given.clone();
        distinct.dedup();
        distinct.sort();
        distinct.dedup();
        match distinct.as_slice() {
            [] => {}
            [only] => read.value[lens] = *only,
            _ => read.slips.push(Slip::of(
                format!("reading on {}", LENSES[lens]),
                ParseError {
                    line: None,
                    field: Some(LENSES[lens].into()),
                    message: format!(
                        "{} is rated {} times with different numbers",
                        LENSES[lens],
                        given.len()
                    ),
                },
            )),
        }
    }
    read
}

/// `review` without its reading: what a synthesizer reads, since the
/// readings are no part of the review itself.
pub fn without_reading(review: &str) -> String {
    match reading_bounds(review) {
        Some((start, end)) => {
            let (before, after) = (review[..start].trim_end(), review[end..].trim_start());
            match after.is_empty() {
                true => format!("{before}\n"),
                false => format!("{before}\n\n{after}"),
            }
        }
        None => review.to_string(),
    }
}

fn reading_section(review: &str) -> Option<&str> {
    reading_bounds(review).map(|(start, end)| &review[start..end])
}

/// Where the `## Your reading` section starts and ends in `review`.
fn reading_bounds(review: &str) -> Option<(usize, usize)> {
    let mut offset = 0;
    let mut start = None;
    for line in review.split_inclusive('\n') {
        let heading = line
            .trim()
            .strip_prefix("##")
            .map(|rest| rest.trim_start_matches('#').trim().to_lowercase());
        match (start, heading) {
            (None, Some(title)) if title == READING_HEADING => start = Some(offset),
            (Some(begun), Some(_)) => return Some((begun, offset)),
            _ => {}
        }
        offset += line.len();
    }
    start.map(|begun| (begun, review.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "Here is what I found.\n\n```yaml\nvulnerabilities:\n  - title: Replayable webhooks\n    severity: High\n    description: Signatures do not cover the timestamp.\n    exploit: Capture one delivery and send it again a day later.\n  - title: \"Admin: no rate limit\"\n    severity: critical\n    exploit: Guess the PIN in an afternoon.\n```\n\n## Abuse vectors\n\n...";

    #[test]
    fn vulnerabilities_are_read_and_numbered_by_quorum() {
        let read = parse_vulnerabilities(REPORT).unwrap();
        assert!(read.notes.is_empty(), "{:?}", read.notes);
        let found = read.value;
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].id, "v1");
        assert_eq!(found[0].severity, Severity::High, "case does not matter");
        assert_eq!(found[1].title, "Admin: no rate limit");
        assert_eq!(found[1].description, "", "a description may be left out");
    }

    /// A finding that breaks the format is left out as a slip named by the
    /// id its place gives it, located; the others are read (issue 59).
    #[test]
    fn a_bad_severity_or_a_missing_exploit_is_located() {
        let read = parse_vulnerabilities(
            "```yaml\nvulnerabilities:\n  - title: x\n    severity: dire\n    exploit: y\n  - title: z\n    severity: low\n    exploit: w\n```",
        )
        .unwrap();
        assert_eq!(read.value.len(), 1);
        assert_eq!(read.value[0].id, "v2", "v2 keeps its number");
        let slip = &read.slips[0];
        assert_eq!(slip.id.as_deref(), Some("v1"));
        assert_eq!(
            slip.error.field.as_deref(),
            Some("vulnerabilities[0].severity")
        );
        assert!(
            slip.error.message.contains("critical, high, medium, low"),
            "{}",
            slip.error
        );
        let read = parse_vulnerabilities(
            "```yaml\nvulnerabilities:\n  - title: x\n    severity: low\n```",
        )
        .unwrap();
        assert_eq!(
            read.slips[0].error.field.as_deref(),
            Some("vulnerabilities[0].exploit")
        );
        assert!(parse_vulnerabilities("No YAML at all, just prose.").is_err());
    }

    /// A bottom line is read with its continuation. Given twice, it reads
    /// when both say the same; two that differ are a conflict that takes
    /// neither (issue 59: the last one never silently wins).
    #[test]
    fn the_last_bottom_line_is_read_with_its_continuation() {
        let text = "Points...\n\n**Bottom line:** the position holds only with a rollback plan;\nwithout one it does not.\n";
        assert_eq!(
            bottom_line(text).as_deref(),
            Some("the position holds only with a rollback plan; without one it does not.")
        );
        assert_eq!(bottom_line("No verdict here."), None);
        assert_eq!(bottom_line("Bottom line:\n"), None);
        let two = "Points...\n\nBottom line: an early draft.\n\nMore points.\n\n**Bottom line:** the position holds only with a rollback plan;\nwithout one it does not.\n";
        let read = read_bottom_line(two);
        assert_eq!(read.value, None);
        assert_eq!(read.slips.len(), 1);
        assert_eq!(
            read.slips[0].error.to_string(),
            "line 3, Bottom line: 2 `Bottom line:` lines say different things (lines 3, 7); give one"
        );
        let same = "Bottom line: it holds.\n\nBottom line: it holds.\n";
        let read = read_bottom_line(same);
        assert_eq!(read.value.as_deref(), Some("it holds."));
        assert!(read.slips.is_empty());
        assert_eq!(read.notes.len(), 1);
    }

    #[test]
    fn an_opening_runs_to_the_first_section_and_a_title_is_dropped() {
        let (opening, rest) = split_opening(
            "# My title\n\nThe plan holds.\nIt needs a rollback.\n\n## Details\n\nMore.",
        );
        assert_eq!(opening, "The plan holds.\nIt needs a rollback.");
        assert_eq!(rest, "## Details\n\nMore.");
        let (opening, rest) = split_opening("Only an opening.");
        assert_eq!((opening.as_str(), rest.as_str()), ("Only an opening.", ""));
    }

    /// RF-06, RF-08: the opening of a reader deliverable names no role,
    /// block id or score, and no option "discarded in favour of" another.
    #[test]
    fn rf_06_rf_08_process_words_in_an_opening_are_found() {
        let provenance = |opening: &str, topic: &str| {
            crate::protocol::record::provenance(opening, topic, &super::super::role_words())
        };
        assert!(provenance("The design holds if the queue is bounded.", "Queue?").is_empty());
        let found = provenance(
            "All three reviewers agree; the Analyst gave b2 a 2/5 and REST was discarded in favour of gRPC.",
            "API style",
        );
        assert_eq!(
            found,
            [
                "`reviewers`",
                "`Analyst`",
                "the block id `b2`",
                "a score out of 5",
                "\"discarded in favour of\""
            ]
        );
        assert!(
            provenance(
                "Critical: the analyst dashboard leaks data.",
                "The analyst dashboard"
            )
            .is_empty(),
            "a word of the topic and a word that only contains a role are fine"
        );
    }

    /// Issue 29: a reviewer's reading is read leniently (bold, `/10`,
    /// `rigor`), a lens out of range or missing is none, and the synthesizer
    /// reads the review without it.
    #[test]
    fn a_reviewers_reading_is_read_and_kept_from_the_synthesizer() {
        let review = "## Strongest aspect\n\nTight.\n\n## Your reading\n\n\
                      - **elegance**: 7/10\nclarity: 11\nRigor: 4 out of 10\n\n\
                      ## Afterword\n\nThanks.\n";
        assert_eq!(reading(review), [Some(7), None, Some(4)]);
        assert_eq!(
            without_reading(review),
            "## Strongest aspect\n\nTight.\n\n## Afterword\n\nThanks.\n"
        );
        let last = "## One improvement\n\nSplit it.\n\n### Your reading\nelegance: 5\n";
        assert_eq!(reading(last), [Some(5), None, None]);
        assert_eq!(without_reading(last), "## One improvement\n\nSplit it.\n");
        assert_eq!(reading("no reading at all"), [None; 3]);
        assert_eq!(without_reading("no reading at all"), "no reading at all");
    }
}
