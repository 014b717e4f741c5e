package session

import (
	"fmt"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
)

// Info summarises a stored session, for listings.
type Info struct {
	ID       string
	Cwd      string
	Title    string
	Provider string
	Model    string
	Created  time.Time
	Updated  time.Time
	Messages int
	Turns    int
	Usage    llm.Usage
	Cost     float64
}

const infoColumns = `id, cwd, title, provider, model, created, updated, messages, turns,
	input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost`

// scanInfo reads one row of infoColumns.
func scanInfo(row interface{ Scan(...any) error }) (Info, error) {
	var (
		in               Info
		created, updated int64
	)
	err := row.Scan(&in.ID, &in.Cwd, &in.Title, &in.Provider, &in.Model, &created, &updated,
		&in.Messages, &in.Turns, &in.Usage.InputTokens, &in.Usage.OutputTokens,
		&in.Usage.CacheReadTokens, &in.Usage.CacheWriteTokens, &in.Cost)
	in.Created, in.Updated = time.Unix(0, created), time.Unix(0, updated)
	return in, err
}

// List returns the most recently updated sessions first, at most limit of them (all
// when limit ≤ 0).
func (st *Store) List(limit int) ([]Info, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := st.db.Query(`SELECT `+infoColumns+` FROM sessions ORDER BY updated DESC, id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("session: list: %w", err)
	}
	defer rows.Close()
	var out []Info
	for rows.Next() {
		in, err := scanInfo(rows)
		if err != nil {
			return nil, fmt.Errorf("session: list: %w", err)
		}
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("session: list: %w", err)
	}
	return out, nil
}

// Info returns the stored summary of the session.
func (s *Session) Info() (Info, error) {
	in, err := scanInfo(s.store.db.QueryRow(`SELECT `+infoColumns+` FROM sessions WHERE id = ?`, s.id))
	if err != nil {
		return Info{}, fmt.Errorf("session: info: %w", errNoRows(s.id, err))
	}
	return in, nil
}
