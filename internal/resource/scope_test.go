package resource

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// get starts (or returns) the fake of key in p, failing the test on an error.
func get(t *testing.T, p *Pool, rec *recorder, key Key, err error) *fake {
	t.Helper()
	f, gerr := Get(context.Background(), p, key, func(context.Context) (*fake, error) { return rec.make(key.Kind, err), nil })
	if gerr != nil {
		t.Fatalf("Get %s: %v", key, gerr)
	}
	return f
}

// A resource lives in the pool of its key's scope, whichever pool of the tree it is
// asked from: a process resource asked for by a conversation is shared by every
// session, a conversation's own is not.
func TestKeyScopeChoosesTheOwner(t *testing.T) {
	var rec recorder
	proc := NewPool(nil)
	s1, s2 := proc.Child(Session), proc.Child(Session)
	c1 := s1.Child(Conversation)
	server := Key{Kind: "lsp:gopls", Of: "/src"}
	shell := Key{Scope: Session, Kind: "shell"}
	kernel := Key{Scope: Conversation, Kind: "eval"}

	if get(t, c1, &rec, server, nil) != get(t, s2, &rec, server, nil) {
		t.Error("a process resource asked for from two sessions was started twice")
	}
	if get(t, c1, &rec, shell, nil) != get(t, s1, &rec, shell, nil) {
		t.Error("a conversation of a session does not share the session's resource")
	}
	if get(t, s1, &rec, shell, nil) == get(t, s2, &rec, shell, nil) {
		t.Error("two sessions share a session resource")
	}
	if get(t, c1, &rec, kernel, nil) == get(t, s1, &rec, kernel, nil) {
		t.Error("a subagent's conversation shares the main conversation's kernel")
	}
	if _, ok := Peek[*fake](proc, kernel); ok {
		t.Error("a conversation resource landed in the process pool though sessions exist")
	}
	// A pool with nothing narrower above owns the narrower scopes itself.
	alone := NewPool(nil)
	get(t, alone, &rec, kernel, nil)
	if got := alone.Running(); !slices.Equal(got, []Key{kernel}) {
		t.Errorf("a process pool alone runs %v", got)
	}
	// Running from a conversation: what a Get from it can reach, outermost first.
	if got := c1.Running(); !slices.Equal(got, []Key{server, shell, kernel, kernel}) {
		t.Errorf("Running from the conversation = %v", got)
	}
	if err := errors.Join(proc.Close(context.Background()), alone.Close(context.Background())); err != nil {
		t.Fatal(err)
	}
}

// Each pool is closed when its owner ends: a conversation's resources at the end of
// the conversation, not the session's; a session's at its end, not the process's;
// each newest first, its errors naming the resource.
func TestEachScopeClosesWithItsOwner(t *testing.T) {
	var rec recorder
	proc := NewPool(nil)
	sess := proc.Child(Session)
	get(t, sess, &rec, Key{Kind: "server"}, nil)
	get(t, sess, &rec, Key{Scope: Session, Kind: "shell"}, nil)
	get(t, sess, &rec, Key{Scope: Session, Kind: "desktop"}, errors.New("the display is gone"))
	get(t, sess, &rec, Key{Scope: Session, Kind: "vibe"}, nil)
	sub := sess.Child(Conversation)
	get(t, sub, &rec, Key{Scope: Conversation, Kind: "debug"}, nil)
	get(t, sub, &rec, Key{Scope: Conversation, Kind: "eval"}, errors.New("a kernel would not stop"))

	err := sub.Close(context.Background())
	if got := rec.closed(); !slices.Equal(got, []string{"eval", "debug"}) {
		t.Fatalf("the subagent's end closed %v", got)
	}
	if err == nil || !strings.Contains(err.Error(), "eval: a kernel would not stop") {
		t.Errorf("the conversation's close error = %v", err)
	}
	if _, gerr := Get(context.Background(), sub, Key{Scope: Conversation, Kind: "eval"}, func(context.Context) (*fake, error) {
		return rec.make("late", nil), nil
	}); !errors.Is(gerr, ErrClosed) {
		t.Errorf("Get from an ended conversation: %v", gerr)
	}

	if _, gerr := Get(context.Background(), sub, Key{Kind: "server"}, func(context.Context) (*fake, error) {
		return rec.make("late server", nil), nil
	}); !errors.Is(gerr, ErrClosed) {
		t.Errorf("an ended conversation got a process resource: %v", gerr)
	}

	err = sess.Close(context.Background())
	if got := rec.closed()[2:]; !slices.Equal(got, []string{"vibe", "desktop", "shell"}) {
		t.Fatalf("the session's end closed %v", got)
	}
	if err == nil || !strings.Contains(err.Error(), "desktop: the display is gone") {
		t.Errorf("the session's close error = %v", err)
	}
	if err := proc.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := rec.closed()[5:]; !slices.Equal(got, []string{"server"}) {
		t.Fatalf("the process's end closed %v", got)
	}
}

// A child its owner left open is closed by its parent after the parent's own
// resources (an owner among them, the vibe Board, closes its workers' pools itself
// once they stopped), newest first, and a child asked of a closed pool is closed.
func TestParentClosesChildrenLeftOpen(t *testing.T) {
	var rec recorder
	proc := NewPool(nil)
	sess := proc.Child(Session)
	get(t, sess, &rec, Key{Scope: Session, Kind: "board"}, nil)
	first, second := sess.Child(Conversation), sess.Child(Conversation)
	get(t, first, &rec, Key{Scope: Conversation, Kind: "first"}, nil)
	get(t, second, &rec, Key{Scope: Conversation, Kind: "second"}, errors.New("stuck"))
	get(t, proc, &rec, Key{Kind: "server"}, nil)

	err := proc.Close(context.Background())
	if got := rec.closed(); !slices.Equal(got, []string{"server", "board", "second", "first"}) {
		t.Fatalf("closed %v", got)
	}
	if err == nil || !strings.Contains(err.Error(), "second: stuck") {
		t.Errorf("close error = %v", err)
	}
	late := sess.Child(Conversation)
	if _, gerr := Get(context.Background(), late, Key{Scope: Conversation, Kind: "late"}, func(context.Context) (*fake, error) {
		return rec.make("late", nil), nil
	}); !errors.Is(gerr, ErrClosed) {
		t.Errorf("Get from a child of a closed pool: %v", gerr)
	}
}
