// Package lsp is gantry's language-server client and supervisor: a table of servers
// (which binary serves which files, started where a root marker is), the client that
// speaks to one server over stdio (go.lsp.dev/protocol), and the Manager that finds,
// starts (lazily, through the process's resource pool), restarts once and reports on
// the servers a session uses.
package lsp

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Spec is one row of the server table: what a server serves and how it starts.
type Spec struct {
	// Name names the server in the pool and in status ("gopls").
	Name string
	// Language is what status calls its files ("Go").
	Language string
	// Commands are the binaries to try, in order; the first that resolves runs.
	Commands []string
	Args     []string
	// Markers are the files whose presence makes a folder the server's root.
	Markers []string
	// Extensions are the file extensions the server serves, with their dot.
	Extensions []string
	// InitOptions are sent as initializationOptions (nil: none).
	InitOptions json.RawMessage
	// Checker is the project-wide check `diagnostics "*"` runs in the root (a shell
	// command; empty: none).
	Checker string
	// LanguageID is the LSP language id of the files (default: Name's language).
	LanguageID string
	// ReadyOnDiagnostics: the server's progress before the first file does not say
	// its project is loaded (pyright sends none; typescript-language-server's can end
	// early; clangd starts indexing only once a file is open), so a query first waits
	// for the diagnostics of the file it opened, then for the progress then running.
	ReadyOnDiagnostics bool
	// CleanProbe names how to learn at once that a file the server last reported
	// clean is still clean after a change, for a server that then publishes nothing
	// (so a wait for its diagnostics could only run to its bound): "tsserver" asks
	// typescript-language-server's TypeScript server for the file's diagnostics
	// (ProbeTSServer). Empty: none, the wait is for a publish.
	CleanProbe string
	// Install is how to install the server where it is missing (a command line;
	// "": gantry knows none, as for a server of the user's configuration).
	Install string
}

// ProbeTSServer is the CleanProbe of typescript-language-server: its documented
// workspace/executeCommand "typescript.tsserverRequest" sends tsserver's
// syntacticDiagnosticsSync, semanticDiagnosticsSync and suggestionDiagnosticsSync
// for the file; all empty means the server will publish nothing for the change.
const ProbeTSServer = "tsserver"

// CleanProbes are the values CleanProbe may take.
var CleanProbes = []string{ProbeTSServer}

// languageID is the LSP language id of the file at path.
func (s Spec) languageID(path string) string {
	if s.LanguageID == "cpp" {
		switch strings.ToLower(filepath.Ext(path)) {
		case ".c", ".h":
			return "c"
		}
	}
	return s.LanguageID
}

// Defaults is the built-in server table; config rows replace a row of the same name
// or add one.
func Defaults() []Spec {
	return []Spec{
		{Name: "gopls", Language: "Go", Commands: []string{"gopls"}, Install: "go install golang.org/x/tools/gopls@v0.23.0", Markers: []string{"go.mod"},
			Extensions: []string{".go"}, Checker: "go vet ./...", LanguageID: "go"},
		{Name: "pyright", Language: "Python", Commands: []string{"pyright-langserver", "pylsp"}, Install: "npm install -g pyright", Args: []string{"--stdio"},
			Markers: []string{"pyproject.toml", "setup.py", "requirements.txt"}, Extensions: []string{".py"},
			Checker: "pyright", LanguageID: "python", ReadyOnDiagnostics: true},
		{Name: "typescript", Language: "TypeScript", Commands: []string{"typescript-language-server"}, Install: "npm install -g typescript typescript-language-server", Args: []string{"--stdio"},
			Markers: []string{"tsconfig.json", "package.json"}, Extensions: []string{".ts", ".tsx", ".js", ".jsx"},
			Checker: "npx --no-install tsc --noEmit", LanguageID: "typescript", ReadyOnDiagnostics: true,
			CleanProbe: ProbeTSServer},
		{Name: "clangd", Language: "C/C++", Commands: []string{"clangd-19", "clangd"}, Install: "apt-get install clangd-19 (or your system's clangd package)",
			Markers: []string{"compile_commands.json", "compile_flags.txt", "CMakeLists.txt"}, Extensions: []string{".c", ".h", ".cc", ".cpp", ".hpp", ".cxx"},
			LanguageID: "cpp", ReadyOnDiagnostics: true},
		{Name: "rust-analyzer", Language: "Rust", Commands: []string{"rust-analyzer"}, Install: "rustup component add rust-analyzer", Markers: []string{"Cargo.toml"},
			Extensions: []string{".rs"}, Checker: "cargo check", LanguageID: "rust"},
	}
}

