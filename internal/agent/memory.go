package agent

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
)

// NestedMemory is the memory files of the folders below the working directory, given
// the first time a call touches a file there (config.Nested). It must be safe for
// concurrent use: read calls run in parallel.
type NestedMemory interface {
	// Touch returns the memory files of the folders of paths not given yet, as text
	// ("" when there are none), and the files it holds.
	Touch(paths []string) (text string, files []string)
	// Text is every file Touch gave, re-injected after a compaction.
	Text() string
}

// memoryReminder carries the memory files a call's folders added, appended to its
// result for the model (the person reads a notice instead).
const memoryReminder = "\n\n<system-reminder>\nMemory files of the folders this call touched (or rules whose paths match the files it touched), now part of your memory: they apply to the files under their folders (a rule, to the files its paths match) and win over the memory files of the folders above; the user's instructions still win over them.\n\n%s\n</system-reminder>"

// touchMemory gives the memory files of the folders a call that ran touched, when its
// tool declares the files it reads or writes: the reminder for its result, and the
// notice that tells the person.
func (a *Agent) touchMemory(p *pending) (reminder string, notice face.Event) {
	if a.Nested == nil || p.cancelled || p.tool.Info().Files == tool.FilesNone || len(p.inv.Paths) == 0 {
		return "", nil
	}
	text, files := a.Nested.Touch(p.inv.Paths)
	if text == "" {
		return "", nil
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f
		if r, err := filepath.Rel(a.Env.Cwd, f); err == nil && !strings.HasPrefix(r, "..") {
			names[i] = r
		}
	}
	return fmt.Sprintf(memoryReminder, text), face.Notice{Text: "added " + strings.Join(names, ", ") + " to the memory", Info: true}
}

// memoryText is the memory a compaction re-injects: the files of the start, then
// those the calls added since.
func (a *Agent) memoryText() string {
	parts := []string{strings.TrimSpace(a.Config.Memory)}
	if a.Nested != nil {
		parts = append(parts, strings.TrimSpace(a.Nested.Text()))
	}
	var out []string
	for _, s := range parts {
		if s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, "\n\n")
}
