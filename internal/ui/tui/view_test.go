package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// answer is a Markdown answer with a list and a Go block.
const answer = "Done. I changed **two** things:\n\n1. `Add` now adds.\n2. The test passes.\n\n```go\nfunc Add(a, b int) int { return a + b }\n```\n\nAnything else?"

func mainScript() *scripted.Provider {
	return scripted.New(
		scripted.Step{Text: "Let me look at the code.", Calls: []scripted.Call{{ID: "b1", Name: "bash", Input: `{"command":"printf 'add.go\\nadd_test.go\\n'"}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "e1", Name: "edit_file", Input: `{"path":"add.go","edits":[{"old":"return a - b","new":"return a + b"}]}`}}},
		scripted.Step{Text: answer},
	)
}

func writeAdd(dir string) {
	_ = os.WriteFile(filepath.Join(dir, "add.go"), []byte("package demo\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"), 0o644)
}

// The main screen after a turn, at 80×24 and 120×40, with and without colour.
func TestMainScreenGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, color := range []bool{false, true} {
			name := fmt.Sprintf("main_%dx%d_%s.txt", size[0], size[1], map[bool]string{false: "nocolor", true: "color"}[color])
			t.Run(name, func(t *testing.T) {
				d := newDriver(t, mainScript(), size[0], size[1], color, writeAdd)
				d.m.app.SetMode("yolo")
				d.typeText("fix the Add function")
				d.press("enter")
				d.idle()
				golden(t, name, d.screen())
			})
		}
	}
}

// The permission dialog of a command, and of an edit with its diff.
func TestPermissionDialogGolden(t *testing.T) {
	for _, color := range []bool{false, true} {
		suffix := map[bool]string{false: "nocolor", true: "color"}[color]
		t.Run(suffix, func(t *testing.T) {
			d := newDriver(t, scripted.New(
				scripted.Step{Calls: []scripted.Call{{ID: "b1", Name: "bash", Input: `{"command":"go test ./..."}`}}},
				scripted.Step{Calls: []scripted.Call{{ID: "e1", Name: "edit_file", Input: `{"path":"add.go","edits":[{"old":"return a - b","new":"return a + b"}]}`}}},
				scripted.Step{Text: "ok"},
			), 80, 24, color, writeAdd)
			d.typeText("run the tests")
			d.press("enter")
			d.dialog()
			golden(t, "permission_bash_80x24_"+suffix+".txt", d.screen())
			d.press("y")
			d.dialog()
			golden(t, "permission_edit_80x24_"+suffix+".txt", d.screen())
			d.press("n")
			d.idle()
		})
	}
}

// An ask_user card with options, free text and skip.
func TestAskUserGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		name := fmt.Sprintf("ask_user_%dx%d_nocolor.txt", size[0], size[1])
		t.Run(name, func(t *testing.T) {
			d := newDriver(t, scripted.New(
				scripted.Step{Calls: []scripted.Call{{ID: "q1", Name: "ask_user", Input: `{"question":"Which database should the service use?","options":[{"label":"PostgreSQL","description":"the team knows it"},{"label":"SQLite","description":"no server to run"}],"allow_free_text":true}`}}},
				scripted.Step{Text: "Going with it."},
			), size[0], size[1], false, nil)
			d.typeText("set up storage")
			d.press("enter")
			d.dialog()
			golden(t, name, d.screen())
			d.press("2")
			d.press("enter")
			d.idle()
			if !strings.Contains(strings.Join(d.m.transcript, "\n"), "Going with it.") {
				t.Error("the turn did not go on after the answer")
			}
		})
	}
}
