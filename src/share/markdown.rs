//! A report as one Markdown file: the same sections as the page, tables
//! for the scores and the rulings, and every agent's text either in a
//! table cell (one line, every character Markdown could read as markup
//! escaped), in a fence longer than any run of backticks it holds, or, for
//! the conclusion, as Markdown whose links, images and raw HTML are shown
//! as text, so nothing it says becomes markup a viewer acts on.
//!
//! Not responsible for what the report says ([`super::Report`]).

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::{Report, dollars, printable};
use crate::protocol::ChangedPart;
use crate::words::one_line;

/// `text` on one line, inert in a table cell, a list item, a heading or
/// emphasis: cleaned as `transcript.md` is, and each character Markdown
/// could read as markup (a link's or image's brackets, `<` of an autolink
/// or of raw HTML (written `&lt;`), `&` of an entity, a pipe, emphasis, a code span, and at
/// the start a list, quote or heading marker) escaped with a backslash, so
/// a viewer shows it as the agent wrote it and fetches nothing.
pub fn cell(text: &str) -> String {
    let line = one_line(&printable(text));
    let mut out = String::with_capacity(line.len() + line.len() / 8 + 2);
    // An ordered list's marker at the start: digits, then `.` or `)`.
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    for (at, c) in line.char_indices() {
        // An entity, not an escape: `\<` reads as raw HTML to a reader
        // of the file that searches for tags.
        if c == '<' {
            out.push_str("&lt;");
            continue;
        }
        let markup = matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '>' | '!' | '|' | '&' | '~' | '#'
        ) || (at == 0 && matches!(c, '-' | '+' | '='))
            || (at == digits && digits > 0 && matches!(c, '.' | ')'));
        if markup {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `text` in a fence no line of it can close, cleaned as `transcript.md`
/// is.
fn fenced(text: &str, info: &str) -> String {
    crate::words::fenced(printable(text).trim_end(), info)
}

/// Markdown from an agent as Markdown with nothing live in it: cleaned as
/// `transcript.md` is, its headings pushed below the report's own and raw
/// HTML shown as text ([`crate::words::nested_markdown`]), and every `[` and
/// `]` outside code escaped and `<` written `&lt;`, so no link, image, autolink or tag
/// is left; emphasis, lists and code stay. What still parses as a link,
/// an image or HTML (a construct this escaping did not foresee) is shown
/// fenced, as text.
pub fn inert_markdown(text: &str) -> String {
    inert_markdown_under(text, 2)
}

/// [`inert_markdown`] under a heading of `level` (3 for `### …`): its own
/// headings below it.
pub fn inert_markdown_under(text: &str, level: usize) -> String {
    let nested = crate::words::nested_markdown(&printable(text), level);
    let escaped = without_links(&nested);
    if is_inert(&escaped) {
        escaped
    } else {
        fenced(text, "text")
    }
}

fn parser(text: &str) -> Parser<'_> {
    Parser::new_ext(
        text,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS,
    )
}

/// `markdown` with `[` and `]` escaped and `<` written `&lt;` wherever they are not code
/// (a code span or block keeps its text as written) and not escaped
/// already.
fn without_links(markdown: &str) -> String {
    let mut code: Vec<std::ops::Range<usize>> = Vec::new();
    let mut depth = 0;
    for (event, range) in parser(markdown).into_offset_iter() {
        match event {
            Event::Code(_) if depth == 0 => code.push(range),
            Event::Start(Tag::CodeBlock(_)) => {
                if depth == 0 {
                    code.push(range);
                }
                depth += 1;
            }
            Event::End(TagEnd::CodeBlock) => depth -= 1,
            _ => {}
        }
    }
    let mut out = String::with_capacity(markdown.len() + markdown.len() / 16);
    let mut spans = code.iter().peekable();
    let mut chars = markdown.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        while spans.peek().is_some_and(|span| span.end <= at) {
            spans.next();
        }
        if spans.peek().is_some_and(|span| span.contains(&at)) {
            out.push(c);
            continue;
        }
        match c {
            '\\' if chars
                .peek()
                .is_some_and(|(_, next)| next.is_ascii_punctuation()) =>
            {
                out.push(c);
                if let Some((_, next)) = chars.next() {
                    out.push(next);
                }
            }
            '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            c => out.push(c),
        }
    }
    out
}

