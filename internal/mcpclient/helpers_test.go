package mcpclient

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

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
