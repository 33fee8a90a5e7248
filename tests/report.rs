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
/// JM-34: a panel's verdict has its "did the debate pay" beside it.
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
        // JM-34: did the debate pay, beside the verdict of every panel
        // that decides one by scores or votes, and nowhere else.
        let has = |word: &str| case.iter().any(|arg| arg == word);
        let pays = (has("decision-review") && !has("writing"))
            || (has("council") && !has("brainstorm") && !has("design"));
        let payoff = select(&html, "#verdict .payoff h3");
        assert_eq!(!payoff.is_empty(), pays, "{case:?}: {payoff:?}");
        let ran = sandbox.quorum(&["report", dir.to_str().unwrap(), "--format", "md"], &[]);
        ran.assert_code(0);
        let markdown = std::fs::read_to_string(dir.join("report.md")).unwrap();
        assert_eq!(
            markdown.contains("### Did the debate pay?\n\nA plain vote of "),
            pays,
            "{case:?}"
        );
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
    // Issue 62: a plan's page shows the plan as it ended, rendered, at a
    // desktop's width and a phone's, as a screenshot.
    let (sandbox, dir, _) = demo(&["--protocol", "plan"]);
    sandbox
        .quorum(&["report", dir.to_str().unwrap()], &[])
        .assert_code(0);
    let page = dir.join("report.html").canonicalize().unwrap();
    for width in [1400, 390] {
        let shot = sandbox.path().join(format!("plan-{width}.png"));
        let ran = std::process::Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--hide-scrollbars",
                &format!("--user-data-dir={}", profile.path().display()),
                &format!("--window-size={width},2000"),
                &format!("--screenshot={}", shot.display()),
                &format!("file://{}", page.display()),
            ])
            .output()
            .expect("chromium runs");
        assert!(
            ran.status.success(),
            "{}",
            String::from_utf8_lossy(&ran.stderr)
        );
        let png = std::fs::read(&shot).unwrap();
        assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "{width}");
    }
    let dumped = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            &format!("--user-data-dir={}", profile.path().display()),
            "--dump-dom",
            &format!("file://{}", page.display()),
        ])
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&dumped.stdout);
    let document = dom
        .split("<div class=\"document\">")
        .nth(1)
        .unwrap_or_else(|| panic!("no rendered plan: {dom}"));
    assert!(document.contains("<li>"), "{document}");
    assert!(dom.contains("<summary>As first drafted</summary>"), "{dom}");
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

/// The fenced block of `markdown` whose info string is `info`.
fn fence_with_info(markdown: &str, info: &str) -> Option<String> {
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        let ticks: String = line.chars().take_while(|c| *c == '`').collect();
        if ticks.len() >= 3 && &line[ticks.len()..] == info {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != ticks).collect();
            return Some(body.join("\n"));
        }
    }
    None
}

/// Issue 61: the command a report shows to report a debate's source reads
/// back in a real shell as `quorum report SOURCE`, whatever a forged
/// `from.json` names: in the Markdown file (in a fence, not escaped as a
/// table cell) and on the page.
#[test]
fn the_command_a_report_shows_reads_back_as_its_words_in_a_shell() {
    let (sandbox, dir, _) = demo(&[]);
    let source = "/tmp/x'; touch PWNED; echo '\n$(touch PWNED) `touch PWNED` a\\b | c ```";
    let from = serde_json::json!({
        "source": source,
        "from": "council",
        "topic": "t",
        "handed": {"kind": "cause", "problem": "p", "cause": "c"},
    });
    std::fs::write(dir.join("from.json"), from.to_string()).unwrap();
    let read_back = |command: &str| -> Vec<String> {
        let ran = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("printf '%s\\0' {command}"))
            .current_dir(sandbox.path())
            .output()
            .unwrap();
        assert!(!sandbox.path().join("PWNED").exists(), "{command}");
        String::from_utf8(ran.stdout)
            .unwrap()
            .split_terminator('\0')
            .map(str::to_string)
            .collect()
    };
    let ran = sandbox.quorum(
        &["report", dir.to_str().unwrap(), "--format", "md", "-o", "-"],
        &[],
    );
    ran.assert_code(0);
    let command = fence_with_info(&ran.stdout, "sh").unwrap_or_else(|| panic!("{}", ran.stdout));
    assert_eq!(read_back(&command), ["quorum", "report", source]);
    let ran = sandbox.quorum(&["report", dir.to_str().unwrap(), "-o", "-"], &[]);
    ran.assert_code(0);
    let html = Html::parse_document(&ran.stdout);
    let shown = select(&html, "pre.command").concat();
    assert_eq!(read_back(&shown), ["quorum", "report", source]);
}

/// Markdown an agent may write to make a viewer fetch or link something.
const LIVE: &str = "![pixel](http://evil.example/p.png) [click](javascript:alert(1)) \
    <http://evil.example/auto> <img src=http://evil.example/i.png> [ref][r] \\![esc](http://evil.example/e.png) \
    [r]: http://evil.example/ref";

