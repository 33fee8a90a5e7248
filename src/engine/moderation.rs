//! Who decides critique items when no TUI is attached: a fixed policy, a
//! person answering on stdin, or a list of decisions (tests and scripts);
//! or nobody here, when a person decides through the engine's controller
//! (an interface, or `quorum attach` from another terminal: see
//! [`super::inbox`]).
//!
//! A moderator only produces [`Input::ItemDecided`] and
//! [`Input::ModerationSubmitted`] inputs, each decision stamped with who
//! made it ([`Ruler`]: the policy, a person on stdin, a scripted list, or
//! the person whose past ruling a fork repeats); the engine journals them
//! and the protocol enforces that every item is decided before the
//! revision starts.
//! What it reads from stdin is bounded: one answer line holds at most
//! [`ANSWER_LINE_MAX_BYTES`]. The policy a run chooses,
//! [`ModerationPolicy`], is a value of the spec and lives beside it
//! ([`crate::spec`]).

use std::io::Write;

use std::sync::Arc;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, BufReader, Stdin};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use crate::protocol::{Input, ModerationItem};
use crate::protocol::{ItemDecision, ItemWords, Ruler, RulingPolicy};
use crate::spec::ModerationPolicy;

type Send = Box<dyn Fn(Input) -> bool + std::marker::Send>;
type Gone = Box<dyn FnOnce(String) + std::marker::Send>;

enum Kind {
    Policy(ModerationPolicy),
    Listed(Vec<(String, ItemDecision, Option<String>)>),
    /// A person at an interface decides; their decisions arrive through the
    /// engine's [`Controller`](super::Controller).
    External,
    /// The rulings a person made on the same items before (a fork of a
    /// debate they moderated); the items they never saw by `rest`, or, with
    /// none, not at all: the run stops naming the option to give.
    Past {
        rulings: Vec<PastRuling>,
        rest: Option<ModerationPolicy>,
    },
}

/// A ruling a person made on an item, kept to decide the same item again:
/// the same id and the same text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PastRuling {
    pub item_id: String,
    /// The item as it was put to them.
    pub text: String,
    pub decision: ItemDecision,
    pub note: Option<String>,
    /// Who made it in the origin: the fork's ruling is still theirs.
    pub ruler: Ruler,
}

/// Who rules when `policy` decides the items: a person asked on stdin
/// (`ask`), or the policy itself; `None` for `person`, whose rulings come
/// through the engine's controller and are stamped where they are made.
pub fn ruler_of(policy: ModerationPolicy) -> Option<Ruler> {
    Some(match policy {
        ModerationPolicy::Ask => Ruler::Person,
        ModerationPolicy::Accept => Ruler::Policy(RulingPolicy::Accept),
        ModerationPolicy::Reject => Ruler::Policy(RulingPolicy::Reject),
        ModerationPolicy::Defer => Ruler::Policy(RulingPolicy::Defer),
        ModerationPolicy::Planner => Ruler::Policy(RulingPolicy::Planner),
        ModerationPolicy::Person => return None,
    })
}

/// Who a debate journaled before rulers were recorded is taken to have had
/// rule on its items, from what it recorded once for the whole debate: a
/// person, when one moderated live (the interface, `--moderation person`
/// with `quorum attach`: the definition says so) or was asked on stdin
/// (`ask`, which the interface records too); the MCP caller, for `person`
/// without the definition's mark (recorded so for resume's sake); else the
/// policy. `None` when the debate does not say.
pub fn inferred_ruler(moderated_live: bool, policy: Option<ModerationPolicy>) -> Option<Ruler> {
    match policy {
        _ if moderated_live => Some(Ruler::Person),
        Some(ModerationPolicy::Person) => Some(Ruler::Caller),
        Some(policy) => ruler_of(policy),
        None => None,
    }
}

/// Longest answer line `--moderation ask` reads from stdin, in bytes, not
/// counting the line break: a decision and a note fit many times over. A
/// longer line is refused and ends the moderation (the debate stops and can
/// be resumed), so stdin that never sends a line break (`/dev/zero`) costs
/// at most this much memory, not all of it.
pub const ANSWER_LINE_MAX_BYTES: usize = 4 * 1024;

