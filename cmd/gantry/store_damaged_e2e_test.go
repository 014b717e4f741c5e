package main

// End-to-end tests of an empty and a damaged session store (see store_e2e_test.go).

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// An empty sessions.db is a new store: listed, it holds no session; a prompt starts
// the first one in it.
func TestEmptyStoreIsNew(t *testing.T) {
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("the first answer")}})
	defer srv.Close()
	dir := t.TempDir()
	environ := env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=test-key")
	db := filepath.Join(envValue(environ, "GANTRY_DATA_DIR"), "sessions.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if o := gantry(t, dir, environ, "sessions"); o.code != 0 || strings.TrimSpace(o.stdout) != "No sessions yet." || o.stderr != "" {
		t.Errorf("gantry sessions on an empty store: %d %q %q", o.code, o.stdout, o.stderr)
	}
	if o := gantry(t, dir, environ, "-p", "hello"); o.code != 0 || !strings.Contains(o.stdout, "the first answer") {
		t.Errorf("a prompt on an empty store: %d %q %q", o.code, o.stdout, o.stderr)
	}
	if o := gantry(t, dir, environ, "sessions"); o.code != 0 || !strings.Contains(o.stdout, "hello") {
		t.Errorf("gantry sessions after the prompt: %d %q %q", o.code, o.stdout, o.stderr)
	}
}

// A damaged sessions.db stops a prompt, --continue and the listing with one sentence
// naming it and the command that moves it aside; gantry leaves the file as it is.
func TestDamagedStoreSaysWhatToDo(t *testing.T) {
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("an answer in the new store")}})
	defer srv.Close()
	dir := t.TempDir()
	environ := env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=test-key")
	db := filepath.Join(envValue(environ, "GANTRY_DATA_DIR"), "sessions.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		t.Fatal(err)
	}
	junk := bytes.Repeat([]byte("not a database\x00\xff"), 4096)
	if err := os.WriteFile(db, junk, 0o600); err != nil {
		t.Fatal(err)
	}
	want := "gantry: the session store " + db + " is damaged (it is not a SQLite database): move it aside: mv " + db + " " + db + ".broken; gantry starts a new one.\n"
	for _, args := range [][]string{{"-p", "hello"}, {"-p", "-c", "hello"}, {"sessions"}} {
		o := gantry(t, dir, environ, args...)
		if o.code == 0 || o.stderr != want || o.stdout != "" {
			t.Errorf("gantry %s: exit %d, stdout %q, stderr %q, want %q", strings.Join(args, " "), o.code, o.stdout, o.stderr, want)
		}
	}
	if b, err := os.ReadFile(db); err != nil || !bytes.Equal(b, junk) {
		t.Errorf("the damaged store was changed (%v)", err)
	}
	if err := os.Rename(db, db+".broken"); err != nil {
		t.Fatal(err)
	}
	if o := gantry(t, dir, environ, "-p", "hello"); o.code != 0 || !strings.Contains(o.stdout, "an answer in the new store") {
		t.Errorf("a prompt after the store was moved aside: %d %q %q", o.code, o.stdout, o.stderr)
	}
}
