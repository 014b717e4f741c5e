package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
)

// AppendMessage stores m as the next message of the conversation. When it returns
// without error the message is on disk and survives a kill of the process.
func (s *Session) AppendMessage(m llm.Message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("session: encode message: %w", err)
	}
	now := time.Now().UnixNano()
	err = s.store.write(context.Background(), func(tx *sql.Tx) error {
		// The counter and the row change in one transaction, so they always agree,
		// and the counter gives the next sequence number without scanning.
		var seq int64
		err := tx.QueryRow(`UPDATE sessions SET messages = messages + 1, updated = ?
			WHERE id = ? RETURNING messages`, now, s.id).Scan(&seq)
		if err != nil {
			return errNoRows(s.id, err)
		}
		_, err = tx.Exec(`INSERT INTO messages (session_id, seq, role, body, created) VALUES (?, ?, ?, ?, ?)`,
			s.id, seq, string(m.Role), string(body), now)
		return err
	})
	if err != nil {
		return fmt.Errorf("session: append message: %w", err)
	}
	return nil
}

// AddUsage adds the tokens and cost of one response to the session's totals.
func (s *Session) AddUsage(u llm.Usage, cost float64) error {
	err := s.update(`UPDATE sessions SET
		input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
		cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
		cost = cost + ?, updated = ?
		WHERE id = ?`,
		u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, cost, time.Now().UnixNano(), s.id)
	if err != nil {
		return fmt.Errorf("session: add usage: %w", err)
	}
	return nil
}

// Messages returns the conversation as stored, repaired for resuming (see Repair):
// it can be sent to a model as it is. After an interrupted turn it may end with a user
// message of synthetic tool results; a prompt appended after it is merged into that
// message by the next Messages.
func (s *Session) Messages() ([]llm.Message, error) {
	msgs, err := s.RawMessages()
	if err != nil {
		return nil, err
	}
	return Repair(msgs), nil
}

// RawMessages returns the conversation exactly as stored, without repair.
func (s *Session) RawMessages() ([]llm.Message, error) {
	rows, err := s.store.db.Query(`SELECT seq, body FROM messages WHERE session_id = ? ORDER BY seq`, s.id)
	if err != nil {
		return nil, fmt.Errorf("session: read messages: %w", err)
	}
	defer rows.Close()
	var msgs []llm.Message
	for rows.Next() {
		var (
			seq  int64
			body []byte
		)
		if err := rows.Scan(&seq, &body); err != nil {
			return nil, fmt.Errorf("session: read messages: %w", err)
		}
		var m llm.Message
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, fmt.Errorf("session %s: message %d is not valid: %w", s.id, seq, err)
		}
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("session: read messages: %w", err)
	}
	return msgs, nil
}
