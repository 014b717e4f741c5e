package app

import (
	_ "embed"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
)

//go:embed system.md
var baseSystem string

// systemPrompt assembles the system prompt: the base (or the --system-prompt that
// replaces it), the environment, the memory files, and --append-system-prompt.
func systemPrompt(base, appendix, cwd, memory string, now time.Time) string {
	if base == "" {
		base = baseSystem
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(base))
	fmt.Fprintf(&b, "\n\n<environment>\nWorking directory: %s\nPlatform: %s/%s\nDate: %s\n", cwd, runtime.GOOS, runtime.GOARCH, now.Format("2006-01-02"))
	if isGit(cwd) {
		b.WriteString("The working directory is inside a git repository.\n")
	}
	b.WriteString("</environment>\n")
	if memory = strings.TrimSpace(memory); memory != "" {
		b.WriteString("\n<memory>\nInstructions from the user's and the project's memory files (AGENTS.md, CLAUDE.md, …); follow them. " + config.MemoryPrecedence + "\n\n")
		b.WriteString(memory)
		b.WriteString("\n</memory>\n")
	}
	if appendix = strings.TrimSpace(appendix); appendix != "" {
		b.WriteString("\n")
		b.WriteString(appendix)
		b.WriteString("\n")
	}
	return b.String()
}

// isGit reports whether dir is inside a git work tree, without running git.
func isGit(dir string) bool { return findUp(dir, ".git") != "" }
