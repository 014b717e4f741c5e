package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	"modernc.org/sqlite" // the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrNotFound is returned (wrapped) when no session matches.
var ErrNotFound = errors.New("session not found")

// Store is an open session database.
type Store struct {
	db   *sql.DB
	path string
	// wmu serialises this process's writes: SQLite has one writer at a time anyway,
	// and queueing here is cheaper than SQLite's busy loop. Other processes are
	// waited for by busy_timeout. It also guards the fields below.
	wmu sync.Mutex
	// stmts holds the write statements, prepared on first use.
	stmts map[string]*sql.Stmt
	// nextSeq is the next message sequence number of each session this process has
	// opened, shared by all its Sessions of that id (see AppendMessage).
	nextSeq map[string]int64
}

// pragmas run on every new connection of the pool.
var pragmas = []string{
	"busy_timeout(5000)",
	"foreign_keys(1)",
	"synchronous(NORMAL)",
}

// Open opens (creating it and its folder when needed) the session database at path.
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("session: empty database path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("session: create data folder: %w", err)
	}
	// Create the file ourselves so that it gets mode 0600, not the driver's 0644.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	f.Close()

	q := url.Values{}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("session: open %s: %w", path, err)
	}
	// A small pool: one writer at a time, a few readers beside it (WAL lets them read
	// while a write is in progress).
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)

	s := &Store{db: db, path: path, stmts: map[string]*sql.Stmt{}, nextSeq: map[string]int64{}}
	if err := s.init(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("session: open %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) init(ctx context.Context) error {
	// journal_mode=WAL is stored in the database file: it is set once, and is only a
	// read on every later open.
	var mode string
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("cannot use WAL journal mode (got %q)", mode)
	}
	return migrate(ctx, s.db)
}

// Path returns the database file the store was opened on.
func (s *Store) Path() string { return s.path }

// Close closes the database. Sessions of the store must not be used afterwards.
func (s *Store) Close() error {
	s.wmu.Lock()
	for q, stmt := range s.stmts {
		stmt.Close()
		delete(s.stmts, q)
	}
	s.wmu.Unlock()
	return s.db.Close()
}

// exec runs one write statement on its own (autocommit: it is stored, or not at all,
// and on disk when exec returns). The caller holds wmu, which serialises it with the
// process's other writes. The statement is prepared once per store.
func (s *Store) exec(query string, args ...any) (sql.Result, error) {
	stmt, err := s.prepared(query)
	if err != nil {
		return nil, err
	}
	return stmt.Exec(args...)
}

// prepared returns the store's prepared statement of query. The caller holds wmu.
func (s *Store) prepared(query string) (*sql.Stmt, error) {
	stmt := s.stmts[query]
	if stmt == nil {
		var err error
		if stmt, err = s.db.Prepare(query); err != nil {
			return nil, err
		}
		s.stmts[query] = stmt
	}
	return stmt, nil
}

// sqliteCode returns the extended SQLite result code of err, or 0.
func sqliteCode(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return 0
}

// notFound turns the failure of an INSERT that references session id, when the
// session does not exist, into ErrNotFound.
func notFound(id string, err error) error {
	if sqliteCode(err) == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY {
		return fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	return err
}
