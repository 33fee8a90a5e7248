//! Structured answers read as cards: the second view of an agent's pane.
//!
//! Responsible for: reading the answer text a pane receives, as it streams,
//! into a document ([`Cards::doc`]) in which the YAML and JSON an agent
//! wrote read as what they are. Prose outside code fences passes through
//! unchanged. Inside a ```` ```yaml ```` (or `yml`) fence the lines are
//! gathered per record: a list item (`- …`) at the indent of the list the
//! record belongs to, or a top-level key (top-level keys with a value on
//! their line are gathered together). When the next record starts, or the
//! fence closes, the record is parsed and written as a card in markdown: a
//! row with the record's identifier and its short fields as `key value`
//! chips, then its long text (the main one, `title`/`text`/`description`,
//! unlabelled; the others after their key), maps of numbers as one row and
//! lists as bullets. A top-level key holding a list reads as a section
//! heading over its items' cards. In a ```` ```json ```` fence the same
//! records are cut out as they complete ([`json`]): each element of a
//! list, and in a top-level object each element of a member that holds a
//! list of objects (under the member's key as a heading), the other members
//! as one card; a line outside fences that is a whole JSON object becomes
//! cards at once. A record is parsed and written as a card by `card.rs`.
//!
//! While a record streams, its lines show as written in the document's
//! trailer ([`StreamDoc::trailer`]), so the view stays live; its card
//! replaces them when it is complete. A record that does not parse is shown
//! as written, in a code block: nothing is dropped. Work per push is bounded:
//! a record is parsed once, when it completes, and one longer than
//! [`MAX_RECORD_BYTES`] is shown as written from there on.
//!
//! Not responsible for: the raw text, which the pane keeps in its own
//! [`StreamDoc`] (and the record on disk, which no view touches), knowing any
//! protocol's fields (the rules here are about shapes and a few generic key
//! names), layout or scrolling.

mod card;
mod json;

use super::markdown::{FenceOpening, Segment, StreamDoc, fence_opening, yaml_key_end};
use crate::text::sanitize;
use card::{Node, inline, parse_json_values, parse_yaml, render_item, render_top};
use json::{JsonRecords, Piece};

/// Bytes a record (or one line) may reach and still become a card; beyond
/// it the record is shown as written, and the rest of it as it streams.
pub const MAX_RECORD_BYTES: usize = 32 * 1024;

/// The card view of one pane's answers.
#[derive(Debug, Default)]
pub struct Cards {
    doc: StreamDoc,
    /// The answer line being streamed (after the last newline).
    line: String,
    /// The current line grew past [`MAX_RECORD_BYTES`]: the rest of it goes
    /// to the document as it comes.
    line_spilled: bool,
    block: Block,
    record: Record,
    /// The records of a JSON fence, cut as they complete.
    json: JsonRecords,
    /// The last thing written was a card (which ends in a blank line): a
    /// blank prose line after it would only double the gap.
    after_card: bool,
    /// Every piece written to the document, for tests.
    #[cfg(test)]
    written: Vec<String>,
}

/// Where the next answer line is read.
#[derive(Debug, Default)]
enum Block {
    #[default]
    Prose,
    /// A code fence of some other language: shown as written.
    Code(Fence),
    /// A YAML or JSON fence, read as records.
    Structured {
        fence: Fence,
        json: bool,
        /// The indent of the list items that are records, inside a list.
        section: Option<usize>,
        /// The current record grew too long and shows as written, in a code
        /// block the document has open.
        raw: bool,
    },
}

/// A code fence as an agent opened it.
#[derive(Clone, Debug)]
struct Fence {
    marker: char,
    len: usize,
    /// The opening line, trimmed: a record shown as written is shown in
    /// the same fence.
    opening: String,
}

impl Fence {
    fn closed_by(&self, line: &str) -> bool {
        FenceOpening {
            marker: self.marker,
            len: self.len,
            language: "",
        }
        .closed_by(line)
    }

    fn closing(&self) -> String {
        std::iter::repeat_n(self.marker, self.len).collect()
    }
}

