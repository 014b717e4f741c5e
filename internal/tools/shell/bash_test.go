package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Seed 002, bash, "Shell": `bash -c <command>`.
func TestBashRunsCommandWithBashC(t *testing.T) {
	t.Parallel()
	res := bash(t, t.TempDir(), map[string]any{"command": `[[ -n $BASH_VERSION ]] && echo "$0 ok"`})
	if res.IsError || res.Text != "bash ok" {
		t.Fatalf("got %q (error %v), want %q", res.Text, res.IsError, "bash ok")
	}
}

// Seed 002, bash, "Shell": a new shell per call — cd and variables do not carry over.
func TestBashNewShellPerCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bash(t, dir, map[string]any{"command": "cd /; export GANTRY_TEST_VAR=set"})
	res := bash(t, dir, map[string]any{"command": `pwd; echo "${GANTRY_TEST_VAR:-unset}"`})
	if want := dir + "\nunset"; res.Text != want {
		t.Fatalf("got %q, want %q", res.Text, want)
	}
}

// Seed 002, bash, "Shell": no stdin — read gets end of file at once.
func TestBashHasNoStdin(t *testing.T) {
	t.Parallel()
	start := time.Now()
	res := bash(t, t.TempDir(), map[string]any{"command": `read x; echo "read=$? x=[$x]"; cat; echo done`, "timeout": 5})
	if res.Text != "read=1 x=[]\ndone" {
		t.Fatalf("got %q", res.Text)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("reading stdin took %v; it should get end of file at once", d)
	}
}

// Seed 002, bash, "Working directory": the session cwd, or cwd resolved against it.
func TestBashWorkingDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	cases := []struct {
		cwd  any
		want string
	}{
		{nil, dir},
		{"sub", sub},
		{other, other},
	}
	for _, c := range cases {
		args := map[string]any{"command": "pwd"}
		if c.cwd != nil {
			args["cwd"] = c.cwd
		}
		if res := bash(t, dir, args); res.Text != c.want || res.IsError {
			t.Errorf("cwd %v: got %q, want %q", c.cwd, res.Text, c.want)
		}
	}
	for _, bad := range []string{"missing", "file"} {
		res := bash(t, dir, map[string]any{"command": "pwd", "cwd": bad})
		want := filepath.Join(dir, bad)
		if !res.IsError || !strings.Contains(res.Text, want) || strings.Count(res.Text, "\n") > 0 || !strings.HasSuffix(res.Text, ".") {
			t.Errorf("cwd %q: got %q (error %v), want one sentence naming %s", bad, res.Text, res.IsError, want)
		}
	}
}

// Seed 002, bash, "Timeout": the output ends with `[error: Ns timeout exceeded]`.
func TestBashTimeoutText(t *testing.T) {
	t.Parallel()
	start := time.Now()
	res := bash(t, t.TempDir(), map[string]any{"command": "echo before; sleep 30", "timeout": 1})
	if want := "before\n[error: 1s timeout exceeded]"; res.Text != want || !res.IsError {
		t.Fatalf("got %q (error %v), want %q", res.Text, res.IsError, want)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("a 1 s timeout took %v", d)
	}
}

// The default timeout comes from Options (config bash.timeout).
func TestBashDefaultTimeoutFromOptions(t *testing.T) {
	t.Parallel()
	bashTool := toolNamed(t, Options{DefaultTimeout: time.Second}, "bash")
	res := call(t, t.Context(), bashTool, tool.Env{Cwd: t.TempDir()}, map[string]any{"command": "sleep 30"})
	if want := "(no output)\n[error: 1s timeout exceeded]"; res.Text != want {
		t.Fatalf("got %q, want %q", res.Text, want)
	}
	if !strings.Contains(bashTool.Spec().Description, "default 1,") {
		t.Errorf("description does not give the default timeout: %s", bashTool.Spec().Description)
	}
}

// Seed 002, bash, "Output": stdout and stderr merged in the order written.
func TestBashMergesOutputInOrder(t *testing.T) {
	t.Parallel()
	res := bash(t, t.TempDir(), map[string]any{"command": "echo 1; echo 2 >&2; echo 3; echo 4 >&2; printf 5 >&2"})
	if res.Text != "1\n2\n3\n4\n5" {
		t.Fatalf("got %q", res.Text)
	}
}

