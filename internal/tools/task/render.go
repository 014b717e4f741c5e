package task

import (
	"fmt"
	"strings"
)

// line is one task in a listing: id, status, title and what it waits on.
func line(ts []Task, t Task) string {
	s := fmt.Sprintf("%s [%s] %s", t.ID, t.Status, t.Title)
	if len(t.BlockedBy) > 0 {
		s += " — blocked by " + blockerStates(ts, t.BlockedBy)
	}
	return s
}

// blockerStates is "t1 (completed), t2 (pending)".
func blockerStates(ts []Task, ids []string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("%s (%s)", id, status(ts, id))
	}
	return strings.Join(parts, ", ")
}

// describe is "t1 (Design the schema, in_progress) and t2 (…, pending)".
func describe(ts []Task, ids []string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		if j := find(ts, id); j >= 0 {
			parts[i] = fmt.Sprintf("%s (%s, %s)", id, short(ts[j].Title), ts[j].Status)
		} else {
			parts[i] = id
		}
	}
	return list(parts)
}

func status(ts []Task, id string) string {
	if i := find(ts, id); i >= 0 {
		return ts[i].Status
	}
	return "unknown"
}

// short cuts s to its first line and at most 60 characters.
func short(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

// detail is everything about one task, for get.
func detail(ts []Task, t Task) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\nStatus: %s", t.ID, t.Title, t.Status)
	if t.Status == Pending {
		if ready(ts, t) {
			b.WriteString(" (ready to start)")
		} else {
			b.WriteString(" (waiting on its blockers)")
		}
	}
	if len(t.BlockedBy) > 0 {
		fmt.Fprintf(&b, "\nBlocked by: %s", describe(ts, t.BlockedBy))
	}
	var blocks []string
	for _, o := range ts {
		for _, id := range o.BlockedBy {
			if id == t.ID {
				blocks = append(blocks, o.ID)
			}
		}
	}
	if len(blocks) > 0 {
		fmt.Fprintf(&b, "\nBlocks: %s", describe(ts, blocks))
	}
	const stamp = "2006-01-02 15:04:05"
	fmt.Fprintf(&b, "\nCreated %s, updated %s", t.Created.Local().Format(stamp), t.Updated.Local().Format(stamp))
	if t.Description != "" {
		fmt.Fprintf(&b, "\nDescription:\n%s", t.Description)
	}
	return b.String()
}

// listing is the board, or its ready tasks, one line per task with a summary.
func listing(ts []Task, onlyReady bool) string {
	if len(ts) == 0 {
		return "There are no tasks yet; create one with action create."
	}
	var lines []string
	var done, busy, open, nready int
	for _, t := range ts {
		switch t.Status {
		case Completed:
			done++
		case InProgress:
			busy++
		default:
			open++
		}
		if ready(ts, t) {
			nready++
		}
		if !onlyReady || ready(ts, t) {
			lines = append(lines, line(ts, t))
		}
	}
	counts := fmt.Sprintf("%d %s: %d completed, %d in progress, %d pending, %d ready to start.",
		len(ts), plural(len(ts), "task", "tasks"), done, busy, open, nready)
	if !onlyReady {
		return strings.Join(lines, "\n") + "\n" + counts
	}
	if len(lines) == 0 {
		why := "no task is pending"
		if open > 0 {
			why = "every pending task waits on a blocker that is not completed"
		}
		return fmt.Sprintf("No task is ready to start: %s. %s", why, counts)
	}
	return "Ready to start (pending, every blocker completed):\n" + strings.Join(lines, "\n") + "\n" + counts
}

// Text is the board as the model reads it, one line per task ("" when empty): what a
// compaction keeps verbatim.
func (b *Board) Text() string {
	ts := b.Tasks()
	lines := make([]string, len(ts))
	for i, t := range ts {
		lines[i] = line(ts, t)
	}
	return strings.Join(lines, "\n")
}
