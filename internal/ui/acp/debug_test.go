package acp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// A debug operation is a tool call of kind execute whose location, once it is done, is
// where the program stopped.
func TestDebugStopIsTheCallsLocation(t *testing.T) {
	const python = "/usr/bin/python3" // Debian's, with debugpy
	if err := exec.Command(python, "-c", "import debugpy").Run(); err != nil {
		testenv.Missing(t, "debugpy is not installed for "+python)
	}
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "b1", Name: "debug", Input: `{"operation":"breakpoints","file":"prog.py","lines":[2]}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "l1", Name: "debug", Input: `{"operation":"launch","program":"prog.py"}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "t1", Name: "debug", Input: `{"operation":"terminate"}`}}},
		scripted.Step{Text: "Done."},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	if err := os.MkdirAll(filepath.Join(h.dir, ".gantry"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.write(".gantry/config.yaml", "debug:\n  python: "+python+"\n")
	prog := h.write("prog.py", "x = 1\nprint(x + 1)\n")
	id := h.newSession()
	if resp := h.prompt(id, "debug it"); resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	us := h.client.snapshot()
	var started *sdk.SessionUpdateToolCall
	for _, u := range us {
		if u.ToolCall != nil && u.ToolCall.ToolCallId == "l1" {
			started = u.ToolCall
		}
	}
	if started == nil || started.Kind != sdk.ToolKindExecute || !strings.Contains(started.Title, "prog.py") {
		t.Fatalf("the launch's tool call: %+v", started)
	}
	l := finalUpdate(us, "l1")
	if l == nil || *l.Status != sdk.ToolCallStatusCompleted || len(l.Locations) != 1 || l.Locations[0].Path != prog ||
		l.Locations[0].Line == nil || *l.Locations[0].Line != 2 {
		t.Fatalf("the launch's final update: %+v", l)
	}
	if tt := finalUpdate(us, "t1"); tt == nil || *tt.Status != sdk.ToolCallStatusCompleted {
		t.Fatalf("terminate: %+v", tt)
	}
}
