//! JSON read record by record as it streams, for the card view.
//!
//! Responsible for: finding, in JSON text that arrives in pieces of any
//! size, where each record of a list of records ends, so that its card can
//! be written while the rest of the answer is still streaming. A scanner
//! follows strings (and their escapes) and the nesting of objects and
//! lists, one character at a time; it never parses. What it cuts out:
//!
//! - each element of a top-level list (`[{…}, {…}]`);
//! - in a top-level object (`{"participant": …, "findings": [{…}, …]}`),
//!   the key of a member that holds a list of objects, as a section, then
//!   each of its elements; the other members together, as one object, when
//!   a section starts or the object ends;
//! - any other top-level value whole (JSON lines are a run of them).
//!
//! Splitting the text anywhere gives the same pieces: the scanner's state
//! is all it carries from one piece of text to the next.
//!
//! Not responsible for: parsing what it cuts (serde_json does, once a piece
//! is whole) or how it is shown (the cards do).

/// What the scanner cuts out of the text, in the order written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Piece {
    /// The key of a top-level object's member that holds a list of
    /// records: a heading over the records that follow.
    Section(String),
    /// One element of a list of records, as written.
    Record(String),
    /// Members of a top-level object that hold no list of records, as
    /// written, to be read as one object (`"a": 1, "b": "x"`).
    Members(String),
    /// A whole top-level value that is neither an object nor a list.
    Value(String),
}

/// Where the scanner stands in a top-level value.
#[derive(Clone, Debug, Default)]
enum Top {
    /// Between top-level values.
    #[default]
    Between,
    /// Inside a top-level list: its elements are records.
    List,
    /// Inside a top-level object, at this point of a member.
    Object(Member),
    /// A top-level scalar (a number, a word, a string).
    Scalar,
}

/// Where the scanner stands in a member of a top-level object. `start` is
/// where the member starts in the text not yet cut.
#[derive(Clone, Debug)]
enum Member {
    /// Before a key (after `{` or `,`).
    BeforeKey,
    /// In the key's string.
    Key { start: usize },
    /// After the key, before its `:`.
    Colon { start: usize, key: String },
    /// After the `:`, before the value.
    BeforeValue { start: usize, key: String },
    /// A value that is not a list of records, gathered with the other
    /// such members.
    Loose { start: usize },
    /// A list whose first element has not started yet.
    ListStart { start: usize, key: String },
    /// A list of records: each element is cut as it ends.
    Section,
    /// After a list of records, before the next `,` or the end.
    AfterSection,
}

/// The scanner: feed it text with [`push`](Self::push), collect the pieces.
#[derive(Debug, Default)]
pub(super) struct JsonRecords {
    /// The objects (`{`) and lists (`[`) open, outermost first.
    open: Vec<u8>,
    in_string: bool,
    /// The character before was a backslash inside a string.
    escape: bool,
    /// Text not yet cut into a piece.
    pending: String,
    /// Where the record being gathered starts in `pending`, and whether it
    /// is an object or a list (it ends when that closes) rather than a
    /// scalar (it ends at the next `,` or the list's end).
    record: Option<(usize, bool)>,
    top: Top,
    /// Members of the top-level object gathered for its next
    /// [`Piece::Members`].
    members: Vec<String>,
}

impl JsonRecords {
    /// Reads more text; pieces that complete are added to `out`.
    pub(super) fn push(&mut self, text: &str, out: &mut Vec<Piece>) {
        for c in text.chars() {
            let at = self.pending.len();
            self.pending.push(c);
            self.step(c, at, out);
        }
    }

    /// Bytes held and not yet cut: what a record too long for a card is
    /// measured by.
    pub(super) fn unshown_len(&self) -> usize {
        self.pending.len() + self.members.iter().map(String::len).sum::<usize>()
    }

