//! Masking the values of API keys wherever an agent's text goes.
//!
//! A key lives in the environment only, but an agent can still echo it: a
//! command agent that prints `$OPENAI_API_KEY`, a proxy that repeats its
//! request headers. quorum knows which variables hold keys
//! ([`crate::config::keys`]),
//! so it knows their values, and replaces each occurrence with a marker
//! naming the variable, `[masked: OPENAI_API_KEY]`: the record says that
//! something was masked and what, never the value. Text is masked where it
//! enters (a call's stream, answer and error, before the engine, the
//! interface or the journal see them) and again where it leaves (every
//! journal line and every file written in a run folder), so a key that
//! reaches a record by another road is caught too.
//!
//! The set of values is the process's own, like the environment it comes
//! from: [`install`] adds the variables to watch, [`current`] is what a
//! call masks with. Values shorter than [`MIN_SECRET_CHARS`] are not
//! watched: masking every `1234` would damage text and protect nothing.
//!
//! Not responsible for the shapes of keys in general (the error path's
//! [`crate::text::redact`] masks anything shaped like a key), nor for what
//! a person types into a context file.

use std::borrow::Cow;
use std::sync::{Arc, RwLock};

/// Shortest value that is masked, in characters.
pub const MIN_SECRET_CHARS: usize = 8;

/// One watched value and its marker.
#[derive(Debug)]
struct Secret {
    value: String,
    marker: String,
    finder: memchr::memmem::Finder<'static>,
}

/// The values to mask, longest first (so a value that contains another is
/// masked whole).
#[derive(Debug, Default)]
pub struct Masker {
    secrets: Vec<Secret>,
}

impl Masker {
    /// A masker for `(variable, value)` pairs; short and repeated values
    /// are left out.
    pub fn new<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Masker {
        let mut secrets: Vec<Secret> = Vec::new();
        for (variable, value) in pairs {
            let value = value.trim();
            if value.chars().count() < MIN_SECRET_CHARS
                || secrets.iter().any(|secret| secret.value == value)
            {
                continue;
            }
            secrets.push(Secret {
                value: value.to_string(),
                marker: format!("[masked: {variable}]"),
                finder: memchr::memmem::Finder::new(value.as_bytes()).into_owned(),
            });
        }
        secrets.sort_by_key(|secret| std::cmp::Reverse(secret.value.len()));
        Masker { secrets }
    }

    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// The names of the variables whose values are watched.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.secrets.iter().map(|secret| {
            secret
                .marker
                .trim_start_matches("[masked: ")
                .trim_end_matches(']')
        })
    }

    /// `text` with every watched value replaced by its marker; borrowed
    /// when there is nothing to mask.
    pub fn mask<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut masked: Cow<'t, str> = Cow::Borrowed(text);
        for secret in &self.secrets {
            if secret.finder.find(masked.as_bytes()).is_none() {
                continue;
            }
            let mut out = String::with_capacity(masked.len());
            let mut rest: &str = &masked;
            while let Some(at) = secret.finder.find(rest.as_bytes()) {
                out.push_str(&rest[..at]);
                out.push_str(&secret.marker);
                rest = &rest[at + secret.value.len()..];
            }
            out.push_str(rest);
            masked = Cow::Owned(out);
        }
        masked
    }

    /// [`mask`](Self::mask) of bytes that may not be UTF-8 (a journal
    /// line is): the values are matched as bytes.
    pub fn mask_bytes<'t>(&self, bytes: &'t [u8]) -> Cow<'t, [u8]> {
        let mut masked: Cow<'t, [u8]> = Cow::Borrowed(bytes);
        for secret in &self.secrets {
            if secret.finder.find(&masked).is_none() {
                continue;
            }
            let mut out = Vec::with_capacity(masked.len());
            let mut rest: &[u8] = &masked;
            while let Some(at) = secret.finder.find(rest) {
                out.extend_from_slice(&rest[..at]);
                out.extend_from_slice(secret.marker.as_bytes());
                rest = &rest[at + secret.value.len()..];
            }
            out.extend_from_slice(rest);
            masked = Cow::Owned(out);
        }
        masked
    }

    /// How many bytes at the end of `text` could be the start of a watched
    /// value, and must wait for the next piece of a stream. Only the last
    /// `len - 1` bytes can, and only from a byte equal to the value's first:
    /// those few places are found with `memchr` and checked, so a piece
    /// costs about its length, whatever the length of a key.
    fn undecided_tail(&self, text: &str) -> usize {
        let bytes = text.as_bytes();
        let mut longest = 0;
        for secret in &self.secrets {
            let value = secret.value.as_bytes();
            let window = bytes.len().saturating_sub(value.len() - 1);
            // The first place that fits gives the longest tail.
            let tail = memchr::memchr_iter(value[0], &bytes[window..])
                .map(|at| &bytes[window + at..])
                .find(|tail| value.starts_with(tail));
            if let Some(tail) = tail
                && tail.len() > longest
                && text.is_char_boundary(bytes.len() - tail.len())
            {
                longest = tail.len();
            }
        }
        longest
    }
}

