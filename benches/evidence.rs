//! Checking citations (issue 52): 1,000 citations an answer might make,
//! checked against a 50 MB source tree.
//!
//! The tree is generated: 2,500 files of about 20 KB of code-like lines
//! (the size of a mid-sized service's repository), written to a temporary
//! folder and walked as `--repo` walks one (git's ignore rules, links not
//! followed). The citations are what agents write: 400 quotes of a line
//! that is there (a third of them re-spaced or in curly quotes), 200 spans
//! with the text of their lines, 200 bare spans, 100 quotes of text that is
//! nowhere (each looked for in every source, the costly case) and 100
//! spans of files that do not exist.
//!
//! Printed: the time to walk and index the tree, the median time to check
//! all 1,000 (target: under a second), and both as ratios to one plain
//! `memmem` pass over the tree's text, the least any check of a quote that
//! is nowhere can cost. Run with `cargo bench --bench evidence`.

use std::time::{Duration, Instant};

use quorum::evidence::sources::Tree;
use quorum::evidence::{RepoLimits, Sources};
use quorum::parse::citations::{Citation, Lines};

const FILES: usize = 2_500;
const FILE_BYTES: usize = 20 << 10;
const RUNS: usize = 7;

fn line(file: usize, at: usize) -> String {
    format!(
        "    let value_{file}_{at} = compute(&ctx.registry_{}, \"key-{file}-{at}\").await?; // step {at}",
        at % 17
    )
}

fn write_tree(root: &std::path::Path) {
    for file in 0..FILES {
        let dir = root.join(format!("pkg{:02}", file % 50));
        std::fs::create_dir_all(&dir).unwrap();
        let mut text = String::with_capacity(FILE_BYTES + 200);
        let mut at = 0;
        while text.len() < FILE_BYTES {
            text.push_str(&line(file, at));
            text.push('\n');
            at += 1;
        }
        std::fs::write(dir.join(format!("mod{file}.rs")), text).unwrap();
    }
}

fn citations() -> Vec<Citation> {
    let mut out = Vec::with_capacity(1_000);
    let mut rng = fastrand::Rng::with_seed(52);
    let name = |file: usize| format!("pkg{:02}/mod{file}.rs", file % 50);
    for n in 0..400 {
        let (file, at) = (rng.usize(..FILES), rng.usize(..150));
        let mut quote = line(file, at).trim().to_string();
        if n % 3 == 0 {
            quote = quote.replace(' ', "  ").replace('"', "“");
        }
        out.push(Citation {
            source: name(file),
            lines: None,
            quote: Some(quote),
        });
    }
    for n in 0..400 {
        let (file, at) = (rng.usize(..FILES), rng.usize(..150));
        out.push(Citation {
            source: name(file),
            lines: Some(Lines {
                first: at as u32 + 1,
                last: at as u32 + 2,
            }),
            quote: (n % 2 == 0).then(|| line(file, at).trim().to_string()),
        });
    }
    for n in 0..100 {
        out.push(Citation {
            source: name(rng.usize(..FILES)),
            lines: None,
            quote: Some(format!("pool exhausted after {n} retries in worker {n}")),
        });
    }
    for n in 0..100 {
        out.push(Citation {
            source: format!("vendor/missing{n}.go"),
            lines: Some(Lines { first: 1, last: 3 }),
            quote: None,
        });
    }
    out
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(dir.path());
    let limits = RepoLimits::default();

    let start = Instant::now();
    let tree = Tree::walk(dir.path(), limits).unwrap();
    let walked = start.elapsed();
    let bytes = tree.record.bytes;
    let start = Instant::now();
    let sources = Sources::new(Vec::new(), Some(tree));
    let indexed = start.elapsed();

    let text: String = sources
        .list()
        .map(|(name, ..)| sources.text(name).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let needle = "this text occurs nowhere in the tree at all";
    let scan = median(
        (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(memchr::memmem::find(text.as_bytes(), needle.as_bytes()));
                start.elapsed()
            })
            .collect(),
    );

    let cited = citations();
    let mut tally = (0, 0);
    let check = median(
        (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                let checked = sources.check(&cited);
                let took = start.elapsed();
                tally = (
                    checked.iter().filter(|c| c.status.verified()).count(),
                    checked.iter().filter(|c| c.status.failed()).count(),
                );
                took
            })
            .collect(),
    );

    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "tree: {} files, {:.1} MB",
        sources.list().count(),
        bytes as f64 / 1e6
    );
    println!(
        "walk {:.0} ms, index {:.0} ms ({:.0}x one scan)",
        ms(walked),
        ms(indexed),
        ms(indexed) / ms(scan)
    );
    println!(
        "check {} citations: {:.1} ms median of {RUNS} ({:.1}x one scan of {:.2} ms); {} verified, {} failed",
        cited.len(),
        ms(check),
        ms(check) / ms(scan),
        ms(scan),
        tally.0,
        tally.1
    );
}
