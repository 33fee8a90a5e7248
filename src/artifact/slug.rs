//! Topic slugs: the readable, safe part of a run folder's name.
//!
//! A slug is lower-case ASCII words of `[a-z0-9]` joined by single `-`, so it
//! can never contain a separator, `..`, NUL or a leading `.`, whatever the
//! topic was. Accented Latin letters are transliterated (`é` → `e`, `ß` →
//! `ss`); other scripts are dropped rather than guessed at.

/// Longest slug, in characters (all ASCII, so also bytes).
pub const MAX_SLUG_CHARS: usize = 48;

/// The slug used when a topic has no usable letters or digits.
pub const FALLBACK_SLUG: &str = "debate";

/// Turns a debate topic into a folder-name slug.
///
/// Words are runs of ASCII letters and digits after lower-casing and
/// transliteration; apostrophes join (`don't` → `dont`), everything else
/// separates; combining accents are dropped. Whole words are kept while they fit in [`MAX_SLUG_CHARS`]; only
/// a first word longer than that is cut mid-word.
pub fn topic_slug(topic: &str) -> String {
    let mut slug = String::new();
    let mut word = String::new();
    for lower in topic.chars().flat_map(char::to_lowercase) {
        if lower.is_ascii_alphanumeric() {
            word.push(lower);
        } else if let Some(ascii) = transliterate(lower) {
            word.push_str(ascii);
        } else if matches!(lower, '\'' | '\u{2019}' | '\u{300}'..='\u{36f}') {
            // Apostrophes and combining accents join: "don't", "e\u{301}".
        } else if !push_word(&mut slug, &mut word) {
            break;
        }
        if word.len() > MAX_SLUG_CHARS {
            // Nothing can follow a word this long; `push_word` cuts or drops it.
            break;
        }
    }
    push_word(&mut slug, &mut word);
    if slug.is_empty() {
        FALLBACK_SLUG.to_owned()
    } else {
        slug
    }
}

/// Appends the pending `word` to `slug` if it fits and clears it. Returns
/// false once the slug is full (a word did not fit), so the caller can stop.
fn push_word(slug: &mut String, word: &mut String) -> bool {
    if word.is_empty() {
        return true;
    }
    let fits = if slug.is_empty() {
        word.truncate(MAX_SLUG_CHARS);
        true
    } else {
        slug.len() + 1 + word.len() <= MAX_SLUG_CHARS
    };
    if fits {
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.push_str(word);
    }
    word.clear();
    fits
}

