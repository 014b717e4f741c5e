package mcpserve

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gantry-dev/gantry/internal/app"
)

// initialize is answered while the session that lists the tools is still being built;
// the tools' list waits for it and then holds every tool.
func TestInitializeBeforeTheBuild(t *testing.T) {
	dir := project(t)
	release, entered := make(chan struct{}), make(chan struct{})
	newApp = func(o app.Options) (*app.App, error) {
		close(entered)
		<-release
		return app.New(o)
	}
	t.Cleanup(func() { newApp = app.New })
	s := newServer(t, app.Options{Cwd: dir})
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the build did not start")
	}
	cs := connect(t, s, nil) // initialize answered: the build is held
	listed := make(chan *mcp.ListToolsResult, 1)
	failed := make(chan error, 1)
	go func() {
		r, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			failed <- err
			return
		}
		listed <- r
	}()
	close(release)
	select {
	case r := <-listed:
		if len(r.Tools) == 0 || len(r.Tools) != len(s.Tools()) {
			t.Errorf("listed %d tools, the server serves %d: the list did not wait for the build", len(r.Tools), len(s.Tools()))
		}
	case err := <-failed:
		t.Fatalf("listing the tools: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the tools' list was not answered")
	}
}

// A session that cannot be built: initialize is answered while it is built, the
// tools' list is refused once it has failed, and Run returns the build's error.
func TestBuildFailureIsAnsweredAndReturned(t *testing.T) {
	release := make(chan struct{})
	newApp = func(o app.Options) (*app.App, error) {
		<-release
		return app.New(o)
	}
	t.Cleanup(func() { newApp = app.New })
	s, err := New(Options{App: app.Options{Cwd: filepath.Join(t.TempDir(), "missing")}, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), st) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		close(release)
		<-done
		t.Fatalf("initialize was not answered while the session was built: %v", err)
	}
	defer cs.Close()
	listed := make(chan error, 1)
	go func() {
		_, err := cs.ListTools(context.Background(), nil)
		listed <- err
	}()
	close(release)
	select {
	case err := <-listed:
		if err == nil {
			t.Error("the tools' list was answered though no session could be built")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the tools' list was not answered after the build failed")
	}
	select {
	case err := <-done:
		var ue *app.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "not an existing folder") {
			t.Errorf("Run returned %v, want the usage error of the missing folder", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after the build failed")
	}
}
