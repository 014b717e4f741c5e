//go:build !linux

package session

import (
	"errors"
	"os"
	"syscall"
)

// self is this process as a lease names it.
func self() holder {
	h := holder{pid: os.Getpid()}
	h.host, _ = os.Hostname()
	return h
}

// alive says whether the holder h of a lease still runs: a process of its pid
// exists (a reused pid is taken for the holder). A holder on another host, which
// this one cannot see, is taken for alive.
func (me holder) alive(h holder) bool {
	if h.host != me.host {
		return true
	}
	err := syscall.Kill(h.pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