/// ASCII for a lower-case accented Latin letter (Latin-1 and Latin
/// Extended-A), `None` for anything else.
fn transliterate(letter: char) -> Option<&'static str> {
    Some(match letter {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
        'æ' => "ae",
        'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => "c",
        'ð' | 'ď' | 'đ' => "d",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => "e",
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => "g",
        'ĥ' | 'ħ' => "h",
        'ì' | 'í' | 'î' | 'ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' | 'ı' => "i",
        'ĳ' => "ij",
        'ĵ' => "j",
        'ķ' | 'ĸ' => "k",
        'ĺ' | 'ļ' | 'ľ' | 'ŀ' | 'ł' => "l",
        'ñ' | 'ń' | 'ņ' | 'ň' | 'ŉ' | 'ŋ' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ŏ' | 'ő' => "o",
        'œ' => "oe",
        'ŕ' | 'ŗ' | 'ř' => "r",
        'ś' | 'ŝ' | 'ş' | 'š' | 'ș' | 'ſ' => "s",
        'ß' => "ss",
        'ţ' | 'ť' | 'ŧ' | 'ț' => "t",
        'þ' => "th",
        'ù' | 'ú' | 'û' | 'ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => "u",
        'ŵ' => "w",
        'ý' | 'ÿ' | 'ŷ' => "y",
        'ź' | 'ż' | 'ž' => "z",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn is_well_formed(slug: &str) -> bool {
        !slug.is_empty()
            && slug.len() <= MAX_SLUG_CHARS
            && slug.split('-').all(|word| {
                !word.is_empty()
                    && word
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            })
    }

    #[test]
    fn plain_topics() {
        assert_eq!(
            topic_slug("Should we move billing to event sourcing?"),
            "should-we-move-billing-to-event-sourcing"
        );
        assert_eq!(
            topic_slug("  RFC-42:  gRPC vs. REST!! "),
            "rfc-42-grpc-vs-rest"
        );
        assert_eq!(topic_slug("Don't ship on Friday"), "dont-ship-on-friday");
        assert_eq!(topic_slug("a_b\tc\nd"), "a-b-c-d");
    }

    #[test]
    fn accents_are_transliterated_other_scripts_dropped() {
        assert_eq!(topic_slug("Café crème brûlée"), "cafe-creme-brulee");
        assert_eq!(
            topic_slug("Straße ÆON Œuvre Łódź"),
            "strasse-aeon-oeuvre-lodz"
        );
        assert_eq!(topic_slug("日本語 release plan"), "release-plan");
        assert_eq!(topic_slug("Привет мир"), FALLBACK_SLUG);
        assert_eq!(topic_slug("cafe\u{301} İstanbul"), "cafe-istanbul");
    }

    #[test]
    fn hostile_topics_become_plain_words() {
        assert_eq!(topic_slug("../../etc/passwd"), "etc-passwd");
        assert_eq!(topic_slug("/abs"), "abs");
        assert_eq!(topic_slug(".hidden"), "hidden");
        assert_eq!(topic_slug("a\\..\\b"), "a-b");
        assert_eq!(topic_slug("nul\0byte\u{1b}[31m"), "nul-byte-31m");
    }

    #[test]
    fn empty_results_fall_back() {
        for topic in ["", "   ", "...", "///", "\u{202e}\u{200b}", "🎉🎉"] {
            assert_eq!(topic_slug(topic), FALLBACK_SLUG, "{topic:?}");
        }
    }

    #[test]
    fn long_topics_are_cut_on_a_word_boundary() {
        let topic = "should we migrate the entire billing platform to event sourcing this year";
        let slug = topic_slug(topic);
        assert_eq!(slug, "should-we-migrate-the-entire-billing-platform-to");
        assert!(slug.len() <= MAX_SLUG_CHARS);

        // 48 exactly fits; one more word does not.
        let exact = format!("{} b", "a".repeat(46));
        assert_eq!(topic_slug(&exact), format!("{}-b", "a".repeat(46)));
        let over = format!("{} bc", "a".repeat(46));
        assert_eq!(topic_slug(&over), "a".repeat(46));
    }

    #[test]
    fn a_single_overlong_word_is_cut_mid_word() {
        let slug = topic_slug(&"x".repeat(200));
        assert_eq!(slug, "x".repeat(MAX_SLUG_CHARS));
        assert_eq!(topic_slug(&format!("ok {}", "y".repeat(60))), "ok");
    }

    proptest! {
        #[test]
        fn every_slug_is_well_formed(
            topic in prop_oneof![
                any::<String>(),
                "[a-zA-Z0-9 ./\\\\\0\n\t-]{0,80}",
                "(\\.\\./|/|\\\\|é|ß|日|\u{202e}|[A-Z]{1,20}| )*",
            ]
        ) {
            let slug = topic_slug(&topic);
            prop_assert!(is_well_formed(&slug), "{topic:?} -> {slug:?}");
            prop_assert!(!slug.contains(['/', '\\', '\0']) && !slug.contains(".."));
            prop_assert!(!slug.starts_with('.'));
        }

        #[test]
        fn slugging_is_idempotent(topic in any::<String>()) {
            let slug = topic_slug(&topic);
            prop_assert_eq!(topic_slug(&slug), slug);
        }
    }
}
