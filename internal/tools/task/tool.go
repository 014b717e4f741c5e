package task

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed task.md
var description string

type args struct {
	Action      string   `json:"action" jsonschema_description:"create (needs title), get (needs task_id), list (all tasks, or with ready only those that can start), update (needs task_id and what to change)."`
	Title       *string  `json:"title,omitempty" jsonschema_description:"create, update: a short title in the imperative."`
	Description *string  `json:"description,omitempty" jsonschema_description:"create, update: what the task involves and when it is done."`
	BlockedBy   []taskID `json:"blocked_by,omitempty" jsonschema_description:"create, update: ids of the tasks that must be completed before this one starts; on update it replaces the list ([] clears it)."`
	TaskID      taskID   `json:"task_id,omitempty" jsonschema_description:"get, update: the task's id, e.g. \"t1\"."`
	Status      *string  `json:"status,omitempty" jsonschema:"enum=pending,enum=in_progress,enum=completed" jsonschema_description:"update: the new status; it only moves forward, pending → in_progress → completed."`
	Ready       bool     `json:"ready,omitempty" jsonschema_description:"list: only pending tasks whose blockers are all completed."`
}

// Tool returns task over b.
func Tool(b *Board) tool.Tool {
	return tool.New(tool.Def[args]{
		Name:         "task",
		Label:        "Board of tasks",
		Conversation: true,
		Description:  description,
		Level:        tool.LevelRead,
		Kind:         tool.KindThink,
		Icon:         "✅",
		Principal:    principal,
		Check:        check,
		Formers:      []tool.Former{{Name: "taskId", New: "task_id"}},
		Ops:          ops(b),
	})
}

// ops is the task tool's table of actions. All of them are read: the board is the
// conversation's own, not the project.
func ops(b *Board) *tool.Ops[args] {
	read := tool.LevelRead
	return &tool.Ops[args]{Arg: "action", List: []tool.Op[args]{
		{Name: "create", Level: read,
			Check: func(a args) string {
				if a.Title == nil {
					return needs("create", `"title"`)
				}
				if a.Status != nil {
					return "task: create takes no status, since a new task is pending; change it afterwards with update."
				}
				return ""
			},
			Run: func(_ context.Context, _ tool.Env, a args) tool.Result { return runCreate(b, a) }},
		{Name: "get", Level: read,
			Check: func(a args) string {
				if a.TaskID == "" {
					return needs("get", `"task_id"`)
				}
				return ""
			},
			Run: func(_ context.Context, _ tool.Env, a args) tool.Result {
				ts := b.Tasks()
				i := find(ts, string(a.TaskID))
				if i < 0 {
					return tool.Fail(unknown(ts, string(a.TaskID)))
				}
				return tool.Result{Text: detail(ts, ts[i])}
			}},
		{Name: "list", Level: read,
			Run: func(_ context.Context, _ tool.Env, a args) tool.Result {
				return tool.Result{Text: listing(b.Tasks(), a.Ready)}
			}},
		{Name: "update", Level: read,
			Check: func(a args) string {
				var missing []string
				if a.TaskID == "" {
					missing = append(missing, `"task_id"`)
				}
				if a.Title == nil && a.Description == nil && a.Status == nil && a.BlockedBy == nil {
					missing = append(missing, `one of "title", "description", "status" or "blocked_by"`)
				}
				return needs("update", missing...)
			},
			Run: func(_ context.Context, _ tool.Env, a args) tool.Result { return runUpdate(b, a) }},
	}}
}

func principal(a args) string {
	if a.TaskID != "" {
		return a.Action + " " + string(a.TaskID)
	}
	return a.Action
}

// needs is the sentence refusing a call of action that lacks what it needs ("" when
// nothing is missing).
func needs(action string, missing ...string) string {
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("task: action %s needs %s.", action, strings.Join(missing, " and "))
}

