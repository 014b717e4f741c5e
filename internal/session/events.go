package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Event is one stored face event.
type Event struct {
	Seq     int64 // increasing across the whole store, so it orders a session's events
	Kind    string
	Time    time.Time
	Payload json.RawMessage
}

// AppendEvent stores one event the agent published (a tool call, a todo list, a mode
// change, …) with its payload encoded as JSON. Like AppendMessage, it is one INSERT,
// and on disk when it returns.
func (s *Session) AppendEvent(kind string, payload any) error {
	body, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("session: encode %s event: %w", kind, err)
	}
	st := s.store
	st.wmu.Lock()
	defer st.wmu.Unlock()
	_, err = st.exec(`INSERT INTO events (session_id, kind, payload, created) VALUES (?, ?, ?, ?)`,
		s.id, kind, string(body), time.Now().UnixNano())
	if err != nil {
		return st.writeError("append "+kind+" event", notFound(s.id, err))
	}
	return nil
}

// Events returns the session's events in the order they were stored; with kinds, only
// the events of those kinds.
func (s *Session) Events(kinds ...string) ([]Event, error) {
	query := `SELECT id, kind, payload, created FROM events WHERE session_id = ?`
	args := []any{s.id}
	if len(kinds) > 0 {
		query += ` AND kind IN (?` + strings.Repeat(`, ?`, len(kinds)-1) + `)`
		for _, k := range kinds {
			args = append(args, k)
		}
	}
	rows, err := s.store.db.Query(query+` ORDER BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("session: read events: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var (
			e       Event
			payload []byte
			created int64
		)
		if err := rows.Scan(&e.Seq, &e.Kind, &payload, &created); err != nil {
			return nil, fmt.Errorf("session: read events: %w", err)
		}
		e.Payload = payload
		e.Time = time.Unix(0, created)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("session: read events: %w", err)
	}
	return out, nil
}
