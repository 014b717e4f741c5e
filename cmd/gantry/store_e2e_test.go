package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/session"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// smallDisk mounts a tmpfs of size bytes at a new folder and returns it; it is
// unmounted when the test ends. Only root may mount: elsewhere the test is skipped
// with the reason.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a full disk needs a small tmpfs, which only root may mount here")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.Itoa(size)); err != nil {
		t.Skipf("cannot mount a tmpfs for the full disk (%v)", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmounting the small disk: %v", err)
		}
	})
	return dir
}

// fill writes a file at path until the disk is full.
func fill(t *testing.T, path string) {
	f, err := os.Create(path)
	if err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			return
		}
		t.Error(err)
		return
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Error(err)
			}
			return
		}
	}
}

// A disk that fills mid-run: the turn stops at the record that could not be
// written — no call of that response runs — with one sentence and exit 9 (exitStore); freed,
// --continue finishes the plan with nothing lost and nothing run twice.
func TestFullDiskStopsTheTurnAndContinueFinishes(t *testing.T) {
	disk := smallDisk(t, 2<<20)
	filler := filepath.Join(disk, "filler")
	var once sync.Once
	pm := &planModel{steps: 6, received: map[string]string{}, before: func(step int) {
		if step == 4 {
			once.Do(func() { fill(t, filler) })
		}
	}}
	srv := fakellm.NewFunc(pm.respond)
	defer srv.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("notes\nEND\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	environ := append(env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=test-key"), "GANTRY_DATA_DIR="+filepath.Join(disk, "data"))
	common := []string{"--permission-mode", "yolo", "--sandbox=false"}

	r := gantry(t, dir, environ, append([]string{"-p", "run the plan"}, common...)...)
	if r.code != exitStore {
		t.Fatalf("exit %d on a full disk\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	want := "gantry: the session store " + filepath.Join(disk, "data", "sessions.db") + " could not be written: the disk is full; the turn stopped there"
	if len(lines) != 1 || !strings.HasPrefix(lines[0], want) {
		t.Fatalf("stderr is not the one sentence %q…:\n%s", want, r.stderr)
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "e.log")); strings.Contains(string(log), "4") {
		t.Fatalf("step 4 ran though its response was not stored:\n%s", log)
	}

	// Listing works on the full disk.
	if r := gantry(t, dir, environ, "sessions"); r.code != 0 || !strings.Contains(r.stdout, "run the plan") {
		t.Fatalf("gantry sessions on a full disk: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	os.Remove(filler)
	r = gantry(t, dir, environ, append([]string{"--continue", "-p", "go on"}, common...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "All done.") {
		t.Fatalf("--continue after the disk was freed: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "e.log"))
	notes, _ := os.ReadFile(filepath.Join(dir, "notes.txt"))
	if got := strings.Fields(string(log)); strings.Join(got, " ") != "1 2 4 5" {
		t.Errorf("e.log: %q, want each bash step once (1 2 4 5)", got)
	}
	if strings.Count(string(notes), "step 3\n") != 1 || strings.Count(string(notes), "step 6\n") != 1 {
		t.Errorf("notes.txt:\n%s", notes)
	}
	checkStored(t, filepath.Join(disk, "data", "sessions.db"), pm)
}

// checkStored checks that every result the plan model was sent is in the store.
func checkStored(t *testing.T, db string, pm *planModel) {
	t.Helper()
	st, err := session.OpenRead(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(0)
	if err != nil || len(list) == 0 {
		t.Fatalf("sessions: %v, %v", list, err)
	}
	stored := map[string]string{}
	for _, in := range list {
		s, err := st.Get(in.ID)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := s.RawMessages()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range raw {
			for _, b := range m.Content {
				if b.ToolCallID != "" && b.Type == "tool_result" {
					stored[b.ToolCallID] = b.Text
				}
			}
		}
	}
	pm.mu.Lock()
	defer pm.mu.Unlock()
	for id, text := range pm.received {
		if stored[id] != text {
			t.Errorf("the model was sent %s's result %q; the store has %q", id, text, stored[id])
		}
	}
}

// startHeld starts a print-mode gantry that continues the folder's session and
// stays in its model request (the server goes quiet), and returns it once it
// holds the session.
func startHeld(t *testing.T, srv *fakellm.Server, stalls int, dir string, environ []string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary, "--continue", "-p", "wait here", "--output-format", "stream-json")
	cmd.Dir, cmd.Env = dir, environ
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	select {
	case <-srv.Stalled(stalls):
	case <-time.After(30 * time.Second):
		t.Fatal("the first gantry never reached its model request")
	}
	return cmd
}

// Two --continue at once in one folder: the second refuses, naming the one that
// runs the session, or with --fork goes on in a copy; gantry sessions says which
// runs; once the holder is gone (even by kill -9) its session can be continued.
func TestOneGantryPerSession(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("first answer")}},
		fakellm.Turn{Silent: fakellm.SilentAfterHeaders},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("the fork's answer")}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("the session's own answer")}},
	)
	defer srv.Close()
	dir := t.TempDir()
	environ := env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=test-key")
	first := gantry(t, dir, environ, "-p", "hello", "--output-format", "json")
	if first.code != 0 {
		t.Fatalf("first run: %d\n%s", first.code, first.stderr)
	}
	var res struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(first.stdout), &res); err != nil || res.SessionID == "" {
		t.Fatalf("json result %q: %v", first.stdout, err)
	}

	held := startHeld(t, srv, 1, dir, environ)
	pid := held.Process.Pid
	second := gantry(t, dir, environ, "--continue", "-p", "me too")
	want := fmt.Sprintf("gantry: session %s is being run by another gantry (pid %d since ", res.SessionID, pid)
	if second.code != 1 || !strings.HasPrefix(second.stderr, want) || !strings.Contains(second.stderr, "--continue --fork") {
		t.Fatalf("a second --continue: exit %d, stderr %q, want %q…", second.code, second.stderr, want)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("the refused gantry reached the model (%d requests)", n)
	}
	if r := gantry(t, dir, environ, "--resume", res.SessionID, "-p", "me too"); r.code != 1 || !strings.Contains(r.stderr, "--resume --fork") {
		t.Errorf("--resume of a held session: exit %d, %q", r.code, r.stderr)
	}

	list := gantry(t, dir, environ, "sessions", "--json")
	var sessions []sessionJSON
	if err := json.Unmarshal([]byte(list.stdout), &sessions); err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 1 || sessions[0].Running == nil || sessions[0].Running.PID != pid {
		t.Fatalf("gantry sessions --json does not show the session running: %s", list.stdout)
	}
	if text := gantry(t, dir, environ, "sessions"); !strings.Contains(text.stdout, fmt.Sprintf("running (pid %d)", pid)) {
		t.Errorf("gantry sessions:\n%s", text.stdout)
	}

	fork := gantry(t, dir, environ, "--continue", "--fork", "-p", "in a copy", "--output-format", "json")
	var fres struct {
		SessionID string `json:"session_id"`
		Result    string `json:"result"`
	}
	if err := json.Unmarshal([]byte(fork.stdout), &fres); fork.code != 0 || err != nil || fres.SessionID == res.SessionID || fres.Result != "the fork's answer" {
		t.Fatalf("--fork: exit %d %v\n%s\n%s", fork.code, err, fork.stdout, fork.stderr)
	}
	// The fork carries the conversation: its request had the first prompt.
	reqs := srv.Requests()
	if last := string(reqs[len(reqs)-1].Raw); !strings.Contains(last, "hello") || !strings.Contains(last, "first answer") || !strings.Contains(last, "in a copy") {
		t.Errorf("the fork's request lacks the conversation: %s", last)
	}

	// The holder killed, the session is free.
	held.Process.Kill()
	held.Wait()
	r := gantry(t, dir, environ, "--resume", res.SessionID, "-p", "now me", "--output-format", "json")
	if r.code != 0 || !strings.Contains(r.stdout, "the session's own answer") {
		t.Fatalf("after the holder was killed: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	list = gantry(t, dir, environ, "sessions", "--json")
	if strings.Contains(list.stdout, `"running"`) {
		t.Errorf("a session still shows running: %s", list.stdout)
	}
	if r := gantry(t, dir, environ, "-p", "x", "--fork"); r.code != 2 || !strings.Contains(r.stderr, "--fork goes with --continue or --resume") {
		t.Errorf("--fork alone: exit %d, %q", r.code, r.stderr)
	}
}

// Eight new sessions at once on one store: no busy error, each whole.
func TestParallelNewSessions(t *testing.T) {
	var turns []fakellm.Turn
	for i := range 8 {
		turns = append(turns, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(fmt.Sprintf("answer %d", i))}})
	}
	srv := fakellm.New(turns...)
	defer srv.Close()
	dir := t.TempDir()
	environ := env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=test-key")
	var wg sync.WaitGroup
	outs := make([]outcome, 8)
	for i := range 8 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, binary, "-p", fmt.Sprintf("prompt %d", i))
			cmd.Dir, cmd.Env = dir, environ
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			outs[i] = outcome{stdout: out.String(), stderr: errb.String()}
			if ee, ok := err.(*exec.ExitError); ok {
				outs[i].code = ee.ExitCode()
			} else if err != nil {
				outs[i].code = -1
			}
		})
	}
	testenv.Wait(t, &wg, 2*time.Minute, "the eight runs of gantry (each within a minute)")
	for i, o := range outs {
		if o.code != 0 || o.stderr != "" {
			t.Errorf("run %d: exit %d, stderr %q", i, o.code, o.stderr)
		}
	}
	st, err := session.OpenRead(filepath.Join(envValue(environ, "GANTRY_DATA_DIR"), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(0)
	if err != nil || len(list) != 8 {
		t.Fatalf("%d sessions (%v), want 8", len(list), err)
	}
	for _, in := range list {
		s, err := st.Get(in.ID)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := s.RawMessages()
		if err != nil || len(msgs) != 2 || !strings.HasPrefix(msgs[0].Text(), "prompt ") || !strings.HasPrefix(msgs[1].Text(), "answer ") || in.Turns != 1 {
			t.Errorf("session %s: %d turns, %v (%v)", in.ID, in.Turns, msgs, err)
		}
	}
}

// A model that goes quiet — headers and then nothing, or nothing at all — is
// retried after the configured timeout, and the answer is printed once; so is an
// answer whose stream was cut in the middle.
func TestQuietModelIsRetried(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Silent: fakellm.SilentAfterHeaders},
		fakellm.Turn{Silent: fakellm.SilentBeforeHeaders},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("It is gantry, and it finished.")}, CutAfter: 5},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("It is gantry, and it finished.")}},
	)
	defer srv.Close()
	dir := t.TempDir()
	environ := env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=test-key")
	cfgDir := envValue(environ, "GANTRY_CONFIG_DIR")
	if err := os.MkdirAll(cfgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.yaml"), []byte("model:\n  streamIdleTimeout: 1\n  firstByteTimeout: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := gantry(t, dir, environ, "-p", "what is it?")
	if r.code != 0 || r.stdout != "It is gantry, and it finished.\n" {
		t.Fatalf("exit %d, stdout %q\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"model.streamIdleTimeout", "model.firstByteTimeout", "connection failed"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the retries do not say %q:\n%s", want, r.stderr)
		}
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
	t.Logf("three retries in %s", time.Since(start).Round(time.Millisecond))
}

