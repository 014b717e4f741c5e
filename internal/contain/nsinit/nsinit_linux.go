package nsinit

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

func init() {
	// Every helper but a Landlock one runs from here, before the packages it does not
	// need are initialised; package contain runs the Landlock one from its own init.
	if len(os.Args) > 1 && os.Args[1] == Arg && !landlocked(os.Args[2:]) {
		os.Exit(Main(os.Args[2:], nil))
	}
}

// landlocked tells whether the helper's flags ask for Landlock.
func landlocked(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if strings.HasPrefix(a, LandlockFlag) {
			return true
		}
	}
	return false
}

// drainGrace is how long, after the command's main process ended, the init waits for
// what the command left running to end by itself (the last output of a background
// job) before it exits and the kernel kills the rest.
const drainGrace = 250 * time.Millisecond

// Main is the init of a command's PID namespace: it starts the command, reaps
// every process that ends in the namespace, forwards the signals gantry sends, and
// exits with the command's status once it ended — or at once when gantry dies. Its
// exit kills every process left in the namespace.
//
// Flags, before "--": -r makes it a subreaper (no namespace: orphans come to it
// instead of init); -l=JSON restricts it (and so the command) with Landlock to a
// Sandbox; -s installs the exec filter and sends its listener to gantry on SuperFD
// before the command starts; -p mounts a /proc of the namespace (the helper was
// started in a mount namespace of its own); -w, with -r, reaps every child left once
// the command ended (bubblewrap's init, which outlives bubblewrap while its
// namespaces are torn down) before it exits, so that gantry finds the command's group
// gone instead of polling it.
// The helper's state that the lifeline's watcher reads when gantry dies.
var (
	asSubreaper atomic.Bool  // -r: no namespace of its own
	commandPID  atomic.Int64 // the command's process, once started
)

// landlock, given, restricts the helper's thread to the sandbox of -l's value.
func Main(args []string, landlock func(spec string) error) int {
	runtime.LockOSThread() // the filter is the thread's, and the command forks from it
	syscall.CloseOnExec(LifelineFD)
	go watchLifeline()
	if len(args) == 1 && args[0] == "probe" {
		return 0
	}
	subreaper, supervised, ownProc, waitRest, sandbox, extra := false, false, false, false, "", 0
	for len(args) > 0 && args[0] != "--" {
		switch {
		case args[0] == "-r":
			subreaper = true
		case args[0] == "-s":
			supervised = true
		case args[0] == "-p":
			ownProc = true
		case args[0] == "-w":
			waitRest = true
		case strings.HasPrefix(args[0], "-x="):
			n, err := strconv.Atoi(strings.TrimPrefix(args[0], "-x="))
			if err != nil || n < 0 || n > 16 {
				fmt.Fprintf(os.Stderr, "gantry: the contain helper got a bad flag %q\n", args[0])
				return 127
			}
			extra = n
		case strings.HasPrefix(args[0], LandlockFlag):
			sandbox = strings.TrimPrefix(args[0], LandlockFlag)
		default:
			fmt.Fprintf(os.Stderr, "gantry: the contain helper got an unknown flag %q\n", args[0])
			return 127
		}
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "gantry: the contain helper was started without a command")
		return 127
	}
	args = args[1:]
	if subreaper {
		asSubreaper.Store(true)
		_ = prctl(prSetChildSubreaper, 1)
	}
	if ownProc {
		if err := mountProc(); err != nil {
			fmt.Fprintf(os.Stderr, "gantry: no /proc of the command's own: %v\n", err)
		}
	}
	if sandbox != "" {
		if landlock == nil {
			fmt.Fprintln(os.Stderr, "gantry: the sandbox (Landlock) could not be made: the helper was started without it")
			return 126
		}
		if err := landlock(sandbox); err != nil {
			fmt.Fprintf(os.Stderr, "gantry: the sandbox (Landlock) could not be made: %v\n", err)
			return 126
		}
	}
	if supervised {
		superviseSelf()
	}
	path, err := lookPath(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "gantry: %v\n", err)
		return 127
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	// -x=N: the command's own descriptors follow the helper's (the lifeline, the
	// supervisor's socket when supervised), and become its 3, 4, ….
	base := LifelineFD + 1
	if supervised {
		base = SuperFD + 1
	}
	for i := range extra {
		syscall.CloseOnExec(base + i)
		files = append(files, os.NewFile(uintptr(base+i), "extra"))
	}
	proc, err := os.StartProcess(path, args, &os.ProcAttr{Env: os.Environ(), Files: files})
	if err != nil {
		fmt.Fprintf(os.Stderr, "gantry: %v\n", err)
		return 126
	}
	commandPID.Store(int64(proc.Pid))
	go func() {
		for s := range sigs {
			if subreaper {
				_ = syscall.Kill(-proc.Pid, s.(syscall.Signal)) // no namespace: the command's group
				continue
			}
			// As init, pass gantry's signal to every other process of the namespace.
			_ = syscall.Kill(-1, s.(syscall.Signal))
		}
	}()
	status := reap(proc.Pid)
	switch {
	case !subreaper:
		drain()
	case waitRest:
		reapRest(drainGrace)
	}
	return status
}