/// Whether `markdown` renders without a link, an image or raw HTML.
pub fn is_inert(markdown: &str) -> bool {
    !parser(markdown).any(|event| {
        matches!(
            event,
            Event::Html(_)
                | Event::InlineHtml(_)
                | Event::Start(Tag::Link { .. } | Tag::Image { .. } | Tag::HtmlBlock)
        )
    })
}

/// The whole file.
pub fn render(report: &Report) -> String {
    let mut out = format!("# {}\n\n_{}_\n\n", cell(&report.topic), cell(&report.label));
    if let Some(origin) = &report.origin {
        out.push_str(&format!("Forked from {}.\n\n", cell(origin)));
    }
    if let Some(source) = &report.handed_from {
        out.push_str(&format!(
            "Takes what was handed on from {}.\n\n",
            cell(source)
        ));
        // As it is to be pasted: in a fence, where nothing is escaped.
        if let Some(command) = &report.handed_from_command {
            out.push_str(&format!(
                "Its report:\n\n{}\n",
                crate::words::fenced(command, "sh")
            ));
        }
    }
    out.push_str("## Conclusion\n\n");
    match &report.conclusion {
        Some(conclusion) => out.push_str(&format!("{}\n\n", inert_markdown(conclusion).trim())),
        None => out.push_str("This debate has not ended: there is no conclusion yet.\n\n"),
    }
    match report.headline() {
        Some((word, rule)) => {
            out.push_str(&format!("## Verdict\n\n**{word}** — {}\n\n", cell(&rule)));
            if let Some(agreement) = &report.agreement {
                out.push_str(&format!("{}\n\n", cell(agreement)));
            }
            if let Some(payoff) = &report.payoff {
                out.push_str("### Did the debate pay?\n\n");
                for line in payoff.lines() {
                    out.push_str(&format!("{}\n\n", cell(&line)));
                }
                for change in &payoff.changes {
                    out.push_str(&format!(
                        "- {} on {}: {} → {} ({}), after {}: {}\n",
                        cell(&change.who),
                        cell(&change.on),
                        cell(&change.from),
                        cell(&change.to),
                        cell(&change.when),
                        change.preceded_by.as_str(),
                        cell(&change.why)
                    ));
                }
                if !payoff.changes.is_empty() {
                    out.push('\n');
                }
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
            "## What quorum derived\n\n| id | about | ruling | why |\n|---|---|---|---|\n",
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
                cell(&item.item.about()),
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
    if let Some(probes) = &report.judge_probes {
        out.push_str("## The judges, probed\n\n");
        if probes.none_found() {
            out.push_str(&format!(
                "No `quorum probe` of this debate's judges was found in {}.\n\n",
                cell(&probes.root)
            ));
        } else {
            for (head, figures) in probes.lines() {
                out.push_str(&format!("- {}\n", cell(&head)));
                for figure in figures {
                    out.push_str(&format!("  - {}\n", cell(&figure)));
                }
            }
            out.push('\n');
        }
    }
    if !report.open_questions.is_empty() {
        out.push_str("## Still to find out\n\n");
        for question in &report.open_questions {
            out.push_str(&format!("- {}\n", cell(question)));
        }
        out.push('\n');
    }
    if !report.evidence.is_empty() {
        out.push_str(
            "## Evidence\n\nquorum checked each citation against the sources, mechanically.\n\n",
        );
        for (claim, lines) in &report.evidence {
            out.push_str(&format!("**{}**\n\n", cell(claim)));
            for line in lines {
                out.push_str(&format!("- {}\n", cell(line)));
            }
            out.push('\n');
        }
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

/// One part's change: a Markdown document (a plan) as it ended, rendered
/// inert, and as first drafted, fenced; any other part as its two texts,
/// fenced. Each text cut to what the page shows, with a note.
fn change(part: &ChangedPart) -> String {
    let mut out = format!("### {}\n\n", cell(&part.part));
    let cut_note = |cut: usize| {
        if cut == 0 {
            String::new()
        } else {
            format!(
                "_… {} more bytes not shown here: the whole text is in the debate's folder._\n\n",
                crate::text::thousands(cut as u64)
            )
        }
    };
    let (before, before_cut) = super::html::shown(&part.before);
    let (after, after_cut) = super::html::shown(&part.after);
    if part.markdown && !after.is_empty() {
        out.push_str(&format!(
            "As it ended:\n\n{}\n\n{}",
            inert_markdown_under(after, 3).trim_end(),
            cut_note(after_cut)
        ));
        if !before.is_empty() {
            out.push_str(&format!(
                "As first drafted:\n\n{}\n{}",
                fenced(before, "markdown"),
                cut_note(before_cut)
            ));
        }
    } else {
        if !before.is_empty() {
            out.push_str(&format!(
                "Before:\n\n{}\n{}",
                fenced(before, "text"),
                cut_note(before_cut)
            ));
        }
        if !after.is_empty() {
            out.push_str(&format!(
                "After:\n\n{}\n{}",
                fenced(after, "text"),
                cut_note(after_cut)
            ));
        }
    }
    for cause in &part.causes {
        out.push_str(&format!("- {}\n", cell(cause)));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A link's target, an image's or a piece of HTML a viewer would act
    /// on, if `markdown` holds one.
    fn live(markdown: &str) -> Option<String> {
        Parser::new_ext(markdown, Options::all()).find_map(|event| match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                Some(dest_url.to_string())
            }
            Event::Html(html) | Event::InlineHtml(html) => Some(html.to_string()),
            _ => None,
        })
    }

    /// The invariants of `fuzz/fuzz_targets/report_cells.rs`: a cell stays
    /// one cell of one row, holds nothing live and no control character,
    /// and a list item or heading made of it is that one block.
    fn assert_inert_cell(text: &str) {
        let escaped = cell(text);
        assert!(
            escaped
                .chars()
                .all(|c| crate::text::is_displayable(c) || c == '\t'),
            "{escaped:?}"
        );
        let table =
            format!("| a | b | c |\n|---|---|---|\n| {escaped} | {escaped} | {escaped} |\n");
        assert_eq!(live(&table), None, "{table}");
        let ends = |tag: TagEnd| {
            Parser::new_ext(&table, Options::all())
                .filter(|event| *event == Event::End(tag))
                .count()
        };
        assert_eq!(
            (ends(TagEnd::TableRow), ends(TagEnd::TableCell)),
            (1, 6),
            "{table}"
        );
        for block in [format!("- {escaped}\n"), format!("# {escaped}\n")] {
            assert_eq!(live(&block), None, "{block}");
            let blocks = Parser::new_ext(&block, Options::all())
                .filter(|event| {
                    matches!(
                        event,
                        Event::Start(
                            Tag::List(_)
                                | Tag::Heading { .. }
                                | Tag::BlockQuote(_)
                                | Tag::CodeBlock(_)
                        ) | Event::Rule
                    )
                })
                .count();
            assert_eq!(blocks, 1, "{block}");
        }
    }

    /// Issue 61: what an agent writes to link, fetch or break a table is
    /// text in a cell, a list item or a heading.
    #[test]
    fn hostile_cells_stay_one_inert_cell() {
        for text in [
            "![x](http://evil.example/p.png)",
            "[x](javascript:alert(1))",
            "<http://evil.example>",
            "<img src=x>",
            "a | b \\| c \\\\| d",
            "\\![x](y) \\\\[x](y)",
            "[x]: http://evil.example",
            "1. one",
            "- - x",
            "> # quote",
            "---",
            "`a | b` ``x`` *em* _u_ ~~s~~ &lt; &#91;x&#93;(y)",
            "\u{1b}[31mred \u{202e}gnp.exe\u{0}",
            "",
        ] {
            assert_inert_cell(text);
        }
    }

    /// Issue 61: an agent's conclusion keeps its emphasis and code and
    /// loses every link, image and tag.
    #[test]
    fn a_conclusion_renders_without_links_images_or_html() {
        let conclusion = inert_markdown(
            "# Go\n\n**Yes** ![p](http://evil.example/p.png) [c](javascript:x) <http://e.example> \
             <b>tag</b> `[code](kept)`\n\n```\n[fenced](kept)\n```\n\n[r]: http://evil.example\n",
        );
        assert_eq!(live(&conclusion), None, "{conclusion}");
        assert!(conclusion.starts_with("### Go\n"), "{conclusion}");
        assert!(conclusion.contains("**Yes**"), "{conclusion}");
        assert!(conclusion.contains("`[code](kept)`"), "{conclusion}");
        assert!(conclusion.contains("\n[fenced](kept)\n"), "{conclusion}");
    }

    proptest! {
        #[test]
        fn any_cell_stays_one_inert_cell(
            text in "[\\[\\]()!<>|\\\\`*_~#&;:/a-z0-9 .\\-+=\n\t\u{1b}\u{202e}]{0,40}"
        ) {
            assert_inert_cell(&text);
            prop_assert_eq!(live(&inert_markdown(&text)), None);
        }
    }
}
