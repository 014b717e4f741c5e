package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/fs"
	"github.com/gantry-dev/gantry/internal/tools/search"
	"github.com/gantry-dev/gantry/internal/tools/shell"
)

// seq is what `seq 1 n` prints.
func seq(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i) + "\n")
	}
	return b.String()
}

// outputsAgent is a loop over the real shell, file and search tools in default mode,
// bash allowed by a rule and every absolute read denied by another, its cut results
// kept in outputs (outside the project) and read there through the real gate.
func outputsAgent(t *testing.T, p *scripted.Provider, outputs string) *Agent {
	t.Helper()
	dir := t.TempDir()
	gate, err := permission.NewEngine(permission.ModeDefault, []string{"bash", "task_output"}, []string{"read_file:/.*", "grep:/.*"})
	if err != nil {
		t.Fatal(err)
	}
	gate.SetProject(dir)
	gate.SetFileTools(map[string]tool.Files{"read_file": tool.FilesRead, "grep": tool.FilesRead, "glob": tool.FilesRead})
	gate.SetOwnOutputs(outputs)
	reg := tool.NewRegistry()
	sh := shell.NewSet(shell.Options{Tasks: shell.NewTasks(filepath.Join(t.TempDir(), "tasks"))})
	for _, tl := range sh.Tools() {
		reg.Add(tl)
	}
	t.Cleanup(func() {
		if err := sh.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	for _, tl := range append(fs.Tools(fs.Options{}), search.Tools(search.Options{})...) {
		reg.Add(tl)
	}
	return &Agent{Provider: p, Tools: reg, Gate: gate, Env: tool.Env{Cwd: dir},
		Outputs: tool.NewOutputDir(outputs, 0), Config: Config{Model: "m", MaxOutput: 30000}}
}

var savedRE = regexp.MustCompile(`The whole output is saved in (\S+): read a range with read_file`)

// A bash command printing 458 KB gives the model a short preview naming a file that
// holds the whole output; read_file and grep on that file, through the gate in default
// mode with every absolute read denied, return a range of it without a question.
func TestCutBashOutputIsSavedAndReadable(t *testing.T) {
	outputs := filepath.Join(t.TempDir(), "outputs", "s1")
	saved := filepath.Join(outputs, "c1.txt")
	read, _ := json.Marshal(map[string]any{"path": saved, "start": 40000, "end": 40002})
	grep, _ := json.Marshal(map[string]any{"pattern": "^7777.$", "path": saved, "output_mode": "content"})
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "c1", Name: "bash", Input: `{"command":"seq 1 80000"}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "c2", Name: "read_file", Input: string(read)}, {ID: "c3", Name: "grep", Input: string(grep)}}},
		scripted.Step{Text: "done"},
	)
	a := outputsAgent(t, p, outputs)
	a.Run(context.Background(), "go")
	whole := strings.TrimSuffix(seq(80000), "\n")
	r := results(t, p, 1)[0]
	if n := utf8.RuneCountInString(r.Text); n > tool.ShellPreview.Chars || !strings.HasPrefix(r.Text, "1\n2\n") || !strings.HasSuffix(r.Text, "\n80000") {
		t.Fatalf("the model reads %d characters of %d:\n%s", n, len(whole), r.Text)
	}
	m := savedRE.FindStringSubmatch(r.Text)
	if m == nil || m[1] != saved {
		t.Fatalf("the note does not name %s:\n%s", saved, r.Text)
	}
	b, err := os.ReadFile(saved)
	if err != nil || string(b) != whole {
		t.Fatalf("the saved file is not the whole output (%v; %d bytes of %d)", err, len(b), len(whole))
	}
	t.Logf("%d bytes of output: the model reads %d bytes (about %d tokens)", len(whole), len(r.Text), len(r.Text)/4)
	rs := results(t, p, 2)
	if rs[0].IsError || !strings.Contains(rs[0].Text, "40000\n40001\n40002") || strings.Contains(rs[0].Text, "40003") {
		t.Errorf("read_file of the saved output:\n%s", rs[0].Text)
	}
	if rs[1].IsError || len(regexp.MustCompile(`(?m):7777\d$`).FindAllString(rs[1].Text, -1)) != 10 {
		t.Errorf("grep in the saved output:\n%s", rs[1].Text)
	}
	// Without the outputs folder allowed, the same read is denied: the test can fail.
	gate, _ := permission.NewEngine(permission.ModeDefault, nil, []string{"read_file:/.*"})
	if v := gate.Check(permission.Call{Tool: "read_file", Level: tool.LevelRead, Files: tool.FilesRead, Paths: []string{saved}, Principal: saved}); v.Decision != permission.Deny {
		t.Errorf("the deny rule does not cover the saved file, so the test proves nothing: %+v", v)
	}
}

// A background command's output read through task_output is cut and saved the same
// way, and so is a relayed call's (Call: eval's tool(), gantry mcp).
func TestCutTaskOutputIsSaved(t *testing.T) {
	outputs := filepath.Join(t.TempDir(), "outputs", "s1")
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "c1", Name: "bash", Input: `{"command":"seq 1 80000","run_in_background":true}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "c2", Name: "task_output", Input: `{"task_id":"bg_1"}`}}},
		scripted.Step{Text: "done"},
	)
	a := outputsAgent(t, p, outputs)
	a.Run(context.Background(), "go")
	r := results(t, p, 2)[0]
	m := savedRE.FindStringSubmatch(r.Text)
	if m == nil || utf8.RuneCountInString(r.Text) > tool.ShellPreview.Chars || !strings.Contains(r.Text, "[bg_1 finished") {
		t.Fatalf("task_output gives:\n%s", r.Text)
	}
	if b, err := os.ReadFile(m[1]); err != nil || !strings.HasPrefix(string(b), seq(80000)) {
		t.Fatalf("the saved file is not the whole output (%v)", err)
	}
	rr := a.Call(context.Background(), "r.1", "bash", []byte(`{"command":"seq 1 80000"}`))
	if m := savedRE.FindStringSubmatch(rr.Text); m == nil || filepath.Base(m[1]) != "r.1.txt" || utf8.RuneCountInString(rr.Text) > tool.ShellPreview.Chars {
		t.Fatalf("a relayed call gives:\n%s", rr.Text)
	}
}

// The loop detector's note counts in the bound: the third identical long result, with
// the note, is still within maxOutput.
func TestLoopNoteWithinTheBound(t *testing.T) {
	same := scripted.Step{Calls: []scripted.Call{{Name: "echo", Input: `{"text":"` + strings.Repeat("y", 5000) + `"}`}}}
	p := scripted.New(same, same, same, scripted.Step{Text: "ok"})
	a, _, _ := newAgent(t, p, permission.ModeYolo)
	a.Run(context.Background(), "go")
	r := results(t, p, 3)[0]
	if n := utf8.RuneCountInString(r.Text); n > a.Config.MaxOutput || !strings.Contains(r.Text, "[LOOP_DETECTED: ") {
		t.Errorf("%d characters (bound %d):\n%s", n, a.Config.MaxOutput, r.Text)
	}
}
