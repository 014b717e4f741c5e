package app

import (
	"os"
	"testing"

	"github.com/gantry-dev/gantry/internal/session"
)

// A preview session needs no key, lists every tool of a session with its state — the
// conversation's tools too, vibe's off while vibe mode is, write and exec tools off in
// plan mode — and says which `gantry tool` runs alone; it leaves no session behind.
func TestPreviewToolCatalog(t *testing.T) {
	dir := project(t, "", map[string]string{})
	t.Setenv("ANTHROPIC_API_KEY", "") // a preview builds no model client
	t.Setenv("EXA_API_KEY", "")
	states := func(opts Options) map[string]ToolEntry {
		t.Helper()
		opts.Cwd, opts.Preview = dir, true
		a, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		scratch := a.scratch
		entries, err := a.ToolCatalog()
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(scratch); !os.IsNotExist(err) {
			t.Errorf("the preview's folder %s is left: %v", scratch, err)
		}
		out := map[string]ToolEntry{}
		for _, e := range entries {
			out[e.Tool.Name()] = e
		}
		return out
	}
	got := states(Options{})
	for _, name := range []string{"bash", "read_file", "todo_write", "agent"} {
		if got[name].State != ToolDeclared {
			t.Errorf("%s: %+v, want declared (the core)", name, got[name])
		}
	}
	for _, name := range []string{"ask_user", "task", "compact", "register_hook", "web_fetch"} {
		if got[name].State != ToolDeferred {
			t.Errorf("%s: %+v, want deferred", name, got[name])
		}
	}
	if e := got["vibe_spawn"]; e.State != ToolOff || e.Why != "vibe mode is off (--vibe, /vibe)" {
		t.Errorf("vibe_spawn: %+v", e)
	}
	if e := got["web_search"]; e.State != ToolOff || e.Why != "no EXA_API_KEY" {
		t.Errorf("web_search: %+v", e)
	}
	if !got["bash"].Alone || !got["read_file"].Alone || got["todo_write"].Alone || got["debug"].Alone || got["ast_edit"].Alone {
		t.Errorf("alone: bash %v, read_file %v, todo_write %v, debug %v, ast_edit %v",
			got["bash"].Alone, got["read_file"].Alone, got["todo_write"].Alone, got["debug"].Alone, got["ast_edit"].Alone)
	}
	if e := states(Options{Vibe: true})["vibe_spawn"]; e.State != ToolDeclared {
		t.Errorf("vibe_spawn in vibe mode: %+v", e)
	}
	plan := states(Options{PermissionMode: "plan"})
	if e := plan["bash"]; e.State != ToolOff || e.Why != "the plan mode offers read tools only" {
		t.Errorf("bash in plan mode: %+v", e)
	}
	if plan["read_file"].State != ToolDeclared {
		t.Errorf("read_file in plan mode: %+v", plan["read_file"])
	}
	st, err := session.Open(session.DefaultPath())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if list, err := st.List(0); err != nil || len(list) != 0 {
		t.Errorf("stored sessions after previews: %v %v", list, err)
	}
}
