package session

import (
	"fmt"
	"strings"

	sqlite3 "modernc.org/sqlite/lib"
)

// DamagedError is a session store SQLite cannot read: not a database (a damaged
// header, other bytes in its place) or malformed inside. gantry never moves, repairs
// or replaces it: the person moves it aside, and the next gantry starts a new store
// in its place.
type DamagedError struct {
	Path string
	Err  error
}

func (e *DamagedError) Error() string {
	q := shellQuote(e.Path)
	return fmt.Sprintf("the session store %s is damaged (%s): move it aside: mv %s %s; gantry starts a new one",
		e.Path, e.Cause(), q, shellQuote(e.Path+".broken"))
}

func (e *DamagedError) Unwrap() error { return e.Err }

// Damaged tells a turn stopped by this error that the store will not come back by
// itself (see agent.StoreStopped): only moving it aside helps.
func (e *DamagedError) Damaged() bool { return true }

// Cause says what is wrong with the file, in words.
func (e *DamagedError) Cause() string {
	if sqliteCode(e.Err)&0xff == sqlite3.SQLITE_NOTADB {
		return "it is not a SQLite database"
	}
	return "its contents are malformed"
}

// damaged returns err as a *DamagedError of the store at path when SQLite says the
// file is not a database or is malformed, and nil otherwise.
func damaged(path string, err error) *DamagedError {
	switch sqliteCode(err) & 0xff {
	case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
		return &DamagedError{Path: path, Err: err}
	}
	return nil
}

// readError is the failure of a read of op: a *DamagedError when the store is
// damaged, else err with op.
func (st *Store) readError(op string, err error) error {
	if d := damaged(st.path, err); d != nil {
		return d
	}
	return fmt.Errorf("session: %s: %w", op, err)
}

// shellQuote quotes p for a POSIX shell when it holds anything but plain characters.
func shellQuote(p string) string {
	plain := func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%", r)
	}
	if p != "" && strings.IndexFunc(p, func(r rune) bool { return !plain(r) }) < 0 {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}