// Seed 002, bash, "Output": truncated — the capture keeps head and tail in bounded
// memory, and the caller's tool.Bound brings it to maxOutput.
func TestBashTruncatesLargeOutput(t *testing.T) {
	t.Parallel()
	cmd := `echo FIRST; head -c 6000000 /dev/zero | tr '\0' x; echo; echo LAST`
	res := bash(t, t.TempDir(), map[string]any{"command": cmd})
	if len(res.Text) > captureHead+captureTail+200 {
		t.Fatalf("captured %d bytes, more than the cap", len(res.Text))
	}
	if !strings.HasPrefix(res.Text, "FIRST\n") || !strings.HasSuffix(res.Text, "\nLAST") {
		t.Fatalf("head or tail lost: %q … %q", res.Text[:20], res.Text[len(res.Text)-20:])
	}
	if !strings.Contains(res.Text, "bytes of output dropped here") {
		t.Fatal("no line says that output was dropped")
	}
	bounded := tool.Bound(res.Text, 30000)
	if n := len([]rune(bounded)); n > 30200 || !strings.HasPrefix(bounded, "FIRST") || !strings.HasSuffix(bounded, "LAST") {
		t.Fatalf("bounded to %d characters, head/tail kept: %v/%v", n, strings.HasPrefix(bounded, "FIRST"), strings.HasSuffix(bounded, "LAST"))
	}
}

// Seed 002, bash, "Non-zero exit": `[exit code: exit status N]`.
func TestBashNonZeroExitText(t *testing.T) {
	t.Parallel()
	res := bash(t, t.TempDir(), map[string]any{"command": "echo oops; exit 3"})
	if want := "oops\n[exit code: exit status 3]"; res.Text != want || !res.IsError {
		t.Fatalf("got %q (error %v), want %q", res.Text, res.IsError, want)
	}
	res = bash(t, t.TempDir(), map[string]any{"command": "kill -KILL $$"})
	if want := "(no output)\n[exit code: exit status 137 (signal: killed)]"; res.Text != want {
		t.Fatalf("got %q, want %q", res.Text, want)
	}
}

// Seed 002, bash, "Terminal display": `(no output)` for an empty output.
func TestBashNoOutput(t *testing.T) {
	t.Parallel()
	res := bash(t, t.TempDir(), map[string]any{"command": "true"})
	if res.Text != "(no output)" || res.IsError {
		t.Fatalf("got %q (error %v)", res.Text, res.IsError)
	}
	res = bash(t, t.TempDir(), map[string]any{"command": "exit 2"})
	if want := "(no output)\n[exit code: exit status 2]"; res.Text != want {
		t.Fatalf("got %q, want %q", res.Text, want)
	}
}

// The command knows it runs under gantry and waits on no pager.
func TestBashEnvironment(t *testing.T) {
	t.Setenv("GANTRY_INHERITED", "yes")
	res := bash(t, t.TempDir(), map[string]any{"command": `echo "$GANTRY_INHERITED $GANTRY $PAGER $GIT_PAGER $TERM"`})
	if want := "yes 1 cat cat dumb"; res.Text != want {
		t.Fatalf("got %q, want %q", res.Text, want)
	}
}

// gantry's keys to the model are not a command's: a prompt injected into a file cannot
// have one printed. The session's own environment still gives one where it is set.
func TestBashDoesNotInheritGantrysKeys(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("GANTRY_MCP_TOKEN", "tok")
	t.Setenv("GANTRY_INHERITED", "yes")
	cmd := map[string]any{"command": `echo "${ANTHROPIC_API_KEY:-none} ${OPENAI_API_KEY:-none} ${GANTRY_MCP_TOKEN:-none} $GANTRY_INHERITED"`}
	if res := bash(t, t.TempDir(), cmd); res.Text != "none none none yes" {
		t.Fatalf("got %q, want the keys left out", res.Text)
	}
	pol := &contain.Policy{Env: func() []string { return []string{"OPENAI_API_KEY=from-settings"} }}
	res := call(t, context.Background(), toolNamed(t, Options{Policy: pol}, "bash"), tool.Env{Cwd: t.TempDir()}, cmd)
	if res.Text != "none from-settings none yes" {
		t.Fatalf("got %q, want the session's own OPENAI_API_KEY", res.Text)
	}
}

