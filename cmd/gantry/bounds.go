package main

// The bounds a fleet's job puts on one headless run: --max-cost, --max-duration,
// --output-schema (outputschema.go) and --session-dir. Each is a flag of the run, not
// a config key: a job sets them for the task it starts, and a project's files cannot
// lift them (README "Bounds and structured answers (fleets)"; docs/config.md).

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/ui/printmode"
)

// The stop reasons (and, as error_<reason>, the result subtypes) of a run a bound ended.
const (
	stopMaxCost     = "max_cost"
	stopMaxDuration = "max_duration"
	stopBadOutput   = "bad_output"
)

// limits are the bound flags of one run and, once it runs, what enforces them.
type limits struct {
	maxCost      dollars
	maxDuration  duration
	outputSchema string
	sessionDir   string

	schema *outputSchema // read from outputSchema by check
	// cancel ends the run's context with the bound that stopped it (bind).
	cancel context.CancelCauseFunc
}

// addLimitFlags declares the bound flags on fs.
func addLimitFlags(fs *flag.FlagSet, l *limits) {
	fs.Var(&l.maxCost, "max-cost", "")
	fs.Var(&l.maxDuration, "max-duration", "")
	fs.StringVar(&l.outputSchema, "output-schema", "", "")
	fs.StringVar(&l.sessionDir, "session-dir", "", "")
}

// check reads the schema file and makes the session folder, before anything starts:
// a mistake is a usage error naming the flag.
func (l *limits) check() error {
	if l.outputSchema != "" {
		s, err := loadSchema(tool.ExpandHome(l.outputSchema))
		if err != nil {
			return fmt.Errorf("--output-schema %s: %v", l.outputSchema, err)
		}
		l.schema = s
	}
	if l.sessionDir != "" {
		dir, err := sessionDir(l.sessionDir)
		if err != nil {
			return err
		}
		l.sessionDir = dir
	}
	return nil
}

// sessionDir makes the folder --session-dir names (relative to the folder gantry was
// started in) and returns its absolute path.
func sessionDir(given string) (string, error) {
	dir, err := filepath.Abs(tool.ExpandHome(given))
	if err == nil {
		err = os.MkdirAll(dir, 0o700) // refuses a path that is not a folder
	}
	if err != nil {
		return "", fmt.Errorf("--session-dir %s: cannot be used as the session folder: %v", given, err)
	}
	return dir, nil
}

// store is the session database the run uses: sessions.db in --session-dir, or ""
// for the default (GANTRY_DATA_DIR, …). Everything else a session writes (checkpoints,
// outputs, transcripts, the kept trust of folders) lives beside it.
func (l *limits) store() string {
	if l.sessionDir == "" {
		return ""
	}
	return filepath.Join(l.sessionDir, "sessions.db")
}

// runOptions has the App refuse a model --max-cost cannot price before it makes a
// session, and tell the model of --output-schema at the end of the system prompt.
func (l *limits) runOptions(opts app.Options) app.Options {
	if l.maxCost > 0 {
		opts.CheckModel = l.priced
	}
	if l.schema != nil {
		opts.AppendSystemPrompt = strings.TrimSpace(opts.AppendSystemPrompt + "\n\n" + l.schema.instruction())
	}
	return opts
}

// printOnly refuses the bounds of a headless run in the terminal UI, which has a
// person to stop it and no final answer to validate.
func (l *limits) printOnly() error {
	for _, b := range []struct {
		name string
		set  bool
	}{{"--max-cost", l.maxCost > 0}, {"--max-duration", l.maxDuration > 0}, {"--output-schema", l.schema != nil}} {
		if b.set {
			return fmt.Errorf("%s bounds print mode's run: give the prompt with -p", b.name)
		}
	}
	return nil
}

// priced refuses --max-cost for a model gantry has no price of: its cost would count
// as nothing and the bound would never stop the run.
func (l *limits) priced(model string) error {
	if l.maxCost == 0 {
		return nil
	}
	if _, ok := llm.PriceOf(model); !ok {
		return fmt.Errorf("--max-cost cannot bound the model %s: gantry does not know its price, so its cost counts as nothing (leave --max-cost out, and bound the run with --max-turns or --max-duration)", model)
	}
	return nil
}

// costError is the cause of a run that --max-cost stopped.
type costError struct{ spent, bound float64 }

