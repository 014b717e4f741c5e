package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

// session is a Tasks with its three tools, closed at the end of the test.
type session struct {
	t     *testing.T
	tasks *Tasks
	dir   string // the Tasks folder
	cwd   string
	o     Options
}

func newSession(t *testing.T) *session {
	dir := filepath.Join(t.TempDir(), "tasks")
	s := &session{t: t, tasks: NewTasks(dir), dir: dir, cwd: t.TempDir()}
	s.o = Options{Tasks: s.tasks}
	t.Cleanup(func() { _ = s.tasks.Close() })
	return s
}

func (s *session) run(name string, args map[string]any) tool.Result {
	s.t.Helper()
	return call(s.t, s.t.Context(), toolNamed(s.t, s.o, name), tool.Env{Cwd: s.cwd}, args)
}

// start runs cmd in the background and returns its task id.
func (s *session) start(cmd string) string {
	s.t.Helper()
	res := s.run("bash", map[string]any{"command": cmd, "run_in_background": true})
	if res.IsError {
		s.t.Fatalf("start %q: %s", cmd, res.Text)
	}
	for _, f := range strings.Fields(res.Text) {
		if strings.HasPrefix(f, "bg_") {
			return f
		}
	}
	s.t.Fatalf("no task id in %q", res.Text)
	return ""
}

// pgid waits for the task's first output line "pgid=N" (without reading it) and returns N.
func (s *session) pgid(id string) int {
	s.t.Helper()
	tk, _ := s.tasks.get(id)
	var out []byte
	waitFor(s.t, 5*time.Second, id+" to print its pgid", func() bool {
		out, _ = os.ReadFile(tk.path)
		return pgidLine.Match(out)
	})
	return pgidOf(s.t, string(out))
}

func TestBackgroundStartReturnsAtOnce(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	start := time.Now()
	res := s.run("bash", map[string]any{"command": "sleep 100", "run_in_background": true, "timeout": 1})
	if d := time.Since(start); d > time.Second {
		t.Fatalf("starting took %v", d)
	}
	for _, w := range []string{"bg_1", "task_output", "task_kill"} {
		if !strings.Contains(res.Text, w) {
			t.Errorf("start text lacks %q: %s", w, res.Text)
		}
	}
	if id := s.start("true"); id != "bg_2" {
		t.Errorf("second id %q, want bg_2", id)
	}
	// A command in the foreground with the same 1 s timeout, started later, is stopped
	// by it: by then the background task's timeout, which does not apply, would have
	// struck too.
	if fg := s.run("bash", map[string]any{"command": "sleep 100", "timeout": 1}); !strings.Contains(fg.Text, "timeout exceeded") {
		t.Fatalf("the foreground command was not stopped by its timeout: %s", fg.Text)
	}
	if tk, _ := s.tasks.get("bg_1"); tk.finished() {
		t.Error("the bash timeout stopped a background task")
	}
}

