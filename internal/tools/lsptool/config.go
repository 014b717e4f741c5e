package lsptool

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/lsp"
)

// Config is the lsp section of the config files: the language servers of the lsp
// tools and of diagnostics on write (docs/config.md).
type Config struct {
	// DiagnosticsWait bounds, in seconds, the wait for a server's diagnostics after a
	// write (0: the default, 10); the wait ends as soon as the server has published
	// for the new version.
	DiagnosticsWait int
	// Servers are rows of the server table by name: a row of a built-in server
	// (gopls, pyright, typescript, clangd, rust-analyzer) changes the keys it sets;
	// another name adds a server.
	Servers map[string]Server
}

// Server is one row of the language-server table, as the files write it.
type Server struct {
	// Command is the binary (with Args); unset keeps a built-in row's.
	Command string   `yaml:"command,omitempty"`
	Args    []string `yaml:"args,omitempty"`
	// Markers are the files that make a folder the server's root.
	Markers []string `yaml:"markers,omitempty"`
	// Languages are the file extensions it serves, with their dot (".go").
	Languages []string `yaml:"languages,omitempty"`
	// InitializationOptions are sent as is in initialize.
	InitializationOptions map[string]any `yaml:"initializationOptions,omitempty"`
	// Checker is the shell command `lsp diagnostics "*"` runs in the root.
	Checker string `yaml:"checker,omitempty"`
	// LanguageID is the LSP language id of its files.
	LanguageID string `yaml:"languageId,omitempty"`
	// ReadyOnDiagnostics: a query waits for the opened file's diagnostics, then for
	// the progress then running, before it asks (servers whose progress does not say
	// their project is loaded).
	ReadyOnDiagnostics bool `yaml:"readyOnDiagnostics,omitempty"`
	// CleanProbe is how to learn at once that a clean file stayed clean after a
	// write, for a server that then publishes nothing: one of lsp.CleanProbes.
	CleanProbe string `yaml:"cleanProbe,omitempty"`
}

// Section is the lsp section's registration: config decodes, checks and merges it,
// and Section.Of gives its value.
var Section = config.RegisterSection[Config, *fileConfig](config.SectionDef[Config]{
	Key:        "lsp",
	Doc:        "The language servers of the lsp tools and of diagnostics on write.",
	FromPlugin: pluginServers,
})

// fileConfig is what one file says of the section.
type fileConfig struct {
	DiagnosticsWait *int              `yaml:"diagnosticsWait"`
	Servers         map[string]Server `yaml:"servers"`
}

// Check validates one file's section.
func (f *fileConfig) Check(c config.Checker) {
	if w := f.DiagnosticsWait; w != nil && (*w < 0 || *w > 60) {
		c.At("diagnosticsWait").Fail("must be between 0 (the default, 10) and 60 (seconds), not %d", *w)
	}
	for name, srv := range f.Servers {
		at := c.At("servers", name)
		if strings.TrimSpace(name) == "" {
			at.Fail("needs a name")
		}
		for i, ext := range srv.Languages {
			if !strings.HasPrefix(ext, ".") || len(ext) < 2 || strings.ContainsAny(ext, "/ ") {
				at.At("languages").Item(i).Fail("must be a file extension with its dot, such as \".go\", not %q", ext)
			}
		}
		for i, m := range srv.Markers {
			if m == "" || strings.Contains(m, "/") {
				at.At("markers").Item(i).Fail("must be a file name, such as \"go.mod\", not %q", m)
			}
		}
		if len(srv.Args) > 0 && srv.Command == "" {
			at.At("args").Fail("needs a command to pass them to")
		}
		if srv.CleanProbe != "" {
			at.At("cleanProbe").OneOf(srv.CleanProbe, lsp.CleanProbes)
		}
	}
}

// Merge lays one file's section over the files before it: a later file's row of a
// name replaces an earlier one's whole row.
func (f *fileConfig) Merge(into *Config) {
	if f.DiagnosticsWait != nil {
		into.DiagnosticsWait = *f.DiagnosticsWait
	}
	for name, srv := range f.Servers {
		if into.Servers == nil {
			into.Servers = map[string]Server{}
		}
		into.Servers[name] = srv
	}
}

// HoldPrograms takes the servers out of an untrusted project's file.
func (f *fileConfig) HoldPrograms() []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(f.Servers)) {
		s := f.Servers[n]
		out = append(out, "servers."+n+": "+strings.Join(append([]string{s.Command}, s.Args...), " "))
	}
	f.Servers = nil
	return out
}

// pluginServers adds an enabled plugin's language servers to the table, but for a
// name the files configure already.
func pluginServers(into *Config, p *config.Plugin) []string {
	var skipped []string
	for _, n := range slices.Sorted(maps.Keys(p.LSPServers)) {
		if _, taken := into.Servers[n]; taken {
			skipped = append(skipped, "its language server "+n+" was left out: a server of that name is configured already")
			continue
		}
		s := p.LSPServers[n]
		if into.Servers == nil {
			into.Servers = map[string]Server{}
		}
		into.Servers[n] = Server{Command: s.Command, Args: s.Args, Languages: s.Languages, LanguageID: s.LanguageID,
			InitializationOptions: s.InitializationOptions}
	}
	return skipped
}

// ManagerOptions is the language-server table of the section: the built-in rows with
// the section's rows merged over them, and the wait for diagnostics after a write.
func (c Config) ManagerOptions() lsp.Options {
	var rows []lsp.Spec
	for _, n := range slices.Sorted(maps.Keys(c.Servers)) {
		s := c.Servers[n]
		row := lsp.Spec{Name: n, Args: s.Args, Markers: s.Markers, Extensions: s.Languages, Checker: s.Checker, LanguageID: s.LanguageID,
			ReadyOnDiagnostics: s.ReadyOnDiagnostics, CleanProbe: s.CleanProbe}
		if s.Command != "" {
			row.Commands = []string{s.Command}
		}
		if len(row.Markers) == 0 && !slices.ContainsFunc(lsp.Defaults(), func(d lsp.Spec) bool { return d.Name == n }) {
			row.Markers = defaultMarkers(row.Extensions)
		}
		if s.InitializationOptions != nil {
			if b, err := json.Marshal(s.InitializationOptions); err == nil {
				row.InitOptions = b
			}
		}
		rows = append(rows, row)
	}
	return lsp.Options{Servers: lsp.Merge(lsp.Defaults(), rows), DiagnosticsWait: time.Duration(c.DiagnosticsWait) * time.Second}
}

// defaultMarkers are the root markers of a new server row that names none (a
// plugin's, as Claude Code's servers have no markers): those of the built-in rows
// serving any of its extensions, then .git, so that it is rooted at its project.
func defaultMarkers(exts []string) []string {
	var out []string
	for _, d := range lsp.Defaults() {
		if slices.ContainsFunc(exts, func(e string) bool { return slices.Contains(d.Extensions, e) }) {
			for _, m := range d.Markers {
				if !slices.Contains(out, m) {
					out = append(out, m)
				}
			}
		}
	}
	return append(out, ".git")
}
