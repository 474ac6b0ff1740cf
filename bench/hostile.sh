#!/usr/bin/env bash
# Hostile input and a synthetic 20,000-file tree: no panic, time and memory
# within bounds, the real finding still reported. Not part of CI:
# it builds in release mode and writes a few hundred MB to a temp directory.
#
#   bash bench/hostile.sh            # build, generate, measure, clean up
#   KEEP=1 bash bench/hostile.sh     # keep the generated trees (path printed)
#   FILES=50000 bash bench/hostile.sh
#
# Uses hyperfine for the quick cases when it is installed, GNU time
# (/usr/bin/time) for wall time and peak memory otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

FILES=${FILES:-20000}
RELEVANT_EVERY=${RELEVANT_EVERY:-20}   # one file in 20 mentions idempotency

cargo build --release --quiet
BIN=$PWD/target/release/idemlint
WORK=$(mktemp -d "${TMPDIR:-/tmp}/idemlint-bench.XXXXXX")
if [[ -z "${KEEP:-}" ]]; then trap 'rm -rf "$WORK"' EXIT; else echo "trees kept in $WORK"; fi

have_time=0; [[ -x /usr/bin/time ]] && have_time=1
have_hyperfine=0; command -v hyperfine >/dev/null && have_hyperfine=1

# ---------------------------------------------------------------- large repo
echo "generating a $FILES-file repository ..."
REPO=$WORK/repo
mkdir -p "$REPO"
gen_repo() {
    local i dir
    for ((i = 0; i < FILES; i++)); do
        dir=$REPO/crates/c$((i % 200))/src/m$((i % 7))
        [[ -d $dir ]] || mkdir -p "$dir"
        if ((i % RELEVANT_EVERY == 0)); then
            cat >"$dir/f$i.rs" <<RS
use stripe::Client;
pub const IDEMPOTENCY_KEY: &str = "Idempotency-Key";
pub async fn charge_$i(http: &reqwest::Client, key: &str) -> Result<bool, reqwest::Error> {
    let resp = http.post("https://api.stripe.com/v1/charges").header(IDEMPOTENCY_KEY, key).send().await?;
    Ok(resp.headers().get("Idempotent-Replayed").is_some())
}
RS
        elif ((i % 3 == 0)); then
            cat >"$dir/f$i.ts" <<TS
export function format$i(amount: number, currency: string): string {
  return new Intl.NumberFormat("en-GB", { style: "currency", currency }).format(amount / 100);
}
export const label$i = "order total";
TS
        else
            cat >"$dir/f$i.rs" <<RS
/// Money arithmetic in minor units.
pub fn add_$i(a: i64, b: i64) -> Option<i64> { a.checked_add(b) }
pub fn split_$i(total: i64, parts: i64) -> Vec<i64> {
    let base = total / parts;
    let rest = total % parts;
    (0..parts).map(|p| base + i64::from(p < rest)).collect()
}
RS
        fi
    done
    # one real finding
    printf 'use stripe::Client;\nfn r(resp: &reqwest::Response) -> bool {\n    resp.headers().get("Idempotency-Replayed").is_some()\n}\n' \
        >"$REPO/crates/c0/src/finding.rs"
}
gen_repo

