package dap

import (
	"regexp"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// stopSignal finds the signal a stop names ("signal SIGSEGV: address not mapped…",
// lldb's words for a crash): its number, or 0.
var stopSignal = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bSIG[A-Z0-9]+\b`) })

func signalOfStop(description string) int {
	if m := stopSignal().FindString(description); m != "" {
		return int(unix.SignalNum(m))
	}
	return 0
}

// exitSignal is the signal that killed the program, read from the exit code the
// adapter reported as its ExitSignal says (lastStop: the signal the program last
// stopped on, 0 if none); 0 when the program exited by itself.
func exitSignal(how SignalCode, code, lastStop int) int {
	switch {
	case code < 0 && -code <= 64:
		return -code
	case how == SignalWrapped && code > 256-32 && code < 256:
		// Only the standard signals (1-31): a program's own exit(200) is not one.
		return 256 - code
	case how == SignalNumber && code > 0 && code == lastStop:
		return code
	}
	return 0
}

// SignalName names signal n ("SIGSEGV"), or "" when it has no name here.
func SignalName(n int) string {
	return unix.SignalName(syscall.Signal(n))
}
