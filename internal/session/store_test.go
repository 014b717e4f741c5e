package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDefaultPath(t *testing.T) {
	t.Setenv("GANTRY_DATA_DIR", "/tmp/gd")
	t.Setenv("XDG_DATA_HOME", "/tmp/xdg")
	if got := DefaultPath(); got != "/tmp/gd/sessions.db" {
		t.Errorf("with GANTRY_DATA_DIR: %s", got)
	}
	t.Setenv("GANTRY_DATA_DIR", "")
	if got := DefaultPath(); got != "/tmp/xdg/gantry/sessions.db" {
		t.Errorf("with XDG_DATA_HOME: %s", got)
	}
	t.Setenv("XDG_DATA_HOME", "relative/is/ignored")
	t.Setenv("HOME", "/home/u")
	if got := DefaultPath(); got != "/home/u/.local/share/gantry/sessions.db" {
		t.Errorf("with HOME only: %s", got)
	}
}

func TestOpenCreatesPrivateFilesInWALMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	path := filepath.Join(dir, "sessions.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for p, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode(), want)
		}
	}
	var mode string
	var version, fk int
	if err := st.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if err := st.db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if err := st.db.QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" || version != len(migrations) || fk != 1 {
		t.Errorf("journal_mode %q, user_version %d, foreign_keys %d", mode, version, fk)
	}
}

func TestOpenPathWithSpecialCharacters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dir with space?#%", "s.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Create(Meta{Cwd: "/x"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database not at the given path: %v", err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = Open(path)
	if err == nil {
		st.Close()
		t.Fatal("opened a database of a newer schema")
	}
	if !strings.Contains(err.Error(), "version 99") {
		t.Errorf("error does not say the version: %v", err)
	}
}

func TestCreateAppendReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Create(Meta{Cwd: "/proj", Provider: "anthropic", Model: "m1", Title: "  fix\nthe   bug "})
	if err != nil {
		t.Fatal(err)
	}
	if s.Meta().Title != "fix the bug" {
		t.Errorf("title %q", s.Meta().Title)
	}
	conv := conversation()
	for _, m := range conv {
		if err := s.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AppendEvent("tool_call", map[string]string{"tool": "bash"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddUsage(usage(10, 20), 0.5); err != nil {
		t.Fatal(err)
	}
	if err := s.AddUsage(usage(1, 2), 0.25); err != nil {
		t.Fatal(err)
	}
	if err := s.EndTurn(); err != nil {
		t.Fatal(err)
	}
	id := s.ID()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err = st.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Meta{Cwd: "/proj", Provider: "anthropic", Model: "m1", Title: "fix the bug"}); s.Meta() != want {
		t.Errorf("meta %+v, want %+v", s.Meta(), want)
	}
	got, err := s.Messages()
	if err != nil {
		t.Fatal(err)
	}
	assertMessages(t, got, conv)
	in, err := s.Info()
	if err != nil {
		t.Fatal(err)
	}
	if in.Messages != len(conv) || in.Turns != 1 || in.Usage != usage(11, 22) || in.Cost != 0.75 {
		t.Errorf("info %+v", in)
	}
	evs, err := s.Events()
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].Kind != "tool_call" || string(evs[0].Payload) != `{"tool":"bash"}` {
		t.Errorf("events %+v", evs)
	}
}

