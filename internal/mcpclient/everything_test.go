package mcpclient

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// everythingDir holds the reference MCP server of the MCP project, pinned in its
// package.json and package-lock.json; scripts/test.sh and .ci/run install it with npm ci.
const (
	everythingDir     = "testdata/everything"
	everythingVersion = "2026.8.31"
)

// everything is the stdio server of @modelcontextprotocol/server-everything under
// name. The test is skipped when Node.js or npm is missing, and fails when they are
// there but the package is not installed.
func everything(t *testing.T, name string) Server {
	t.Helper()
	// The reference MCP server (npm @modelcontextprotocol/server-everything) runs in
	// Node.js, and npm installs it.
	node := testenv.Need(t, "node")
	testenv.Need(t, "npm")
	pkg := filepath.Join(everythingDir, "node_modules", "@modelcontextprotocol", "server-everything")
	install := "run `npm ci --no-audit --no-fund --prefix internal/mcpclient/testdata/everything` (scripts/test.sh runs it when needed)"
	raw, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		t.Fatalf("the reference MCP server is not installed (%v): %s", err, install)
	}
	var meta struct{ Version string }
	if err := json.Unmarshal(raw, &meta); err != nil || meta.Version != everythingVersion {
		t.Fatalf("@modelcontextprotocol/server-everything %q is installed, the test is written for %s: %s", meta.Version, everythingVersion, install)
	}
	entry, err := filepath.Abs(filepath.Join(pkg, "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	return Server{Name: name, Type: TypeStdio, Command: node, Args: []string{entry, "stdio"}}
}

// The reference server, written with the TypeScript SDK: its tools are listed and
// called, and the tool it offers only to a client that announces roots is offered
// to gantry, which answers with the project.
func TestEverythingServer(t *testing.T) {
	s := everything(t, "everything")
	project := t.TempDir()
	set := connect(t, Options{Roots: []string{project}}, s)
	if f := set.Failures(); len(f) != 0 {
		t.Fatalf("failures: %q", f)
	}
	var names []string
	for _, tl := range set.Tools() {
		names = append(names, tl.Name())
	}
	for _, want := range []string{"mcp__everything__echo", "mcp__everything__get-sum", "mcp__everything__get-roots-list"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s not listed: %q", want, names)
		}
	}
	if r := call(context.Background(), t, set, "mcp__everything__echo", `{"message":"hello from gantry"}`); r.IsError || r.Text != "Echo: hello from gantry" {
		t.Errorf("echo: %+v", r)
	}
	if r := call(context.Background(), t, set, "mcp__everything__get-sum", `{"a":2,"b":40}`); r.IsError || !strings.Contains(r.Text, "42") {
		t.Errorf("get-sum: %+v", r)
	}
	r := call(context.Background(), t, set, "mcp__everything__get-roots-list", `{}`)
	if uri := fileURI(project); r.IsError || !strings.Contains(r.Text, "URI: "+uri) || !strings.Contains(r.Text, filepath.Base(project)) {
		t.Errorf("get-roots-list: %+v, want %s", r, uri)
	}
	if r := call(context.Background(), t, set, "mcp__everything__echo", `{"message":42}`); !r.IsError {
		t.Errorf("echo of a number: %+v", r)
	}

	// Without roots, the server hides the tool.
	bare := connect(t, Options{}, everything(t, "bare"))
	for _, tl := range bare.Tools() {
		if tl.Name() == "mcp__bare__get-roots-list" {
			t.Error("get-roots-list offered to a client without roots")
		}
	}
	if len(bare.Tools()) == 0 {
		t.Errorf("no tools; failures %q", bare.Failures())
	}
}
