package main

// End-to-end tests of `gantry mcp`: the built binary driven by the real TypeScript MCP
// client (testdata/mcp-client/drive.mjs, @modelcontextprotocol/sdk 1.32.2) over stdio
// and streamable HTTP, and by the MCP Inspector's CLI (2.12.0).

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/testenv"
)

const mcpClientDir = "testdata/mcp-client"

// mcpPackages are the npm packages of the client folder, at the versions the tests are
// written for.
var mcpPackages = map[string]string{"@modelcontextprotocol/sdk": "1.32.2", "@modelcontextprotocol/inspector": "2.12.0"}

// mcpClient returns node and the client folder; a missing node ends the test as
// testenv says, a missing client package fails it with what to do.
func mcpClient(t *testing.T) (node, dir string) {
	t.Helper()
	node = testenv.Need(t, "node")
	var err error
	if dir, err = filepath.Abs(mcpClientDir); err != nil {
		t.Fatal(err)
	}
	for name, version := range mcpPackages {
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", name, "package.json"))
		var meta struct{ Version string }
		if err != nil || json.Unmarshal(b, &meta) != nil || meta.Version != version {
			t.Fatalf("%s %s is not installed in %s (%v): run `npm ci --no-audit --no-fund --prefix cmd/gantry/testdata/mcp-client`", name, version, mcpClientDir, err)
		}
	}
	return node, dir
}

type mcpRun struct {
	Steps []struct {
		Op     string `json:"op"`
		Conn   string `json:"conn"`
		Ms     float64
		Error  string          `json:"error"`
		Result json.RawMessage `json:"result"`
		Status int             `json:"status"`
		Ran    bool            `json:"ran"`
		Gone   bool            `json:"goneWithin5s"`
	} `json:"steps"`
	Elicited    []string `json:"elicited"`
	DriverError *string  `json:"driverError"`
}

type mcpResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
	Tools   []struct {
		Name        string `json:"name"`
		Title       string `json:"title"`
		Annotations struct {
			ReadOnlyHint    bool  `json:"readOnlyHint"`
			DestructiveHint *bool `json:"destructiveHint"`
		} `json:"annotations"`
	} `json:"tools"`
}

func (r mcpResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func driveMCP(t *testing.T, scenario map[string]any) mcpRun {
	t.Helper()
	node, dir := mcpClient(t)
	b, _ := json.Marshal(scenario)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The scenario on stdin: on the command line, its markers would be found in the
	// driver's own process.
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "drive.mjs"))
	cmd.Stdin = strings.NewReader(string(b))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("drive.mjs: %v\n%s", err, stderr.String())
	}
	var run mcpRun
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("drive.mjs printed %q: %v\n%s", out, err, stderr.String())
	}
	if run.DriverError != nil {
		t.Fatalf("drive.mjs: %s\n%s", *run.DriverError, stderr.String())
	}
	t.Logf("gantry's stderr:\n%s", stderr.String())
	return run
}

// mcpProject is a Go module (for gopls), a file to read, and a rules file that
// refuses rm.
func mcpProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":              "module example.com/demo\n\ngo 1.22\n",
		"main.go":             "package main\n\nimport \"fmt\"\n\n// Greeting is what main prints.\nconst Greeting = \"hello\"\n\nfunc main() { fmt.Println(Greeting) }\n",
		"notes.txt":           "alpha\nbeta\n",
		".gantry/config.yaml": "permissions:\n  deny:\n    - 'bash:rm( .*)?'\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func result(t *testing.T, run mcpRun, i int) mcpResult {
	t.Helper()
	s := run.Steps[i]
	if s.Error != "" {
		t.Fatalf("step %d (%s): %s", i, s.Op, s.Error)
	}
	var r mcpResult
	if err := json.Unmarshal(s.Result, &r); err != nil {
		t.Fatalf("step %d: %v: %s", i, err, s.Result)
	}
	return r
}

// The steps both transports play: list, read_file, grep, lsp twice, eval state on one
// connection and not another, a denied bash, a dropped connection mid-bash.
func mcpSteps(marker string) []map[string]any {
	js := func(conn, code string) map[string]any {
		return map[string]any{"op": "call", "conn": conn, "name": "eval", "arguments": map[string]any{
			"language": "javascript", "code": code, "description": "keep a value between two calls"}}
	}
	hover := map[string]any{"op": "call", "conn": "a", "name": "lsp", "arguments": map[string]any{
		"action": "hover", "file": "main.go", "line": 6, "symbol": "Greeting"}}
	return []map[string]any{
		{"op": "connect", "conn": "a"}, // 0
		{"op": "list", "conn": "a"},    // 1
		{"op": "call", "conn": "a", "name": "read_file", "arguments": map[string]any{"path": "notes.txt"}}, // 2
		{"op": "call", "conn": "a", "name": "grep", "arguments": map[string]any{"pattern": "beta"}},        // 3
		hover,                          // 4
		hover,                          // 5
		js("a", "var kept = 41"),       // 6
		js("a", "kept + 1"),            // 7
		{"op": "connect", "conn": "b"}, // 8
		js("b", "typeof kept"),         // 9
		{"op": "call", "conn": "a", "name": "bash", "arguments": map[string]any{"command": "rm notes.txt"}},                                       // 10
		{"op": "call", "conn": "a", "name": "bash", "arguments": map[string]any{"command": "echo allowed-by-yolo"}},                               // 11
		{"op": "drop", "conn": "b", "name": "bash", "marker": marker, "arguments": map[string]any{"command": "sleep " + marker + "; echo slept"}}, // 12
		{"op": "close", "conn": "a"}, // 13
	}
}

