package app

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/testenv"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/resource"
)

// Nothing live opens before a call needs it: the packages' start (this test binary
// links every tool, as `gantry version` does) and a preview App built and closed
// leave no inotify instance open.
func TestNoInotifyBeforeACall(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("inotify is Linux's")
	}
	if n := testenv.InotifyFDs(t); n != 0 {
		t.Fatalf("%d inotify instance(s) open before any App was built: something opens one at start", n)
	}
	project(t, "", map[string]string{}) // a config folder of the test's own
	a, err := New(Options{Preview: true, Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if n := testenv.InotifyFDs(t); n != 0 {
		t.Errorf("building a preview App opened %d inotify instance(s)", n)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if n := testenv.InotifyFDs(t); n != 0 {
		t.Errorf("%d inotify instance(s) outlive the App", n)
	}
}

// closeLog is a resource that notes its closing and fails as told.
type closeLog struct {
	name string
	log  *[]string
	err  error
}

func (c *closeLog) Close(context.Context) error { *c.log = append(*c.log, c.name); return c.err }

func hold(t *testing.T, pool *resource.Pool, key resource.Key, log *[]string, err error) {
	t.Helper()
	if _, gerr := resource.Get(context.Background(), pool, key, func(context.Context) (*closeLog, error) {
		return &closeLog{name: key.Kind, log: log, err: err}, nil
	}); gerr != nil {
		t.Fatal(gerr)
	}
}

// The session's toolsets are resources of its pool under session and conversation
// keys; a conversation's pool (a subagent's, a worker's) closes at its own end, not
// the session's; the session's pool closes with the App, its errors said by Close
// naming the resource; the process's pool, given by the face, outlives the App.
func TestResourcesCloseWithTheirOwner(t *testing.T) {
	dir := project(t, "", map[string]string{})
	proc := resource.NewPool(nil)
	defer func() {
		if err := proc.Close(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	var log []string
	hold(t, proc, resource.Key{Kind: "server"}, &log, nil)
	a, err := newStarted(Options{Cwd: dir, LLM: noModel{}, Resources: proc, Vibe: true}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	running := map[resource.Key]bool{}
	for _, k := range a.scope.Running() {
		running[k] = true
	}
	for _, k := range []resource.Key{shellKey, desktopKey, vibeKey, debugKey, evalKey} {
		if !running[k] {
			t.Errorf("the session's pool does not hold %s: %v", k, a.scope.Running())
		}
	}
	if slices.ContainsFunc(proc.Running(), func(k resource.Key) bool { return k.Scope != resource.Process }) {
		t.Errorf("a session's resource is in the process's pool: %v", proc.Running())
	}

	// A subagent's conversation: its own debugger and kernels, closed at its end.
	view := a.agent.Tools.Without("agent")
	conv := a.ownTools(view)
	hold(t, conv, resource.Key{Scope: resource.Conversation, Kind: "conversation's"}, &log, nil)
	if k, _ := resource.Peek[*closeLog](a.scope, resource.Key{Scope: resource.Conversation, Kind: "conversation's"}); k != nil {
		t.Error("a conversation's resource is the session's")
	}
	if err := conv.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(log, []string{"conversation's"}) {
		t.Fatalf("the conversation's end closed %v", log)
	}
	if _, ok := resource.Peek[*closeLog](a.scope, evalKey); ok {
		t.Error("the session's kernels are gone with the conversation's")
	}

	hold(t, a.scope, resource.Key{Scope: resource.Session, Kind: "session's"}, &log, errors.New("it would not stop"))
	a.ownTools(a.agent.Tools.Without("agent")) // a conversation the session's end cuts off
	err = a.Close()
	if err == nil || !strings.Contains(err.Error(), "session's: it would not stop") {
		t.Errorf("Close said %v", err)
	}
	if !slices.Equal(log, []string{"conversation's", "session's"}) {
		t.Errorf("closed %v; the process's server must outlive the session", log)
	}
	if _, err := resource.Get(context.Background(), a.scope, debugKey, func(context.Context) (*closeLog, error) { return nil, nil }); !errors.Is(err, resource.ErrClosed) {
		t.Errorf("the session's pool is open after Close: %v", err)
	}
	if !slices.Equal(proc.Running(), []resource.Key{{Kind: "server"}}) {
		t.Errorf("the process's pool after the session's end: %v", proc.Running())
	}
}
