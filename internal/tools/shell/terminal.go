package shell

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

// runInTerminal runs a foreground command in the face's terminal (an editor's,
// shown live) and reports it as a command run here would be.
func runInTerminal(ctx context.Context, terms tool.Terminals, command, dir string, timeout time.Duration, env []string) (outcome, error) {
	res, err := terms.Run(ctx, tool.TerminalRequest{
		CallID: tool.CallID(ctx), Command: command, Cwd: dir, Timeout: timeout,
		OutputLimit: captureHead + captureTail, Env: env,
	})
	if err != nil {
		return outcome{}, err
	}
	o := outcome{output: res.Output, timedOut: res.TimedOut, cancelled: res.Cancelled}
	if res.Truncated {
		o.output = "[… the start of the output was dropped]\n" + o.output
	}
	switch {
	case res.Signal != "":
		o.err = errors.New("signal: " + res.Signal)
	case res.ExitCode != nil && *res.ExitCode != 0:
		o.err = fmt.Errorf("exit status %d", *res.ExitCode)
	}
	return o, nil
}