// The same folder reached through a symlink is one folder: --continue finds its
// session.
func TestContinueThroughASymlink(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("one")}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("two")}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("three")}},
	)
	defer srv.Close()
	base := t.TempDir()
	real := filepath.Join(base, "real")
	link := filepath.Join(base, "link")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	environ := env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=test-key")
	a := gantry(t, real, environ, "-p", "first", "--output-format", "json")
	b := gantry(t, link, append(environ, "PWD="+link), "--continue", "-p", "second", "--output-format", "json")
	var ra, rb struct {
		SessionID string `json:"session_id"`
	}
	json.Unmarshal([]byte(a.stdout), &ra)
	json.Unmarshal([]byte(b.stdout), &rb)
	if a.code != 0 || b.code != 0 || ra.SessionID == "" || ra.SessionID != rb.SessionID {
		t.Fatalf("sessions %q and %q (exit %d, %d)\n%s", ra.SessionID, rb.SessionID, a.code, b.code, b.stderr)
	}
	c := gantry(t, base, environ, "--continue", "-C", link, "-p", "third", "--output-format", "json")
	var rc struct {
		SessionID string `json:"session_id"`
	}
	json.Unmarshal([]byte(c.stdout), &rc)
	if c.code != 0 || rc.SessionID != ra.SessionID {
		t.Errorf("-C through the link: session %q, exit %d\n%s", rc.SessionID, c.code, c.stderr)
	}
}