/// Masks one stream (an answer's text, its reasoning, a program's stderr)
/// piece by piece: a value split across two pieces is still masked, at
/// the cost of holding back the few bytes at a piece's end that could
/// begin one, until the next piece or [`finish`](Self::finish).
#[derive(Debug)]
pub struct StreamMasker {
    masker: Arc<Masker>,
    held: String,
}

impl StreamMasker {
    pub fn new(masker: Arc<Masker>) -> StreamMasker {
        StreamMasker {
            masker,
            held: String::new(),
        }
    }

    /// What of `piece` can be passed on now.
    pub fn push(&mut self, piece: String) -> String {
        if self.masker.is_empty() {
            return piece;
        }
        let mut text = std::mem::take(&mut self.held);
        text.push_str(&piece);
        let mut masked = self.masker.mask(&text).into_owned();
        let keep = self.masker.undecided_tail(&masked);
        self.held = masked.split_off(masked.len() - keep);
        masked
    }

    /// What is still held, at the stream's end.
    pub fn finish(&mut self) -> String {
        std::mem::take(&mut self.held)
    }
}

static CURRENT: RwLock<Option<Arc<Masker>>> = RwLock::new(None);

/// Watches the values of `variables` from now on (each read from the
/// environment; unset ones are skipped), with those already watched.
pub fn install<'a>(variables: impl IntoIterator<Item = &'a str>) {
    let mut names: Vec<String> = current().variables().map(str::to_string).collect();
    for variable in variables {
        if !names.iter().any(|name| name == variable) {
            names.push(variable.to_string());
        }
    }
    let values: Vec<(String, String)> = names
        .into_iter()
        .filter_map(|name| {
            let value = std::env::var(&name).ok()?;
            Some((name, value))
        })
        .collect();
    let masker = Masker::new(
        values
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str())),
    );
    *CURRENT
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(Arc::new(masker));
}

/// The masker set now, if one is.
fn watched() -> Option<Arc<Masker>> {
    CURRENT
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}

/// The values watched now.
pub fn current() -> Arc<Masker> {
    watched().unwrap_or_default()
}

/// `text` masked with the values watched now.
pub fn mask(text: &str) -> Cow<'_, str> {
    match watched() {
        Some(masker) if !masker.is_empty() => Cow::Owned(masker.mask(text).into_owned()),
        _ => Cow::Borrowed(text),
    }
}

/// [`mask`] of bytes (a journal line, a file on its way to disk).
pub fn mask_bytes(bytes: &[u8]) -> Cow<'_, [u8]> {
    match watched() {
        Some(masker) if !masker.is_empty() => Cow::Owned(masker.mask_bytes(bytes).into_owned()),
        _ => Cow::Borrowed(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-live-0123456789abcdef";

    fn masker() -> Arc<Masker> {
        Arc::new(Masker::new([("OPENAI_API_KEY", KEY), ("SHORT_KEY", "abc")]))
    }

    #[test]
    fn every_occurrence_is_replaced_by_a_marker_naming_the_variable() {
        let text = format!("key={KEY} and again {KEY}.");
        assert_eq!(
            masker().mask(&text),
            "key=[masked: OPENAI_API_KEY] and again [masked: OPENAI_API_KEY]."
        );
        assert!(matches!(masker().mask("nothing here"), Cow::Borrowed(_)));
        // Short values are not watched.
        assert_eq!(masker().mask("abc abc"), "abc abc");
        assert_eq!(
            masker()
                .mask_bytes(format!("\"{KEY}\"\n").as_bytes())
                .as_ref(),
            b"\"[masked: OPENAI_API_KEY]\"\n"
        );
    }

    #[test]
    fn a_value_split_across_pieces_of_a_stream_is_still_masked() {
        let text = format!("before {KEY} after");
        for cut_a in 0..text.len() {
            for cut_b in cut_a..text.len() {
                let mut stream = StreamMasker::new(masker());
                let mut out = stream.push(text[..cut_a].to_string());
                out += &stream.push(text[cut_a..cut_b].to_string());
                out += &stream.push(text[cut_b..].to_string());
                out += &stream.finish();
                assert_eq!(out, "before [masked: OPENAI_API_KEY] after");
            }
        }
    }

    #[test]
    fn a_stream_holds_back_only_what_could_begin_a_value() {
        let mut stream = StreamMasker::new(masker());
        assert_eq!(stream.push("plain text ".into()), "plain text ");
        assert_eq!(stream.push("then sk-li".into()), "then ");
        assert_eq!(stream.push("ving".into()), "sk-living");
        assert_eq!(stream.finish(), "");
        let mut empty = StreamMasker::new(Arc::new(Masker::default()));
        assert_eq!(empty.push("sk-li".into()), "sk-li");
    }
}
