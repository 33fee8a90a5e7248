//! Prompt templates a person or someone else's journal hands quorum
//! (`--prompts DIR`, a journal's prompt overrides), rendered as a call's
//! prompt would be. Invariant: no panic, and rendering ends: a template
//! that loops, nests or multiplies text without end runs out of its fuel
//! (`quorum::prompts::RENDER_FUEL`) and is refused with an error, so
//! libFuzzer's timeout (`-timeout`) never fires.
#![no_main]

use std::collections::BTreeMap;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use quorum::prompts::{PromptSet, REPAIR_TEMPLATE};

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let overrides = BTreeMap::from([(REPAIR_TEMPLATE.file_name.to_string(), source.to_string())]);
    let Ok(prompts) = PromptSet::with_overrides(&overrides, Path::new("journal.jsonl")) else {
        return;
    };
    let context = serde_json::json!({
        "original_prompt": "Review the proposal.",
        "previous_output": "```yaml\nblocks: [\n```",
        "error": "line 2: unclosed [",
    });
    let _ = prompts.render(&REPAIR_TEMPLATE, &context);
});
