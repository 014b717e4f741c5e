package todo

import (
	"fmt"
	"sync"

	"github.com/gantry-dev/gantry/internal/face"
)

// The statuses of an item.
const (
	Pending    = "pending"
	InProgress = "in_progress"
	Completed  = "completed"
)

// List is the session's todo list, safe for concurrent use.
type List struct {
	rec  Recorder
	sink face.Sink

	// change serialises changes with their publication, so that the store and the
	// faces see the lists in the order they were made; mu guards items alone, so a
	// sink may read the list while it is told of a change.
	change sync.Mutex
	mu     sync.Mutex
	items  []face.TodoItem
}

// NewList returns an empty list. Every change is recorded through rec as a
// "todo_list" event with the whole list and sent to sink as a face.TodoList; either
// may be nil.
func NewList(rec Recorder, sink face.Sink) *List {
	return &List{rec: rec, sink: sink}
}

// Restore replaces the list with items, as on resume; it records and emits nothing.
func (l *List) Restore(items []face.TodoItem) {
	l.change.Lock()
	defer l.change.Unlock()
	l.mu.Lock()
	l.items = clone(items)
	l.mu.Unlock()
}

// Items returns a copy of the list.
func (l *List) Items() []face.TodoItem {
	l.mu.Lock()
	defer l.mu.Unlock()
	return clone(l.items)
}

// update computes the next list from the current one with next, which returns the new
// list or a refusal. A refused or unrecorded change leaves the list as it was.
func (l *List) update(next func(cur []face.TodoItem) ([]face.TodoItem, string)) ([]face.TodoItem, string, error) {
	l.change.Lock()
	defer l.change.Unlock()
	items, refusal := next(l.Items())
	if refusal != "" {
		return nil, refusal, nil
	}
	if l.rec != nil {
		if err := l.rec.AppendEvent(EventKind, event{Items: clone(items)}); err != nil {
			return nil, "", fmt.Errorf("storing the todo list with the session: %w", err)
		}
	}
	l.mu.Lock()
	l.items = clone(items)
	l.mu.Unlock()
	if l.sink != nil {
		l.sink(face.TodoList{Items: clone(items)})
	}
	return clone(items), "", nil
}

// clone copies items; it never returns nil, so an empty list is stored as [].
func clone(items []face.TodoItem) []face.TodoItem {
	return append(make([]face.TodoItem, 0, len(items)), items...)
}
