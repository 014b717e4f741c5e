package session

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
)

// StoredMessage is a message of the conversation as stored: its sequence number and
// when it was stored.
type StoredMessage struct {
	Seq     int64
	Created time.Time
	Message llm.Message
}

// StoredMessages returns the session's messages as stored, in order, with their
// sequence numbers and times (a rewind's cut keeps the messages up to a sequence
// number; one stored later again under a number has a later time).
func (s *Session) StoredMessages() ([]StoredMessage, error) {
	rows, err := s.store.db.Query(`SELECT seq, created, body FROM messages WHERE session_id = ? ORDER BY seq`, s.id)
	if err != nil {
		return nil, fmt.Errorf("session: read messages: %w", err)
	}
	defer rows.Close()
	var out []StoredMessage
	for rows.Next() {
		var (
			m       StoredMessage
			created int64
			body    []byte
		)
		if err := rows.Scan(&m.Seq, &created, &body); err != nil {
			return nil, fmt.Errorf("session: read messages: %w", err)
		}
		if err := json.Unmarshal(body, &m.Message); err != nil {
			return nil, fmt.Errorf("session %s: message %d is not valid: %w", s.id, m.Seq, err)
		}
		m.Created = time.Unix(0, created)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("session: read messages: %w", err)
	}
	return out, nil
}
