#!/usr/bin/env bash
# Build every fuzz target and run each for a short while (FUZZ_SECONDS,
# default 20) from the seed corpus. Used by .ci/run; needs a nightly
# toolchain (or RUSTC_BOOTSTRAP=1, see fuzz/README.md) and cargo-fuzz.
# Exit status: non-zero when a build fails or a target finds a crash.
set -euo pipefail
cd "$(dirname "$0")"
secs=${FUZZ_SECONDS:-20}
toolchain=${FUZZ_TOOLCHAIN:-+nightly}
./seed.sh >/dev/null
start=$(date +%s)
cargo $toolchain fuzz build -O
echo "fuzz build: $(( $(date +%s) - start )) s"
for t in $(cargo $toolchain fuzz list); do
    dict=dict/$t.dict
    t0=$(date +%s)
    log=$(mktemp)
    status=0
    cargo $toolchain fuzz run -O "$t" corpus/"$t" -- \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=512 \
        -dict="$dict" -print_final_stats=1 >"$log" 2>&1 || status=$?
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)|DONE|SUMMARY|panicked' "$log" || true
    [ "$status" -eq 0 ] || tail -n 40 "$log"
    rm -f "$log"
    echo "fuzz $t: $(( $(date +%s) - t0 )) s, exit $status"
    [ "$status" -eq 0 ] || { echo "fuzz $t found a crash: see fuzz/artifacts/$t" >&2; exit 1; }
done
echo "fuzz smoke: $(( $(date +%s) - start )) s in all"