// gantry sessions reads a store it cannot write: a read-only data folder.
func TestSessionsOnAReadOnlyStore(t *testing.T) {
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("stored")}})
	defer srv.Close()
	dir := t.TempDir()
	environ := env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=test-key")
	if r := gantry(t, dir, environ, "-p", "keep me"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	data := envValue(environ, "GANTRY_DATA_DIR")
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		// Root writes any folder: bubblewrap mounts this one read-only.
		bwrap := testenv.Need(t, "bwrap")
		cmd = exec.Command(bwrap, "--dev-bind", "/", "/", "--ro-bind", data, data, binary, "sessions")
	} else {
		if err := os.Chmod(data, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(data, 0o755)
		cmd = exec.Command(binary, "sessions")
	}
	cmd.Dir, cmd.Env = dir, environ
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "keep me") {
		t.Fatalf("gantry sessions on a read-only store: %v\n%s", err, out)
	}
	// A store that is not there yet lists nothing, and creates nothing.
	empty := filepath.Join(t.TempDir(), "none")
	r := gantry(t, dir, append(environ, "GANTRY_DATA_DIR="+empty), "sessions")
	if r.code != 0 || !strings.Contains(r.stdout, "No sessions yet.") {
		t.Errorf("no store: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(empty); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("listing created the data folder: %v", err)
	}
}
