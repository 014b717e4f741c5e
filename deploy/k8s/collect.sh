#!/usr/bin/env bash
# collect.sh turns the summaries task.sh leaves (N.json, one line each) into a table:
# index, exit status, cost, duration, turns, outcome, session; then a line of totals.
#
#   deploy/k8s/collect.sh [RESULTS-DIR]     the N.json files of a results folder
#                                           (default ./results)
#   … | deploy/k8s/collect.sh -             summary lines on stdin, e.g. the pods'
#                                           termination messages (README.md)
#
# It needs only bash, grep, sed and coreutils, like task.sh. Its exit status is
# 0 when every task succeeded, 1 when one failed, 2 when there was nothing to read.
set -uo pipefail
export LC_ALL=C # numbers with a dot, whatever the user's locale

src="${1:-results}"
if [ "$src" = - ]; then
  lines="$(grep '^{"index":' || true)"
else
  if [ ! -d "$src" ]; then
    echo "collect.sh: $src is not a folder of results" >&2
    exit 2
  fi
  lines="$(cat "$src"/*.json 2>/dev/null | grep '^{"index":' || true)"
fi
if [ -z "$lines" ]; then
  echo "collect.sh: no task summaries found in $src" >&2
  exit 2
fi

# field prints key's value from a summary line: a string without its quotes, or a
# number, true, false or null as written (task.sh writes strings without quotes or
# backslashes in them).
field() {
  printf '%s' "$1" | sed -nE "s/.*\"$2\":(\"([^\"]*)\"|([^,}]*)).*/\\2\\3/p"
}

total=0 failed=0 micro_sum=0 dur_sum=0 dur_max=0
printf '%-6s %-5s %-10s %-10s %-6s %-24s %s\n' INDEX EXIT COST_USD DURATION TURNS OUTCOME SESSION
while IFS= read -r line; do
  index="$(field "$line" index)"
  code="$(field "$line" exit_code)"
  cost="$(field "$line" total_cost_usd)"
  dur="$(field "$line" duration_ms)"
  turns="$(field "$line" num_turns)"
  outcome="$(field "$line" subtype)"
  session="$(field "$line" session_id)"
  note="$(field "$line" note)"
  [ "$outcome" = null ] && outcome="${note:-?}"
  [ "$session" = null ] && session=-
  total=$((total + 1))
  [ "$code" = 0 ] || failed=$((failed + 1))
  if [ "$cost" != null ]; then
    micro="$(printf '%.6f' "$cost")" # dollars to millionths, to add them as integers
    micro="${micro/./}"
    micro_sum=$((micro_sum + 10#$micro))
    cost="$(printf '%.4f' "$cost")"
  fi
  if [ "$dur" != null ]; then
    dur_sum=$((dur_sum + dur))
    [ "$dur" -gt "$dur_max" ] && dur_max="$dur"
    dur="$(printf '%d.%03ds' $((dur / 1000)) $((dur % 1000)))"
  fi
  [ "$cost" = null ] && cost=-
  [ "$dur" = null ] && dur=-
  [ "$turns" = null ] && turns=-
  printf '%-6s %-5s %-10s %-10s %-6s %-24s %s\n' "$index" "$code" "$cost" "$dur" "$turns" "$outcome" "$session"
done < <(printf '%s\n' "$lines" | sed -E 's/^\{"index":([0-9]+),/\1 &/' | sort -n -k1,1 | cut -d' ' -f2-)
printf 'tasks: %d, succeeded: %d, failed: %d; cost: $%d.%06d; duration: %d.%03ds in all, %d.%03ds the longest\n' \
  "$total" $((total - failed)) "$failed" $((micro_sum / 1000000)) $((micro_sum % 1000000)) $((dur_sum / 1000)) $((dur_sum % 1000)) $((dur_max / 1000)) $((dur_max % 1000))
[ "$failed" = 0 ]
