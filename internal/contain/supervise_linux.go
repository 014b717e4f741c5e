package contain

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// Bounds of what is read of one exec's arguments. Linux itself bounds them by a
// quarter of the stack limit (2 MiB by default) and each by 128 KiB.
const (
	maxArgs      = 1 << 17
	maxArgsBytes = 8 << 20
	maxPath      = 4096
)

// supervise receives the listener from the helper, then answers every exec of the
// command until no process uses the filter any more, or finish stops it.
func (p *Process) supervise() {
	defer close(p.plat.served)
	fd, err := p.listener()
	if err != nil {
		p.faulted(err.Error())
		return
	}
	defer unix.Close(fd)
	stop := int(p.plat.stopR.Fd())
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(stop), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			p.faulted("the exec supervisor stopped: " + err.Error())
			return
		}
		if fds[1].Revents != 0 {
			return // finish: the command is over
		}
		if fds[0].Revents&unix.POLLIN == 0 {
			return // POLLHUP: no process is left to watch
		}
		n, err := receive(fd)
		switch {
		case errors.Is(err, unix.ENOENT):
			continue // the process died before it was read
		case err != nil:
			p.faulted("the exec supervisor stopped: " + err.Error())
			return
		}
		p.answer(fd, n)
	}
}

// listener receives the seccomp listener from the helper.
func (p *Process) listener() (int, error) {
	buf, oob := make([]byte, 4096), make([]byte, unix.CmsgSpace(4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(int(p.plat.sock.Fd()), buf, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		switch {
		case err != nil:
			return -1, fmt.Errorf("the exec supervisor got no listener: %w", err)
		case n == 0:
			return -1, errors.New("the exec supervisor got no listener: the helper ended first")
		case buf[0] == 'E':
			return -1, fmt.Errorf("the exec supervisor could not be installed: %s", buf[1:n])
		}
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil || len(msgs) != 1 {
			return -1, errors.New("the exec supervisor got no listener from the helper")
		}
		fds, err := unix.ParseUnixRights(&msgs[0])
		if err != nil || len(fds) != 1 {
			return -1, errors.New("the exec supervisor got no listener from the helper")
		}
		return fds[0], nil
	}
}

// answer decides one notification and answers it. An exec the supervisor cannot
// read is refused: it cannot be checked.
func (p *Process) answer(fd int, n seccompNotif) {
	a, ok := archOf(n.Data.Arch)
	isExec, at, ptr := a.call(uint32(n.Data.Nr))
	if !ok || !isExec {
		_ = respond(fd, n.ID, 0) // the filter only stops execs
		return
	}
	x, done, err := readExec(fd, n, at, ptr)
	defer done()
	if err != nil {
		if errors.Is(err, errGone) {
			return // the process is gone: nothing to answer
		}
		p.refused(Refusal{Rule: "exec supervisor", Command: fmt.Sprintf("%s (%v)", x.Path, err)})
		_ = respond(fd, n.ID, unix.EPERM)
		return
	}
	if r := p.opts.Judge(x); r.Refused() {
		p.refused(r)
		_ = respond(fd, n.ID, unix.EPERM)
		return
	}
	_ = respond(fd, n.ID, 0)
}

// errGone: the notifying process died or left the system call.
var errGone = errors.New("the process is gone")

// readExec reads what the process asks to execute: the path, the arguments, and
// opens the file from its view of the filesystem. done lets go of what x holds.
func readExec(fd int, n seccompNotif, at bool, ptr int) (x Exec, done func(), err error) {
	pid := int(n.Pid)
	x = Exec{Pid: pid}
	root, rerr := -1, error(nil)
	done = func() {
		if x.File != nil {
			x.File.Close()
		}
		if root >= 0 {
			unix.Close(root)
		}
	}
	proc := "/proc/" + strconv.Itoa(pid)
	mem, err := os.Open(proc + "/mem")
	if err != nil {
		if !valid(fd, n.ID) {
			return x, done, errGone
		}
		return x, done, fmt.Errorf("its memory cannot be read: %w", err)
	}
	defer mem.Close()
	if root, rerr = unix.Open(proc+"/root", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); rerr != nil {
		root = -1
	}
	// The process may have died and its pid been reused since the notification: the
	// id still being valid now proves the memory opened above is its own.
	if !valid(fd, n.ID) {
		return x, done, errGone
	}
	args := n.Data.Args
	dirfd, pathAddr, argvAddr, flags := int32(unix.AT_FDCWD), args[0], args[1], uint64(0)
	if at {
		dirfd, pathAddr, argvAddr, flags = int32(args[0]), args[1], args[2], args[4]
	}
	if x.Path, err = readString(mem, pathAddr, maxPath); err != nil {
		return x, done, fmt.Errorf("its path cannot be read: %w", err)
	}
	x.Argv, x.Truncated, err = readArgv(mem, argvAddr, ptr)
	if err != nil {
		return x, done, fmt.Errorf("its arguments cannot be read: %w", err)
	}
	x.open = func(name string) (*os.File, error) { return openIn(proc, root, rerr, unix.AT_FDCWD, name, 0) }
	x.File, _ = openIn(proc, root, rerr, dirfd, x.Path, flags)
	if !valid(fd, n.ID) {
		return x, done, errGone
	}
	return x, done, nil
}

// openIn opens name as the process proc would resolve it for an exec: relative to
// dirfd (its working directory for AT_FDCWD), an absolute name in its root, the file
// of dirfd itself for AT_EMPTY_PATH. It opens for reading, else O_PATH.
func openIn(proc string, root int, rootErr error, dirfd int32, name string, flags uint64) (*os.File, error) {
	var base string
	switch {
	case name == "" && flags&unix.AT_EMPTY_PATH != 0:
		return openFirst(proc+"/fd/"+strconv.Itoa(int(dirfd)), -1, "")
	case filepath.IsAbs(name):
		if rootErr != nil {
			return nil, rootErr
		}
		return openFirst("", root, name)
	case dirfd == unix.AT_FDCWD:
		base = proc + "/cwd"
	default:
		base = proc + "/fd/" + strconv.Itoa(int(dirfd))
	}
	return openFirst(filepath.Join(base, name), -1, "")
}

// openFirst opens path (or, with root ≥ 0, name inside root) for reading, or failing
// that as O_PATH (a program one may run but not read).
func openFirst(path string, root int, name string) (*os.File, error) {
	var lastErr error
	for _, mode := range []int{unix.O_RDONLY, unix.O_PATH} {
		var fd int
		var err error
		if root >= 0 {
			fd, err = unix.Openat2(root, name, &unix.OpenHow{Flags: uint64(mode | unix.O_CLOEXEC), Resolve: unix.RESOLVE_IN_ROOT})
		} else {
			fd, err = unix.Open(path, mode|unix.O_CLOEXEC, 0)
		}
		if err == nil {
			if path == "" {
				path = name
			}
			return os.NewFile(uintptr(fd), path), nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// readString reads a NUL-terminated string of at most max bytes at addr, a page at a
// time (a string may end just before an unmapped page).
func readString(mem *os.File, addr uint64, max int) (string, error) {
	if addr == 0 {
		return "", nil
	}
	var out []byte
	buf := make([]byte, 4096)
	for len(out) < max {
		chunk := 4096 - int(addr%4096)
		k, err := mem.ReadAt(buf[:chunk], int64(addr))
		if k == 0 && err != nil {
			return "", err
		}
		if i := bytes.IndexByte(buf[:k], 0); i >= 0 {
			return string(append(out, buf[:i]...)), nil
		}
		out = append(out, buf[:k]...)
		addr += uint64(k)
	}
	return string(out[:max]), nil
}

// readArgv reads the NULL-terminated array of string pointers at addr.
func readArgv(mem *os.File, addr uint64, ptr int) (argv []string, truncated bool, err error) {
	if addr == 0 {
		return nil, false, nil
	}
	total := 0
	buf := make([]byte, 64*ptr)
	for {
		k, err := mem.ReadAt(buf, int64(addr))
		if k < ptr {
			if err == nil {
				err = errors.New("short read")
			}
			return nil, false, err
		}
		for i := 0; i+ptr <= k; i += ptr {
			var a uint64
			if ptr == 8 {
				a = binary.LittleEndian.Uint64(buf[i:])
			} else {
				a = uint64(binary.LittleEndian.Uint32(buf[i:]))
			}
			if a == 0 {
				return argv, false, nil
			}
			if len(argv) >= maxArgs || total >= maxArgsBytes {
				return argv, true, nil
			}
			s, err := readString(mem, a, maxArgsBytes-total)
			if err != nil {
				return nil, false, err
			}
			argv = append(argv, s)
			if total += len(s) + 1; total > maxArgsBytes {
				return argv, true, nil // s was cut
			}
		}
		addr += uint64(k - k%ptr)
	}
}
