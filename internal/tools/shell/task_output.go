package shell

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed task_output.md
var taskOutputDescription string

const defaultTaskWait = 30 * time.Second

type taskOutputArgs struct {
	TaskID  string `json:"task_id" jsonschema:"description=The task id that bash or agent returned for a run_in_background call (e.g. bg_1)."`
	Block   *bool  `json:"block,omitempty" jsonschema:"description=Wait for the task to finish before returning (default true).,default=true"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"description=Milliseconds to wait at most when blocking (default 30000).,minimum=1,maximum=600000"`
}

func taskOutputTool(ts *Tasks) tool.Tool {
	return tool.New(tool.Def[taskOutputArgs]{
		Name:        "task_output",
		Label:       "Read a background command's output",
		Description: strings.TrimSpace(taskOutputDescription),
		Level:       tool.LevelRead,
		Kind:        tool.KindRead,
		Icon:        "📄",
		Principal:   func(a taskOutputArgs) string { return a.TaskID },
		Title:       func(_ tool.Env, a taskOutputArgs, _ []string) string { return "Output of " + a.TaskID },
		Run: func(ctx context.Context, _ tool.Env, a taskOutputArgs) tool.Result {
			return taskOutput(ctx, ts, a)
		},
	})
}

func taskOutput(ctx context.Context, ts *Tasks, a taskOutputArgs) tool.Result {
	t, ok := ts.get(a.TaskID)
	if !ok {
		return tool.Fail(ts.unknown(a.TaskID))
	}
	var note string
	if (a.Block == nil || *a.Block) && !t.finished() {
		wait := defaultTaskWait
		if a.Timeout > 0 {
			wait = time.Duration(a.Timeout) * time.Millisecond
		}
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case <-t.done:
		case <-timer.C:
			note = "after waiting " + wait.String()
		case <-ctx.Done():
			note = "(the wait for it was cancelled)"
		}
	}
	fin := t.finished()
	out, err := t.unread(captureHead, captureTail)
	if err != nil {
		return tool.Fail(fmt.Sprintf("task_output could not read the output of %s: %v.", t.id, err))
	}
	return tool.Result{
		Text:    withStatus(out, "(no new output)", t.status(fin, note)...),
		IsError: fin && t.err != nil,
		Preview: tool.ShellPreview,
	}
}
