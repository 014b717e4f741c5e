package main

// End-to-end test of `gantry mcp` (see mcp_e2e_test.go): malformed lines on raw stdin.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// TestMCPBadInputStaysServed writes the malformed lines that used to end gantry mcp
// straight to its stdin: each is answered with its JSON-RPC error, the tools/list
// after it is answered, stdout carries nothing but JSON-RPC, and gantry mcp exits 0
// when its stdin closes.
func TestMCPBadInputStaysServed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(binary, "mcp")
	cmd.Dir, cmd.Env = dir, env(t)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 8<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	exited := make(chan error, 1)
	closed := false
	closeAndWait := func() {
		if closed {
			return
		}
		closed = true
		_ = stdin.Close()
		go func() {
			for l := range lines { // drain, so the process can write its last lines
				t.Logf("after stdin closed: %.200s", l)
			}
			exited <- cmd.Wait()
		}()
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("gantry mcp exited with %v once its stdin closed", err)
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			testenv.Recv(t, exited, testenv.Bound, "gantry mcp to end once killed")
			t.Errorf("gantry mcp did not exit within 30s of its stdin closing")
		}
		if t.Failed() { // stderr is whole once the process is waited for
			t.Logf("gantry mcp's stderr:\n%s", stderr.String())
		}
	}
	t.Cleanup(closeAndWait)

	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("writing to gantry mcp: %v", err)
		}
	}
	// await reads messages until the response with id, returning those before it.
	await := func(id string) (map[string]any, []map[string]any) {
		t.Helper()
		var before []map[string]any
		deadline := time.After(30 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("gantry mcp closed stdout while the test waited for %s", id)
				}
				var m map[string]any
				if json.Unmarshal([]byte(l), &m) != nil || m["jsonrpc"] != "2.0" {
					t.Fatalf("stdout carried a line that is not JSON-RPC: %q", l)
				}
				if got, _ := json.Marshal(m["id"]); string(got) == id {
					return m, before
				}
				before = append(before, m)
			case <-deadline:
				t.Fatalf("no response %s within 30s", id)
			}
		}
	}

	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m, _ := await("0"); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, c := range []struct {
		line string
		code int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file"`, -32700},
		{`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, -32600},
		{`[]`, -32600},
		{`[{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","id":3,"method":"tools/list"}]`, -32600},
		{`{"jsonrpc":"1.0","id":4,"method":"tools/list"}`, -32600},
		{"\xff\xfe", -32700},
	} {
		send(c.line)
		id := fmt.Sprint(100 + i)
		send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`)
		m, before := await(id)
		res, _ := m["result"].(map[string]any)
		if tools, _ := res["tools"].([]any); len(tools) == 0 {
			t.Errorf("after %q, tools/list answered %v", c.line, m)
		}
		if len(before) != 1 {
			t.Errorf("%q: answered %v, want one error", c.line, before)
			continue
		}
		e, _ := before[0]["error"].(map[string]any)
		if code, _ := e["code"].(float64); int(code) != c.code {
			t.Errorf("%q: answered %v, want %d", c.line, before[0], c.code)
		}
	}
	closeAndWait()
	if !strings.Contains(stderr.String(), "refused a malformed message") {
		t.Errorf("stderr does not say what was refused:\n%s", stderr.String())
	}
}
