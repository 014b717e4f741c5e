package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Served returns the tools a ToolServer session serves to another program's agent:
// those declared at the gate's level that act on the project, not on a conversation
// (tool.Def.Conversation), in the registry's order. (It connects no MCP servers: every
// tool is gantry's own.)
func (a *App) Served() []tool.Tool {
	var out []tool.Tool
	for _, t := range a.reg.Declared(a.gate.Mode().MaxLevel()) {
		if served(t) {
			out = append(out, t)
		}
	}
	return out
}

func served(t tool.Tool) bool { return !t.Info().Conversation }

// CallTool runs one call of another program's agent (gantry mcp) as the session's
// loop runs a model's: decoded, hooked, gated (asking through the face's Asker), run
// with its relays, bounded, and shown to the sink under id. A tool the session does
// not serve is one sentence.
func (a *App) CallTool(ctx context.Context, id, name string, input json.RawMessage) tool.Result {
	a.mu.Lock()
	live := a.started && !a.closed
	a.mu.Unlock()
	if !live {
		return tool.Fail("The gantry session is not running (it was closed or never started).")
	}
	if t, ok := a.reg.Lookup(name); ok && !served(t) {
		return tool.Fail(fmt.Sprintf("%s acts on gantry's own conversation and is not served here.", name))
	}
	if len(input) == 0 {
		input = json.RawMessage(`{}`)
	}
	return a.agent.Call(ctx, id, name, input)
}

// noModel is the model of a ToolServer session where none is configured: what asks
// it (a prompt hook) is told so.
type noModel struct {
	// searches: the provider a preview stands for searches deferred tools itself,
	// so the preview shows the request that provider would get.
	searches bool
}

func (n noModel) SearchesTools() bool { return n.searches }

func (noModel) Name() string { return "none" }

func (noModel) Stream(context.Context, llm.Request, func(llm.Delta)) (llm.Response, error) {
	return llm.Response{}, errors.New("gantry serves tools here and no model provider is configured for it to ask")
}
