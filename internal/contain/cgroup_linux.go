package contain

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Where there are no namespaces, a command still gets a cgroup of its own when gantry
// may make one (cgroup v2, gantry's own cgroup writable): the command starts in it
// (clone3's CLONE_INTO_CGROUP), and when it ends everything in it is killed with
// cgroup.kill — a process that left the group with setsid included.

var (
	cgOnce sync.Once
	cgBase string // gantry's folder of command cgroups; "" when there is none
	cgSeq  atomic.Int64
)

// cgroupRoot is the folder the command cgroups are made in, or "" when none can be.
func cgroupRoot() string {
	cgOnce.Do(func() { cgBase = findCgroupBase() })
	return cgBase
}

// findCgroupBase makes gantry-PID under gantry's own cgroup v2 and checks a process
// can be started in a cgroup below it.
func findCgroupBase() string {
	own := ownCgroup()
	if own == "" {
		return ""
	}
	base := filepath.Join(own, "gantry-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return ""
	}
	sweepCgroups(own)
	cgBase = base
	cmd := exec.Command("/bin/true")
	cg := newCgroup(cmd)
	if cg == nil {
		os.Remove(base)
		return ""
	}
	err := cmd.Run()
	cg.started()
	cg.remove()
	if err != nil {
		os.Remove(base)
		return ""
	}
	return base
}

// ownCgroup is the folder of gantry's own cgroup in the cgroup v2 hierarchy, when it
// is mounted and writable.
func ownCgroup() string {
	mnt := cgroup2Mount()
	if mnt == "" {
		return ""
	}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			dir := filepath.Join(mnt, rest)
			if syscall.Access(dir, 2 /* W_OK */) == nil {
				return dir
			}
		}
	}
	return ""
}

// cgroup2Mount is where the cgroup v2 hierarchy is mounted ("" when it is not).
func cgroup2Mount() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent dev root mountpoint options … - fstype source superoptions
		left, right, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(right, "cgroup2 ") {
			continue
		}
		f := strings.Fields(left)
		if len(f) >= 5 && f[3] == "/" {
			return f[4]
		}
	}
	return ""
}

// sweepCgroups removes what a gantry killed by kill -9 left under own: folders of
// processes that are gone, after killing what they hold.
func sweepCgroups(own string) {
	entries, _ := os.ReadDir(own)
	for _, e := range entries {
		pid, ok := strings.CutPrefix(e.Name(), "gantry-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || !e.IsDir() || n == os.Getpid() || syscall.Kill(n, 0) == nil {
			continue
		}
		dir := filepath.Join(own, e.Name())
		subs, _ := os.ReadDir(dir)
		for _, s := range subs {
			if s.IsDir() {
				c := &cgroup{dir: filepath.Join(dir, s.Name()), fd: -1}
				c.remove()
			}
		}
		os.Remove(dir)
	}
}

// cgroup is one command's cgroup.
type cgroup struct {
	dir string
	fd  int // open until the command started
}

// newCgroup makes a cgroup for cmd and has it start there, or returns nil.
func newCgroup(cmd *exec.Cmd) *cgroup {
	if cgBase == "" && cgroupRoot() == "" {
		return nil
	}
	dir := filepath.Join(cgBase, "cmd-"+strconv.FormatInt(cgSeq.Add(1), 10))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil
	}
	fd, err := syscall.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		return nil
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, fd
	return &cgroup{dir: dir, fd: fd}
}

// started closes what only the start needed.
func (c *cgroup) started() {
	if c.fd >= 0 {
		syscall.Close(c.fd)
		c.fd = -1
	}
}

// kill kills every process of the cgroup.
func (c *cgroup) kill() {
	if err := os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0); err == nil {
		return
	}
	// Before Linux 5.14: one by one, until none is left.
	for range 10 {
		pids := c.procs()
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// procs lists the processes in the cgroup.
func (c *cgroup) procs() []int {
	b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// remove kills what is left and removes the cgroup once it is empty (2 s at most).
func (c *cgroup) remove() {
	c.started()
	c.kill()
	deadline := time.Now().Add(2 * time.Second)
	for {
		err := os.Remove(c.dir)
		if err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Cleanup removes gantry's folder of command cgroups, if it made one and it is empty:
// call it when gantry exits (one that is kill -9'd is swept by the next gantry).
func Cleanup() {
	if cgBase != "" {
		os.Remove(cgBase)
	}
}