func checkMCPSteps(t *testing.T, dir string, run mcpRun) {
	t.Helper()
	if len(run.Steps) < 14 {
		t.Fatalf("%d steps", len(run.Steps))
	}
	list := result(t, run, 1)
	names := map[string]bool{}
	for _, tl := range list.Tools {
		names[tl.Name] = true
		if tl.Name == "read_file" && (!tl.Annotations.ReadOnlyHint || tl.Title != "Read a file") {
			t.Errorf("read_file listed as %+v", tl)
		}
		if tl.Name == "bash" && (tl.Annotations.DestructiveHint == nil || !*tl.Annotations.DestructiveHint) {
			t.Errorf("bash listed as %+v", tl)
		}
	}
	for _, want := range []string{"read_file", "grep", "bash", "lsp", "eval", "ast_grep"} {
		if !names[want] {
			t.Errorf("%s is not listed: %v", want, names)
		}
	}
	if names["agent"] || names["todo_write"] {
		t.Errorf("a conversation's tool is listed: %v", names)
	}
	if r := result(t, run, 2); r.IsError || !strings.Contains(r.text(), "beta") {
		t.Errorf("read_file: %+v", r)
	}
	if r := result(t, run, 3); r.IsError || !strings.Contains(r.text(), "notes.txt") {
		t.Errorf("grep: %+v", r)
	}
	first, second := result(t, run, 4), result(t, run, 5)
	if first.IsError || !strings.Contains(first.text(), "Greeting") || second.IsError || !strings.Contains(second.text(), "Greeting") {
		t.Errorf("lsp hover: %q, then %q", first.text(), second.text())
	}
	t.Logf("lsp hover: first %.0f ms (gopls starts), second %.0f ms (the same gopls)", run.Steps[4].Ms, run.Steps[5].Ms)
	if run.Steps[5].Ms > run.Steps[4].Ms {
		t.Errorf("the second lsp call (%.0f ms) took longer than the first (%.0f ms): was the server started again?", run.Steps[5].Ms, run.Steps[4].Ms)
	}
	if r := result(t, run, 7); !strings.Contains(r.text(), "42") {
		t.Errorf("eval state on the same connection: %q", r.text())
	}
	if r := result(t, run, 9); !strings.Contains(r.text(), "undefined") {
		t.Errorf("eval state on another connection: %q", r.text())
	}
	if r := result(t, run, 10); !r.IsError || !strings.Contains(r.text(), "refused") {
		t.Errorf("a denied bash: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("the denied rm ran: %v", err)
	}
	if r := result(t, run, 11); r.IsError || !strings.Contains(r.text(), "allowed-by-yolo") {
		t.Errorf("bash in yolo: %+v", r)
	}
	if d := run.Steps[12]; !d.Ran || !d.Gone {
		t.Errorf("a connection dropped mid-bash: ran %v, the command gone within 5 s %v (%s)", d.Ran, d.Gone, d.Error)
	}
}

func TestMCPOverStdio(t *testing.T) {
	dir := mcpProject(t)
	marker := fmt.Sprintf("300.%d", time.Now().UnixNano())
	run := driveMCP(t, map[string]any{
		"stdio": map[string]any{"command": binary, "args": []string{"mcp", "--permission-mode", "yolo"}, "cwd": dir, "env": envMap(env(t))},
		"steps": mcpSteps(marker),
	})
	checkMCPSteps(t, dir, run)
}

func TestMCPOverHTTP(t *testing.T) {
	dir := mcpProject(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("e2e-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "mcp", "--permission-mode", "yolo", "--http", "127.0.0.1:0", "--token-file", tokenFile)
	cmd.Dir, cmd.Env = dir, env(t)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := bufio.NewScanner(stderr)
	url := ""
	for lines.Scan() {
		if u, ok := strings.CutPrefix(lines.Text(), "gantry mcp: serving "); ok {
			url = u
			break
		}
		t.Logf("gantry: %s", lines.Text())
	}
	go func() {
		for lines.Scan() {
			t.Log("gantry: " + lines.Text())
		}
		exited <- cmd.Wait()
	}()
	if url == "" {
		_ = cmd.Process.Kill()
		t.Fatalf("gantry mcp --http said no address: %v", testenv.Recv(t, exited, testenv.Bound, "gantry mcp --http to end once killed"))
	}
	marker := fmt.Sprintf("300.%d", time.Now().UnixNano())
	steps := append(mcpSteps(marker), map[string]any{"op": "noToken"})
	run := driveMCP(t, map[string]any{"http": map[string]any{"url": url, "token": "e2e-token"}, "steps": steps})
	checkMCPSteps(t, dir, run)
	if s := run.Steps[14]; s.Status != 401 {
		t.Errorf("a request without the token: status %d", s.Status)
	}
	_ = cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("gantry mcp --http ended with %v", err)
		}
	case <-time.After(15 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("gantry mcp --http did not end after SIGINT")
	}
}

// The MCP Inspector's CLI lists gantry's tools (its portability check finds no
// problem) and calls one.
func TestMCPInspectorCLI(t *testing.T) {
	node, dir := mcpClient(t)
	proj := mcpProject(t)
	inspector := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	run := func(args ...string) (string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, append([]string{inspector, "--cli", binary, "mcp"}, args...)...)
		cmd.Dir = proj
		cmd.Env = append(env(t), "MCP_CATALOG_PATH="+filepath.Join(t.TempDir(), "catalog.json"))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s%s", args, err, out, stderr.String())
		}
		return string(out), stderr.String()
	}
	out, errs := run("--method", "tools/list", "--strict")
	var list mcpResult
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Tools) < 10 {
		t.Fatalf("tools/list: %v: %s", err, out)
	}
	if strings.Contains(errs, "error") {
		t.Errorf("the inspector's portability check: %s", errs)
	}
	out, _ = run("--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=notes.txt")
	var r mcpResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.IsError || !strings.Contains(r.text(), "alpha") {
		t.Errorf("tools/call read_file: %v: %s", err, out)
	}
}

