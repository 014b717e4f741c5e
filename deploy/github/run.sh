#!/usr/bin/env bash
# The GitHub Action's run step (action.yml): reads the event that started the workflow,
# decides whether gantry has something to do, runs `gantry -p` in the checked-out
# repository with stream-json output, and posts the final answer as a comment on the
# issue or pull request. Every value comes from the environment: the action's inputs as
# INPUT_* (action.yml maps each one), GitHub's own GITHUB_* and RUNNER_TEMP, and
# GANTRY_BIN, the binary the install steps made. deploy/github/README.md says what each
# input does; deploy/github/action_test.go runs this script against fake events.
set -euo pipefail

# marker ends every comment the action posts, so that a run started by one of them
# (a token that may start workflows, a copy of the comment) skips it.
marker='<!-- gantry-action -->'
# max_comment is how much of the answer a comment carries: GitHub refuses bodies over
# 65536 characters, and the footer needs room.
max_comment=60000

die() {
  echo "::error::$*" >&2
  exit 1
}

# output NAME VALUE appends one step output, multi-line safe, to $GITHUB_OUTPUT.
output() {
  local delim
  delim="gantry_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
  case "$2" in *"$delim"*) die "the output $1 holds its own delimiter" ;; esac
  printf '%s<<%s\n%s\n%s\n' "$1" "$delim" "$2" "$delim" >>"$GITHUB_OUTPUT"
}

# skip ends the step without running gantry, saying why in the log and the summary.
skip() {
  echo "gantry skipped: $1"
  output skipped true
  printf '### gantry\n\nSkipped: %s\n' "$1" >>"$GITHUB_STEP_SUMMARY"
  exit 0
}

# api METHOD PATH [BODY-FILE] calls GitHub's REST API with the token and prints the
# answer; any status but 2xx fails the step with GitHub's message. The token goes to
# curl on its standard input, never on its command line.
api() {
  local method=$1 path=$2 body=${3:-} out status msg
  out=$(mktemp "$work/api.XXXXXX")
  local data=()
  if [ -n "$body" ]; then data=(--data-binary "@$body"); fi
  status=$(printf 'header = "Authorization: Bearer %s"\n' "$INPUT_GITHUB_TOKEN" |
    curl -sS --config - -X "$method" -o "$out" -w '%{http_code}' \
      -H 'Accept: application/vnd.github+json' -H 'X-GitHub-Api-Version: 2022-11-28' \
      -H 'Content-Type: application/json' ${data[@]+"${data[@]}"} \
      "$GITHUB_API_URL$path") || die "GitHub's API could not be reached for $method $path (curl failed)"
  if [ "${status:0:1}" != 2 ]; then
    msg=$(jq -r '.message // empty' "$out" 2>/dev/null || true)
    [ -n "$msg" ] || msg=$(head -c 300 "$out")
    die "GitHub's API answered $method $path with $status: $msg"
  fi
  cat "$out"
}

# is_mentioned TEXT says whether TEXT holds the trigger phrase as a word of its own
# (any case; "@gantry," counts, "@gantry-bot" and "me@gantry" do not).
is_mentioned() {
  jq -n --arg text "$1" --arg phrase "$INPUT_TRIGGER_PHRASE" '
    ($phrase | explode | map(if ([.] | implode | test("[.*+?^$(){}|\\[\\]\\\\/-]")) then [92, .] else [.] end) | add | implode) as $re
    | $text | test("(^|\\s)" + $re + "([\\s.,!?;:]|$)"; "i")' | grep -qx true
}

