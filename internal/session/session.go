package session

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Meta describes a session: where it runs, with which model, and what it is about.
type Meta struct {
	Cwd      string
	Provider string
	Model    string
	Title    string
	// Parent is the session a worker's session was started from (a vibe worker's);
	// empty for the sessions people start. --continue never picks a worker's.
	Parent string
}

// Session is one stored conversation. Its methods write through to the database at
// once; they are safe for concurrent use.
type Session struct {
	store *Store
	id    string

	mu   sync.Mutex
	meta Meta
}

// ID returns the session's id.
func (s *Session) ID() string { return s.id }

// Meta returns the session's description as last set through this Session.
func (s *Session) Meta() Meta {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.meta
}

// Create starts a new, empty session.
func (st *Store) Create(meta Meta) (*Session, error) {
	s, args := st.newSession(meta, time.Now())
	st.wmu.Lock()
	defer st.wmu.Unlock()
	if _, err := st.exec(insertSession, args...); err != nil {
		return nil, st.writeError("create session", err)
	}
	st.nextSeq[s.id] = 1
	return s, nil
}

// insertSession inserts a new session's row (the arguments are newSession's).
const insertSession = `INSERT INTO sessions (id, cwd, provider, model, title, created, updated, starts_from, parent)
	VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)`

// newSession is a session made now, not yet stored, with meta tidied, and the
// arguments of insertSession that store it.
func (st *Store) newSession(meta Meta, now time.Time) (*Session, []any) {
	meta.Title = Title(meta.Title)
	meta.Cwd = Canonical(meta.Cwd)
	id := newID(now)
	return &Session{store: st, id: id, meta: meta},
		[]any{id, meta.Cwd, meta.Provider, meta.Model, meta.Title, now.UnixNano(), now.UnixNano(), meta.Parent}
}

// Get opens the session whose id is idOrPrefix, or the only one whose id starts with
// it. An unknown id wraps ErrNotFound; a prefix shared by several sessions is an error
// that names some of them.
func (st *Store) Get(idOrPrefix string) (*Session, error) {
	p := strings.ToLower(strings.TrimSpace(idOrPrefix))
	if !validPrefix(p) {
		return nil, fmt.Errorf("session %q: %w (an id is %d letters and digits)", idOrPrefix, ErrNotFound, idLen)
	}
	// Ids are [0-9a-z]; "~" sorts after all of them, so the range is the prefix's.
	rows, err := st.db.Query(`SELECT `+sessionColumns+` FROM sessions
		WHERE id >= ? AND id < ? ORDER BY id LIMIT 4`, p, p+"~")
	if err != nil {
		return nil, st.readError(fmt.Sprintf("get %q", idOrPrefix), err)
	}
	found, err := scanSessions(st, rows)
	if err != nil {
		return nil, st.readError(fmt.Sprintf("get %q", idOrPrefix), err)
	}
	switch {
	case len(found) == 0:
		return nil, fmt.Errorf("session %q: %w", idOrPrefix, ErrNotFound)
	case len(found) > 1 && found[0].id != p:
		ids := make([]string, len(found))
		for i, s := range found {
			ids[i] = s.id
		}
		more := ""
		if len(found) == 4 {
			more = ", …"
		}
		return nil, fmt.Errorf("session prefix %q is ambiguous: it matches %s%s; give more characters", idOrPrefix, strings.Join(ids, ", "), more)
	}
	st.initSeq(found[0])
	return found[0].Session, nil
}

// Last returns the most recently updated session whose working directory is cwd (see
// Info.Updated), the folder reached by any path: sessions are stored under the
// canonical path (see Canonical), and one stored as given by an older gantry is
// found too. Neither a worker's session nor a rewind's branch that no one went on in
// (no message stored since it was cut) is picked: the session rewound is the live one.
// It wraps ErrNotFound when the folder has none.
func (st *Store) Last(cwd string) (*Session, error) {
	rows, err := st.db.Query(`SELECT `+sessionColumns+` FROM sessions AS s
		WHERE cwd IN (?, ?) AND parent = '' AND (branch_of = '' OR `+continuedExpr+`)
		ORDER BY `+updatedExpr+` DESC, id DESC LIMIT 1`, Canonical(cwd), filepath.Clean(cwd))
	if err != nil {
		return nil, st.readError("last", err)
	}
	found, err := scanSessions(st, rows)
	if err != nil {
		return nil, st.readError("last", err)
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no session in %s: %w", cwd, ErrNotFound)
	}
	st.initSeq(found[0])
	return found[0].Session, nil
}