    /// The text held and not yet cut, as written (members gathered and the
    /// value in progress), without the separators before it.
    pub(super) fn unshown(&self) -> String {
        let mut text = self.members.join(",\n");
        if !text.is_empty() {
            text.push_str(",\n");
        }
        text.push_str(&self.pending);
        text.trim_start_matches(|c: char| c == ',' || c.is_whitespace())
            .to_string()
    }

    /// Ends the text: a top-level scalar still open is cut into `out`;
    /// what is held and not cut is returned as written, if it is more than
    /// white space. The scanner starts again.
    pub(super) fn finish(&mut self, out: &mut Vec<Piece>) -> Option<String> {
        if matches!(self.top, Top::Scalar) && !self.in_string {
            self.end_scalar(out);
        }
        let rest = self.unshown();
        *self = JsonRecords::default();
        let rest = rest.trim_end().to_string();
        (!rest.is_empty()).then_some(rest)
    }

    fn step(&mut self, c: char, at: usize, out: &mut Vec<Piece>) {
        if self.in_string {
            if self.escape {
                self.escape = false;
            } else if c == '\\' {
                self.escape = true;
            } else if c == '"' {
                self.in_string = false;
                self.string_closed(at, out);
            }
            return;
        }
        match c {
            '"' => {
                self.token(c, at, out);
                self.in_string = true;
            }
            '{' | '[' => {
                self.token(c, at, out);
                self.open.push(c as u8);
            }
            '}' | ']' => self.close(at, out),
            ',' => self.comma(at, out),
            ':' => self.colon(),
            c if c.is_whitespace() => {
                if self.open.is_empty() {
                    match self.top {
                        Top::Scalar => self.end_scalar(out),
                        // White space between values is not kept.
                        _ => self.pending.clear(),
                    }
                }
            }
            _ => self.token(c, at, out),
        }
    }

    /// A value, a key or a scalar's character starts or continues at `at`
    /// (for `{` and `[`, before they are counted as open).
    fn token(&mut self, c: char, at: usize, out: &mut Vec<Piece>) {
        let bracket = c == '{' || c == '[';
        match (self.open.len(), &mut self.top) {
            (0, Top::Between) => {
                self.top = match c {
                    '[' => Top::List,
                    '{' => Top::Object(Member::BeforeKey),
                    _ => Top::Scalar,
                };
                if bracket {
                    // The opening bracket is not part of any piece.
                    self.pending.clear();
                }
            }
            (1, Top::List) if self.record.is_none() => self.record = Some((at, bracket)),
            (1, Top::Object(member)) => match member {
                Member::BeforeKey if c == '"' => *member = Member::Key { start: at },
                Member::BeforeValue { start, key } => {
                    let (start, key) = (*start, std::mem::take(key));
                    *member = if c == '[' {
                        Member::ListStart { start, key }
                    } else {
                        Member::Loose { start }
                    };
                }
                _ => {}
            },
            (2, Top::Object(member)) => match member {
                Member::ListStart { start, key } => {
                    if c == '{' {
                        let key = std::mem::take(key);
                        self.flush_members(out);
                        out.push(Piece::Section(key));
                        self.pending.drain(..at);
                        self.record = Some((0, true));
                        self.top = Top::Object(Member::Section);
                    } else {
                        // A list of something else is one more member.
                        *member = Member::Loose { start: *start };
                    }
                }
                Member::Section if self.record.is_none() => {
                    self.record = Some((at, bracket));
                }
                _ => {}
            },
            _ => {}
        }
    }

    fn string_closed(&mut self, at: usize, out: &mut Vec<Piece>) {
        match (self.open.len(), &mut self.top) {
            (0, Top::Scalar) => self.end_scalar(out),
            (1, Top::Object(member)) => {
                if let Member::Key { start } = *member {
                    let key = serde_json::from_str::<String>(&self.pending[start..=at])
                        .unwrap_or_else(|_| self.pending[start..=at].to_string());
                    *member = Member::Colon { start, key };
                }
            }
            _ => {}
        }
    }

