package hooktool

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/hook"
	"github.com/gantry-dev/gantry/internal/tool"
)

// newRunner is a Runner with one PreToolUse hook from the settings, in dir.
func newRunner(dir string) *hook.Runner {
	cfg := map[string][]config.HookMatcher{hook.PreToolUse: {{
		Matcher: "bash|write_file",
		Hooks:   []config.Hook{{Type: "command", Command: "sh .gantry/guard.sh", Timeout: 30, OnFailure: "block"}},
	}}}
	return hook.NewRunner(cfg, hook.Base{SessionID: "s", Cwd: dir})
}

// decode decodes args for register_hook over r.
func decode(t *testing.T, r *hook.Runner, args string) (tool.Invocation, string) {
	t.Helper()
	return Tool(r).Decode(tool.Env{Cwd: t.TempDir()}, json.RawMessage(args))
}

// call decodes and runs args, failing the test if they are refused.
func call(t *testing.T, r *hook.Runner, args string) tool.Result {
	t.Helper()
	inv, msg := decode(t, r, args)
	if msg != "" {
		t.Fatalf("refused %s: %s", args, msg)
	}
	return inv.Run(t.Context())
}

// Missing or wrong arguments are refused in one sentence naming them.
func TestArgumentErrors(t *testing.T) {
	t.Parallel()
	r := newRunner(t.TempDir())
	cases := map[string]string{
		`{}`:                                     `needs the argument "action"`,
		`{"action":"install"}`:                   `register_hook has no action "install"; it has register, list, remove and help.`,
		`{"action":"register"}`:                  `register needs the arguments "event" and "command", which are missing.`,
		`{"action":"register","event":"Stop"}`:   `register needs the argument "command", which is missing.`,
		`{"action":"register","command":"true"}`: `register needs the argument "event", which is missing.`,
		`{"action":"register","event":"Stop","command":"  "}`:              `needs the argument "command"`,
		`{"action":"register","event":"AfterAll","command":"true"}`:        `argument "event" must be one of "SessionStart"`,
		`{"action":"register","event":"Stop","command":"x","timeout":0}`:   `must be at least 1`,
		`{"action":"register","event":"Stop","command":"x","timeout":601}`: `must be at most 600`,
		`{"action":"remove"}`:                          `remove needs the arguments "event" and "index", which are missing.`,
		`{"action":"remove","event":"Stop"}`:           `remove needs the argument "index", which is missing.`,
		`{"action":"remove","event":"Stop","index":0}`: `must be at least 1`,
	}
	for in, want := range cases {
		_, msg := decode(t, r, in)
		if !strings.Contains(msg, want) {
			t.Errorf("%s: got %q, want %q", in, msg, want)
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("%s: more than one line: %q", in, msg)
		}
	}
}

// The tool is level exec, kind other; its principal is the command for register and
// the action otherwise.
func TestMetadataAndPrincipal(t *testing.T) {
	t.Parallel()
	r := newRunner(t.TempDir())
	tl := Tool(r)
	if tl.Name() != "register_hook" || tl.Level() != tool.LevelExec || tl.Kind() != tool.KindOther {
		t.Errorf("got %s %v %s", tl.Name(), tl.Level(), tl.Kind())
	}
	if !strings.Contains(tl.Spec().Description, "help") {
		t.Errorf("description %q", tl.Spec().Description)
	}
	for args, want := range map[string]string{
		`{"action":"register","event":"Stop","command":"make lint"}`: "make lint",
		`{"action":"list"}`:                            "list",
		`{"action":"remove","event":"Stop","index":1}`: "remove",
		`{"action":"help"}`:                            "help",
	} {
		inv, msg := decode(t, r, args)
		if msg != "" || inv.Principal != want {
			t.Errorf("%s: principal %q (%s), want %q", args, inv.Principal, msg, want)
		}
	}
}

// register adds a session hook that runs at its event; list shows it beside the
// settings' hooks; remove takes it away.
func TestRegisterListRemove(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := newRunner(dir)

	res := call(t, r, `{"action":"register","event":"PostToolUse","command":"touch ran","timeout":5}`)
	if res.IsError || res.Text != "Registered hook 1 for PostToolUse: touch ran" {
		t.Fatalf("register: %+v", res)
	}
	r.Run(t.Context(), hook.PostToolUse, "bash", nil)
	if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil {
		t.Error("the registered hook did not run")
	}

	res = call(t, r, `{"action":"list"}`)
	lines := strings.Split(res.Text, "\n")
	if res.IsError || len(lines) != 3 {
		t.Fatalf("list: %q", res.Text)
	}
	for i, want := range [][]string{
		{"EVENT", "INDEX", "SOURCE", "MATCHER", "TIMEOUT", "ON FAILURE", "COMMAND"},
		{"PreToolUse", "-", "config", "bash|write_file", "30s", "block", "sh .gantry/guard.sh"},
		{"PostToolUse", "1", "session", "*", "5s", "warn", "touch ran"},
	} {
		if got := strings.Join(strings.Fields(lines[i]), " "); got != strings.Join(want, " ") {
			t.Errorf("list line %d: %q, want %q", i, got, strings.Join(want, " "))
		}
	}

	res = call(t, r, `{"action":"remove","event":"PostToolUse","index":1}`)
	if res.IsError || res.Text != "Removed hook 1 for PostToolUse: touch ran" {
		t.Fatalf("remove: %+v", res)
	}
	if r.Has(hook.PostToolUse) {
		t.Error("the hook is still there")
	}
	res = call(t, r, `{"action":"remove","event":"PostToolUse","index":1}`)
	if !res.IsError || !strings.Contains(res.Text, "Nothing was removed: there is no session hook for PostToolUse") {
		t.Errorf("remove again: %+v", res)
	}
}

// list with no hook says how to add one.
func TestListEmpty(t *testing.T) {
	t.Parallel()
	res := call(t, hook.NewRunner(nil, hook.Base{}), `{"action":"list"}`)
	if res.IsError || !strings.HasPrefix(res.Text, "No hooks are set.") {
		t.Errorf("got %+v", res)
	}
}

// help prints the protocol.
func TestHelp(t *testing.T) {
	t.Parallel()
	res := call(t, newRunner(t.TempDir()), `{"action":"help"}`)
	if res.IsError || res.Text != hook.Help() {
		t.Errorf("got %+v", res)
	}
}
