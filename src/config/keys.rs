//! Which environment variables hold keys: the one list quorum keeps of
//! them.
//!
//! Responsible for naming them: the well-known variables of model providers
//! ([`KNOWN_KEY_VARIABLES`]), every `api_key_env` the configuration names, and
//! any variable whose name ends in [`KEY_VARIABLE_SUFFIX`]. A `command`
//! agent's program gets none of them unless its provider's `env:` lists it
//! (`agent::command`).
//!
//! Not responsible for reading a key's value (`agent::factory` reads the one
//! an HTTP provider needs) or for what is done with the names elsewhere.

use std::collections::BTreeSet;

use super::Config;

/// The variables model providers and their tools keep keys in, withheld
/// from `command` agents whether or not the configuration names them.
pub const KNOWN_KEY_VARIABLES: &[&str] = &[
    "AI21_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "AZURE_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "CEREBRAS_API_KEY",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "COHERE_API_KEY",
    "CO_API_KEY",
    "DEEPSEEK_API_KEY",
    "FIREWORKS_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GROQ_API_KEY",
    "HF_TOKEN",
    "HUGGINGFACEHUB_API_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "MISTRAL_API_KEY",
    "MOONSHOT_API_KEY",
    "NVIDIA_API_KEY",
    "OLLAMA_API_KEY",
    "OPENAI_API_KEY",
    "OPENROUTER_API_KEY",
    "PERPLEXITY_API_KEY",
    "PPLX_API_KEY",
    "REPLICATE_API_TOKEN",
    "TOGETHERAI_API_KEY",
    "TOGETHER_API_KEY",
    "VOYAGE_API_KEY",
    "XAI_API_KEY",
];

/// A variable whose name ends with this (in any case) holds a key too.
pub const KEY_VARIABLE_SUFFIX: &str = "_API_KEY";

/// Every key variable name in effect for `config`: [`KNOWN_KEY_VARIABLES`]
/// and each configured provider's `api_key_env`, sorted, each once.
/// Variables caught only by [`KEY_VARIABLE_SUFFIX`] are not listed: test a
/// name with [`is_key_variable`].
pub fn key_variables(config: &Config) -> Vec<String> {
    let mut names: BTreeSet<String> = KNOWN_KEY_VARIABLES
        .iter()
        .map(|name| name.to_string())
        .collect();
    names.extend(
        config
            .providers
            .values()
            .filter_map(|provider| provider.api_key_env.clone()),
    );
    names.into_iter().collect()
}

/// Whether the variable `name` holds a key: it is one of `in_effect` (what
/// [`key_variables`] returns) or its name ends in [`KEY_VARIABLE_SUFFIX`].
pub fn is_key_variable(name: &str, in_effect: &[String]) -> bool {
    in_effect.iter().any(|known| known == name)
        || name.to_ascii_uppercase().ends_with(KEY_VARIABLE_SUFFIX)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn the_list_is_sorted_and_every_name_is_a_variable_name() {
        let mut sorted = KNOWN_KEY_VARIABLES.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, KNOWN_KEY_VARIABLES);
        for name in KNOWN_KEY_VARIABLES {
            assert!(super::super::is_variable_name(name), "{name}");
        }
    }

    #[test]
    fn configured_key_variables_join_the_well_known_ones() {
        let loaded = super::super::parse(
            Path::new("config.yaml"),
            "providers:\n  local: { kind: openai, base_url: \"http://h/v1\", api_key_env: LOCAL_SECRET }\n  \
             openai: { api_key_env: OPENAI_API_KEY }\n",
            &crate::protocol::registry::Registered,
        )
        .unwrap();
        let names = key_variables(&loaded.config);
        assert!(names.contains(&"LOCAL_SECRET".to_string()));
        assert_eq!(
            names
                .iter()
                .filter(|name| *name == "OPENAI_API_KEY")
                .count(),
            1
        );
        assert_eq!(names.len(), KNOWN_KEY_VARIABLES.len() + 1);
        assert!(is_key_variable("LOCAL_SECRET", &names));
        assert!(is_key_variable("GROQ_API_KEY", &names));
        assert!(is_key_variable("MY_VENDOR_API_KEY", &names));
        assert!(is_key_variable("my_vendor_api_key", &names));
        assert!(!is_key_variable("PATH", &names));
        assert!(!is_key_variable("OPENAI_BASE_URL", &names));
        assert_eq!(
            key_variables(&Config::default()).len(),
            KNOWN_KEY_VARIABLES.len()
        );
    }
}
