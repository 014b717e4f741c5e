package task

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/tools/todo"
)

// The statuses of a task, in the only order they may follow.
const (
	Pending    = "pending"
	InProgress = "in_progress"
	Completed  = "completed"
)

// Task is one task of the board.
type Task struct {
	ID          string    `json:"id"`
	Title       string    `json:"title"`
	Description string    `json:"description,omitempty"`
	Status      string    `json:"status"`
	BlockedBy   []string  `json:"blocked_by,omitempty"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
}

// Board is the session's tasks, safe for concurrent use.
type Board struct {
	rec todo.Recorder
	now func() time.Time

	// mu guards tasks and serialises changes with their recording, so that the store
	// holds the boards in the order they were made.
	mu    sync.Mutex
	tasks []Task
}

// NewBoard returns an empty board whose every change is recorded through rec (which
// may be nil) as a "task_board" event with the whole board.
func NewBoard(rec todo.Recorder) *Board {
	return &Board{rec: rec, now: time.Now}
}

// Restore replaces the board with ts, as on resume; it records nothing.
func (b *Board) Restore(ts []Task) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tasks = clone(ts)
}

// Tasks returns a copy of the board, in the order the tasks were created.
func (b *Board) Tasks() []Task {
	b.mu.Lock()
	defer b.mu.Unlock()
	return clone(b.tasks)
}

// change computes the next board with next, which returns it or a refusal. A refused
// or unrecorded change leaves the board as it was.
func (b *Board) change(next func(cur []Task, now time.Time) ([]Task, string)) ([]Task, string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ts, refusal := next(clone(b.tasks), b.now())
	if refusal != "" {
		return nil, refusal, nil
	}
	if reflect.DeepEqual(ts, b.tasks) || len(ts) == 0 && len(b.tasks) == 0 {
		return clone(ts), "", nil // nothing changed, nothing to record
	}
	if b.rec != nil {
		if err := b.rec.AppendEvent(EventKind, event{Tasks: clone(ts)}); err != nil {
			return nil, "", fmt.Errorf("storing the tasks with the session: %w", err)
		}
	}
	b.tasks = clone(ts)
	return clone(ts), "", nil
}

// clone copies ts deeply; it never returns nil, so an empty board is stored as [].
func clone(ts []Task) []Task {
	out := make([]Task, len(ts))
	for i, t := range ts {
		t.BlockedBy = slices.Clone(t.BlockedBy)
		out[i] = t
	}
	return out
}
