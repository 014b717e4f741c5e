package shell

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/testenv"
	"github.com/gantry-dev/gantry/internal/tool"
)

// A grandchild holding the output pipe open does not hang the call, nor outlive it.
func TestBashBackgroundGrandchildDoesNotHang(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{
		"echo pgid=$(cut -d' ' -f5 /proc/self/stat); sleep 100 &",
		"echo pgid=$(cut -d' ' -f5 /proc/self/stat); (sleep 100 &)",
		"echo pgid=$(cut -d' ' -f5 /proc/self/stat); sleep 100 >/dev/null 2>&1 &",
		"echo pgid=$(cut -d' ' -f5 /proc/self/stat); nohup sleep 100 &",
	} {
		start := time.Now()
		res := bash(t, t.TempDir(), map[string]any{"command": cmd, "timeout": 20})
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%q took %v", cmd, d)
		}
		if res.IsError {
			t.Errorf("%q: %q", cmd, res.Text)
		}
		assertGroupGone(t, pgidOf(t, res.Text))
	}
}

// Output a grandchild writes just after the main process exits is still captured.
func TestBashCapturesLateGrandchildOutput(t *testing.T) {
	t.Parallel()
	res := bash(t, t.TempDir(), map[string]any{"command": "(sleep 0.05; echo late) & echo early"})
	if res.Text != "early\nlate" {
		t.Fatalf("got %q", res.Text)
	}
}

// A timeout kills the whole process group, even members that ignore SIGTERM.
func TestBashTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{
		"echo pgid=$(cut -d' ' -f5 /proc/self/stat); sleep 100 & sleep 100 & wait",
		"trap '' TERM; echo pgid=$(cut -d' ' -f5 /proc/self/stat); sleep 100 & sleep 100", // SIGKILL after the grace
	} {
		res := bash(t, t.TempDir(), map[string]any{"command": cmd, "timeout": 1})
		if !strings.HasSuffix(res.Text, "[error: 1s timeout exceeded]") {
			t.Errorf("%q: got %q", cmd, res.Text)
		}
		assertGroupGone(t, pgidOf(t, res.Text))
	}
}

// Cancellation kills the group and returns what was captured, saying so.
func TestBashCancelKillsProcessGroup(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	dir := t.TempDir()
	inv, msg := toolNamed(t, Options{}, "bash").Decode(tool.Env{Cwd: dir},
		json.RawMessage(`{"command":"echo pgid=$(cut -d' ' -f5 /proc/self/stat); sleep 100 & touch started; sleep 100"}`))
	if msg != "" {
		t.Fatal(msg)
	}
	done := make(chan tool.Result, 1)
	go func() { done <- inv.Run(ctx) }()
	// Cancel once the command has printed its group and started its sleeps.
	waitFor(t, 10*time.Second, "the command to start", func() bool {
		_, err := os.Stat(filepath.Join(dir, "started"))
		return err == nil
	})
	start := time.Now()
	cancel()
	res := testenv.Recv(t, done, testenv.Bound, "the cancelled command to end")
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("cancel took %v", d)
	}
	if !res.IsError || !strings.HasSuffix(res.Text, "[cancelled: the command was stopped before it finished]") {
		t.Fatalf("got %q", res.Text)
	}
	assertGroupGone(t, pgidOf(t, res.Text))
}

// `yes` for a while keeps memory bounded (the capture) and is stopped by the timeout.
func TestBashRunawayOutputIsBounded(t *testing.T) {
	t.Parallel()
	res := bash(t, t.TempDir(), map[string]any{"command": "yes", "timeout": 1})
	if len(res.Text) > captureHead+captureTail+200 || !strings.HasSuffix(res.Text, "y\n[error: 1s timeout exceeded]") {
		t.Fatalf("%d bytes ending %q", len(res.Text), res.Text[max(0, len(res.Text)-60):])
	}
}

// A call cancelled before it starts runs nothing.
func TestBashCancelledBeforeStart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	dir := t.TempDir()
	res := call(t, ctx, toolNamed(t, Options{}, "bash"), tool.Env{Cwd: dir}, map[string]any{"command": "touch ran"})
	if !res.IsError || !strings.Contains(res.Text, "cancelled") {
		t.Fatalf("got %q", res.Text)
	}
	if _, err := os.Stat(dir + "/ran"); err == nil {
		t.Fatal("the command ran")
	}
}
