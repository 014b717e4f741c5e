package app

import (
	"encoding/json"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/lsp"
)

// lspOptions is the language-server table of the config: the built-in rows with the
// config's rows merged over them, and the wait for diagnostics after a write.
func lspOptions(cfg *config.Config) lsp.Options {
	names := make([]string, 0, len(cfg.LSP.Servers))
	for n := range cfg.LSP.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	var rows []lsp.Spec
	for _, n := range names {
		s := cfg.LSP.Servers[n]
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
	return lsp.Options{Servers: lsp.Merge(lsp.Defaults(), rows), DiagnosticsWait: time.Duration(cfg.LSP.DiagnosticsWait) * time.Second}
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

// lookGopls finds gopls where go install puts it, for tests and doctor.
func lookGopls() (string, error) {
	ts := lsp.NewManager(nil, lsp.Options{}).Binaries()
	if p := ts["gopls"]; p != "" {
		return p, nil
	}
	return "", exec.ErrNotFound
}

// lspRows say which language servers are installed and, per row of the table, whether
// it would serve cwd and why not.
func lspRows(cfg *config.Config, cwd string) []DoctorRow {
	m := lsp.NewManager(nil, lspOptions(cfg))
	bins := m.Binaries()
	names := make([]string, 0, len(bins))
	for n, p := range bins {
		if p != "" {
			names = append(names, n+" ("+p+")")
		}
	}
	sort.Strings(names)
	found := "none found (PATH and Go's bin folder)"
	if len(names) > 0 {
		found = strings.Join(names, ", ")
	}
	rows := []DoctorRow{{Name: "language servers", Value: found}}
	for _, s := range m.Status(cwd) {
		rows = append(rows, DoctorRow{Value: s})
	}
	return rows
}