: "${GITHUB_EVENT_NAME:?}" "${GITHUB_EVENT_PATH:?}" "${GITHUB_OUTPUT:?}" "${GITHUB_STEP_SUMMARY:?}"
: "${GITHUB_API_URL:=https://api.github.com}" "${GITHUB_SERVER_URL:=https://github.com}"
: "${INPUT_TRIGGER_PHRASE:=@gantry}" "${INPUT_ALLOWED_ASSOCIATIONS:=OWNER,MEMBER,COLLABORATOR}"
: "${INPUT_PROMPT:=}" "${INPUT_MODEL:=}" "${INPUT_PROVIDER:=}" "${INPUT_PERMISSION_MODE:=}"
: "${INPUT_ALLOW:=}" "${INPUT_DENY:=}" "${INPUT_MAX_TURNS:=}" "${INPUT_ARGS:=}" "${INPUT_TRUST:=false}"
: "${INPUT_COMMENT:=true}" "${INPUT_GITHUB_TOKEN:=}" "${INPUT_WORKING_DIRECTORY:=${GITHUB_WORKSPACE:-$PWD}}"
: "${GANTRY_BIN:=gantry}"
work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/gantry.XXXXXX")

# What the event is about: the text that may mention gantry, who wrote it, and the issue
# or pull request an answer goes to. Events without one (workflow_dispatch, push,
# schedule, …) run the prompt input alone.
# One jq reads them all, as shell words (@sh quotes each value); an event file it cannot
# read fails the step.
number='' text='' login='' user_type='' association='' is_pr=false reply_to=''
fields=$(jq -r --arg event "$GITHUB_EVENT_NAME" '
  (if $event == "issue_comment" then
    {number: .issue.number, text: .comment.body, user: .comment.user, association: .comment.author_association,
     is_pr: (.issue.pull_request != null)}
  elif $event == "pull_request_review_comment" then
    {number: .pull_request.number, text: .comment.body, user: .comment.user, association: .comment.author_association,
     is_pr: true, reply_to: .comment.id}
  elif $event == "issues" then
    {number: .issue.number, text: "\(.issue.title // "")\n\(.issue.body // "")", user: .issue.user,
     association: .issue.author_association}
  elif $event == "pull_request" or $event == "pull_request_target" then
    {number: .pull_request.number, text: "\(.pull_request.title // "")\n\(.pull_request.body // "")",
     user: .pull_request.user, association: .pull_request.author_association, is_pr: true}
  else {} end) as $f
  | @sh "number=\($f.number // "") text=\($f.text // "") login=\($f.user.login // "") user_type=\($f.user.type // "")",
    @sh "association=\($f.association // "") is_pr=\($f.is_pr // false) reply_to=\($f.reply_to // "")"
' "$GITHUB_EVENT_PATH") || die "the event file $GITHUB_EVENT_PATH cannot be read as JSON"
eval "$fields"

if [ -z "$number" ]; then
  [ -n "$INPUT_PROMPT" ] || die "the prompt input is empty: a $GITHUB_EVENT_NAME run has no comment to answer, so it needs one"
  printf '%s\n' "$INPUT_PROMPT" >"$work/prompt.txt"
else
  # Who may start a run: never a bot (the action's own comments among them), and only
  # an author whose association with the repository is allowed.
  if [ "$user_type" = Bot ] || [[ "$login" == *"[bot]" ]]; then
    skip "the $GITHUB_EVENT_NAME was written by a bot ($login)"
  fi
  case "$text" in *"$marker"*) skip "the $GITHUB_EVENT_NAME is one of gantry's own answers" ;; esac
  if [ "$INPUT_ALLOWED_ASSOCIATIONS" != '*' ] &&
    ! tr ',' '\n' <<<"$INPUT_ALLOWED_ASSOCIATIONS" | tr -d ' ' | grep -qixF -- "${association:-NONE}"; then
    skip "$login's association with the repository (${association:-NONE}) is not one of allowed_associations ($INPUT_ALLOWED_ASSOCIATIONS)"
  fi
  mention=false
  if [ -n "$INPUT_PROMPT" ]; then
    prompt=$INPUT_PROMPT
  elif is_mentioned "$text"; then
    prompt=$text mention=true
  else
    skip "the $GITHUB_EVENT_NAME does not mention $INPUT_TRIGGER_PHRASE"
  fi

  # The context: what the request is about, where the change is, where the answer goes.
  kind=issue
  if [ "$is_pr" = true ]; then
    kind='pull request'
    if [ "$GITHUB_EVENT_NAME" = issue_comment ]; then
      api GET "/repos/$GITHUB_REPOSITORY/pulls/$number" >"$work/pr.json"
    else
      jq .pull_request "$GITHUB_EVENT_PATH" >"$work/pr.json"
    fi
  fi
  # A mention in an issue's or pull request's own text is the request whole; otherwise
  # the description is context.
  describe=true
  if [ "$mention" = true ]; then
    case "$GITHUB_EVENT_NAME" in issues | pull_request | pull_request_target) describe=false ;; esac
  fi
  {
    printf '%s\n\n---\n' "$prompt"
    printf 'You are gantry, run by a GitHub workflow on %s #%s of %s' "$kind" "$number" "$GITHUB_REPOSITORY"
    if [ "$mention" = true ]; then
      printf ': %s mentioned you as %s, and the text above is theirs.\n' "$login" "$INPUT_TRIGGER_PHRASE"
    else
      printf ' (the %s event, by %s).\n' "$GITHUB_EVENT_NAME" "$login"
    fi
    jq -r '"Title: \(.issue.title // .pull_request.title // "")\nLink: \(.issue.html_url // .pull_request.html_url // "")"' "$GITHUB_EVENT_PATH"
    if [ "$is_pr" = true ]; then
      jq -r '"Base: \(.base.ref) at \(.base.sha)\nHead: \(.head.ref) at \(.head.sha)\nThe change is `git diff \(.base.sha)...\(.head.sha)` (fetch those commits first if the checkout lacks them)."' "$work/pr.json"
    fi
    if [ -n "$reply_to" ]; then
      jq -r '"The comment is on \(.comment.path), line \(.comment.line // .comment.original_line // "?"), in this part of the diff:\n```diff\n\(.comment.diff_hunk // "")\n```"' "$GITHUB_EVENT_PATH"
    fi
    if [ "$describe" = true ]; then
      jq -r '(.issue.body // .pull_request.body // "")[:20000] | select(length > 0) | "Its description:\n\(.)"' "$GITHUB_EVENT_PATH"
    fi
    if [ "$INPUT_COMMENT" = true ]; then
      printf 'Your final answer is posted as a comment on the %s: write it for the people there.\n' "$kind"
    fi
  } >"$work/prompt.txt"
