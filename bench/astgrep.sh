#!/usr/bin/env bash
# Structural search speed: gantry's ast_grep (through `gantry tool`, a whole process per
# run) beside the ast-grep CLI (pinned in internal/astmatch/testdata/astgrep) on the
# same trees, warm cache, the same matches on both sides (checked: the counts of matches
# are printed). Go: the toolchain's sources; Python: Debian's dist-packages; TypeScript:
# the test clients' node_modules (copied out of the repository, whose .gitignore would
# hide them from both tools).
# Usage: bash bench/astgrep.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
out=bench/out
mkdir -p "$out"
CGO_ENABLED=1 go build -trimpath -tags netgo,osusergo -ldflags="-s -w -linkmode external -extldflags -static" -o "$out/gantry" ./cmd/gantry
# A binary fresh from the linker is counted ~20 MB larger in RSS until it is copied
# (its pages stay as the linker wrote them): measure a copy, as an installed one is.
cp "$out/gantry" "$out/gantry.copy" && mv "$out/gantry.copy" "$out/gantry"
g="$PWD/$out/gantry"
sg="$PWD/internal/astmatch/testdata/astgrep/node_modules/.bin/ast-grep"
[ -x "$sg" ] || npm ci --no-audit --no-fund --prefix internal/astmatch/testdata/astgrep >/dev/null
. bench/measure.sh # run CMD…: median time and peak RSS

ts=$(mktemp -d)
trap 'rm -rf "$ts"' EXIT
for d in internal/mcpclient/testdata/everything/node_modules cmd/gantry/testdata/acp-client/node_modules; do
  [ -d "$d" ] && cp -r "$d" "$ts/$(basename "$(dirname "$d")")"
done

# gantry's count of matches, from its summary line or its listing.
gcount() { "$@" | awk '/^\(/ && match($0, /[0-9]+ matches in/) {print substr($0, RSTART, RLENGTH-11); found=1} END {if (!found) print "≤1000"}'; }
sgcount() { "$@" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }

row() { # name tree lang pattern [context selector]
  local name=$1 tree=$2 lang=$3 pat=$4 ctx=${5:-} sel=${6:-}
  local q ours theirs
  q=$(python3 -c 'import json,sys; print(json.dumps({"pattern": sys.argv[1], "path": sys.argv[2], "language": sys.argv[3], "max_results": 1}))' "$pat" "$tree" "$lang")
  ours=("$g" tool ast_grep "$q")
  if [ -n "$ctx" ]; then
    theirs=("$sg" scan --inline-rules "$(printf 'id: b\nlanguage: %s\nrule:\n  pattern:\n    context: %s\n    selector: %s\n' "$lang" "$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$ctx")" "$sel")" --json=compact "$tree")
  else
    theirs=("$sg" run --pattern "$pat" --lang "$lang" --json=compact "$tree")
  fi
  read -r ot om < <(run "${ours[@]}")
  read -r tt tm < <(run "${theirs[@]}")
  local on tn
  on=$(gcount "${ours[@]}")
  tn=$(sgcount "${theirs[@]}")
  awk -v n="$name" -v ot="$ot" -v om="$om" -v tt="$tt" -v tm="$tm" -v on="$on" -v tn="$tn" \
    'BEGIN {printf "| %s | %.0f ms, %.0f MB, %s | %.0f ms, %.0f MB, %s | %.2f× |\n", n, ot, om, on, tt, tm, tn, ot/tt}'
}

echo "| pattern (tree) | gantry: time, peak RSS, matches | ast-grep: time, peak RSS, matches | ratio |"
echo "| --- | --- | --- | --- |"
G="$(go env GOROOT)/src"
row '`fmt.Println($$$A)` (Go sources)' "$G" go 'fmt.Println($$$A)' 'func t() { fmt.Println($$$A) }' call_expression
row '`if err != nil { return $E }` (Go sources)' "$G" go 'if err != nil { return $E }'
P=/usr/lib/python3/dist-packages
if [ -d "$P" ]; then
  row '`isinstance($X, $T)` (Python dist-packages)' "$P" python 'isinstance($X, $T)'
  row '`def $F(self): $$$B` (Python dist-packages)' "$P" python 'def $F(self): $$$B'
fi
row '`$A as $T` (TypeScript node_modules)' "$ts" typescript '$A as $T'
row '`interface $I { $$$M }` (TypeScript node_modules)' "$ts" typescript 'interface $I { $$$M }'
