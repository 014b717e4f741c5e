#!/usr/bin/env bash
# The entry script of the gantry Indexed Job (deploy/k8s/README.md): runs task number
# $JOB_COMPLETION_INDEX of the tasks ConfigMap with gantry in print mode, and leaves its
# results where the Job collects them. It needs only bash, coreutils, sed, grep and git
# (the image's), no jq.
#
# A task is a set of files in $GANTRY_TASKS_DIR, named after its index N:
#   N.prompt  the prompt (required), given to gantry on stdin;
#   N.repo    a git URL to clone and work in (optional: without it the task works in an
#             empty folder);
#   N.ref     the branch or tag to clone (optional);
#   N.flags   more gantry flags for this task alone, split on white space, {index}
#             replaced as in GANTRY_EXTRA_FLAGS (optional).
#
# The environment (each optional but JOB_COMPLETION_INDEX):
#   JOB_COMPLETION_INDEX   the task's index (Kubernetes sets it in an Indexed Job);
#   GANTRY_TASKS_DIR       where the tasks ConfigMap is mounted (default /tasks);
#   GANTRY_RESULTS_DIR     where results go (default /results);
#   GANTRY_WORK_DIR        where the task's project is made (default /work): N/ under it;
#   GANTRY_EXTRA_FLAGS     gantry flags for every task, split on white space, with {index}
#                          replaced by the index: for the bounds of a build that has them,
#                          e.g. "--permission-mode yolo --max-cost 2 --max-duration 20m
#                          --session-dir /results/sessions/{index}". A value cannot hold a
#                          space; put such settings in the project's .gantry/config.yaml;
#   GANTRY_TERMINATION_LOG the file Kubernetes reads as the container's termination
#                          message (default /dev/termination-log): the summary is written
#                          there too when it exists;
#   GANTRY_DOCTOR          when not empty, `gantry doctor` runs in the task's folder first,
#                          its lines on stderr prefixed "gantry doctor: " (which sandbox
#                          the pod allows, and why).
#
# What it leaves, for index N:
#   stdout                    gantry's stream-json events, one JSON object a line;
#   stderr                    gantry's diagnostics (and this script's), not JSON;
#   $GANTRY_RESULTS_DIR/N.jsonl   the same events;
#   $GANTRY_RESULTS_DIR/N.stderr  the same diagnostics;
#   $GANTRY_RESULTS_DIR/N.json    a one-line summary: index, exit code, session id, cost,
#                                 duration, turns and outcome, from the final result event.
#
# Its exit status is gantry's (README "Exit status": 0 success, 1 error, 2 usage, 3 max
# turns, …, 130 interrupted), or its own when gantry never ran:
#   66  there is no task N (no N.prompt);
#   75  the repository could not be cloned (worth a retry).
set -uo pipefail

index="${JOB_COMPLETION_INDEX:?JOB_COMPLETION_INDEX is not set: run this script in an Indexed Job}"
if ! [[ $index =~ ^[0-9]+$ ]]; then
  echo "task.sh: JOB_COMPLETION_INDEX is $index, not a number" >&2
  exit 66
fi
tasks="${GANTRY_TASKS_DIR:-/tasks}"
results="${GANTRY_RESULTS_DIR:-/results}"
work="${GANTRY_WORK_DIR:-/work}"
termlog="${GANTRY_TERMINATION_LOG:-/dev/termination-log}"

started="$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)"
repo=""
code=0
note=""

# summary writes N.json (and the termination message) from the stream's last result
# event, and exits with the task's status. It runs few processes: the fields are read
# with bash's own regular expressions.
summary() {
  local stream="$results/$index.jsonl" line="" session="" cost=null duration=null turns=null subtype="" is_error=null
  if [ -s "$stream" ]; then
    # Blank every escape (\" \\ \n \u…) so that each remaining quote delimits a string;
    # then "key": matches only a real key, and the first match is the top level's (the
    # result event names its own fields before any nested tool input). The result is
    # the stream's last event.
    line="$(sed -E 's/\\./__/g' "$stream" | grep '"type":"result"' | tail -n 1)"
  fi
  if [ -n "$line" ]; then
    field_string session_id && session="$REPLY"
    field_string subtype && subtype="$REPLY"
    field_value total_cost_usd && cost="$REPLY"
    field_value duration_ms && duration="$REPLY"
    field_value num_turns && turns="$REPLY"
    field_value is_error && is_error="$REPLY"
  elif [ -z "$note" ]; then
    note="gantry printed no result event"
  fi
  local finished json qrepo qnote
  finished="$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)"
  json_string "$session"
  session="$REPLY"
  json_string "$subtype"
  subtype="$REPLY"
  json_string "$repo"
  qrepo="$REPLY"
  json_string "$note"
  qnote="$REPLY"
  printf -v json '{"index":%s,"exit_code":%s,"session_id":%s,"total_cost_usd":%s,"duration_ms":%s,"num_turns":%s,"subtype":%s,"is_error":%s,"repo":%s,"started_at":"%s","finished_at":"%s","note":%s}' \
    "$index" "$code" "$session" "$cost" "$duration" "$turns" "$subtype" "$is_error" "$qrepo" "$started" "$finished" "$qnote"
  printf '%s\n' "$json" >"$results/$index.json.tmp" && mv "$results/$index.json.tmp" "$results/$index.json"
  if [ -f "$termlog" ] && [ -w "$termlog" ]; then
    printf '%s\n' "$json" >"$termlog"
  fi
  exit "$code"
}

