#!/bin/sh
# Seed fuzz/corpus/<target>/ from testdata/ (by file kind) and from the
# committed regression inputs. Corpora are not committed: run this first.
# Usage: fuzz/seed.sh            (from anywhere in the repository)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
corpus="$root/fuzz/corpus"
seed() { # target, find arguments...
    t=$1; shift
    mkdir -p "$corpus/$t"
    find "$root/testdata/rules" "$root/testdata/projects" -type f "$@" \
        -exec sh -c 'for f; do cp "$f" "$0/$(printf %s "$f" | cksum | cut -d" " -f1)"; done' "$corpus/$t" {} +
    if [ -d "$root/testdata/fuzz-regressions/$t" ]; then
        cp "$root/testdata/fuzz-regressions/$t/"* "$corpus/$t/"
    fi
}
seed rust -name '*.rs'
seed sql -name '*.sql'
seed redis_conf -name '*.conf'
seed yaml \( -name '*.yaml' -o -name '*.yml' -o -name '*.tpl' \)
seed json -name '*.json'
seed toml -name '*.toml' ! -name 'idemlint.toml'
seed hcl -name '*.tf'
seed env \( -name '.env' -o -name '.env.*' -o -name '*.env' \)
seed text \( -name '*.ts' -o -name '*.py' -o -name '*.go' -o -name '*.java' -o -name '*.md' -o -name 'nginx.conf' \)
seed prisma -name '*.prisma'
seed typescript \( -name '*.ts' -o -name '*.tsx' -o -name '*.js' \)
seed python -name '*.py'
seed go -name '*.go'
seed suppressions \( -name '*.rs' -o -name '*.sql' -o -name '*.yaml' \)
seed config \( -name 'idemlint.toml' -o -name '.idemlint.toml' \)
mkdir -p "$corpus/duration"
for d in 24h 30d 72h 1h30m "1 day 2 hours" "7 days" PT24H P30D P1DT12H 86400 "00:05:00" \
         "interval '7 days'" "'24 hours'" 1.5h 0 2w 3mons 1y 500ms; do
    printf %s "$d" > "$corpus/duration/$(printf %s "$d" | cksum | cut -d' ' -f1)"
done
cp "$root/testdata/fuzz-regressions/duration/"* "$corpus/duration/"
mkdir -p "$corpus/pipeline"
for t in rust sql redis_conf yaml json toml hcl env text prisma typescript python go suppressions config duration; do
    printf '%s: %s files\n' "$t" "$(ls "$corpus/$t" | wc -l)"
done
