package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/testenv"
	"github.com/gantry-dev/gantry/internal/tools/evaltool"
)

// The doctor names the Python eval would run (here the project's .venv) with its
// version and modules, says what is missing with the line that installs it (a Node
// that is not there, no display), and names the debug adapters.
func TestDoctorToolRows(t *testing.T) {
	py := testenv.Need(t, "python3") // the eval tool's kernel runs in it
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".venv", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	venv := filepath.Join(dir, ".venv", "bin", "python")
	if err := os.Symlink(py, venv); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DISPLAY", "")
	cfg := &config.Config{}
	evaltool.Section.Set(cfg, evaltool.Config{Node: filepath.Join(dir, "no-node")})
	rows := toolRows(cfg, dir)
	text := map[string]DoctorRow{}
	var all []string
	last := ""
	for _, r := range rows {
		if r.Name != "" {
			last = r.Name
		}
		all = append(all, last+": "+r.Value)
		if _, ok := text[last]; !ok {
			text[last] = r
		}
	}
	joined := strings.Join(all, "\n")
	if r := text["eval: python"]; r.Problem || !strings.HasPrefix(r.Value, venv+" (the project's .venv), Python 3.") {
		t.Errorf("eval's Python:\n%s", joined)
	}
	if !strings.Contains(joined, "pandas") || !strings.Contains(joined, "matplotlib") {
		t.Errorf("the modules eval shows best with are not named:\n%s", joined)
	}
	if r := text["eval: node"]; !r.Problem || !strings.Contains(r.Value, "not found") || !strings.Contains(r.Value, "apt-get install nodejs") {
		t.Errorf("a missing Node.js:\n%s", joined)
	}
	if r := text["computer: display"]; !r.Problem || !strings.Contains(r.Value, "DISPLAY is not set") || !strings.Contains(r.Value, "Xvfb :99") {
		t.Errorf("no display:\n%s", joined)
	}
	if _, ok := text["computer: accessibility"]; !ok {
		t.Errorf("no row on the accessibility bus:\n%s", joined)
	}
	if _, ok := text["debug adapters"]; !ok {
		t.Errorf("no row on the debug adapters:\n%s", joined)
	}
}