func TestEventsFilterByKind(t *testing.T) {
	st := openTemp(t)
	s, err := st.Create(Meta{Cwd: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	for i, k := range []string{"text", "todo", "text", "mode", "todo"} {
		if err := s.AppendEvent(k, i); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.Events()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 5 {
		t.Fatalf("%d events", len(all))
	}
	for i, e := range all {
		if string(e.Payload) != string(rune('0'+i)) {
			t.Errorf("event %d payload %s", i, e.Payload)
		}
		if e.Time.Before(before.Add(-time.Second)) || e.Time.After(time.Now().Add(time.Second)) {
			t.Errorf("event %d time %v", i, e.Time)
		}
		if i > 0 && e.Seq <= all[i-1].Seq {
			t.Errorf("events out of order: %v", all)
		}
	}
	some, err := s.Events("todo", "mode")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range some {
		kinds = append(kinds, e.Kind)
	}
	if strings.Join(kinds, ",") != "todo,mode,todo" {
		t.Errorf("filtered kinds %v", kinds)
	}
	if err := s.AppendEvent("bad", func() {}); err == nil {
		t.Error("a payload that cannot be JSON was accepted")
	}
}

func TestLastPerCwd(t *testing.T) {
	st := openTemp(t)
	if _, err := st.Last("/a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty store: %v", err)
	}
	a1 := mustCreate(t, st, "/a")
	b1 := mustCreate(t, st, "/b")
	a2 := mustCreate(t, st, "/a")
	if s, err := st.Last("/a"); err != nil || s.ID() != a2.ID() {
		t.Errorf("last of /a: %v %v, want the newer", s, err)
	}
	// Writing to the older session makes it the last one.
	if err := a1.AppendMessage(userText("again")); err != nil {
		t.Fatal(err)
	}
	if s, err := st.Last("/a"); err != nil || s.ID() != a1.ID() {
		t.Errorf("last of /a after an append: %v, want %s", s.ID(), a1.ID())
	}
	if s, err := st.Last("/b"); err != nil || s.ID() != b1.ID() {
		t.Errorf("last of /b: %v", err)
	}
	if _, err := st.Last("/c"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown folder: %v", err)
	}
}

func TestList(t *testing.T) {
	st := openTemp(t)
	if l, err := st.List(10); err != nil || len(l) != 0 {
		t.Fatalf("empty store: %v %v", l, err)
	}
	var ids []string
	for i := range 4 {
		s := mustCreate(t, st, "/p")
		for range i {
			if err := s.AppendMessage(userText("x")); err != nil {
				t.Fatal(err)
			}
		}
		ids = append(ids, s.ID())
	}
	// Touch the first one last: it must come first.
	first, err := st.Get(ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := first.SetTitle("latest"); err != nil {
		t.Fatal(err)
	}
	all, err := st.List(0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range all {
		got = append(got, in.ID)
	}
	want := []string{ids[0], ids[3], ids[2], ids[1]}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("order %v, want %v", got, want)
	}
	if all[0].Title != "latest" || all[1].Messages != 3 || all[3].Messages != 1 {
		t.Errorf("infos %+v", all)
	}
	for _, in := range all {
		if in.Created.IsZero() || in.Updated.Before(in.Created) || in.Cwd != "/p" {
			t.Errorf("info %+v", in)
		}
	}
	two, err := st.List(2)
	if err != nil || len(two) != 2 || two[0].ID != ids[0] {
		t.Errorf("limit 2: %v %v", two, err)
	}
}

func TestGetByPrefix(t *testing.T) {
	st := openTemp(t)
	a := mustCreate(t, st, "/p")
	b := mustCreate(t, st, "/p")
	common := 0
	for common < len(a.ID()) && a.ID()[common] == b.ID()[common] {
		common++
	}
	if s, err := st.Get(a.ID()); err != nil || s.ID() != a.ID() {
		t.Errorf("full id: %v", err)
	}
	if s, err := st.Get(strings.ToUpper(a.ID()[:common+1])); err != nil || s.ID() != a.ID() {
		t.Errorf("unique prefix (upper case): %v", err)
	}
	if common > 0 {
		_, err := st.Get(a.ID()[:common])
		if err == nil || !strings.Contains(err.Error(), "ambiguous") || !strings.Contains(err.Error(), b.ID()) {
			t.Errorf("shared prefix: %v", err)
		}
	}
	for _, bad := range []string{"", "zzzzzzzzzz", "a%", "a_", strings.Repeat("0", 40)} {
		if _, err := st.Get(bad); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q): %v, want ErrNotFound", bad, err)
		}
	}
}

func TestIDsSortByTime(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	prev := newID(t0)
	for i := 1; i < 1000; i++ {
		id := newID(t0.Add(time.Duration(i*i) * time.Millisecond))
		if len(id) != idLen || !validPrefix(id) {
			t.Fatalf("bad id %q", id)
		}
		if id <= prev {
			t.Fatalf("%q sorts before %q", id, prev)
		}
		prev = id
	}
	if a, b := newID(t0), newID(t0); a == b {
		t.Error("two ids of the same millisecond are equal")
	}
}

func TestTitle(t *testing.T) {
	long := strings.Repeat("word ", 40)
	got := Title(long)
	if n := len([]rune(got)); n > maxTitle || !strings.HasSuffix(got, "…") || strings.Contains(got, " …") {
		t.Errorf("Title(long) = %q (%d runes)", got, n)
	}
	if got := Title(strings.Repeat("é", 200)); len([]rune(got)) != maxTitle {
		t.Errorf("unbroken text cut to %d runes", len([]rune(got)))
	}
	if got := Title("\n  hello\tworld \n"); got != "hello world" {
		t.Errorf("got %q", got)
	}
}

func TestUpdatesOfAMissingSessionFail(t *testing.T) {
	st := openTemp(t)
	s := &Session{store: st, id: "nosuchsession000000"}
	for name, err := range map[string]error{
		"append":  s.AppendMessage(userText("x")),
		"event":   s.AppendEvent("k", 1),
		"usage":   s.AddUsage(usage(1, 1), 1),
		"title":   s.SetTitle("t"),
		"endturn": s.EndTurn(),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", name, err)
		}
	}
	var n int
	if err := st.db.QueryRow("SELECT (SELECT count(*) FROM messages) + (SELECT count(*) FROM events)").Scan(&n); err != nil || n != 0 {
		t.Errorf("rows written for a missing session: %d %v", n, err)
	}
}

func TestForeignKeysCascade(t *testing.T) {
	st := openTemp(t)
	s := mustCreate(t, st, "/p")
	if err := s.AppendMessage(userText("x")); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEvent("k", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.Exec("DELETE FROM sessions WHERE id = ?", s.ID()); err != nil {
		t.Fatal(err)
	}
	var n int
	row := st.db.QueryRow("SELECT (SELECT count(*) FROM messages) + (SELECT count(*) FROM events)")
	if err := row.Scan(&n); err != nil || n != 0 {
		t.Errorf("rows left after deleting the session: %d %v", n, err)
	}
	_, err := st.db.Exec("INSERT INTO events (session_id, kind, payload, created) VALUES ('gone', 'k', '1', 0)")
	if err == nil {
		t.Error("foreign keys are not enforced")
	}
}
