package session

import (
	"database/sql"
	"fmt"
	"time"
)

// LastSeq is the seq of the session's newest stored message (0: none).
func (s *Session) LastSeq() (int64, error) {
	var seq sql.NullInt64
	if err := s.store.db.QueryRow(`SELECT max(seq) FROM messages WHERE session_id = ?`, s.id).Scan(&seq); err != nil {
		return 0, fmt.Errorf("session: last seq: %w", err)
	}
	return seq.Int64, nil
}

// Branch cuts the session's conversation back to its message keep (the messages after
// it, and the events stored after it but its checkpoints, leave it), after keeping the
// whole conversation as it was in a new session, the branch, which --resume can pick.
// It returns the branch's id.
//
// The session cut stays the live one: it is updated now, while the branch keeps the
// time the conversation was last written to and is marked as cut from it (branch_of),
// so the folder's listing puts it after the session cut, and --continue passes over it
// until someone goes on in it (see Store.Last).
func (s *Session) Branch(keep int64, title string) (string, error) {
	st := s.store
	st.wmu.Lock()
	defer st.wmu.Unlock()
	// Taken under the write lock: every row copied into the branch was stored before.
	now := time.Now()
	bid := newID(now)
	if st.readOnly {
		return "", st.readOnlyErr("branch session")
	}
	tx, err := st.db.Begin()
	if err != nil {
		return "", st.writeError("branch session", err)
	}
	defer tx.Rollback()   //nolint:errcheck // a no-op after Commit
	var cut sql.NullInt64 // when the kept message was stored: later events leave with the later messages
	if err := tx.QueryRow(`SELECT created FROM messages WHERE session_id = ? AND seq = ?`, s.id, keep).Scan(&cut); err != nil && err != sql.ErrNoRows {
		return "", st.writeError("branch session", err)
	}
	if keep == 0 {
		if err := tx.QueryRow(`SELECT created FROM sessions WHERE id = ?`, s.id).Scan(&cut); err != nil {
			return "", st.writeError("branch session", err)
		}
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO sessions (id, cwd, provider, model, title, created, updated, starts_from, parent, turns, branch_of)
			SELECT ?, cwd, provider, model, ?, ?, updated, starts_from, parent, turns, id FROM sessions WHERE id = ?`,
			[]any{bid, Title(title), now.UnixNano(), s.id}},
		{`INSERT INTO messages (session_id, seq, role, created, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost, body)
			SELECT ?, seq, role, created, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost, body
			FROM messages WHERE session_id = ? ORDER BY seq`, []any{bid, s.id}},
		{`INSERT INTO events (session_id, kind, payload, created)
			SELECT ?, kind, payload, created FROM events WHERE session_id = ? ORDER BY id`, []any{bid, s.id}},
		{`DELETE FROM messages WHERE session_id = ? AND seq > ?`, []any{s.id, keep}},
		{`DELETE FROM events WHERE session_id = ? AND created > ? AND kind NOT IN ('checkpoint', 'checkpoint_after')`, []any{s.id, cut.Int64}},
		{`UPDATE sessions SET updated = ? WHERE id = ?`, []any{now.UnixNano(), s.id}},
	} {
		if _, err := tx.Exec(q.sql, q.args...); err != nil {
			return "", st.writeError("branch session", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return "", st.writeError("branch session", err)
	}
	st.nextSeq[s.id] = keep + 1
	var maxSeq sql.NullInt64
	_ = st.db.QueryRow(`SELECT max(seq) FROM messages WHERE session_id = ?`, bid).Scan(&maxSeq)
	st.nextSeq[bid] = maxSeq.Int64 + 1
	return bid, nil
}