func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// gantry mcp's own mistakes are one sentence and exit 2, before anything starts.
func TestMCPBadFlags(t *testing.T) {
	dir := t.TempDir()
	e := env(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--http", "0.0.0.0:0"}, "not a loopback address"},
		{[]string{"mcp", "--http", "127.0.0.1"}, "not host:port"},
		{[]string{"mcp", "--http", "127.0.0.1:0"}, "needs a bearer token"},
		{[]string{"mcp", "--http", "127.0.0.1:0", "--listen", "0.0.0.0:0"}, "not both"},
		{[]string{"mcp", "--token-file", "/nonexistent"}, "goes with --http"},
		{[]string{"mcp", "--http", "127.0.0.1:0", "--token-file", "/nonexistent"}, "--token-file"},
		{[]string{"mcp", "--idle-timeout", "soon"}, "--idle-timeout"},
		{[]string{"mcp", "-p", "hello"}, "do not apply"},
		{[]string{"mcp", "--resume"}, "do not apply"},
		{[]string{"mcp", "--permission-mode", "sideways"}, "--permission-mode"},
	} {
		r := gantry(t, dir, e, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("gantry %v: exit %d, stderr %q (want %q)", c.args, r.code, r.stderr, c.want)
		}
	}
}

// A client that offers elicitation is asked before a call the gate would ask about:
// the TypeScript client's form answered "Allow once" runs the command, a declined one
// refuses it.
func TestMCPElicitation(t *testing.T) {
	dir := mcpProject(t)
	run := driveMCP(t, map[string]any{
		"stdio":  map[string]any{"command": binary, "args": []string{"mcp"}, "cwd": dir, "env": envMap(env(t))},
		"elicit": []string{"Allow once", "decline"},
		"steps": []map[string]any{
			{"op": "connect", "conn": "a"},
			{"op": "call", "conn": "a", "name": "bash", "arguments": map[string]any{"command": "echo asked-then-allowed"}},
			{"op": "call", "conn": "a", "name": "bash", "arguments": map[string]any{"command": "echo asked-then-declined"}},
			{"op": "close", "conn": "a"},
		},
	})
	if r := result(t, run, 1); r.IsError || !strings.Contains(r.text(), "asked-then-allowed") {
		t.Errorf("allowed: %+v", r)
	}
	if r := result(t, run, 2); !r.IsError || !strings.Contains(r.text(), "rejected by the user") {
		t.Errorf("declined: %+v", r)
	}
	if len(run.Elicited) != 2 || !strings.Contains(run.Elicited[0], "echo asked-then-allowed") {
		t.Errorf("the questions: %q", run.Elicited)
	}
}
