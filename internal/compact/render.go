package compact

import "strings"

// Acknowledgement is the assistant's answer to the injected summary in the compacted
// history, so that the history alternates and the next prompt follows naturally.
const Acknowledgement = "Understood. I have the summary of our work so far, the todo list, the tasks and the memory files, and I will continue from there."

// Render builds the text of the user message that replaces a compacted conversation:
// the summary, then the todo list and the task board verbatim, then the memory files.
// Empty parts are left out.
func Render(summary, todo, tasks, memory string) string {
	var b strings.Builder
	b.WriteString("This conversation was compacted to free the context window: the summary below replaces the messages before it, which are no longer visible. Continue the work from it.")
	section(&b, "summary", "", summary)
	section(&b, "todo", "The todo list, as it stands (verbatim):", todo)
	section(&b, "tasks", "The task board, as it stands (verbatim):", tasks)
	section(&b, "memory", "Instructions from the user's and the project's AGENTS.md / CLAUDE.md files; follow them.", memory)
	return b.String()
}

// section appends "<tag>intro\n\ntext\n</tag>" after a blank line, unless text is
// blank. The text itself is kept as it is, but for a trailing newline.
func section(b *strings.Builder, tag, intro, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	b.WriteString("\n\n<" + tag + ">\n")
	if intro != "" {
		b.WriteString(intro + "\n\n")
	}
	b.WriteString(strings.TrimRight(text, "\n"))
	b.WriteString("\n</" + tag + ">")
}
