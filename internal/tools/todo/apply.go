package todo

import (
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/face"
)

// edit is one item of a todo_write call; nil fields were not given.
type edit struct {
	ID      string
	Content *string
	Status  *string
}

// apply returns the list after a write of edits onto cur: the edits replace the list,
// or with merge update the items of their ids (new ids are appended, the other items
// kept). It returns a refusal instead when the write is not acceptable.
func apply(cur []face.TodoItem, edits []edit, merge bool) ([]face.TodoItem, string) {
	var out []face.TodoItem
	if merge {
		out = clone(cur)
	}
	at := make(map[string]int, len(out))
	for i, it := range out {
		at[it.ID] = i
	}
	for _, e := range edits {
		i, ok := at[e.ID]
		if !ok {
			if e.Content == nil {
				return nil, fmt.Sprintf("todo_write: %q is not on the list, so it needs content; nothing changed.", e.ID)
			}
			out = append(out, face.TodoItem{ID: e.ID, Status: Pending})
			i = len(out) - 1
			at[e.ID] = i
		}
		if e.Content != nil {
			out[i].Content = strings.TrimSpace(*e.Content)
		}
		if e.Status != nil {
			out[i].Status = *e.Status
		}
	}
	if busy := inProgress(out); len(busy) > 1 {
		names := make([]string, len(busy))
		for i, it := range busy {
			names[i] = fmt.Sprintf("%q (%s)", it.ID, short(it.Content))
		}
		return nil, fmt.Sprintf("todo_write: at most one item may be in_progress, but this write would leave %d in progress: %s; keep one in_progress and mark the others pending or completed, nothing changed.",
			len(busy), strings.Join(names, ", "))
	}
	return out, ""
}

func inProgress(items []face.TodoItem) []face.TodoItem {
	var out []face.TodoItem
	for _, it := range items {
		if it.Status == InProgress {
			out = append(out, it)
		}
	}
	return out
}

// short cuts s to its first line and at most 60 characters, for naming an item.
func short(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}
