package dap

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
)

// Spec is one row of the adapter table: what it debugs, where it roots, how it starts.
// Nothing else in gantry names an adapter.
type Spec struct {
	// ID names the row ("delve", "debugpy", "lldb", "dart").
	ID string
	// Commands are tried in order; the first whose program is found starts the
	// adapter. A program is looked up in PATH unless it holds a slash; "{python}" is
	// the project's Python (Python).
	Commands [][]string
	// Markers are the files at the root of a project the adapter serves.
	Markers []string
	// Extensions are the program files it debugs (".go"); Native means built
	// executables (an ELF file); a folder is the Go package of delve.
	Extensions []string
	Native     bool
	Folder     bool
	// Listen: the adapter serves DAP on a TCP port it prints ("… listening at:
	// HOST:PORT") instead of on its standard streams: its command gets
	// --listen=127.0.0.1:0.
	Listen bool
	// Module is a Python module the interpreter must import ("debugpy"): the
	// adapter is usable only where it does.
	Module string
	// Launch is the launch request's arguments for program (absolute), args and the
	// working folder; Attach those to attach to a debug server on port of this
	// machine, and Direct whether that server speaks DAP itself (gantry connects to
	// it, no adapter is started).
	Launch func(program string, args []string, cwd string) map[string]any
	Attach func(port int) map[string]any
	Direct bool
	// EvaluateContext is the context of an evaluate request ("" is "repl", where
	// delve and debugpy take statements too; lldb-dap answers "watch" with the bare
	// value, "repl" with its console's "(int) $0 = 2").
	EvaluateContext string
	// BuildOutput is the launch argument naming where the adapter writes the program
	// it builds (delve's "output"): gantry points it into a folder of its own
	// outside the project, removed with the session ("": the adapter builds nothing).
	BuildOutput string
	// ExitSignal says how the adapter's exited event reports a program a signal
	// killed (a negative exit code always means one).
	ExitSignal SignalCode
}

// SignalCode is how an adapter reports, in its exited event's exit code, that a
// signal killed the program.
type SignalCode int

const (
	// SignalNegative: -N (delve).
	SignalNegative SignalCode = iota
	// SignalWrapped: 256-N, a negative code seen as a byte (debugpy, from Python's
	// returncode -N).
	SignalWrapped
	// SignalNumber: N itself, as an exit status would be (lldb-dap), so it is read
	// as a signal only when the program last stopped on that signal.
	SignalNumber
)

// Defaults is the built-in table.
func Defaults() []Spec {
	return []Spec{
		{
			ID: "delve", Commands: [][]string{{"dlv", "dap"}}, Markers: []string{"go.mod"},
			Extensions: []string{".go"}, Folder: true, Listen: true,
			Launch: func(program string, args []string, cwd string) map[string]any {
				// Output as events (not dlv's own stdout), so the output operation has it.
				return map[string]any{"mode": "debug", "program": program, "args": nonNil(args), "cwd": cwd, "outputMode": "remote"}
			},
			Attach:      func(int) map[string]any { return map[string]any{"mode": "remote"} },
			Direct:      true,
			BuildOutput: "output",
		},
		{
			ID: "debugpy", Commands: [][]string{{"{python}", "-m", "debugpy.adapter"}},
			Markers: []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"}, Extensions: []string{".py"},
			Module: "debugpy",
			Launch: func(program string, args []string, cwd string) map[string]any {
				return map[string]any{"program": program, "args": nonNil(args), "cwd": cwd, "console": "internalConsole",
					"justMyCode": true, "redirectOutput": true}
			},
			Attach:     func(int) map[string]any { return map[string]any{"justMyCode": true} },
			Direct:     true,
			ExitSignal: SignalWrapped,
		},
		{
			ID: "lldb", Commands: [][]string{{"lldb-dap"}, {"lldb-dap-21"}, {"lldb-dap-20"}, {"lldb-dap-19"}, {"lldb-dap-18"}, {"lldb-vscode"}, {"lldb-vscode-16"}, {"lldb-vscode-15"}, {"lldb-vscode-14"}},
			Markers: []string{"Cargo.toml", "CMakeLists.txt", "Makefile", "meson.build", "compile_commands.json"}, Native: true,
			Launch: func(program string, args []string, cwd string) map[string]any {
				return map[string]any{"program": program, "args": nonNil(args), "cwd": cwd}
			},
			Attach: func(port int) map[string]any {
				return map[string]any{"gdb-remote-port": port}
			},
			EvaluateContext: "watch",
			ExitSignal:      SignalNumber,
		},
		{
			ID: "dart", Commands: [][]string{{"dart", "debug_adapter"}}, Markers: []string{"pubspec.yaml"}, Extensions: []string{".dart"},
			Launch: func(program string, args []string, cwd string) map[string]any {
				return map[string]any{"program": program, "args": nonNil(args), "cwd": cwd}
			},
		},
	}
}

