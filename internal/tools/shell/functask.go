package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// StartFunc runs fn in the background as a task of its own, for work that is not a
// command (a subagent): task_output reads what fn returned once it is done, task_kill
// and Close cancel its context. label names it in task_kill's report. It returns the
// task id.
func (ts *Tasks) StartFunc(label string, fn func(ctx context.Context) (string, error)) (string, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		return "", errors.New("the session's background tasks are closed")
	}
	if err := ts.ensureDir(); err != nil {
		return "", err
	}
	id := "bg_" + strconv.Itoa(ts.next+1)
	f, err := os.CreateTemp(ts.dir, id+"-*.log")
	if err != nil {
		return "", err
	}
	f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	t := &task{id: id, command: label, path: f.Name(), started: time.Now(), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer cancel()
		out, err := fn(ctx)
		if err != nil {
			out += fmt.Sprintf("\n[error: %v]", err)
		}
		_ = os.WriteFile(t.path, []byte(out), 0o600)
		t.err, t.end = err, time.Now()
		close(t.done)
	}()
	ts.next++
	ts.tasks[id] = t
	return id, nil
}
