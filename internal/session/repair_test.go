package session

import (
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
)

func TestRepair(t *testing.T) {
	tests := []struct {
		name     string
		in, want []llm.Message
	}{
		{
			name: "well-formed history is unchanged",
			in:   conversation(),
			want: conversation(),
		},
		{
			name: "trailing tool calls get a user message of synthetic results",
			in:   []llm.Message{userText("go"), assistant(call("a", "bash"), call("b", "grep"))},
			want: []llm.Message{userText("go"), assistant(call("a", "bash"), call("b", "grep")), user(interrupted("a"), interrupted("b"))},
		},
		{
			name: "a partial set of results is completed in call order",
			in: []llm.Message{
				userText("go"),
				assistant(call("a", "read_file"), call("b", "read_file"), call("c", "read_file")),
				user(result("b", "B")),
			},
			want: []llm.Message{
				userText("go"),
				assistant(call("a", "read_file"), call("b", "read_file"), call("c", "read_file")),
				user(interrupted("a"), result("b", "B"), interrupted("c")),
			},
		},
		{
			name: "the next prompt after a crash is merged after the synthetic results",
			in: []llm.Message{
				userText("go"),
				assistant(call("a", "bash")),
				userText("continue"),
			},
			want: []llm.Message{
				userText("go"),
				assistant(call("a", "bash")),
				user(interrupted("a"), llm.Block{Type: llm.BlockText, Text: "continue"}),
			},
		},
		{
			name: "consecutive user messages are merged, results first",
			in: []llm.Message{
				userText("go"),
				assistant(call("a", "bash")),
				user(result("a", "ok")),
				userText("and then"),
				userText("more"),
			},
			want: []llm.Message{
				userText("go"),
				assistant(call("a", "bash")),
				user(result("a", "ok"), llm.Block{Type: llm.BlockText, Text: "and then"}, llm.Block{Type: llm.BlockText, Text: "more"}),
			},
		},
		{
			name: "tool calls followed by another assistant message get a user message between",
			in: []llm.Message{
				userText("go"),
				assistant(call("a", "bash")),
				assistantText("retrying"),
			},
			want: []llm.Message{
				userText("go"),
				assistant(call("a", "bash")),
				user(interrupted("a")),
				assistantText("retrying"),
			},
		},
		{
			name: "results of no call and duplicate results become text",
			in: []llm.Message{
				user(result("x", "stray")),
				assistant(call("a", "bash")),
				user(result("a", "1"), result("a", "2")),
			},
			want: []llm.Message{
				userText("[result of a tool call x that is not in the history]\nstray"),
				assistant(call("a", "bash")),
				user(result("a", "1"), llm.Block{Type: llm.BlockText, Text: "[result of a tool call a that is not in the history]\n2"}),
			},
		},
		{
			name: "empty messages are dropped",
			in:   []llm.Message{userText("go"), {Role: llm.RoleAssistant}, {Role: llm.RoleUser}, assistantText("hi")},
			want: []llm.Message{userText("go"), assistantText("hi")},
		},
		{
			name: "nil history",
			in:   nil,
			want: []llm.Message{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := dump(tc.in)
			got := Repair(tc.in)
			assertMessages(t, got, tc.want)
			if err := validHistory(got); err != nil && tc.name != "nil history" {
				t.Errorf("repaired history is not valid: %v", err)
			}
			if dump(tc.in) != before {
				t.Error("Repair changed its input")
			}
		})
	}
}

func TestMessagesRepairsStoredHistory(t *testing.T) {
	st := openTemp(t)
	s := mustCreate(t, st, "/p")
	stored := []llm.Message{userText("go"), assistant(call("a", "bash"))}
	for _, m := range stored {
		if err := s.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := s.RawMessages()
	if err != nil {
		t.Fatal(err)
	}
	assertMessages(t, raw, stored)
	got, err := s.Messages()
	if err != nil {
		t.Fatal(err)
	}
	assertMessages(t, got, append(stored, user(llm.Block{Type: llm.BlockToolResult, ToolCallID: "a", Text: NotRun, IsError: true})))
}

// A kill in the middle of a batch of calls: the results stored as events come back,
// the call that never finished is marked interrupted.
func TestMessagesRecoversResultsFromEvents(t *testing.T) {
	st := openTemp(t)
	s := mustCreate(t, st, "/w")
	for _, m := range []llm.Message{userText("go"), assistant(call("a", "bash"), call("b", "bash"), call("c", "bash"), call("d", "bash"))} {
		if err := s.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"a", "b"} {
		if err := s.AppendEvent(KindToolRunning, map[string]any{"id": id, "name": "bash"}); err != nil {
			t.Fatal(err)
		}
		if err := s.AppendEvent(KindToolFinished, map[string]any{"id": id, "text": "out " + id, "is_error": id == "b"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AppendEvent(KindToolRunning, map[string]any{"id": "c", "name": "bash"}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resume()
	if err != nil {
		t.Fatal(err)
	}
	got, unfinished := r.Messages, r.Unfinished
	if r.Results == nil || r.Results.Role != llm.RoleUser || len(r.Results.Content) != len(got[len(got)-1].Content) {
		t.Errorf("the results message to store: %+v", r.Results)
	}
	want := []llm.Message{userText("go"), assistant(call("a", "bash"), call("b", "bash"), call("c", "bash"), call("d", "bash")),
		user(result("a", "out a"), llm.Block{Type: llm.BlockToolResult, ToolCallID: "b", Text: "out b", IsError: true},
			llm.Block{Type: llm.BlockToolResult, ToolCallID: "c", Text: MayHaveRun, IsError: true},
			llm.Block{Type: llm.BlockToolResult, ToolCallID: "d", Text: NotRun, IsError: true})}
	assertMessages(t, got, want)
	if len(unfinished) != 2 || unfinished[0].ID != "c" || !unfinished[0].Started || unfinished[1].ID != "d" || unfinished[1].Started {
		t.Errorf("unfinished calls: %+v", unfinished)
	}
}

// A session stored before starts were: its unfinished calls are only "interrupted",
// and listed as started (they may have been).
func TestMessagesOfALegacySession(t *testing.T) {
	st := openTemp(t)
	s := mustCreate(t, st, "/w")
	if _, err := st.db.Exec(`UPDATE sessions SET starts_from = 0 WHERE id = ?`, s.ID()); err != nil {
		t.Fatal(err)
	}
	for _, m := range []llm.Message{userText("go"), assistant(call("a", "bash"))} {
		if err := s.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	r, err := s.Resume()
	if err != nil {
		t.Fatal(err)
	}
	got, unfinished := r.Messages, r.Unfinished
	if r.Results == nil || r.Results.Role != llm.RoleUser || len(r.Results.Content) != len(got[len(got)-1].Content) {
		t.Errorf("the results message to store: %+v", r.Results)
	}
	assertMessages(t, got, []llm.Message{userText("go"), assistant(call("a", "bash")), user(interrupted("a"))})
	if len(unfinished) != 1 || !unfinished[0].Started {
		t.Errorf("unfinished calls: %+v", unfinished)
	}
	// Leased by this gantry, its later messages have their starts stored.
	l, err := s.Lease()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if err := s.AppendMessage(user(interrupted("a"))); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessage(assistant(call("b", "bash"))); err != nil {
		t.Fatal(err)
	}
	r, err = s.Resume()
	if err != nil {
		t.Fatal(err)
	}
	got = r.Messages
	if r := got[len(got)-1].Content[0]; r.Text != NotRun {
		t.Errorf("the call after the lease: %q", r.Text)
	}
}
