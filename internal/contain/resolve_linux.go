package contain

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The supervisor opens the program a process execs as the process itself would find
// it. Handing the kernel "/proc/PID/root" + name is not enough: a "self" or
// "thread-self" in /proc (reached directly, through /dev/fd → /proc/self/fd, through
// /dev/stdin, or relative to the working directory) would then name gantry, not the
// process, and `exec 3</usr/bin/mv; /proc/self/fd/3` would be judged as whatever
// gantry holds as its descriptor 3. So the path is walked here one component at a
// time, from descriptors, in the process's root: symbolic links are read and followed
// (40 at most, as Linux does), ".." never climbs above the process's root, and a
// "self" or "thread-self" in a procfs folder becomes the process's pid as that procfs
// numbers it. The links of a procfs that point at objects (fd/N, exe, cwd, root) are
// followed by the kernel itself, which jumps to the object whatever its name.

// maxLinks bounds the symbolic links followed in one path, as Linux does.
const maxLinks = 40

// procSuperMagic is the file system type of a procfs (PROC_SUPER_MAGIC).
const procSuperMagic = 0x9fa0

// caller is the process whose path is walked: its thread and thread group as gantry
// sees them, and the same in each PID namespace it is in (outermost first).
type caller struct {
	tid, tgid     int
	nsTid, nsTgid []string
	start         string // its start time, field 22 of /proc/PID/stat
}

// newCaller reads what the walk needs of thread tid (a seccomp notification's pid).
func newCaller(tid int) (*caller, error) {
	proc := "/proc/" + strconv.Itoa(tid)
	b, err := os.ReadFile(proc + "/status")
	if err != nil {
		return nil, err
	}
	c := &caller{tid: tid, tgid: tid}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch k {
		case "Tgid":
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				c.tgid = n
			}
		case "NStgid":
			c.nsTgid = strings.Fields(v)
		case "NSpid":
			c.nsTid = strings.Fields(v)
		}
	}
	if len(c.nsTgid) == 0 { // a kernel without the NS lines: one namespace
		c.nsTgid, c.nsTid = []string{strconv.Itoa(c.tgid)}, []string{strconv.Itoa(tid)}
	}
	if c.start, err = startTime("/proc/" + strconv.Itoa(c.tgid) + "/stat"); err != nil {
		return nil, err
	}
	return c, nil
}

// startTime reads the start time of the process whose stat file is path.
func startTime(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	// The command name (field 2) may hold spaces and parentheses: fields are counted
	// after its last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return "", fmt.Errorf("%s: no command name", path)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return "", fmt.Errorf("%s: too few fields", path)
	}
	return f[19], nil // field 22: fields 3… start at f[0]
}

// selfIn is what "self" (or "thread-self") names in the procfs folder dirfd: the
// caller's pid as that procfs numbers it, the one whose entry there started when the
// caller did.
func (c *caller) selfIn(dirfd int, thread bool) (string, error) {
	for i, pid := range c.nsTgid {
		fd, err := unix.Openat(dirfd, pid+"/stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		st, err := startTime(fdPath(fd))
		unix.Close(fd)
		if err != nil || st != c.start {
			continue
		}
		if !thread {
			return pid, nil
		}
		if i < len(c.nsTid) {
			return pid + "/task/" + c.nsTid[i], nil
		}
	}
	return "", unix.ENOENT // the caller cannot be seen in that procfs
}

// fdPath names descriptor fd of gantry itself.
func fdPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// procRootIno is the inode number of a procfs's top folder (PROC_ROOT_INO).
const procRootIno = 1

// isProcfs tells whether the folder fd is on a procfs, and whether it is its top
// folder (where "self" and "thread-self" are).
func isProcfs(fd int) (procfs, top bool) {
	var s unix.Statfs_t
	if unix.Fstatfs(fd, &s) != nil || s.Type != procSuperMagic {
		return false, false
	}
	var st unix.Stat_t
	return true, unix.Fstat(fd, &st) == nil && st.Ino == procRootIno
}

// sameFile tells whether descriptors a and b are the same file.
func sameFile(a, b int) bool {
	var sa, sb unix.Stat_t
	return unix.Fstat(a, &sa) == nil && unix.Fstat(b, &sb) == nil && sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// resolveIn walks name (absolute, or relative to the folder start) in the root of
// process pid (tid, as a notification names it) and returns an O_PATH descriptor of
// the file it names, as the process would reach it.
func resolveIn(tid int, start int, name string) (int, error) {
	proc := "/proc/" + strconv.Itoa(tid)
	root, err := unix.Open(proc+"/root", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(root)
	var who *caller // read on the first "self"
	cur := -1
	set := func(fd int) {
		if cur >= 0 {
			unix.Close(cur)
		}
		cur = fd
	}
	dup := func(fd int) error {
		d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		if err == nil {
			set(d)
		}
		return err
	}
	fail := func(err error) (int, error) {
		set(-1)
		return -1, err
	}
	if strings.HasPrefix(name, "/") {
		err = dup(root)
	} else {
		err = dup(start)
	}
	if err != nil {
		return fail(err)
	}
	parts := strings.Split(name, "/")
	links := 0
	for len(parts) > 0 {
		part := parts[0]
		parts = parts[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if sameFile(cur, root) {
				continue // the process's root is its top
			}
			fd, err := unix.Openat(cur, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				return fail(err)
			}
			set(fd)
			continue
		}
		procfs, top := isProcfs(cur)
		if top && (part == "self" || part == "thread-self") {
			if who == nil {
				if who, err = newCaller(tid); err != nil {
					return fail(err)
				}
			}
			self, err := who.selfIn(cur, part == "thread-self")
			if err != nil {
				return fail(err)
			}
			parts = append(strings.Split(self, "/"), parts...)
			continue
		}
		fd, err := unix.Openat(cur, part, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fail(err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return fail(err)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFLNK {
			set(fd)
			continue
		}
		unix.Close(fd)
		if links++; links > maxLinks {
			return fail(unix.ELOOP)
		}
		target, err := readlinkat(cur, part)
		if err != nil {
			return fail(err)
		}
		if procfs && !strings.HasPrefix(target, "self") && !strings.HasPrefix(target, "thread-self") &&
			(strings.HasPrefix(target, "/") || strings.Contains(target, ":")) {
			// A link to an object (fd/N, exe, cwd, root): the kernel follows it to
			// the object itself, which its text may not even name (a deleted file,
			// a memfd, another mount namespace).
			fd, err := unix.Openat(cur, part, unix.O_PATH|unix.O_CLOEXEC, 0)
			if err != nil {
				return fail(err)
			}
			set(fd)
			continue
		}
		if strings.HasPrefix(target, "/") {
			if err := dup(root); err != nil {
				return fail(err)
			}
		}
		parts = append(strings.Split(target, "/"), parts...)
	}
	return cur, nil
}

// readlinkat reads the symbolic link name in the folder dirfd.
func readlinkat(dirfd int, name string) (string, error) {
	for size := 256; size <= maxPath*4; size *= 2 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
	return "", unix.ENAMETOOLONG
}
