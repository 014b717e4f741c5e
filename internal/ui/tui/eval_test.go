package tui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// An eval cell shows its title, its code and its output, an image as [image WxH].
func TestEvalCellLines(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := checkPython(python, "import matplotlib"); err != nil {
		testenv.Missing(t, err.Error())
	}
	model := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "c1", Name: "eval", Input: `{"code":"import matplotlib.pyplot as plt\nplt.plot([1, 2], [2, 1])\nprint('plotted')","description":"plot two points as a line"}`}}},
		scripted.Step{Text: "Done."},
	)
	d := newDriver(t, model, 100, 40, false, func(dir string) {
		_ = os.MkdirAll(filepath.Join(dir, ".gantry"), 0o755)
		_ = os.WriteFile(filepath.Join(dir, ".gantry", "config.yaml"), []byte("eval:\n  python: "+python+"\n"), 0o644)
	})
	d.m.app.SetMode("yolo")
	d.typeText("plot")
	d.press("enter")
	d.idle()
	screen := d.screen()
	for _, want := range []string{"🧪 plot two points as a line (python)", "import matplotlib.pyplot as plt", "plotted", "[image "} {
		if !strings.Contains(screen, want) {
			t.Fatalf("%q not on the screen:\n%s", want, screen)
		}
	}
}

func checkPython(python, code string) error { return exec.Command(python, "-c", code).Run() }
