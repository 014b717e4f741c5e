package acp

import (
	"context"
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/app"
)

// runDoctor answers /doctor with what `gantry doctor` prints for the session's folder:
// what is in force, what was read from gantry's, Claude Code's and Codex's files, and
// what was ignored and why (marked ⚠). It reads files only; nothing is started.
func runDoctor(s *session, _ context.Context, _ string) string {
	rows, err := app.Doctor(s.app.Cwd())
	if err != nil {
		return fmt.Sprintf("The doctor could not look: %v.", err)
	}
	var b strings.Builder
	b.WriteString("What is in force here, and what was read:\n\n")
	for _, r := range rows {
		mark := ""
		if r.Problem {
			mark = "⚠ "
		}
		switch {
		case r.Name != "":
			fmt.Fprintf(&b, "- **%s**: %s%s\n", r.Name, mark, r.Value)
		default:
			fmt.Fprintf(&b, "  - %s%s\n", mark, strings.TrimSpace(r.Value))
		}
	}
	return b.String()
}
