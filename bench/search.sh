#!/usr/bin/env bash
# Search speed: gantry's grep and glob (through `gantry tool`, a whole process each run,
# as rg and fd are) side by side with ripgrep and fd on the same trees, warm cache; then
# grep's memory on two huge files beside rg's (bench/grepmem.sh).
# Usage: bash bench/search.sh [RUNS]   (needs rg and fdfind: apt-get install ripgrep fd-find)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
out=bench/out
mkdir -p "$out"
CGO_ENABLED=1 go build -trimpath -tags netgo,osusergo -ldflags="-s -w -linkmode external -extldflags -static" -o "$out/gantry" ./cmd/gantry
# A binary fresh from the linker is counted ~20 MB larger in RSS until it is copied
# (its pages stay as the linker wrote them): measure a copy, as an installed one is.
cp "$out/gantry" "$out/gantry.copy" && mv "$out/gantry.copy" "$out/gantry"
g="$PWD/$out/gantry"
command -v rg >/dev/null && command -v fdfind >/dev/null || { echo "needs rg and fdfind" >&2; exit 1; }

. bench/measure.sh # run CMD…: median time and peak RSS

row() { # name target ours… -- theirs…
  local name=$1 target=$2; shift 2
  local ours=() theirs=()
  while [ "$1" != "--" ]; do ours+=("$1"); shift; done; shift
  theirs=("$@")
  read -r ot om < <(run "${ours[@]}")
  read -r tt tm < <(run "${theirs[@]}")
  awk -v n="$name" -v ot="$ot" -v om="$om" -v tt="$tt" -v tm="$tm" -v target="$target" \
    'BEGIN {printf "| %s | %.1f ms, %.1f MB | %.1f ms, %.1f MB | %.2f× | ≤ %s |\n", n, ot, om, tt, tm, ot/tt, target}'
}

for tree in "$(go env GOROOT)/src" "$(go env GOMODCACHE)"; do
  echo
  echo "### $tree ($(du -sh "$tree" | cut -f1), $(find "$tree" -type f | wc -l) files)"
  echo
  echo "| query | gantry | reference | ratio | target |"
  echo "| --- | --- | --- | --- | --- |"
  q() { printf '{"pattern":%s,"path":"%s","head_limit":1000000%s}' "$1" "$tree" "${2:-}"; }
  row 'grep literal `func main`' 1.3 "$g" tool grep "$(q '"func main"')" -- rg --no-config -l 'func main' "$tree"
  row 'grep -i literal `FUNC MAIN`' 1.3 "$g" tool grep "$(q '"FUNC MAIN"' ',"ignore_case":true')" -- rg --no-config -l -i 'FUNC MAIN' "$tree"
  row 'grep regex with a literal `func \w+Handler`' 1.3 "$g" tool grep "$(q '"func \\w+Handler"')" -- rg --no-config -l 'func \w+Handler' "$tree"
  row 'grep regex with an inner literal `\w+_test\(`' 1.3 "$g" tool grep "$(q '"\\w+_test\\("')" -- rg --no-config -l '\w+_test\(' "$tree"
  row 'grep regex with a one-byte literal `[0-9]{4}-[0-9]{2}-[0-9]{2}`' 2 "$g" tool grep "$(q '"[0-9]{4}-[0-9]{2}-[0-9]{2}"')" -- rg --no-config -l '[0-9]{4}-[0-9]{2}-[0-9]{2}' "$tree"
  row 'grep regex of classes only `[A-Z][a-z]+[0-9]{3}`' 2 "$g" tool grep "$(q '"[A-Z][a-z]+[0-9]{3}"')" -- rg --no-config -l '[A-Z][a-z]+[0-9]{3}' "$tree"
  row 'glob `**/*.go`' 1.3 "$g" tool glob "{\"pattern\":\"**/*.go\",\"path\":\"$tree\",\"limit\":1000000}" -- fdfind -e go . "$tree"
done

bash bench/grepmem.sh "$runs"
