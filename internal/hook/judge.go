package hook

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
)

// judge reads what one run of hook s did for event.
func judge(event string, s *spec, x execution) verdict {
	switch {
	case x.startErr != nil:
		return s.failed(fmt.Sprintf("The %s could not be started: %v.", s.label(), x.startErr))
	case x.cancelled:
		return verdict{block: true, reason: fmt.Sprintf("The %s was stopped before it finished: the call was cancelled.", s.label())}
	case x.timedOut:
		return s.failed(fmt.Sprintf("The %s did not finish within its timeout of %s and was stopped.", s.label(), s.timeout))
	}
	var ee *exec.ExitError
	switch {
	case x.err == nil:
		return readOutput(event, s, x.stdout, x.stdoutTruncated)
	case !errors.As(x.err, &ee):
		return s.failed(fmt.Sprintf("The %s failed: %v.", s.label(), x.err))
	case ee.ExitCode() == 2:
		reason := strings.TrimSpace(x.stderr)
		if reason == "" {
			reason = fmt.Sprintf("The %s blocked this (exit status 2) without giving a reason.", s.label())
		}
		return verdict{block: true, reason: reason}
	default:
		return s.failed(fmt.Sprintf("The %s %s%s.", s.label(), describeExit(ee), stderrNote(x.stderr)))
	}
}

// failed is the verdict on a hook that failed with the sentence msg: a warning, or a
// block under onFailure: block.
func (s *spec) failed(msg string) verdict {
	if s.blocksOnFailure() {
		return verdict{block: true, reason: msg + " Its onFailure is block, so this was blocked."}
	}
	return verdict{warning: msg}
}

// describeExit says how a process ended that did not exit 0.
func describeExit(ee *exec.ExitError) string {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "was killed by signal " + ws.Signal().String()
	}
	return fmt.Sprintf("exited with status %d", ee.ExitCode())
}

// stderrNote quotes the last non-empty line of stderr, shortened, or nothing.
func stderrNote(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return ""
	}
	if r := []rune(last); len(r) > 200 {
		last = string(r[:199]) + "…"
	}
	return fmt.Sprintf(" (stderr: %s)", last)
}