fi

# The command: print mode, stream-json, the inputs as flags, the prompt on stdin (an
# argument is limited to 128 KB on Linux, a comment and its context need not be).
args=(-p --output-format stream-json)
if [ -n "$INPUT_MODEL" ]; then args+=(--model "$INPUT_MODEL"); fi
if [ -n "$INPUT_PROVIDER" ]; then args+=(--provider "$INPUT_PROVIDER"); fi
if [ -n "$INPUT_PERMISSION_MODE" ]; then args+=(--permission-mode "$INPUT_PERMISSION_MODE"); fi
if [ -n "$INPUT_MAX_TURNS" ]; then args+=(--max-turns "$INPUT_MAX_TURNS"); fi
# Nobody is there to ask whether the folder's project files may run: the input says.
if [ "$INPUT_TRUST" = true ]; then args+=(--trust); else args+=(--trust=false); fi
# allow and deny hold one rule a line.
while IFS= read -r rule; do
  if [ -n "${rule//[[:space:]]/}" ]; then args+=(--allow "$rule"); fi
done <<<"$INPUT_ALLOW"
while IFS= read -r rule; do
  if [ -n "${rule//[[:space:]]/}" ]; then args+=(--deny "$rule"); fi
done <<<"$INPUT_DENY"
if [ -n "${INPUT_ARGS//[[:space:]]/}" ]; then
  # Split as a shell would (quotes and backslashes), without expanding anything.
  printf '%s' "$INPUT_ARGS" | xargs printf '%s\0' >"$work/args" ||
    die "the args input cannot be split into words (an unmatched quote?): $INPUT_ARGS"
  while IFS= read -r -d '' a; do args+=("$a"); done <"$work/args"
fi

