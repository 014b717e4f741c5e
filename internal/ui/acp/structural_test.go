package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/syntax"
)

// A staged structural change shows each file as a diff and says that nothing is
// written; resolving it shows each written file as a diff.
func TestStructuralEditInTheCallContent(t *testing.T) {
	if !syntax.Available {
		t.Skip("a build without cgo has no structural tools")
	}
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "e1", Name: "ast_edit", Input: `{"pattern":"print($A)","rewrite":"log($A)"}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "r1", Name: "resolve", Input: `{"edit_id":"edit_1","action":"accept"}`}}},
		scripted.Step{Text: "Done."},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	h.write("a.py", "print(1)\n")
	h.write("b.py", "x = 2\nprint(x)\n")
	id := h.newSession()
	if resp := h.prompt(id, "use log"); resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	us := h.client.snapshot()
	e := finalUpdate(us, "e1")
	if len(e.Content) != 3 || e.Content[0].Diff == nil || e.Content[1].Diff == nil || e.Content[2].Content == nil {
		t.Fatalf("ast_edit content: want two diffs and a line, got %+v", e.Content)
	}
	if d := e.Content[0].Diff; !strings.HasSuffix(d.Path, "a.py") || d.NewText != "log(1)\n" || d.OldText == nil || *d.OldText != "print(1)\n" {
		t.Fatalf("the first diff: %+v", d)
	}
	if note := e.Content[2].Content.Content.Text.Text; !strings.Contains(note, "edit_1 staged") || !strings.Contains(note, "not written") {
		t.Fatalf("the staged line: %q", note)
	}
	r := finalUpdate(us, "r1")
	if len(r.Content) != 2 || r.Content[0].Diff == nil || r.Content[1].Diff == nil || r.Content[1].Diff.NewText != "x = 2\nlog(x)\n" {
		t.Fatalf("resolve content: %+v", r.Content)
	}
	if b, _ := os.ReadFile(filepath.Join(h.dir, "b.py")); string(b) != "x = 2\nlog(x)\n" {
		t.Fatalf("b.py: %q", b)
	}
}