/// The lines of the record being gathered.
#[derive(Debug, Default)]
struct Record {
    /// Its lines as written, each ending in a newline.
    text: String,
    kind: RecordKind,
    /// Lines that are neither blank nor a comment.
    lines: usize,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum RecordKind {
    #[default]
    None,
    /// A list item at this indent.
    Item(usize),
    /// Top-level keys with their values on their lines (and what is
    /// indented under them).
    Scalars,
    /// A top-level key whose value is on the lines below.
    Key,
    /// Anything else YAML may hold (a bare scalar, a flow collection).
    Other,
}

/// How a YAML line relates to the record being gathered.
enum Start {
    /// It starts a new record of this kind.
    New(RecordKind),
    /// It is the first item of the list under the key record being
    /// gathered: the key becomes a section heading.
    FirstItem(usize),
    /// `---` or `...`: the record ends; the line itself shows nothing.
    Separator,
}

impl Cards {
    pub fn new() -> Self {
        Self::default()
    }

    /// The document to lay out and draw.
    pub fn doc(&self) -> &StreamDoc {
        &self.doc
    }

    pub fn doc_mut(&mut self) -> &mut StreamDoc {
        &mut self.doc
    }

    /// The document, once every answer has been read.
    pub fn into_doc(self) -> StreamDoc {
        self.doc
    }

    /// Reads more text of the answer (already sanitised), as
    /// [`StreamDoc::push`] takes it. Reasoning passes through.
    pub fn push(&mut self, segment: Segment, text: &str) {
        if text.is_empty() {
            return;
        }
        if segment == Segment::Reasoning {
            self.doc.push(segment, text);
            return;
        }
        for piece in text.split_inclusive('\n') {
            let (body, ends_line) = match piece.strip_suffix('\n') {
                Some(body) => (body, true),
                None => (piece, false),
            };
            if self.line_spilled {
                self.write(body);
            } else {
                self.line.push_str(body);
                self.doc.trailer().push(Segment::Answer, body);
                if self.line.len() > MAX_RECORD_BYTES {
                    self.spill_line();
                }
            }
            if ends_line {
                self.end_line();
            }
        }
    }

    /// A notice between attempts ([`StreamDoc::push_notice`]): the line
    /// and the record being read end where they are.
    pub fn push_notice(&mut self, text: &str) {
        if std::mem::take(&mut self.line_spilled) {
            // The document's notice starts a line of its own.
        } else if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.read_line(&line);
        }
        if let Block::Structured {
            raw: false, json, ..
        } = self.block
        {
            if json {
                self.finish_json();
            } else {
                self.finish_record();
            }
        }
        self.block = Block::Prose;
        self.record = Record::default();
        self.doc.push_notice(text);
        self.after_card = false;
        self.reset_trailer();
    }

    fn end_line(&mut self) {
        if std::mem::take(&mut self.line_spilled) {
            self.write("\n");
            return;
        }
        let mut line = std::mem::take(&mut self.line);
        self.doc.trailer().push(Segment::Answer, "\n");
        self.read_line(&line);
        // The allocation is kept for the next line.
        line.clear();
        self.line = line;
    }

    /// The line being streamed is too long to wait for: what was gathered
    /// shows as written, and so does the rest of the line as it comes.
    fn spill_line(&mut self) {
        let line = std::mem::take(&mut self.line);
        if matches!(self.block, Block::Structured { .. }) {
            self.spill_record();
        }
        self.write(&line);
        self.after_card = false;
        self.line_spilled = true;
        self.reset_trailer();
    }

    fn read_line(&mut self, line: &str) {
        match &self.block {
            Block::Prose => self.read_prose(line),
            Block::Code(fence) => {
                if fence.closed_by(line) {
                    self.block = Block::Prose;
                }
                self.write_line(line);
                self.reset_trailer();
            }
            Block::Structured { .. } => self.read_structured(line),
        }
    }

