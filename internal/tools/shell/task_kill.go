package shell

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed task_kill.md
var taskKillDescription string

// killTail is how much of a stopped task's unread output task_kill returns (its end).
const killTail = 4096

type taskKillArgs struct {
	TaskID string `json:"task_id" jsonschema_description:"The task id that bash or agent returned for a run_in_background call (e.g. bg_1)."`
}

func taskKillTool(ts *Tasks) tool.Tool {
	return tool.New(tool.Def[taskKillArgs]{
		Name:        "task_kill",
		ClaudeNames: []string{"KillShell", "KillBash"},
		Family:      "background shell tasks",
		Label:       "Stop a background command",
		Description: strings.TrimSpace(taskKillDescription),
		Level:       tool.LevelExec,
		Kind:        tool.KindExecute,
		Icon:        "🛠️",
		Principal:   func(a taskKillArgs) string { return a.TaskID },
		Title:       func(_ tool.Env, a taskKillArgs, _ []string) string { return "Stop " + a.TaskID },
		Run: func(_ context.Context, _ tool.Env, a taskKillArgs) tool.Result {
			return taskKill(ts, a.TaskID)
		},
	})
}

func taskKill(ts *Tasks, id string) tool.Result {
	t, ok := ts.get(id)
	if !ok {
		return tool.Fail(ts.unknown(id))
	}
	head := fmt.Sprintf("%s had already finished; nothing to stop.", t.id)
	if !t.finished() {
		t.stop()
		head = fmt.Sprintf("Stopped %s (%s) and every process it started.", t.id, short(t.command, 80))
	}
	<-t.done
	out, err := t.unread(0, killTail)
	if err != nil {
		out = fmt.Sprintf("(its output could not be read: %v)", err)
	}
	return tool.Result{Text: head + "\n" + withStatus(out, "(no unread output)", t.status(true, "")...), Preview: tool.ShellPreview}
}

// short cuts s to at most n characters, on one line.
func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
