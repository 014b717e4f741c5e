package session

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// ErrHeld is wrapped by the error of a Lease on a session another gantry runs.
var ErrHeld = errors.New("the session is being run by another gantry")

// holder identifies a process: its pid, its start time and boot (so that a reused
// pid is not taken for it) and its host.
type holder struct {
	pid     int
	started int64
	boot    string
	host    string
}

// Holder is the gantry that runs a session.
type Holder struct {
	PID   int
	Host  string // empty when it is this host
	Since time.Time
}

// String names the holder in a sentence: "pid 4711 since 14:03:12".
func (h Holder) String() string {
	s := fmt.Sprintf("pid %d since %s", h.PID, h.Since.Local().Format("15:04:05"))
	if h.Host != "" {
		s += " on " + h.Host
	}
	return s
}

// HeldError is the failure of a Lease on a session that is run by another gantry.
type HeldError struct {
	ID     string
	Holder Holder
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("session %s is being run by another gantry (%s)", e.ID, e.Holder)
}

// Is makes a HeldError match ErrHeld.
func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// leased are the sessions this process holds, by store path and id: a process is one
// holder, so two Leases of it on one session would otherwise both succeed.
var leased = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

// leaseKey is the key in leased of the session id of st.
func (st *Store) leaseKey(id string) string { return st.path + "\x00" + id }

// Lease is this process's hold on a session: while it is held, no other gantry runs
// the session (see Session.Lease).
type Lease struct {
	s    *Session
	me   holder
	once sync.Once
	err  error
}

// Lease makes this process the session's one writer: it records the holder (its
// pid, start time, boot and host) in the session's row of the leases table, in one
// transaction that first reads the row. A lease whose holder is gone — the process
// ended, was killed, the machine rebooted — is stale and taken over; a live holder's
// lease makes Lease fail with a *HeldError (ErrHeld). Release gives it up.
//
// Leasing also marks the session as one whose calls have their start stored before
// they run, from its next message on (see Session.Resume).
func (s *Session) Lease() (*Lease, error) {
	st := s.store
	if st.readOnly {
		return nil, st.readOnlyErr("lease")
	}
	key := st.leaseKey(s.id)
	leased.Lock()
	defer leased.Unlock()
	me := self()
	if leased.m[key] {
		return nil, &HeldError{ID: s.id, Holder: Holder{PID: me.pid, Since: time.Now()}}
	}
	st.wmu.Lock()
	defer st.wmu.Unlock()
	if err := st.takeLease(s.id, me); err != nil {
		return nil, err
	}
	leased.m[key] = true
	return &Lease{s: s, me: me}, nil
}

// CreateLeased creates a session, as Create does, already leased by this process: its
// row and its lease are written in one transaction (a new session has no other
// holder), one commit fewer at the start of every new session than Create then Lease.
func (st *Store) CreateLeased(meta Meta) (*Session, *Lease, error) {
	if st.readOnly {
		return nil, nil, st.readOnlyErr("create session")
	}
	now := time.Now()
	s, args := st.newSession(meta, now)
	id := s.id
	me := self()
	leased.Lock()
	defer leased.Unlock()
	st.wmu.Lock()
	defer st.wmu.Unlock()
	tx, err := st.db.Begin()
	if err != nil {
		return nil, nil, st.writeError("create session", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if _, err := tx.Exec(insertSession, args...); err != nil {
		return nil, nil, st.writeError("create session", err)
	}
	if _, err := tx.Exec(`INSERT INTO leases (session_id, pid, started, boot, host, since) VALUES (?, ?, ?, ?, ?, ?)`,
		id, me.pid, me.started, me.boot, me.host, now.UnixNano()); err != nil {
		return nil, nil, st.writeError("lease session "+id, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, nil, st.writeError("create session", err)
	}
	st.nextSeq[id] = 1
	leased.m[st.leaseKey(id)] = true
	return s, &Lease{s: s, me: me}, nil
}

func (st *Store) takeLease(id string, me holder) error {
	tx, err := st.db.Begin() // _txlock=immediate: the write lock, before the read
	if err != nil {
		return st.writeError("lease session "+id, err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	var (
		h     holder
		since int64
	)
	err = tx.QueryRow(`SELECT pid, started, boot, host, since FROM leases WHERE session_id = ?`, id).
		Scan(&h.pid, &h.started, &h.boot, &h.host, &since)
	switch {
	case err == nil:
		if h != me && me.alive(h) {
			hd := Holder{PID: h.pid, Since: time.Unix(0, since)}
			if h.host != me.host {
				hd.Host = h.host
			}
			return &HeldError{ID: id, Holder: hd}
		}
	case !errors.Is(err, sql.ErrNoRows):
		return st.writeError("lease session "+id, err)
	}
	if _, err := tx.Exec(`INSERT OR REPLACE INTO leases (session_id, pid, started, boot, host, since) VALUES (?, ?, ?, ?, ?, ?)`,
		id, me.pid, me.started, me.boot, me.host, time.Now().UnixNano()); err != nil {
		return st.writeError("lease session "+id, notFound(id, err))
	}
	if _, err := tx.Exec(`UPDATE sessions SET starts_from = (SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE session_id = ?1)
		WHERE id = ?1 AND starts_from = 0`, id); err != nil {
		return st.writeError("lease session "+id, err)
	}
	if err := tx.Commit(); err != nil {
		return st.writeError("lease session "+id, err)
	}
	return nil
}

// Release gives the lease up. It is safe to call twice; the second call returns
// the first one's error.
func (l *Lease) Release() error {
	l.once.Do(func() {
		st := l.s.store
		st.wmu.Lock()
		_, err := st.exec(`DELETE FROM leases WHERE session_id = ? AND pid = ? AND started = ? AND boot = ? AND host = ?`,
			l.s.id, l.me.pid, l.me.started, l.me.boot, l.me.host)
		st.wmu.Unlock()
		if err != nil {
			// The row stays; its holder being gone once this process ends, the next
			// Lease takes it over.
			l.err = st.writeError("release session "+l.s.id, err)
		}
		leased.Lock()
		delete(leased.m, st.leaseKey(l.s.id))
		leased.Unlock()
	})
	return l.err
}

// Running returns the holders of the sessions that are being run now, by id. Leases
// whose holders are gone are left out. A store older than leases has none.
func (st *Store) Running() (map[string]Holder, error) {
	rows, err := st.db.Query(`SELECT session_id, pid, started, boot, host, since FROM leases`)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return nil, nil
		}
		return nil, fmt.Errorf("session: read leases: %w", err)
	}
	defer rows.Close()
	me := self()
	out := map[string]Holder{}
	for rows.Next() {
		var (
			id    string
			h     holder
			since int64
		)
		if err := rows.Scan(&id, &h.pid, &h.started, &h.boot, &h.host, &since); err != nil {
			return nil, fmt.Errorf("session: read leases: %w", err)
		}
		if h == me || me.alive(h) {
			hd := Holder{PID: h.pid, Since: time.Unix(0, since)}
			if h.host != me.host {
				hd.Host = h.host
			}
			out[id] = hd
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("session: read leases: %w", err)
	}
	return out, nil
}
