package acp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// testClient is an ACP client for the tests: it records what the agent sends, answers
// permission requests with answer, serves fs/* from buffers and runs terminals as
// real processes.
type testClient struct {
	mu      sync.Mutex
	updates []sdk.SessionUpdate
	perms   []sdk.RequestPermissionRequest
	answer  func(sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)
	buffers map[string]string // path → unsaved editor text
	writes  map[string]string
	reads   []string
	terms   map[string]*testTerminal
	created []sdk.CreateTerminalRequest
	updated chan struct{} // signalled on each update
}

func newTestClient() *testClient {
	return &testClient{buffers: map[string]string{}, writes: map[string]string{}, terms: map[string]*testTerminal{}, updated: make(chan struct{}, 1)}
}

func (c *testClient) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n.Update)
	c.mu.Unlock()
	select {
	case c.updated <- struct{}{}:
	default:
	}
	return nil
}

func (c *testClient) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.perms = append(c.perms, p)
	answer := c.answer
	c.mu.Unlock()
	if answer == nil {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(optAllow)}, nil
	}
	return answer(p)
}

func (c *testClient) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, p.Path)
	if text, ok := c.buffers[p.Path]; ok {
		return sdk.ReadTextFileResponse{Content: text}, nil
	}
	b, err := os.ReadFile(p.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	return sdk.ReadTextFileResponse{Content: string(b)}, nil
}

func (c *testClient) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes[p.Path] = p.Content
	c.buffers[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, nil
}

// testTerminal is a terminal the client runs: a real process in its own group.
type testTerminal struct {
	cmd  *exec.Cmd
	out  bytes.Buffer
	mu   sync.Mutex
	done chan struct{}
	err  error
}

func (c *testClient) CreateTerminal(_ context.Context, p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	cmd := exec.Command(p.Command, p.Args...)
	if p.Cwd != nil {
		cmd.Dir = *p.Cwd
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t := &testTerminal{cmd: cmd, done: make(chan struct{})}
	w := &lockedBuffer{t: t}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		return sdk.CreateTerminalResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	go func() { t.err = cmd.Wait(); close(t.done) }()
	c.mu.Lock()
	id := "term-" + string(rune('a'+len(c.terms)))
	c.terms[id] = t
	c.created = append(c.created, p)
	c.mu.Unlock()
	return sdk.CreateTerminalResponse{TerminalId: id}, nil
}

type lockedBuffer struct{ t *testTerminal }

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.t.mu.Lock()
	defer w.t.mu.Unlock()
	return w.t.out.Write(p)
}

func (c *testClient) term(id string) (*testTerminal, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.terms[id]
	if !ok {
		return nil, sdk.NewInvalidParams(map[string]any{"error": "unknown terminal " + id})
	}
	return t, nil
}

