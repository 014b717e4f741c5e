package session

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// leaseHelperEnv, when set, makes the test binary a holder of a lease: its value is
// "DBPATH SESSIONID". It prints "held" and waits to be killed.
const leaseHelperEnv = "GANTRY_SESSION_LEASE_HELPER"

func TestHelperHolder(t *testing.T) {
	v := os.Getenv(leaseHelperEnv)
	if v == "" {
		t.Skip("helper process for the lease tests")
	}
	path, id, _ := strings.Cut(v, " ")
	st, err := Open(path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	s, err := st.Get(id)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	if _, err := s.Lease(); err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	fmt.Println("held")
	select {}
}

// holdInChild starts a process that leases session id of the store at path and
// returns it once it holds the lease.
func holdInChild(t *testing.T, path, id string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHolder$", "-test.count=1")
	cmd.Env = append(os.Environ(), leaseHelperEnv+"="+path+" "+id)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "held" {
		t.Fatalf("the holder said %q (%v)", line, err)
	}
	return cmd
}

func TestLeaseOneWriterPerSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := mustCreate(t, st, "/p")

	child := holdInChild(t, path, s.ID())
	_, err = s.Lease()
	var held *HeldError
	if !errors.As(err, &held) || !errors.Is(err, ErrHeld) {
		t.Fatalf("a second writer got %v, want a HeldError", err)
	}
	if held.Holder.PID != child.Process.Pid || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", child.Process.Pid)) {
		t.Errorf("the refusal does not name the holder: %v", err)
	}
	running, err := st.Running()
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := running[s.ID()]; !ok || h.PID != child.Process.Pid {
		t.Errorf("Running: %v", running)
	}

	// Killed, the holder's lease is stale: taken over.
	child.Process.Kill()
	child.Wait()
	if running, err := st.Running(); err != nil || len(running) != 0 {
		t.Errorf("Running after the holder died: %v, %v", running, err)
	}
	l, err := s.Lease()
	if err != nil {
		t.Fatalf("the stale lease was not taken over: %v", err)
	}
	// This process holds it now: a second Lease in it is refused too.
	if _, err := s.Lease(); !errors.Is(err, ErrHeld) {
		t.Errorf("a second lease in the same process: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l2, err := s.Lease()
	if err != nil {
		t.Fatalf("after Release: %v", err)
	}
	l2.Release()
	if _, err := st.Get("zzzzzzzzzzzzzzzz"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown session: %v", err)
	}
}

// A lease whose pid now runs another process (started at another time) is stale.
func TestLeaseOfAReusedPID(t *testing.T) {
	st := openTemp(t)
	s := mustCreate(t, st, "/p")
	me := self()
	if me.started == 0 {
		t.Skip("no process start times here")
	}
	if _, err := st.db.Exec(`INSERT INTO leases (session_id, pid, started, boot, host, since) VALUES (?, ?, ?, ?, ?, ?)`,
		s.ID(), me.pid, me.started-1, me.boot, me.host, time.Now().UnixNano()); err != nil {
		t.Fatal(err)
	}
	l, err := s.Lease()
	if err != nil {
		t.Fatalf("a lease of a reused pid was not taken over: %v", err)
	}
	l.Release()
	// One of another host cannot be checked: it holds.
	if _, err := st.db.Exec(`INSERT INTO leases (session_id, pid, started, boot, host, since) VALUES (?, 1, 1, 'b', 'elsewhere', ?)`,
		s.ID(), time.Now().UnixNano()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lease(); err == nil || !strings.Contains(err.Error(), "on elsewhere") {
		t.Errorf("a lease of another host: %v", err)
	}
}

// Many processes' worth of sessions at once: each lease is its own.
func TestLeaseConcurrent(t *testing.T) {
	st := openTemp(t)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			s, err := st.Create(Meta{Cwd: "/c"})
			if err != nil {
				errs <- err
				return
			}
			l, err := s.Lease()
			if err != nil {
				errs <- err
				return
			}
			errs <- l.Release()
		})
	}
	testenv.Wait(t, &wg, testenv.Bound, "the leases")
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestFork(t *testing.T) {
	st := openTemp(t)
	s := mustCreate(t, st, "/p")
	if err := s.SetTitle("the original"); err != nil {
		t.Fatal(err)
	}
	msgs := []llm.Message{userText("go"), assistant(call("a", "bash"))}
	if err := s.AppendMessage(msgs[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendResponse(msgs[1], usage(10, 5), 0.5); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvent(KindToolRunning, map[string]any{"id": "a"}); err != nil {
		t.Fatal(err)
	}
	f, err := st.Fork(s.ID(), Meta{Cwd: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	if f.ID() == s.ID() || f.Meta().Title != "the original" {
		t.Errorf("fork %s of %s, title %q", f.ID(), s.ID(), f.Meta().Title)
	}
	r, err := f.Resume()
	if err != nil {
		t.Fatal(err)
	}
	got, unfinished := r.Messages, r.Unfinished
	assertMessages(t, got, append(msgs, user(llm.Block{Type: llm.BlockToolResult, ToolCallID: "a", Text: MayHaveRun, IsError: true})))
	if len(unfinished) != 1 || !unfinished[0].Started {
		t.Errorf("unfinished: %+v", unfinished)
	}
	in, err := f.Info()
	if err != nil {
		t.Fatal(err)
	}
	if in.Cost != 0 || in.Messages != 2 {
		t.Errorf("fork info: %+v", in)
	}
	// The fork goes on by itself; the original is untouched.
	if err := f.AppendMessage(userText("more")); err != nil {
		t.Fatal(err)
	}
	raw, _ := s.RawMessages()
	if len(raw) != 2 {
		t.Errorf("the original has %d messages", len(raw))
	}
}

func TestCanonicalFolder(t *testing.T) {
	st := openTemp(t)
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	link := filepath.Join(dir, "link")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	s := mustCreate(t, st, link)
	if s.Meta().Cwd != Canonical(real) {
		t.Errorf("stored folder %q", s.Meta().Cwd)
	}
	for _, p := range []string{real, link, link + "/", filepath.Join(real, "..", "real")} {
		got, err := st.Last(p)
		if err != nil || got.ID() != s.ID() {
			t.Errorf("Last(%q) = %v, %v", p, got, err)
		}
	}
	// A session stored as given by an older gantry is found too.
	if _, err := st.db.Exec(`UPDATE sessions SET cwd = ? WHERE id = ?`, link, s.ID()); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Last(link); err != nil || got.ID() != s.ID() {
		t.Errorf("a folder stored as typed: %v, %v", got, err)
	}
}

func TestOpenRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sessions.db")
	if _, err := OpenRead(path); !errors.Is(err, ErrNoStore) {
		t.Errorf("no database: %v", err)
	}
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s := mustCreate(t, st, "/p")
	if err := s.AppendMessage(userText("hi")); err != nil {
		t.Fatal(err)
	}
	// Read while the writer has it open.
	ro, err := OpenRead(path)
	if err != nil {
		t.Fatal(err)
	}
	list, err := ro.List(0)
	if err != nil || len(list) != 1 {
		t.Fatalf("List: %v, %v", list, err)
	}
	ros, err := ro.Get(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	var we *WriteError
	if err := ros.AppendMessage(userText("no")); !errors.As(err, &we) || !strings.Contains(err.Error(), "reading only") {
		t.Errorf("a write to a read-only store: %v", err)
	}
	if _, err := ros.Lease(); !errors.As(err, &we) {
		t.Errorf("a lease of a read-only store: %v", err)
	}
	ro.Close()
	st.Close()

	// A folder that cannot be written (the writer gone, no -shm file left).
	if os.Geteuid() == 0 {
		t.Log("running as root, which writes any folder: the read-only folder case runs in cmd/gantry under bubblewrap")
		return
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	ro, err = OpenRead(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if list, err := ro.List(0); err != nil || len(list) != 1 {
		t.Errorf("List in a read-only folder: %v, %v", list, err)
	}
}

func TestWriteErrorSentences(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{errReadOnlyStore, "opened for reading only"},
		{fmt.Errorf("x: %w", os.ErrPermission), "x: permission denied"},
	} {
		e := &WriteError{Path: "/d/sessions.db", Op: "append message", Err: c.err}
		if got := e.Error(); !strings.HasPrefix(got, "the session store /d/sessions.db could not be written: ") || !strings.Contains(got, c.want) {
			t.Errorf("%v: %q", c.err, got)
		}
	}
}

// A session made by CreateLeased is held from the start, by this process, in the
// same row Lease writes: a second lease is refused, Release gives it up, and its
// messages have their calls' start stored (starts_from 1), as a leased session's do.
func TestCreateLeased(t *testing.T) {
	st := openTemp(t)
	s, l, err := st.CreateLeased(Meta{Cwd: "/p", Provider: "anthropic", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	running, err := st.Running()
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := running[s.ID()]; !ok || h.PID != os.Getpid() {
		t.Fatalf("Running: %v, want this process holding %s", running, s.ID())
	}
	if _, err := s.Lease(); !errors.Is(err, ErrHeld) {
		t.Errorf("a second lease in the same process: %v", err)
	}
	var startsFrom int
	if err := st.db.QueryRow(`SELECT starts_from FROM sessions WHERE id = ?`, s.ID()).Scan(&startsFrom); err != nil || startsFrom != 1 {
		t.Errorf("starts_from %d, %v; want 1", startsFrom, err)
	}
	got, err := st.Get(s.ID())
	if err != nil || got.Meta().Model != "m" {
		t.Fatalf("Get: %v, %v", got, err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if running, err := st.Running(); err != nil || len(running) != 0 {
		t.Errorf("Running after Release: %v, %v", running, err)
	}
	l2, err := s.Lease()
	if err != nil {
		t.Fatalf("after Release: %v", err)
	}
	l2.Release()
}
