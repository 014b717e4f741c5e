package agent

import (
	"cmp"
	"context"
	"errors"
	"strings"

	"github.com/gantry-dev/gantry/internal/compact"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/tool"
)

// NextRequest is the request the next model call would send, as it is now: what
// /context and gantry prompt show is what the model reads.
func (a *Agent) NextRequest() llm.Request {
	req, _ := a.next()
	return req
}

// Declaration is what the next request declares, defers and has found of the tools.
func (a *Agent) Declaration() tool.Declaration {
	_, d := a.next()
	return d
}

func (a *Agent) next() (llm.Request, tool.Declaration) {
	level := tool.LevelExec
	if a.MaxLevel != nil {
		level = a.MaxLevel()
	}
	history := a.conversation()
	server := a.serverSearch()
	d := a.Tools.Declare(level, tool.DeferPolicy{Mode: cmp.Or(a.Config.Defer, tool.DeferNever), Server: server, Search: a.Config.ToolSearch,
		Found: found(history), MCPBudget: a.Config.MCPBudget})
	system := a.Config.System
	if list := tool.Deferred(d.Deferred); list != "" {
		how := "the tool search loads them"
		if !server {
			how = "tool_search loads them"
		}
		system += "\n<deferred-tools>\nThese tools exist but are not declared: " + how +
			" (by name or purpose) before you call one.\n" + list + "</deferred-tools>\n"
	}
	return llm.Request{
		Model:     a.Config.Model,
		System:    system,
		Messages:  history,
		Tools:     d.Specs,
		MaxTokens: a.Config.MaxTokens,
		CacheKey:  a.Config.CacheKey,
	}, d
}

// serverSearch says whether deferred tools are left to the API's own tool search.
func (a *Agent) serverSearch() bool {
	a.mu.Lock()
	client := a.clientSearch
	a.mu.Unlock()
	switch {
	case client || a.Config.Search == "client":
		return false
	case a.Config.Search == "server":
		return true
	}
	return llm.SearchesTools(a.Provider)
}

// deferred are the tools the last request deferred.
func (a *Agent) deferred() []tool.Tool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lastDeferred
}

// found names the deferred tools a tool search of the conversation loaded, in order.
func found(history []llm.Message) []string {
	var names []string
	for _, m := range history {
		for _, b := range m.Content {
			names = append(names, b.Found...)
		}
	}
	return names
}

// request sends the conversation and streams the answer out; it returns the answer
// and its cost. On error the partial answer (text streamed before a cancel) is
// returned so it is not lost.
func (a *Agent) request(ctx context.Context) (llm.Response, float64, error) {
	resp, cost, err := a.requestOnce(ctx)
	if err != nil && ctx.Err() == nil && a.serverSearch() && refusedSearch(err) {
		// The API (a proxy, an older model) has no tool search: gantry's own finds
		// the deferred tools from now on.
		a.mu.Lock()
		a.clientSearch = true
		a.mu.Unlock()
		a.emit(face.Notice{Text: "The model's API refused its own tool search; gantry's tool_search finds the deferred tools instead (tools.search: client says so from the start)."})
		return a.requestOnce(ctx)
	}
	return resp, cost, err
}

// refusedSearch says whether err is an API refusing the deferred tools or its tool
// search.
func refusedSearch(err error) bool {
	var api *llm.APIError
	if !errors.As(err, &api) {
		return false
	}
	msg := strings.ToLower(api.Msg)
	return strings.Contains(msg, "defer_loading") || strings.Contains(msg, "tool_search") || strings.Contains(msg, "tool search")
}

func (a *Agent) requestOnce(ctx context.Context) (llm.Response, float64, error) {
	req, d := a.next()
	a.mu.Lock()
	a.lastDeferred = d.Deferred
	a.mu.Unlock()
	// The text streamed so far, kept when the call fails; a builder, as an endless
	// answer must not cost time quadratic in its length.
	var partial strings.Builder
	attempt := 0
	drafts := a.newDrafts()
	resp, err := a.Provider.Stream(ctx, req, func(d llm.Delta) {
		switch d.Type {
		case llm.DeltaText:
			partial.WriteString(d.Text)
			a.emit(face.TextDelta{Text: d.Text})
		case llm.DeltaThinking:
			a.emit(face.ThinkingDelta{Text: d.Text})
		case llm.DeltaToolInput:
			drafts.piece(d)
		case llm.DeltaToolCall:
			drafts.whole(d)
		case llm.DeltaRetry:
			attempt++
			partial.Reset()
			drafts.reset()
			a.record("retry", map[string]any{"attempt": attempt, "reason": d.Text})
			a.emit(face.Retry{Attempt: attempt, Reason: d.Text})
		}
	})
	if err != nil {
		if len(resp.Message.Content) == 0 && partial.Len() > 0 {
			resp.Message = llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: partial.String()}}}
		}
		// An interrupted answer keeps its text but never a tool call without a result.
		resp.Message.Content = textOnly(resp.Message.Content)
		return resp, 0, err
	}
	resp.Message.Role = llm.RoleAssistant
	return resp, a.account(resp.Usage), nil
}

// account adds a response's usage to the session's totals, announces it, and
// returns its cost.
func (a *Agent) account(u llm.Usage) float64 {
	var cost float64
	if a.Config.Price != nil {
		cost = a.Config.Price(a.Config.Model, u)
	}
	a.mu.Lock()
	a.usage = a.usage.Add(u)
	a.cost += cost
	a.lastContext = compact.ContextTokens(u)
	ev := face.TurnUsage{Model: a.Config.Model, Usage: u, Cost: cost, SessionUsage: a.usage, SessionCost: a.cost}
	a.mu.Unlock()
	a.emit(ev)
	return cost
}

func textOnly(bs []llm.Block) []llm.Block {
	var out []llm.Block
	for _, b := range bs {
		if b.Type == llm.BlockText && b.Text != "" {
			out = append(out, b)
		}
	}
	return out
}