// Canonical is the form of a folder the store keeps: absolute, clean, with every
// symlink resolved, so that the same folder reached two ways is one folder. A path
// that cannot be resolved (it is gone) is only made absolute and clean.
func Canonical(dir string) string {
	if dir == "" {
		return ""
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return filepath.Clean(dir)
}

// Fork copies the conversation of session id — its messages and events (the todo
// list, tasks, compactions) — into a new session described by meta (its title is
// id's when meta has none). The copy's usage is zero: what the messages cost stays
// counted in the session they were made in.
func (st *Store) Fork(id string, meta Meta) (*Session, error) {
	src, err := st.Get(id)
	if err != nil {
		return nil, err
	}
	if meta.Title == "" {
		meta.Title = src.Meta().Title
	}
	now := time.Now()
	meta.Title = Title(meta.Title)
	meta.Cwd = Canonical(meta.Cwd)
	nid := newID(now)
	st.wmu.Lock()
	defer st.wmu.Unlock()
	if st.readOnly {
		return nil, st.readOnlyErr("fork session")
	}
	tx, err := st.db.Begin()
	if err != nil {
		return nil, st.writeError("fork session", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO sessions (id, cwd, provider, model, title, created, updated, starts_from)
			SELECT ?, ?, ?, ?, ?, ?, ?, starts_from FROM sessions WHERE id = ?`,
			[]any{nid, meta.Cwd, meta.Provider, meta.Model, meta.Title, now.UnixNano(), now.UnixNano(), src.id}},
		{`INSERT INTO messages (session_id, seq, role, created, body)
			SELECT ?, seq, role, created, body FROM messages WHERE session_id = ? ORDER BY seq`, []any{nid, src.id}},
		{`INSERT INTO events (session_id, kind, payload, created)
			SELECT ?, kind, payload, created FROM events WHERE session_id = ? ORDER BY id`, []any{nid, src.id}},
	} {
		if _, err := tx.Exec(q.sql, q.args...); err != nil {
			return nil, st.writeError("fork session", err)
		}
	}
	var maxSeq sql.NullInt64
	if err := tx.QueryRow(`SELECT max(seq) FROM messages WHERE session_id = ?`, nid).Scan(&maxSeq); err != nil {
		return nil, st.writeError("fork session", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, st.writeError("fork session", err)
	}
	st.nextSeq[nid] = maxSeq.Int64 + 1
	return &Session{store: st, id: nid, meta: meta}, nil
}

// sessionColumns are what scanSessions reads, the last being the highest message seq.
const sessionColumns = `id, cwd, provider, model, title, parent,
	(SELECT max(seq) FROM messages WHERE session_id = id)`

// foundSession is a Session read by scanSessions, with its highest message seq.
type foundSession struct {
	*Session
	maxSeq int64
}

func scanSessions(st *Store, rows *sql.Rows) ([]foundSession, error) {
	defer rows.Close()
	var out []foundSession
	for rows.Next() {
		s := &Session{store: st}
		var maxSeq sql.NullInt64
		if err := rows.Scan(&s.id, &s.meta.Cwd, &s.meta.Provider, &s.meta.Model, &s.meta.Title, &s.meta.Parent, &maxSeq); err != nil {
			return nil, err
		}
		out = append(out, foundSession{s, maxSeq.Int64})
	}
	return out, rows.Err()
}

// initSeq records the next message seq of a session just read, unless the process
// already knows a later one.
func (st *Store) initSeq(f foundSession) {
	st.wmu.Lock()
	defer st.wmu.Unlock()
	if st.nextSeq[f.id] <= f.maxSeq {
		st.nextSeq[f.id] = f.maxSeq + 1
	}
}

// maxTitle is how many characters of the first prompt make a title.
const maxTitle = 80

// Title makes a one-line title of at most about 80 characters from a prompt: spaces
// and line breaks are collapsed, and a cut is marked with "…".
func Title(prompt string) string {
	t := strings.Join(strings.FieldsFunc(prompt, unicode.IsSpace), " ")
	if utf8.RuneCountInString(t) <= maxTitle {
		return t
	}
	r := []rune(t)[:maxTitle-1]
	// Prefer cutting at a word boundary when one is near the end.
	if i := strings.LastIndexByte(string(r), ' '); i > maxTitle*2/3 {
		return strings.TrimRight(string(r)[:i], " ") + "…"
	}
	return string(r) + "…"
}

// SetTitle sets the session's title (typically its first prompt), made into one line
// of at most about 80 characters.
func (s *Session) SetTitle(title string) error {
	title = Title(title)
	if err := s.update(`UPDATE sessions SET title = ?, updated = ? WHERE id = ?`, title); err != nil {
		return s.store.writeError("set title", err)
	}
	s.mu.Lock()
	s.meta.Title = title
	s.mu.Unlock()
	return nil
}

// Flush returns at once: a Session's writes are on disk when they return (it is a
// Recorder of its own; a Pipeline's writes are asynchronous).
func (s *Session) Flush() error { return nil }

// EndTurn counts one more finished turn.
func (s *Session) EndTurn() error {
	if err := s.update(`UPDATE sessions SET turns = turns + 1, updated = ? WHERE id = ?`); err != nil {
		return s.store.writeError("end turn", err)
	}
	return nil
}

// update runs one UPDATE of the session's row, which must exist. Its last two
// parameters are the time now and the session's id, which update appends to args.
func (s *Session) update(query string, args ...any) error {
	s.store.wmu.Lock()
	defer s.store.wmu.Unlock()
	res, err := s.store.exec(query, append(args, time.Now().UnixNano(), s.id)...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("session %s: %w", s.id, ErrNotFound)
	}
	return nil
}

// errNoRows turns sql.ErrNoRows into ErrNotFound for session id.
func errNoRows(id string, err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	return err
}
