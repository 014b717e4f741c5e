#!/usr/bin/env bash
# Memory on huge files: peak RSS and wall time of `gantry tool grep` (a whole process each
# run) on a 200 MB file of 80-byte lines and on a 200 MB file that is one line, beside rg
# on the same files, warm cache. rg maps a file it is named, so its RSS counts the pages of
# the file it touched; with --no-mmap it reads as gantry does (and grows its buffer to
# hold a long line). The files are made in a temporary folder, removed at the end.
# Usage: bash bench/grepmem.sh [RUNS]   (needs rg: apt-get install ripgrep)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
out=bench/out
mkdir -p "$out"
CGO_ENABLED=1 go build -trimpath -tags netgo,osusergo -ldflags="-s -w -linkmode external -extldflags -static" -o "$out/gantry" ./cmd/gantry
# A binary fresh from the linker is counted ~20 MB larger in RSS until it is copied
# (its pages stay as the linker wrote them): measure a copy, as an installed one is.
cp "$out/gantry" "$out/gantry.copy" && mv "$out/gantry.copy" "$out/gantry"
g="${GANTRY_BIN:-$PWD/$out/gantry}" # GANTRY_BIN=path measures another build (an older one) instead
command -v rg >/dev/null || { echo "needs rg" >&2; exit 1; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

# needle_start near the start, needle_middle in the middle, needle_end near the end.
half=$((100 << 20))
line='the quick brown fox jumps over the lazy dog; 0123456789 abcdefghijklmnopqrstuvw' # 79 bytes
n=$((half / 80))
rep() { yes "$line" | head -n "$1" || true; }          # $1 lines
flat() { yes "$line" | tr -d '\n' | head -c "$1" || true; } # $1 bytes, no line break
{ rep 12; echo "needle_start ${line:13}"; rep $((n - 13)); echo "needle_middle ${line:14}"
  rep $((n - 13)); echo "needle_end ${line:11}"; rep 11; } >"$d/lines.txt"
{ flat 1000; printf ' needle_start '; flat $((half - 1014)); printf ' needle_middle '
  flat $((half - 1015)); printf ' needle_end '; flat 988; echo; } >"$d/oneline.txt"

. bench/measure.sh # run CMD…: median time and peak RSS

# row FILE PATTERN MODE CONTEXT RG-FLAGS…
row() {
  local f=$1 p=$2 mode=$3 c=$4; shift 4
  read -r ot om < <(run "$g" tool grep "{\"pattern\":\"$p\",\"path\":\"$d/$f\",\"output_mode\":\"$mode\",\"context\":$c}")
  read -r tt tm < <(run rg --no-config "$@" "$p" "$d/$f")
  read -r nt nm < <(run rg --no-config --no-mmap "$@" "$p" "$d/$f")
  local name="$f: $mode"
  [ "$c" = 0 ] || name+=" -C$c"
  awk -v n="$name \`$p\`" -v ot="$ot" -v om="$om" -v tt="$tt" -v tm="$tm" -v nt="$nt" -v nm="$nm" \
    'BEGIN {printf "| %s | %.1f ms, %.1f MB | %.1f ms, %.1f MB | %.1f ms, %.1f MB | ≤ 64 MB |\n", n, ot, om, tt, tm, nt, nm}'
}

echo
echo "### Huge files (200 MB each): peak memory"
echo
echo "| file: query | gantry | rg | rg --no-mmap | target (gantry) |"
echo "| --- | --- | --- | --- | --- |"
for f in lines.txt oneline.txt; do
  row "$f" needle_start files_with_matches 0 -l
  row "$f" needle_end count 0 -c
  row "$f" needle_middle content 0 -n
  row "$f" needle_end content 2 -n -C2
  row "$f" absent content 0 -n
done
