package session

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/gantry-dev/gantry/internal/llm"
)

// AppendMessage stores m as the next message of the conversation. When it returns
// without error the message is on disk and survives a kill of the process.
//
// It is one INSERT. The store keeps the next sequence number of each session it has
// opened; when another process has appended to the session meanwhile, the INSERT
// fails on the primary key, and AppendMessage reads the highest number again and
// retries once.
func (s *Session) AppendMessage(m llm.Message) error {
	return s.appendMessage(m, nil, 0)
}

// AppendResponse stores a model's response as the next message together with the
// tokens and cost it took, in the same row: one write on the hot path instead of two.
// When it returns without error it is on disk.
func (s *Session) AppendResponse(m llm.Message, u llm.Usage, cost float64) error {
	return s.appendMessage(m, &u, cost)
}

const (
	insertMessage = `INSERT INTO messages (session_id, seq, role, body, created,
			input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	// The usage seq only keeps the rows apart; computed by the statement itself, it
	// is right even when another process adds usage to the session at the same time.
	insertUsage = `INSERT INTO usage (session_id, seq, input_tokens, output_tokens,
			cache_read_tokens, cache_write_tokens, cost, created)
		VALUES (?1, (SELECT coalesce(max(seq), 0) + 1 FROM usage WHERE session_id = ?1), ?2, ?3, ?4, ?5, ?6, ?7)`
)

func (s *Session) appendMessage(m llm.Message, u *llm.Usage, cost float64) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("session: encode message: %w", err)
	}
	st := s.store
	st.wmu.Lock()
	defer st.wmu.Unlock()
	seq, known := st.nextSeq[s.id]
	for try := 0; ; try++ {
		if !known {
			if seq, err = st.loadNextSeq(s.id); err != nil {
				return fmt.Errorf("session: append message: %w", err)
			}
		}
		var usage llm.Usage
		if u != nil {
			usage = *u
		}
		_, err = st.exec(insertMessage, s.id, seq, string(m.Role), string(body), time.Now().UnixNano(),
			usage.InputTokens, usage.OutputTokens, usage.CacheReadTokens, usage.CacheWriteTokens, cost)
		if err == nil {
			st.nextSeq[s.id] = seq + 1
			return nil
		}
		if try > 0 || sqliteCode(err) != sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY {
			return fmt.Errorf("session: append message: %w", notFound(s.id, err))
		}
		known = false
	}
}

// loadNextSeq reads the next message sequence number of session id from the database.
func (st *Store) loadNextSeq(id string) (int64, error) {
	var maxSeq sql.NullInt64
	if err := st.db.QueryRow(`SELECT max(seq) FROM messages WHERE session_id = ?`, id).Scan(&maxSeq); err != nil {
		return 0, err
	}
	return maxSeq.Int64 + 1, nil
}

// AddUsage adds tokens and cost that belong to no stored message (a response
// AppendResponse stores carries its own) to the session's totals. It is one INSERT
// of a row into the usage table; Info sums both.
func (s *Session) AddUsage(u llm.Usage, cost float64) error {
	st := s.store
	st.wmu.Lock()
	defer st.wmu.Unlock()
	_, err := st.exec(insertUsage, s.id, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, cost, time.Now().UnixNano())
	if err != nil {
		return fmt.Errorf("session: add usage: %w", notFound(s.id, err))
	}
	return nil
}

// Messages returns the model's context as stored — from the last compaction on, when
// there was one (see MarkCompaction) — repaired for resuming (see Repair):
// it can be sent to a model as it is. After an interrupted turn it may end with a user
// message of synthetic tool results; a prompt appended after it is merged into that
// message by the next Messages.
func (s *Session) Messages() ([]llm.Message, error) {
	msgs, seqs, err := s.rawMessages()
	if err != nil {
		return nil, err
	}
	if msgs, err = s.compacted(msgs, seqs); err != nil {
		return nil, err
	}
	if msgs, err = s.recoverResults(msgs); err != nil {
		return nil, err
	}
	return Repair(msgs), nil
}

// recoverResults gives the calls of a trailing assistant message the results that
// were stored as tool_finished events before the process stopped (the agent stores
// a response's results as one message once all its calls are settled, and each
// earlier one as an event meanwhile).
func (s *Session) recoverResults(msgs []llm.Message) ([]llm.Message, error) {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != llm.RoleAssistant {
		return msgs, nil
	}
	calls := msgs[len(msgs)-1].ToolCalls()
	if len(calls) == 0 {
		return msgs, nil
	}
	events, err := s.Events("tool_finished")
	if err != nil {
		return nil, err
	}
	found := make(map[string]llm.Block)
	for _, e := range events {
		var r struct {
			ID      string `json:"id"`
			Text    string `json:"text"`
			IsError bool   `json:"is_error"`
		}
		if json.Unmarshal(e.Payload, &r) == nil && r.ID != "" {
			found[r.ID] = llm.Block{Type: llm.BlockToolResult, ToolCallID: r.ID, Text: r.Text, IsError: r.IsError}
		}
	}
	var results []llm.Block
	for _, c := range calls {
		if b, ok := found[c.ToolCallID]; ok {
			results = append(results, b)
		}
	}
	if len(results) == 0 {
		return msgs, nil
	}
	return append(msgs[:len(msgs):len(msgs)], llm.Message{Role: llm.RoleUser, Content: results}), nil
}

// RawMessages returns the conversation exactly as stored, without repair.
func (s *Session) RawMessages() ([]llm.Message, error) {
	msgs, _, err := s.rawMessages()
	return msgs, err
}

// rawMessages returns the stored messages with their sequence numbers.
func (s *Session) rawMessages() ([]llm.Message, []int64, error) {
	rows, err := s.store.db.Query(`SELECT seq, body FROM messages WHERE session_id = ? ORDER BY seq`, s.id)
	if err != nil {
		return nil, nil, fmt.Errorf("session: read messages: %w", err)
	}
	defer rows.Close()
	var (
		msgs []llm.Message
		seqs []int64
	)
	for rows.Next() {
		var (
			seq  int64
			body []byte
		)
		if err := rows.Scan(&seq, &body); err != nil {
			return nil, nil, fmt.Errorf("session: read messages: %w", err)
		}
		var m llm.Message
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, nil, fmt.Errorf("session %s: message %d is not valid: %w", s.id, seq, err)
		}
		msgs = append(msgs, m)
		seqs = append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("session: read messages: %w", err)
	}
	return msgs, seqs, nil
}
