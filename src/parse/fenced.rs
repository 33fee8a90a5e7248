//! Finding the YAML in an agent's answer.
//!
//! Responsible for: locating the fenced block agents are asked to answer with
//! (```` ```yaml ````, ```` ```yml ```` or a bare fence, prose allowed around
//! it), choosing one when there are several, normalising line endings, and
//! remembering where the block starts so later errors can name lines in the
//! agent's whole text.
//!
//! Not responsible for: parsing the YAML or judging its content; that is the
//! job of the per-format modules.

use super::ParseError;

/// Extra indentation a closing fence may have beyond its opener, in spaces
/// (CommonMark allows up to 3). A more indented fence line belongs to the
/// content, for example a code sample inside a YAML block scalar.
const CLOSING_FENCE_SLACK_SPACES: usize = 3;

/// Shortest run of backticks or tildes that opens a fence.
const MIN_FENCE_LEN: usize = 3;

/// The YAML part of an agent's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlDoc {
    /// The YAML text, with `\n` line endings and a final newline.
    pub yaml: String,
    /// 1-based line of the agent's whole text where `yaml`'s first line is.
    pub first_line: usize,
}

/// Finds the YAML in an agent's answer.
///
/// Takes the last fenced block tagged `yaml` or `yml`; failing that, the last
/// fenced block of any kind; failing that (no fence at all), the whole text.
/// A fence left open at the end of the answer is read to the end, as if it
/// had been closed there, when it is the block that would be taken (issue
/// 59: nothing else could close it); [`Found::unclosed`] says so.
pub fn extract_yaml(text: &str) -> Result<YamlDoc, ParseError> {
    find_yaml(text).map(|found| found.doc)
}

/// The YAML of an answer, as [`extract_yaml`] finds it.
pub(super) struct Found {
    pub(super) doc: YamlDoc,
    /// It came from a fenced block rather than the whole text.
    pub(super) fenced: bool,
    /// The block taken was never closed and was read to the end of the
    /// answer: its opening fence as written, and the line it opened on.
    pub(super) unclosed: Option<(String, usize)>,
}

/// [`extract_yaml`], also saying whether a fenced block was found and
/// whether it was read to the end of the answer for want of a closing
/// fence.
pub(super) fn find_yaml(text: &str) -> Result<Found, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (mut finished, open) = fenced_blocks(text);
    // A request for sources is never the answer's YAML (issue 52).
    finished.retain(|block| !block.is_request);
    let open = open.filter(|block| !block.is_request);
    // A block still open runs to the end of the answer: the last block of
    // all, so the one taken when it is tagged yaml or no closed block is.
    let mut unclosed = None;
    if let Some(block) = open {
        let taken = block.is_yaml || !finished.iter().any(|closed| closed.is_yaml);
        if taken {
            unclosed = Some((block.opener_text(), block.open_line));
            finished.push(block);
        }
    }
    let chosen = finished
        .iter()
        .rposition(|block| block.is_yaml)
        .or(finished.len().checked_sub(1));
    Ok(match chosen {
        Some(index) => {
            let block = finished.swap_remove(index);
            let unclosed = unclosed.filter(|(_, line)| *line == block.open_line);
            Found {
                doc: YamlDoc {
                    yaml: block.content,
                    first_line: block.open_line + 1,
                },
                fenced: true,
                unclosed,
            }
        }
        None => Found {
            doc: YamlDoc {
                yaml: joined_lines(text.lines()),
                first_line: 1,
            },
            fenced: false,
            unclosed: None,
        },
    })
}

/// Every fenced block of `text`, in order, and the one left open at its end.
fn fenced_blocks(text: &str) -> (Vec<FencedBlock>, Option<FencedBlock>) {
    let mut finished: Vec<FencedBlock> = Vec::new();
    let mut open: Option<FencedBlock> = None;
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        match open.as_mut() {
            None => open = FencedBlock::open(line, line_number),
            Some(block) if block.is_closed_by(line) => finished.extend(open.take()),
            Some(block) => block.push_content(line),
        }
    }
    (finished, open)
}

/// The insides of every block fenced as `request` in `text` (one left
/// open at the end is read to it), in order: an agent asking for sources
/// to be shown (issue 52).
pub fn request_blocks(text: &str) -> Vec<String> {
    let (finished, open) = fenced_blocks(text);
    finished
        .into_iter()
        .chain(open)
        .filter(|block| block.is_request)
        .map(|block| block.content)
        .collect()
}

