//! A report as one Markdown file: the same sections as the page, tables
//! for the scores and the rulings, and every agent's text either in a
//! table cell (one line, pipes escaped) or in a fence longer than any run
//! of backticks it holds, so nothing it says becomes markup.
//!
//! Not responsible for what the report says ([`super::Report`]).

use super::{Report, dollars, printable};
use crate::protocol::ChangedPart;
use crate::report::one_line;

/// `text` on one line, safe in a table cell.
fn cell(text: &str) -> String {
    one_line(&printable(text))
        .replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('<', "&lt;")
}

/// `text` in a fence no line of it can close.
fn fenced(text: &str, info: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}{info}\n{}\n{fence}\n", printable(text).trim_end())
}

/// The whole file.
pub fn render(report: &Report) -> String {
    let mut out = format!("# {}\n\n_{}_\n\n", cell(&report.topic), cell(&report.label));
    if let Some(origin) = &report.origin {
        out.push_str(&format!(
            "Forked from `{}`.\n\n",
            cell(origin).replace('`', "'")
        ));
    }
    if let Some(source) = &report.handed_from {
        out.push_str(&format!(
            "Takes what was handed on from `{}`.\n\n",
            cell(source).replace('`', "'")
        ));
    }
    out.push_str("## Conclusion\n\n");
    match &report.conclusion {
        // Markdown, but no raw HTML an agent may have written.
        Some(conclusion) => out.push_str(&format!(
            "{}\n\n",
            printable(conclusion).trim().replace('<', "&lt;")
        )),
        None => out.push_str("This debate has not ended: there is no conclusion yet.\n\n"),
    }
    match report.headline() {
        Some((word, rule)) => {
            out.push_str(&format!("## Verdict\n\n**{word}** — {}\n\n", cell(&rule)));
            if let Some(agreement) = &report.agreement {
                out.push_str(&format!("{}\n\n", cell(agreement)));
            }
        }
        None => out.push_str(&format!(
            "## Where it stands\n\n**NOT ENDED** — stopped at {}: `quorum resume` on its folder runs it on\n\n",
            cell(&report.stage)
        )),
    }
    if !report.unread.is_empty() {
        out.push_str("## What could not be read\n\nquorum could not read these parts of the answers, and went on without them:\n\n");
        for entry in &report.unread {
            out.push_str(&format!(
                "- **{}**, {}: {} ({})\n",
                cell(&entry.whose),
                cell(&entry.what),
                cell(&entry.effect),
                cell(&entry.why)
            ));
        }
        out.push('\n');
    }
    if let Some(board) = &report.scoreboard {
        out.push_str(&format!("## Scores, round {}\n\n| block |", board.round));
        let mut rule = String::from("|---|");
        for column in &board.judges {
            for criterion in &column.criteria {
                out.push_str(&format!(
                    " {}{} {} |",
                    cell(&column.judge),
                    if column.binding { "★" } else { "" },
                    cell(criterion)
                ));
                rule.push_str("---|");
            }
        }
        out.push_str(&format!("\n{rule}\n"));
        for (row, block) in board.blocks.iter().enumerate() {
            out.push_str(&format!("| {} |", cell(block)));
            for column in &board.judges {
                for index in 0..column.criteria.len() {
                    let score = column.scores.get(row).and_then(|scores| scores[index]);
                    out.push_str(&match score {
                        Some(score) => format!(" {} {score} |", "█".repeat(usize::from(score))),
                        None => " · |".to_string(),
                    });
                }
            }
            out.push('\n');
        }
        out.push('\n');
    }
    if !report.changes.is_empty() {
        out.push_str("## From the proposal to the revision\n\n");
        for part in &report.changes {
            out.push_str(&change(part));
        }
    }
    if !report.rulings.is_empty() {
        out.push_str(
            "## What quorum derived\n\n| id | about | ruling | by the rule |\n|---|---|---|---|\n",
        );
        for ruling in &report.rulings {
            out.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                cell(&ruling.subject),
                cell(&ruling.title),
                cell(ruling.word.as_deref().unwrap_or("open")),
                cell(&ruling.rule)
            ));
        }
        out.push('\n');
    }
    if !report.items.is_empty() {
        out.push_str("## The moderator's rulings\n\n| item | about | the item | ruling | note |\n|---|---|---|---|---|\n");
        for item in &report.items {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                cell(&item.item.id),
                cell(&item.item.target),
                cell(&item.item.text),
                cell(&report.decision_word(item)),
                cell(item.note.as_deref().unwrap_or(""))
            ));
        }
        out.push('\n');
    }
    if !report.budget.is_empty() {
        out.push_str("## The budget\n\n");
        for (at, what) in &report.budget {
            out.push_str(&format!("- {} · {}\n", cell(at), cell(what)));
        }
        out.push('\n');
    }
    if !report.open_questions.is_empty() {
        out.push_str("## Still to find out\n\n");
        for question in &report.open_questions {
            out.push_str(&format!("- {}\n", cell(question)));
        }
        out.push('\n');
    }
    if let Some(usage) = &report.usage {
        let count = |tokens: Option<u64>| tokens.map_or("–".to_string(), |n| n.to_string());
        out.push_str("## What each call used\n\n| call | agent | tokens in | tokens out | time | cost |\n|---|---|---:|---:|---:|---:|\n");
        for call in &usage.calls {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {:.1} s | {} |\n",
                cell(&call.call_id),
                cell(&call.agent),
                count(call.input_tokens),
                count(call.output_tokens),
                call.elapsed_ms as f64 / 1000.0,
                call.cost_usd.map_or("–".to_string(), dollars)
            ));
        }
        out.push_str(&format!(
            "| all {} calls | | {} | {} | | {} |\n\n",
            usage.total.calls,
            usage.total.input_tokens,
            usage.total.output_tokens,
            usage.total.cost_usd.map_or("–".to_string(), dollars)
        ));
    }
    if let Some(transcript) = &report.transcript {
        out.push_str("## Transcript\n\n<details>\n<summary>Every event and every raw answer, as recorded</summary>\n\n");
        out.push_str(&fenced(transcript, "text"));
        out.push_str("\n</details>\n");
    }
    out
}

fn change(part: &ChangedPart) -> String {
    let mut out = format!("### {}\n\n", cell(&part.part));
    if !part.before.is_empty() {
        out.push_str(&format!("Before:\n\n{}\n", fenced(&part.before, "text")));
    }
    if !part.after.is_empty() {
        out.push_str(&format!("After:\n\n{}\n", fenced(&part.after, "text")));
    }
    for cause in &part.causes {
        out.push_str(&format!("- {}\n", cell(cause)));
    }
    out.push('\n');
    out
}