// Seed 002, bash, "ACP": kind execute; level exec; the principal is the command.
func TestBashDeclaration(t *testing.T) {
	t.Parallel()
	b := toolNamed(t, Options{}, "bash")
	if b.Level() != tool.LevelExec || b.Kind() != tool.KindExecute {
		t.Fatalf("level %v kind %v", b.Level(), b.Kind())
	}
	inv, msg := b.Decode(tool.Env{}, []byte(`{"command":"ls -la"}`))
	if msg != "" || inv.Principal != "ls -la" {
		t.Fatalf("principal %q, refusal %q", inv.Principal, msg)
	}
	spec := string(b.Spec().Schema)
	for _, f := range []string{`"command"`, `"timeout"`, `"cwd"`, `"run_in_background"`, `"required":["command"]`} {
		if !strings.Contains(spec, f) {
			t.Errorf("schema lacks %s: %s", f, spec)
		}
	}
	if d := b.Spec().Description; !strings.Contains(d, "default 120, at most 600") || strings.Contains(d, "{") {
		t.Errorf("description: %s", d)
	}
}

// Malformed arguments give one sentence naming the field, never a run.
func TestBashMalformedArguments(t *testing.T) {
	t.Parallel()
	b := toolNamed(t, Options{MaxTimeout: 300 * time.Second}, "bash")
	cases := map[string]struct{ input, field string }{
		"wrong type":      {`{"command": 5}`, "command"},
		"missing command": {`{"timeout": 5}`, "command"},
		"empty command":   {`{"command": "  "}`, "command"},
		"timeout 0":       {`{"command": "ls", "timeout": 0}`, "timeout"},
		"timeout 601":     {`{"command": "ls", "timeout": 601}`, "timeout"},
		"above max":       {`{"command": "ls", "timeout": 301}`, "timeout"},
		"timeout string":  {`{"command": "ls", "timeout": "10"}`, "timeout"},
		"fractional":      {`{"command": "ls", "timeout": 1.5}`, "timeout"},
		"not an object":   {`["ls"]`, "object"},
	}
	for name, c := range cases {
		inv, msg := b.Decode(tool.Env{}, []byte(c.input))
		if msg == "" || inv.Run != nil {
			t.Errorf("%s: %s was accepted", name, c.input)
			continue
		}
		if !strings.Contains(msg, c.field) || strings.Contains(msg, "\n") || !strings.HasSuffix(msg, ".") {
			t.Errorf("%s: %q is not one sentence naming %q", name, msg, c.field)
		}
	}
}

// The session's environment (Options.Env, read at each call) reaches foreground and
// background commands and an editor's terminal; gantry's own settings still win.
func TestBashSessionEnvironment(t *testing.T) {
	t.Parallel()
	var env []string
	s := newSession(t)
	s.o.Policy = &contain.Policy{Env: func() []string { return env }}
	echo := `echo "${FROM_HOOK-unset} $PAGER"`
	if res := s.run("bash", map[string]any{"command": echo}); res.Text != "unset cat" {
		t.Fatalf("before: %q", res.Text)
	}
	env = []string{"FROM_HOOK=one", "FROM_HOOK=two words", "PAGER=less"}
	if res := s.run("bash", map[string]any{"command": echo}); res.Text != "two words cat" {
		t.Fatalf("foreground: %q", res.Text)
	}
	id := s.start(echo)
	if res := s.run("task_output", map[string]any{"task_id": id, "timeout": 10}); !strings.HasPrefix(res.Text, "two words cat\n") {
		t.Fatalf("background: %q", res.Text)
	}
	f := &fakeTerminals{res: tool.TerminalResult{}}
	call(t, t.Context(), toolNamed(t, s.o, "bash"), tool.Env{Cwd: s.cwd, Terminals: f}, map[string]any{"command": "true"})
	if strings.Join(f.got.Env, "|") != "FROM_HOOK=one|FROM_HOOK=two words|PAGER=less" {
		t.Errorf("the terminal got %q", f.got.Env)
	}
}
