package shell

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/testenv"
)

func TestFuncTaskOutputAndKill(t *testing.T) {
	ts := NewTasks(t.TempDir())
	defer ts.Close()
	id, err := ts.StartFunc("a subagent", func(ctx context.Context) (string, error) { return "the final answer", nil })
	if err != nil {
		t.Fatal(err)
	}
	r := taskOutput(context.Background(), ts, taskOutputArgs{TaskID: id, Block: ptr(true), Timeout: 5000})
	if !strings.Contains(r.Text, "the final answer") || !strings.Contains(r.Text, "finished") {
		t.Fatalf("output: %q", r.Text)
	}
	started := make(chan struct{})
	id2, _ := ts.StartFunc("a slow subagent", func(ctx context.Context) (string, error) {
		close(started)
		<-ctx.Done()
		return "partial", ctx.Err()
	})
	testenv.Recv(t, started, testenv.Bound, "the slow subagent to start")
	k := taskKill(ts, id2)
	if !strings.Contains(k.Text, "a slow subagent") {
		t.Fatalf("kill: %q", k.Text)
	}
	r = taskOutput(context.Background(), ts, taskOutputArgs{TaskID: id2, Block: ptr(true), Timeout: 5000})
	if !strings.Contains(r.Text, "was stopped") {
		t.Fatalf("after kill: %q", r.Text)
	}
	// Close cancels what still runs.
	done := make(chan struct{})
	ts.StartFunc("forever", func(ctx context.Context) (string, error) { <-ctx.Done(); close(done); return "", nil })
	ts.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not cancel the function task")
	}
}
func ptr[T any](v T) *T { return &v }
