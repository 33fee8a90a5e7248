#!/usr/bin/env bash
# Runs every fuzz target for a while: `fuzz/run-all.sh [SECONDS]` (600 by
# default). Needs the nightly toolchain and cargo-fuzz (`cargo install
# cargo-fuzz`). Crashes land in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-600}"
for target in agent_answers item_counts user_files sse_streams journal sanitizer templates debate_notes report_cells; do
    mkdir -p "corpus/$target"
    cargo +nightly fuzz run "$target" "corpus/$target" -- -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -timeout=10
done