    fn read_prose(&mut self, line: &str) {
        if let Some(opening) = fence_opening(line) {
            let fence = Fence {
                marker: opening.marker,
                len: opening.len,
                opening: line.trim().to_string(),
            };
            let language = opening.language.to_ascii_lowercase();
            self.block = match language.as_str() {
                "yaml" | "yml" | "json" | "jsonl" | "ndjson" => {
                    self.json = JsonRecords::default();
                    Block::Structured {
                        fence,
                        json: language.starts_with('j') || language == "ndjson",
                        section: None,
                        raw: false,
                    }
                }
                _ => {
                    self.write_line(line);
                    Block::Code(fence)
                }
            };
            self.reset_trailer();
            return;
        }
        let trimmed = line.trim();
        if trimmed.starts_with('{')
            && trimmed.ends_with('}')
            && let Ok(node) = serde_json::from_str::<Node>(trimmed)
        {
            let mut markdown = String::new();
            render_top(&node, &mut markdown);
            if markdown.is_empty() {
                // `{}`: nothing to show as a card, so it shows as written.
                self.write_line(line);
            } else {
                self.write_card(&markdown);
            }
        } else if !(trimmed.is_empty() && self.after_card) {
            self.write_line(line);
            // The trailer showed this line as it streamed.
            self.doc.take_over_trailer_line();
        }
        self.reset_trailer();
    }

    fn read_structured(&mut self, line: &str) {
        let Block::Structured {
            fence,
            json,
            section,
            raw,
        } = &self.block
        else {
            return;
        };
        let (json, section, raw) = (*json, *section, *raw);
        if fence.closed_by(line) {
            let closing = fence.closing();
            if raw {
                self.write_line(&closing);
            } else if json {
                self.finish_json();
            } else {
                self.finish_record();
            }
            self.block = Block::Prose;
            self.reset_trailer();
            return;
        }
        if json && !raw {
            self.read_json(line);
            return;
        }
        let start = if json {
            None
        } else {
            self.record_start(line, section)
        };
        let Some(start) = start else {
            if raw {
                self.write_line(line);
                self.reset_trailer();
                return;
            }
            let trimmed = line.trim_start();
            let counts = !(trimmed.is_empty() || trimmed.starts_with('#'));
            if self.record.kind == RecordKind::None {
                if !counts {
                    // Blank lines and comments before a record show nothing.
                    return;
                }
                self.record.kind = RecordKind::Other;
            }
            self.record.text.push_str(line);
            self.record.text.push('\n');
            self.record.lines += usize::from(counts);
            if self.record.text.len() > MAX_RECORD_BYTES {
                self.spill_record();
                self.reset_trailer();
            }
            return;
        };
        if raw {
            let closing = self.fence_closing();
            self.write_line(&closing);
            self.set_raw(false);
        } else if !matches!(start, Start::FirstItem(_)) {
            self.finish_record();
        }
        let kind = match start {
            Start::Separator => {
                self.set_section(None);
                self.reset_trailer();
                return;
            }
            Start::FirstItem(indent) => {
                let record = std::mem::take(&mut self.record);
                let key = record
                    .text
                    .lines()
                    .find_map(|line| yaml_key_end(line.trim_start()).map(|end| &line[..end]))
                    .unwrap_or_default()
                    .to_string();
                self.write(&format!("### {}\n", inline(&key)));
                self.after_card = false;
                self.set_section(Some(indent));
                RecordKind::Item(indent)
            }
            Start::New(kind) => {
                if let RecordKind::Item(indent) = kind {
                    self.set_section(Some(indent));
                } else {
                    self.set_section(None);
                }
                kind
            }
        };
        self.record = Record {
            text: format!("{line}\n"),
            kind,
            lines: 1,
        };
        self.reset_trailer();
        self.doc.trailer().push(Segment::Answer, &self.record.text);
    }

    /// A line of a JSON fence: the records it completes become cards; what
    /// is still streaming shows as written in the trailer.
    fn read_json(&mut self, line: &str) {
        let mut pieces = Vec::new();
        self.json.push(line, &mut pieces);
        self.json.push("\n", &mut pieces);
        let shown = !pieces.is_empty();
        for piece in pieces {
            self.write_piece(piece);
        }
        if self.json.unshown_len() > MAX_RECORD_BYTES {
            self.spill_record();
            self.reset_trailer();
        } else if shown {
            self.reset_trailer();
            let unshown = self.json.unshown();
            if !unshown.is_empty() {
                self.doc.trailer().push(Segment::Answer, &unshown);
            }
        }
    }

