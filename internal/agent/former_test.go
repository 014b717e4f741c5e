package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

type renamedArgs struct {
	FilePath string `json:"file_path"`
}

// TestFormerSpellingIsWhatHooksSee: a call that uses an argument's former spelling
// (tool.Former) runs, and its hooks and faces see the current spelling; the model reads
// the note.
func TestFormerSpellingIsWhatHooksSee(t *testing.T) {
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "1", Name: "touch", Input: `{"filePath":"a.txt"}`}}},
		scripted.Step{Text: "done"},
	)
	a, ev, _ := newAgent(t, p, permission.ModeYolo)
	a.Tools = tool.NewRegistry()
	a.Tools.Add(tool.New(tool.Def[renamedArgs]{
		Name: "touch", Level: tool.LevelRead, Kind: tool.KindRead,
		Formers: []tool.Former{{Name: "filePath", New: "file_path"}},
		Run: func(_ context.Context, _ tool.Env, a renamedArgs) tool.Result {
			return tool.Result{Text: "touched " + a.FilePath}
		},
	}))
	h := &fakeHooks{result: map[string][]HookResult{HookPreToolUse: {{}}}}
	a.Hooks = h
	a.Run(context.Background(), "go")
	if r := results(t, p, 1)[0]; r.IsError || r.Text != "touched a.txt\n\n(Note: filePath is deprecated; use file_path.)" {
		t.Errorf("result: %+v", r)
	}
	if len(h.seen) != 1 || h.seen[0]["tool_input"].(map[string]any)["file_path"] != "a.txt" {
		t.Errorf("hook input: %+v", h.seen)
	}
	for _, e := range ev.ev {
		if s, ok := e.(face.ToolStarted); ok && (strings.Contains(string(s.Input), "filePath") || !strings.Contains(string(s.Input), "file_path")) {
			t.Errorf("announced %s", s.Input)
		}
	}
}