# -------------------------------------------------------------- hostile tree
echo "generating the hostile tree ..."
set +o pipefail   # `yes | head` ends `yes` with SIGPIPE
H=$WORK/hostile
mkdir -p "$H/src" "$H/config" "$H/web" "$H/links"
rep() { local s=$1 n=$2; printf "%${n}s" "" | sed "s/ /$s/g"; }
{ printf 'idempotency\0'; head -c 65536 /dev/urandom; } >"$H/src/blob.rs"
printf '// idempotency \xff\xfe\nconst H: &str = "Idempotency-Key";\n' >"$H/src/latin1.rs"
{ printf 'fn idempotency() { let x = '; rep '(' 50000; printf 1; rep ')' 50000; printf '; }\n'; } >"$H/src/deep.rs"
{ printf 'fn idempotency() -> u32 { 1'; rep ' + 1' 1000000; printf ' }\n'; } >"$H/src/long_chain.rs"
{ rep '[' 50000; printf '"idempotency"'; rep ']' 50000; } >"$H/config/deep.json"
{ printf 'idempotency: '; rep '[' 50000; printf x; rep ']' 50000; echo; } >"$H/config/deep.yaml"
{ printf 'idempotency:\n  '; rep '- ' 50000; echo x; } >"$H/config/deep_block.yaml"
{ printf 'idempotency = '; rep '[' 50000; printf 1; rep ']' 50000; echo; } >"$H/config/deep.toml"
{
    echo 'idempotency: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'
    prev=a
    for cur in b c d e f g h i j; do
        echo "$cur: &$cur [*$prev,*$prev,*$prev,*$prev,*$prev,*$prev,*$prev,*$prev,*$prev]"
        prev=$cur
    done
} >"$H/config/bomb.yaml"
yes 'const IDEMPOTENCY_NOTE: &str = "idempotency"; // padding' | head -c $((40 * 1024 * 1024)) >"$H/src/huge.rs"
{ printf 'var idempotency=['; yes '"Idempotency-Key",1,' | tr -d '\n' | head -c $((20 * 1024 * 1024)); printf '0];'; } >"$H/web/bundle.min.js"
# the largest files each front end parses (Rust 4 MiB, YAML/JSON 4 MiB,
# TOML 2 MiB), on one line, and files just over those limits
{ printf '{"idempotency":['; yes '{"a":"b","c":[1,2,3]},' | tr -d '\n' | head -c $((3900 * 1024)); printf '0]}'; } >"$H/config/minified.json"
{ printf '{"idempotency":['; yes '{"a":"b","c":[1,2,3]},' | tr -d '\n' | head -c $((12 * 1024 * 1024)); printf '0]}'; } >"$H/config/over_limit.json"
{ printf 'const IDEMPOTENCY: [u32; 0] = []; fn f() {'; yes 'let a = 1; ' | tr -d '\n' | head -c $((3900 * 1024)); printf '}'; } >"$H/src/one_line.rs"
{ printf 'const IDEMPOTENCY: [u32; 0] = []; fn f() {'; yes 'let a = 1; ' | tr -d '\n' | head -c $((12 * 1024 * 1024)); printf '}'; } >"$H/src/over_limit.rs"
{ printf 'idempotency = ['; yes '1,2,3,' | tr -d '\n' | head -c $((1900 * 1024)); printf '0]\n'; } >"$H/config/big.toml"
printf '\xef\xbb\xbf{"idempotency": {"header": "Idempotency-Key"}}\n' >"$H/config/bom.json"
printf 'idempotency:\r\n  header: Idempotency-Key\r\n' >"$H/config/crlf.yaml"
ln -s b "$H/links/a"; ln -s a "$H/links/b"; ln -s . "$H/links/self"; ln -s nowhere.rs "$H/links/dangling.rs"
printf 'use stripe::Client;\nfn r(resp: &reqwest::Response) -> bool {\n    resp.headers().get("Idempotency-Replayed").is_some()\n}\n' >"$H/src/stripe_client.rs"

set -o pipefail

# ------------------------------------------------------------------ measure
# measure NAME TARGET_S TARGET_MIB -- command...
fail=0
measure() {
    local name=$1 target_s=$2 target_mib=$3; shift 4
    local wall kib
    if ((have_time)); then
        /usr/bin/time -o "$WORK/time" -f '%e %M' "$@" >/dev/null 2>"$WORK/err" || true
        wall=$(awk '{print $1}' "$WORK/time" | tail -n1)
        kib=$(awk '{print $2}' "$WORK/time" | tail -n1)
    else
        local t0 t1
        t0=$(date +%s.%N); "$@" >/dev/null 2>"$WORK/err" || true; t1=$(date +%s.%N)
        wall=$(awk "BEGIN{print $t1 - $t0}"); kib=0
    fi
    if grep -q panicked "$WORK/err"; then echo "!! $name: panic"; cat "$WORK/err"; fail=1; fi
    local mib=$((kib / 1024))
    local ok="ok"
    if awk "BEGIN{exit !($wall > $target_s)}"; then ok="OVER TARGET"; fail=1; fi
    if ((target_mib > 0 && mib > target_mib)); then ok="OVER TARGET"; fail=1; fi
    printf '%-34s %8.2f s (target < %s s)   %6d MiB (target < %s MiB)   %s\n' \
        "$name" "$wall" "$target_s" "$mib" "$target_mib" "$ok"
}

echo
echo "idemlint $($BIN --version | awk '{print $2}'), $(nproc) cores"
# pre-commit: a handful of staged files
PRE=("$REPO/crates/c0/src/finding.rs" "$REPO/crates/c0/src/m0/f0.rs" "$REPO/crates/c1/src/m1/f1.rs")
if ((have_hyperfine)); then
    hyperfine --warmup 3 -N -i "$BIN check --isolated ${PRE[*]}" \
        "$BIN check --isolated --fail-on never $REPO"
fi
measure "pre-commit (3 files)" 0.1 100 -- "$BIN" check --isolated --fail-on never "${PRE[@]}"
measure "repository ($FILES files)" 5 1024 -- "$BIN" check --isolated --fail-on never "$REPO"
measure "hostile tree" 60 2048 -- "$BIN" check --isolated --fail-on never "$H"

# the finding in each tree is still reported
"$BIN" check --isolated --fail-on never --format json "$REPO" | grep -q '"path": *"[^"]*finding.rs"' \
    || { echo "!! the real finding in the repository was not reported"; fail=1; }
"$BIN" check --isolated --fail-on never --format json "$H" | grep -q '"path": *"[^"]*stripe_client.rs"' \
    || { echo "!! the real finding in the hostile tree was not reported"; fail=1; }

exit $fail