// check refuses, in one sentence, arguments no action takes (after the action's own
// check).
func check(a args) string {
	if a.Title != nil && strings.TrimSpace(*a.Title) == "" {
		return "task: the title is empty; give the task a short title."
	}
	for i, id := range a.BlockedBy {
		if id == "" {
			return fmt.Sprintf("task: blocked_by[%d] is empty; name each blocker by its id, such as \"t1\".", i)
		}
	}
	return ""
}

func runCreate(b *Board, a args) tool.Result {
	var made Task
	ts, refusal, err := b.change(func(cur []Task, now time.Time) ([]Task, string) {
		next, t, msg := create(cur, strings.TrimSpace(*a.Title), text(a.Description), ids(a.BlockedBy), now)
		made = t
		return next, msg
	})
	if r, failed := failure(refusal, err); failed {
		return r
	}
	s := fmt.Sprintf("Created %s: %s. It is pending", made.ID, made.Title)
	if len(made.BlockedBy) > 0 {
		s += " and blocked by " + blockerStates(ts, made.BlockedBy)
	}
	if ready(ts, made) {
		s += "; it can start now"
	}
	return tool.Result{Text: s + "."}
}

func runUpdate(b *Board, a args) tool.Result {
	e := edit{Title: a.Title, Description: a.Description, Status: a.Status}
	if e.Title != nil {
		t := strings.TrimSpace(*e.Title)
		e.Title = &t
	}
	if a.BlockedBy != nil {
		e.BlockedBy = ids(a.BlockedBy)
	}
	var before, after Task
	var wasReady []bool
	ts, refusal, err := b.change(func(cur []Task, now time.Time) ([]Task, string) {
		for _, t := range cur {
			wasReady = append(wasReady, ready(cur, t))
		}
		next, x, y, msg := update(cur, string(a.TaskID), e, now)
		before, after = x, y
		return next, msg
	})
	if r, failed := failure(refusal, err); failed {
		return r
	}
	changes := describeChanges(before, after)
	if len(changes) == 0 {
		return tool.Result{Text: fmt.Sprintf("%s is unchanged: %s.", after.ID, line(ts, after))}
	}
	s := fmt.Sprintf("Updated %s: %s.", after.ID, strings.Join(changes, "; "))
	var nowReady []string
	for i, t := range ts {
		if i < len(wasReady) && !wasReady[i] && ready(ts, t) {
			nowReady = append(nowReady, fmt.Sprintf("%s (%s)", t.ID, short(t.Title)))
		}
	}
	if len(nowReady) > 0 {
		s += " Ready to start now: " + list(nowReady) + "."
	}
	return tool.Result{Text: s}
}

func describeChanges(before, after Task) []string {
	var out []string
	if before.Status != after.Status {
		out = append(out, fmt.Sprintf("status %s → %s", before.Status, after.Status))
	}
	if before.Title != after.Title {
		out = append(out, fmt.Sprintf("title %q", after.Title))
	}
	if before.Description != after.Description {
		out = append(out, "description changed")
	}
	if !slices.Equal(before.BlockedBy, after.BlockedBy) {
		if len(after.BlockedBy) == 0 {
			out = append(out, "no longer blocked")
		} else {
			out = append(out, "blocked by "+list(after.BlockedBy))
		}
	}
	return out
}

// failure turns a refusal or a store fault into the result of the call.
func failure(refusal string, err error) (tool.Result, bool) {
	switch {
	case err != nil:
		return tool.Fail(fmt.Sprintf("task could not store the tasks (%v); nothing changed.", err)), true
	case refusal != "":
		return tool.Fail(refusal), true
	}
	return tool.Result{}, false
}

func text(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

// ids turns the blockers into strings without repeats; nil stays nil.
func ids(in []taskID) []string {
	if in == nil {
		return nil
	}
	out := make([]string, 0, len(in))
	for _, id := range in {
		if !slices.Contains(out, string(id)) {
			out = append(out, string(id))
		}
	}
	return out
}
