package todo

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed todo_write.md
var writeDescription string

//go:embed todo_read.md
var readDescription string

// itemArg is one item of todo_write.
type itemArg struct {
	ID      itemID  `json:"id" jsonschema_description:"A short id unique in the list (e.g. \"1\" or \"parser\"); with merge it names the item to update."`
	Content *string `json:"content,omitempty" jsonschema_description:"What is to be done, in the imperative. Required for a new item; with merge, leave it out to keep the current text."`
	Status  *string `json:"status,omitempty" jsonschema:"enum=pending,enum=in_progress,enum=completed" jsonschema_description:"pending, in_progress or completed; a new item without one is pending; at most one item may be in_progress."`
}

type writeArgs struct {
	Todos []itemArg `json:"todos" jsonschema_description:"The items: the whole list, or with merge only the items to add or update."`
	Merge bool      `json:"merge,omitempty" jsonschema_description:"true: update the items of these ids and add new ids, keeping the others; false (default): replace the whole list."`
}

type readArgs struct{}

// Tools returns todo_write and todo_read over l.
func Tools(l *List) []tool.Tool {
	write := tool.New(tool.Def[writeArgs]{
		Conversation: true,
		Name:         "todo_write",
		Aliases:      []string{"update_plan"},
		Core:         true,
		ClaudeNames:  []string{"TodoWrite"},
		Claude: func(_ tool.Env, a writeArgs) []tool.ClaudeView {
			todos := make([]map[string]any, len(a.Todos))
			for i, it := range a.Todos {
				m := map[string]any{"id": string(it.ID)}
				if it.Content != nil {
					m["content"] = *it.Content
				}
				if it.Status != nil {
					m["status"] = *it.Status
				}
				todos[i] = m
			}
			return []tool.ClaudeView{{Name: "TodoWrite", Input: map[string]any{"todos": todos}}}
		},
		FromClaude: func(_ tool.Env, c *tool.ClaudeArgs) writeArgs {
			var a writeArgs
			for i, t := range c.Objects("todos") {
				it := &tool.ClaudeArgs{Tool: c.Tool, In: t}
				id := strconv.Itoa(i + 1) // Claude's newer TodoWrite has no ids
				if v, ok := t["id"]; ok && v != nil {
					id = fmt.Sprint(v)
				}
				item := itemArg{ID: itemID(id)}
				if content := it.String("content"); content != "" {
					item.Content = &content
				}
				if status := it.String("status"); status != "" {
					item.Status = &status
				}
				a.Todos = append(a.Todos, item)
				if msg := it.Err(); msg != "" {
					c.Fail(msg)
				}
			}
			return a
		},
		Description: writeDescription,
		Level:       tool.LevelRead,
		Kind:        tool.KindThink,
		Icon:        "✅",
		Title:       func(tool.Env, writeArgs, []string) string { return "Update the todo list" },
		Check:       checkWrite,
		Run: func(_ context.Context, _ tool.Env, a writeArgs) tool.Result {
			return runWrite(l, a)
		},
	})
	read := tool.New(tool.Def[readArgs]{
		Conversation: true,
		Name:         "todo_read",
		Family:       "todo list",
		Description:  readDescription,
		Level:        tool.LevelRead,
		Kind:         tool.KindThink,
		Icon:         "✅",
		Title:        func(tool.Env, readArgs, []string) string { return "Read the todo list" },
		Run: func(context.Context, tool.Env, readArgs) tool.Result {
			items := l.Items()
			if len(items) == 0 {
				return tool.Result{Text: "The todo list is empty; create it with todo_write."}
			}
			return tool.Result{Text: render(items) + "\n" + summary(items)}
		},
	})
	return []tool.Tool{write, read}
}

// checkWrite refuses what is wrong whatever the list holds: empty or repeated ids and
// empty content, and missing content when the list is replaced.
func checkWrite(a writeArgs) string {
	seen := make(map[itemID]bool, len(a.Todos))
	for i, it := range a.Todos {
		switch {
		case it.ID == "":
			return fmt.Sprintf("todo_write: todos[%d] has an empty id; give every item a short id unique in the list.", i)
		case seen[it.ID]:
			return fmt.Sprintf("todo_write: the id %q appears more than once in todos; name each item once per call.", it.ID)
		case it.Content != nil && strings.TrimSpace(*it.Content) == "":
			return fmt.Sprintf("todo_write: item %q has empty content; say what is to be done.", it.ID)
		case it.Content == nil && !a.Merge:
			return fmt.Sprintf("todo_write: item %q needs content, since without merge the list is replaced by todos.", it.ID)
		}
		seen[it.ID] = true
	}
	return ""
}

func runWrite(l *List, a writeArgs) tool.Result {
	edits := make([]edit, len(a.Todos))
	for i, it := range a.Todos {
		edits[i] = edit{ID: string(it.ID), Content: it.Content, Status: it.Status}
	}
	items, refusal, err := l.update(func(cur []face.TodoItem) ([]face.TodoItem, string) {
		return apply(cur, edits, a.Merge)
	})
	switch {
	case err != nil:
		return tool.Fail(fmt.Sprintf("todo_write could not store the list (%v); nothing changed.", err))
	case refusal != "":
		return tool.Fail(refusal)
	}
	verb := "Replaced the todo list"
	if a.Merge {
		verb = "Updated the todo list"
	}
	if len(items) == 0 {
		return tool.Result{Text: verb + "; it is now empty."}
	}
	// The faces print the list itself from its TodoList event: the preview says only
	// what changed, or they would show the list twice.
	return tool.Result{Text: render(items) + "\n" + verb + ". " + summary(items), Display: tool.Display{Preview: verb + ". " + summary(items)}}
}
