package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/tool"
)

// emptySchema stands in for a tool whose input schema is missing or not an object.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// mcpTool is one tool of an MCP server, offered to the model under a gantry name.
type mcpTool struct {
	name   string // mcp__<server>__<tool>
	remote string // the tool's name on its server
	spec   llm.ToolSpec
	set    *Set
	conn   *conn
	// level is the server's (exec unless configured); timeout, when set, replaces
	// the Set's call timeout.
	level   tool.Level
	timeout time.Duration
	// server names the tool's server, and deferral is its defer setting.
	server, deferral string
}

func newMCPTool(set *Set, c *conn, name string, t *mcp.Tool) *mcpTool {
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	if desc == "" {
		desc = fmt.Sprintf("The tool %q of the MCP server %q.", t.Name, c.name)
	}
	return &mcpTool{
		name:   name,
		remote: t.Name,
		spec:   llm.ToolSpec{Name: name, Description: desc, Schema: inputSchema(t.InputSchema)},
		set:    set,
		conn:   c,
		level:  tool.LevelExec,
	}
}

// inputSchema is the server's input schema as JSON, when it is a JSON object.
func inputSchema(v any) json.RawMessage {
	if v == nil {
		return emptySchema
	}
	raw, err := json.Marshal(v)
	if err != nil || jsonKind(raw) != "an object" {
		return emptySchema
	}
	return raw
}

func (t *mcpTool) Name() string       { return t.name }
func (t *mcpTool) Level() tool.Level  { return t.level }
func (t *mcpTool) Kind() tool.Kind    { return tool.KindOther }
func (t *mcpTool) Spec() llm.ToolSpec { return t.spec }

// Info implements tool.Tool: every MCP tool looks alike, with the server's level.
func (t *mcpTool) Info() tool.Info {
	return tool.Info{Level: t.level, Kind: tool.KindOther, Icon: "🔌", Server: t.server, Defer: t.deferral,
		Family: "MCP server " + t.server}
}

// Decode accepts any JSON object (or nothing, read as {}); the server checks the rest.
func (t *mcpTool) Decode(_ tool.Env, input json.RawMessage) (tool.Invocation, string) {
	input = bytes.TrimSpace(input)
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	if !json.Valid(input) {
		return tool.Invocation{}, fmt.Sprintf("%s could not read its arguments: they are not valid JSON; give a JSON object.", t.name)
	}
	if k := jsonKind(input); k != "an object" {
		return tool.Invocation{}, fmt.Sprintf("%s takes its arguments as a JSON object, not %s.", t.name, k)
	}
	args := json.RawMessage(bytes.Clone(input))
	return tool.Invocation{
		Title: t.remote + " (MCP server " + t.conn.name + ")",
		Run:   func(ctx context.Context) tool.Result { return t.call(ctx, args) },
	}, ""
}

// call calls the tool within the call timeout, cancelled with ctx or when the Set
// closes.
func (t *mcpTool) call(ctx context.Context, args json.RawMessage) (res tool.Result) {
	defer func() {
		if r := recover(); r != nil {
			res = t.fail(fmt.Sprintf("gantry's MCP client broke down (%v); this is a gantry bug, try another way", r))
		}
	}()
	timeout := t.set.callTimeout
	if t.timeout > 0 {
		timeout = t.timeout
	}
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(t.set.closing, cancel)
	defer stop()
	if t.set.closing.Err() != nil {
		return t.fail("the MCP connections are closed")
	}
	answer, err := t.conn.session.CallTool(callCtx, &mcp.CallToolParams{Name: t.remote, Arguments: args})
	switch {
	case err == nil:
		return toResult(t.name, answer)
	case ctx.Err() != nil:
		return t.fail("cancelled before the server answered")
	case t.set.closing.Err() != nil:
		return t.fail("the MCP connections were closed before the server answered")
	case errors.Is(err, context.DeadlineExceeded):
		return t.fail(fmt.Sprintf("no answer within %s, so the call was cancelled", seconds(timeout)))
	}
	why := err.Error()
	// A server that dies ends its output: the read sees the end, or — when the
	// process's exit closed the pipe first — a closed file.
	if errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, os.ErrClosed) {
		why = fmt.Sprintf("the server closed the connection (%s)", why)
		if w := t.conn.lastWordsAfterExit(); w != "" {
			why += fmt.Sprintf("; the server's last words on stderr: %q", w)
		}
	}
	return t.fail(why)
}

// fail is the result of a call that got no answer: one sentence naming the tool.
func (t *mcpTool) fail(why string) tool.Result {
	return tool.Fail(fmt.Sprintf("%s failed: %s.", t.name, why))
}

// jsonKind names the kind of the valid JSON value raw for a sentence: "an object",
// "an array", "a string", "a number", "true or false" or "null".
func jsonKind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	return "a number"
}
