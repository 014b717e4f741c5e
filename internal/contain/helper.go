package contain

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// drainGrace is how long, after the command's main process ended, the init waits for
// what the command left running to end by itself (the last output of a background
// job) before it exits and the kernel kills the rest.
const drainGrace = 250 * time.Millisecond

// helperMain is the init of a command's PID namespace: it starts the command, reaps
// every process that ends in the namespace, forwards the signals gantry sends, and
// exits with the command's status once it ended — or at once when gantry dies. Its
// exit kills every process left in the namespace.
func helperMain(args []string) int {
	syscall.CloseOnExec(lifelineFD) // the command has no business with it
	go watchLifeline()
	if len(args) == 1 && args[0] == "probe" {
		return 0
	}
	if len(args) < 2 || args[0] != "--" {
		fmt.Fprintln(os.Stderr, "gantry: the contain helper was started without a command")
		return 127
	}
	path, err := exec.LookPath(args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "gantry: %v\n", err)
		return 127
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	proc, err := os.StartProcess(path, args[1:], &os.ProcAttr{Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "gantry: %v\n", err)
		return 127
	}
	go func() {
		for s := range sigs {
			// As init, pass gantry's signal to every other process of the namespace.
			_ = syscall.Kill(-1, s.(syscall.Signal))
		}
	}()
	status := reap(proc.Pid)
	drain()
	return status
}

// watchLifeline exits the helper once gantry is gone: the pipe's only write end was
// gantry's, so a read returns end-of-file then.
func watchLifeline() {
	var b [1]byte
	for {
		n, err := syscall.Read(lifelineFD, b[:])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if n <= 0 {
			os.Exit(128 + int(syscall.SIGKILL))
		}
	}
}

// reap waits for the processes of the namespace until pid ends and returns its exit
// status as a shell reports it (128+N for a signal).
func reap(pid int) int {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return 127 // no child left: cannot happen while pid runs
		}
		if got != pid {
			continue // an orphan that ended: reaped
		}
		switch {
		case ws.Exited():
			return ws.ExitStatus()
		case ws.Signaled():
			return 128 + int(ws.Signal())
		}
	}
}

// drain reaps what the command left running for up to drainGrace.
func drain() {
	deadline := time.Now().Add(drainGrace)
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil: // ECHILD: nothing left
			return
		case got > 0:
			continue
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
