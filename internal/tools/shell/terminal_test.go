package shell

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

// fakeTerminals answers with a fixed result and records the request.
type fakeTerminals struct {
	got tool.TerminalRequest
	res tool.TerminalResult
	err error
}

func (f *fakeTerminals) Run(ctx context.Context, req tool.TerminalRequest) (tool.TerminalResult, error) {
	f.got = req
	return f.res, f.err
}

// A face's terminal runs foreground commands; the result reads as a local run's.
func TestBashInFaceTerminal(t *testing.T) {
	code := func(n int) *int { return &n }
	cases := []struct {
		name string
		res  tool.TerminalResult
		want string
		fail bool
	}{
		{"ok", tool.TerminalResult{Output: "hello\n", ExitCode: code(0)}, "hello", false},
		{"exit", tool.TerminalResult{Output: "bad\n", ExitCode: code(2)}, "bad\n[exit code: exit status 2]", true},
		{"signal", tool.TerminalResult{Signal: "SIGKILL"}, "(no output)\n[exit code: signal: SIGKILL]", true},
		{"timeout", tool.TerminalResult{Output: "slow", TimedOut: true}, "slow\n[error: 7s timeout exceeded]", true},
		{"cancel", tool.TerminalResult{Cancelled: true}, "(no output)\n[cancelled: the command was stopped before it finished]", true},
		{"truncated", tool.TerminalResult{Output: "tail\n", Truncated: true, ExitCode: code(0)}, "[… the start of the output was dropped]\ntail", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeTerminals{res: c.res}
			dir := t.TempDir()
			b := toolNamed(t, Options{DefaultTimeout: time.Second, MaxTimeout: 10 * time.Second}, "bash")
			ctx := tool.WithCallID(context.Background(), "call-7")
			r := call(t, ctx, b, tool.Env{Cwd: dir, Terminals: f}, map[string]any{"command": "echo hello", "timeout": 7})
			if r.Text != c.want || r.IsError != c.fail {
				t.Errorf("got %q (error %v), want %q (error %v)", r.Text, r.IsError, c.want, c.fail)
			}
			if f.got.Command != "echo hello" || f.got.Cwd != dir || f.got.CallID != "call-7" || f.got.Timeout != 7*time.Second || f.got.OutputLimit <= 0 {
				t.Errorf("request %+v", f.got)
			}
		})
	}
	f := &fakeTerminals{err: errors.New("the editor refused")}
	b := toolNamed(t, Options{DefaultTimeout: time.Second}, "bash")
	r := call(t, context.Background(), b, tool.Env{Cwd: t.TempDir(), Terminals: f}, map[string]any{"command": "true"})
	if !r.IsError || !strings.Contains(r.Text, "the editor refused") {
		t.Errorf("a terminal failure: %q", r.Text)
	}
}
