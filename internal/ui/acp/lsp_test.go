package acp

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/lsp/lsptest"
	"github.com/gantry-dev/gantry/internal/tool"
)

// TestLanguageServerInTheCallContent: with the real gopls, an lsp call's answer is
// its content, and an edit that introduces a type error carries, after its diff, the
// diagnostic the write introduced (not the one already there).
func TestLanguageServerInTheCallContent(t *testing.T) {
	lsptest.NeedGopls(t)
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "l1", Name: "lsp", Input: `{"action":"definition","file":"use.go","line":4,"symbol":"Total"}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "e1", Name: "edit_file", Input: `{"path":"use.go","edits":[{"old":"return Total(1, 2)","new":"var s string = Total(1, 2)\n\treturn len(s)"}]}`}}},
		scripted.Step{Text: "Done."},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	h.write("go.mod", "module example.com/m\n\ngo 1.22\n")
	h.write("total.go", "package m\n\n// Total adds.\nfunc Total(a, b int) int { return a + b }\n\nvar broken int = \"old\"\n")
	h.write("use.go", "package m\n\nfunc Use() int {\n\treturn Total(1, 2)\n}\n")
	id := h.newSession()
	if resp := h.prompt(id, "look and change"); resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	us := h.client.snapshot()
	l := finalUpdate(us, "l1")
	if len(l.Content) != 1 || l.Content[0].Content == nil || !strings.Contains(l.Content[0].Content.Content.Text.Text, "total.go:4: func Total(a, b int) int") {
		t.Fatalf("lsp content: %+v", l.Content)
	}
	e := finalUpdate(us, "e1")
	if len(e.Content) != 2 || e.Content[0].Diff == nil || e.Content[1].Content == nil {
		t.Fatalf("edit content: want a diff and the diagnostics, got %+v", e.Content)
	}
	text := e.Content[1].Content.Content.Text.Text
	if !strings.HasPrefix(text, tool.DiagnosticsHeading+"\nuse.go:4: error: ") || !strings.Contains(text, "cannot use Total(1, 2)") || strings.Contains(text, "total.go") {
		t.Fatalf("the diagnostics in the edit's content:\n%s", text)
	}
	if got := lastResult(t, m, "e1"); !strings.Contains(got, tool.DiagnosticsHeading) {
		t.Fatalf("the model's result lacks the diagnostics:\n%s", got)
	}
}