/// Stdin, read through one buffer for the whole run: a protocol that asks
/// the moderator more than once (a root-cause analysis, every round) must
/// not lose what the first request read ahead.
type StdinLines = Arc<Mutex<BufReader<Stdin>>>;

/// One line of answers, as [`read_answer_line`] found it.
#[derive(Debug, PartialEq, Eq)]
enum AnswerLine {
    /// The line, without its line break; bytes that are not UTF-8 read as
    /// U+FFFD.
    Line(String),
    /// The line ran past `max` bytes; it was not kept.
    TooLong,
    /// Nothing more will come.
    Closed,
}

/// Reads the next line of `reader`, keeping at most `max` bytes of it: a
/// line that runs past `max` is [`AnswerLine::TooLong`], however long it
/// goes on. The line break (`\n` or `\r\n`) is left out; a last line
/// without one still counts.
async fn read_answer_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    max: usize,
) -> std::io::Result<AnswerLine> {
    let mut line: Vec<u8> = Vec::new();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if line.is_empty() {
                AnswerLine::Closed
            } else {
                AnswerLine::Line(text_of(line))
            });
        }
        let (taken, ends) = match memchr::memchr(b'\n', available) {
            Some(at) => (at, true),
            None => (available.len(), false),
        };
        if line.len() + taken > max {
            return Ok(AnswerLine::TooLong);
        }
        line.extend_from_slice(&available[..taken]);
        reader.consume(taken + usize::from(ends));
        if ends {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(AnswerLine::Line(text_of(line)));
        }
    }
}

fn text_of(line: Vec<u8>) -> String {
    String::from_utf8(line)
        .unwrap_or_else(|not_utf8| String::from_utf8_lossy(not_utf8.as_bytes()).into_owned())
}

/// The moderator of a headless run.
pub struct Moderator {
    kind: Kind,
    task: Option<JoinHandle<()>>,
    stdin: Option<StdinLines>,
}

impl Moderator {
    pub fn policy(policy: ModerationPolicy) -> Self {
        Moderator {
            kind: Kind::Policy(policy),
            task: None,
            stdin: None,
        }
    }

    /// Decides the listed items as given; items not listed are accepted.
    pub fn listed(decisions: Vec<(String, ItemDecision, Option<String>)>) -> Self {
        Moderator {
            kind: Kind::Listed(decisions),
            task: None,
            stdin: None,
        }
    }

    /// Decides each item a person ruled on before (same id, same text) as
    /// they did, and the others by `rest`; with no `rest`, items nobody
    /// ruled on stop the run, naming them and `--moderation`.
    pub fn past_rulings(rulings: Vec<PastRuling>, rest: Option<ModerationPolicy>) -> Self {
        Moderator {
            kind: Kind::Past { rulings, rest },
            task: None,
            stdin: None,
        }
    }

    /// Decisions come from an interface through the engine's controller.
    pub fn external() -> Self {
        Moderator {
            kind: Kind::External,
            task: None,
            stdin: None,
        }
    }

