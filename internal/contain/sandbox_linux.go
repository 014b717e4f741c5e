package contain

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

var (
	sandboxOnce sync.Once
	backend     Backend
	backendWhy  string
	bwrapPath   string
)

// probeSandbox finds bwrap and checks it can make its namespaces here; else checks
// Landlock.
func probeSandbox() (Backend, string) {
	why := ""
	if p, err := exec.LookPath("bwrap"); err != nil {
		why = "bubblewrap (bwrap) is not installed"
	} else if out, err := exec.Command(p, "--ro-bind", "/", "/", "--dev", "/dev", "--", "/bin/true").CombinedOutput(); err != nil {
		why = fmt.Sprintf("bubblewrap cannot make its namespaces here (%s)", strings.TrimSpace(firstLine(string(out), err.Error())))
	} else {
		bwrapPath = p
		return BackendBubblewrap, ""
	}
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, 1 /* LANDLOCK_CREATE_RULESET_VERSION */)
	if errno != 0 || int(abi) < 1 {
		return BackendNone, why + ", and Landlock is not enabled in this kernel"
	}
	return BackendLandlock, fmt.Sprintf("%s: Landlock ABI %d restricts writes instead (denied and protected paths inside the project stay writable, and with the network off loopback is closed too)", why, abi)
}

func firstLine(s, fallback string) string {
	if s = strings.TrimSpace(s); s == "" {
		return fallback
	}
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// bwrapArgs is the bubblewrap command line that runs argv in sb, in dir.
func bwrapArgs(sb *Sandbox, dir string, argv []string) []string {
	args := []string{bwrapPath, "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"}
	for _, w := range existing(sb.Writable) {
		args = append(args, "--bind", w, w)
	}
	for _, r := range sortedUnique(sb.ReadOnly) {
		args = append(args, "--ro-bind-try", r, r)
	}
	if !sb.Network {
		args = append(args, "--unshare-net")
	}
	if dir != "" {
		args = append(args, "--chdir", dir)
	}
	return append(append(args, "--"), argv...)
}

// existing keeps the folders that exist, each once, parents before children.
func existing(dirs []string) []string {
	var out []string
	for _, d := range sortedUnique(dirs) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out
}

func sortedUnique(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	n := 0
	for i, s := range out {
		if i == 0 || s != out[n-1] {
			out[n] = s
			n++
		}
	}
	return out[:n]
}

// landlockFlag passes the sandbox to the helper, for Landlock.
func landlockFlag(sb *Sandbox) string {
	b, _ := json.Marshal(sb)
	return "-l=" + string(b)
}

// landlockSelf restricts the calling thread (the helper's locked one, which starts
// the command) to sb: writes only in the writable folders and the usual devices, and
// no TCP at all with the network off. The ruleset is go-landlock's; it is applied to
// this thread alone, so that it works in a binary that links cgo too.
func landlockSelf(spec string) error {
	var sb Sandbox
	if err := json.Unmarshal([]byte(spec), &sb); err != nil {
		return err
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWDirs(existing(sb.Writable)...),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom").IgnoreIfMissing(),
		landlock.RWDirs("/dev/shm", "/dev/pts").IgnoreIfMissing(),
	}
	cfg := landlock.V7.BestEffort()
	if sb.Network {
		cfg.HandledAccessNet = 0
	}
	fd, _, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return err
	}
	if fd < 0 {
		return nil // no Landlock: nothing to apply
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(fd), 0, 0); errno != 0 {
		return errno
	}
	return nil
}