/// `text` without its `request` blocks, fences included: what an agent
/// asked to be shown is not a citation (issue 52). `text` itself when it
/// has none.
pub fn without_request_blocks(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("request") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut kept = String::with_capacity(text.len());
    let mut open: Option<FencedBlock> = None;
    let mut dropped = false;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        let in_request = match open.as_ref() {
            None => {
                open = FencedBlock::open(bare, index + 1);
                open.as_ref().is_some_and(|block| block.is_request)
            }
            Some(block) => {
                let request = block.is_request;
                if block.is_closed_by(bare) {
                    open = None;
                }
                request
            }
        };
        if in_request {
            dropped = true;
        } else {
            kept.push_str(line);
        }
    }
    if dropped {
        std::borrow::Cow::Owned(kept)
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

fn joined_lines<'a>(lines: impl Iterator<Item = &'a str>) -> String {
    let mut joined = String::new();
    for line in lines {
        joined.push_str(line);
        joined.push('\n');
    }
    joined
}

/// One fenced block, open or finished.
struct FencedBlock {
    open_line: usize,
    /// Spaces before the opening fence; removed from content lines too.
    indent: usize,
    marker: char,
    fence_len: usize,
    info: String,
    is_yaml: bool,
    /// Fenced as `request`: an agent asking to be shown sources.
    is_request: bool,
    /// The lines inside the fences, each ended by a line feed.
    content: String,
}

impl FencedBlock {
    /// A new block if `line` opens a fence.
    fn open(line: &str, line_number: usize) -> Option<FencedBlock> {
        let (indent, rest) = split_indent(line);
        let marker = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
        let fence_len = rest.chars().take_while(|c| *c == marker).count();
        if fence_len < MIN_FENCE_LEN {
            return None;
        }
        let info = rest[fence_len * marker.len_utf8()..].trim();
        if marker == '`' && info.contains('`') {
            return None;
        }
        let language = info
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_start_matches('{')
            .trim_start_matches('.')
            .to_ascii_lowercase();
        Some(FencedBlock {
            open_line: line_number,
            indent,
            marker,
            fence_len,
            info: info.to_owned(),
            is_yaml: language == "yaml" || language == "yml",
            is_request: language == "request",
            content: String::new(),
        })
    }

    fn is_closed_by(&self, line: &str) -> bool {
        let (indent, rest) = split_indent(line);
        let run = rest.chars().take_while(|c| *c == self.marker).count();
        indent <= self.indent + CLOSING_FENCE_SLACK_SPACES
            && run >= self.fence_len
            && rest[run * self.marker.len_utf8()..].trim().is_empty()
    }

    fn push_content(&mut self, line: &str) {
        let removable = line
            .chars()
            .take(self.indent)
            .take_while(|c| *c == ' ')
            .count();
        self.content.push_str(&line[removable..]);
        self.content.push('\n');
    }

    /// The opening fence as the agent wrote it, for messages.
    fn opener_text(&self) -> String {
        let fence: String = std::iter::repeat_n(self.marker, self.fence_len).collect();
        format!("{fence}{}", self.info)
    }
}

