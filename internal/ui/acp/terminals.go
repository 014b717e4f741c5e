package acp

import (
	"context"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/tool"
)

// clientTerminals runs bash commands in the editor's terminals (terminal/*), shown
// live in the tool call.
type clientTerminals struct{ s *session }

// releaseWait bounds the clean-up requests after a command ended or was stopped.
const releaseWait = 5 * time.Second

// Run implements tool.Terminals.
func (t *clientTerminals) Run(ctx context.Context, req tool.TerminalRequest) (tool.TerminalResult, error) {
	conn, sid := t.s.ag.conn, sdk.SessionId(t.s.id)
	create := sdk.CreateTerminalRequest{SessionId: sid, Command: "bash", Args: []string{"-c", req.Command}}
	if req.Cwd != "" {
		create.Cwd = sdk.Ptr(req.Cwd)
	}
	if req.OutputLimit > 0 {
		create.OutputByteLimit = sdk.Ptr(req.OutputLimit)
	}
	for _, kv := range req.Env {
		if name, value, ok := strings.Cut(kv, "="); ok {
			create.Env = append(create.Env, sdk.EnvVariable{Name: name, Value: value})
		}
	}
	created, err := conn.CreateTerminal(ctx, create)
	if err != nil {
		if ctx.Err() != nil {
			return tool.TerminalResult{Cancelled: true}, nil
		}
		return tool.TerminalResult{}, clientError(err)
	}
	term := created.TerminalId
	cleanup, stop := context.WithTimeout(context.Background(), releaseWait)
	defer stop()
	defer func() {
		_, _ = conn.ReleaseTerminal(cleanup, sdk.ReleaseTerminalRequest{SessionId: sid, TerminalId: term})
	}()

	if req.CallID != "" {
		id := t.s.knownID(req.CallID)
		t.s.sendMu.Lock()
		if t.s.terms == nil {
			t.s.terms = map[string]bool{}
		}
		t.s.terms[string(id)] = true
		t.s.sendMu.Unlock()
		t.s.send(sdk.UpdateToolCall(id, sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolTerminalRef(term)})))
	}

	var res tool.TerminalResult
	wait, cancel := context.WithTimeout(ctx, req.Timeout)
	exit, err := conn.WaitForTerminalExit(wait, sdk.WaitForTerminalExitRequest{SessionId: sid, TerminalId: term})
	cancel()
	if err != nil {
		res.Cancelled = ctx.Err() != nil
		res.TimedOut = !res.Cancelled && wait.Err() != nil
		_, _ = conn.KillTerminal(cleanup, sdk.KillTerminalRequest{SessionId: sid, TerminalId: term})
		if !res.Cancelled && !res.TimedOut {
			return res, clientError(err)
		}
	} else {
		res.ExitCode = exit.ExitCode
		if exit.Signal != nil {
			res.Signal = *exit.Signal
		}
	}
	out, err := conn.TerminalOutput(cleanup, sdk.TerminalOutputRequest{SessionId: sid, TerminalId: term})
	if err == nil {
		res.Output, res.Truncated = out.Output, out.Truncated
	}
	return res, nil
}