func (t *testTerminal) kill() {
	if t.cmd.Process != nil {
		_ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-t.done
}

func (t *testTerminal) status() *sdk.TerminalExitStatus {
	select {
	case <-t.done:
	default:
		return nil
	}
	st := &sdk.TerminalExitStatus{}
	var ee *exec.ExitError
	if errors.As(t.err, &ee) && ee.ExitCode() < 0 {
		st.Signal = sdk.Ptr("SIGKILL")
	} else {
		st.ExitCode = sdk.Ptr(t.cmd.ProcessState.ExitCode())
	}
	return st
}

func (c *testClient) KillTerminal(_ context.Context, p sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	t, err := c.term(p.TerminalId)
	if err != nil {
		return sdk.KillTerminalResponse{}, err
	}
	t.kill()
	return sdk.KillTerminalResponse{}, nil
}

func (c *testClient) TerminalOutput(_ context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	t, err := c.term(p.TerminalId)
	if err != nil {
		return sdk.TerminalOutputResponse{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return sdk.TerminalOutputResponse{Output: t.out.String(), ExitStatus: t.status()}, nil
}

func (c *testClient) ReleaseTerminal(_ context.Context, p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	t, err := c.term(p.TerminalId)
	if err != nil {
		return sdk.ReleaseTerminalResponse{}, err
	}
	t.kill()
	c.mu.Lock()
	delete(c.terms, p.TerminalId)
	c.mu.Unlock()
	return sdk.ReleaseTerminalResponse{}, nil
}

func (c *testClient) WaitForTerminalExit(ctx context.Context, p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	t, err := c.term(p.TerminalId)
	if err != nil {
		return sdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return sdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
	st := t.status()
	return sdk.WaitForTerminalExitResponse{ExitCode: st.ExitCode, Signal: st.Signal}, nil
}

// snapshot returns the updates received so far.
func (c *testClient) snapshot() []sdk.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.SessionUpdate(nil), c.updates...)
}

func (c *testClient) reset() {
	c.mu.Lock()
	c.updates, c.perms = nil, nil
	c.mu.Unlock()
}

// waitFor waits until some update satisfies ok.
func (c *testClient) waitFor(t *testing.T, what string, ok func(sdk.SessionUpdate) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		for _, u := range c.snapshot() {
			if ok(u) {
				return
			}
		}
		select {
		case <-c.updated:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("no update %s arrived", what)
		}
	}
}

// harness is an agent served over pipes to a testClient.
type harness struct {
	t      *testing.T
	client *testClient
	conn   *sdk.ClientSideConnection
	model  *scripted.Provider
	dir    string
	store  string
	stop   func() // ends the agent being served
}

// start serves an agent with the scripted model; caps are the client's.
func start(t *testing.T, model *scripted.Provider, caps sdk.ClientCapabilities) *harness {
	t.Helper()
	home := t.TempDir()
	t.Setenv("GANTRY_CONFIG_DIR", filepath.Join(home, "config"))
	t.Setenv("GANTRY_DATA_DIR", filepath.Join(home, "data"))
	t.Setenv("GANTRY_PROVIDER", "")
	t.Setenv("GANTRY_MODEL", "")
	t.Setenv("ANTHROPIC_API_KEY", "test")
	h := &harness{t: t, client: newTestClient(), model: model, dir: t.TempDir(), store: filepath.Join(home, "data", "sessions.db")}
	h.serve(caps)
	return h
}

// serve starts one agent process-alike on the harness's store; a second call is a
// restart: the agent before it ends first, as a process that exits (its sessions
// closed, so the next agent may load them).
func (h *harness) serve(caps sdk.ClientCapabilities) {
	t := h.t
	if h.stop != nil {
		h.stop()
	}
	c2aR, c2aW := io.Pipe()
	a2cR, a2cW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = Serve(ctx, c2aR, a2cW, Options{App: app.Options{Store: h.store, LLM: h.model, Trust: true}, Version: "test", Log: io.Discard})
		_ = a2cW.Close()
	}()
	h.conn = sdk.NewClientSideConnection(h.client, c2aW, a2cR)
	h.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	var once sync.Once
	h.stop = func() {
		once.Do(func() {
			_ = c2aW.Close()
			select {
			case <-served:
			case <-time.After(10 * time.Second):
				cancel()
				<-served
			}
			cancel()
			_ = a2cR.Close()
		})
	}
	t.Cleanup(h.stop)
	if _, err := h.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
}

func (h *harness) newSession() sdk.SessionId {
	h.t.Helper()
	s, err := h.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: h.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		h.t.Fatalf("session/new: %v", err)
	}
	return s.SessionId
}

func (h *harness) prompt(id sdk.SessionId, text string) sdk.PromptResponse {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := h.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil {
		h.t.Fatalf("session/prompt: %v", err)
	}
	return resp
}

func (h *harness) write(name, content string) string {
	h.t.Helper()
	p := filepath.Join(h.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// kindOf names an update by its sessionUpdate discriminator.
func kindOf(u sdk.SessionUpdate) string {
	switch {
	case u.AgentMessageChunk != nil:
		return "agent_message_chunk"
	case u.AgentThoughtChunk != nil:
		return "agent_thought_chunk"
	case u.UserMessageChunk != nil:
		return "user_message_chunk"
	case u.ToolCall != nil:
		return "tool_call"
	case u.ToolCallUpdate != nil:
		return "tool_call_update"
	case u.Plan != nil:
		return "plan"
	case u.AvailableCommandsUpdate != nil:
		return "available_commands_update"
	case u.CurrentModeUpdate != nil:
		return "current_mode_update"
	case u.ConfigOptionUpdate != nil:
		return "config_option_update"
	case u.SessionInfoUpdate != nil:
		return "session_info_update"
	case u.UsageUpdate != nil:
		return "usage_update"
	}
	return "?"
}

// callEvents lists, for one tool call id, "tool_call" and the statuses of its updates.
func callEvents(us []sdk.SessionUpdate, id string) []string {
	var out []string
	for _, u := range us {
		switch {
		case u.ToolCall != nil && string(u.ToolCall.ToolCallId) == id:
			out = append(out, "tool_call:"+string(u.ToolCall.Status))
		case u.ToolCallUpdate != nil && string(u.ToolCallUpdate.ToolCallId) == id:
			s := "update"
			if u.ToolCallUpdate.Status != nil {
				s = string(*u.ToolCallUpdate.Status)
			}
			out = append(out, s)
		}
	}
	return out
}

// agentText joins the agent_message_chunk texts.
func agentText(us []sdk.SessionUpdate) string {
	var b strings.Builder
	for _, u := range us {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// finalUpdate returns the last update of call id that has a status.
func finalUpdate(us []sdk.SessionUpdate, id string) *sdk.SessionToolCallUpdate {
	var last *sdk.SessionToolCallUpdate
	for _, u := range us {
		if u.ToolCallUpdate != nil && string(u.ToolCallUpdate.ToolCallId) == id && u.ToolCallUpdate.Status != nil {
			last = u.ToolCallUpdate
		}
	}
	return last
}
