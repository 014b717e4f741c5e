package tool

import (
	"context"
	"slices"
	"strings"
	"testing"
)

type fakeArgs struct {
	X string `json:"x,omitempty"`
}

// fake is a tool of that name, level and info (Core, Family, Server, Defer).
type fake struct {
	Tool
	info Info
}

func (f fake) Info() Info { return f.info }

func mk(name string, level Level, info Info, desc string) Tool {
	info.Level = level
	return fake{Tool: New(Def[fakeArgs]{Name: name, Description: desc, Level: level, Kind: KindOther,
		Run: func(context.Context, Env, fakeArgs) Result { return Result{} }}), info: info}
}

func names(ts []Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name())
	}
	return out
}

func testRegistry(mcpDesc string) *Registry {
	r := NewRegistry()
	r.Add(mk("bash", LevelExec, Info{Core: true}, "run"))
	r.Add(mk("read_file", LevelRead, Info{Core: true}, "read"))
	r.Add(mk("edit_file", LevelWrite, Info{Core: true}, "edit"))
	r.Add(mk("debug", LevelExec, Info{Family: "debugger"}, "debug"))
	r.Add(mk("lsp", LevelRead, Info{Family: "language servers"}, "lsp"))
	r.Add(mk("rename_symbol", LevelWrite, Info{Family: "language servers"}, "rename"))
	r.Add(mk("mcp__gh__issue", LevelExec, Info{Server: "gh", Family: "MCP server gh"}, mcpDesc))
	r.Add(mk("mcp__db__query", LevelExec, Info{Server: "db", Family: "MCP server db", Defer: DeferNever}, mcpDesc))
	r.Add(mk("tool_search", LevelRead, Info{Core: true}, "search"))
	return r
}

func TestDeclareModes(t *testing.T) {
	r := testRegistry("small")
	search, _ := r.Lookup("tool_search")

	d := r.Declare(LevelExec, DeferPolicy{Mode: DeferNever, Search: search})
	if got := names(d.Declared); !slices.Equal(got, []string{"lsp", "read_file", "edit_file", "rename_symbol", "bash", "debug", "mcp__db__query", "mcp__gh__issue"}) || len(d.Deferred) != 0 {
		t.Fatalf("never: declared %v deferred %v", got, names(d.Deferred))
	}

	// auto: the specialists deferred, small MCP servers declared; the client search
	// is declared, read tools first with the breakpoint after them.
	d = r.Declare(LevelExec, DeferPolicy{Mode: DeferAuto, Search: search})
	if got := names(d.Declared); !slices.Equal(got, []string{"read_file", "tool_search", "edit_file", "bash", "mcp__db__query", "mcp__gh__issue"}) {
		t.Fatalf("auto: declared %v", got)
	}
	if got := names(d.Deferred); !slices.Equal(got, []string{"debug", "lsp", "rename_symbol"}) {
		t.Fatalf("auto: deferred %v", got)
	}
	if !d.Specs[1].Breakpoint || d.Specs[0].Breakpoint || d.Specs[2].Breakpoint {
		t.Errorf("the breakpoint is not after the read tools: %+v", d.Specs)
	}

	// Past the budget the MCP tools are deferred, but for a server that says never.
	d = r.Declare(LevelExec, DeferPolicy{Mode: DeferAuto, Search: search, MCPBudget: 10})
	if got := names(d.Deferred); !slices.Contains(got, "mcp__gh__issue") || slices.Contains(got, "mcp__db__query") {
		t.Fatalf("over the budget: deferred %v", got)
	}

	// always: everything but the core (and a server that says never).
	d = r.Declare(LevelExec, DeferPolicy{Mode: DeferAlways, Search: search})
	if got := names(d.Deferred); !slices.Equal(got, []string{"debug", "lsp", "mcp__gh__issue", "rename_symbol"}) {
		t.Fatalf("always: deferred %v", got)
	}

	// Found tools follow the declared ones, in the order found; in plan mode (read
	// level) nothing else changes but the tools above it.
	d = r.Declare(LevelExec, DeferPolicy{Mode: DeferAuto, Search: search, Found: []string{"rename_symbol", "lsp", "rename_symbol", "nope"}})
	specs := d.Specs[len(d.Specs)-2:]
	if specs[0].Name != "rename_symbol" || specs[1].Name != "lsp" || len(d.Found) != 2 {
		t.Fatalf("found: %+v", d.Specs)
	}
	plan := r.Declare(LevelRead, DeferPolicy{Mode: DeferAuto, Search: search})
	full := r.Declare(LevelExec, DeferPolicy{Mode: DeferAuto, Search: search})
	for i, s := range plan.Specs {
		if full.Specs[i].Name != s.Name {
			t.Fatalf("plan mode's tools %v are not a prefix of %v", names(plan.Declared), names(full.Declared))
		}
	}

	// The API's own search: every deferred tool sent marked, no client search.
	d = r.Declare(LevelExec, DeferPolicy{Mode: DeferAuto, Search: search, Server: true})
	var deferred []string
	for _, s := range d.Specs {
		if s.Defer {
			deferred = append(deferred, s.Name)
		}
		if s.Name == "tool_search" {
			t.Error("the client search is declared beside the API's own")
		}
	}
	if !slices.Equal(deferred, []string{"debug", "lsp", "rename_symbol"}) {
		t.Fatalf("server: deferred specs %v", deferred)
	}
}

// A tool made core while a condition holds (exit_plan_mode in plan mode).
func TestCoreWhen(t *testing.T) {
	r := testRegistry("small")
	plan := false
	r.CoreWhen("debug", func() bool { return plan })
	if d := r.Declare(LevelExec, DeferPolicy{Mode: DeferAuto}); !slices.Contains(names(d.Deferred), "debug") {
		t.Fatal("debug is not deferred")
	}
	plan = true
	if d := r.Declare(LevelExec, DeferPolicy{Mode: DeferAuto}); !slices.Contains(names(d.Declared), "debug") {
		t.Fatal("debug is not core while its condition holds")
	}
}

func TestDeferredListsFamilies(t *testing.T) {
	r := testRegistry(strings.Repeat("x", 5000))
	d := r.Declare(LevelExec, DeferPolicy{Mode: DeferAuto})
	got := Deferred(d.Deferred)
	want := "- MCP server gh: mcp__gh__issue\n- debugger: debug\n- language servers: lsp, rename_symbol\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if Deferred(nil) != "" {
		t.Error("no deferred tool, yet a list")
	}
}
