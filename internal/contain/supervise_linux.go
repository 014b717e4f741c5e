package contain

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
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
	if !procMatches() {
		// The pids of the notifications are this namespace's, /proc another's: refuse
		// every exec rather than judge the wrong process.
		p.faulted(procMismatch)
		p.refuseAll(fd)
		return
	}
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

// refuseAll answers every exec with EPERM until no process uses the filter.
func (p *Process) refuseAll(fd int) {
	stop := int(p.plat.stopR.Fd())
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(stop), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, -1); err != nil && !errors.Is(err, unix.EINTR) {
			return
		}
		if fds[1].Revents != 0 || fds[0].Revents&unix.POLLIN == 0 {
			return
		}
		if n, err := receive(fd); err == nil {
			_ = respond(fd, n.ID, unix.EPERM)
		}
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
	switch {
	case errors.Is(err, errGone):
		return // the process is gone: nothing to answer
	case errors.Is(err, errFault):
		_ = respond(fd, n.ID, unix.EFAULT) // what the kernel would have said
		return
	case err != nil:
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

// errFault: the process passed a pointer to memory it does not have.
var errFault = errors.New("a bad address")

// readExec reads what the process asks to execute — the path and the arguments, from
// its memory — and opens the file from its view of the filesystem. done lets go of
// what x holds.
func readExec(fd int, n seccompNotif, at bool, ptr int) (x Exec, done func(), err error) {
	pid := int(n.Pid)
	x = Exec{Pid: pid}
	done = func() {
		if x.File != nil {
			x.File.Close()
		}
	}
	args := n.Data.Args
	dirfd, pathAddr, argvAddr, flags := int32(unix.AT_FDCWD), args[0], args[1], uint64(0)
	if at {
		dirfd, pathAddr, argvAddr, flags = int32(args[0]), args[1], args[2], args[4]
	}
	mem := remote(pid)
	if x.Path, err = mem.strings1(pathAddr, maxPath); err != nil {
		return x, done, err
	}
	if x.Argv, x.Truncated, err = mem.argv(argvAddr, ptr); err != nil {
		return x, done, err
	}
	// The pid may have been reused if the process died since the notification: the
	// notification still being valid now proves that what was read is its own.
	if !valid(fd, n.ID) {
		return x, done, errGone
	}
	x.open = func(name string) (*os.File, error) { return openIn(pid, unix.AT_FDCWD, name, 0) }
	x.File, _ = openIn(pid, dirfd, x.Path, flags)
	return x, done, nil
}

// openIn opens name as process pid (a thread, as a notification names it) would
// resolve it for an exec: relative to dirfd (its working directory for AT_FDCWD), an
// absolute name in its root, the file of dirfd itself for AT_EMPTY_PATH; "self" in its
// /proc is the process, not gantry (see resolveIn). It opens for reading, else O_PATH.
func openIn(pid int, dirfd int32, name string, flags uint64) (*os.File, error) {
	proc := "/proc/" + strconv.Itoa(pid)
	var fd int
	var err error
	switch {
	case name == "" && flags&unix.AT_EMPTY_PATH != 0:
		fd, err = unix.Open(proc+"/fd/"+strconv.Itoa(int(dirfd)), unix.O_PATH|unix.O_CLOEXEC, 0)
	default:
		start := proc + "/cwd"
		if dirfd != unix.AT_FDCWD {
			start = proc + "/fd/" + strconv.Itoa(int(dirfd))
		}
		var sfd int
		if sfd, err = unix.Open(start, unix.O_PATH|unix.O_CLOEXEC, 0); err != nil {
			return nil, err
		}
		fd, err = resolveIn(pid, sfd, name)
		unix.Close(sfd)
	}
	if err != nil {
		return nil, err
	}
	label := proc + "/root" + name
	// Reopened through gantry's own link to it, the file can be read; a file that
	// cannot (no read permission) is kept as the O_PATH descriptor.
	if rfd, err := unix.Open(fdPath(fd), unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
		unix.Close(fd)
		return os.NewFile(uintptr(rfd), label), nil
	}
	return os.NewFile(uintptr(fd), label), nil
}

// remote reads another process's memory (process_vm_readv), a page at a time at
// most, so that a read never crosses into an unmapped page.
type remote int

const page = 4096

// read reads, for each address, up to the end of its page (and at most max[i]) into
// bufs[i], in one system call; it returns the lengths read.
func (r remote) read(addrs []uint64, max []int, bufs [][]byte) error {
	local := make([]unix.Iovec, len(addrs))
	remote := make([]unix.RemoteIovec, len(addrs))
	want := 0
	for i, a := range addrs {
		n := min(page-int(a%page), max[i])
		bufs[i] = bufs[i][:n]
		local[i].Base = &bufs[i][0]
		local[i].SetLen(n)
		remote[i] = unix.RemoteIovec{Base: uintptr(a), Len: n}
		want += n
	}
	got, err := unix.ProcessVMReadv(int(r), local, remote, 0)
	switch {
	case errors.Is(err, unix.ESRCH):
		return errGone
	case errors.Is(err, unix.EFAULT):
		return errFault
	case err != nil:
		return fmt.Errorf("its memory cannot be read: %w", err)
	case got < want:
		return errFault // a page that is not mapped
	}
	return nil
}

// strings1 reads one NUL-terminated string of at most max bytes.
func (r remote) strings1(addr uint64, max int) (string, error) {
	ss, _, err := r.cstrings([]uint64{addr}, max)
	if err != nil {
		return "", err
	}
	return ss[0], nil
}

// cstrings reads NUL-terminated strings at addrs, all together at most budget bytes
// (truncated says the budget ran out).
func (r remote) cstrings(addrs []uint64, budget int) (out []string, truncated bool, err error) {
	out = make([]string, len(addrs))
	parts := make([][]byte, len(addrs))
	next := append([]uint64(nil), addrs...)
	open := make([]int, 0, len(addrs)) // the strings not ended yet
	for i, a := range addrs {
		if a == 0 {
			if len(addrs) == 1 {
				return out, false, nil // a NULL path: the kernel says EFAULT
			}
			return nil, false, errFault
		}
		open = append(open, i)
	}
	bufs := make([][]byte, 0, len(addrs))
	for len(open) > 0 {
		if budget <= 0 {
			return out, true, nil
		}
		batch := open[:min(len(open), 1024)] // IOV_MAX
		as, maxes := make([]uint64, len(batch)), make([]int, len(batch))
		bufs = bufs[:0]
		for k, i := range batch {
			as[k], maxes[k] = next[i], min(page, budget)
			bufs = append(bufs, make([]byte, page))
		}
		if err := r.read(as, maxes, bufs); err != nil {
			return nil, false, err
		}
		var still []int
		for k, i := range batch {
			b := bufs[k]
			if j := bytes.IndexByte(b, 0); j >= 0 {
				parts[i] = append(parts[i], b[:j]...)
				out[i] = string(parts[i])
				budget -= j + 1
				continue
			}
			parts[i] = append(parts[i], b...)
			budget -= len(b)
			next[i] += uint64(len(b))
			still = append(still, i)
		}
		open = append(still, open[len(batch):]...)
	}
	return out, false, nil
}

// argv reads the NULL-terminated array of string pointers at addr and the strings.
func (r remote) argv(addr uint64, ptr int) (argv []string, truncated bool, err error) {
	if addr == 0 {
		return nil, false, nil
	}
	var ptrs []uint64
	buf := [][]byte{make([]byte, page)}
	for {
		if err := r.read([]uint64{addr}, []int{page}, buf); err != nil {
			return nil, false, err
		}
		b := buf[0]
		for i := 0; i+ptr <= len(b); i += ptr {
			var a uint64
			if ptr == 8 {
				a = binary.LittleEndian.Uint64(b[i:])
			} else {
				a = uint64(binary.LittleEndian.Uint32(b[i:]))
			}
			if a == 0 {
				return r.cstrings(ptrs, maxArgsBytes)
			}
			if len(ptrs) >= maxArgs {
				ss, _, err := r.cstrings(ptrs, maxArgsBytes)
				return ss, true, err
			}
			ptrs = append(ptrs, a)
		}
		addr += uint64(len(b) - len(b)%ptr)
		if len(b)%ptr != 0 {
			return nil, false, errFault // a pointer across pages: not aligned
		}
	}
}
