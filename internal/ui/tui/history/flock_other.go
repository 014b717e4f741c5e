//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package history

import (
	"errors"
	"os"
)

type lockKind int

const (
	lockShared lockKind = iota
	lockExclusive
)

// flock is not available here: files are used unlocked.
func flock(*os.File, lockKind) error { return errors.ErrUnsupported }
