package main

// End-to-end tests of `gantry acp` (see acp_e2e_test.go): bad input on raw stdin.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// acpRaw is gantry acp on pipes, for the tests that write the wire themselves.
type acpRaw struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan map[string]any
	mu    sync.Mutex
	all   []string // every stdout line
	bad   []string // stdout lines that are not JSON-RPC
}

func startACPRaw(t *testing.T, environ []string, dir string) *acpRaw {
	t.Helper()
	cmd := exec.Command(binary, "acp")
	cmd.Dir, cmd.Env = dir, environ
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
	r := &acpRaw{t: t, stdin: stdin, lines: make(chan map[string]any, 100)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(r.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			line := sc.Text()
			var m map[string]any
			ok := json.Unmarshal([]byte(line), &m) == nil && m["jsonrpc"] == "2.0"
			r.mu.Lock()
			r.all = append(r.all, line)
			if !ok {
				r.bad = append(r.bad, line)
			}
			r.mu.Unlock()
			if ok {
				r.lines <- m
			}
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		exited := make(chan error, 1)
		go func() { <-done; exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("gantry acp exited with %v once its stdin closed", err)
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			testenv.Recv(t, exited, testenv.Bound, "gantry acp to end once killed")
			t.Errorf("gantry acp did not exit within 10s of its stdin closing")
		}
		if t.Failed() {
			t.Logf("gantry's stderr:\n%s", acpTail(stderr.String(), 8000))
		}
	})
	return r
}

func (r *acpRaw) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.stdin, line+"\n"); err != nil {
		r.t.Fatalf("writing to gantry: %v", err)
	}
}

// await returns the next response whose id is id (JSON-encoded: `7`, `null`),
// skipping notifications.
func (r *acpRaw) await(id string) map[string]any {
	r.t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case m, ok := <-r.lines:
			if !ok {
				r.t.Fatalf("gantry closed stdout while the test waited for the response %s", id)
			}
			if _, isCall := m["method"]; isCall {
				continue
			}
			got, _ := json.Marshal(m["id"])
			if string(got) == id {
				return m
			}
			r.t.Errorf("an unexpected response while waiting for %s: %v", id, m)
		case <-deadline:
			r.t.Fatalf("no response %s within 15s", id)
		}
	}
}

// expectError checks that response m is an error of code.
func (r *acpRaw) expectError(what string, m map[string]any, code int) {
	r.t.Helper()
	got, _ := acpDig(m, "error", "code").(float64)
	if int(got) != code || m["result"] != nil {
		r.t.Errorf("%s: got %v, want error %d", what, m, code)
	}
}

// expectServed checks that the connection still answers a request.
func (r *acpRaw) expectServed(after string, id int, method string) {
	r.t.Helper()
	params := `{}`
	if method == "initialize" {
		params = `{"protocolVersion":1,"clientCapabilities":{}}`
	}
	r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	m := r.await(fmt.Sprint(id))
	if m["result"] == nil {
		r.t.Errorf("after %s, %s answered %v", after, method, m)
	}
}

// TestACPBadInputStaysServed writes broken and wrong messages straight to gantry's
// stdin: each gets its JSON-RPC error, and the connection keeps serving; stdout
// never carries anything but JSON-RPC.
func TestACPBadInputStaysServed(t *testing.T) {
	t.Parallel()
	_, environ := acpFakeModel(t)
	dir := t.TempDir()
	r := startACPRaw(t, environ, dir)

	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	if v := acpDig(r.await("1"), "result", "protocolVersion"); v != float64(1) {
		t.Fatalf("initialize: protocolVersion %v", v)
	}

	r.send(`{"jsonrpc":"2.0","id":2,"method":"initialize",`)
	r.expectError("a malformed line", r.await("null"), -32700)
	r.expectServed("a malformed line", 3, "initialize")

	r.send(`[{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":1}}]`)
	r.expectError("a batch", r.await("null"), -32600)
	r.expectServed("a batch", 5, "session/list")

	r.send(`{"jsonrpc":"2.0","id":6,"method":"gantry/no_such_method","params":{}}`)
	r.expectError("an unknown method", r.await("6"), -32601)
	r.send(`{"jsonrpc":"2.0","method":"_gantry/unknown_notification","params":{}}`) // ignored
	r.expectServed("an unknown method", 7, "initialize")

	r.send(`{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{"sessionId":"no-such-session","prompt":[{"type":"text","text":"hi"}]}}`)
	r.expectError("a prompt for an unknown session", r.await("8"), -32002)
	r.expectServed("a prompt for an unknown session", 9, "session/list")

	r.send(`{"jsonrpc":"2.0","id":10,"method":"session/new","params":{"cwd":` + strconvQuote(dir) + `}}`)
	r.expectError("session/new without mcpServers", r.await("10"), -32602)
	r.expectServed("session/new without mcpServers", 11, "initialize")

	r.send(`{"jsonrpc":"2.0","id":12,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}`)
	r.expectError("session/new with a relative cwd", r.await("12"), -32602)
	r.expectServed("session/new with a relative cwd", 13, "session/list")

	r.send(`{"jsonrpc":"2.0","id":30,"method":"session/load","params":{"sessionId":"no-such-session","cwd":` + strconvQuote(dir) + `,"mcpServers":[]}}`)
	r.expectError("loading an unknown session", r.await("30"), -32002)
	r.send(`{"jsonrpc":"2.0","id":31,"method":"session/set_mode","params":{"sessionId":"no-such-session","modeId":"plan"}}`)
	r.expectError("set_mode of an unknown session", r.await("31"), -32002)
	r.expectServed("an unknown session", 32, "initialize")

	huge := `{"jsonrpc":"2.0","id":14,"method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"text","text":"` +
		strings.Repeat("a", 11<<20) + `"}]}}`
	start := time.Now()
	r.send(huge)
	m := r.await("14")
	if m["error"] == nil {
		t.Errorf("a line over 10 MiB: got %v, want an error", m)
	}
	r.expectServed("a line over 10 MiB", 15, "initialize")
	t.Logf("the 11 MiB line was refused in %v", time.Since(start))

	r.send(`{"jsonrpc":"2.0","id":16,"method":"session/new","params":{"cwd":` + strconvQuote(dir) + `,"mcpServers":[]}}`)
	if sid, _ := acpDig(r.await("16"), "result", "sessionId").(string); sid == "" {
		t.Error("a good session/new after the bad input failed")
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	for _, line := range r.bad {
		t.Errorf("stdout carried a line that is not JSON-RPC 2.0: %q", acpTail(line, 300))
	}
	if len(r.all) == 0 {
		t.Error("stdout carried nothing")
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