func (e *costError) Error() string {
	return fmt.Sprintf("this run has spent $%.4f, more than --max-cost $%s; the run stopped there (the session is kept: --continue goes on)", e.spent, strconv.FormatFloat(e.bound, 'f', -1, 64))
}

// durationError is the cause of a run that --max-duration stopped.
type durationError struct{ bound time.Duration }

func (e *durationError) Error() string {
	return fmt.Sprintf("the run reached --max-duration %s; the turn was cancelled there, its commands killed (the session is kept: --continue goes on)", e.bound)
}

// bind derives the run's context: it ends at --max-duration, or when watch sees the
// session's cost pass --max-cost. stop releases it.
func (l *limits) bind(parent context.Context) (ctx context.Context, stop func()) {
	ctx, l.cancel = context.WithCancelCause(parent)
	stop = func() { l.cancel(nil) }
	if d := time.Duration(l.maxDuration); d > 0 {
		var cancelTimer context.CancelFunc
		ctx, cancelTimer = context.WithTimeoutCause(ctx, d, &durationError{bound: d})
		outer := stop
		stop = func() { cancelTimer(); outer() }
	}
	return ctx, stop
}

// watch stops the run once a model response (the session's own or a subagent's)
// brings the run's cost, the figure the result gives as total_cost_usd (a continued
// session's counts from zero), past --max-cost. The loop then cancels the response's calls, as Ctrl-C does.
func (l *limits) watch(e face.Event) {
	u, ok := e.(face.TurnUsage)
	if !ok || l.maxCost == 0 || l.cancel == nil || u.SessionCost <= float64(l.maxCost) {
		return
	}
	l.cancel(&costError{spent: u.SessionCost, bound: float64(l.maxCost)})
}

// boundOutcome names the bound that stopped a cancelled turn: its stop reason and error
// become the bound's (max_cost, max_duration), so that the result and the exit status
// tell it from Ctrl-C.
func boundOutcome(ctx context.Context, end face.TurnEnded) face.TurnEnded {
	if end.StopReason != "cancelled" {
		return end
	}
	var ce *costError
	var de *durationError
	switch cause := context.Cause(ctx); {
	case errors.As(cause, &ce):
		end.StopReason, end.Err = stopMaxCost, ce
	case errors.As(cause, &de):
		end.StopReason, end.Err = stopMaxDuration, de
	}
	return end
}

// boundExit is the exit status, the result's outcome and the sentence for stderr of a
// turn a bound ended (--max-cost, --max-duration, or an answer --output-schema refused).
func boundExit(end face.TurnEnded) (int, printmode.Outcome, string) {
	say := "a bound of the run was reached"
	if end.Err != nil {
		say = sentence(end.Err)
	}
	switch end.StopReason {
	case stopMaxCost:
		return exitMaxCost, printmode.Outcome{Subtype: printmode.SubtypeMaxCost, Error: say}, say
	case stopMaxDuration:
		return exitMaxDuration, printmode.Outcome{Subtype: printmode.SubtypeMaxDuration, Error: say}, say
	}
	return exitBadOutput, printmode.Outcome{Subtype: printmode.SubtypeBadOutput, Error: say}, say
}

// printOut is where the printer writes: stdout, but stderr in text format with
// --output-schema, whose stdout holds the JSON answer alone (printAnswer).
func (l *limits) printOut(format printmode.Format) io.Writer {
	if l.schema != nil && format == printmode.FormatText {
		return os.Stderr
	}
	return os.Stdout
}

// printAnswer writes the conforming answer alone on stdout in text format (json and
// stream-json carry it in the result's structured_output).
func (l *limits) printAnswer(format printmode.Format, answer []byte) error {
	if l.schema == nil || format != printmode.FormatText {
		return nil
	}
	_, err := fmt.Fprintf(os.Stdout, "%s\n", answer)
	return err
}

// dollars is --max-cost: an amount in US dollars, 0 for no bound.
type dollars float64

func (d *dollars) String() string { return strconv.FormatFloat(float64(*d), 'f', -1, 64) }
func (d *dollars) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimPrefix(s, "$"), 64)
	if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("want an amount of US dollars such as 0.50, not %q", s)
	}
	*d = dollars(v)
	return nil
}

// duration is --max-duration: Go's duration syntax (90s, 10m, 1h30m), 0 for no bound.
type duration time.Duration

func (d *duration) String() string { return time.Duration(*d).String() }
func (d *duration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("want a duration such as 90s, 10m or 1h30m, not %q", s)
	}
	*d = duration(v)
	return nil
}