// reapRest waits, as a subreaper, until it has no child left, and kills what is
// still there after d: the wait ends when the last one is reaped, not on a poll.
func reapRest(d time.Duration) {
	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTimer(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			for _, c := range children() {
				_ = syscall.Kill(c, syscall.SIGKILL)
			}
			t.Reset(10 * time.Millisecond) // an orphan of a killed one comes next
		}
	}()
	for {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return // ECHILD: none left
		}
	}
}

// mountProc mounts, in the helper's own mount namespace, a /proc that shows the
// processes of its PID namespace by the pids they have there; nothing else of the
// file system changes (mounts made here do not propagate out).
func mountProc() error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	return nil
}

// superviseSelf installs the exec filter and sends its listener to gantry: a byte 'L'
// with the descriptor, or 'E' and the reason it could not be installed (the command
// then runs unsupervised and gantry says so).
func superviseSelf() {
	defer syscall.Close(SuperFD)
	fd, err := installFilter()
	if err != nil {
		_ = syscall.Sendmsg(SuperFD, append([]byte{'E'}, err.Error()...), nil, nil, 0)
		return
	}
	_ = syscall.Sendmsg(SuperFD, []byte{'L'}, syscall.UnixRights(fd), nil, 0)
	// The helper keeps its copy (close-on-exec: the command does not get it). Were
	// gantry's the only one, gantry's death would fail an exec waiting for its
	// answer with ENOSYS, and the shell would go on with its builtins (an echo into
	// a file) until the namespace is torn down; with this copy open the exec waits,
	// killable, until the helper has killed every process (see watchLifeline).
}

// watchLifeline ends the command and the helper once gantry is gone: the pipe's only
// write end was gantry's, so a read returns end-of-file then. Every process is killed
// and reaped before the helper exits, because its exit closes its copy of the exec
// listener: a process still alive then would see its exec fail and go on.
func watchLifeline() {
	var b [1]byte
	for {
		n, err := syscall.Read(LifelineFD, b[:])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if n <= 0 {
			killAll()
			os.Exit(128 + int(syscall.SIGKILL))
		}
	}
}

// killAll kills what the command started and waits, for up to two seconds, until
// every child of the helper is reaped. As init of a namespace, kill(-1) reaches every
// process of it. As a subreaper (no namespace of its own: the sandbox, where
// bubblewrap makes it and its init dies with bubblewrap, or no namespaces at all) the
// helper kills its children, round after round: each orphan of a killed one comes to
// it, the subreaper, and is killed in the next round.
func killAll() {
	sub := asSubreaper.Load()
	if !sub && os.Getpid() != 1 {
		// Not the init of a namespace (the helper run by hand, or by a benchmark,
		// without its lifeline): kill(-1) would reach every process of the user, so
		// only the command is killed.
		sub = true
	}
	if !sub {
		_ = syscall.Kill(-1, syscall.SIGKILL)
	} else if pid := int(commandPID.Load()); pid > 0 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if sub {
			for _, c := range children() {
				_ = syscall.Kill(c, syscall.SIGKILL)
			}
		}
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR), got > 0:
			continue
		case err != nil: // ECHILD: none left (the main loop may have reaped the last)
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// children lists the helper's child processes (of all its threads), from /proc.
func children() []int {
	tasks, _ := os.ReadDir("/proc/self/task")
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
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
