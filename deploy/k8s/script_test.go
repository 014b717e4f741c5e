package k8s

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// scriptCmd is task.sh for index 0 with its folders under root, tasks in tasks.
func scriptCmd(t *testing.T, ctx context.Context, root, tasks string, extra ...string) *exec.Cmd {
	t.Helper()
	script, err := filepath.Abs("task.sh")
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Dir = root
	cmd.Env = cleanEnv(append([]string{
		"PATH=" + gantryBin(t) + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home, "NO_COLOR=1",
		"JOB_COMPLETION_INDEX=0", "GANTRY_TASKS_DIR=" + tasks, "GANTRY_RESULTS_DIR=" + filepath.Join(root, "results"),
		"GANTRY_WORK_DIR=" + filepath.Join(root, "work"), "GANTRY_EXTRA_FLAGS=--permission-mode yolo",
	}, extra...)...)
	killGroupOnCancel(cmd)
	return cmd
}

func readSummary(t *testing.T, root string) summary {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "results", "0.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := decodeSummary(raw)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return s
}

// TestEntryScriptPassesSIGTERMOn: a pod's SIGTERM (its deadline, a deletion) goes to
// task.sh, which hands it to gantry, whose interrupted result and exit status 130 are
// kept like any other.
func TestEntryScriptPassesSIGTERMOn(t *testing.T) {
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Working on it, slowly.")}, StallAfter: 3})
	defer srv.Close()
	root := t.TempDir()
	tasks := filepath.Join(root, "tasks")
	if err := os.MkdirAll(tasks, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tasks, "0.prompt"), []byte("Task 0: take your time.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := scriptCmd(t, ctx, root, tasks, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=test-key")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.Stalled(1):
	case <-ctx.Done():
		t.Fatal("the model's answer never reached its stall")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil { // task.sh alone, as a pod's PID 1
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("task.sh: %v, want exit 130\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	s := readSummary(t, root)
	if s.ExitCode != 130 || s.SessionID == nil || s.IsError == nil || !*s.IsError {
		t.Errorf("summary %+v", s)
	}
	if !strings.Contains(stdout.String(), `"type":"result"`) {
		t.Errorf("no result event after the SIGTERM:\n%s", stdout.String())
	}
}

// TestEntryScriptWithoutItsTask: an index with no prompt exits 66 (which the Job's
// podFailurePolicy does not retry) and still leaves its summary.
func TestEntryScriptWithoutItsTask(t *testing.T) {
	root := t.TempDir()
	tasks := filepath.Join(root, "tasks")
	if err := os.MkdirAll(tasks, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := scriptCmd(t, ctx, root, tasks).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 66 {
		t.Fatalf("task.sh: %v, want exit 66\n%s", err, out)
	}
	if !strings.Contains(string(out), "there is no task 0") {
		t.Errorf("task.sh said:\n%s", out)
	}
	if s := readSummary(t, root); s.ExitCode != 66 || s.SessionID != nil || s.Note == nil || !strings.Contains(*s.Note, "no task 0") {
		t.Errorf("summary %+v", s)
	}
}
