package hook

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Timings of process handling.
const (
	// termGrace is how long a hook's group has to exit after SIGTERM before SIGKILL.
	termGrace = 500 * time.Millisecond
	// killWait bounds the wait for a group to vanish after SIGKILL.
	killWait = 2 * time.Second
	// drainGrace bounds the wait for the output pipes to close once the hook's main
	// process has exited or its group was killed (a grandchild may hold them open).
	drainGrace = 250 * time.Millisecond
)

// newCommand prepares `bash -c script` in dir with env added to the inherited
// environment. The command leads a new session, hence a new process group whose id is
// its pid, with no controlling terminal to read from or prompt on.
func newCommand(script, dir string, env []string) *exec.Cmd {
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...) // later duplicates win
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd
}

// killGroup stops every process of the group pgid: SIGTERM (and SIGCONT, so stopped
// members see it), then SIGKILL for what is left after termGrace. It returns once the
// group has no living member, or killWait after the SIGKILL.
func killGroup(pgid int) {
	if pgid <= 1 {
		return // never signal -1 (every process) or our own group 0
	}
	if err := syscall.Kill(-pgid, syscall.SIGTERM); errors.Is(err, syscall.ESRCH) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGCONT)
	if waitGone(pgid, termGrace) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	waitGone(pgid, killWait)
}

// waitGone polls until the group has no living member or d has passed.
func waitGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if !groupAlive(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// groupAlive tells whether the group pgid has a member that is not a zombie.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true // cannot tell; assume the worst
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