func nonNil(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}

// Merge lays rows over base: a row of an ID already there replaces what it sets
// (its command, markers, extensions); a new ID is added with what it sets.
func Merge(base []Spec, rows []Spec) []Spec {
	out := slices.Clone(base)
	for _, r := range rows {
		i := slices.IndexFunc(out, func(s Spec) bool { return s.ID == r.ID })
		if i < 0 {
			if r.Launch == nil {
				r.Launch = func(program string, args []string, cwd string) map[string]any {
					return map[string]any{"program": program, "args": nonNil(args), "cwd": cwd}
				}
			}
			out = append(out, r)
			continue
		}
		if len(r.Commands) > 0 {
			out[i].Commands = r.Commands
		}
		if len(r.Markers) > 0 {
			out[i].Markers = r.Markers
		}
		if len(r.Extensions) > 0 {
			out[i].Extensions = r.Extensions
		}
	}
	return out
}

// isNative tells whether path is an executable this machine runs (an ELF file).
func isNative(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// Python is the interpreter of the project at root: its .venv or venv first, then
// python3 from PATH.
func Python(root string) string {
	for _, v := range []string{".venv", "venv"} {
		p := filepath.Join(root, v, "bin", "python")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	if p, err := exec.LookPath("python3"); err == nil {
		return p
	}
	return ""
}

// Usability is whether an adapter can start for a folder, and if not why.
type Usability struct {
	Spec    *Spec
	Command []string // resolved: the program found, and its arguments
	Root    string   // the folder whose marker matched ("" when none)
	Why     string   // "" when usable
}

// Check resolves s for the project at cwd: the command found, the marker's folder
// (the nearest at or above cwd), and why it cannot start (no program; the module
// not importable). A missing marker does not stop an adapter (a script runs
// anywhere): Root is then "".
func Check(ctx context.Context, s *Spec, cwd, python string, pol *contain.Policy) Usability {
	u := Usability{Spec: s, Root: findRoot(cwd, s.Markers)}
	var tried []string
	for _, c := range s.Commands {
		prog := c[0]
		if prog == "{python}" {
			prog = python
			if prog == "" {
				tried = append(tried, "python3")
				continue
			}
		}
		path, err := exec.LookPath(prog)
		if err != nil {
			tried = append(tried, prog)
			continue
		}
		u.Command = append([]string{path}, c[1:]...)
		break
	}
	if u.Command == nil {
		u.Why = fmt.Sprintf("%s is not installed (looked for %s)", s.ID, strings.Join(tried, ", "))
		return u
	}
	if s.Module != "" {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		// The interpreter may be the project's own (.venv): it runs under the
		// session's policy like everything else.
		if _, err := pol.OutputContext(ctx, contain.Spec{Argv: []string{u.Command[0], "-c", "import " + s.Module}, Dir: cwd}); err != nil {
			u.Why = fmt.Sprintf("%s cannot import %s (install it in that interpreter, or make a .venv with it)", u.Command[0], s.Module)
		}
	}
	return u
}

// findRoot is the nearest folder at or above dir holding one of markers.
func findRoot(dir string, markers []string) string {
	for d := dir; ; d = filepath.Dir(d) {
		for _, m := range markers {
			if _, err := os.Stat(filepath.Join(d, m)); err == nil {
				return d
			}
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// ForProgram picks the row that debugs program (absolute): by its extension, a Go
// package folder, or a native executable.
func ForProgram(specs []Spec, program string) *Spec {
	fi, err := os.Stat(program)
	if err != nil {
		return nil
	}
	ext := filepath.Ext(program)
	for i := range specs {
		s := &specs[i]
		switch {
		case fi.IsDir() && s.Folder:
			return s
		case !fi.IsDir() && ext != "" && slices.Contains(s.Extensions, ext):
			return s
		}
	}
	if !fi.IsDir() && isNative(program) {
		for i := range specs {
			if specs[i].Native {
				return &specs[i]
			}
		}
	}
	return nil
}
