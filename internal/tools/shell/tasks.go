package shell

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Tasks is a session's manager of background commands: it starts them with their
// output in a file of its folder, finds them by id ("bg_1", "bg_2", …) and, on Close,
// stops those still running and removes their files. It is safe for concurrent use.
type Tasks struct {
	dir string

	mu      sync.Mutex
	next    int
	tasks   map[string]*task
	madeDir bool // dir did not exist: Close removes it
	closed  bool
}

// NewTasks returns a manager whose output files go to dir, created on first use; an
// empty dir means a new temporary folder.
func NewTasks(dir string) *Tasks {
	return &Tasks{dir: dir, tasks: map[string]*task{}}
}

// start runs script in cwd in the background, checked by judge when there is one, and
// registers it under a new id.
func (ts *Tasks) start(script, cwd string, g guard) (*task, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		return nil, errors.New("the session's background tasks are closed")
	}
	if err := ts.ensureDir(); err != nil {
		return nil, err
	}
	id := "bg_" + strconv.Itoa(ts.next+1)
	t, err := startTask(id, script, cwd, ts.dir, g)
	if err != nil {
		return nil, err
	}
	ts.next++
	ts.tasks[id] = t
	return t, nil
}

// ensureDir creates the output folder on first use. Called with ts.mu held.
func (ts *Tasks) ensureDir() error {
	if ts.dir == "" {
		d, err := os.MkdirTemp("", "gantry-tasks-")
		if err != nil {
			return err
		}
		ts.dir, ts.madeDir = d, true
		return nil
	}
	if _, err := os.Stat(ts.dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(ts.dir, 0o700); err != nil {
		return err
	}
	ts.madeDir = true
	return nil
}

// get finds a task by id.
func (ts *Tasks) get(id string) (*task, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.tasks[id]
	return t, ok
}

// unknown is the sentence for an id that names no task.
func (ts *Tasks) unknown(id string) string {
	ts.mu.Lock()
	ids := make([]string, 0, len(ts.tasks))
	for k := range ts.tasks {
		ids = append(ids, k)
	}
	ts.mu.Unlock()
	if len(ids) == 0 {
		return fmt.Sprintf("No background task %q: none was started in this session (bash with run_in_background starts one).", id)
	}
	sort.Slice(ids, func(i, j int) bool { return taskNumber(ids[i]) < taskNumber(ids[j]) })
	return fmt.Sprintf("No background task %q. Known tasks: %s.", id, strings.Join(ids, ", "))
}

func taskNumber(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "bg_"))
	return n
}

// Close stops every task still running, with its whole process group, waits for them,
// and removes the output files (and the folder, if Tasks created it). Later starts fail.
// Close may be called more than once.
func (ts *Tasks) Close() error {
	ts.mu.Lock()
	ts.closed = true
	all := make([]*task, 0, len(ts.tasks))
	for _, t := range ts.tasks {
		all = append(all, t)
	}
	ts.tasks = map[string]*task{}
	madeDir := ts.madeDir
	ts.madeDir = false
	ts.mu.Unlock()

	var wg sync.WaitGroup
	for _, t := range all {
		wg.Go(t.stop)
	}
	wg.Wait()
	var errs []error
	for _, t := range all {
		if err := os.Remove(t.path); err != nil && !os.IsNotExist(err) {
			errs = append(errs, err)
		}
	}
	if madeDir {
		if err := os.Remove(ts.dir); err != nil && !os.IsNotExist(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Running returns the commands of the background tasks still running, oldest first.
func (ts *Tasks) Running() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	var out []*task
	for _, t := range ts.tasks {
		select {
		case <-t.done:
		default:
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].started.Before(out[j].started) })
	cmds := make([]string, len(out))
	for i, t := range out {
		cmds[i] = t.command
	}
	return cmds
}
