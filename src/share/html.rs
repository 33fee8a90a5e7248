//! A report as one self-contained HTML page: inline CSS that follows the
//! reader's light or dark setting, no script, no font, no image, no
//! request. Every piece of text is escaped; the Markdown of a conclusion is
//! rendered with raw HTML, images and link targets dropped, so the only
//! `href` in the page is none at all and a link an agent wrote reads as its
//! text.
//!
//! Not responsible for what the report says ([`super::Report`]).

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::{Report, dollars, printable};
use crate::protocol::{ChangedPart, JudgeState, Scoreboard, Tone};

const STYLE: &str = r#"
:root { color-scheme: light dark; --fg: #1d2228; --muted: #5b6470; --bg: #ffffff; --panel: #f3f5f8;
  --line: #d6dbe1; --good: #1f7a3a; --bad: #b3261e; --warn: #8a5a00; --bar: #3b6fb6; --low: #c0392b; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e8eb; --muted: #9aa4b1; --bg: #14171b; --panel: #1d2127; --line: #343a42;
    --good: #5cc27a; --bad: #ff7b72; --warn: #e3b341; --bar: #6ea0e6; --low: #ff7b72; } }
body { font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
  background: var(--bg); margin: 0 auto; max-width: 62rem; padding: 2rem 1.25rem 4rem; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; } h2 { font-size: 1.2rem; margin-top: 2.2rem;
  border-bottom: 1px solid var(--line); padding-bottom: .3rem; }
.label, .muted { color: var(--muted); } .label { margin: 0 0 1.5rem; }
.conclusion { background: var(--panel); border-radius: 8px; padding: .5rem 1.25rem; }
.verdict { display: flex; gap: 1rem; align-items: baseline; flex-wrap: wrap; }
.word { font-weight: 700; letter-spacing: .04em; padding: .15rem .6rem; border-radius: 6px;
  border: 2px solid currentColor; }
.positive { color: var(--good); } .negative { color: var(--bad); } .warning { color: var(--warn); }
table { border-collapse: collapse; width: 100%; font-size: .93rem; margin: .5rem 0; }
th, td { border-bottom: 1px solid var(--line); padding: .35rem .5rem; text-align: left; vertical-align: top; }
th { font-weight: 600; } td.synthesis { text-align: center; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.bar { display: flex; align-items: center; gap: .4rem; min-width: 6rem; }
.bar span.fill { display: inline-block; height: .7rem; background: var(--bar); border-radius: 3px; }
.bar span.fill.low { background: var(--low); }
.change { border: 1px solid var(--line); border-radius: 8px; padding: .25rem 1rem .75rem; margin: 1rem 0; }
.before, .after { white-space: pre-wrap; padding: .4rem .6rem; border-radius: 6px; margin: .3rem 0; }
.before { background: color-mix(in srgb, var(--bad) 12%, transparent); }
.after { background: color-mix(in srgb, var(--good) 12%, transparent); }
.document { border-left: 3px solid var(--good); padding: 0 .9rem; margin: .3rem 0; overflow-wrap: anywhere; }
.lines { font: .85rem/1.45 ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
.lines del, .lines ins, .lines span { display: block; } .lines del { text-decoration: none; }
.lines del::before { content: "− "; } .lines ins::before { content: "+ "; } .lines span::before { content: "  "; }
.hunk { border-top: 1px dashed var(--line); padding: .3rem 0; }
.diff del { text-decoration: line-through; }
pre.command { white-space: pre-wrap; overflow-wrap: anywhere; }
del { color: var(--bad); } ins { color: var(--good); text-decoration: none; font-weight: 600; }
pre { white-space: pre-wrap; word-break: break-word; background: var(--panel); padding: 1rem;
  border-radius: 8px; font-size: .85rem; }
details summary { cursor: pointer; font-weight: 600; }
"#;

/// `text` safe inside an element or a quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in printable(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Markdown as HTML with nothing active in it: raw HTML becomes text,
/// images their description, links their text (no target).
pub fn inert_markdown(markdown: &str) -> String {
    inert_markdown_below(markdown, 0)
}

/// [`inert_markdown`] with its headings `levels` below their own (`#` an
/// `<h4>` at 3), to stand under a heading of the page.
pub fn inert_markdown_below(markdown: &str, levels: usize) -> String {
    use pulldown_cmark::HeadingLevel;
    let deeper = |level: HeadingLevel| {
        HeadingLevel::try_from((level as usize + levels).min(6)).unwrap_or(HeadingLevel::H6)
    };
    let text = printable(markdown);
    let events = Parser::new_ext(
        &text,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH,
    )
    .filter_map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        Event::Start(Tag::Link { .. }) | Event::End(TagEnd::Link) => None,
        Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => None,
        Event::Start(Tag::Heading {
            level,
            id,
            classes,
            attrs,
        }) => Some(Event::Start(Tag::Heading {
            level: deeper(level),
            id,
            classes,
            attrs,
        })),
        Event::End(TagEnd::Heading(level)) => Some(Event::End(TagEnd::Heading(deeper(level)))),
        other => Some(other),
    });
    let mut out = String::new();
    pulldown_cmark::html::push_html(&mut out, events);
    out
}

fn tone_class(word: &str) -> &'static str {
    match word {
        "ADOPT" | "PASS" | "DONE" | "PROVEN" => "positive",
        "REJECT" | "FAIL" | "NO VERDICT" => "negative",
        _ => "warning",
    }
}

