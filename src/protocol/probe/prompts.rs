//! What a probed judge is asked, and how its answer is read.
//!
//! Two questions: which of two answers is better (a pair, read in the
//! order given), and how good one answer is (a score from 1 to 10),
//! optionally naming who wrote it. The reading is strict and lenient at
//! once: only the last `PREFER:` or `SCORE:` line counts, with any
//! Markdown emphasis around it ignored; anything else is malformed, kept
//! on disk and left out of the figures. Not responsible for running the
//! calls or for the files (the driver's).

/// The highest score a judge gives.
pub const SCORE_MAX: u8 = 10;

/// The prompt that asks which of `first` and `second` answers `question`
/// better.
pub fn pair(question: &str, first: &str, second: &str) -> String {
    format!(
        "You are judging answers to a question. Read both answers and decide which one answers \
         the question better: correct, complete and clear.\n\n\
         Question: {question}\n\n\
         <answer id=\"1\">\n{first}\n</answer>\n\n\
         <answer id=\"2\">\n{second}\n</answer>\n\n\
         End your reply with one line: PREFER: 1 or PREFER: 2.\n"
    )
}

/// The prompt that asks for a score of `answer`; `author` names who wrote
/// it (`a model of the anthropic family`), none for blind judging.
pub fn score(question: &str, answer: &str, author: Option<&str>) -> String {
    let author = match author {
        Some(author) => format!("This answer was written by {author}.\n\n"),
        None => String::new(),
    };
    format!(
        "You are judging an answer to a question. Score how well it answers the question, from \
         1 (useless) to {SCORE_MAX} (correct, complete and clear).\n\n\
         Question: {question}\n\n\
         {author}<answer>\n{answer}\n</answer>\n\n\
         End your reply with one line: SCORE: N (a whole number from 1 to {SCORE_MAX}).\n"
    )
}

/// The `KEY: value` lines of `text`, last first, with Markdown emphasis
/// and surrounding space taken off.
fn tagged<'a>(text: &'a str, key: &'a str) -> impl Iterator<Item = String> + 'a {
    text.lines().rev().filter_map(move |line| {
        let line = line
            .trim()
            .trim_matches(|c| c == '*' || c == '_' || c == '`');
        let (head, value) = line.split_once(':')?;
        let head = head.trim().trim_matches(|c| c == '*' || c == '_');
        head.eq_ignore_ascii_case(key).then(|| {
            value
                .trim()
                .trim_matches(|c: char| c == '*' || c == '_' || c == '`' || c == '.')
                .trim()
                .to_string()
        })
    })
}

/// The answer a pair prompt asked for: 1 or 2, or why it cannot be read.
pub fn read_preference(text: &str) -> Result<u8, String> {
    match tagged(text, "PREFER").next() {
        None => Err("no `PREFER: 1` or `PREFER: 2` line".to_string()),
        Some(value) => match value.as_str() {
            "1" => Ok(1),
            "2" => Ok(2),
            other => Err(format!(
                "`PREFER: {}` is neither 1 nor 2",
                crate::text::clipped(other)
            )),
        },
    }
}

/// The score a score prompt asked for, 1 to [`SCORE_MAX`], or why it
/// cannot be read.
pub fn read_score(text: &str) -> Result<u8, String> {
    let value = tagged(text, "SCORE")
        .next()
        .ok_or_else(|| "no `SCORE: N` line".to_string())?;
    // `8/10` and `8 out of 10` mean 8.
    let number = value
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap_or_default();
    match number.parse::<u8>() {
        Ok(score) if (1..=SCORE_MAX).contains(&score) => Ok(score),
        _ => Err(format!(
            "`SCORE: {}` is not a whole number from 1 to {SCORE_MAX}",
            crate::text::clipped(&value)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jm_05_answers_are_read_from_their_last_tagged_line() {
        assert_eq!(read_preference("I think 2 is better.\nPREFER: 2"), Ok(2));
        assert_eq!(read_preference("**PREFER: 1**"), Ok(1));
        assert_eq!(
            read_preference("PREFER: 2\nOn reflection:\nprefer: 1."),
            Ok(1)
        );
        assert!(read_preference("Answer 1 is better.").is_err());
        assert!(read_preference("PREFER: both").is_err());
        assert_eq!(read_score("Reasoning…\nSCORE: 7"), Ok(7));
        assert_eq!(read_score("**Score:** 8/10"), Ok(8));
        assert_eq!(read_score("SCORE: 10"), Ok(10));
        assert!(read_score("SCORE: 0").is_err());
        assert!(read_score("SCORE: 11").is_err());
        assert!(read_score("SCORE: high").is_err());
        assert!(read_score("I'd give it a 7").is_err());
    }

    #[test]
    fn jm_05_prompts_hold_the_material_and_the_author_only_when_named() {
        let prompt = pair("Q?", "first answer", "second answer");
        let first = prompt.find("first answer").unwrap();
        assert!(first < prompt.find("second answer").unwrap());
        assert!(score("Q?", "A.", Some("a model of the openai family")).contains("openai"));
        assert!(!score("Q?", "A.", None).contains("written by"));
    }
}