/// Issue 61: agents' links and images are text everywhere in report.md:
/// the title, the conclusion, a change's heading and causes, the
/// moderator's table; no Markdown parser finds a link, image or HTML in
/// it, and the words stay.
#[test]
fn agents_links_and_images_are_inert_everywhere_in_report_md() {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    let mut report = quorum::share::Report {
        topic: format!("Topic {LIVE}"),
        label: LIVE.to_string(),
        origin: Some(LIVE.to_string()),
        handed_from: Some(LIVE.to_string()),
        ..Default::default()
    };
    report.conclusion = Some(format!("# Bottom\n\nIt {LIVE}\n\n`[code](x)` stays\n"));
    report.open_questions = vec![
        LIVE.to_string(),
        format!("1. {LIVE}"),
        format!("- > # {LIVE}"),
    ];
    report.budget = vec![(LIVE.to_string(), LIVE.to_string())];
    report.evidence = vec![(LIVE.to_string(), vec![format!("✗ \"{LIVE}\" — a.log")])];
    report.changes = vec![quorum::protocol::ChangedPart {
        part: LIVE.to_string(),
        before: "old".into(),
        after: "new".into(),
        causes: vec![LIVE.to_string()],
        markdown: false,
    }];
    let markdown = quorum::share::markdown::render(&report);
    let live: Vec<String> = Parser::new_ext(&markdown, Options::all())
        .filter_map(|event| match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                Some(dest_url.to_string())
            }
            Event::Html(html) | Event::InlineHtml(html)
                if !matches!(
                    html.trim(),
                    "<details>"
                        | "</details>"
                        | "<summary>Every event and every raw answer, as recorded</summary>"
                ) =>
            {
                Some(html.to_string())
            }
            _ => None,
        })
        .collect();
    assert_eq!(live, Vec::<String>::new(), "{markdown}");
    assert!(markdown.contains("`[code](x)` stays"), "{markdown}");
    let text: String = Parser::new(&markdown)
        .filter_map(|event| match event {
            Event::Text(text) => Some(text.to_string()),
            _ => None,
        })
        .collect();
    assert!(
        text.contains("![pixel](http://evil.example/p.png)"),
        "{text}"
    );
}

/// Issue 61: the report cleans agent text exactly as `transcript.md` on
/// disk does: no bidi control, no escape sequence nor what is left of one,
/// in report.md, report.html and `-o -`; its copy of the transcript is the
/// file's.
#[test]
fn the_report_cleans_agent_text_as_the_transcript_on_disk_does() {
    let sandbox = Sandbox::new();
    let hostile = "safe \\u202etxt.exe \\u001b[31mred\\u001b[0m \\u001b]8;;http://evil.example\\u0007link\\u001b]8;;\\u0007 \\u2066iso\\u2069";
    let spec = format!(
        "protocol: quick\nmode: challenge\ntopic: \"Topic {hostile}\"\nagents:\n  default: script\nscript:\n  replies:\n    - role: critic\n      stage: challenge\n      text: \"Bottom line: {hostile}\\n\"\n"
    );
    sandbox.write("hostile.yaml", &spec);
    sandbox.run_spec("hostile.yaml", &[]).assert_code(0);
    let dir = sandbox.run_dir();
    let on_disk = std::fs::read_to_string(dir.join("transcript.md")).unwrap();
    assert!(!on_disk.contains('\u{202e}'), "transcript.md is clean");
    for format in ["html", "md"] {
        let ran = sandbox.quorum(
            &[
                "report",
                dir.to_str().unwrap(),
                "--format",
                format,
                "-o",
                "-",
            ],
            &[],
        );
        ran.assert_code(0);
        for bad in ['\u{202e}', '\u{2066}', '\u{2069}', '\u{1b}', '\u{7}'] {
            assert!(!ran.stdout.contains(bad), "{format}: {bad:?} in the report");
        }
        // Raw answers in the transcript show controls as pictures, as
        // transcript.md does; elsewhere nothing of a sequence is left.
        let before_transcript = ran
            .stdout
            .split("## Transcript")
            .next()
            .and_then(|text| text.split("<section id=\"transcript\">").next())
            .unwrap();
        for leftover in ["[31m", "[0m", "]8;;", "evil.example"] {
            assert!(
                !before_transcript.contains(leftover),
                "{format}: {leftover} in the report"
            );
        }
        assert!(ran.stdout.contains("txt.exe"), "{format}: the words stay");
    }
    let ran = sandbox.quorum(
        &["report", dir.to_str().unwrap(), "--format", "md", "-o", "-"],
        &[],
    );
    let transcript = on_disk.trim_end();
    assert!(
        ran.stdout.contains(transcript),
        "the report's transcript is transcript.md"
    );
}

/// JM-34 (issue 55): the `--json` result of a panel that decides by scores
/// or votes says whether the debate paid (the plain vote beside the
/// verdict, the changes, the cost), and a protocol whose panel decides no
/// verdict says nothing of it.
#[test]
fn jm_34_the_json_result_says_whether_the_debate_paid() {
    for (protocol, pays) in [
        ("decision-review", true),
        ("council", true),
        ("plan", false),
    ] {
        let sandbox = Sandbox::new();
        let out = sandbox.out();
        let ran = sandbox.quorum(
            &[
                "demo",
                "--protocol",
                protocol,
                "--headless",
                "--json",
                "--speed",
                "50",
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        );
        let result: serde_json::Value = serde_json::from_str(&ran.stdout)
            .unwrap_or_else(|error| panic!("{protocol}: {error}: {}", ran.stdout));
        let payoff = &result["payoff"];
        assert_eq!(!payoff.is_null(), pays, "{protocol}: {result}");
        if pays {
            assert_eq!(payoff["decided"], result["verdict"], "{protocol}");
            assert!(
                payoff["votes"]
                    .as_array()
                    .is_some_and(|votes| !votes.is_empty())
            );
            assert!(
                payoff["after_vote"]["calls"]
                    .as_u64()
                    .is_some_and(|calls| calls > 0)
            );
        }
    }
}
