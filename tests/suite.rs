//! Every integration test but one, in one test binary.
//!
//! Each `tests/NAME.rs` is a module here rather than a crate of its own:
//! sixty binaries that each link quorum and its dependencies cost minutes of
//! linking and gigabytes of disk (a CI run once ran out of space), and one
//! binary runs the same tests in the same threads. `seventh_protocol.rs`
//! stays a binary of its own: it registers a protocol for the whole process,
//! which every test that lists the protocols here would then see.
//!
//! A new test file gets its line below; `every_test_file_is_a_module` fails
//! when one is missing, so no file's tests are silently never built.
//!
//! `cargo test --test suite NAME::` runs one file's tests.

mod support;

mod bind_council;
mod bind_council_inputs;
mod bind_council_protocol;
mod bind_plan;
mod bind_plan_demo;
mod bind_plan_log;
mod bind_quick;
mod bind_rca;
mod bind_rca_demo;
mod bind_review;
mod bind_writing;
mod budget;
mod chain;
mod compat_legacy;
mod conformance;
mod e2e_attach;
mod e2e_cli;
mod e2e_config;
mod e2e_council;
mod e2e_demo_export;
mod e2e_engine_usage;
mod e2e_lenient;
mod e2e_library;
mod e2e_open;
mod e2e_plan;
mod e2e_probe;
mod e2e_providers;
mod e2e_quick;
mod e2e_rca;
mod e2e_replay;
mod e2e_resume;
mod e2e_resume_held;
mod e2e_review_comparative;
mod e2e_review_panel;
mod e2e_review_writing;
mod e2e_tui;
mod engine_faults;
mod engine_human;
mod engine_persist;
mod engine_resume;
mod evidence;
mod fair_judging;
mod fixtures_smoke;
mod fork;
mod hostile_agents;
mod hostile_files;
mod hostile_folders;
mod hostile_input;
mod hostile_items;
mod layers;
mod lenient_reader;
mod link_order;
mod mcp_client;
mod one_slip;
mod protocol_council;
mod protocol_decision_review;
mod protocol_plan;
mod protocol_properties;
mod protocol_quick;
mod protocol_rca;
mod provider_anthropic;
mod provider_openai;
mod provider_transport;
mod reader_terms;
mod report;
mod screens;
mod stability_receipt;
mod ui_markdown;
mod ui_snapshots;
mod yaml_tabs;

/// Each `tests/*.rs` but this file and the seventh protocol's is declared
/// above: a file cargo no longer finds by itself is not forgotten.
#[test]
fn every_test_file_is_a_module() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let declared = include_str!("suite.rs");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&here).expect("read tests/") {
        let path = entry.expect("an entry of tests/").path();
        if path.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        if stem == "suite" || stem == "seventh_protocol" {
            continue;
        }
        if !declared.lines().any(|line| line == format!("mod {stem};")) {
            missing.push(stem);
        }
    }
    assert!(
        missing.is_empty(),
        "add `mod NAME;` to tests/suite.rs for {missing:?}"
    );
}