    /// The JSON fence ends: what is left shows as written.
    fn finish_json(&mut self) {
        let mut pieces = Vec::new();
        let rest = self.json.finish(&mut pieces);
        for piece in pieces {
            self.write_piece(piece);
        }
        if let Some(rest) = rest {
            let (opening, closing) = self.fence_lines();
            self.write(&format!("{opening}\n{rest}\n{closing}\n"));
            self.after_card = false;
        }
    }

    /// Writes a piece of a JSON fence: a heading, or the cards of what it
    /// holds, or the piece as written when it does not parse.
    fn write_piece(&mut self, piece: Piece) {
        let mut markdown = String::new();
        let text = match piece {
            Piece::Section(key) => {
                self.write(&format!("### {}\n", inline(&key)));
                self.after_card = false;
                return;
            }
            Piece::Record(text) => {
                if let Some(values) = parse_json_values(&text) {
                    values
                        .iter()
                        .for_each(|value| render_item(value, &mut markdown));
                }
                text
            }
            Piece::Members(text) => {
                if let Some(values) = parse_json_values(&format!("{{{text}}}")) {
                    values
                        .iter()
                        .for_each(|value| render_top(value, &mut markdown));
                }
                text
            }
            Piece::Value(text) => {
                if let Some(values) = parse_json_values(&text) {
                    values
                        .iter()
                        .for_each(|value| render_top(value, &mut markdown));
                }
                text
            }
        };
        if markdown.is_empty() {
            let (opening, closing) = self.fence_lines();
            self.write(&format!("{opening}\n{text}\n{closing}\n"));
            self.after_card = false;
        } else {
            self.write_card(&markdown);
        }
    }

    /// Whether a YAML line starts a record, in a list of records at
    /// `section`'s indent if there is one.
    fn record_start(&self, line: &str, section: Option<usize>) -> Option<Start> {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            return None;
        }
        let indent = line.len() - trimmed.len();
        let item = trimmed == "-" || trimmed.starts_with("- ");
        let current = self.record.kind;
        if item {
            if section == Some(indent) {
                return Some(Start::New(RecordKind::Item(indent)));
            }
            if section.is_none() && current == RecordKind::Key && self.record.lines == 1 {
                return Some(Start::FirstItem(indent));
            }
            if indent == 0 && current == RecordKind::None {
                return Some(Start::New(RecordKind::Item(0)));
            }
            return None;
        }
        if indent > 0 {
            return None;
        }
        if trimmed == "---" || trimmed == "..." {
            return Some(Start::Separator);
        }
        match yaml_key_end(trimmed) {
            Some(end) => {
                let value = trimmed[end + 1..].trim();
                if value.is_empty() || value.starts_with('#') {
                    Some(Start::New(RecordKind::Key))
                } else if current == RecordKind::Scalars {
                    None
                } else {
                    Some(Start::New(RecordKind::Scalars))
                }
            }
            None if current == RecordKind::Other => None,
            None => Some(Start::New(RecordKind::Other)),
        }
    }

    /// Parses the record gathered and writes its cards, or the record as
    /// written when it does not parse.
    fn finish_record(&mut self) {
        let record = std::mem::take(&mut self.record);
        if record.kind == RecordKind::None || record.lines == 0 {
            return;
        }
        let mut markdown = String::new();
        let parsed = match record.kind {
            RecordKind::Item(indent) => match parse_yaml(&dedent(&record.text, indent)) {
                Some(Node::List(items)) if items.len() == 1 => {
                    render_item(&items[0], &mut markdown);
                    true
                }
                _ => false,
            },
            _ => match parse_yaml(&record.text) {
                Some(node) => {
                    render_top(&node, &mut markdown);
                    true
                }
                None => false,
            },
        };
        if parsed && !markdown.is_empty() {
            self.write_card(&markdown);
        } else {
            let (opening, closing) = self.fence_lines();
            self.write(&format!("{opening}\n{}{closing}\n", record.text));
            self.after_card = false;
        }
    }

    /// The record being gathered is too long for a card: it shows as
    /// written, in a code block left open for the rest of it.
    fn spill_record(&mut self) {
        if let Block::Structured { raw: true, .. } = self.block {
            return;
        }
        let record = std::mem::take(&mut self.record);
        let text = match self.block {
            Block::Structured { json: true, .. } => {
                let unshown = self.json.unshown();
                self.json = JsonRecords::default();
                format!("{unshown}\n")
            }
            _ => record.text,
        };
        let (opening, _) = self.fence_lines();
        self.write(&format!("{opening}\n{text}"));
        self.after_card = false;
        self.set_raw(true);
    }

    fn fence_lines(&self) -> (String, String) {
        match &self.block {
            Block::Structured { fence, .. } | Block::Code(fence) => {
                (fence.opening.clone(), fence.closing())
            }
            Block::Prose => ("```".to_string(), "```".to_string()),
        }
    }

    fn fence_closing(&self) -> String {
        self.fence_lines().1
    }

    fn set_raw(&mut self, value: bool) {
        if let Block::Structured { raw, .. } = &mut self.block {
            *raw = value;
        }
    }

    fn set_section(&mut self, value: Option<usize>) {
        if let Block::Structured { section, .. } = &mut self.block {
            *section = value;
        }
    }

    /// Empties the trailer, ready for the next line where it will be read.
    fn reset_trailer(&mut self) {
        let code = !matches!(self.block, Block::Prose);
        self.doc.trailer().clear_as(code);
    }

    fn write_line(&mut self, line: &str) {
        self.write(&format!("{line}\n"));
        self.after_card = false;
    }

    fn write_card(&mut self, markdown: &str) {
        // Values parsed from YAML or JSON may hold escapes (`"\e"`,
        // `"\u001b"`) that decode to controls: the card is made inert again.
        self.write(&sanitize(markdown));
        self.after_card = true;
    }

    fn write(&mut self, text: &str) {
        #[cfg(test)]
        self.written.push(text.to_string());
        self.doc.push(Segment::Answer, text);
    }
}

