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
	Parent   string // the session a worker's was started from ('' for people's)
	BranchOf string // the session a rewind's branch was cut from ('' for the others)
	Provider string
	Model    string
	Created  time.Time
	// Updated is when the session was last written to: created, titled, a turn
	// ended, or a message, event or usage figure stored.
	Updated  time.Time
	Messages int
	Turns    int
	Usage    llm.Usage
	Cost     float64
}

// updatedExpr is Info.Updated of the sessions row s: the newest of its own updated
// and of the created times of its last message, event and usage row, each found by
// one seek in the table's session index. Rows are stored in the order of their times
// (which are taken under the write lock), so the last is the newest.
const updatedExpr = `max(s.updated,
	coalesce((SELECT created FROM messages WHERE session_id = s.id ORDER BY seq DESC LIMIT 1), 0),
	coalesce((SELECT created FROM events WHERE session_id = s.id ORDER BY id DESC LIMIT 1), 0),
	coalesce((SELECT created FROM usage WHERE session_id = s.id ORDER BY seq DESC LIMIT 1), 0))`

// continuedExpr holds for a rewind's branch s that someone went on in: its last
// message was stored after the branch was cut (the messages copied into it are older).
const continuedExpr = `coalesce((SELECT created FROM messages WHERE session_id = s.id ORDER BY seq DESC LIMIT 1), 0) > s.created`

// infoQuery returns the query of the Infos of the sessions that pick selects from
// `sessions AS s`, in its order; pick must select s.id and updatedExpr AS upd. Only
// the picked sessions get their usage summed: List orders all sessions by upd but
// sums the usage of no more than it returns. branchOf is the column of Info.BranchOf.
func infoQuery(pick, branchOf string) string {
	return `WITH picked AS MATERIALIZED (` + pick + `),
	spent AS (
		SELECT session_id, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost
			FROM messages WHERE session_id IN (SELECT id FROM picked)
		UNION ALL
		SELECT session_id, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost
			FROM usage WHERE session_id IN (SELECT id FROM picked))
	SELECT s.id, s.cwd, s.title, s.parent, ` + branchOf + `, s.provider, s.model, s.created, p.upd,
		coalesce((SELECT max(seq) FROM messages WHERE session_id = s.id), 0), s.turns,
		coalesce(sum(u.input_tokens), 0), coalesce(sum(u.output_tokens), 0),
		coalesce(sum(u.cache_read_tokens), 0), coalesce(sum(u.cache_write_tokens), 0),
		coalesce(sum(u.cost), 0)
	FROM picked AS p JOIN sessions AS s ON s.id = p.id
		LEFT JOIN spent AS u ON u.session_id = p.id
	GROUP BY p.id
	ORDER BY p.upd DESC, p.id DESC`
}

const listPick = `SELECT s.id, ` + updatedExpr + ` AS upd FROM sessions AS s
	ORDER BY upd DESC, s.id DESC LIMIT ?`

var (
	listQuery = infoQuery(listPick, "s.branch_of")
	// listQueryUnbranched is listQuery for a database no gantry has migrated since
	// an older one wrote it, which only a read-only store sees: it has no
	// branch_of column (migration 4), and no branches.
	listQueryUnbranched = infoQuery(listPick, "''")
	infoOneQuery        = infoQuery(`SELECT s.id, `+updatedExpr+` AS upd FROM sessions AS s
		WHERE s.id = ?`, "s.branch_of")
)

// branchesVersion is the schema version that marks a rewind's branches.
const branchesVersion = 4

// scanInfo reads one row of infoQuery.
func scanInfo(row interface{ Scan(...any) error }) (Info, error) {
	var (
		in               Info
		created, updated int64
	)
	err := row.Scan(&in.ID, &in.Cwd, &in.Title, &in.Parent, &in.BranchOf, &in.Provider, &in.Model, &created, &updated,
		&in.Messages, &in.Turns, &in.Usage.InputTokens, &in.Usage.OutputTokens,
		&in.Usage.CacheReadTokens, &in.Usage.CacheWriteTokens, &in.Cost)
	in.Created, in.Updated = time.Unix(0, created), time.Unix(0, updated)
	return in, err
}

// List returns the most recently updated sessions first (see Info.Updated), at most
// limit of them (all when limit ≤ 0).
func (st *Store) List(limit int) ([]Info, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	q := listQuery
	if st.readOnly {
		var version int
		if err := st.db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
			return nil, fmt.Errorf("session: list: read schema version: %w", err)
		}
		if version < branchesVersion {
			q = listQueryUnbranched
		}
	}
	rows, err := st.db.Query(q, limit)
	if err != nil {
		return nil, st.readError("list", err)
	}
	defer rows.Close()
	var out []Info
	for rows.Next() {
		in, err := scanInfo(rows)
		if err != nil {
			return nil, st.readError("list", err)
		}
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, st.readError("list", err)
	}
	return out, nil
}

// Info returns the stored summary of the session.
func (s *Session) Info() (Info, error) {
	in, err := scanInfo(s.store.db.QueryRow(infoOneQuery, s.id))
	if err != nil {
		return Info{}, fmt.Errorf("session: info: %w", errNoRows(s.id, err))
	}
	return in, nil
}
