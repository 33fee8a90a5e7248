//! Streamed markdown as a pane shows it: snapshots of a representative agent
//! answer at two widths, and the promise that chunking never changes the rows.

use proptest::prelude::*;
use quorum::tui::markdown::{Segment, StreamDoc};
use quorum::tui::theme::Theme;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;

const AGENT_ANSWER: &str = r#"# Proposal: move billing to event sourcing

We should adopt **event sourcing** for the billing ledger, starting with the
`invoice` aggregate. The current *mutable* tables lose history, and audits need
it: every correction today is a manual `UPDATE` with no trail.

## Thesis tree

1. Correctness: an append-only log makes every balance reproducible from the
   events that produced it.
2. Operability: replays let us rebuild read models after a bug fix.
   - Snapshots every 1,000 events keep replays under a minute.
   - Projections are versioned, so a bad one can be rolled back.
3. Cost: storage grows roughly 3× but stays under 40 GB for five years.

> Caveat: the team has not run an event store in production before; see
> [the runbook](https://wiki.example/runbook) for the on-call plan.

---

```yaml
thesis:
  id: T1
  claim: "Billing moves to event sourcing"   # the decision under review
  blocks:
    - id: B1
      claim: Every balance is reproducible from its events
      evidence: [audit-2024-q3, incident-1142]
    - id: B2
      claim: Replays rebuild read models in under a minute with snapshots every 1,000 events
```

```rust
fn balance(events: &[Event]) -> Cents { events.iter().map(Event::amount).sum() }
```

混合テキスト: 請求システムの移行は段階的に行います。 Mixed-width text wraps by display columns.
"#;

/// A theme whose every slot has its own palette index, so each span's style
/// names the slot it came from.
fn probe_theme() -> Theme {
    let mut theme = Theme::builtin("dark").unwrap();
    theme.name = "probe".to_string();
    for (index, name) in Theme::SLOT_NAMES.iter().enumerate() {
        *theme.slot_mut(name).unwrap() = Style::new().fg(Color::Indexed(index as u8));
    }
    theme
}

fn slot_of(style: Style) -> String {
    let mut label = match style.fg {
        Some(Color::Indexed(index)) => Theme::SLOT_NAMES[usize::from(index)].to_string(),
        other => format!("{other:?}"),
    };
    for (modifier, mark) in [
        (Modifier::UNDERLINED, "+underlined"),
        (Modifier::CROSSED_OUT, "+crossed_out"),
    ] {
        if style.add_modifier.contains(modifier) {
            label.push_str(mark);
        }
    }
    label
}

/// Each row as its text padded to the width, then its spans as
/// `slot@start..end` in columns.
fn render(lines: &[Line<'_>], width: usize) -> String {
    let mut out = String::new();
    for line in lines {
        let mut text = String::new();
        let mut spans = Vec::new();
        let mut column = 0;
        for span in &line.spans {
            let span_width = span.width();
            text.push_str(&span.content);
            spans.push(format!(
                "{}@{}..{}",
                slot_of(span.style),
                column,
                column + span_width
            ));
            column += span_width;
        }
        assert!(column <= width, "row wider than {width}: {text:?}");
        let padding = " ".repeat(width - column);
        out.push_str(&format!("{text}{padding}│ {}\n", spans.join(" ")));
    }
    out
}

fn snapshot_at(width: u16) -> String {
    let theme = probe_theme();
    let mut doc = StreamDoc::new();
    doc.push(
        Segment::Reasoning,
        "The user wants a decision review; I should lay out a thesis tree first.\n",
    );
    doc.push(Segment::Answer, AGENT_ANSWER);
    doc.push_notice("attempt 1 timed out after 600 s");
    doc.push(Segment::Answer, "Retrying with the **same** prompt");
    doc.layout(width, &theme);
    render(&doc.lines(0, doc.line_count()), usize::from(width))
}

#[test]
fn agent_answer_at_width_40() {
    insta::assert_snapshot!(snapshot_at(40));
}

#[test]
fn agent_answer_at_width_100() {
    insta::assert_snapshot!(snapshot_at(100));
}

/// Rows as comparable values: text and style of every span.
fn rows(doc: &StreamDoc) -> Vec<Vec<(String, Style)>> {
    doc.lines(0, doc.line_count())
        .iter()
        .map(|line| {
            line.spans
                .iter()
                .map(|span| (span.content.to_string(), span.style))
                .collect()
        })
        .collect()
}

fn laid_whole(text: &str, width: u16, theme: &Theme) -> Vec<Vec<(String, Style)>> {
    let mut doc = StreamDoc::new();
    doc.push(Segment::Answer, text);
    doc.layout(width, theme);
    rows(&doc)
}

/// An answer with a decision review's score table between two paragraphs.
const SCORE_TABLE_ANSWER: &str = "\
The panel scored the draft:

| Criterion | Score | Threshold | Notes |
|:----------|:-----:|----------:|-------|
| **Correctness** | 8 | 7 | Handles the `retry` path; one edge case is left. |
| Clarity | 6 | 7 | Dense in places \\| split the second section. |
| 漢字 | 5 | 7 | Wide glyphs count two columns. |
Overall: revise.
";

/// Markdown-ish text built from the pieces that change how lines are read.
fn markdownish() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("\n".to_string()),
            Just("# ".to_string()),
            Just("- ".to_string()),
            Just("1. ".to_string()),
            Just("> ".to_string()),
            Just("```yaml\n".to_string()),
            Just("```\n".to_string()),
            Just("---\n".to_string()),
            Just("**".to_string()),
            Just("`".to_string()),
            Just("key: value # note".to_string()),
            Just("漢字".to_string()),
            Just("| a | b |\n".to_string()),
            Just("|---|:-:|\n".to_string()),
            Just("| x \\| y | **z** |".to_string()),
            Just("|".to_string()),
            "[a-z ]{1,12}",
        ],
        0..40,
    )
    .prop_map(|pieces| pieces.concat())
}