/// The whole page.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n",
    );
    out.push_str(&format!(
        "<title>{} — quorum report</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(&crate::words::one_line(&report.topic))
    ));
    out.push_str(&format!(
        "<header>\n<h1>{}</h1>\n<p class=\"label\">{}{}{}</p>\n</header>\n",
        escape(&report.topic),
        escape(&report.label),
        report
            .origin
            .as_ref()
            .map(|origin| format!("<br>forked from {}", escape(origin)))
            .unwrap_or_default(),
        report
            .handed_from
            .as_ref()
            .map(|source| format!("<br>takes what was handed on from {}", escape(source)))
            .unwrap_or_default()
    ));
    if let Some(command) = &report.handed_from_command {
        out.push_str(&format!(
            "<p class=\"muted\">Its report:</p>\n<pre class=\"command\">{}</pre>\n",
            escape(command)
        ));
    }
    out.push_str(&conclusion(report));
    out.push_str(&verdict(report));
    if !report.unread.is_empty() {
        out.push_str("<section id=\"unread\">\n<h2>What could not be read</h2>\n<p>quorum could not read these parts of the answers, and went on without them:</p>\n<ul>\n");
        for entry in &report.unread {
            out.push_str(&format!(
                "<li><strong>{}</strong>, {}: {} <span class=\"muted\">({})</span></li>\n",
                escape(&entry.whose),
                escape(&entry.what),
                escape(&entry.effect),
                escape(&entry.why)
            ));
        }
        out.push_str("</ul>\n</section>\n");
    }
    if let Some(scoreboard) = &report.scoreboard {
        out.push_str(&scores(scoreboard));
    }
    if !report.changes.is_empty() {
        out.push_str(&changes(&report.changes));
    }
    if !report.rulings.is_empty() {
        out.push_str(&board(report));
    }
    if !report.items.is_empty() {
        out.push_str(&items(report));
    }
    if !report.budget.is_empty() {
        out.push_str("<section id=\"budget\">\n<h2>The budget</h2>\n<ul>\n");
        for (at, what) in &report.budget {
            out.push_str(&format!(
                "<li><span class=\"muted\">{}</span> {}</li>\n",
                escape(at),
                escape(what)
            ));
        }
        out.push_str("</ul>\n</section>\n");
    }
    if let Some(probes) = &report.judge_probes {
        out.push_str("<section id=\"probes\">\n<h2>The judges, probed</h2>\n");
        if probes.none_found() {
            out.push_str(&format!(
                "<p>No <code>quorum probe</code> of this debate's judges was found in {}.</p>\n",
                escape(&probes.root)
            ));
        } else {
            out.push_str("<ul>\n");
            for (head, figures) in probes.lines() {
                out.push_str(&format!("<li>{}", escape(&head)));
                if !figures.is_empty() {
                    out.push_str("<ul>");
                    for figure in figures {
                        out.push_str(&format!("<li>{}</li>", escape(&figure)));
                    }
                    out.push_str("</ul>");
                }
                out.push_str("</li>\n");
            }
            out.push_str("</ul>\n");
        }
        out.push_str("</section>\n");
    }
    if !report.open_questions.is_empty() {
        out.push_str("<section id=\"open\">\n<h2>Still to find out</h2>\n<ul>\n");
        for question in &report.open_questions {
            out.push_str(&format!("<li>{}</li>\n", escape(question)));
        }
        out.push_str("</ul>\n</section>\n");
    }
    out.push_str(&evidence(report));
    out.push_str(&usage(report));
    out.push_str(&participants(report));
    if let Some(transcript) = &report.transcript {
        out.push_str(&format!(
            "<section id=\"transcript\">\n<h2>Transcript</h2>\n<details>\n<summary>Every event and every raw answer, as recorded</summary>\n<pre>{}</pre>\n</details>\n</section>\n",
            escape(transcript)
        ));
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn conclusion(report: &Report) -> String {
    let body = match &report.conclusion {
        Some(markdown) => inert_markdown(markdown),
        None => "<p>This debate has not ended: there is no conclusion yet.</p>\n".to_string(),
    };
    format!(
        "<section id=\"conclusion\">\n<h2>Conclusion</h2>\n<div class=\"conclusion\">\n{body}</div>\n</section>\n"
    )
}

fn verdict(report: &Report) -> String {
    let Some((word, rule)) = report.headline() else {
        return format!(
            "<section id=\"verdict\">\n<h2>Where it stands</h2>\n<p class=\"verdict\"><span class=\"word warning\">NOT ENDED</span> <span class=\"rule\">stopped at {}: `quorum resume` on its folder runs it on</span></p>\n</section>\n",
            escape(&report.stage)
        );
    };
    let title = match report.outcome {
        Some(crate::protocol::Outcome::Completed { .. }) => "Result",
        _ => "Verdict",
    };
    let mut out = format!(
        "<section id=\"verdict\">\n<h2>{title}</h2>\n<p class=\"verdict\"><span class=\"word {}\">{}</span> <span class=\"rule\">{}</span></p>\n",
        tone_class(&word),
        escape(&word),
        escape(&rule)
    );
    if let Some(agreement) = &report.agreement {
        out.push_str(&format!(
            "<p class=\"agreement muted\">{}</p>\n",
            escape(agreement)
        ));
    }
    if let Some(payoff) = &report.payoff {
        out.push_str(&payoff_html(payoff));
    }
    out.push_str("</section>\n");
    out
}

/// Did the debate pay (issue 55): the plain vote against the verdict, the
/// changes after it, their cost, then each vote and change.
fn payoff_html(payoff: &crate::protocol::payoff::Payoff) -> String {
    let mut out = String::from("<div class=\"payoff\">\n<h3>Did the debate pay?</h3>\n");
    for line in payoff.lines() {
        out.push_str(&format!("<p>{}</p>\n", escape(&line)));
    }
    if !payoff.changes.is_empty() {
        out.push_str("<ul>\n");
        for change in &payoff.changes {
            out.push_str(&format!(
                "<li>{} on {}: {} → {} ({}), after {}: {}</li>\n",
                escape(&change.who),
                escape(&change.on),
                escape(&change.from),
                escape(&change.to),
                escape(&change.when),
                escape(change.preceded_by.as_str()),
                escape(&change.why)
            ));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</div>\n");
    out
}

/// The scoreboard as a chart: a row per block, a bar per judge's
/// criterion, red where a binding judge scored under the threshold.
fn scores(board: &Scoreboard) -> String {
    let mut out = format!(
        "<section id=\"scores\">\n<h2>Scores, round {}</h2>\n<table class=\"scores\">\n<thead>\n<tr><th>block</th>",
        board.round
    );
    for column in &board.judges {
        for criterion in &column.criteria {
            out.push_str(&format!(
                "<th>{}{}<br><span class=\"muted\">{}</span></th>",
                escape(&column.judge),
                if column.binding { " ★" } else { "" },
                escape(criterion)
            ));
        }
    }
    out.push_str("</tr>\n</thead>\n<tbody>\n");
    for (row, block) in board.blocks.iter().enumerate() {
        out.push_str(&format!("<tr><th>{}</th>", escape(block)));
        for column in &board.judges {
            for index in 0..column.criteria.len() {
                let score = column.scores.get(row).and_then(|scores| scores[index]);
                out.push_str(&match score {
                    Some(score) => {
                        let low = column.binding && score < board.binding_threshold;
                        format!(
                            "<td><span class=\"bar\"><span class=\"fill{}\" style=\"width:{score}rem\"></span>{score}</span></td>",
                            if low { " low" } else { "" },
                        )
                    }
                    None => format!("<td class=\"muted\">{}</td>", state_mark(&column.state)),
                });
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("<tr><th>synthesis</th>");
    for column in &board.judges {
        let mean = column
            .synthesis
            .map_or("·".to_string(), |mean| format!("{mean:.1}"));
        out.push_str(&format!(
            "<td class=\"synthesis\" colspan=\"{}\">{mean}</td>",
            column.criteria.len().max(1)
        ));
    }
    out.push_str("</tr>\n</tbody>\n</table>\n");
    let mut notes = Vec::new();
    for column in &board.judges {
        match &column.state {
            JudgeState::Malformed(reason) => {
                notes.push(format!("{}: malformed ({reason})", column.judge))
            }
            JudgeState::Skipped(reason) => {
                notes.push(format!("{}: skipped ({reason})", column.judge))
            }
            JudgeState::Recused(reason) => notes.push(format!("recused: {reason}")),
            JudgeState::HeldOut => notes.push(format!(
                "{}: held out, it scores only the final revision",
                column.judge
            )),
            JudgeState::Scored | JudgeState::Pending => {}
        }
        if let Some(kin) = &column.kin {
            notes.push(format!("≈ {kin}"));
        }
    }
    notes.extend(
        board
            .fairness
            .iter()
            .map(|fair| format!("fair judging: {fair}")),
    );
    if !notes.is_empty() {
        out.push_str("<ul class=\"muted\">\n");
        for note in notes {
            out.push_str(&format!("<li>{}</li>\n", escape(&note)));
        }
        out.push_str("</ul>\n");
    }
    out.push_str(
        "<p class=\"muted\">★ binding judge; a red bar is a binding score under the threshold.</p>\n</section>\n",
    );
    out
}

fn state_mark(state: &JudgeState) -> &'static str {
    match state {
        JudgeState::Pending => "·",
        JudgeState::Malformed(_) => "?",
        JudgeState::Recused(_) => "r",
        JudgeState::HeldOut => "h",
        JudgeState::Skipped(_) | JudgeState::Scored => "–",
    }
}

/// The proposal → revision section, part by part: what changed, sentence
/// by sentence (or the two texts, where most of a part changed), a
/// Markdown document (a plan, a design) rendered as it ended, then what
/// caused the change.
fn changes(parts: &[ChangedPart]) -> String {
    let mut out =
        String::from("<section id=\"changes\">\n<h2>From the proposal to the revision</h2>\n");
    for part in parts {
        out.push_str(&format!(
            "<div class=\"change\">\n<h3>{}</h3>\n",
            escape(&part.part)
        ));
        if part.markdown {
            out.push_str(&document_change(&part.before, &part.after));
        } else {
            out.push_str(&format!(
                "<div class=\"diff\">{}</div>\n",
                sentence_diff(&part.before, &part.after)
            ));
        }
        if !part.causes.is_empty() {
            out.push_str("<ul>\n");
            for cause in &part.causes {
                out.push_str(&format!("<li>{}</li>\n", escape(cause)));
            }
            out.push_str("</ul>\n");
        }
        out.push_str("</div>\n");
    }
    out.push_str("</section>\n");
    out
}

/// Sentences (or lines) a part's diff compares at most on either side; a
/// longer part is shown as its two texts. Myers' diff takes time in
/// proportion to the segments times the segments that differ, so this
/// bounds it: 2,000 sentences is some 40,000 words.
pub const DIFF_SEGMENTS_MAX: usize = 2_000;

/// Bytes of one text of a part the page shows; the rest is cut, with a
/// note that says how much and where it is whole.
pub const PART_SHOWN_MAX_BYTES: usize = 256 * 1024;

/// `text` cut to [`PART_SHOWN_MAX_BYTES`] at a character boundary, and
/// what was cut, in bytes.
pub fn shown(text: &str) -> (&str, usize) {
    if text.len() <= PART_SHOWN_MAX_BYTES {
        return (text, 0);
    }
    let mut end = PART_SHOWN_MAX_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], text.len() - end)
}

/// The note under a text cut by [`shown`].
fn cut_note(cut: usize) -> String {
    if cut == 0 {
        return String::new();
    }
    format!(
        "<p class=\"muted cut\">… {} more bytes not shown here: the whole text is in the debate's folder.</p>",
        crate::text::thousands(cut as u64)
    )
}

/// One text of a part, escaped, in a block of `class` (`before`, `after`)
/// under `label`.
fn whole(label: &str, class: &str, text: &str) -> String {
    let (text, cut) = shown(text);
    format!(
        "<p class=\"muted\">{label}</p><div class=\"{class}\">{}</div>{}",
        escape(text),
        cut_note(cut)
    )
}

/// `text` as sentences, each with the space after it, and lines, each
/// with its line break: what [`sentence_diff`] compares. Joined, they are
/// `text`.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut index = 0;
    while index < bytes.len() {
        let byte = bytes[index];
        let ends = byte == b'\n'
            || (matches!(byte, b'.' | b'!' | b'?')
                && bytes.get(index + 1).is_some_and(|next| *next == b' '));
        index += 1;
        if ends {
            while byte != b'\n' && bytes.get(index) == Some(&b' ') {
                index += 1;
            }
            out.push(&text[start..index]);
            start = index;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// `before` → `after` sentence by sentence: removed sentences struck,
/// added ones marked, both escaped. Where most of the text changed, or
/// it is longer than [`DIFF_SEGMENTS_MAX`] sentences, the two texts are
/// shown one after the other instead.
pub fn sentence_diff(before: &str, after: &str) -> String {
    if before.is_empty() {
        return whole("Added:", "after", after);
    }
    if after.is_empty() {
        return whole("Withdrawn:", "before", before);
    }
    let both = || whole("Before:", "before", before) + &whole("After:", "after", after);
    let (old, new) = (sentences(before), sentences(after));
    if old.len() > DIFF_SEGMENTS_MAX || new.len() > DIFF_SEGMENTS_MAX {
        return format!(
            "<p class=\"muted\">Too long to compare sentence by sentence ({} and {} sentences, more than {}): both texts follow.</p>{}",
            crate::text::thousands(old.len() as u64),
            crate::text::thousands(new.len() as u64),
            crate::text::thousands(DIFF_SEGMENTS_MAX as u64),
            both()
        );
    }
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .diff_slices(&old, &new);
    // A rewrite reads better as the two texts than as a thicket of marks.
    if diff.ratio() < 0.5 {
        return both();
    }
    let mut out = String::from("<div class=\"after\">");
    for change in diff.iter_all_changes() {
        let text = escape(change.value());
        match change.tag() {
            similar::ChangeTag::Equal => out.push_str(&text),
            similar::ChangeTag::Delete => out.push_str(&format!("<del>{text}</del>")),
            similar::ChangeTag::Insert => out.push_str(&format!("<ins>{text}</ins>")),
        }
    }
    out.push_str("</div>");
    out
}

/// A Markdown document's change: the document as it ended, rendered and
/// inert, the first draft behind a fold, and what changed line by line
/// behind another (the two documents side by side where most changed).
fn document_change(before: &str, after: &str) -> String {
    let rendered = |label: &str, text: &str| {
        let (text, cut) = shown(text);
        format!(
            "<p class=\"muted\">{label}</p><div class=\"document\">{}</div>{}",
            inert_markdown_below(text, 3),
            cut_note(cut)
        )
    };
    if before.is_empty() {
        return rendered("Added:", after);
    }
    if after.is_empty() {
        return rendered("Withdrawn:", before);
    }
    let mut out = rendered("As it ended:", after);
    let (old, new): (Vec<&str>, Vec<&str>) = (
        before.split_inclusive('\n').collect(),
        after.split_inclusive('\n').collect(),
    );
    out.push_str(&format!(
        "<details><summary>As first drafted</summary>{}</details>\n",
        rendered("", before)
    ));
    if old.len() > DIFF_SEGMENTS_MAX || new.len() > DIFF_SEGMENTS_MAX {
        return out;
    }
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .diff_slices(&old, &new);
    let (removed, added) =
        diff.iter_all_changes()
            .fold((0, 0), |(r, a), change| match change.tag() {
                similar::ChangeTag::Delete => (r + 1, a),
                similar::ChangeTag::Insert => (r, a + 1),
                similar::ChangeTag::Equal => (r, a),
            });
    out.push_str(&format!(
        "<details><summary>What changed, line by line ({} out, {} in)</summary><div class=\"lines\">",
        crate::words::counted(removed, "line", "lines"),
        added
    ));
    for group in diff.grouped_ops(1) {
        out.push_str("<div class=\"hunk\">");
        for op in group {
            for change in diff.iter_changes(&op) {
                let text = escape(change.value());
                match change.tag() {
                    similar::ChangeTag::Equal => out.push_str(&format!("<span>{text}</span>")),
                    similar::ChangeTag::Delete => out.push_str(&format!("<del>{text}</del>")),
                    similar::ChangeTag::Insert => out.push_str(&format!("<ins>{text}</ins>")),
                }
            }
        }
        out.push_str("</div>");
    }
    out.push_str("</div></details>\n");
    out
}

fn board(report: &Report) -> String {
    let mut out = String::from(
        "<section id=\"board\">\n<h2>What quorum derived</h2>\n<table>\n<thead><tr><th>id</th><th>about</th><th>ruling</th><th>why</th></tr></thead>\n<tbody>\n",
    );
    for ruling in &report.rulings {
        let class = match ruling.tone {
            Some(Tone::Positive) => "positive",
            Some(Tone::Negative) => "negative",
            _ => "warning",
        };
        let facts: Vec<String> = ruling
            .facts
            .iter()
            .map(|fact| format!("{} {}", fact.label, fact.value))
            .collect();
        out.push_str(&format!(
            "<tr><td>{}</td><td>{}{}</td><td class=\"{class}\">{}</td><td>{}</td></tr>\n",
            escape(&ruling.subject),
            escape(&ruling.title),
            if facts.is_empty() {
                String::new()
            } else {
                format!(
                    "<br><span class=\"muted\">{}</span>",
                    escape(&facts.join(" · "))
                )
            },
            escape(ruling.word.as_deref().unwrap_or("open")),
            escape(&ruling.rule)
        ));
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
    out
}

fn items(report: &Report) -> String {
    let mut out = String::from(
        "<section id=\"rulings\">\n<h2>The moderator's rulings</h2>\n<table>\n<thead><tr><th>item</th><th>about</th><th>the item</th><th>ruling</th><th>note</th></tr></thead>\n<tbody>\n",
    );
    for item in &report.items {
        let note = [
            item.note.clone(),
            item.resolution.as_ref().and_then(|r| r.note.clone()),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ");
        out.push_str(&format!(
            "<tr><td>{}</td><td>{}<br><span class=\"muted\">{} {}</span></td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            escape(&item.item.id),
            escape(&item.item.about()),
            escape(&item.item.severity),
            escape(&item.item.category),
            escape(&item.item.text),
            escape(&report.decision_word(item)),
            escape(&note)
        ));
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
    out
}

/// Each claim's citations, checked against the sources (issue 52), each
/// marked ✓ (verified), ✗ (not) or ? (not checkable).
fn evidence(report: &Report) -> String {
    if report.evidence.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<section id=\"evidence\">\n<h2>Evidence</h2>\n<p>quorum checked each citation against the sources, mechanically.</p>\n",
    );
    for (claim, lines) in &report.evidence {
        out.push_str(&format!("<h3>{}</h3>\n<ul>\n", escape(claim)));
        for line in lines {
            out.push_str(&format!("<li>{}</li>\n", escape(line)));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</section>\n");
    out
}

fn usage(report: &Report) -> String {
    let Some(usage) = &report.usage else {
        return String::new();
    };
    let count = |tokens: Option<u64>| tokens.map_or("–".to_string(), |n| n.to_string());
    let mut out = String::from(
        "<section id=\"usage\">\n<h2>What each call used</h2>\n<table>\n<thead><tr><th>call</th><th>agent</th><th>tokens in</th><th>tokens out</th><th>time</th><th>cost</th></tr></thead>\n<tbody>\n",
    );
    for call in &usage.calls {
        out.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}{}</td><td class=\"num\">{}</td><td class=\"num\">{:.1} s</td><td class=\"num\">{}</td></tr>\n",
            escape(&call.call_id),
            escape(&call.agent),
            count(call.input_tokens),
            if call.estimated { " ≈" } else { "" },
            count(call.output_tokens),
            call.elapsed_ms as f64 / 1000.0,
            call.cost_usd.map_or("–".to_string(), dollars)
        ));
    }
    let total = &usage.total;
    out.push_str(&format!(
        "<tr><th>all {} calls</th><td></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td></td><td class=\"num\">{}</td></tr>\n</tbody>\n</table>\n",
        total.calls,
        total.input_tokens,
        total.output_tokens,
        total.cost_usd.map_or("–".to_string(), dollars)
    ));
    if total.estimated {
        out.push_str(
            "<p class=\"muted\">≈ quorum's estimate: the provider reported no counts.</p>\n",
        );
    }
    out.push_str("</section>\n");
    out
}

fn participants(report: &Report) -> String {
    let mut out =
        String::from("<section id=\"participants\">\n<h2>Who took part</h2>\n<table>\n<tbody>\n");
    for role in &report.roles {
        let marks = if role.marks.is_empty() {
            String::new()
        } else {
            format!(
                " <span class=\"muted\">[{}]</span>",
                escape(&role.marks.join(" · "))
            )
        };
        out.push_str(&format!(
            "<tr><td>{}{}</td><td>{}{marks}</td></tr>\n",
            escape(&role.title),
            if role.binding { " ★" } else { "" },
            escape(&role.agent)
        ));
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 30: Markdown from an agent keeps its words and loses
    /// everything active: raw HTML is text, a link is its words, an image
    /// its description.
    #[test]
    fn markdown_from_an_agent_renders_inert() {
        let html = inert_markdown(
            "**Go** <script>alert(1)</script> [here](https://evil.example) ![p](https://evil.example/p.png) <img src=x onerror=y>",
        );
        assert!(html.contains("<strong>Go</strong>"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(html.contains("here"), "{html}");
        assert!(
            !html.contains("href") && !html.contains("evil.example"),
            "{html}"
        );
        assert!(!html.contains("<img") && !html.contains("<a "), "{html}");
    }

    /// Issue 61: what is left of an escape sequence goes with it, and a
    /// bidi control too, as in transcript.md.
    #[test]
    fn text_is_escaped_for_elements_and_attributes_and_loses_control_characters() {
        assert_eq!(
            escape("<b a=\"1\" c='2'>&\u{1b}[31m\u{0}\u{202e}x"),
            "&lt;b a=&quot;1&quot; c=&#39;2&#39;&gt;&amp;x"
        );
    }

    /// Issue 62: a small change is marked sentence by sentence, a rewrite
    /// shown as its two texts.
    #[test]
    fn a_small_change_is_marked_sentence_by_sentence_and_a_rewrite_shown_whole() {
        let diff = sentence_diff(
            "Keep the queue. Use the old broker. Page on errors.",
            "Keep the queue. Use the new broker. Page on errors.",
        );
        assert!(
            diff.contains("<del>Use the old broker. </del><ins>Use the new broker. </ins>"),
            "{diff}"
        );
        assert!(diff.contains("Keep the queue. "), "{diff}");
        let rewrite = sentence_diff("One thing. Two.", "Something else entirely. Three.");
        assert!(
            rewrite.contains("<div class=\"before\">One thing. Two.</div>")
                && rewrite.contains("<div class=\"after\">Something else entirely. Three.</div>"),
            "{rewrite}"
        );
        assert!(!rewrite.contains("<del>"), "{rewrite}");
        assert_eq!(
            sentence_diff("", "added"),
            "<p class=\"muted\">Added:</p><div class=\"after\">added</div>"
        );
        assert_eq!(
            sentences("A b. C? D\nE.  F"),
            ["A b. ", "C? ", "D\n", "E.  ", "F"]
        );
    }

    /// Issue 61: a long part rewritten is not compared word by word (the
    /// diff that took 42 s for 60,000 words): past the cap it is shown as
    /// its two texts, each cut to what a page shows, with a note.
    #[test]
    fn a_long_rewrite_is_shown_as_two_cut_texts_with_a_note() {
        let before: String = (0..60_000).map(|n| format!("w{n} ")).collect();
        let after: String = (0..60_000).map(|n| format!("v{n}. ")).collect();
        let diff = sentence_diff(&before, &after);
        assert!(diff.contains("Too long to compare"), "{}", &diff[..200]);
        assert!(diff.contains("more bytes not shown here"));
        assert!(
            diff.len() < 2 * PART_SHOWN_MAX_BYTES + 4_096,
            "{}",
            diff.len()
        );
    }

    /// Issue 62: a plan is shown as rendered Markdown, inert, with its
    /// first draft and the lines that changed behind folds.
    #[test]
    fn a_document_is_rendered_inert_with_its_draft_and_changed_lines() {
        let html = document_change(
            "# Plan\n\n1. Build it\n2. Ship it\n",
            "# Plan\n\n1. Build it\n2. Test it [here](https://evil.example) <b>x</b>\n3. Ship it\n",
        );
        assert!(
            html.contains("<h4>Plan</h4>") && html.contains("<ol>"),
            "{html}"
        );
        assert!(
            html.contains("<summary>As first drafted</summary>"),
            "{html}"
        );
        assert!(html.contains("(1 line out, 2 in)"), "{html}");
        assert!(!html.contains("href") && !html.contains("<b>"), "{html}");
    }
}
