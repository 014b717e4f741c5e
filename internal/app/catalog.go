package app

import (
	"context"
	"fmt"
	"slices"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/syntax"
	"github.com/gantry-dev/gantry/internal/tool"
)

// ToolState is where a tool of the session stands for the model.
type ToolState string

// The states of a tool.
const (
	// ToolDeclared: its schema is in every request.
	ToolDeclared ToolState = "declared"
	// ToolDeferred: the model knows it exists, and its schema is sent once searched for.
	ToolDeferred ToolState = "deferred"
	// ToolOff: known (rules may name it) but not offered now; ToolEntry.Why says why.
	ToolOff ToolState = "off"
)

// ToolEntry is one tool the session knows, as `gantry tool list` shows it.
type ToolEntry struct {
	Tool  tool.Tool
	State ToolState
	// Why says in a few words why an off tool is off ("no display reachable").
	Why string
	// Alone: `gantry tool` runs it in one process (Standalone has it); the others act
	// on a conversation or keep state between calls.
	Alone bool
}

// ToolCatalog lists every tool the session knows, by name: those declared now, those
// deferred, and those off with the reason. It is built from the session's own
// registry, so it names what the model of this session would be offered. MCP
// servers' tools are in it once the servers are connected (Start).
func (a *App) ToolCatalog() ([]ToolEntry, error) {
	scratch := a.pool.Child(resource.Session) // owns the sets built here, for this call only
	alone := standaloneTools(deps{cfg: a.cfg, getenv: a.cfg.Getenv, pool: scratch, cwd: a.opts.Cwd})
	if err := scratch.Close(context.Background()); err != nil { // nothing of it started
		return nil, fmt.Errorf("closing the standalone tools: %w", err)
	}
	max := a.gate.Mode().MaxLevel()
	available := map[string]bool{}
	for _, t := range a.reg.Declared(max) {
		available[t.Name()] = true
	}
	// What the next request does with the available tools: declares or defers them.
	state := map[string]ToolState{}
	d := a.agent.Declaration()
	for _, t := range d.Declared {
		state[t.Name()] = ToolDeclared
	}
	for _, t := range d.Deferred {
		state[t.Name()] = ToolDeferred
	}
	var out []ToolEntry
	for _, t := range a.reg.All() {
		e := ToolEntry{Tool: t, State: ToolOff, Alone: alone.Known(t.Name())}
		switch {
		case state[t.Name()] != "":
			e.State = state[t.Name()]
		case available[t.Name()]:
			// Available but in no request: gantry's tool search, while nothing is
			// deferred or the API searches by itself.
			e.Why = "not needed: nothing is deferred, or the model's API searches deferred tools itself"
		default:
			e.Why = a.whyOff(t, max)
		}
		out = append(out, e)
	}
	return out, nil
}

// whyOff says why a known tool is not declared now. The conditions are those
// buildTools declares the tools under; a tool whose condition is not named here is
// said to be unavailable here.
func (a *App) whyOff(t tool.Tool, max tool.Level) string {
	name := t.Name()
	vibeTools := slices.ContainsFunc(a.vibe.Tools(), func(v tool.Tool) bool { return v.Name() == name })
	switch {
	case t.Level() > max:
		return fmt.Sprintf("the %s mode offers %s tools only", a.gate.Mode(), max)
	case vibeTools && !a.Vibe():
		return "vibe mode is off (--vibe, /vibe)"
	case t.Level() == tool.LevelWrite && !a.cfg.EditTools:
		return "editTools is off in the config"
	case (name == "ast_grep" || name == "ast_edit" || name == "resolve") && !syntax.Available:
		return "gantry was built without the grammars (cgo)"
	case name == "computer":
		return "no display reachable ($DISPLAY)"
	case name == "web_search":
		return "no EXA_API_KEY"
	case name == "debug":
		return "no debug adapter's program installed (gantry doctor)"
	case name == "eval":
		return "no python3 or node installed"
	case name == "lsp" || name == "lsp_rename":
		return "no language server for this folder's files (gantry doctor)"
	case name == "read_skill":
		return "no skill found"
	}
	return "not available here"
}

// MCPConfigured names the MCP servers the session would start (Start connects them),
// those of the config and those given with the session.
func (a *App) MCPConfigured() []string {
	var names []string
	for _, e := range mcpEntries(a.cfg, a.opts.MCPServers, a.cfg.Lookup) {
		names = append(names, e.status.Name)
	}
	return names
}

// someone stands for the person of a previewed session: it says someone answers, so
// that the preview declares what an interactive session does (ask_user, the plan
// tools), and it answers nothing, as a preview is never started.
type someone struct{ nobody face.NoHuman }

func (someone) NoHuman() bool { return false }
func (s someone) AskPermission(ctx context.Context, r face.PermissionRequest) (face.Answer, error) {
	return s.nobody.AskPermission(ctx, r)
}
func (s someone) AskUser(ctx context.Context, q []face.Question) (face.UserAnswer, error) {
	return s.nobody.AskUser(ctx, q)
}
func (s someone) ApprovePlan(ctx context.Context, r face.PlanRequest) (face.PlanAnswer, error) {
	return s.nobody.ApprovePlan(ctx, r)
}
func (s someone) TrustFolder(ctx context.Context, r face.TrustRequest) (bool, error) {
	return s.nobody.TrustFolder(ctx, r)
}
