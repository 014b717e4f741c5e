package mcpclient

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

// echoServer is the test server under name, with extra flags.
func echoServer(name string, flags ...string) Server {
	return Server{Name: name, Command: echoBin, Args: flags}
}

// connect connects to servers and closes the Set when the test ends.
func connect(t *testing.T, opts Options, servers ...Server) *Set {
	t.Helper()
	set := Connect(context.Background(), servers, opts)
	t.Cleanup(func() { set.Close(context.Background()) })
	return set
}

// find returns the tool named name.
func find(t *testing.T, set *Set, name string) tool.Tool {
	t.Helper()
	for _, tl := range set.Tools() {
		if tl.Name() == name {
			return tl
		}
	}
	t.Fatalf("no tool %s; failures: %q", name, set.Failures())
	return nil
}

// call decodes input for the tool named name and runs it with ctx.
func call(ctx context.Context, t *testing.T, set *Set, name, input string) tool.Result {
	t.Helper()
	inv, msg := find(t, set, name).Decode(tool.Env{Cwd: t.TempDir()}, json.RawMessage(input))
	if msg != "" {
		t.Fatalf("%s refused %s: %s", name, input, msg)
	}
	// Rules name an MCP tool by its name alone: it has no principal argument, and
	// its title says which tool of which server it is.
	if inv.Principal != "" || !strings.Contains(inv.Title, "(MCP server ") {
		t.Errorf("principal %q, title %q", inv.Principal, inv.Title)
	}
	return inv.Run(ctx)
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

// waitLastWords waits until the last line the stdio server named server wrote on
// its standard error holds want.
func waitLastWords(t *testing.T, set *Set, server, want string) {
	t.Helper()
	var c *conn
	for _, sc := range set.conns {
		if sc.name == server {
			c = sc
		}
	}
	if c == nil {
		t.Fatalf("no connection to %q; failures: %q", server, set.Failures())
	}
	waitFor(t, "server "+server+" to say "+want+" on stderr", func() bool { return strings.Contains(c.lastWords(), want) })
}
