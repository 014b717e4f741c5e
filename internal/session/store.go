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
	"syscall"
	"time"

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
	// readOnly is a store opened by OpenRead: every write fails.
	readOnly bool
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
	if err := s.initWaiting(context.Background()); err != nil {
		db.Close()
		if d := damaged(path, err); d != nil {
			return nil, d
		}
		return nil, fmt.Errorf("session: open %s: %w", path, err)
	}
	return s, nil
}

// initWaiting is init, tried again while another process holds the database: gantrys
// starting together on a new database all switch it to WAL and migrate it, and SQLite
// answers busy at once, without its busy timeout, to a change of journal mode that
// meets another's lock.
func (s *Store) initWaiting(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Second)
	wait := 5 * time.Millisecond
	for {
		err := s.init(ctx)
		switch code := sqliteCode(err) & 0xff; {
		case err == nil, code != sqlite3.SQLITE_BUSY && code != sqlite3.SQLITE_LOCKED, time.Now().After(deadline):
			return err
		}
		time.Sleep(wait)
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// ErrNoStore is wrapped by OpenRead's error when there is no database yet (no file,
// an empty one, or one gantry never initialised).
var ErrNoStore = errors.New("there is no session database yet")

// errNew is a database OpenRead found uninitialised.
var errNew = errors.New("an uninitialised database")

// OpenRead opens the session database at path for reading only, creating nothing:
// listing sessions works where the data folder cannot be written (a read-only
// mount, a full disk) and while another gantry writes. Every write of the store
// fails with a *WriteError. A database that does not exist wraps ErrNoStore.
func OpenRead(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("session: empty database path")
	}
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("session: %s: %w", path, ErrNoStore)
		}
		return nil, fmt.Errorf("session: %w", err)
	}
	open := func(extra string) (*sql.DB, error) {
		q := url.Values{}
		q.Add("_pragma", "busy_timeout(5000)")
		q.Add("_pragma", "query_only(1)")
		q.Set("mode", "ro")
		if extra != "" {
			q.Set(extra, "1")
		}
		db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(2)
		var version int
		if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
			db.Close()
			return nil, err
		}
		if version == 0 || !hasTables(context.Background(), db) {
			db.Close() // an empty file, or a database gantry never initialised
			return nil, errNew
		}
		if version > len(migrations) {
			db.Close()
			return nil, fmt.Errorf("session database has schema version %d, newer than this gantry knows (%d): upgrade gantry", version, len(migrations))
		}
		return db, nil
	}
	db, err := open("")
	if errors.Is(err, errNew) {
		return nil, fmt.Errorf("session: %s: %w", path, ErrNoStore)
	}
	if err != nil {
		// A WAL database needs its -shm file, which a read-only folder cannot
		// get when no writer has left one: with no writer there, the file does
		// not change, and SQLite may read it as immutable.
		var err2 error
		if db, err2 = open("immutable"); errors.Is(err2, errNew) {
			return nil, fmt.Errorf("session: %s: %w", path, ErrNoStore)
		} else if err2 != nil {
			if d := damaged(path, err); d != nil {
				return nil, d
			}
			return nil, fmt.Errorf("session: open %s for reading: %w", path, err)
		}
	}
	return &Store{db: db, path: path, stmts: map[string]*sql.Stmt{}, nextSeq: map[string]int64{}, readOnly: true}, nil
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
	if s.readOnly {
		return nil, errReadOnlyStore
	}
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

// WriteError is a write the store could not make: the disk is full, the folder is
// read-only, the disk failed. It names the database and says the cause in words.
type WriteError struct {
	Path string
	Op   string // what was being written: "append message", …
	Err  error
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("the session store %s could not be written: %s", e.Path, e.Cause())
}

func (e *WriteError) Unwrap() error { return e.Err }

// Cause says why the write failed, in words.
func (e *WriteError) Cause() string {
	switch sqliteCode(e.Err) & 0xff {
	case sqlite3.SQLITE_FULL:
		return "the disk is full"
	case sqlite3.SQLITE_READONLY:
		return "it is read-only"
	case sqlite3.SQLITE_IOERR:
		return "the disk reported an error (" + e.Err.Error() + ")"
	case sqlite3.SQLITE_CANTOPEN:
		return "its files cannot be opened"
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return "another process kept it locked for too long"
	}
	switch {
	case errors.Is(e.Err, syscall.ENOSPC), errors.Is(e.Err, syscall.EDQUOT):
		return "the disk is full"
	case errors.Is(e.Err, syscall.EROFS), errors.Is(e.Err, syscall.EACCES), errors.Is(e.Err, syscall.EPERM):
		return "it is read-only"
	case errors.Is(e.Err, errReadOnlyStore):
		return "it was opened for reading only"
	}
	return e.Op + ": " + e.Err.Error()
}

var errReadOnlyStore = errors.New("opened for reading only")

// writeError wraps the failure of a write in a *WriteError; a session that does not
// exist stays ErrNotFound.
func (s *Store) writeError(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ErrNotFound) {
		return err
	}
	if d := damaged(s.path, err); d != nil {
		return d
	}
	var we *WriteError
	if errors.As(err, &we) {
		return err
	}
	return &WriteError{Path: s.path, Op: op, Err: err}
}

func (s *Store) readOnlyErr(op string) error {
	return &WriteError{Path: s.path, Op: op, Err: errReadOnlyStore}
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
