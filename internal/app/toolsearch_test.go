package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/toolsearch"
)

// gantry's tool_search finds each deferred tool of a real session by what a model
// would ask for, first, and does not load the tools that merely mention the words.
func TestToolSearchFindsDeferredToolsByPurpose(t *testing.T) {
	dir := project(t, "", map[string]string{})
	a, err := newStarted(Options{Cwd: dir, LLM: noModel{}}, func(face.Event) {}, someone{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	d := a.agent.Declaration()
	if len(d.Deferred) < 8 {
		t.Fatalf("only %d tools deferred: %v", len(d.Deferred), a.Tools().Deferred)
	}
	ctx := tool.WithDeferred(context.Background(), d.Deferred)
	search := toolsearch.Tool()
	for query, want := range map[string]string{
		"debugger breakpoints step through a program": "debug",
		"run python code in a kernel":                 "eval",
		"fetch a web page by url":                     "web_fetch",
		"find code by its syntax tree pattern":        "ast_grep",
		"output of a background command":              "task_output",
		"ask the user a question":                     "ask_user",
		"read the todo list":                          "todo_read",
		"summarise the conversation to free context":  "compact",
		"plan before changing anything":               "enter_plan_mode",
		"select:register_hook":                        "register_hook",
	} {
		if !slices.ContainsFunc(d.Deferred, func(t tool.Tool) bool { return t.Name() == want }) {
			continue // not available on this machine
		}
		inv, msg := search.Decode(tool.Env{Cwd: dir}, []byte(`{"query":`+quote(query)+`}`))
		if msg != "" {
			t.Fatal(msg)
		}
		r := inv.Run(ctx)
		if len(r.Found) == 0 || r.Found[0] != want {
			t.Errorf("%q found %v, want %s first", query, r.Found, want)
		}
		if len(r.Found) > 3 {
			t.Errorf("%q loads %d tools: %v", query, len(r.Found), r.Found)
		}
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

var _ llm.Provider = noModel{}

// Claude Code's and Codex's tool names, as models trained on them call them, each lead
// to the gantry tool of a real session.
func TestOtherAgentsToolNamesInASession(t *testing.T) {
	dir := project(t, "", map[string]string{})
	a, err := newStarted(Options{Cwd: dir, LLM: noModel{}}, func(face.Event) {}, someone{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for name, want := range map[string]string{
		"Bash": "bash", "Read": "read_file", "Write": "write_file", "Edit": "edit_file", "MultiEdit": "edit_file",
		"Glob": "glob", "Grep": "grep", "LS": "glob", "Task": "agent", "Agent": "agent", "WebFetch": "web_fetch", "TodoWrite": "todo_write",
		"BashOutput": "task_output", "KillShell": "task_kill", "AskUserQuestion": "ask_user", "EnterPlanMode": "enter_plan_mode",
		"Skill": "read_skill", "shell": "bash", "exec_command": "bash", "update_plan": "todo_write", "view_image": "read_file",
		"str_replace_based_edit_tool": "edit_file",
	} {
		if got, ok := a.reg.Counterpart(name, tool.LevelExec); !ok || got.Name() != want {
			t.Errorf("%s: %v, want %s", name, got, want)
		}
	}
}