    /// Starts deciding `items`; decisions go through `send`, and `gone` is
    /// called if no decision can be had (stdin closed).
    /// `words` are the protocol's names for the decisions, for the
    /// questions asked on stdin.
    pub(crate) fn request(
        &mut self,
        items: Vec<ModerationItem>,
        words: ItemWords,
        send: Send,
        gone: Gone,
    ) {
        let fixed = |decision: ItemDecision, ruler: Option<Ruler>| -> Vec<Input> {
            items
                .iter()
                .map(|item| Input::ItemDecided {
                    item_id: item.id.clone(),
                    decision,
                    note: None,
                    ruler,
                })
                .collect()
        };
        if let Kind::Past { rulings, rest } = &self.kind {
            let ruled = |item: &ModerationItem| {
                rulings
                    .iter()
                    .find(|ruling| ruling.item_id == item.id && ruling.text == item.text)
                    .cloned()
            };
            let (known, new): (Vec<ModerationItem>, Vec<ModerationItem>) =
                items.into_iter().partition(|item| ruled(item).is_some());
            let known: Vec<Input> = known
                .iter()
                .filter_map(ruled)
                .map(|ruling| Input::ItemDecided {
                    item_id: ruling.item_id,
                    decision: ruling.decision,
                    note: ruling.note,
                    ruler: Some(ruling.ruler),
                })
                .collect();
            match rest {
                _ if new.is_empty() => {
                    for input in known {
                        send(input);
                    }
                    send(Input::ModerationSubmitted);
                }
                None => gone(format!(
                    "{} {} new in this fork, with no ruling of the origin's to take; give --moderation {} to decide {} (ask reads one line per item on stdin)",
                    new.iter()
                        .map(|item| item.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    if new.len() == 1 { "is" } else { "are" },
                    ModerationPolicy::ALL
                        .map(ModerationPolicy::as_str)
                        .join("|"),
                    if new.len() == 1 { "it" } else { "them" },
                )),
                Some(policy) => {
                    for input in known {
                        send(input);
                    }
                    let mut rest = Moderator {
                        kind: Kind::Policy(*policy),
                        task: None,
                        stdin: self.stdin.take(),
                    };
                    rest.request(new, words, send, gone);
                    self.task = rest.task.take();
                    self.stdin = rest.stdin.take();
                }
            }
            return;
        }
        let inputs = match &self.kind {
            Kind::Policy(policy @ ModerationPolicy::Accept) => {
                fixed(ItemDecision::Accept, ruler_of(*policy))
            }
            Kind::Policy(policy @ ModerationPolicy::Reject) => {
                fixed(ItemDecision::Reject, ruler_of(*policy))
            }
            Kind::Policy(policy @ ModerationPolicy::Defer) => {
                fixed(ItemDecision::Defer, ruler_of(*policy))
            }
            Kind::Policy(policy @ ModerationPolicy::Planner) => items
                .iter()
                .map(|item| Input::ItemDecided {
                    item_id: item.id.clone(),
                    decision: item
                        .suggestion
                        .as_ref()
                        .map_or(ItemDecision::Accept, |suggestion| suggestion.decision),
                    note: None,
                    ruler: ruler_of(*policy),
                })
                .collect(),
            Kind::Listed(listed) => items
                .iter()
                .map(|item| {
                    let (decision, note) = listed
                        .iter()
                        .find(|(id, _, _)| *id == item.id)
                        .map(|(_, decision, note)| (*decision, note.clone()))
                        .unwrap_or((ItemDecision::Accept, None));
                    Input::ItemDecided {
                        item_id: item.id.clone(),
                        decision,
                        note,
                        ruler: Some(Ruler::Script),
                    }
                })
                .collect(),
            // A person decides elsewhere: their rulings come through the
            // engine's controller (an interface, or `quorum attach`'s inbox).
            Kind::External | Kind::Past { .. } | Kind::Policy(ModerationPolicy::Person) => return,
            Kind::Policy(ModerationPolicy::Ask) => {
                let lines = self
                    .stdin
                    .get_or_insert_with(|| Arc::new(Mutex::new(BufReader::new(tokio::io::stdin()))))
                    .clone();
                self.task = Some(tokio::spawn(ask_on_stdin(lines, items, words, send, gone)));
                return;
            }
        };
        for input in inputs {
            send(input);
        }
        send(Input::ModerationSubmitted);
    }

    pub(crate) fn stop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// Parses one answer line: `accept`, `r: the premise is wrong`, `defer ask
/// finance`, or in the protocol's own words (`hold back: not yet`).
pub fn parse_answer(line: &str, words: &ItemWords) -> Option<(ItemDecision, Option<String>)> {
    let line = line.trim();
    // The longest word the line opens with, so `hold back` is not `hold`.
    let (decision, length) = [
        ItemDecision::Accept,
        ItemDecision::Reject,
        ItemDecision::Defer,
    ]
    .into_iter()
    .flat_map(|decision| {
        let key = &decision.as_str()[..1];
        [
            key,
            decision.as_str(),
            decision.past_tense(),
            words.word(decision),
        ]
        .into_iter()
        .map(move |word| (decision, word))
    })
    .filter(|(_, word)| {
        line.get(..word.len())
            .is_some_and(|opening| opening.eq_ignore_ascii_case(word))
            && line[word.len()..]
                .chars()
                .next()
                .is_none_or(|next| next == ':' || next.is_whitespace())
    })
    .map(|(decision, word)| (decision, word.len()))
    .max_by_key(|(_, length)| *length)?;
    let note = line[length..].trim_start_matches(':').trim();
    Some((decision, (!note.is_empty()).then(|| note.to_string())))
}

async fn ask_on_stdin(
    lines: StdinLines,
    items: Vec<ModerationItem>,
    words: ItemWords,
    send: Send,
    gone: Gone,
) {
    let mut lines = lines.lock().await;
    let undecided_from = |id: &str| -> String {
        items
            .iter()
            .skip_while(|candidate| candidate.id != id)
            .map(|candidate| candidate.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut stderr = std::io::stderr();
    let _ = writeln!(
        stderr,
        "quorum: moderation — answer each item with {}, optionally followed by `: note`",
        words.choices()
    );
    if let Some(about) = words.about {
        let _ = writeln!(stderr, "quorum: {about}");
    }
    for item in &items {
        loop {
            let target = if item.target.is_empty() {
                String::new()
            } else {
                format!(" → {}", crate::text::sanitize(&item.target))
            };
            let _ = write!(
                stderr,
                "  {}{target} [{}, {}] {}\n  decision> ",
                item.id,
                item.severity,
                item.category,
                crate::text::sanitize(&crate::words::one_line(&item.text))
            );
            let _ = stderr.flush();
            match read_answer_line(&mut *lines, ANSWER_LINE_MAX_BYTES).await {
                Ok(AnswerLine::Line(line)) => match parse_answer(&line, &words) {
                    Some((decision, note)) => {
                        if !send(Input::ItemDecided {
                            item_id: item.id.clone(),
                            decision,
                            note,
                            ruler: Some(Ruler::Person),
                        }) {
                            return;
                        }
                        break;
                    }
                    None => {
                        let _ = writeln!(stderr, "  please answer {}", words.choices());
                    }
                },
                Ok(AnswerLine::TooLong) => {
                    let limit = crate::input::bytes(ANSWER_LINE_MAX_BYTES as u64);
                    let _ = writeln!(
                        stderr,
                        "\n  that line is longer than {limit}, the most one answer may be"
                    );
                    gone(format!(
                        "stdin sent an answer line longer than {limit} (a decision and a note fit in far less), so no answer can be read from it (undecided: {})",
                        undecided_from(&item.id)
                    ));
                    return;
                }
                Ok(AnswerLine::Closed) | Err(_) => {
                    gone(format!(
                        "stdin closed before every item was decided (undecided: {})",
                        undecided_from(&item.id)
                    ));
                    return;
                }
            }
        }
    }
    send(Input::ModerationSubmitted);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, text: &str) -> ModerationItem {
        ModerationItem {
            id: id.into(),
            text: text.into(),
            ..Default::default()
        }
    }

    /// Issue 62: a fork decides the items a person ruled on as they did;
    /// a new one (another id, or the same id worded otherwise) stops the
    /// run naming it and `--moderation`, or goes to the policy given.
    #[test]
    fn past_rulings_decide_the_same_items_and_new_ones_need_a_policy() {
        let rulings = vec![PastRuling {
            item_id: "c1".into(),
            text: "Kafka retention".into(),
            decision: ItemDecision::Reject,
            note: Some("wrong premise".into()),
            ruler: Ruler::Person,
        }];
        let run = |rest: Option<ModerationPolicy>, items: Vec<ModerationItem>| {
            let sent = Arc::new(std::sync::Mutex::new(Vec::new()));
            let stopped = Arc::new(std::sync::Mutex::new(None));
            let (sent_to, stopped_with) = (sent.clone(), stopped.clone());
            let mut moderator = Moderator::past_rulings(rulings.clone(), rest);
            moderator.request(
                items,
                ItemWords::default(),
                Box::new(move |input| {
                    sent_to.lock().unwrap().push(input);
                    true
                }),
                Box::new(move |why| *stopped_with.lock().unwrap() = Some(why)),
            );
            let sent = sent.lock().unwrap().clone();
            let stopped = stopped.lock().unwrap().clone();
            (sent, stopped)
        };
        let (sent, stopped) = run(None, vec![item("c1", "Kafka retention")]);
        assert_eq!(stopped, None);
        assert_eq!(
            sent,
            [
                Input::ItemDecided {
                    item_id: "c1".into(),
                    decision: ItemDecision::Reject,
                    note: Some("wrong premise".into()),
                    ruler: Some(Ruler::Person),
                },
                Input::ModerationSubmitted
            ]
        );
        let items = vec![item("c1", "Kafka retention, again"), item("c2", "new")];
        let (sent, stopped) = run(None, items.clone());
        assert!(sent.is_empty(), "{sent:?}");
        let why = stopped.expect("the run stops");
        assert!(why.contains("c1, c2 are new in this fork"), "{why}");
        assert!(
            why.contains("--moderation accept|reject|defer|ask"),
            "{why}"
        );
        let (sent, stopped) = run(
            Some(ModerationPolicy::Defer),
            vec![item("c1", "Kafka retention"), item("c2", "new")],
        );
        assert_eq!(stopped, None);
        assert_eq!(sent.len(), 3, "{sent:?}");
        assert!(matches!(
            &sent[0],
            Input::ItemDecided {
                decision: ItemDecision::Reject,
                ruler: Some(Ruler::Person),
                ..
            }
        ));
        assert!(matches!(
            &sent[1],
            Input::ItemDecided {
                decision: ItemDecision::Defer,
                ruler: Some(Ruler::Policy(RulingPolicy::Defer)),
                ..
            }
        ));
    }

    /// The rulers `request` stamps on the decisions of `moderator` for
    /// two items, and whether it submitted them.
    fn rulers_of(mut moderator: Moderator) -> (Vec<Option<Ruler>>, bool) {
        let sent = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sent_to = sent.clone();
        moderator.request(
            vec![item("c1", "one"), item("c2", "two")],
            ItemWords::default(),
            Box::new(move |input| {
                sent_to.lock().unwrap().push(input);
                true
            }),
            Box::new(|_| {}),
        );
        let sent = sent.lock().unwrap().clone();
        let rulers = sent
            .iter()
            .filter_map(|input| match input {
                Input::ItemDecided { ruler, .. } => Some(*ruler),
                _ => None,
            })
            .collect();
        (rulers, sent.last() == Some(&Input::ModerationSubmitted))
    }

    /// JM-63: each policy stamps its decisions as its own, never a
    /// person's; a scripted list as a script's; the person's policies
    /// (`ask`, `person`) decide nothing here by themselves.
    #[test]
    fn jm_63_a_policy_rules_as_itself_and_a_list_as_a_script() {
        for (policy, ruling) in [
            (ModerationPolicy::Accept, RulingPolicy::Accept),
            (ModerationPolicy::Reject, RulingPolicy::Reject),
            (ModerationPolicy::Defer, RulingPolicy::Defer),
            (ModerationPolicy::Planner, RulingPolicy::Planner),
        ] {
            let ruler = Some(Ruler::Policy(ruling));
            assert_eq!(ruler_of(policy), ruler);
            assert_eq!(
                rulers_of(Moderator::policy(policy)),
                (vec![ruler, ruler], true),
                "{policy:?}"
            );
        }
        let listed = Moderator::listed(vec![("c1".into(), ItemDecision::Reject, None)]);
        let script = Some(Ruler::Script);
        assert_eq!(rulers_of(listed), (vec![script, script], true));
        assert_eq!(ruler_of(ModerationPolicy::Ask), Some(Ruler::Person));
        assert_eq!(ruler_of(ModerationPolicy::Person), None);
        assert_eq!(
            rulers_of(Moderator::policy(ModerationPolicy::Person)),
            (vec![], false)
        );
    }

    /// JM-27, JM-64: a ruling journaled without its ruler (before issue
    /// 55) is taken to be what the debate recorded once for all its items:
    /// a person's when moderated live or asked on stdin; `person` without
    /// the live mark is an MCP caller's; the other policies rule by
    /// themselves; a debate that says nothing names nobody.
    #[test]
    fn jm_64_a_ruling_without_a_recorded_ruler_is_inferred_from_the_debate() {
        let person = Some(Ruler::Person);
        assert_eq!(inferred_ruler(true, Some(ModerationPolicy::Person)), person);
        assert_eq!(inferred_ruler(true, None), person);
        assert_eq!(inferred_ruler(false, Some(ModerationPolicy::Ask)), person);
        assert_eq!(
            inferred_ruler(false, Some(ModerationPolicy::Person)),
            Some(Ruler::Caller)
        );
        assert_eq!(
            inferred_ruler(false, Some(ModerationPolicy::Planner)),
            Some(Ruler::Policy(RulingPolicy::Planner))
        );
        assert_eq!(inferred_ruler(false, None), None);
    }

    #[test]
    fn answers_parse_with_and_without_notes() {
        let usual = ItemWords::default();
        let parse_answer = |line: &str| super::parse_answer(line, &usual);
        assert_eq!(parse_answer("accept"), Some((ItemDecision::Accept, None)));
        assert_eq!(
            parse_answer("r: the premise is wrong"),
            Some((ItemDecision::Reject, Some("the premise is wrong".into())))
        );
        assert_eq!(
            parse_answer("  Defer ask finance  "),
            Some((ItemDecision::Defer, Some("ask finance".into())))
        );
        assert_eq!(parse_answer("maybe"), None);
        assert_eq!(parse_answer(""), None);
        assert_eq!(parse_answer("accepting"), None, "a word, not a prefix");
    }

    /// Issue 26: the moderation prompt reads the protocol's own words, the
    /// longest first (`hold back`, not `hold`).
    #[test]
    fn answers_in_the_protocols_own_words_parse() {
        let council = ItemWords {
            accept: "deliver",
            reject: "drop",
            defer: "hold back",
            about: None,
        };
        assert_eq!(
            parse_answer("Hold back: ask the SRE first", &council),
            Some((ItemDecision::Defer, Some("ask the SRE first".into())))
        );
        assert_eq!(
            parse_answer("deliver", &council),
            Some((ItemDecision::Accept, None))
        );
        assert_eq!(
            parse_answer("drop it is noise", &council),
            Some((ItemDecision::Reject, Some("it is noise".into())))
        );
        assert_eq!(parse_answer("hold", &council), None);
        assert_eq!(
            parse_answer("r", &council),
            Some((ItemDecision::Reject, None))
        );
    }

    /// Every line of `input`, read through a buffer of `capacity` bytes
    /// with lines of at most `max` bytes, up to the end or a refusal.
    async fn answer_lines(input: &[u8], capacity: usize, max: usize) -> Vec<AnswerLine> {
        let mut reader = BufReader::with_capacity(capacity, input);
        let mut lines = Vec::new();
        loop {
            let line = read_answer_line(&mut reader, max).await.unwrap();
            let last = !matches!(line, AnswerLine::Line(_));
            lines.push(line);
            if last {
                return lines;
            }
        }
    }

    fn line(text: &str) -> AnswerLine {
        AnswerLine::Line(text.to_string())
    }

    #[tokio::test]
    async fn answer_lines_end_at_a_line_break_with_or_without_a_carriage_return() {
        for capacity in [1, 3, 8192] {
            assert_eq!(
                answer_lines(b"accept\r\nr: wrong\n\ndefer", capacity, 64).await,
                [
                    line("accept"),
                    line("r: wrong"),
                    line(""),
                    line("defer"),
                    AnswerLine::Closed
                ]
            );
        }
        assert_eq!(
            answer_lines(b"a\xffb\n", 8, 64).await,
            [line("a\u{fffd}b"), AnswerLine::Closed],
            "bytes that are not UTF-8 read as the replacement character"
        );
    }

    #[tokio::test]
    async fn a_line_longer_than_the_limit_is_refused_without_reading_it_all() {
        assert_eq!(
            answer_lines(&[b'a'; 64], 7, 64).await,
            [line(&"a".repeat(64)), AnswerLine::Closed],
            "a line of exactly the limit is read"
        );
        let mut endless = BufReader::with_capacity(16, tokio::io::repeat(0));
        assert_eq!(
            read_answer_line(&mut endless, ANSWER_LINE_MAX_BYTES)
                .await
                .unwrap(),
            AnswerLine::TooLong,
            "stdin that never sends a line break (/dev/zero) is refused"
        );
        for capacity in [5, 8192] {
            assert_eq!(
                answer_lines(b"accept\nrejectrejectreject\ndefer\n", capacity, 8).await,
                [line("accept"), AnswerLine::TooLong]
            );
        }
    }
}
