package session

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
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
				return st.writeError("append message", err)
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
			return st.writeError("append message", notFound(s.id, err))
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
		return st.writeError("add usage", notFound(s.id, err))
	}
	return nil
}

// Messages returns the model's context as stored — from the last compaction on, when
// there was one (see MarkCompaction) — repaired for resuming (see Repair and
// Resume): it can be sent to a model as it is.
func (s *Session) Messages() ([]llm.Message, error) {
	r, err := s.Resume()
	return r.Messages, err
}

// Resumed is a stored session made ready to go on (see Resume).
type Resumed struct {
	// Messages is the model's context, valid for the next request.
	Messages []llm.Message
	// Results is the message of results Resume made for the calls of the last
	// response, from the results stored as they came and the truth of the rest
	// (nil when the last message is not a response with calls): to be stored
	// before the session goes on, so that what the model is sent stays what is
	// stored.
	Results *llm.Message
	// Unfinished are the calls of the last response that had no result stored.
	Unfinished []Unfinished
}

// Kinds of the events the agent stores of a call: that it is about to run (stored,
// for a call that may have an effect, before it runs), and its result (stored as
// soon as it is had, when more calls of its response are still running).
const (
	KindToolRunning  = "tool_running"
	KindToolFinished = "tool_finished"
)

// The results Resume gives the calls of the last response that have none stored.
const (
	// MayHaveRun is the result of a call that had started: it may have done part or
	// all of its work.
	MayHaveRun = "[interrupted: gantry stopped while this call ran; it may have taken effect: check before running it again]"
	// NotRun is the result of a call that never started.
	NotRun = "[interrupted: gantry stopped before this call ran; it had no effect]"
)

// Unfinished is a call of the session's last response whose result was never
// stored: gantry stopped before it finished.
type Unfinished struct {
	ID, Name string
	Input    string // the call's arguments, as JSON
	// Started says the call had started running, and may have taken effect.
	Started bool
}

// Resume reads the session to go on with it. When it ends with a response whose
// calls have no results message (gantry stopped while they ran), the results come
// from the tool_finished events stored as each call ended, and for the others the
// truth: a call that had started (its start is stored before it runs) gets
// MayHaveRun, one that had not NotRun, each as an error result; both are listed in
// Unfinished, in order, for the face to show. A session stored before starts were
// stored gets Interrupted for them (see Repair) and Unfinished lists them as started.
func (s *Session) Resume() (Resumed, error) {
	msgs, seqs, err := s.rawMessages()
	if err != nil {
		return Resumed{}, err
	}
	var lastSeq int64
	if n := len(seqs); n > 0 {
		lastSeq = seqs[n-1]
	}
	if msgs, err = s.compacted(msgs, seqs); err != nil {
		return Resumed{}, err
	}
	// A last response with calls gets a results message made here (from events,
	// or the truth of the calls), which the caller stores.
	made := len(msgs) > 0 && msgs[len(msgs)-1].Role == llm.RoleAssistant && len(msgs[len(msgs)-1].ToolCalls()) > 0
	var r Resumed
	if msgs, r.Unfinished, err = s.recoverResults(msgs, lastSeq); err != nil {
		return Resumed{}, err
	}
	r.Messages = Repair(msgs)
	if made {
		last := r.Messages[len(r.Messages)-1]
		r.Results = &last
	}
	return r, nil
}

// recoverResults gives the calls of a trailing assistant message (stored as seq
// lastSeq) their results: those stored as tool_finished events before the process
// stopped (the agent stores a response's results as one message once all its calls
// are settled, and each earlier one as an event meanwhile), and for the others the
// truth of what became of them.
func (s *Session) recoverResults(msgs []llm.Message, lastSeq int64) ([]llm.Message, []Unfinished, error) {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != llm.RoleAssistant {
		return msgs, nil, nil
	}
	calls := msgs[len(msgs)-1].ToolCalls()
	if len(calls) == 0 {
		return msgs, nil, nil
	}
	events, err := s.Events(KindToolFinished, KindToolRunning)
	if err != nil {
		return nil, nil, err
	}
	found := make(map[string]llm.Block)
	running := make(map[string]bool)
	for _, e := range events {
		var r struct {
			ID      string `json:"id"`
			Text    string `json:"text"`
			IsError bool   `json:"is_error"`
		}
		if json.Unmarshal(e.Payload, &r) != nil || r.ID == "" {
			continue
		}
		if e.Kind == KindToolRunning {
			running[r.ID] = true
		} else {
			found[r.ID] = llm.Block{Type: llm.BlockToolResult, ToolCallID: r.ID, Text: r.Text, IsError: r.IsError}
		}
	}
	startsKnown, err := s.startsStoredAt(lastSeq)
	if err != nil {
		return nil, nil, err
	}
	var (
		results    []llm.Block
		unfinished []Unfinished
	)
	for _, c := range calls {
		if b, ok := found[c.ToolCallID]; ok {
			results = append(results, b)
			continue
		}
		u := Unfinished{ID: c.ToolCallID, Name: c.ToolName, Input: string(c.Input), Started: running[c.ToolCallID] || !startsKnown}
		unfinished = append(unfinished, u)
		switch {
		case !startsKnown:
			// Repair says Interrupted.
		case u.Started:
			results = append(results, llm.Block{Type: llm.BlockToolResult, ToolCallID: c.ToolCallID, Text: MayHaveRun, IsError: true})
		default:
			results = append(results, llm.Block{Type: llm.BlockToolResult, ToolCallID: c.ToolCallID, Text: NotRun, IsError: true})
		}
	}
	if len(results) == 0 {
		return msgs, unfinished, nil
	}
	return append(msgs[:len(msgs):len(msgs)], llm.Message{Role: llm.RoleUser, Content: results}), unfinished, nil
}

// startsStoredAt says whether the calls of message seq had their starts stored
// before they ran: the session was run, from that message on, by a gantry that
// stores them (see Lease).
func (s *Session) startsStoredAt(seq int64) (bool, error) {
	var from int64
	err := s.store.db.QueryRow(`SELECT starts_from FROM sessions WHERE id = ?`, s.id).Scan(&from)
	if err != nil {
		if strings.Contains(err.Error(), "no such column") {
			return false, nil // a store older than starts (read-only, not migrated)
		}
		return false, fmt.Errorf("session: read session: %w", errNoRows(s.id, err))
	}
	return from > 0 && seq >= from, nil
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
