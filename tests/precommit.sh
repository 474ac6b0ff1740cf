#!/usr/bin/env bash
# The pre-commit hooks of .pre-commit-hooks.yaml, run by the real pre-commit
# (`pre-commit try-repo`) in a throwaway git repository: each hook fails on a
# staged finding and passes without one, and `idemlint-staged` ignores a
# problem that is only in the work tree. Run by .ci/run; without pre-commit
# on PATH it says SKIPPED and passes.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v pre-commit >/dev/null; then
    echo "SKIPPED tests/precommit.sh: pre-commit is not installed (.ci/run installs it)" >&2
    exit 0
fi

work=$(mktemp -d /tmp/idemlint-precommit.XXXXXX)
trap 'rm -rf "$work"' EXIT
export PRE_COMMIT_HOME="$work/pre-commit-home"
# `language: rust` builds the hook with `cargo install` (a release build).
# For the test, reuse one target directory and build at debug speed; a user's
# install is an ordinary release build.
export CARGO_TARGET_DIR="${IDEMLINT_PRECOMMIT_TARGET:-$repo/target/precommit}"
export CARGO_PROFILE_RELEASE_OPT_LEVEL=0
export CARGO_PROFILE_RELEASE_DEBUG=false
export CARGO_PROFILE_RELEASE_LTO=false
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256
export CARGO_PROFILE_RELEASE_INCREMENTAL=true
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
unset GITHUB_ACTIONS

sample="$work/sample"
mkdir -p "$sample/src"
cd "$sample"
git init -q -b main .
good='use stripe::Client;

pub fn replayed(resp: &reqwest::Response) -> bool {
    resp.headers().get("Idempotent-Replayed").is_some()
}
'
bad=${good//Idempotent-Replayed/Idempotency-Replayed}
printf '%s' "$good" > src/stripe.rs
git add src/stripe.rs
git commit -q -m init

failures=0
# expect STATUS HOOK DESCRIPTION: run the hook on what is staged
expect() {
    local want=$1 hook=$2 what=$3
    local log="$work/$hook.log" got=0
    pre-commit try-repo "$repo" "$hook" --verbose >"$log" 2>&1 || got=$?
    if { [ "$want" = fail ] && [ "$got" -eq 0 ]; } || { [ "$want" = pass ] && [ "$got" -ne 0 ]; }; then
        echo "FAIL tests/precommit.sh: $hook should $want ($what), exit $got:" >&2
        cat "$log" >&2
        failures=$((failures + 1))
    else
        echo "ok   $hook: $want ($what)"
    fi
}

# a staged finding fails both hooks
printf '%s' "$bad" > src/stripe.rs
git add src/stripe.rs
expect fail idemlint-staged "a staged finding"
expect fail idemlint "a staged finding"
for hook in idemlint-staged idemlint; do
    grep -q "Idempotency-Replayed" "$work/$hook.log" || {
        echo "FAIL tests/precommit.sh: $hook failed without naming the finding:" >&2
        cat "$work/$hook.log" >&2
        failures=$((failures + 1))
    }
done

# staged fixed, the problem left only in the work tree: the staged hook passes
printf '%s' "$good" > src/stripe.rs
git add src/stripe.rs
printf '%s' "$bad" > src/stripe.rs
expect pass idemlint-staged "the problem is not staged"
printf '%s' "$good" > src/stripe.rs
expect pass idemlint "nothing to find"

[ "$failures" -eq 0 ] || exit 1
echo "tests/precommit.sh: all hooks behave"
