package shell

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed task_output.md
var taskOutputDescription string

// defaultTaskWait is how long task_output blocks when no timeout is given, and
// maxTaskWait the most seconds a timeout may ask.
const (
	defaultTaskWait = 30 * time.Second
	maxTaskWait     = 600
)

type taskOutputArgs struct {
	TaskID  string  `json:"task_id" jsonschema_description:"The task id that bash or agent returned for a run_in_background call (e.g. bg_1)."`
	Block   *bool   `json:"block,omitempty" jsonschema:"default=true" jsonschema_description:"Wait for the task to finish before returning (default true)."`
	Timeout float64 `json:"timeout,omitempty" jsonschema:"minimum=0,maximum=600" jsonschema_description:"Seconds to wait at most when blocking (default 30)."`
}

func taskOutputTool(ts *Tasks) tool.Tool {
	return tool.New(tool.Def[taskOutputArgs]{
		Name:        "task_output",
		ClaudeNames: []string{"BashOutput", "TaskOutput"},
		Family:      "background shell tasks",
		Label:       "Read a background command's output",
		Description: strings.TrimSpace(taskOutputDescription),
		Level:       tool.LevelRead,
		Kind:        tool.KindRead,
		Icon:        "📄",
		Principal:   func(a taskOutputArgs) string { return a.TaskID },
		Title:       func(_ tool.Env, a taskOutputArgs, _ []string) string { return "Output of " + a.TaskID },
		// The timeout was in milliseconds, as Claude Code's TaskOutput has it: a value
		// above the most seconds allowed is read as milliseconds, for a release.
		Formers: []tool.Former{{Name: "timeout", New: "timeout", Scale: 0.001, Over: maxTaskWait, Unit: "seconds", OldUnit: "milliseconds"}},
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
			wait = time.Duration(math.Round(a.Timeout*1000)) * time.Millisecond
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
