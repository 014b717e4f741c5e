package shell

import (
	"fmt"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

// startBackground starts a bash call with run_in_background and says how to follow it.
func startBackground(ts *Tasks, script, dir string, g guard) tool.Result {
	if ts == nil {
		return tool.Fail("Background commands are not available in this session; run the command without run_in_background.")
	}
	t, err := ts.start(script, dir, g)
	if err != nil {
		return tool.Fail(fmt.Sprintf("bash could not start the background command: %v.", err))
	}
	return tool.Result{Text: fmt.Sprintf(
		"Started %[1]s in the background (task_id %[1]q).\n"+
			"Read its output with task_output {\"task_id\": %[1]q} (add \"block\": false not to wait for it to finish); stop it with task_kill {\"task_id\": %[1]q}.",
		t.id)}
}

// status returns the lines that end a report on t: still running (with what the
// caller waited, if anything), or how it ended. fin is t.finished() as seen before the
// output was read, so that a finished task's output is complete.
func (t *task) status(fin bool, waitNote string) []string {
	if !fin {
		if waitNote != "" {
			waitNote = " " + waitNote
		}
		return []string{fmt.Sprintf("[%s is still running%s; call task_output again for more output, or task_kill to stop it]", t.id, waitNote)}
	}
	t.mu.Lock()
	stopped := t.stopped
	t.mu.Unlock()
	took := t.end.Sub(t.started).Round(100 * time.Millisecond)
	lines := []string{fmt.Sprintf("[%s finished after %s]", t.id, took)}
	if stopped {
		lines[0] = fmt.Sprintf("[%s was stopped after %s]", t.id, took)
	}
	if t.err != nil {
		lines = append(lines, exitLine(t.err))
	}
	if t.proc != nil {
		lines = append(lines, blockedLines(t.proc)...)
	}
	return lines
}
