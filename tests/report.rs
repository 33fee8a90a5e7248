//! `quorum report` (issue 30): every protocol's demo reported as one
//! self-contained HTML page and as Markdown; the page parses, asks for
//! nothing outside itself, keeps a hostile corpus as text, leaves the debate
//! untouched, and shows its verdict in a real browser (headless Chromium).

use crate::support;

use std::path::Path;

use quorum::protocol::registry;
use scraper::{Html, Selector};
use support::run::Sandbox;

/// Runs `args` (a demo) in a fresh sandbox; returns it and its run folder.
fn demo(args: &[&str]) -> (Sandbox, std::path::PathBuf, String) {
    let sandbox = Sandbox::new();
    let out = sandbox.out();
    let mut all = vec!["demo", "--headless", "--speed", "50"];
    all.extend(args);
    all.extend(["--out", out.to_str().unwrap()]);
    let ran = sandbox.quorum(&all, &[]);
    assert!(
        matches!(ran.code, 0 | 4..=9),
        "{args:?} exited {}: {}",
        ran.code,
        ran.stderr
    );
    let dir = sandbox.run_dir();
    (sandbox, dir, ran.stdout)
}

fn select(html: &Html, css: &str) -> Vec<String> {
    let selector = Selector::parse(css).unwrap();
    html.select(&selector)
        .map(|element| element.text().collect::<String>())
        .collect()
}

/// Every element that could fetch or run something, or send the reader
/// somewhere: none may be in a report.
fn active(html: &Html) -> Vec<String> {
    let mut found = Vec::new();
    for element in html
        .root_element()
        .descendants()
        .filter_map(scraper::ElementRef::wrap)
    {
        let name = element.value().name();
        if matches!(
            name,
            "script" | "img" | "iframe" | "link" | "object" | "embed" | "form" | "a" | "base"
        ) {
            found.push(format!("<{name}>"));
        }
        for (attribute, value) in element.value().attrs() {
            if attribute == "src" || attribute == "href" || attribute.starts_with("on") {
                found.push(format!("<{name} {attribute}={value}>"));
            }
        }
    }
    found
}

/// Every file under `dir` but the report, with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    support::files_under(dir)
        .into_iter()
        .filter(|(name, _)| !name.starts_with("report."))
        .collect()
}

fn demos() -> Vec<Vec<String>> {
    let mut cases = Vec::new();
    for kind in registry::BUILT_IN {
        let info = kind.info();
        if info.modes.is_empty() {
            cases.push(vec!["--protocol".to_string(), info.name.to_string()]);
        }
        for mode in info.modes {
            cases.push(vec![
                "--protocol".to_string(),
                info.name.to_string(),
                "--mode".to_string(),
                mode.to_string(),
            ]);
        }
    }
    cases
}

