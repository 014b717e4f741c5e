package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

type flags struct {
	print              bool
	outputFormat       string
	provider, model    string
	permissionMode     string
	allow, deny        multi
	sandbox            optBool
	maxTurns           int
	systemPrompt       string
	appendSystemPrompt string
	cont               bool
	resume             string
	fork               bool
	cwd                string
	interactive        bool
	vibe               bool
	trust              bool
	trustGiven         bool // --trust or --trust=false was given: the folder's trust is not asked
	refuseQuestions    bool
	prompt             string
	limits             // --max-cost, --max-duration, --output-schema, --session-dir (bounds.go)
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

var errHelp = errors.New("help")

const usageText = `gantry — a coding agent for the terminal and the editor

Usage:
  gantry [flags]                  at a terminal, with no prompt: the terminal UI
  gantry -p "PROMPT" [flags]      run one task in print mode (piped stdin goes after the prompt,
                                  or is the prompt when none is given)
  gantry acp [flags]              serve the Agent Client Protocol on stdin/stdout (for editors)
  gantry mcp [flags]              serve gantry's tools over MCP on stdin/stdout (for other agents)
      --http HOST:PORT            … over streamable HTTP at http://HOST:PORT/mcp instead (a
                                  loopback address; port 0 picks a free one, said on stderr)
      --listen HOST:PORT          … the same on any address, named explicitly
      --token-file FILE           the bearer token HTTP clients must send (else GANTRY_MCP_TOKEN)
      --idle-timeout DURATION     close an HTTP session idle this long (default 30m; 0: never)
  gantry sessions [--limit N] [--json] [--session-dir DIR]
                                  list stored sessions, newest first (--json for scripts;
                                  --session-dir: those of runs given it)
  gantry rewind [--list] [N] [--files-only|--conversation-only] [--force]
                                  the checkpoints of this folder's live session; its files and
                                  conversation brought back to before prompt N
  gantry tool [--no-rules] [--trust] NAME ['JSON']
                                  run one tool without a model (gantry tool list [--mcp]
                                  [--json] lists every tool; gantry tool NAME --help shows
                                  its arguments); deny rules hold unless --no-rules; a
                                  folder's project MCP servers start only in a trusted
                                  folder or with --trust
  gantry prompt [--permission-mode MODE] [--json]
                                  what a session here sends the model first: the system
                                  prompt and each tool's schema, with their tokens
  gantry doctor                   what is in force here: sandbox, supervisor, namespaces, …
  gantry plugin add [--project] PATH|GIT-URL|NAME@MARKETPLACE | list | remove [--project] NAME
                                  the plugins enabled for the user (or this project); a git
                                  URL is cloned into the user's plugins folder (docs/plugins.md)
  gantry plugin marketplace add PATH|GIT-URL|OWNER/REPO|NAME | list | remove NAME
                                  the marketplaces gantry knows; a git one is cloned
  gantry version                  print the version (also --version, -v)

A sub-command's flags may come before or after its other arguments; -- ends the flags.

Flags:
  -p, --print                     print mode: run the prompt to the end, no UI
      --output-format FORMAT      text (default), json or stream-json
      --provider NAME             anthropic, openai (Responses API) or openai-chat (Chat Completions)
      --model NAME                the model to use
      --permission-mode MODE      default, accept-edits, plan or yolo
      --allow RULE                allow without asking: "tool" or "tool:regex" (repeatable)
      --deny RULE                 refuse at once: "tool" or "tool:regex" (repeatable)
      --sandbox                   run commands in the sandbox (on by default in yolo where one
                                  can be made; --sandbox=false turns it off)
      --max-turns N               stop after N model responses (default 100)
      --system-prompt TEXT        replace gantry's base system prompt
      --append-system-prompt TEXT append to the system prompt
  -c, --continue                  continue the last session of this folder
  -r, --resume [ID]               resume a session by id or unique prefix (no id: the most recent)
      --fork                      with --continue or --resume: go on in a new session copied from
                                  that one (which may be running elsewhere)
  -C, --cwd DIR                   work in DIR instead of the current folder
  -i, --interactive               ask permission, ask_user questions and plan approval at the terminal
      --trust                     run this folder's .mcp.json servers, project hooks, Claude env and
                                  .gantry config without asking whether to trust it (this session);
                                  in print mode --trust=false runs none of them without asking
      --refuse-questions          print mode without -i: refuse what would ask a person (the model
                                  is told, the run goes on) instead of ending with exit status 5
      --vibe                      vibe mode: the model may start background workers by tier
                                  (models.fast, models.good); /vibe in the terminal UI
      --output-schema FILE        print mode: the final answer must be JSON conforming to the JSON
                                  Schema in FILE (validated; asked again once; else exit 8)
      --max-cost USD              print mode: stop once the session has cost more than USD (exit 6)
      --max-duration DURATION     print mode: stop the run after DURATION, e.g. 10m (exit 7)
      --session-dir DIR           keep the session store (sessions.db, checkpoints, outputs) in DIR
                                  instead of the data folder; --continue/--resume look there
  -h, --help                      this help

Environment: GANTRY_PROVIDER, GANTRY_MODEL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,
OPENAI_API_KEY, OPENAI_BASE_URL, GANTRY_MCP_TOKEN, GANTRY_CONFIG_DIR, GANTRY_DATA_DIR, XDG_CONFIG_HOME,
XDG_DATA_HOME, NO_COLOR. See the README for the config files.
`

func usage(w io.Writer) { fmt.Fprint(w, usageText) }

// parseFlags reads flags anywhere among the arguments (parseArgs); the words left
// over form the prompt. A bare --resume (no id) means the most recent session.
func parseFlags(args []string) (*flags, error) {
	f := &flags{}
	fs := flag.NewFlagSet("gantry", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&f.print, "p", false, "")
	fs.BoolVar(&f.print, "print", false, "")
	fs.StringVar(&f.outputFormat, "output-format", "text", "")
	fs.StringVar(&f.provider, "provider", "", "")
	fs.StringVar(&f.model, "model", "", "")
	fs.StringVar(&f.permissionMode, "permission-mode", "", "")
	fs.Var(&f.allow, "allow", "")
	fs.Var(&f.deny, "deny", "")
	fs.Var(&f.sandbox, "sandbox", "")
	fs.IntVar(&f.maxTurns, "max-turns", 0, "")
	fs.StringVar(&f.systemPrompt, "system-prompt", "", "")
	fs.StringVar(&f.appendSystemPrompt, "append-system-prompt", "", "")
	fs.BoolVar(&f.cont, "continue", false, "")
	fs.BoolVar(&f.cont, "c", false, "")
	fs.StringVar(&f.resume, "resume", "", "")
	fs.StringVar(&f.resume, "r", "", "")
	fs.BoolVar(&f.fork, "fork", false, "")
	fs.StringVar(&f.cwd, "cwd", "", "")
	fs.StringVar(&f.cwd, "C", "", "")
	fs.BoolVar(&f.interactive, "interactive", false, "")
	fs.BoolVar(&f.interactive, "i", false, "")
	fs.BoolVar(&f.vibe, "vibe", false, "")
	fs.BoolVar(&f.trust, "trust", false, "")
	fs.BoolVar(&f.refuseQuestions, "refuse-questions", false, "")
	addLimitFlags(fs, &f.limits)

	words, err := parseArgs(fs, bareResume(args))
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, errHelp
		}
		return nil, flagError(err)
	}
	fs.Visit(func(fl *flag.Flag) { f.trustGiven = f.trustGiven || fl.Name == "trust" })
	if f.maxTurns < 0 {
		return nil, fmt.Errorf("--max-turns must be positive")
	}
	if err := checkFlags(f); err != nil {
		return nil, err
	}
	f.prompt = strings.Join(words, " ")
	return f, nil
}

