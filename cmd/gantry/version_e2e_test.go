package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// One version string everywhere: a gantry built with a version of its own says it in
// gantry version, --version and -v, doctor's first line, the terminal UI's first line,
// ACP's agentInfo, MCP's serverInfo and the web tools' User-Agent.
func TestOneVersionEverywhere(t *testing.T) {
	const want = "v9.8.7-agree"
	bin := filepath.Join(t.TempDir(), "gantry")
	build := exec.Command("go", "build", "-buildvcs=auto", "-ldflags", "-X github.com/gantry-dev/gantry/internal/version.version="+want, "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building gantry with a version: %v\n%s", err, out)
	}
	srv := fakellm.New()
	defer srv.Close()
	dir := t.TempDir()
	e := env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k")

	line := ""
	for _, args := range [][]string{{"version"}, {"--version"}, {"-v"}} {
		r := gantryOf(t, bin, dir, e, args...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "gantry "+want+" (") {
			t.Errorf("gantry %s: exit %d %q", args[0], r.code, r.stdout)
		}
		if line == "" {
			line = r.stdout
		} else if r.stdout != line {
			t.Errorf("gantry %s says %q, gantry version %q", args[0], r.stdout, line)
		}
	}
	if r := gantryOf(t, bin, dir, e, "doctor"); !strings.HasPrefix(r.stdout, line) {
		t.Errorf("doctor's first line is not gantry version's %q:\n%s", line, r.stdout)
	}

	acp := rpcFirstAnswer(t, bin, dir, e, "acp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	if v := acpDig(acp, "result", "agentInfo", "version"); v != want {
		t.Errorf("ACP's agentInfo.version = %v, want %s: %v", v, want, acp)
	}
	mcp := rpcFirstAnswer(t, bin, dir, e, "mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if v := acpDig(mcp, "result", "serverInfo", "version"); v != want {
		t.Errorf("MCP's serverInfo.version = %v, want %s: %v", v, want, mcp)
	}

	var (
		mu     sync.Mutex
		agents []string
	)
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents = append(agents, r.UserAgent())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "a page\n")
	}))
	defer web.Close()
	if r := gantryOf(t, bin, dir, e, "tool", "web_fetch", `{"url":"`+web.URL+`/page"}`); r.code != 0 {
		t.Errorf("web_fetch: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	mu.Lock()
	if len(agents) != 1 || !strings.HasPrefix(agents[0], "gantry/"+want+" ") {
		t.Errorf("the web tool's User-Agent: %q, want gantry/%s …", agents, want)
	}
	mu.Unlock()

	// The terminal UI of the same build (startTUI runs the package's binary; no test
	// runs in parallel with this one).
	tt := func() *tuiTerm {
		saved := binary
		defer func() { binary = saved }()
		binary = bin
		return startTUI(t, 100, 30, dir, e)
	}()
	tt.waitFor("gantry " + want + " · ")
}

// rpcFirstAnswer runs gantry's sub-command cmd (acp or mcp), sends it one JSON-RPC
// line, and returns the answer with id 1; then closes its input, which ends it.
func rpcFirstAnswer(t *testing.T, bin, dir string, environ []string, cmd, request string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, bin, cmd)
	c.Dir, c.Env = dir, environ
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		in.Close()
		_, _ = io.Copy(io.Discard, out) // what else it says until it ends
		if err := c.Wait(); err != nil {
			t.Errorf("gantry %s after its input closed: %v", cmd, err)
		}
	}()
	if _, err := io.WriteString(in, request+"\n"); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil && m["id"] == float64(1) {
			return m
		}
	}
	t.Fatalf("gantry %s gave no answer to %s: %v", cmd, request, sc.Err())
	return nil
}
