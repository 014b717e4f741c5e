package fs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

var testOpts = Options{MaxOutput: 30000}

// call decodes args for t as the agent would and runs the call. A decoding refusal comes
// back as an error result, as the agent reports it.
func call(t testing.TB, tl tool.Tool, dir string, args any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return callRaw(t, tl, dir, string(raw))
}

func callRaw(t testing.TB, tl tool.Tool, dir, raw string) tool.Result {
	t.Helper()
	inv, msg := tl.Decode(tool.Env{Cwd: dir}, json.RawMessage(raw))
	if msg != "" {
		return tool.Fail(msg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return inv.Run(ctx)
}

type A = map[string]any

func writeTestFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readTestFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshot is a file's bytes and modification time, to prove it was not touched.
type snapshot struct {
	data  string
	mtime time.Time
}

func snap(t testing.TB, p string) snapshot {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return snapshot{readTestFile(t, p), fi.ModTime()}
}

// backdate sets p's mtime in the past so that any rewrite would show.
func backdate(t testing.TB, p string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
}

func assertUntouched(t testing.TB, p string, before snapshot) {
	t.Helper()
	after := snap(t, p)
	if after.data != before.data {
		t.Fatalf("%s changed:\nbefore %q\nafter  %q", p, before.data, after.data)
	}
	if !after.mtime.Equal(before.mtime) {
		t.Fatalf("%s was rewritten (mtime %v → %v)", p, before.mtime, after.mtime)
	}
}

func wantError(t testing.TB, r tool.Result, substr ...string) {
	t.Helper()
	if !r.IsError {
		t.Fatalf("want an error result, got success:\n%s", r.Text)
	}
	for _, s := range substr {
		if !strings.Contains(r.Text, s) {
			t.Fatalf("error %q does not contain %q", r.Text, s)
		}
	}
}

func wantOK(t testing.TB, r tool.Result) {
	t.Helper()
	if r.IsError {
		t.Fatalf("want success, got error:\n%s", r.Text)
	}
}

// noTempFiles fails when a write left a temporary file in dir.
func noTempFiles(t testing.TB, dir string) {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, ".*.gantry-*.tmp"))
	if len(m) > 0 {
		t.Fatalf("temporary files left: %v", m)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