// badValue is the flag package's message for a value it cannot parse.
var badValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^invalid value "(.*)" for flag -(\S+): (.*)$`) })

// badBool is its message for a switch given a value that is not true or false.
var badBool = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^invalid boolean value "(.*)" for -(\S+): `) })

// flagError says a flag mistake plainly: which flag, and what it takes.
func flagError(err error) error {
	if m := badBool().FindStringSubmatch(err.Error()); m != nil {
		name := dashed(m[2])
		return fmt.Errorf("%s is on or off: give %s or %s=false, not %q", name, name, name, m[1])
	}
	m := badValue().FindStringSubmatch(err.Error())
	if m == nil {
		if s, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
			return fmt.Errorf("unknown flag --%s (gantry --help lists them)", strings.TrimPrefix(s, "-"))
		}
		if s, ok := strings.CutPrefix(err.Error(), "flag needs an argument: -"); ok {
			return fmt.Errorf("--%s needs a value", strings.TrimPrefix(s, "-"))
		}
		return err
	}
	name := dashed(m[2])
	if strings.Contains(m[3], "parse error") || strings.Contains(m[3], "invalid syntax") || strings.Contains(m[3], "out of range") {
		return fmt.Errorf("%s takes a whole number, not %q", name, m[1])
	}
	return fmt.Errorf("%s: %s", name, m[3])
}

// dashed is a flag's name as people type it: -p, --print.
func dashed(name string) string {
	if len(name) > 1 {
		return "--" + name
	}
	return "-" + name
}

// checkFlags refuses flag values that cannot work, before anything starts: each is a
// usage error (exit 2) naming the flag.
func checkFlags(f *flags) error {
	if f.permissionMode != "" {
		if _, err := permission.ParseMode(f.permissionMode); err != nil {
			return fmt.Errorf("--permission-mode: %v", err)
		}
	}
	for _, r := range f.allow {
		if _, err := permission.ParseRuleFrom(r, "--allow"); err != nil {
			return err
		}
	}
	for _, r := range f.deny {
		if _, err := permission.ParseRuleFrom(r, "--deny"); err != nil {
			return err
		}
	}
	if f.cwd != "" {
		dir := tool.ExpandHome(f.cwd)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("-C %s: not an existing folder", f.cwd)
		}
		f.cwd = dir
	}
	return f.limits.check()
}

// bareResume turns a --resume with no value into --resume=@last.
func bareResume(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--resume" || a == "-resume" || a == "-r" || a == "--r" {
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") || !looksLikeID(args[i+1]) {
				out = append(out, a+"=@last")
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

// looksLikeID: session ids are short words of letters, digits, dashes.
func looksLikeID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// optBool is a boolean flag that may be left unset (--sandbox, --sandbox=false).
type optBool struct {
	set, val bool
}

func (b *optBool) String() string   { return strconv.FormatBool(b.val) }
func (b *optBool) IsBoolFlag() bool { return true }
func (b *optBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true or false, not %q", s)
	}
	b.set, b.val = true, v
	return nil
}

// ptr is the flag's value, or nil when it was not given.
func (b optBool) ptr() *bool {
	if !b.set {
		return nil
	}
	v := b.val
	return &v
}

// printJSON prints v as indented JSON for the sub-command cmd and returns its exit
// status.
func printJSON(cmd string, v any) int {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		fmt.Fprintf(os.Stderr, "gantry %s: %s\n", cmd, sentence(err))
		return 1
	}
	fmt.Println(string(b))
	return 0
}
