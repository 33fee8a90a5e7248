//! Lays out the release binary's code in the order `link/quorum.order`
//! names its functions: those a debate runs first and side by side, the rest
//! after. The kernel maps a program's code 64 KB at a time around each
//! function it calls, so a headless review that runs 3 MB of the binary's
//! 13 MB of code otherwise has nearly all of it resident, scattered in the
//! order the compiler happened to emit it. `link/record-order` writes the
//! file; a function it does not name still links, after those it does.
//!
//! Only release links on x86_64 Linux with rustc 1.90 or later, which links
//! there with its own LLD, read the file: another linker (GNU ld, or one set
//! in `RUSTFLAGS`) may not know the option. Set `QUORUM_LINK_ORDER=0` to link
//! without it.

use std::path::Path;

fn main() {
    const ORDER: &str = "link/quorum.order";
    // A path that does not exist would run this script at every build.
    println!("cargo::rerun-if-changed=link");
    println!("cargo::rerun-if-env-changed=QUORUM_LINK_ORDER");

    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let release = var("PROFILE") == "release";
    let linked_by_lld = var("TARGET") == "x86_64-unknown-linux-gnu"
        && rustc_minor(&var("RUSTC")).is_some_and(|minor| minor >= 90)
        && !var("CARGO_ENCODED_RUSTFLAGS").contains("link")
        && std::env::var_os("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_none();
    let wanted = var("QUORUM_LINK_ORDER") != "0";
    let order = Path::new(&var("CARGO_MANIFEST_DIR")).join(ORDER);
    // `-Wl,` splits its argument at commas.
    let passable = !order.to_string_lossy().contains(',');
    if release && linked_by_lld && wanted && passable && order.is_file() {
        println!(
            "cargo::rustc-link-arg-bin=quorum=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        // Names of functions since renamed or inlined away are expected.
        println!("cargo::rustc-link-arg-bin=quorum=-Wl,--no-warn-symbol-ordering");
    }
}

/// The minor version of `rustc` (`95` of `rustc 1.95.0 (…)`).
fn rustc_minor(rustc: &str) -> Option<u32> {
    let output = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let version = text.split_whitespace().nth(1)?;
    let mut parts = version.split('.');
    (parts.next()? == "1").then_some(())?;
    parts.next()?.parse().ok()
}
