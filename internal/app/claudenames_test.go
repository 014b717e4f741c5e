package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// Hooks of a Claude Code settings file that name Claude Code's current tools (Agent,
// Skill) and its former name (Task) fire on gantry's agent and read_skill calls,
// through the real loop, and read tool_name as current Claude Code sends it.
func TestClaudeCurrentToolNamesInHooks(t *testing.T) {
	dir := project(t, "", map[string]string{
		".claude/skills/release/SKILL.md": "---\nname: release\ndescription: Cut a release.\n---\nSteps.\n",
	})
	group := func(matcher, out string) map[string]any {
		// Each hook keeps what it read and refuses the call, so that nothing runs.
		return map[string]any{"matcher": matcher, "hooks": []any{map[string]any{"type": "command",
			"command": "cat > " + filepath.Join(dir, out) + "; echo refused >&2; exit 2"}}}
	}
	raw, err := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		group("Agent", "agent.json"), group("Task", "task.json"), group("Skill", "skill.json"),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude/settings.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{
			{ID: "agent", Name: "agent", Input: `{"description":"look around","prompt":"List the files.","subagent_type":"general-purpose"}`},
			{ID: "skill", Name: "read_skill", Input: `{"name":"release"}`},
		}},
		scripted.Step{Text: "done"},
	)
	rec := &recorder{}
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, rec.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	end := a.Run(context.Background(), "go", nil)
	a.Close()
	if end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	for file, want := range map[string]string{"agent.json": "Agent", "task.json": "Agent", "skill.json": "read_skill"} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Errorf("the hook of %s did not run: %v", file, err)
			continue
		}
		var in map[string]any
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatal(err)
		}
		if in["tool_name"] != want {
			t.Errorf("%s: tool_name %v, want %s", file, in["tool_name"], want)
		}
	}
}