/// Splits `text` at the char boundaries nearest to `cuts`.
fn split_at(text: &str, cuts: &[proptest::sample::Index]) -> Vec<String> {
    let boundaries: Vec<usize> = text.char_indices().map(|(at, _)| at).collect();
    let mut splits: Vec<usize> = cuts
        .iter()
        .filter(|_| !boundaries.is_empty())
        .map(|cut| boundaries[cut.index(boundaries.len())])
        .collect();
    splits.sort_unstable();
    splits.dedup();
    let mut pieces = Vec::new();
    let mut from = 0;
    for split in splits.into_iter().chain([text.len()]) {
        pieces.push(text[from..split].to_string());
        from = split;
    }
    pieces
}

proptest! {
    #[test]
    fn chunking_never_changes_the_rows(
        text in prop_oneof![Just(AGENT_ANSWER.to_string()), markdownish()],
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..24),
        width in 8u16..120,
        layout_between_chunks in any::<bool>(),
    ) {
        let theme = Theme::builtin("dark").unwrap();
        let mut chunked = StreamDoc::new();
        for piece in split_at(&text, &cuts) {
            chunked.push(Segment::Answer, &piece);
            if layout_between_chunks {
                chunked.layout(width, &theme);
            }
        }
        chunked.layout(width, &theme);
        prop_assert_eq!(rows(&chunked), laid_whole(&text, width, &theme));
        prop_assert_eq!(chunked.source_len(), text.len());
    }

    #[test]
    fn a_table_streams_to_the_same_rows_however_split(
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..24),
        width in 8u16..120,
        layout_between_chunks in any::<bool>(),
    ) {
        let text = SCORE_TABLE_ANSWER;
        let theme = Theme::builtin("dark").unwrap();
        let mut chunked = StreamDoc::new();
        for piece in split_at(text, &cuts) {
            chunked.push(Segment::Answer, &piece);
            if layout_between_chunks {
                chunked.layout(width, &theme);
            }
        }
        chunked.layout(width, &theme);
        let rows = rows(&chunked);
        prop_assert_eq!(&rows, &laid_whole(text, width, &theme));
        let texts: Vec<String> = rows
            .iter()
            .map(|row| row.iter().map(|(text, _)| text.as_str()).collect())
            .collect();
        // Wide enough for its columns, the table is laid out as one: the
        // alignment row is not shown and the columns are ruled.
        if width >= 40 {
            prop_assert!(texts.iter().all(|row| !row.contains(":--")), "{texts:#?}");
            prop_assert!(texts.iter().any(|row| row.contains('┼')), "{texts:#?}");
        }
    }

    #[test]
    fn no_row_is_wider_than_the_pane(text in markdownish(), width in 8u16..60) {
        let theme = Theme::builtin("dark").unwrap();
        let mut doc = StreamDoc::new();
        doc.push(Segment::Answer, &text);
        doc.layout(width, &theme);
        for line in doc.lines(0, doc.line_count()) {
            prop_assert!(line.width() <= usize::from(width), "{line:?}");
        }
    }
}

#[test]
fn resizing_gives_the_rows_a_fresh_document_would_get() {
    let theme = Theme::builtin("dark").unwrap();
    let mut doc = StreamDoc::new();
    doc.push(Segment::Answer, AGENT_ANSWER);
    doc.layout(100, &theme);
    let wide_rows = doc.line_count();
    doc.layout(40, &theme);
    assert!(doc.line_count() > wide_rows);
    assert_eq!(rows(&doc), laid_whole(AGENT_ANSWER, 40, &theme));
    doc.layout(100, &theme);
    assert_eq!(doc.line_count(), wide_rows);
}
