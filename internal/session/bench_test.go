package session

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
)

// BenchmarkOpenCreate is the start-up path: open an existing database and start a
// session. Close (a WAL checkpoint, at exit) is timed apart by BenchmarkOpenCreateClose.
func BenchmarkOpenCreate(b *testing.B) {
	path := filepath.Join(b.TempDir(), "sessions.db")
	st, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	for b.Loop() {
		st, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.Create(Meta{Cwd: "/p", Provider: "anthropic", Model: "m"}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
}

func BenchmarkOpenCreateClose(b *testing.B) {
	path := filepath.Join(b.TempDir(), "sessions.db")
	for b.Loop() {
		st, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.Create(Meta{Cwd: "/p"}); err != nil {
			b.Fatal(err)
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenCreateFresh is the very first start: the database is created and migrated.
func BenchmarkOpenCreateFresh(b *testing.B) {
	dir := b.TempDir()
	i := 0
	for b.Loop() {
		i++
		st, err := Open(filepath.Join(dir, strings.Repeat("x", i%50+1), "sessions.db"))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.Create(Meta{Cwd: "/p"}); err != nil {
			b.Fatal(err)
		}
		st.Close()
		b.StopTimer()
		if err := removeAll(filepath.Join(dir, strings.Repeat("x", i%50+1))); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

func BenchmarkAppendMessage(b *testing.B) {
	st := openTemp(b)
	s := mustCreate(b, st, "/p")
	m := assistant(llm.Block{Type: llm.BlockText, Text: strings.Repeat("some answer text ", 30)}, call("c1", "bash"))
	for b.Loop() {
		if err := s.AppendMessage(m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendEvent(b *testing.B) {
	st := openTemp(b)
	s := mustCreate(b, st, "/p")
	payload := map[string]any{"tool": "bash", "input": map[string]string{"command": "go test ./..."}}
	for b.Loop() {
		if err := s.AppendEvent("tool_call", payload); err != nil {
			b.Fatal(err)
		}
	}
}