[ -d "$INPUT_WORKING_DIRECTORY" ] || die "the working directory $INPUT_WORKING_DIRECTORY does not exist (did a checkout step run?)"
log=$work/stream.jsonl
echo "gantry: running in $INPUT_WORKING_DIRECTORY for the $GITHUB_EVENT_NAME event; its stream-json log is $log"
set +e
# The GitHub token is for this script alone: gantry and what it runs never see it.
(cd "$INPUT_WORKING_DIRECTORY" && env -u INPUT_GITHUB_TOKEN -u GITHUB_TOKEN -u GH_TOKEN \
  -u ACTIONS_RUNTIME_TOKEN -u ACTIONS_ID_TOKEN_REQUEST_TOKEN \
  "$GANTRY_BIN" "${args[@]}" <"$work/prompt.txt" >"$log" 2>"$work/stderr")
code=$?
set -e
if [ -s "$work/stderr" ]; then
  # What gantry said on stderr may quote the model: no workflow command in it may run.
  stop="gantry_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
  echo "::stop-commands::$stop"
  cat "$work/stderr"
  echo "::$stop::"
fi

# The answer: the stream's last result line (none when gantry stopped before a turn),
# and the session's id from any line that has one; lines that are not JSON are passed.
# With --output-schema in args, the result also holds the answer as JSON.
result='' subtype='' failure='' session='' structured=''
fields=$(jq -rRn '[inputs | fromjson? | select(type == "object")] as $events
  | ($events | map(select(.type == "result")) | last // {}) as $r
  | ($events | map(.session_id | select(type == "string" and length > 0)) | last // "") as $session
  | @sh "result=\($r.result // "") subtype=\($r.subtype // "") failure=\($r.error // "") session=\($session)",
    @sh "structured=\($r.structured_output | if . == null then "" else tojson end)"' "$log") || die "the log $log cannot be read"
eval "$fields"
if [ "$code" -ne 0 ] && [ -z "$failure" ]; then
  failure=$(grep -v '^[[:space:]]*$' "$work/stderr" | tail -n 1 || true)
fi

output skipped false
output result "$result"
output structured_output "$structured"
output session_id "$session"
output exit_code "$code"
output log "$log"
# shellcheck disable=SC2016 # the backquotes are Markdown's
{
  printf '### gantry\n\n'
  printf -- '- event: `%s`%s\n' "$GITHUB_EVENT_NAME" "${number:+ on #$number}"
  printf -- '- exit code: %s%s\n' "$code" "${subtype:+ ($subtype)}"
  printf -- '- session: `%s`\n' "${session:-none}"
  printf -- '- stream-json log: `%s`\n\n' "$log"
  if [ -n "$failure" ]; then printf '**gantry stopped:** %s\n\n' "$failure"; fi
  printf '%s\n' "$result"
} >>"$GITHUB_STEP_SUMMARY"

if [ -n "$number" ] && [ "$INPUT_COMMENT" = true ]; then
  [ -n "$INPUT_GITHUB_TOKEN" ] || die "the github_token input is empty: the answer cannot be posted"
  answer=$result
  if [ "${#answer}" -gt "$max_comment" ]; then
    answer="${answer:0:$max_comment}"$'\n\n'"(cut at $max_comment characters: the whole answer is in the run's summary and log)"
  fi
  if [ "$code" -ne 0 ]; then
    stopped="**gantry stopped** (exit code $code${subtype:+, $subtype}): ${failure:-see the log of the run}"
    if [ -n "$answer" ]; then answer="$stopped"$'\n\n'"$answer"; else answer=$stopped; fi
  fi
  run_url="$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/${GITHUB_RUN_ID:-0}"
  footer=$'\n\n'"<sub>gantry · session \`${session:-none}\` · [run]($run_url)</sub>"$'\n'"$marker"
  jq -n --arg body "$answer$footer" '{body: $body}' >"$work/comment.json"
  if [ -n "$reply_to" ]; then
    path="/repos/$GITHUB_REPOSITORY/pulls/$number/comments/$reply_to/replies"
  else
    path="/repos/$GITHUB_REPOSITORY/issues/$number/comments"
  fi
  url=$(api POST "$path" "$work/comment.json" | jq -r '.html_url // empty')
  echo "gantry: answered on #$number${url:+: $url}"
  output comment_url "$url"
fi

[ "$code" -eq 0 ] || die "gantry exited with $code${subtype:+ ($subtype)}: ${failure:-its output above says why}"
