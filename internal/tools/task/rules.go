package task

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// edit is what an update changes; nil fields (and a nil BlockedBy) stay as they are.
type edit struct {
	Title       *string
	Description *string
	Status      *string
	BlockedBy   []string
}

// rank orders the statuses; an unknown status has none.
func rank(status string) (int, bool) {
	switch status {
	case Pending:
		return 0, true
	case InProgress:
		return 1, true
	case Completed:
		return 2, true
	}
	return 0, false
}

func find(ts []Task, id string) int {
	return slices.IndexFunc(ts, func(t Task) bool { return t.ID == id })
}

// nextID is one past the highest t<n> on the board.
func nextID(ts []Task) string {
	n := 0
	for _, t := range ts {
		n = max(n, number(t.ID))
	}
	return fmt.Sprintf("t%d", n+1)
}

// create returns the board with a new pending task.
func create(ts []Task, title, description string, blockedBy []string, now time.Time) ([]Task, Task, string) {
	id := nextID(ts)
	if msg := checkBlockers(ts, id, blockedBy); msg != "" {
		return nil, Task{}, msg
	}
	t := Task{ID: id, Title: title, Description: description, Status: Pending,
		BlockedBy: blockedBy, Created: now, Updated: now}
	return append(ts, t), t, ""
}

// update returns the board with the task id changed by e, and the task before and
// after the change.
func update(ts []Task, id string, e edit, now time.Time) (out []Task, before, after Task, refusal string) {
	i := find(ts, id)
	if i < 0 {
		return nil, Task{}, Task{}, unknown(ts, id)
	}
	before = ts[i]
	after = before
	after.BlockedBy = slices.Clone(before.BlockedBy)
	if e.Title != nil {
		after.Title = *e.Title
	}
	if e.Description != nil {
		after.Description = *e.Description
	}
	if e.BlockedBy != nil {
		if msg := checkBlockers(ts, id, e.BlockedBy); msg != "" {
			return nil, before, before, msg
		}
		after.BlockedBy = e.BlockedBy
	}
	if e.Status != nil {
		from, _ := rank(before.Status)
		to, ok := rank(*e.Status)
		switch {
		case !ok:
			return nil, before, before, fmt.Sprintf("task: %q is not a status; use pending, in_progress or completed.", *e.Status)
		case to < from:
			return nil, before, before, fmt.Sprintf("task: %s is %s and cannot go back to %s, since a status only moves forward (pending → in_progress → completed).", id, before.Status, *e.Status)
		}
		after.Status = *e.Status
	}
	if after.Status != Pending {
		if open := openBlockers(ts, after.BlockedBy); len(open) > 0 {
			if after.Status != before.Status {
				verb := "started"
				if after.Status == Completed {
					verb = "completed"
				}
				return nil, before, before, fmt.Sprintf("task: %s cannot be %s while its blockers are not completed: %s.", id, verb, describe(ts, open))
			}
			return nil, before, before, fmt.Sprintf("task: %s is already %s, so it cannot be blocked by tasks that are not completed: %s.", id, after.Status, describe(ts, open))
		}
	}
	if !changed(before, after) {
		return ts, before, after, ""
	}
	after.Updated = now
	ts[i] = after
	return ts, before, after, ""
}

func changed(a, b Task) bool {
	return a.Title != b.Title || a.Description != b.Description || a.Status != b.Status || !slices.Equal(a.BlockedBy, b.BlockedBy)
}

// checkBlockers refuses blockers of task self that do not exist, name self, or wait
// on self, which would make a cycle.
func checkBlockers(ts []Task, self string, ids []string) string {
	var missing []string
	for _, b := range ids {
		if find(ts, b) < 0 {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("task: blocked_by names %s, which %s not exist; %s.", list(missing), plural(len(missing), "does", "do"), known(ts))
	}
	if slices.Contains(ids, self) {
		return fmt.Sprintf("task: %s cannot be blocked by itself; remove it from blocked_by.", self)
	}
	for _, b := range ids {
		if path := waitPath(ts, b, self); path != nil {
			return fmt.Sprintf("task: %s cannot be blocked by %s, which already waits on it (%s), since the cycle would block both for ever.",
				self, b, strings.Join(append(path, self), " → "))
		}
	}
	return ""
}

// waitPath is the chain of blockers from task from to task target (target excluded),
// or nil when from does not wait on target.
func waitPath(ts []Task, from, target string) []string {
	seen := map[string]bool{}
	var walk func(id string) []string
	walk = func(id string) []string {
		if seen[id] {
			return nil
		}
		seen[id] = true
		i := find(ts, id)
		if i < 0 {
			return nil
		}
		for _, b := range ts[i].BlockedBy {
			if b == target {
				return []string{id}
			}
			if p := walk(b); p != nil {
				return append([]string{id}, p...)
			}
		}
		return nil
	}
	return walk(from)
}

// openBlockers are the ids among blockers whose task is not completed.
func openBlockers(ts []Task, blockers []string) []string {
	var open []string
	for _, b := range blockers {
		if i := find(ts, b); i < 0 || ts[i].Status != Completed {
			open = append(open, b)
		}
	}
	return open
}

// ready reports whether t is pending and every blocker of it completed.
func ready(ts []Task, t Task) bool {
	return t.Status == Pending && len(openBlockers(ts, t.BlockedBy)) == 0
}

// unknown says that id names no task and which ids do.
func unknown(ts []Task, id string) string {
	return fmt.Sprintf("task: there is no task %s; %s.", id, known(ts))
}

func known(ts []Task) string {
	if len(ts) == 0 {
		return "there are no tasks yet, create one with action create"
	}
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.ID
	}
	const most = 30
	if len(ids) > most {
		return fmt.Sprintf("the tasks are %s … %s (list them with action list)", strings.Join(ids[:most/2], ", "), strings.Join(ids[len(ids)-most/2:], ", "))
	}
	return "the tasks are " + list(ids)
}

// list joins ids as "a", "a and b", "a, b and c".
func list(ids []string) string {
	if len(ids) <= 1 {
		return strings.Join(ids, "")
	}
	return strings.Join(ids[:len(ids)-1], ", ") + " and " + ids[len(ids)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
