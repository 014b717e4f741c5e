package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// A cell's tool() goes through the session's gate: a relayed bash that a deny rule
// names is refused with the gate's sentence, a relayed read_file runs and is shown as
// a call of its own; and the kernel itself runs under the exec supervisor, so the
// cell's own os.system of a denied program fails too.
func TestEvalRelaysThroughTheGate(t *testing.T) {
	const python = "/usr/bin/python3"
	testenv.NeedFile(t, python, "Debian's Python")
	dir := project(t, "eval:\n  python: "+python+"\npermissions:\n  deny:\n    - \"bash:rm( .*)?\"\n", map[string]string{
		"note.txt":   "the note's text\n",
		"victim.txt": "still here\n",
	})
	cell := "try:\n    tool('bash', {'command': 'rm victim.txt'})\nexcept ToolError as e:\n    print('gate:', e)\n" +
		"print('read:', tool('read_file', {'path': 'note.txt'}).strip())\n" +
		"import os\nprint('system:', os.system('rm victim.txt') != 0)\n"
	input, _ := json.Marshal(map[string]any{"code": cell, "description": "try the relay and the supervisor"})
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "c1", Name: "eval", Input: string(input)}}},
		scripted.Step{Text: "done"},
	)
	var mu sync.Mutex
	var started []string
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, func(e face.Event) {
		if s, ok := e.(face.ToolStarted); ok {
			mu.Lock()
			started = append(started, s.CallID+" "+s.Call.Name)
			mu.Unlock()
		}
	}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if end := a.Run(context.Background(), "check", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	got := lastResult(p.Requests()[1].Messages)
	for _, want := range []string{"gate: bash was refused", "read: the note's text", "system: True"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q not in the cell's result:\n%s", want, got)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "victim.txt")); string(b) != "still here\n" {
		t.Error("victim.txt was removed")
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(started, ", ") != "c1 eval, c1.1 bash, c1.2 read_file" {
		t.Errorf("calls shown: %v", started)
	}
}