/// Leading spaces and tabs (a tab counts as one), and the rest of the line.
fn split_indent(line: &str) -> (usize, &str) {
    let rest = line.trim_start_matches([' ', '\t']);
    (line.len() - rest.len(), rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asserts that the YAML found in `text` is `yaml`, from `first_line`.
    fn assert_extracts(text: &str, yaml: &str, first_line: usize) {
        let doc = extract_yaml(text).expect("found");
        assert_eq!(doc.yaml, yaml);
        assert_eq!(doc.first_line, first_line);
    }

    #[test]
    fn takes_the_yaml_block_out_of_surrounding_prose() {
        let text =
            "Sure! Here is the tree.\n\n```yaml\nblocks:\n  - id: b1\n```\n\nHope this helps.";
        assert_extracts(text, "blocks:\n  - id: b1\n", 4);
    }

    #[test]
    fn accepts_yml_tags_any_case_and_bare_fences() {
        let yml = extract_yaml("```YML\na: 1\n```").expect("yml");
        assert_eq!(yml.yaml, "a: 1\n");
        let bare = extract_yaml("Answer:\n```\na: 2\n```\n").expect("bare");
        assert_eq!((bare.yaml.as_str(), bare.first_line), ("a: 2\n", 3));
        let tildes = extract_yaml("~~~yaml\na: 3\n~~~\n").expect("tildes");
        assert_eq!(tildes.yaml, "a: 3\n");
    }

    #[test]
    fn the_last_yaml_tagged_block_wins_over_later_untagged_ones() {
        let text = "Draft:\n```yaml\na: draft\n```\nFinal:\n```yaml\na: final\n```\nExample run:\n```bash\nls\n```\n";
        assert_extracts(text, "a: final\n", 7);
    }

    #[test]
    fn without_a_yaml_tag_the_last_fenced_block_wins() {
        let text = "```json\n{\"a\": 1}\n```\nthen\n```\na: 2\n```\n";
        assert_extracts(text, "a: 2\n", 6);
    }

    /// EV-10: a block asking for sources is never the answer's YAML, even
    /// after a bare fence or left open at the end.
    #[test]
    fn ev_10_a_request_block_is_never_the_yaml() {
        let text = "```\na: 2\n```\n```request\n- src/retry.go\n```\n";
        assert_extracts(text, "a: 2\n", 2);
        let open = "```\na: 2\n```\n```request\n- src/retry.go\n";
        assert_extracts(open, "a: 2\n", 2);
        assert_eq!(request_blocks(open), vec!["- src/retry.go\n".to_string()]);
    }

    /// EV-10: what a request block names is no citation: the block goes,
    /// fences and all, and the rest of the answer stays as written.
    #[test]
    fn ev_10_a_request_block_is_taken_out_before_citations_are_read() {
        let text =
            "See \"pool\" — app.log.\n```request\n- src/retry.go:L1-L9\n```\n```yaml\na: 1\n```\n";
        assert_eq!(
            without_request_blocks(text),
            "See \"pool\" — app.log.\n```yaml\na: 1\n```\n"
        );
        let plain = "no block, a request in words";
        assert!(matches!(
            without_request_blocks(plain),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn without_any_fence_the_whole_text_is_the_yaml() {
        let doc = extract_yaml("blocks:\r\n  - id: b1\r\n").expect("whole");
        assert_eq!(doc.yaml, "blocks:\n  - id: b1\n");
        assert_eq!(doc.first_line, 1);
    }

    /// Issue 59: a fence left open at the very end of the answer is read
    /// to the end, and said to be; one left open after a closed yaml block
    /// is not the block taken.
    #[test]
    fn a_fence_left_open_at_the_end_is_read_to_the_end() {
        let text = "Here it is:\n\n```yaml\nblocks:\n  - id: b1\n";
        let found = find_yaml(text).expect("read to the end");
        assert_eq!(found.doc.yaml, "blocks:\n  - id: b1\n");
        assert_eq!(found.doc.first_line, 4);
        assert_eq!(found.unclosed, Some(("```yaml".to_string(), 3)));
        let after = "```yaml\na: 1\n```\nThen a sample:\n```bash\nls\n";
        let found = find_yaml(after).expect("the closed yaml block");
        assert_eq!(found.doc.yaml, "a: 1\n");
        assert_eq!(found.unclosed, None);
        let closed = find_yaml("```yaml\na: 1\n```\n").expect("closed");
        assert_eq!(closed.unclosed, None);
    }

    #[test]
    fn crlf_line_endings_become_lf() {
        let text = "Intro\r\n```yaml\r\na: 1\r\nb: 2\r\n```\r\nOutro\r\n";
        assert_extracts(text, "a: 1\nb: 2\n", 3);
    }

    #[test]
    fn an_indented_fence_has_its_indentation_removed() {
        let text = "1. The tree:\n   ```yaml\n   blocks:\n     - id: b1\n   ```\n";
        let doc = extract_yaml(text).expect("found");
        assert_eq!(doc.yaml, "blocks:\n  - id: b1\n");
    }

    #[test]
    fn a_deeply_indented_fence_inside_the_yaml_does_not_close_it() {
        let text = "```yaml\ndescription: |\n      Example:\n      ```\n      code\n      ```\nseverity: minor\n```\n";
        let doc = extract_yaml(text).expect("found");
        assert!(doc.yaml.ends_with("severity: minor\n"), "{}", doc.yaml);
    }

    #[test]
    fn a_longer_fence_needs_a_closer_at_least_as_long() {
        let text = "````yaml\na: |\n  ```\n```\nb: 1\n````\n";
        let doc = extract_yaml(text).expect("found");
        assert_eq!(doc.yaml, "a: |\n  ```\n```\nb: 1\n");
    }

    #[test]
    fn inline_triple_backticks_do_not_open_a_fence() {
        let text = "```yaml``` is the tag I use:\n```yaml\na: 1\n```\n";
        let doc = extract_yaml(text).expect("found");
        assert_eq!(doc.yaml, "a: 1\n");
    }
}
