package shell

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed bash.md
var bashDescription string

type bashArgs struct {
	Command         string `json:"command" jsonschema_description:"The shell command to run with bash -c."`
	Timeout         int    `json:"timeout,omitempty" jsonschema:"minimum=1,maximum=600" jsonschema_description:"Seconds before the command and its processes are stopped."`
	Cwd             string `json:"cwd,omitempty" jsonschema_description:"Working directory for this call (absolute or relative to the session's)."`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema_description:"Start the command in the background and return a task_id at once."`
}

func bashTool(o Options) tool.Tool {
	desc := strings.NewReplacer(
		"{default}", seconds(o.DefaultTimeout),
		"{max}", seconds(o.MaxTimeout),
	).Replace(bashDescription)
	return tool.New(tool.Def[bashArgs]{
		ClaudeNames: []string{"Bash"},
		Claude: func(_ tool.Env, a bashArgs) []tool.ClaudeView {
			in := map[string]any{"command": a.Command, "run_in_background": a.RunInBackground}
			if a.Timeout > 0 {
				in["timeout"] = a.Timeout * 1000 // Claude's is in milliseconds
			}
			return []tool.ClaudeView{{Name: "Bash", Input: in}}
		},
		FromClaude: func(_ tool.Env, c *tool.ClaudeArgs) bashArgs {
			a := bashArgs{Command: c.String("command"), RunInBackground: c.Bool("run_in_background")}
			if ms := c.Int("timeout"); ms > 0 {
				a.Timeout = (ms + 999) / 1000 // Claude's is in milliseconds
			}
			return a
		},
		Name:        "bash",
		Aliases:     []string{"shell", "exec_command", "local_shell", "run_terminal_cmd"},
		Core:        true,
		Label:       "Run a shell command",
		Description: strings.TrimSpace(desc),
		Level:       tool.LevelExec,
		Kind:        tool.KindExecute,
		Icon:        "🛠️",
		Counter:     tool.CountCommand,
		Principal:   func(a bashArgs) string { return a.Command },
		Title:       func(_ tool.Env, a bashArgs, _ []string) string { return a.Command },
		Check: func(a bashArgs) string {
			if strings.TrimSpace(a.Command) == "" {
				return `bash needs a command: the argument "command" is empty.`
			}
			if max := int(o.MaxTimeout / time.Second); a.Timeout > max {
				return fmt.Sprintf(`bash: argument "timeout" must be at most %d, not %d.`, max, a.Timeout)
			}
			return ""
		},
		Run: func(ctx context.Context, env tool.Env, a bashArgs) tool.Result {
			return runBash(ctx, env, o, a)
		},
	})
}

func runBash(ctx context.Context, env tool.Env, o Options, a bashArgs) tool.Result {
	dir := env.Abs(a.Cwd)
	if msg := checkDir(dir); msg != "" {
		return tool.Fail(msg)
	}
	if a.RunInBackground {
		return startBackground(o.Tasks, a.Command, dir, o.guardOf())
	}
	if ctx.Err() != nil {
		return tool.Fail("The command was not run: the call was cancelled before it started.")
	}
	timeout := o.DefaultTimeout
	if a.Timeout > 0 {
		timeout = time.Duration(a.Timeout) * time.Second
	}
	var out outcome
	var err error
	g := o.guardOf()
	if env.Terminals != nil && g.judge == nil && g.sandbox == nil {
		// The editor's terminal is out of the supervisor's and the sandbox's reach: with
		// deny rules on bash or the sandbox on, the command runs here.
		out, err = runInTerminal(ctx, env.Terminals, a.Command, dir, timeout, g.env)
	} else {
		out, err = runForeground(ctx, newProcess(a.Command, dir, g), timeout)
		if g.sandbox != nil {
			if note := sandboxNote(out.output, g.sandbox); note != "" {
				out.blocked = append(out.blocked, note)
			}
		}
	}
	if err != nil {
		return tool.Fail(fmt.Sprintf("bash could not start the command: %v.", err))
	}
	return render(out, timeout)
}

// checkDir returns a sentence when dir cannot be the working directory.
func checkDir(dir string) string {
	if dir == "" {
		return "" // no session directory: the process's own
	}
	fi, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		return fmt.Sprintf("The working directory %s does not exist; pass an existing cwd.", dir)
	case err != nil:
		return fmt.Sprintf("The working directory %s cannot be used: %v.", dir, err)
	case !fi.IsDir():
		return fmt.Sprintf("The working directory %s is not a directory; pass a directory as cwd.", dir)
	}
	return ""
}

// render turns an outcome into the model's text: the output, or "(no output)", then
// one line for a timeout, a cancellation or a non-zero exit.
func render(o outcome, timeout time.Duration) tool.Result {
	var status string
	switch {
	case o.timedOut:
		status = fmt.Sprintf("[error: %ss timeout exceeded]", seconds(timeout))
	case o.cancelled:
		status = "[cancelled: the command was stopped before it finished]"
	case o.err != nil:
		status = exitLine(o.err)
	}
	return tool.Result{Text: withStatus(o.output, "(no output)", append([]string{status}, o.blocked...)...), IsError: status != "",
		Blocked: o.blocks, Preview: tool.ShellPreview}
}

// exitLine is the line that reports how a command ended, as Go's exec prints it:
// `[exit code: exit status 2]`, `[exit code: signal: killed]`. A contained command's
// status comes through its namespace's init, which reports a signal as a shell does
// (128+N): the signal is named beside it, `[exit code: exit status 137 (signal:
// killed)]`.
func exitLine(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if code := ee.ExitCode(); code > 128 && code <= 128+64 {
			return fmt.Sprintf("[exit code: %v (signal: %v)]", err, syscall.Signal(code-128))
		}
	}
	return "[exit code: " + err.Error() + "]"
}

// withStatus appends status lines to output without a trailing blank line, standing
// empty for an empty output.
func withStatus(output, empty string, status ...string) string {
	text := strings.TrimRight(output, "\n")
	if text == "" {
		text = empty
	}
	for _, s := range status {
		if s != "" {
			text += "\n" + s
		}
	}
	return text
}

// seconds writes a duration as whole seconds.
func seconds(d time.Duration) string { return strconv.Itoa(int(d / time.Second)) }
