package hook

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/procgroup"
	"syscall"
)

// script writes an executable bash script named name in dir and returns the command
// that runs it.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// hooks builds the configuration of one event whose one matcher holds the hooks.
func hooks(event, matcher string, hs ...config.Hook) map[string][]config.HookMatcher {
	return map[string][]config.HookMatcher{event: {{Matcher: matcher, Hooks: hs}}}
}

// cmd is a command hook with a timeout in seconds (0: the default) and onFailure.
func cmd(command string, timeout int, onFailure string) config.Hook {
	return config.Hook{Type: "command", Command: command, Timeout: timeout, OnFailure: onFailure}
}

// base is the Base of a test session in dir.
func base(dir string) Base {
	return Base{
		SessionID:      "s-123",
		Cwd:            dir,
		PermissionMode: func() string { return "accept-edits" },
		TranscriptPath: filepath.Join(dir, "transcript.jsonl"),
	}
}

// readFile returns the content of p, failing the test if it cannot be read.
func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertGroupGone checks that the process group whose id the hook wrote to pidFile has
// no living member.
func assertGroupGone(t *testing.T, pidFile string) {
	t.Helper()
	pgid, err := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile)))
	if err != nil {
		t.Fatal(err)
	}
	if procgroup.Alive(pgid) {
		t.Errorf("process group %d is still alive", pgid)
	}
}

// within fails the test when the time since start exceeds d.
func within(t *testing.T, start time.Time, d time.Duration) {
	t.Helper()
	if took := time.Since(start); took > d {
		t.Errorf("took %v, more than %v", took, d)
	}
}

// fileExists tells whether p exists.
func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// waitFor polls cond every 10 ms and fails the test, saying what it waited for,
// when cond does not hold within 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s in vain for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// mkfifo makes a FIFO at p.
func mkfifo(p string) error { return syscall.Mkfifo(p, 0o600) }