    fn colon(&mut self) {
        if self.open.len() == 1
            && let Top::Object(member) = &mut self.top
            && let Member::Colon { start, key } = member
        {
            *member = Member::BeforeValue {
                start: *start,
                key: std::mem::take(key),
            };
        }
    }

    fn comma(&mut self, at: usize, out: &mut Vec<Piece>) {
        match (self.open.len(), &mut self.top) {
            (1, Top::List) => {
                self.end_scalar_record(at, out);
                self.pending.clear();
            }
            (1, Top::Object(member)) => match member {
                Member::Loose { start } => {
                    let member_text = self.pending[*start..at].trim().to_string();
                    self.members.push(member_text);
                    self.top = Top::Object(Member::BeforeKey);
                    self.pending.clear();
                }
                Member::AfterSection => {
                    *member = Member::BeforeKey;
                    self.pending.clear();
                }
                _ => {}
            },
            (2, Top::Object(Member::Section)) => {
                self.end_scalar_record(at, out);
                self.pending.clear();
            }
            _ => {}
        }
    }

    fn close(&mut self, at: usize, out: &mut Vec<Piece>) {
        let records_here = matches!(
            (self.open.len(), &self.top),
            (1, Top::List) | (2, Top::Object(Member::Section))
        );
        if records_here {
            // The list of records ends: so does a scalar record in it.
            self.end_scalar_record(at, out);
        }
        if self.open.pop().is_none() {
            // A stray closing bracket between values.
            self.pending.clear();
            return;
        }
        match (self.open.len(), &mut self.top) {
            (0, Top::List) => self.end_top(),
            (0, Top::Object(member)) => {
                if let Member::Loose { start } = *member {
                    let member_text = self.pending[start..at].trim().to_string();
                    self.members.push(member_text);
                }
                self.flush_members(out);
                self.end_top();
            }
            (1, Top::List) => self.end_bracketed_record(at, out),
            (1, Top::Object(member)) => match member {
                Member::ListStart { start, .. } => *member = Member::Loose { start: *start },
                Member::Section => {
                    *member = Member::AfterSection;
                    self.pending.clear();
                }
                _ => {}
            },
            (2, Top::Object(Member::Section)) => self.end_bracketed_record(at, out),
            _ => {}
        }
    }

    /// A record that is an object or a list ends with the bracket at `at`.
    fn end_bracketed_record(&mut self, at: usize, out: &mut Vec<Piece>) {
        if let Some((start, true)) = self.record {
            out.push(Piece::Record(self.pending[start..=at].to_string()));
            self.record = None;
            self.pending.clear();
        }
    }

    /// A scalar record ends before `at` (a `,` or the list's end).
    fn end_scalar_record(&mut self, at: usize, out: &mut Vec<Piece>) {
        if let Some((start, false)) = self.record {
            out.push(Piece::Record(self.pending[start..at].trim().to_string()));
            self.record = None;
        }
    }

    fn end_scalar(&mut self, out: &mut Vec<Piece>) {
        let text = self.pending.trim().to_string();
        if !text.is_empty() {
            out.push(Piece::Value(text));
        }
        self.end_top();
    }

    fn end_top(&mut self) {
        self.top = Top::Between;
        self.record = None;
        self.pending.clear();
    }

