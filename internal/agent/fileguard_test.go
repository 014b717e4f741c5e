package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Every call the loop runs — the model's, and one relayed through Call (eval's tool
// calls, gantry mcp's) — carries the gate's file guard for its tool: in yolo, grep over
// the project with glob .env passes the gate's check and skips the denied file.
func TestCallsCarryTheFileGuard(t *testing.T) {
	for _, rule := range []string{"", `read_file:\.env`} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("KEY=hunter2\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		var deny []string
		if rule != "" {
			deny = append(deny, rule)
		}
		gate, err := permission.NewEngine(permission.ModeYolo, nil, deny)
		if err != nil {
			t.Fatal(err)
		}
		gate.SetProject(dir)
		gate.SetFileTools(map[string]tool.Files{"read_file": tool.FilesRead, "grep": tool.FilesRead})
		reg := tool.NewRegistry()
		reg.Add(realTool(t, "grep"))
		input := `{"pattern":"hunter","glob":".env","output_mode":"content"}`
		p := scripted.New(scripted.Step{Calls: []scripted.Call{{ID: "g", Name: "grep", Input: input}}}, scripted.Step{Text: "done"})
		a := &Agent{Provider: p, Tools: reg, Gate: gate, Env: tool.Env{Cwd: dir}, Config: Config{Model: "m", MaxOutput: 10000}}
		a.Run(context.Background(), "go")
		texts := map[string]string{"the model's call": results(t, p, 1)[0].Text,
			"a relayed call": a.Call(context.Background(), "r", "grep", []byte(input)).Text}
		for via, text := range texts {
			leaked := strings.Contains(text, "KEY=hunter2")
			switch {
			case rule == "" && !leaked:
				t.Fatalf("%s with no rule does not find the secret, so the test proves nothing:\n%s", via, text)
			case rule != "" && (leaked || !strings.Contains(text, `[skipped .env: denied by read_file:\.env from --deny]`)):
				t.Errorf("%s under %s:\n%s", via, rule, text)
			}
		}
	}
}
