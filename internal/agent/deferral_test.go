package agent

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/toolsearch"
)

func specNames(specs []llm.ToolSpec) []string {
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	return names
}

// deferringAgent is an agent whose test tools (echo, write) are all deferred, with
// gantry's own tool search registered.
func deferringAgent(t *testing.T, p llm.Provider) (*Agent, *events) {
	a, ev, _ := newAgent(t, p, permission.ModeYolo)
	search := toolsearch.Tool()
	a.Tools.Add(search)
	a.Config.Defer, a.Config.ToolSearch = tool.DeferAuto, search
	return a, ev
}

// With an API that has no tool search, the deferred tools are left out and listed in
// the system prompt; tool_search loads one, which is declared from the next request
// on — and again in a session resumed from that history.
func TestClientToolSearchLoadsADeferredTool(t *testing.T) {
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "s", Name: "tool_search", Input: `{"query":"echo back"}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "e", Name: "echo", Input: `{"text":"hi"}`}}},
		scripted.Step{Text: "done"},
	)
	a, _ := deferringAgent(t, p)
	if end := a.Run(context.Background(), "echo hi"); end.Text != "done" {
		t.Fatalf("end %+v", end)
	}
	reqs := p.Requests()
	if got := specNames(reqs[0].Tools); !slices.Equal(got, []string{"tool_search"}) {
		t.Fatalf("first request declares %v", got)
	}
	if !strings.Contains(reqs[0].System, "<deferred-tools>") || !strings.Contains(reqs[0].System, "- echo\n") ||
		!strings.Contains(reqs[0].System, "- write\n") {
		t.Fatalf("system prompt lists no deferred tools:\n%s", reqs[0].System)
	}
	if r := results(t, p, 1)[0]; !slices.Equal(r.Found, []string{"echo"}) || !strings.Contains(r.Text, "echo") {
		t.Fatalf("search result %+v", r)
	}
	if got := specNames(reqs[1].Tools); !slices.Equal(got, []string{"tool_search", "echo"}) {
		t.Fatalf("after the search the request declares %v", got)
	}
	if reqs[1].System != reqs[0].System {
		t.Error("the system prompt changed when a tool was found")
	}
	if r := results(t, p, 2)[0]; r.Text != "echo:hi" {
		t.Fatalf("echo result %+v", r)
	}

	again, _ := deferringAgent(t, scripted.New())
	again.SetHistory(a.History())
	if got := specNames(again.NextRequest().Tools); !slices.Equal(got, []string{"tool_search", "echo"}) {
		t.Fatalf("a resumed session declares %v", got)
	}
}

// tool_search answers a query that finds nothing with the list of what exists, and
// select: loads tools by name.
func TestToolSearchSelectAndMiss(t *testing.T) {
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{
			{ID: "a", Name: "tool_search", Input: `{"query":"kubernetes clusters"}`},
			{ID: "b", Name: "tool_search", Input: `{"query":"select:write,nope"}`},
			{ID: "c", Name: "tool_search", Input: `{"query":"select:write"}`},
		}},
		scripted.Step{Text: "ok"},
	)
	a, _ := deferringAgent(t, p)
	a.Run(context.Background(), "go")
	rs := results(t, p, 1)
	if len(rs[0].Found) != 0 || !strings.Contains(rs[0].Text, "echo, run, write") {
		t.Errorf("a miss: %+v", rs[0])
	}
	if !rs[1].IsError || !strings.Contains(rs[1].Text, "nope") {
		t.Errorf("an unknown name: %+v", rs[1])
	}
	if !slices.Equal(rs[2].Found, []string{"write"}) {
		t.Errorf("select: %+v", rs[2])
	}
}

// searching is a scripted provider whose API searches tools, and refuses them first.
type searching struct {
	*scripted.Provider
	refused bool
}

func (s *searching) SearchesTools() bool { return true }

func (s *searching) Stream(ctx context.Context, req llm.Request, emit func(llm.Delta)) (llm.Response, error) {
	if !s.refused && slices.ContainsFunc(req.Tools, func(t llm.ToolSpec) bool { return t.Defer }) {
		s.refused = true
		return llm.Response{}, &llm.APIError{Msg: "anthropic: HTTP 400 invalid_request_error: tools.1.defer_loading: Extra inputs are not permitted", Cause: errors.New("400")}
	}
	return s.Provider.Stream(ctx, req, emit)
}

// An API that searches tools is given every deferred tool marked Defer; one that
// refuses them has gantry's tool_search from then on, and the person is told.
func TestServerSearchAndFallBackWhenRefused(t *testing.T) {
	p := &searching{Provider: scripted.New(scripted.Step{Text: "one"}), refused: true}
	a, _ := deferringAgent(t, p)
	req := a.NextRequest()
	if got := specNames(req.Tools); !slices.Equal(got, []string{"echo", "run", "write"}) || !req.Tools[0].Defer || !req.Tools[2].Defer {
		t.Fatalf("server search declares %+v", req.Tools)
	}
	if !strings.Contains(req.System, "the tool search loads them") {
		t.Errorf("system prompt: %s", req.System)
	}

	p = &searching{Provider: scripted.New(scripted.Step{Text: "two"})}
	a, ev := deferringAgent(t, p)
	if end := a.Run(context.Background(), "go"); end.Text != "two" {
		t.Fatalf("end %+v", end)
	}
	reqs := p.Requests()
	if len(reqs) != 1 || !slices.Equal(specNames(reqs[0].Tools), []string{"tool_search"}) {
		t.Fatalf("after the refusal: %d requests, tools %v", len(reqs), specNames(reqs[0].Tools))
	}
	told := false
	for _, e := range ev.ev {
		if n, ok := e.(face.Notice); ok && strings.Contains(n.Text, "tool_search") {
			told = true
		}
	}
	if !told {
		t.Error("the person was not told of the fallback")
	}
}

// Plan mode's tools are a prefix of the others: read tools first, the breakpoint on
// the last of them.
func TestReadToolsFirstWithABreakpoint(t *testing.T) {
	a, _, _ := newAgent(t, scripted.New(), permission.ModeYolo)
	req := a.NextRequest()
	if got := specNames(req.Tools); !slices.Equal(got, []string{"echo", "write", "run"}) || !req.Tools[0].Breakpoint || req.Tools[1].Breakpoint {
		t.Fatalf("tools %+v", req.Tools)
	}
}

// A call by another agent's name (Claude Code's Bash, Codex's shell) is answered with
// the gantry tool to call; an unknown name with the tools there are.
func TestOtherAgentsNamesAreAnsweredWithGantrys(t *testing.T) {
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{
			{ID: "a", Name: "Bash", Input: `{"command":"ls"}`},
			{ID: "b", Name: "shell", Input: `{"command":["ls"]}`},
			{ID: "c", Name: "Frobnicate", Input: `{}`},
		}},
		scripted.Step{Text: "ok"},
	)
	a, _, _ := newAgent(t, p, permission.ModeYolo)
	a.Tools.Add(tool.New(tool.Def[struct{}]{Name: "bash", Level: tool.LevelExec, Kind: tool.KindExecute,
		ClaudeNames: []string{"Bash"}, Aliases: []string{"shell"},
		Run: func(context.Context, tool.Env, struct{}) tool.Result { return tool.Result{Text: "ran"} }}))
	a.Run(context.Background(), "go")
	rs := results(t, p, 1)
	for i, r := range rs[:2] {
		if !r.IsError || !strings.Contains(r.Text, "gantry's tool for it is bash") {
			t.Errorf("result %d: %q", i, r.Text)
		}
	}
	if !strings.Contains(rs[2].Text, "Available tools: ") {
		t.Errorf("unknown: %q", rs[2].Text)
	}
}