/// Removes up to `indent` leading spaces from every line.
fn dedent(text: &str, indent: usize) -> String {
    text.split_inclusive('\n')
        .map(|line| {
            let spaces = line.len() - line.trim_start_matches(' ').len();
            &line[spaces.min(indent)..]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::theme::Theme;

    fn cards_of(text: &str) -> Cards {
        let mut cards = Cards::new();
        cards.push(Segment::Answer, text);
        cards
    }

    /// The text in pieces of `size` bytes, as a stream brings it.
    fn streamed(text: &str, size: usize) -> Cards {
        let mut cards = Cards::new();
        let mut rest = text;
        while !rest.is_empty() {
            let mut cut = size.min(rest.len());
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            cards.push(Segment::Answer, &rest[..cut]);
            rest = &rest[cut..];
        }
        cards
    }

    fn rows(cards: &mut Cards, width: u16) -> Vec<String> {
        let doc = cards.doc_mut();
        doc.layout(width, &Theme::builtin("dark").unwrap());
        doc.row_texts(0, doc.line_count())
    }

    const THESIS: &str = "Two blocks follow.\n\n```yaml\nblocks:\n  - id: a1\n    type: claim\n    text: \"Use a jobs table in the Postgres we run.\"\n    evidence: \"A spike claimed 2,400 a second.\"\n  - id: a2\n    type: implementation\n    text: Enqueue in the same transaction.\nchange_log: []\n```\nThat is all.\n";

    /// Answers and the cards they are written as, each under its case's name.
    const WRITTEN: &[(&str, &str, &[&str])] = &[
        (
            "records_are_split_at_items_and_top_level_keys",
            THESIS,
            &[
                "Two blocks follow.\n",
                "\n",
                "### blocks\n",
                "**a1** · `type` claim\nUse a jobs table in the Postgres we run.\n**evidence** A spike claimed 2,400 a second.\n\n",
                "**a2** · `type` implementation\nEnqueue in the same transaction.\n\n",
                "`change_log` none\n\n",
                "That is all.\n",
            ],
        ),
        (
            "a_record_that_does_not_parse_stays_as_written",
            "```yaml\n- id: a1\n  text: fine\n- id: a2\n  text: \"unclosed\n- id: a3\n```\n",
            &[
                "**a1**\nfine\n\n",
                "```yaml\n- id: a2\n  text: \"unclosed\n```\n",
                "**a3**\n\n",
            ],
        ),
        (
            "json_lines_outside_fences_become_cards",
            "Findings:\n{}\n{\"id\": \"security-1\", \"severity\": \"HIGH\", \"title\": \"Signature check open to a timing attack\", \"domains\": [\"security\"]}\n{not json}\n",
            &[
                "Findings:\n",
                "{}\n",
                "**security-1** · `severity` HIGH · `domains` security\n**Signature check open to a timing attack**\n\n",
                "{not json}\n",
            ],
        ),
        (
            "a_json_fence_reads_as_one_document_or_a_run_of_values",
            "```json\n{\n  \"participant\": \"expert.data\",\n  \"findings\": [\n    {\"id\": \"d1\", \"severity\": \"LOW\"}\n  ]\n}\n```\n```json\n{\"id\": \"x\"}\n{\"id\": \"y\"}\n```\n",
            &[
                "`participant` **expert.data**\n\n",
                "### findings\n",
                "**d1** · `severity` LOW\n\n",
                "**x**\n\n",
                "**y**\n\n",
            ],
        ),
        (
            "nested_score_maps_read_as_one_row",
            "```yaml\nblock_scores:\n  - block_id: a1\n    criterion: risk\n    score: 4\n    rationale: \"A dead worker delays its job by the lease.\"\nsynthesis:\n  integration: 4\n  risk_coverage: 3.5\n```\n",
            &[
                "### block\\_scores\n",
                "`block_id` **a1** · `criterion` risk · `score` 4\n**rationale** A dead worker delays its job by the lease.\n\n",
                "**synthesis** integration 4 · risk\\_coverage 3.5\n\n",
            ],
        ),
        (
            "top_level_scalars_read_as_one_card_and_lists_as_bullets",
            "```yml\nverdict: accept\nconfidence: high\nreasons:\n  - \"The first reason is long enough to be text.\"\n  - second\n```\n",
            &[
                "`verdict` **accept** · `confidence` high\n\n",
                "### reasons\n",
                "- The first reason is long enough to be text.\n",
                "- second\n",
            ],
        ),
    ];

    #[test]
    fn answers_are_written_as_cards() {
        for (name, text, cards) in WRITTEN {
            assert_eq!(cards_of(text).written, *cards, "{name}");
        }
    }

    #[test]
    fn streaming_in_any_pieces_writes_the_same_cards() {
        let whole = cards_of(THESIS).written.concat();
        for size in [1, 3, 7, 64] {
            assert_eq!(streamed(THESIS, size).written.concat(), whole, "{size}");
        }
    }

    #[test]
    fn a_record_still_streaming_shows_as_written_below_the_cards() {
        let mut cards =
            cards_of("```yaml\nblocks:\n  - id: a1\n    type: claim\n  - id: a2\n    type: cl");
        let shown = rows(&mut cards, 60);
        assert_eq!(
            shown,
            [
                "blocks",
                "a1 · type claim",
                "",
                "  - id: a2",
                "    type: cl"
            ]
        );
        // The next record replaces it with its card.
        cards.push(Segment::Answer, "aim\n  - id: a3\n");
        let shown = rows(&mut cards, 60);
        assert_eq!(
            shown,
            [
                "blocks",
                "a1 · type claim",
                "",
                "a2 · type claim",
                "",
                "  - id: a3",
            ]
        );
    }

    #[test]
    fn a_fence_that_never_closes_keeps_its_last_record_as_written() {
        let mut cards = cards_of("```yaml\n- id: a1\n- id: a2\n  text: still going\n");
        assert_eq!(cards.written, ["**a1**\n\n"]);
        let shown = rows(&mut cards, 40);
        assert_eq!(shown, ["a1", "", "- id: a2", "  text: still going"]);
        // A retry's notice ends the attempt: the record is read as it is.
        cards.push_notice("retrying");
        assert_eq!(cards.written, ["**a1**\n\n", "**a2**\nstill going\n\n"]);
        cards.push(Segment::Answer, "# Fresh\n");
        assert_eq!(rows(&mut cards, 40).last().unwrap(), "Fresh");
    }

    #[test]
    fn other_code_and_prose_pass_through_unchanged() {
        let text = "# Title\n\n```rust\nlet x = 1;\n```\n- a list\n";
        assert_eq!(cards_of(text).written.concat(), text);
    }

    #[test]
    fn text_cannot_open_a_fence_or_smuggle_controls() {
        let text = "```yaml\n- id: a1\n  text: \"```\\nswallowed?\\e[31m\"\n- id: a2\n```\n";
        let mut cards = cards_of(text);
        // The escape sequence is dropped whole, as the raw view drops it.
        assert_eq!(cards.written[0], "**a1**\n\\```\nswallowed?\n\n");
        let shown = rows(&mut cards, 40);
        assert_eq!(shown, ["a1", "```", "swallowed?", "", "a2", ""]);
    }

    #[test]
    fn prose_the_trailer_showed_live_is_laid_out_from_its_rows_as_it_would_whole() {
        let theme = Theme::builtin("dark").unwrap();
        let words = [
            "ledger",
            "**invoice**",
            "`event_id`",
            "*shadow*",
            "upcaster",
            "中文",
        ];
        let mut random = fastrand::Rng::with_seed(5658);
        let mut text = String::new();
        for line in 0..24 {
            text.push_str(["", "- ", "> ", "## "][random.usize(..4)]);
            for at in 0..random.usize(3..30) {
                if at > 0 {
                    text.push(' ');
                }
                text.push_str(words[random.usize(..words.len())]);
            }
            text.push('\n');
            if line % 8 == 3 {
                // A card between the lines of prose.
                text.push_str("```yaml\n- id: a1\n  text: a card between prose\n```\n");
            }
        }
        let mut streamed = Cards::new();
        let mut end = 0;
        while end < text.len() {
            let from = end;
            end = (end + random.usize(1..24)).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let width = if end > text.len() / 2 { 31 } else { 43 };
            streamed.push(Segment::Answer, &text[from..end]);
            streamed.doc_mut().layout(width, &theme);
            let mut whole = Cards::new();
            whole.push(Segment::Answer, &text[..end]);
            whole.doc_mut().layout(width, &theme);
            let (streamed, whole) = (streamed.doc(), whole.doc());
            assert_eq!(
                streamed.lines(0, streamed.line_count()),
                whole.lines(0, whole.line_count()),
                "after {end} bytes"
            );
        }
        let (taken_up, rows) = (
            streamed.doc().finished_rows_taken_up(),
            streamed.doc().line_count(),
        );
        assert!(taken_up * 3 > rows, "{taken_up} of {rows} rows taken up");
    }

    #[test]
    fn what_is_laid_out_again_on_every_push_stays_small() {
        // Many records, and one JSON fence far longer than a record may be,
        // whose records are as many cards.
        let mut text = String::from("```yaml\nitems:\n");
        for n in 0..2000 {
            text.push_str(&format!("  - id: r{n}\n    text: \"record {n} of many\"\n"));
        }
        text.push_str("```\n```json\n[\n");
        for n in 0..3000 {
            text.push_str(&format!("  {{\"id\": \"j{n}\", \"note\": \"a value\"}},\n"));
        }
        text.push_str("  {}\n]\n```\nend\n");
        let mut cards = Cards::new();
        let theme = Theme::builtin("dark").unwrap();
        let mut most = 0;
        for piece in text.as_bytes().chunks(16) {
            cards.push(Segment::Answer, std::str::from_utf8(piece).unwrap());
            cards.doc_mut().layout(60, &theme);
            most = most.max(cards.doc_mut().trailer().source_len());
        }
        assert!(most <= MAX_RECORD_BYTES + 64, "{most}");
        let written = cards.written.concat();
        assert_eq!(written.matches("**r").count(), 2000);
        assert_eq!(written.matches("**j").count(), 3000, "all of it");
        assert!(!written.contains("\"id\""), "no record shows as written");
        assert!(written.ends_with("```json\n{}\n```\nend\n"), "{written}");
    }

    #[test]
    fn a_record_too_long_for_a_card_shows_as_written() {
        let long = "word ".repeat(MAX_RECORD_BYTES / 5 + 10);
        let text = format!("```yaml\n- id: a1\n  text: >\n    {long}\n    more\n- id: a2\n```\n");
        let cards = streamed(&text, 500);
        let written = cards.written.concat();
        assert!(
            written.starts_with("```yaml\n- id: a1\n  text: >\n"),
            "{}",
            &written[..40]
        );
        assert!(
            written.contains("    more\n```\n**a2**\n\n"),
            "{}",
            &written[written.len() - 60..]
        );
        assert_eq!(
            written.matches("word").count(),
            MAX_RECORD_BYTES / 5 + 10,
            "nothing dropped"
        );
    }

    /// A council expert's answer as its prompt asks for it.
    const EXPERT: &str = "Findings follow.\n```json\n{\n  \"participant\": \"expert.security\",\n  \"phase\": 1,\n  \"findings\": [\n    {\n      \"id\": \"security-1\",\n      \"severity\": \"HIGH\",\n      \"title\": \"Signature check {open} to a \\\"timing\\\" attack\",\n      \"domains\": [\"security\"]\n    },\n    {\n      \"id\": \"security-2\",\n      \"severity\": \"LOW\",\n      \"title\": \"Logs keep the raw payload\"\n    }\n  ]\n}\n```\nDone.\n";

    #[test]
    fn json_records_become_cards_while_the_answer_streams() {
        let first_record_ends = EXPERT.find("    },\n").unwrap() + "    },\n".len();
        let mut cards = cards_of(&EXPERT[..first_record_ends]);
        assert_eq!(
            cards.written,
            [
                "Findings follow.\n",
                "`participant` **expert.security** · `phase` 1\n\n",
                "### findings\n",
                "**security-1** · `severity` HIGH · `domains` security\n**Signature check {open} to a \"timing\" attack**\n\n",
            ]
        );
        // The record still streaming shows as written, below the cards.
        let next = "    {\n      \"id\": \"security-2\",\n";
        assert!(EXPERT[first_record_ends..].starts_with(next));
        cards.push(Segment::Answer, next);
        let shown = rows(&mut cards, 60);
        assert_eq!(
            shown[shown.len() - 2..],
            ["    {", "      \"id\": \"security-2\","]
        );
        assert!(shown.contains(&"security-1 · severity HIGH · domains security".to_string()));
        cards.push(Segment::Answer, &EXPERT[first_record_ends + next.len()..]);
        assert_eq!(
            cards.written[4..],
            [
                "**security-2** · `severity` LOW\n**Logs keep the raw payload**\n\n",
                "Done.\n"
            ]
        );
    }

    #[test]
    fn a_json_fence_that_never_closes_shows_its_last_record_as_written() {
        let mut cards = cards_of("```json\n[{\"id\": \"a\"},\n {\"id\": \"b\",\n");
        cards.push_notice("retrying");
        assert_eq!(
            cards.written,
            ["**a**\n\n", "```json\n{\"id\": \"b\",\n```\n"]
        );
        let cards = cards_of("```json\n[{\"id\": \"a\"}, {not json}]\n```\n");
        assert_eq!(cards.written, ["**a**\n\n", "```json\n{not json}\n```\n"]);
    }

    proptest::proptest! {
        /// Streamed in pieces cut anywhere, an expert's answer gives the
        /// same cards as whole.
        #[test]
        fn a_json_answer_cut_anywhere_gives_the_same_cards(
            cuts in proptest::collection::vec(0..EXPERT.len(), 0..8),
        ) {
            let whole = cards_of(EXPERT).written.concat();
            let mut cuts = cuts;
            cuts.sort_unstable();
            let mut cards = Cards::new();
            let mut from = 0;
            for cut in cuts.into_iter().chain([EXPERT.len()]) {
                let cut = (cut..=EXPERT.len()).find(|&at| EXPERT.is_char_boundary(at)).unwrap();
                if cut > from {
                    cards.push(Segment::Answer, &EXPERT[from..cut]);
                    from = cut;
                }
            }
            proptest::prop_assert_eq!(cards.written.concat(), whole);
        }
    }
}
