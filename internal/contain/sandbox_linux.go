package contain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

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
	} else if !procMatches() {
		// bwrap finds its processes in /proc by their pids: in a PID namespace whose
		// /proc is another namespace's (gantry run by a gantry) it waits for ever.
		why = "gantry runs in a PID namespace whose /proc is another's (inside another gantry?), where bubblewrap hangs"
	} else if out, err := within(probeBwrap(p), 10*time.Second); err != nil {
		why = fmt.Sprintf("bubblewrap cannot make its namespaces here (%s)%s", strings.TrimSpace(firstLine(string(out), err.Error())), containerHint())
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

// procMatches tells whether /proc is the procfs of gantry's own PID namespace.
func procMatches() bool {
	self, err := os.Readlink("/proc/self")
	return err == nil && self == strconv.Itoa(os.Getpid())
}

// within runs cmd for d at most (then kills its group) and returns its output.
func within(cmd *exec.Cmd, d time.Duration) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.Bytes(), err
	case <-time.After(d):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return out.Bytes(), fmt.Errorf("it did not finish within %v", d)
	}
}

// probeBwrap is bwrap run as a command's would be: under the helper, which stays out
// of namespaces for bwrap to make its own.
func probeBwrap(path string) *exec.Cmd {
	probeOnce.Do(probe) // the helper's lifeline is made there, maybe by another goroutine now
	bwrapPath = path
	argv := bwrapArgs(&Sandbox{Writable: []string{os.TempDir()}}, "", []string{"/bin/true"}, "")
	bwrapPath = ""
	if lifeline == nil {
		return exec.Command(argv[0], argv[1:]...)
	}
	return helper(ModeGroup, []string{"-r"}, append([]string{"--"}, argv...)...)
}

func firstLine(s, fallback string) string {
	if s = strings.TrimSpace(s); s == "" {
		return fallback
	}
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// bwrapArgs is the bubblewrap command line that runs argv in sb, in dir. With
// shellPath (the command's PATH) and argv gantry's own `bash -c script`, bash is
// looked up here (see shellArgv).
func bwrapArgs(sb *Sandbox, dir string, argv []string, shellPath string) []string {
	ms := masks(sb)
	if shellPath != "" {
		argv = shellArgv(argv, shellPath, ms)
	}
	args := []string{bwrapPath, "--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"}
	for _, w := range existing(sb.Writable) {
		args = append(args, "--bind", w, w)
	}
	for _, r := range sortedUnique(sb.ReadOnly) {
		args = append(args, "--ro-bind-try", r, r)
	}
	// The masks come last: they win over the binds above.
	args = append(args, bwrapMasks(ms)...)
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

// landlockSpec is what the helper needs to make a Landlock sandbox: the sandbox, and
// the masked paths Landlock can leave out of its read grants (see landlockDenied).
type landlockSpec struct {
	Sandbox
	Denied []string `json:"denied,omitempty"`
}

// landlockFlag passes the sandbox to the helper, for Landlock.
func landlockFlag(sb *Sandbox) string {
	spec := landlockSpec{Sandbox: *sb}
	spec.Denied, _ = landlockDenied(sb)
	b, _ := json.Marshal(spec)
	return "-l=" + string(b)
}

// landlockAttr is struct landlock_ruleset_attr as of ABI 6 (the kernel takes a
// longer struct than it knows when the rest is zero).
type landlockAttr struct {
	handledFS, handledNet, scoped uint64
}

// landlockPath is struct landlock_path_beneath_attr (packed).
type landlockPath struct {
	allowed uint64
	fd      int32
}

// The write rights of each ABI: Landlock restricts only what a ruleset handles, so
// reading and running stay free everywhere unless paths are denied (llRead).
const (
	llWriteV1 = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	llFileRights = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
	// llRead are the rights of reading and running, handled only when paths are
	// denied: then granted on everything else (see readGrants).
	llRead = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_EXECUTE
)

// landlockSelf restricts the calling thread (the helper's locked one, which starts
// the command) to sb: writes only in the writable folders and the usual devices, no
// TCP at all with the network off (Landlock has no notion of loopback), and with
// denied paths, reading and running everywhere but there. It calls the kernel
// directly, on this thread alone, so that it works in any binary.
func landlockSelf(spec string) error {
	var ls landlockSpec
	if err := json.Unmarshal([]byte(spec), &ls); err != nil {
		return err
	}
	sb := ls.Sandbox
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, 1 /* LANDLOCK_CREATE_RULESET_VERSION */)
	if errno != 0 {
		return fmt.Errorf("no Landlock in this kernel: %w", errno)
	}
	abi := int(v)
	attr := landlockAttr{handledFS: llWriteV1}
	if abi >= 2 {
		attr.handledFS |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	fileRights := uint64(unix.LANDLOCK_ACCESS_FS_WRITE_FILE)
	if abi >= 3 {
		attr.handledFS |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
		fileRights = llFileRights
	}
	if len(ls.Denied) > 0 {
		attr.handledFS |= llRead
	}
	writeRights := attr.handledFS &^ llRead
	if abi >= 4 && !sb.Network {
		attr.handledNet = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	size := unsafe.Sizeof(attr)
	if abi < 4 {
		size = 8 // handled_access_fs alone
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("creating the ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	add := func(path string, rights uint64) error {
		pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil // a path that is not here needs no rule
		}
		defer unix.Close(pfd)
		rule := landlockPath{allowed: rights, fd: int32(pfd)}
		_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
		if errno != 0 {
			return fmt.Errorf("a rule for %s: %w", path, errno)
		}
		return nil
	}
	for _, d := range append(existing(sb.Writable), "/dev/shm", "/dev/pts") {
		if err := add(d, writeRights); err != nil {
			return err
		}
	}
	if len(ls.Denied) > 0 {
		// Every folder may be listed (a denied folder's names too, not its files);
		// files may be read and run beneath every entry but the denied ones.
		if err := add("/", unix.LANDLOCK_ACCESS_FS_READ_DIR); err != nil {
			return err
		}
		for _, g := range readGrants(ls.Denied) {
			rights := uint64(llRead)
			if !g.dir {
				rights = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_EXECUTE
			}
			// An entry that takes no rule (a file system Landlock cannot name) stays
			// unreadable rather than failing the sandbox.
			_ = add(g.path, rights)
		}
	}
	for _, f := range []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom"} {
		if err := add(f, fileRights); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("restricting: %w", errno)
	}
	return nil
}
