package app

import (
	"os/exec"
	"sort"
	"strings"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/tools/lsptool"
)

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
	m := lsp.NewManager(nil, lsptool.Section.Of(cfg).ManagerOptions())
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