    fn flush_members(&mut self, out: &mut Vec<Piece>) {
        if !self.members.is_empty() {
            out.push(Piece::Members(self.members.join(", ")));
            self.members.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pieces(text: &str) -> Vec<Piece> {
        let mut scanner = JsonRecords::default();
        let mut out = Vec::new();
        scanner.push(text, &mut out);
        if let Some(rest) = scanner.finish(&mut out) {
            out.push(Piece::Value(format!("unfinished: {rest}")));
        }
        out
    }

    /// A council expert's answer, with strings that hold brackets, quotes,
    /// escapes and commas.
    const EXPERT: &str = r#"{
  "participant": "expert.security",
  "phase": 1,
  "findings": [
    {
      "id": "security-1",
      "severity": "HIGH",
      "title": "Signature check { open } to a \"timing\" attack, \\",
      "domains": ["security", "api"]
    },
    {"id": "security-2", "severity": "LOW", "title": "[ok], fine}"}
  ],
  "notes": ["one", "two"],
  "extra": {"a": 1}
}"#;

    #[test]
    fn an_expert_answer_is_cut_into_its_members_section_and_records() {
        assert_eq!(
            pieces(EXPERT),
            [
                Piece::Members(r#""participant": "expert.security", "phase": 1"#.into()),
                Piece::Section("findings".into()),
                Piece::Record(
                    "{\n      \"id\": \"security-1\",\n      \"severity\": \"HIGH\",\n      \"title\": \"Signature check { open } to a \\\"timing\\\" attack, \\\\\",\n      \"domains\": [\"security\", \"api\"]\n    }".into()
                ),
                Piece::Record(
                    r#"{"id": "security-2", "severity": "LOW", "title": "[ok], fine}"}"#.into()
                ),
                Piece::Members(r#""notes": ["one", "two"], "extra": {"a": 1}"#.into()),
            ]
        );
    }

    #[test]
    fn lists_runs_of_values_and_scalars_are_cut_whole() {
        assert_eq!(
            pieces("[{\"id\": \"a\"}, 3, \"x,y\", [1, 2]]\n{\"id\": \"b\"}\n42\n\"s\"\n"),
            [
                Piece::Record("{\"id\": \"a\"}".into()),
                Piece::Record("3".into()),
                Piece::Record("\"x,y\"".into()),
                Piece::Record("[1, 2]".into()),
                Piece::Members("\"id\": \"b\"".into()),
                Piece::Value("42".into()),
                Piece::Value("\"s\"".into()),
            ]
        );
    }

    #[test]
    fn a_list_of_anything_but_objects_is_a_member() {
        assert_eq!(
            pieces("{\"reasons\": [\"a\", \"b\"], \"empty\": [], \"id\": \"r\"}"),
            [Piece::Members(
                "\"reasons\": [\"a\", \"b\"], \"empty\": [], \"id\": \"r\"".into()
            )]
        );
    }

    #[test]
    fn a_record_comes_out_as_soon_as_it_closes() {
        let mut scanner = JsonRecords::default();
        let mut out = Vec::new();
        scanner.push("{\"findings\": [\n {\"id\": \"f1\"},\n {\"id\": ", &mut out);
        assert_eq!(
            out,
            [
                Piece::Section("findings".into()),
                Piece::Record("{\"id\": \"f1\"}".into())
            ]
        );
        assert_eq!(scanner.unshown(), "{\"id\": ");
        assert_eq!(scanner.finish(&mut out).as_deref(), Some("{\"id\":"));
    }

    proptest! {
        /// Cut anywhere, in any number of places, the text gives the
        /// same pieces as whole.
        #[test]
        fn splitting_the_text_anywhere_gives_the_same_pieces(
            cuts in proptest::collection::vec(0..EXPERT.len(), 0..6),
        ) {
            let whole = pieces(EXPERT);
            let mut cuts = cuts;
            cuts.sort_unstable();
            let mut scanner = JsonRecords::default();
            let mut out = Vec::new();
            let mut from = 0;
            for cut in cuts.into_iter().chain([EXPERT.len()]) {
                let cut = (cut..=EXPERT.len()).find(|&at| EXPERT.is_char_boundary(at)).unwrap();
                if cut < from {
                    continue;
                }
                scanner.push(&EXPERT[from..cut], &mut out);
                from = cut;
            }
            prop_assert!(scanner.finish(&mut out).is_none());
            prop_assert_eq!(out, whole);
        }
    }
}
