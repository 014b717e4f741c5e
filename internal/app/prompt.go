package app

import (
	_ "embed"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/llm"
)

//go:embed system.md
var baseSystem string

// systemPrompt assembles the system prompt: the base (or the --system-prompt that
// replaces it), the environment, the memory files, and --append-system-prompt. Nothing
// in it changes by the day or the turn (the date goes with the prompts: reminders), so
// that every request of a session, resumed or not, starts with the same prefix.
func systemPrompt(base, appendix, cwd, memory string) string {
	if base == "" {
		base = baseSystem
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(base))
	fmt.Fprintf(&b, "\n\n<environment>\nWorking directory: %s\nPlatform: %s/%s\n", cwd, runtime.GOOS, runtime.GOARCH)
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

// nobodyNote ends the system prompt of a session nobody watches (print mode without
// -i): no question can be answered there.
const nobodyNote = "\nNobody is at the terminal (print mode): no question can be answered and no permission " +
	"granted while you work. Make reasonable choices, say what you assumed, and finish; what is refused stays refused.\n"

// dateReminder opens the reminder that tells the model the date.
const dateReminder = "<system-reminder>Today's date is "

// reminders are the blocks that go with the next prompt: what the SessionStart hooks
// added, the skills a trust brought, what asyncRewake hooks said, and the date when the
// model has not been told today's yet (the first prompt of a session, a session
// resumed or still open another day). They are stored with the prompt, so the
// conversation's prefix never changes.
func (a *App) reminders(now time.Time) []llm.Block {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []llm.Block
	for _, n := range a.startNotes {
		out = append(out, llm.Block{Type: llm.BlockText, Text: n})
	}
	a.startNotes = nil
	if today := now.Format("2006-01-02"); today != a.toldDate {
		a.toldDate = today
		out = append(out, llm.Block{Type: llm.BlockText, Text: dateReminder + today + ".</system-reminder>"})
	}
	return append(out, a.wake.take()...)
}

// noteStart keeps what a SessionStart hook added (or the skills a trust brought), for
// the next prompt.
func (a *App) noteStart(context string) {
	if context = strings.TrimSpace(context); context != "" {
		a.mu.Lock()
		a.startNotes = append(a.startNotes, context)
		a.mu.Unlock()
	}
}

// lastToldDate is the date the conversation last told the model ("" if none).
func lastToldDate(history []llm.Message) string {
	for _, m := range slices.Backward(history) {
		if m.Role != llm.RoleUser {
			continue
		}
		for _, b := range slices.Backward(m.Content) {
			if rest, ok := strings.CutPrefix(b.Text, dateReminder); ok && b.Type == llm.BlockText {
				date, _, _ := strings.Cut(rest, ".")
				return date
			}
		}
	}
	return ""
}

// Added reports whether a block of a user message is one gantry added for the model —
// a reminder (the date, a change of mode), what hooks added — not what the person
// wrote: faces replaying a conversation leave it out.
func Added(b llm.Block) bool {
	if b.Type != llm.BlockText {
		return false
	}
	for _, p := range []string{"<system-reminder>", "<hook-context>", "<session-start-hooks>"} {
		if strings.HasPrefix(strings.TrimSpace(b.Text), p) {
			return true
		}
	}
	return false
}
