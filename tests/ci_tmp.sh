#!/usr/bin/env bash
# .ci/run leaves nothing behind in the temporary directory: its setup
# (a PostgreSQL cluster, the pre-commit virtualenv) is run on its own
# (IDEMLINT_CI_STEPS=setup) with TMPDIR pointing at an empty directory,
# once to its end and once stopped by SIGTERM, and the directory must be
# empty after each. Run by .ci/run; the outer run's own tools are taken
# off PATH so the inner one makes its own.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
outer=$(mktemp -d "${TMPDIR:-/tmp}/idemlint-citmp.XXXXXX")
trap 'rm -rf "$outer"' EXIT
path=$PATH
if [ -n "${IDEMLINT_CI_TMP:-}" ]; then
    path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v "^$IDEMLINT_CI_TMP" | paste -sd: -)
fi
failures=0
left() {
    local what=$1 dir=$2
    if [ -n "$(ls -A "$dir")" ]; then
        echo "FAIL tests/ci_tmp.sh: $what left behind:" >&2
        find "$dir" -maxdepth 2 >&2
        failures=$((failures + 1))
    else
        echo "ok   $what: nothing left in the temporary directory"
    fi
}

tmp="$outer/run"
mkdir "$tmp"
chmod 755 "$outer" "$tmp"
env -u IDEMLINT_CI_TMP PATH="$path" TMPDIR="$tmp" IDEMLINT_CI_STEPS=setup \
    bash "$repo/.ci/run" >"$outer/run.log" 2>&1 || {
    echo "FAIL tests/ci_tmp.sh: the setup failed:" >&2
    cat "$outer/run.log" >&2
    exit 1
}
grep -q '^PostgreSQL ' "$outer/run.log" || { cat "$outer/run.log" >&2; exit 1; }
left "a setup run to its end" "$tmp"

# Stopped while PostgreSQL runs: the cluster is stopped and removed too.
tmp="$outer/term"
mkdir "$tmp"
chmod 755 "$tmp"
env -u IDEMLINT_CI_TMP PATH="$path" TMPDIR="$tmp" IDEMLINT_CI_STEPS=setup \
    bash -c 'exec bash "$1" & pid=$!
        for _ in $(seq 1 300); do
            [ -n "$(find "$TMPDIR" -name postmaster.pid 2>/dev/null)" ] && break
            sleep 0.1
        done
        kill -TERM "$pid"; wait "$pid"' _ "$repo/.ci/run" >"$outer/term.log" 2>&1 || true
left "a setup stopped by SIGTERM" "$tmp"

[ "$failures" -eq 0 ] || exit 1
echo "tests/ci_tmp.sh: .ci/run removes what it makes"
