package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// guarded is Options whose bash is held to the deny rules by the exec supervisor.
func guarded(t *testing.T, deny ...string) Options {
	t.Helper()
	if ok, why := contain.Supervisor(); !ok {
		t.Skipf("no exec supervisor here: %s", why)
	}
	e, err := permission.NewEngine(permission.ModeYolo, nil, deny)
	if err != nil {
		t.Fatal(err)
	}
	return Options{Judge: e.ExecGuard().Judge}
}

// A program the parser cannot see is refused when it really runs, and the result
// says which rule refused what; the rest of the command goes on.
func TestBashReportsWhatTheSupervisorBlocked(t *testing.T) {
	t.Parallel()
	o := guarded(t, `bash:mv .*`)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := call(t, t.Context(), toolNamed(t, o, "bash"), tool.Env{Cwd: dir},
		map[string]any{"command": `p=m; "${p}v" a b; echo after`})
	if _, err := os.Stat(filepath.Join(dir, "b")); err == nil {
		t.Fatal("a was moved")
	}
	if !strings.Contains(res.Text, "Operation not permitted\nafter\n[blocked by deny rule bash:mv .*: mv a b]") {
		t.Errorf("got %q", res.Text)
	}
	if len(res.Blocked) != 1 || res.Blocked[0] != (tool.Blocked{Rule: "bash:mv .*", Command: "mv a b"}) {
		t.Errorf("Blocked = %+v", res.Blocked)
	}
}

// A background task is held to the same rules; task_output says what was refused.
func TestBackgroundTaskIsSupervised(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	g := guarded(t, `bash:mv .*`)
	s.o.Judge = g.Judge
	if err := os.WriteFile(filepath.Join(s.cwd, "a"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	id := s.start(`eval "m""v a b"; echo done`)
	res := s.run("task_output", map[string]any{"task_id": id, "timeout": 10000})
	if _, err := os.Stat(filepath.Join(s.cwd, "b")); err == nil {
		t.Fatal("a was moved")
	}
	if !strings.Contains(res.Text, "done\n[bg_1 finished after") || !strings.HasSuffix(res.Text, "[blocked by deny rule bash:mv .*: mv a b]") {
		t.Errorf("got %q", res.Text)
	}
}
