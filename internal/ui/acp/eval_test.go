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

// An eval cell's figure is an image content block of the call, beside its text.
func TestEvalFigureIsAnImageBlock(t *testing.T) {
	const python = "/usr/bin/python3" // Debian's, with matplotlib
	if err := exec.Command(python, "-c", "import matplotlib").Run(); err != nil {
		testenv.Missing(t, "matplotlib is not installed for "+python)
	}
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "c1", Name: "eval", Input: `{"code":"import matplotlib.pyplot as plt\nplt.plot([1, 2], [2, 1])\nprint('plotted')","description":"plot two points as a line"}`}}},
		scripted.Step{Text: "Done."},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	if err := os.MkdirAll(filepath.Join(h.dir, ".gantry"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.write(".gantry/config.yaml", "eval:\n  python: "+python+"\n")
	id := h.newSession()
	if resp := h.prompt(id, "plot"); resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	us := h.client.snapshot()
	var title string
	for _, u := range us {
		if u.ToolCall != nil && u.ToolCall.ToolCallId == "c1" {
			title = u.ToolCall.Title
		}
	}
	if title != "plot two points as a line (python)" {
		t.Errorf("title %q", title)
	}
	f := finalUpdate(us, "c1")
	if f == nil || len(f.Content) != 2 || f.Content[0].Content == nil || f.Content[1].Content == nil {
		t.Fatalf("content: %+v", f)
	}
	if text := f.Content[0].Content.Content.Text; text == nil || !strings.Contains(text.Text, "plotted") {
		t.Errorf("text block: %+v", f.Content[0].Content.Content)
	}
	if img := f.Content[1].Content.Content.Image; img == nil || img.MimeType != "image/png" || len(img.Data) < 100 {
		t.Errorf("image block: %+v", f.Content[1].Content.Content)
	}
}