func TestTaskOutputReadsIncrementally(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	id := s.start("echo one; echo err >&2; while [ ! -e go ]; do sleep 0.02; done; echo two")
	waitFor(t, 5*time.Second, "first output", func() bool {
		tk, _ := s.tasks.get(id)
		b, _ := os.ReadFile(tk.path)
		return strings.Count(string(b), "\n") == 2
	})
	res := s.run("task_output", map[string]any{"task_id": id, "block": false})
	if want := "one\nerr\n[bg_1 is still running; call task_output again for more output, or task_kill to stop it]"; res.Text != want {
		t.Fatalf("first read %q, want %q", res.Text, want)
	}
	if err := os.WriteFile(filepath.Join(s.cwd, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res = s.run("task_output", map[string]any{"task_id": id, "timeout": 5})
	if !strings.HasPrefix(res.Text, "two\n[bg_1 finished after ") || strings.Contains(res.Text, "one") || res.IsError {
		t.Fatalf("second read %q", res.Text)
	}
	res = s.run("task_output", map[string]any{"task_id": id})
	if !strings.HasPrefix(res.Text, "(no new output)\n[bg_1 finished after ") {
		t.Fatalf("third read %q", res.Text)
	}
}

func TestTaskOutputBlockWaitsAtMostTimeout(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	id := s.start("sleep 100")
	start := time.Now()
	res := s.run("task_output", map[string]any{"task_id": id, "timeout": 0.3})
	if d := time.Since(start); d < 300*time.Millisecond || d > 2*time.Second {
		t.Fatalf("blocked %v for a 300 ms timeout", d)
	}
	if want := "(no new output)\n[bg_1 is still running after waiting 300ms; call task_output again for more output, or task_kill to stop it]"; res.Text != want {
		t.Fatalf("got %q, want %q", res.Text, want)
	}
	start = time.Now()
	id2 := s.start("sleep 0.3; echo done")
	// A timeout over 600 is in milliseconds, the former unit, for a release.
	res = s.run("task_output", map[string]any{"task_id": id2, "timeout": 10000})
	if d := time.Since(start); d > 3*time.Second || !strings.HasPrefix(res.Text, "done\n[bg_2 finished") ||
		!strings.HasSuffix(res.Text, "(Note: timeout in milliseconds is deprecated; give it in seconds.)") {
		t.Fatalf("blocking for a finishing task took %v and gave %q", d, res.Text)
	}
}

func TestTaskOutputExitStatus(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	id := s.start("echo x; exit 4")
	res := s.run("task_output", map[string]any{"task_id": id})
	if !res.IsError || !strings.HasPrefix(res.Text, "x\n[bg_1 finished after ") || !strings.HasSuffix(res.Text, "]\n[exit code: exit status 4]") {
		t.Fatalf("got %q (error %v)", res.Text, res.IsError)
	}
}

func TestTaskOutputUnknownID(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	res := s.run("task_output", map[string]any{"task_id": "bg_9"})
	if !res.IsError || !strings.HasPrefix(res.Text, `No background task "bg_9": none was started`) {
		t.Fatalf("got %q", res.Text)
	}
	for range 10 {
		s.start("true")
	}
	res = s.run("task_kill", map[string]any{"task_id": "bg_99"})
	if want := `No background task "bg_99". Known tasks: bg_1, bg_2, bg_3, bg_4, bg_5, bg_6, bg_7, bg_8, bg_9, bg_10.`; res.Text != want {
		t.Fatalf("got %q, want %q", res.Text, want)
	}
}

func TestTaskKillStopsProcessGroup(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	id := s.start("echo pgid=$(cut -d' ' -f5 /proc/self/stat); echo started; sleep 100 & sleep 100")
	pgid := s.pgid(id)
	res := s.run("task_kill", map[string]any{"task_id": id})
	if !strings.HasPrefix(res.Text, "Stopped bg_1 (echo pgid=$(cut -d' ' -f5 /proc/self/stat); echo started; sleep 100 & sleep 100) and every process it started.\n") ||
		!strings.Contains(res.Text, "\nstarted\n[bg_1 was stopped after ") || !strings.HasSuffix(res.Text, "[exit code: exit status 143 (signal: terminated)]") {
		t.Fatalf("got %q", res.Text)
	}
	assertGroupGone(t, pgid)
	res = s.run("task_kill", map[string]any{"task_id": id})
	if !strings.HasPrefix(res.Text, "bg_1 had already finished; nothing to stop.\n(no unread output)\n") {
		t.Fatalf("second kill %q", res.Text)
	}
	tk := toolNamed(t, s.o, "task_kill")
	if tk.Level() != tool.LevelExec || tk.Kind() != tool.KindExecute {
		t.Errorf("task_kill level %v kind %v", tk.Level(), tk.Kind())
	}
	if to := toolNamed(t, s.o, "task_output"); to.Level() != tool.LevelRead {
		t.Errorf("task_output level %v", to.Level())
	}
}

// A task whose main process exits takes its leftover background processes with it.
func TestTaskEndKillsLeftovers(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	id := s.start("echo pgid=$(cut -d' ' -f5 /proc/self/stat); sleep 100 &")
	res := s.run("task_output", map[string]any{"task_id": id, "timeout": 5})
	if !strings.Contains(res.Text, "[bg_1 finished after") {
		t.Fatalf("got %q", res.Text)
	}
	assertGroupGone(t, pgidOf(t, res.Text))
}

func TestTasksCloseKillsAndCleansUp(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	a, b := s.start("echo pgid=$(cut -d' ' -f5 /proc/self/stat); sleep 100 & sleep 100"), s.start("echo pgid=$(cut -d' ' -f5 /proc/self/stat); trap '' TERM; sleep 100")
	done := s.start("echo finished")
	pa, pb := s.pgid(a), s.pgid(b)
	s.run("task_output", map[string]any{"task_id": done})
	if entries, _ := os.ReadDir(s.dir); len(entries) != 3 {
		t.Fatalf("%d output files, want 3", len(entries))
	}
	if err := s.tasks.Close(); err != nil {
		t.Fatal(err)
	}
	assertGroupGone(t, pa)
	assertGroupGone(t, pb)
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(s.dir)
		t.Fatalf("the tasks folder is left with %d entries (stat: %v)", len(entries), err)
	}
	res := s.run("bash", map[string]any{"command": "true", "run_in_background": true})
	if !res.IsError || !strings.Contains(res.Text, "closed") {
		t.Fatalf("start after Close: %q", res.Text)
	}
}

// A folder that existed before is kept; only the files Tasks made are removed.
func TestTasksCloseKeepsExistingFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "other"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ts := NewTasks(dir)
	if _, err := ts.start("echo hi", dir, guard{}); err != nil {
		t.Fatal(err)
	}
	if err := ts.Close(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "other" {
		t.Fatalf("folder holds %v", entries)
	}
}

// Without Tasks there is no background mode and no task tools.
func TestToolsWithoutTasks(t *testing.T) {
	t.Parallel()
	ts := Tools(Options{})
	if len(ts) != 1 || ts[0].Name() != "bash" {
		t.Fatalf("got %d tools", len(ts))
	}
	res := bash(t, t.TempDir(), map[string]any{"command": "true", "run_in_background": true})
	if !res.IsError || !strings.Contains(res.Text, "not available") {
		t.Fatalf("got %q", res.Text)
	}
}

func TestTaskToolsMalformedArguments(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	cases := []struct{ tool, input, field string }{
		{"task_output", `{}`, "task_id"},
		{"task_output", `{"task_id": 1}`, "task_id"},
		{"task_output", `{"task_id": "bg_1", "block": "yes"}`, "block"},
		{"task_output", `{"task_id": "bg_1", "timeout": 600001}`, "timeout"},
		{"task_kill", `{}`, "task_id"},
	}
	for _, c := range cases {
		_, msg := toolNamed(t, s.o, c.tool).Decode(tool.Env{}, []byte(c.input))
		if msg == "" || !strings.Contains(msg, c.field) || strings.Contains(msg, "\n") {
			t.Errorf("%s %s: %q", c.tool, c.input, msg)
		}
	}
}

func TestTaskOutputBoundsLargeOutput(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	id := s.start(`echo FIRST; head -c 5000000 /dev/zero | tr '\0' x; echo; echo LAST`)
	res := s.run("task_output", map[string]any{"task_id": id, "timeout": 10})
	if len(res.Text) > captureHead+captureTail+200 || !strings.HasPrefix(res.Text, "FIRST\n") ||
		!strings.Contains(res.Text, "bytes of output dropped here") || !strings.Contains(res.Text, "x\nLAST\n[bg_1 finished") {
		t.Fatalf("%d bytes: %q … %q", len(res.Text), res.Text[:min(len(res.Text), 40)], res.Text[max(0, len(res.Text)-80):])
	}
}
