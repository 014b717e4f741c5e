package session

import (
	"os"
	"strconv"
	"strings"
)

// self is this process as a lease names it. Its pid is the one /proc shows (that of
// the outermost PID namespace this gantry can see), so that another gantry reading
// /proc finds it there even when this one runs in a namespace of its own (a gantry
// started by a gantry's command).
func self() holder {
	h := holder{pid: os.Getpid(), boot: bootID()}
	if s, err := os.Readlink("/proc/self"); err == nil {
		if pid, err := strconv.Atoi(s); err == nil {
			h.pid = pid
		}
	}
	h.started, _ = startTime("self")
	h.host, _ = os.Hostname()
	return h
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// startTime reads the start time (clock ticks after boot) of process pid ("self" for
// this one) from /proc, and whether the process runs (not a zombie).
func startTime(pid string) (int64, bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, false
	}
	// pid (comm) state ppid … : comm may hold spaces and parentheses, so fields
	// are counted from the last ")". starttime is field 22, state field 3.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, false
	}
	t, err := strconv.ParseInt(f[19], 10, 64)
	if err != nil {
		return 0, false
	}
	return t, f[0] != "Z" && f[0] != "X"
}

// alive says whether the holder h of a lease still runs. A holder on another host,
// which this one cannot see, is taken for alive; one of an earlier boot is gone; one
// whose pid runs another process now (started at another time) is gone.
func (me holder) alive(h holder) bool {
	if h.host != me.host {
		return true
	}
	if h.boot != "" && me.boot != "" && h.boot != me.boot {
		return false
	}
	t, running := startTime(strconv.Itoa(h.pid))
	if !running {
		return false
	}
	return h.started == 0 || t == h.started
}
