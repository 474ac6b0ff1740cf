#!/usr/bin/env bash
# Build every fuzz target and run each for a short while (FUZZ_SECONDS,
# default 20) from the seed corpus. Used by .ci/run; needs a nightly
# toolchain (or RUSTC_BOOTSTRAP=1, see fuzz/README.md) and cargo-fuzz.
# FUZZ_DEADLINE (a Unix time) bounds the whole smoke: a build that cannot
# finish before it, or a target that would end after it, is skipped and
# said so, so CI keeps its time budget. The mutations come from a fixed
# FUZZ_SEED, so a smoke run is reproducible; long runs (fuzz/README.md)
# draw their own.
# Exit status: non-zero when a build fails or a target finds a crash.
set -euo pipefail
cd "$(dirname "$0")"
secs=${FUZZ_SECONDS:-20}
toolchain=${FUZZ_TOOLCHAIN:-+nightly}
deadline=${FUZZ_DEADLINE:-0}
# Optimised, with debug assertions (integer overflow panics), without a
# sanitizer: the code under test is safe Rust, and ASan would triple the
# cold build. FUZZ_TARGET_DIR keeps the build between runs.
flags=(-O -a -s none)
[ -n "${FUZZ_TARGET_DIR:-}" ] && flags+=(--target-dir "$FUZZ_TARGET_DIR")
./seed.sh >/dev/null
start=$(date +%s)
build=(cargo $toolchain fuzz build "${flags[@]}")
if [ "$deadline" -gt 0 ]; then
    left=$(( deadline - start ))
    [ "$left" -gt 60 ] || { echo "fuzz smoke: SKIPPED (no time left in the budget)"; exit 0; }
    status=0
    timeout "$left" "${build[@]}" || status=$?
    if [ "$status" -eq 124 ]; then
        echo "fuzz smoke: SKIPPED (the build did not finish within the budget, ${left} s)"
        exit 0
    fi
    [ "$status" -eq 0 ] || exit "$status"
else
    "${build[@]}"
fi
echo "fuzz build: $(( $(date +%s) - start )) s"
ran=0
skipped=()
for t in $(cargo $toolchain fuzz list); do
    if [ "$deadline" -gt 0 ] && [ $(( $(date +%s) + secs + 10 )) -gt "$deadline" ]; then
        skipped+=("$t")
        continue
    fi
    dict=dict/$t.dict
    t0=$(date +%s)
    log=$(mktemp)
    status=0
    cargo $toolchain fuzz run "${flags[@]}" "$t" corpus/"$t" -- \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=512 -seed="${FUZZ_SEED:-20261201}" \
        -dict="$dict" -print_final_stats=1 >"$log" 2>&1 || status=$?
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)|DONE|SUMMARY|panicked' "$log" || true
    [ "$status" -eq 0 ] || tail -n 40 "$log"
    rm -f "$log"
    echo "fuzz $t: $(( $(date +%s) - t0 )) s, exit $status"
    [ "$status" -eq 0 ] || { echo "fuzz $t found a crash: see fuzz/artifacts/$t" >&2; exit 1; }
    ran=$((ran + 1))
done
echo "fuzz smoke: $ran targets in $(( $(date +%s) - start )) s in all"
if [ "${#skipped[@]}" -gt 0 ]; then
    echo "fuzz smoke: not run within the budget: ${skipped[*]}"
fi
