package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/lsp/lsptest"
)

// With the real gopls: an lsp call is one line (its title and the answer's summary),
// and the type error an edit introduced shows under the edit's diff.
func TestLanguageServerLines(t *testing.T) {
	lsptest.NeedGopls(t)
	model := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "l1", Name: "lsp", Input: `{"action":"references","file":"total.go","line":4,"symbol":"Total"}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "e1", Name: "edit_file", Input: `{"path":"use.go","edits":[{"old":"return Total(1, 2)","new":"var s string = Total(1, 2)\n\treturn len(s)"}]}`}}},
		scripted.Step{Text: "Done."},
	)
	d := newDriver(t, model, 100, 40, false, func(dir string) {
		for name, text := range map[string]string{
			"go.mod":   "module example.com/m\n\ngo 1.22\n",
			"total.go": "package m\n\n// Total adds.\nfunc Total(a, b int) int { return a + b }\n",
			"use.go":   "package m\n\nfunc Use() int {\n\treturn Total(1, 2)\n}\n",
		} {
			_ = os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
		}
	})
	d.m.app.SetMode("yolo")
	d.typeText("look and change")
	d.press("enter")
	d.idle()
	screen := d.screen()
	var lspLines []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "LSP references") || strings.Contains(l, "total.go:4:") {
			lspLines = append(lspLines, strings.TrimSpace(l))
		}
	}
	if len(lspLines) != 1 || lspLines[0] != "🧭 LSP references of Total at total.go:4 → 2 references in 2 file(s)" {
		t.Fatalf("the lsp call's lines %q in:\n%s", lspLines, screen)
	}
	if !strings.Contains(screen, "  ⚠ use.go:4: error: cannot use Total(1, 2)") {
		t.Fatalf("no diagnostic under the edit:\n%s", screen)
	}
}
