// Package procgroup starts shell commands as the leaders of their own session and
// process group, and stops whole groups: what gantry starts (a bash call, a
// background task, a hook) never outlives gantry's wish to stop it, grandchildren
// included.
package procgroup

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// killWait bounds the wait for a group to vanish after SIGKILL.
const killWait = 2 * time.Second

// Kill stops every process of the group pgid: SIGTERM (and SIGCONT, so stopped members
// see it), then SIGKILL for what is left after grace. It returns once the group has no
// living member, or a short while after the SIGKILL.
func Kill(pgid int, grace time.Duration) {
	if pgid <= 1 {
		return // never signal -1 (every process) or our own group 0
	}
	if err := syscall.Kill(-pgid, syscall.SIGTERM); errors.Is(err, syscall.ESRCH) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGCONT)
	if waitGone(pgid, grace) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	waitGone(pgid, killWait)
}

// waitGone polls until the group has no living member or d has passed.
func waitGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if !Alive(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Alive tells whether the group pgid has a member that is not a zombie. Zombies are
// dead: they wait only for their parent (or init) to reap them.
func Alive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	if !procIsOurs() {
		return true // /proc is another PID namespace's: its groups are not ours to read
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true // cannot tell; signals went out, assume the worst
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		state, group, ok := procStat(e.Name())
		if ok && group == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// procIsOurs tells whether /proc is the procfs of this process's PID namespace (it
// is not for a process in a namespace of its own with the host's /proc mounted, as
// under another gantry).
func procIsOurs() bool {
	self, err := os.Readlink("/proc/self")
	return err == nil && self == strconv.Itoa(os.Getpid())
}

// procStat reads the state and process group of /proc/<pid>/stat.
func procStat(pid string) (state byte, pgid int, ok bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:]) // state ppid pgrp …
	if len(f) < 3 || len(f[0]) == 0 {
		return 0, 0, false
	}
	g, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], g, true
}

// Ending says how a command ended under Wait.
type Ending struct {
	Err       error // cmd.Wait's error
	TimedOut  bool
	Cancelled bool
}

// Wait waits for the started cmd, which leads its own group, to exit; at timeout or
// when ctx ends first it kills the group. After a normal exit, settle runs (to let
// output drain, say) and then the group is killed: whatever the command left running
// goes with it. grace is Kill's time between SIGTERM and SIGKILL.
func Wait(ctx context.Context, cmd *exec.Cmd, timeout, grace time.Duration, settle func()) Ending {
	return wait(ctx, cmd, timeout, grace, settle, Kill)
}

// WaitHangup is Wait, except that after a normal exit the group is hung up (see
// Hangup) instead of killed: what the command detached on purpose lives on. At timeout
// or when ctx ends the group is killed, as by Wait.
func WaitHangup(ctx context.Context, cmd *exec.Cmd, timeout, grace time.Duration, settle func()) Ending {
	return wait(ctx, cmd, timeout, grace, settle, Hangup)
}

func wait(ctx context.Context, cmd *exec.Cmd, timeout, grace time.Duration, settle func(), end func(int, time.Duration)) Ending {
	pgid := cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var e Ending
	select {
	case e.Err = <-exited:
		if settle != nil {
			settle()
		}
		end(pgid, grace)
	case <-timer.C:
		e.TimedOut = true
		Kill(pgid, grace)
		e.Err = <-exited
	case <-ctx.Done():
		e.Cancelled = true
		Kill(pgid, grace)
		e.Err = <-exited
	}
	return e
}

// Hangup hangs up the group pgid, whose leader has exited, as a terminal hangs up the
// processes of a session when it closes: every member gets SIGHUP (and SIGCONT, so
// that a stopped one sees it). A process lives on if it left the group (setsid, a shell
// with job control) or ignores, catches or blocks SIGHUP (nohup, a trap on HUP); the
// others die of it. Members are first given up to grace to get there (a child that
// runs nohup or setsid may not have done so yet when its parent exits); Hangup returns
// once every living member of the group is one that lives on, or grace after the
// SIGHUP.
func Hangup(pgid int, grace time.Duration) {
	if pgid <= 1 {
		return // never signal -1 (every process) or our own group 0
	}
	if untilDetached(pgid, grace) == 0 {
		return // nothing is left in the group, or only what lives on anyway
	}
	if err := syscall.Kill(-pgid, syscall.SIGHUP); errors.Is(err, syscall.ESRCH) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGCONT)
	untilDetached(pgid, grace)
}

// untilDetached polls, for d at most, until every living member of group pgid shrugs
// off SIGHUP, and returns how many do not (0 when it cannot tell).
func untilDetached(pgid int, d time.Duration) int {
	deadline := time.Now().Add(d)
	for {
		n := hangupDeaths(pgid)
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hangupDeaths counts the living members of group pgid that SIGHUP would kill: those
// that neither ignore, catch nor block it. It is 0 when /proc cannot tell.
func hangupDeaths(pgid int) int {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) || !procIsOurs() {
		return 0
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		state, group, ok := procStat(e.Name())
		if ok && group == pgid && state != 'Z' && state != 'X' && !shrugsOffHangup(e.Name()) {
			n++
		}
	}
	return n
}

// shrugsOffHangup tells whether process pid ignores, catches or blocks SIGHUP (the
// masks of /proc/<pid>/status; SIGHUP is bit 0). A process that is gone counts as
// shrugging it off: it is not waited for.
func shrugsOffHangup(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return true
	}
	for line := range strings.Lines(string(b)) {
		key, val, ok := strings.Cut(line, ":")
		if !ok || key != "SigBlk" && key != "SigIgn" && key != "SigCgt" {
			continue
		}
		if mask, err := strconv.ParseUint(strings.TrimSpace(val), 16, 64); err == nil && mask&1 != 0 {
			return true
		}
	}
	return false
}