/// Issue 30: the demo of every protocol and mode reports as a page that
/// parses, opens with the conclusion, gives the verdict or result with its
/// rule, holds nothing that fetches, runs or links, and as Markdown with
/// the same sections; writing the report changes nothing of the debate.
#[test]
fn every_demo_reports_as_one_self_contained_page_and_as_markdown() {
    let cases = demos();
    assert!(cases.len() >= 10, "{cases:?}");
    for case in cases {
        let args: Vec<&str> = case.iter().map(String::as_str).collect();
        let (sandbox, dir, printed) = demo(&args);
        let before = files(&dir);
        let ran = sandbox.quorum(&["report", dir.to_str().unwrap()], &[]);
        ran.assert_code(0);
        assert!(ran.stdout.contains("report.html"), "{}", ran.stdout);
        let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
        let html = Html::parse_document(&page);
        assert!(html.errors.is_empty(), "{case:?}: {:?}", html.errors);
        assert_eq!(active(&html), Vec::<String>::new(), "{case:?}");
        let sections: Vec<String> = html
            .select(&Selector::parse("section").unwrap())
            .filter_map(|section| section.value().attr("id").map(str::to_string))
            .collect();
        assert_eq!(sections[0], "conclusion", "{case:?}: {sections:?}");
        assert_eq!(sections[1], "verdict", "{case:?}: {sections:?}");
        assert!(sections.contains(&"transcript".to_string()), "{case:?}");
        assert!(sections.contains(&"usage".to_string()), "{case:?}");
        let word = select(&html, "#verdict .word");
        assert_eq!(word.len(), 1, "{case:?}");
        let rule = select(&html, "#verdict .rule").concat();
        assert!(!rule.trim().is_empty(), "{case:?}");
        // The conclusion is the one the run printed at its end.
        let conclusion = select(&html, "#conclusion").concat();
        let first_words: Vec<&str> = printed.split_whitespace().take(4).collect();
        let first_words = first_words.join(" ").replace("**", "");
        assert!(
            conclusion
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .contains(&first_words),
            "{case:?}: {first_words} in {conclusion}"
        );
        // A decision review shows its scores and what changed.
        if case.contains(&"decision-review".to_string())
            && case.contains(&"architecture".to_string())
        {
            assert!(sections.contains(&"scores".to_string()), "{sections:?}");
            assert!(sections.contains(&"changes".to_string()), "{sections:?}");
            assert!(sections.contains(&"rulings".to_string()), "{sections:?}");
        }
        // What revises a text shows its changes: a plan, an architecture
        // challenge's design, a writing review's draft.
        if case.contains(&"plan".to_string())
            || case.contains(&"adversary".to_string())
            || case.contains(&"writing".to_string())
        {
            assert!(
                sections.contains(&"changes".to_string()),
                "{case:?}: {sections:?}"
            );
        }
        if case.contains(&"council".to_string()) && case.contains(&"review".to_string()) {
            assert!(sections.contains(&"board".to_string()), "{sections:?}");
        }
        let ran = sandbox.quorum(&["report", dir.to_str().unwrap(), "--format", "md"], &[]);
        ran.assert_code(0);
        let markdown = std::fs::read_to_string(dir.join("report.md")).unwrap();
        assert!(markdown.contains("\n## Conclusion\n"), "{case:?}");
        assert!(markdown.contains(&format!("**{}**", word[0])), "{case:?}");
        assert!(markdown.contains("<details>"), "{case:?}");
        assert_eq!(files(&dir), before, "{case:?}: the debate is untouched");
    }
}

/// What an agent may write to break a page or a Markdown file.
const HOSTILE: &str = "Ignore this <script>alert('x')</script> and <img src=x onerror=alert(1)> \
    then [click me](https://evil.example/steal) or <a href=\"javascript:alert(1)\">here</a>, \
    ![pixel](https://evil.example/p.png) </pre></details><!-- open \u{1b}[31mred\u{0} \"quoted\" 'single' & more";

/// Issue 30: a debate whose topic and every answer carry hostile text
/// reports with all of it as text: nothing that runs, fetches or links, the
/// words still there for the reader, and the Markdown free of raw HTML.
#[test]
fn a_hostile_debate_reports_as_inert_text() {
    let sandbox = Sandbox::new();
    let reply = format!(
        "Bottom line: {}\\n\\nMore: {}\\n",
        HOSTILE
            .replace('"', "\\\"")
            .replace('\u{1b}', "\\e")
            .replace('\u{0}', "\\0"),
        "`code` ```fence```"
    );
    let spec = format!(
        "protocol: quick\nmode: challenge\ntopic: \"Is <b>bold</b> & <script>x</script> safe?\"\nagents:\n  default: script\nscript:\n  replies:\n    - role: critic\n      stage: challenge\n      text: \"{reply}\"\n"
    );
    sandbox.write("hostile.yaml", &spec);
    let ran = sandbox.run_spec("hostile.yaml", &[]);
    ran.assert_code(0);
    let dir = sandbox.run_dir();
    sandbox
        .quorum(&["report", dir.to_str().unwrap()], &[])
        .assert_code(0);
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    let html = Html::parse_document(&page);
    assert_eq!(active(&html), Vec::<String>::new());
    assert!(!page.contains('\u{1b}') && !page.contains('\u{0}'));
    // The conclusion is the critic's bottom line, as the reader reads it.
    let text = select(&html, "#conclusion").concat();
    assert!(text.contains("<script>alert('x')</script>"), "{text}");
    assert!(text.contains("click me"), "the link's words stay: {text}");
    assert!(
        !page.contains("evil.example/steal\""),
        "no target survives as an attribute"
    );
    assert!(select(&html, "h1").concat().contains("<b>bold</b>"));
    sandbox
        .quorum(&["report", dir.to_str().unwrap(), "--format", "md"], &[])
        .assert_code(0);
    let markdown = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for raw in ["<script", "<img", "<a href", "<b>"] {
        let outside_fences = outside_fences(&markdown);
        assert!(!outside_fences.contains(raw), "{raw} in:\n{outside_fences}");
    }
}

