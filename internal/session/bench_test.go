package session

import (
	"fmt"
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

// BenchmarkList lists the 30 latest of 3000 sessions, as `gantry sessions` does;
// BenchmarkLast finds the latest of one folder's sessions, as --continue does.
func BenchmarkList(b *testing.B) {
	st := manySessions(b)
	for b.Loop() {
		if l, err := st.List(30); err != nil || len(l) != 30 {
			b.Fatal(len(l), err)
		}
	}
}

func BenchmarkLast(b *testing.B) {
	st := manySessions(b)
	for b.Loop() {
		if _, err := st.Last("/p/7"); err != nil {
			b.Fatal(err)
		}
	}
}

// manySessions fills a store with 3000 sessions in 100 folders, each with a few
// messages, events and usage rows.
func manySessions(b *testing.B) *Store {
	st := openTemp(b)
	for i := range 3000 {
		s := mustCreate(b, st, fmt.Sprintf("/p/%d", i%100))
		for j := range 6 {
			if err := s.AppendMessage(userText("x")); err != nil {
				b.Fatal(err)
			}
			if err := s.AppendEvent("tick", j); err != nil {
				b.Fatal(err)
			}
			if j%2 == 0 {
				if err := s.AddUsage(usage(1, 2), 0.01); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	return st
}

func BenchmarkAppendResponse(b *testing.B) {
	st := openTemp(b)
	s := mustCreate(b, st, "/p")
	m := assistant(llm.Block{Type: llm.BlockText, Text: strings.Repeat("some answer text ", 30)}, call("c1", "bash"))
	for b.Loop() {
		if err := s.AppendResponse(m, llm.Usage{InputTokens: 1000, OutputTokens: 50}, 0.01); err != nil {
			b.Fatal(err)
		}
	}
}
