package session

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations[i] brings the schema from user_version i to i+1. Append only: a released
// migration is never edited, so an old database always finds its way to the newest.
//
// Every write on the hot path (a message, a model response with its usage, an event)
// is one INSERT of one row into a table clustered by session, so that it costs one
// autocommit statement. The usage table holds usage that belongs to no message. What a session's summary shows is derived when it is read: the message
// count is the highest seq (they run 1, 2, 3, … without gaps), usage and cost are sums,
// and the time of the last update is the newest of sessions.updated (set by the rare
// writes: creation, title, end of a turn) and the created time of the session's last
// message, event and usage row.
var migrations = []string{
	// 1: sessions, their messages, events and usage.
	`CREATE TABLE sessions (
		id       TEXT PRIMARY KEY,
		cwd      TEXT NOT NULL,
		provider TEXT NOT NULL DEFAULT '',
		model    TEXT NOT NULL DEFAULT '',
		title    TEXT NOT NULL DEFAULT '',
		created  INTEGER NOT NULL,
		updated  INTEGER NOT NULL,
		turns    INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX sessions_cwd ON sessions (cwd);
	CREATE TABLE messages (
		session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
		seq        INTEGER NOT NULL,
		role       TEXT NOT NULL,
		created    INTEGER NOT NULL,
		-- the usage of a model response (zero for other messages); before body, so
		-- summing them never reads a body's overflow pages
		input_tokens       INTEGER NOT NULL DEFAULT 0,
		output_tokens      INTEGER NOT NULL DEFAULT 0,
		cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
		cache_write_tokens INTEGER NOT NULL DEFAULT 0,
		cost               REAL NOT NULL DEFAULT 0,
		body       TEXT NOT NULL,
		PRIMARY KEY (session_id, seq)
	) WITHOUT ROWID;
	CREATE TABLE events (
		id         INTEGER PRIMARY KEY,
		session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
		kind       TEXT NOT NULL,
		payload    TEXT NOT NULL,
		created    INTEGER NOT NULL
	);
	CREATE INDEX events_session ON events (session_id, id, created); -- covers updatedExpr
	CREATE TABLE usage (
		session_id         TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
		seq                INTEGER NOT NULL,
		input_tokens       INTEGER NOT NULL,
		output_tokens      INTEGER NOT NULL,
		cache_read_tokens  INTEGER NOT NULL,
		cache_write_tokens INTEGER NOT NULL,
		cost               REAL NOT NULL,
		created            INTEGER NOT NULL,
		PRIMARY KEY (session_id, seq)
	) WITHOUT ROWID;`,
	// 2: who runs a session (one writer per session), and from which message on a
	// call's start is stored before it runs (see Session.Resume).
	`CREATE TABLE leases (
		session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
		pid        INTEGER NOT NULL,
		started    INTEGER NOT NULL, -- the holder's start time, in clock ticks after boot (0: unknown)
		boot       TEXT NOT NULL,    -- the boot the holder runs in
		host       TEXT NOT NULL,
		since      INTEGER NOT NULL
	) WITHOUT ROWID;
	ALTER TABLE sessions ADD COLUMN starts_from INTEGER NOT NULL DEFAULT 0;`,
	// 3: the session a worker's session was started from (vibe workers): '' for the
	// sessions people start.
	`ALTER TABLE sessions ADD COLUMN parent TEXT NOT NULL DEFAULT '';`,
	// 4: the session a rewind's branch was cut from (see Session.Branch): '' for the
	// others. --continue passes over a branch until someone goes on in it.
	`ALTER TABLE sessions ADD COLUMN branch_of TEXT NOT NULL DEFAULT '';`,
}

// migrate brings the schema to the newest version. It runs in one immediate
// transaction, so two processes opening a fresh database at once do not both create it.
func migrate(ctx context.Context, db *sql.DB) error {
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version == len(migrations) && hasTables(ctx, db) {
		return nil // the common case: one cheap read on the start-up path
	}
	if version > len(migrations) {
		return fmt.Errorf("session database has schema version %d, newer than this gantry knows (%d): upgrade gantry", version, len(migrations))
	}
	tx, err := db.BeginTx(ctx, nil) // _txlock=immediate: takes the write lock now
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	// Read again under the lock: another process may have migrated meanwhile.
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if !hasTables(ctx, tx) {
		version = 0 // a file with no tables is new, whatever its header says
	}
	if version >= len(migrations) {
		return nil
	}
	for v := version; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migrate session database to version %d: %w", v+1, err)
		}
	}
	// PRAGMA takes no bound parameters; the number is ours.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(migrations))); err != nil {
		return err
	}
	return tx.Commit()
}

// hasTables says whether the database holds any table: one without is new (an empty
// file, or one created by another program), and is initialised.
func hasTables(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) bool {
	var n int
	err := q.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table'").Scan(&n)
	return err != nil || n > 0 // on an error, the queries after this one say what is wrong
}