/// `markdown` without its fenced blocks: where raw HTML would render.
fn outside_fences(markdown: &str) -> String {
    let mut out = String::new();
    let mut fence: Option<String> = None;
    for line in markdown.lines() {
        let ticks: String = line.chars().take_while(|c| *c == '`').collect();
        match &fence {
            Some(open) if ticks.len() >= open.len() && line.trim() == ticks => fence = None,
            Some(_) => {}
            None if ticks.len() >= 3 => fence = Some(ticks),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// Issue 30: the page renders in a real browser, offline, from a file://
/// address, with its verdict in the page (Chromium, installed by .ci/run;
/// without it here the test says so and passes only when
/// QUORUM_REQUIRE_CHROMIUM is unset).
#[test]
fn the_report_renders_in_headless_chromium_with_its_verdict() {
    let Some(chromium) = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|path| Path::new(path).exists())
    else {
        assert!(
            std::env::var_os("QUORUM_REQUIRE_CHROMIUM").is_none(),
            "QUORUM_REQUIRE_CHROMIUM is set and no Chromium is installed"
        );
        eprintln!("no Chromium here: the browser check is left to .ci/run");
        return;
    };
    let (sandbox, dir, _) = demo(&[]);
    sandbox
        .quorum(&["report", dir.to_str().unwrap()], &[])
        .assert_code(0);
    let profile = tempfile::tempdir().unwrap();
    let page = dir.join("report.html").canonicalize().unwrap();
    let dumped = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            &format!("--user-data-dir={}", profile.path().display()),
            "--dump-dom",
            &format!("file://{}", page.display()),
        ])
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&dumped.stdout);
    assert!(
        dumped.status.success(),
        "{}",
        String::from_utf8_lossy(&dumped.stderr)
    );
    assert!(
        dom.contains("<span class=\"word positive\">ADOPT</span>"),
        "{dom}"
    );
    assert!(dom.contains("all checks passed"), "{dom}");
}

/// Issue 30: a debate cut short (its journal ends mid-way) reports where it
/// stands instead of a verdict, in both formats.
#[test]
fn an_unfinished_debate_reports_where_it_stands() {
    let (sandbox, dir, _) = demo(&[]);
    let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let cut: String = journal
        .lines()
        .take(8)
        .map(|line| format!("{line}\n"))
        .collect();
    let unfinished = sandbox.path().join("unfinished");
    std::fs::create_dir(&unfinished).unwrap();
    std::fs::write(unfinished.join("journal.jsonl"), cut).unwrap();
    sandbox
        .quorum(&["report", unfinished.to_str().unwrap()], &[])
        .assert_code(0);
    let page = std::fs::read_to_string(unfinished.join("report.html")).unwrap();
    let html = Html::parse_document(&page);
    assert_eq!(select(&html, "#verdict .word"), ["NOT ENDED"]);
    let stands = select(&html, "#verdict .rule").concat();
    assert!(stands.starts_with("stopped at "), "{stands}");
    assert_eq!(active(&html), Vec::<String>::new());
    let ran = sandbox.quorum(
        &[
            "report",
            unfinished.to_str().unwrap(),
            "--format",
            "md",
            "-o",
            "-",
        ],
        &[],
    );
    ran.assert_code(0);
    assert!(
        ran.stdout.contains("## Where it stands\n\n**NOT ENDED**"),
        "{}",
        ran.stdout
    );
}