// Merge returns base with the rows of over replacing those of the same name (fields
// over leaves empty keep base's) and the new ones appended.
func Merge(base, over []Spec) []Spec {
	out := slices.Clone(base)
	for _, o := range over {
		i := slices.IndexFunc(out, func(s Spec) bool { return s.Name == o.Name })
		if i < 0 {
			out = append(out, o)
			continue
		}
		b := &out[i]
		if o.Language != "" {
			b.Language = o.Language
		}
		if len(o.Commands) > 0 {
			// Other binaries: the built-in row's way to install its own no longer says.
			b.Commands, b.Args, b.Install = o.Commands, o.Args, o.Install
		} else if o.Args != nil {
			b.Args = o.Args
		}
		if len(o.Markers) > 0 {
			b.Markers = o.Markers
		}
		if len(o.Extensions) > 0 {
			b.Extensions = o.Extensions
		}
		if o.InitOptions != nil {
			b.InitOptions = o.InitOptions
		}
		if o.Checker != "" {
			b.Checker = o.Checker
		}
		if o.LanguageID != "" {
			b.LanguageID = o.LanguageID
		}
		if o.ReadyOnDiagnostics {
			b.ReadyOnDiagnostics = true
		}
		if o.CleanProbe != "" {
			b.CleanProbe = o.CleanProbe
		}
	}
	return out
}

// Serves says whether s serves the file at path.
func (s Spec) Serves(path string) bool { return s.serves(path) }

// serves says whether s serves the file at path.
func (s Spec) serves(path string) bool {
	return slices.Contains(s.Extensions, strings.ToLower(filepath.Ext(path)))
}

// binary is the first of s.Commands that resolves, or "".
func (s Spec) binary(lookPath func(string) (string, error)) string {
	for _, c := range s.Commands {
		if p, err := lookPath(c); err == nil {
			return p
		}
	}
	return ""
}

// root is the nearest folder from dir up to stop (included) holding one of s's
// markers, or "".
func (s Spec) root(dir, stop string) string {
	for {
		for _, m := range s.Markers {
			if _, err := os.Stat(dir + string(filepath.Separator) + m); err == nil {
				return dir
			}
		}
		if dir == stop {
			return ""
		}
		up := filepath.Dir(dir)
		if up == dir || !within(up, stop) {
			return ""
		}
		dir = up
	}
}

// within says whether p is dir or inside it.
func within(p, dir string) bool {
	if dir == "/" && strings.HasPrefix(p, "/") {
		return true
	}
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, "../")
}

// lookPath resolves a command as exec.LookPath does, trying GOPATH/bin for gopls-like
// tools installed with go install when PATH lacks them.
func lookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err == nil || strings.ContainsRune(name, '/') {
		return p, err
	}
	for _, dir := range goBins() {
		c := filepath.Join(dir, name)
		if st, e := os.Stat(c); e == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return c, nil
		}
	}
	return "", err
}

func goBins() []string {
	var out []string
	if b := os.Getenv("GOBIN"); b != "" {
		out = append(out, b)
	}
	if gp := os.Getenv("GOPATH"); gp != "" {
		for _, p := range filepath.SplitList(gp) {
			out = append(out, filepath.Join(p, "bin"))
		}
	} else if home, err := os.UserHomeDir(); err == nil {
		out = append(out, filepath.Join(home, "go", "bin"))
	}
	return out
}
