package todo

import (
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/face"
)

// mark is the check box of a status.
func mark(status string) string {
	switch status {
	case Completed:
		return "[x]"
	case InProgress:
		return "[>]"
	default:
		return "[ ]"
	}
}

// render is the list as the model reads it: one line per item with its mark, id,
// content and status.
func render(items []face.TodoItem) string {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "%s %s: %s (%s)\n", mark(it.Status), it.ID, it.Content, it.Status)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// summary counts the items by status in one sentence and says what to do next.
func summary(items []face.TodoItem) string {
	if len(items) == 0 {
		return "The todo list is empty."
	}
	var done, busy, open int
	for _, it := range items {
		switch it.Status {
		case Completed:
			done++
		case InProgress:
			busy++
		default:
			open++
		}
	}
	s := fmt.Sprintf("%d %s: %d completed, %d in progress, %d pending.", len(items), plural(len(items), "item"), done, busy, open)
	switch {
	case done == len(items):
		s += " Every item is completed."
	case busy == 0:
		s += " Mark the next item in_progress when you start it."
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// Text is the list as the model reads it, one line per item ("" when empty): what a
// compaction keeps verbatim.
func (l *List) Text() string { return render(l.Items()) }