# field_string sets REPLY to the string value of key $1 in the blanked $line, and
# fails when there is none.
field_string() {
  local re="\"$1\":\"([^\"]*)\""
  [[ $line =~ $re ]] && REPLY="${BASH_REMATCH[1]}"
}

# field_value sets REPLY to the number, true or false of key $1 in the blanked $line,
# and fails when there is none.
field_value() {
  local re="\"$1\":(-?[0-9][0-9.eE+-]*|true|false)"
  [[ $line =~ $re ]] && REPLY="${BASH_REMATCH[1]}"
}

# json_string sets REPLY to $1 quoted as a JSON string, or to null for an empty one.
# Backslashes, quotes and control characters are dropped rather than escaped: the values
# are ids, names, URLs and this script's notes.
json_string() {
  if [ -z "$1" ]; then
    REPLY=null
    return
  fi
  local s="${1//[\\\"]/}"
  REPLY="\"${s//[[:cntrl:]]/}\""
}

fail() { # fail CODE MESSAGE: this script's own failure, before or instead of gantry
  code="$1"
  note="$2"
  printf 'task.sh: %s\n' "$note" >&2
  printf '%s\n' "$note" >>"$results/$index.stderr"
  summary
}

if ! mkdir -p "$results"; then
  echo "task.sh: cannot make the results folder $results" >&2
  exit 1
fi
: >"$results/$index.stderr"
rm -f "$results/$index.jsonl" "$results/$index.json"

prompt="$tasks/$index.prompt"
[ -s "$prompt" ] || fail 66 "there is no task $index: $prompt is missing or empty"
[ -f "$tasks/$index.repo" ] && repo="$(tr -d '[:space:]' <"$tasks/$index.repo")"

dir="$work/$index"
if [ -n "$repo" ]; then
  ref=""
  [ -f "$tasks/$index.ref" ] && ref="$(tr -d '[:space:]' <"$tasks/$index.ref")"
  rm -rf "$dir"
  clone=(git clone --quiet --depth 1)
  [ -n "$ref" ] && clone+=(--branch "$ref")
  if ! "${clone[@]}" -- "$repo" "$dir" 2>>"$results/$index.stderr"; then
    fail 75 "cannot clone $repo${ref:+ at $ref} (see $index.stderr)"
  fi
else
  mkdir -p "$dir" || fail 1 "cannot make the work folder $dir"
fi

if [ -n "${GANTRY_DOCTOR:-}" ]; then
  (cd "$dir" && gantry doctor 2>&1) | sed 's/^/gantry doctor: /' | tee -a "$results/$index.stderr" >&2
fi

# The flags: the Job's for every task, then the task's own; {index} is the index.
extra="${GANTRY_EXTRA_FLAGS:-}"
if [ -f "$tasks/$index.flags" ]; then
  extra="$extra $(tr '\n' ' ' <"$tasks/$index.flags")"
fi
extra="${extra//\{index\}/$index}"
read -r -a flags <<<"$extra"

# gantry writes into two pipes that tee copies to stdout/stderr and to the results
# folder; gantry runs in the background so that a SIGTERM (a deleted pod, the Job's
# deadline) reaches it: bash as a container's PID 1 would otherwise ignore it.
fifos="$(mktemp -d)" || fail 1 "cannot make a temporary folder"
mkfifo "$fifos/out" "$fifos/err" || fail 1 "cannot make pipes in $fifos"
tee "$results/$index.jsonl" <"$fifos/out" &
tee_out=$!
tee -a "$results/$index.stderr" <"$fifos/err" >&2 &
tee_err=$!
(cd "$dir" && exec gantry -p --output-format stream-json "${flags[@]}" <"$prompt") >"$fifos/out" 2>"$fifos/err" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null' TERM INT HUP
while :; do
  wait "$pid"
  code=$?
  kill -0 "$pid" 2>/dev/null || break # gone: code is its status; else a signal woke the wait
done
trap - TERM INT HUP
wait "$tee_out" "$tee_err"
rm -rf "$fifos"
summary
