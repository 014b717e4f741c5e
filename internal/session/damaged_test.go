package session

import (
	"bytes"
	"database/sql"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goodStore is a store at path with one session in it, closed.
func goodStore(t *testing.T, path string) {
	t.Helper()
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s := mustCreate(t, st, "/p")
	if err := s.AppendMessage(userText(strings.Repeat("a long message ", 2000))); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// A file with nothing of gantry's in it — empty, or a SQLite database with no table,
// whatever its schema version says — is a new store: read, it holds no session
// (ErrNoStore); opened, it is initialised.
func TestEmptyStoreIsNew(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"zero bytes", func(t *testing.T, path string) {
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"no tables", func(t *testing.T, path string) { rawSQLite(t, path, "PRAGMA application_id = 7") }},
		{"no tables, a schema version", func(t *testing.T, path string) {
			rawSQLite(t, path, "PRAGMA user_version = 3")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sessions.db")
			c.make(t, path)
			if _, err := OpenRead(path); !errors.Is(err, ErrNoStore) {
				t.Errorf("read: %v, want ErrNoStore", err)
			}
			st, err := Open(path)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer st.Close()
			if list, err := st.List(0); err != nil || len(list) != 0 {
				t.Errorf("list: %v, %v", list, err)
			}
			if _, err := st.Last("/p"); !errors.Is(err, ErrNotFound) {
				t.Errorf("last: %v", err)
			}
			s := mustCreate(t, st, "/p")
			ro, err := OpenRead(path)
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			if list, err := ro.List(0); err != nil || len(list) != 1 || list[0].ID != s.ID() {
				t.Errorf("list after a session: %v, %v", list, err)
			}
		})
	}
}

// rawSQLite makes a SQLite database at path with nothing but what stmt writes.
func rawSQLite(t *testing.T, path, stmt string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmt); err != nil {
		t.Fatal(err)
	}
}

// A damaged store is refused, for reading and for writing, with one sentence naming
// it and saying how to move it aside; it is left as it is; moved aside, the next open
// starts a new store.
func TestDamagedStore(t *testing.T) {
	rnd := rand.New(rand.NewSource(32))
	for _, c := range []struct {
		name, cause string
		damage      func(t *testing.T, path string)
	}{
		{"random bytes", "not a SQLite database", func(t *testing.T, path string) {
			b := make([]byte, 64<<10)
			rnd.Read(b)
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"a text file", "not a SQLite database", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("these are my notes\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"a zeroed header", "not a SQLite database", func(t *testing.T, path string) {
			goodStore(t, path)
			overwrite(t, path, 0, make([]byte, 100))
		}},
		{"a damaged header", "", func(t *testing.T, path string) {
			goodStore(t, path)
			overwrite(t, path, 16, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) // page size and format bytes
		}},
		{"truncated", "malformed", func(t *testing.T, path string) {
			goodStore(t, path)
			if err := os.Truncate(path, 5000); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "my store", "sessions.db")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			c.damage(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			check := func(what string, err error) {
				t.Helper()
				var d *DamagedError
				if !errors.As(err, &d) || d.Path != path {
					t.Fatalf("%s: %v, want a DamagedError", what, err)
				}
				q := "'" + path + "'"
				want := "the session store " + path + " is damaged"
				if msg := err.Error(); !strings.HasPrefix(msg, want) || !strings.Contains(msg, "move it aside: mv "+q+" '"+path+".broken'; gantry starts a new one") ||
					!strings.Contains(msg, c.cause) {
					t.Errorf("%s: %q", what, msg)
				}
			}
			_, err = Open(path)
			check("open", err)
			_, err = OpenRead(path)
			check("read", err)
			if after, err := os.ReadFile(path); err != nil || !bytes.Equal(after, before) {
				t.Errorf("the damaged store was changed (%v)", err)
			}
			// What the sentence says to do.
			if err := os.Rename(path, path+".broken"); err != nil {
				t.Fatal(err)
			}
			st, err := Open(path)
			if err != nil {
				t.Fatalf("a new store after the old was moved aside: %v", err)
			}
			mustCreate(t, st, "/p")
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			if after, err := os.ReadFile(path + ".broken"); err != nil || !bytes.Equal(after, before) {
				t.Errorf("the store moved aside was changed (%v)", err)
			}
		})
	}
}

func overwrite(t *testing.T, path string, at int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(b, at); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/home/a/.local/share/gantry/sessions.db": "/home/a/.local/share/gantry/sessions.db",
		"/tmp/my store/sessions.db":               "'/tmp/my store/sessions.db'",
		"/tmp/it's/s.db":                          `'/tmp/it'\''s/s.db'`,
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// A store damaged inside, past what opening reads, is found by the next read or
// write of the damaged part, which fails with the same sentence.
func TestDamageFoundLater(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s := mustCreate(t, st, "/p")
	for i := 0; i < 200; i++ {
		if err := s.AppendMessage(userText(strings.Repeat("some text ", 100))); err != nil {
			t.Fatal(err)
		}
	}
	id := s.ID()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	// The leaf pages of the messages table, which every read of the session's
	// messages and the next message's write go through.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT pageno, pgsize FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf'`)
	if err != nil {
		t.Fatal(err)
	}
	var pages [][2]int64
	for rows.Next() {
		var p [2]int64
		if err := rows.Scan(&p[0], &p[1]); err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
	}
	if err := errors.Join(rows.Err(), db.Close()); err != nil || len(pages) == 0 {
		t.Fatalf("%d leaf pages (%v)", len(pages), err)
	}
	for _, p := range pages {
		overwrite(t, path, (p[0]-1)*p[1], bytes.Repeat([]byte{0xa5}, int(p[1])))
	}
	if st, err = Open(path); err != nil {
		t.Fatalf("open: %v (opening reads only the schema)", err)
	}
	defer st.Close()
	if s, err = st.Get(id); err == nil { // reads the last seq
		err = s.AppendMessage(userText("one more"))
	}
	var d *DamagedError
	if !errors.As(err, &d) || !strings.Contains(err.Error(), "move it aside: mv "+path) {
		t.Errorf("the session's messages damaged: %v", err)
	}
	if _, err := st.List(0); !errors.As(err, &d) {
		t.Errorf("listing with the messages damaged: %v", err)
	}
}
