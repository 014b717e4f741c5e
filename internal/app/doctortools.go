package app

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/tools/evaltool"
)

// toolRows say what the tools that need programs outside gantry find here: eval's
// interpreters (which Python, its version and the modules its cells are shown
// best with; Node.js), the display and accessibility bus of computer, the debug
// adapters; and for what is missing, the line that installs it.
func toolRows(cfg *config.Config, cwd string) []DoctorRow {
	var rows []DoctorRow
	rows = append(rows, pythonRows(cfg, cwd)...)
	rows = append(rows, nodeRow(cfg))
	rows = append(rows, computerRows()...)
	rows = append(rows, adapterRows()...)
	return rows
}

// probeTimeout bounds each interpreter the doctor runs.
const probeTimeout = 10 * time.Second

// pythonRows name the interpreter eval's Python kernel would run in cwd, chosen as
// evaltool chooses it (eval.python, the project's .venv or venv, else python3), with
// its version and the optional modules: pandas (tables), matplotlib (plots).
func pythonRows(cfg *config.Config, cwd string) []DoctorRow {
	p, from := evaltool.Section.Of(cfg).Python, "eval.python"
	if p == "" {
		for _, v := range []string{".venv", "venv"} {
			c := filepath.Join(cwd, v, "bin", "python")
			if fi, err := os.Stat(c); err == nil && !fi.IsDir() {
				p, from = c, "the project's "+v
				break
			}
		}
	}
	if p == "" {
		p, from = "python3", "PATH"
	}
	path, err := exec.LookPath(p)
	if err != nil {
		return []DoctorRow{{Name: "eval: python", Value: fmt.Sprintf("%s not found (%s): eval runs no Python — apt-get install python3", p, from), Problem: true}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	// find_spec looks a module up without importing it (pandas takes seconds to import).
	probe := `import sys, importlib.util as u
print(sys.version.split()[0])
for m in ("pandas", "matplotlib", "numpy"):
    print(m, u.find_spec(m) is not None)`
	out, err := probeOutput(ctx, path, "-c", probe)
	if err != nil {
		return []DoctorRow{{Name: "eval: python", Value: fmt.Sprintf("%s (%s) does not run: %v", path, from, err), Problem: true}}
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	rows := []DoctorRow{{Name: "eval: python", Value: fmt.Sprintf("%s (%s), Python %s; the kernel needs only the standard library", path, from, lines[0])}}
	var have, missing []string
	for _, l := range lines[1:] {
		if name, ok := strings.CutSuffix(l, " True"); ok {
			have = append(have, name)
		} else if name, ok := strings.CutSuffix(l, " False"); ok {
			missing = append(missing, name)
		}
	}
	if len(have) > 0 {
		rows = append(rows, DoctorRow{Value: "modules: " + strings.Join(have, ", ")})
	}
	if len(missing) > 0 {
		rows = append(rows, DoctorRow{Value: fmt.Sprintf("not installed: %s (tables and plots show as text without them) — %s -m pip install %s",
			strings.Join(missing, ", "), path, strings.Join(missing, " "))})
	}
	return rows
}

// nodeRow names the Node.js of eval's JavaScript kernel, and its version.
func nodeRow(cfg *config.Config) DoctorRow {
	p := evaltool.Section.Of(cfg).Node
	if p == "" {
		p = "node"
	}
	path, err := exec.LookPath(p)
	if err != nil {
		return DoctorRow{Name: "eval: node", Value: p + " not found: eval runs no JavaScript — apt-get install nodejs", Problem: true}
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	out, err := probeOutput(ctx, path, "--version")
	if err != nil {
		return DoctorRow{Name: "eval: node", Value: fmt.Sprintf("%s does not run: %v", path, err), Problem: true}
	}
	return DoctorRow{Name: "eval: node", Value: fmt.Sprintf("%s, Node.js %s", path, strings.TrimSpace(string(out)))}
}

// computerRows say whether computer has a display ($DISPLAY, an X server's socket)
// and an accessibility bus (the session bus, and at-spi2's bus launcher) to read the
// screen's elements from.
func computerRows() []DoctorRow {
	var rows []DoctorRow
	d := os.Getenv("DISPLAY")
	switch {
	case d == "":
		xvfb := "apt-get install xvfb, then Xvfb :99 & and DISPLAY=:99"
		if p, err := exec.LookPath("Xvfb"); err == nil {
			xvfb = p + " is installed: Xvfb :99 & and DISPLAY=:99"
		}
		rows = append(rows, DoctorRow{Name: "computer: display", Value: "DISPLAY is not set: computer has no screen — " + xvfb, Problem: true})
	case strings.HasPrefix(d, ":") && !xSocket(d):
		rows = append(rows, DoctorRow{Name: "computer: display", Value: fmt.Sprintf("DISPLAY=%s, but no X server listens there (/tmp/.X11-unix) — start one (Xvfb %s &)", d, displayNumber(d)), Problem: true})
	default:
		rows = append(rows, DoctorRow{Name: "computer: display", Value: "DISPLAY=" + d})
	}
	launcher := ""
	for _, p := range []string{"/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher", "/usr/lib/at-spi2/at-spi-bus-launcher"} {
		if _, err := os.Stat(p); err == nil {
			launcher = p
			break
		}
	}
	bus := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	switch {
	case launcher == "":
		rows = append(rows, DoctorRow{Name: "computer: accessibility", Value: "at-spi2 not found: computer sees pixels only, no element tree — apt-get install at-spi2-core", Problem: true})
	case bus == "":
		rows = append(rows, DoctorRow{Name: "computer: accessibility", Value: "at-spi2 is installed (" + launcher + "), but no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set): run the desktop under dbus-run-session", Problem: true})
	default:
		rows = append(rows, DoctorRow{Name: "computer: accessibility", Value: "at-spi2 (" + launcher + ") on the session bus " + bus})
	}
	return rows
}

// displayNumber is the number of an X display such as ":99" or ":0.0".
func displayNumber(d string) string {
	n, _, _ := strings.Cut(strings.TrimPrefix(d, ":"), ".")
	return ":" + n
}

// xSocket reports whether a local X display's socket exists.
func xSocket(d string) bool {
	_, err := os.Stat("/tmp/.X11-unix/X" + strings.TrimPrefix(displayNumber(d), ":"))
	return err == nil
}

// adapterRows name the debug adapters found (the programs internal/dap runs), and
// how to install each one missing.
func adapterRows() []DoctorRow {
	adapters := []struct {
		name     string
		programs []string
		install  string
	}{
		{"delve", []string{"dlv"}, "go install github.com/go-delve/delve/cmd/dlv@latest"},
		{"debugpy", nil, "apt-get install python3-debugpy (or python3 -m pip install debugpy)"},
		{"lldb", []string{"lldb-dap", "lldb-dap-21", "lldb-dap-20", "lldb-dap-19", "lldb-dap-18", "lldb-vscode"}, "apt-get install lldb"},
	}
	var have, missing []string
	for _, a := range adapters {
		found := ""
		if a.programs == nil && pythonHas("debugpy") {
			found = "debugpy (python3 -m debugpy.adapter)"
		}
		for _, p := range a.programs {
			if path, err := exec.LookPath(p); err == nil {
				found = a.name + " (" + path + ")"
				break
			}
		}
		if found != "" {
			have = append(have, found)
		} else {
			missing = append(missing, a.name+": "+a.install)
		}
	}
	value := "none found"
	if len(have) > 0 {
		value = strings.Join(have, ", ")
	}
	rows := []DoctorRow{{Name: "debug adapters", Value: value}}
	for _, m := range missing {
		rows = append(rows, DoctorRow{Value: "missing " + m, Problem: true})
	}
	return rows
}

// pythonHas reports whether python3 has a module.
func pythonHas(module string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	_, err := probeOutput(ctx, "python3", "-c", "import importlib.util as u, sys; sys.exit(u.find_spec(sys.argv[1]) is None)", module)
	return err == nil
}

// probeWidening: doctor's probes of an interpreter (its version, whether a module
// is found, without importing it) run outside the sandbox, through the door like
// every process, as the checkpoints' git does: they run nothing of the project's.
var probeWidening = &contain.Widening{Why: "doctor: gantry's own probes of eval's interpreters", OutsideSandbox: true}

// probeOutput runs argv through the door (contained, in a PID namespace where one
// can be made) and returns its standard output.
func probeOutput(ctx context.Context, argv ...string) ([]byte, error) {
	var pol *contain.Policy
	return pol.Process(contain.Spec{Argv: argv, Widen: probeWidening}).Output(ctx)
}
