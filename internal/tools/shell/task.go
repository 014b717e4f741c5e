package shell

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
)

// task is one background command. Its stdout and stderr share one file (one offset, so
// the order of writes is kept); reads go on from where the previous one stopped.
type task struct {
	id, command string
	path        string
	proc        *contain.Process // nil for a task that runs a function
	started     time.Time

	done chan struct{} // closed once the main process exited and its group is gone
	err  error         // cmd.Wait's error, set before done is closed
	end  time.Time     // set before done is closed

	// cancel stops a task that runs a function (StartFunc) instead of a command.
	cancel func()

	mu      sync.Mutex
	offset  int64 // bytes of path already returned to the model
	stopped bool  // task_kill or Close stopped it
}

// startTask starts script in cwd with its output in a new file of dir, every program
// it runs checked by judge when there is one.
func startTask(id, script, cwd, dir string, g guard) (*task, error) {
	f, err := os.CreateTemp(dir, id+"-*.log")
	if err != nil {
		return nil, err
	}
	p := newProcess(script, cwd, g)
	p.Cmd.Stdout, p.Cmd.Stderr = f, f
	err = p.Start()
	f.Close() // the children hold it now
	if err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	t := &task{id: id, command: script, path: f.Name(), proc: p, started: time.Now(), done: make(chan struct{})}
	go func() {
		// No timeout: the task runs until it ends, task_kill or the session's end;
		// what it left behind goes with it.
		end := p.Wait(context.Background(), 0, termGrace, nil)
		t.err, t.end = end.Err, time.Now()
		close(t.done)
	}()
	return t, nil
}

// finished tells whether the task has ended.
func (t *task) finished() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// stop kills the task's process group, if it still runs, and waits for it to end.
func (t *task) stop() {
	if !t.finished() {
		t.mu.Lock()
		t.stopped = true
		t.mu.Unlock()
		if t.cancel != nil {
			t.cancel()
		} else {
			t.proc.Stop(termGrace)
		}
	}
	<-t.done
}

// unread returns the output written since the previous call, keeping at most headMax
// bytes of its beginning and tailMax of its end, and marks it read.
func (t *task) unread(headMax, tailMax int) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, end, err := readRange(t.path, t.offset, headMax, tailMax)
	if err != nil {
		return "", err
	}
	t.offset = end
	return s, nil
}
