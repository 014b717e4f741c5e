package printmode

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
)

// call is what a tool's definition makes faces show of a call.
func call(name, icon, principal string) tool.Call {
	return tool.Call{Name: name, Icon: icon, Principal: principal, Title: name + ": " + principal}
}

func play(p *Printer) Result {
	p.Handle(face.SessionStarted{SessionID: "s1", Model: "m", Cwd: "/w", Tools: []string{"bash"}})
	p.Handle(face.TextDelta{Text: "Let me look."})
	p.Handle(face.ToolStarted{CallID: "1", Call: call("bash", "🛠️", "ls")})
	p.Handle(face.ToolFinished{CallID: "1", Call: call("bash", "🛠️", ""), Result: tool.Result{Text: "a\nb\nc\nd\ne\nf\ng"}})
	p.Handle(face.ToolStarted{CallID: "2", Call: call("read_skill", "📖", "deploy")})
	p.Handle(face.ToolFinished{CallID: "2", Call: call("read_skill", "📖", ""), Result: tool.Result{Text: "# secret skill", Display: tool.Display{Hidden: true}}})
	p.Handle(face.ToolStarted{CallID: "3", Call: call("bash", "🛠️", "true")})
	p.Handle(face.ToolFinished{CallID: "3", Call: call("bash", "🛠️", ""), Result: tool.Result{Text: "(no output)"}})
	p.Handle(face.ToolStarted{CallID: "4", Call: call("bash", "🛠️", "rm -rf /"), Input: []byte(`{"command":"rm -rf /"}`)})
	p.Handle(face.ToolFinished{CallID: "4", Call: call("bash", "🛠️", ""), Refused: true, Result: tool.Result{Text: "refused", IsError: true}})
	p.Handle(face.StepEnded{Step: 1, Counters: face.Counters{Commands: 3, Skills: 1}})
	p.Handle(face.TextDelta{Text: "Done."})
	end := face.TurnEnded{StopReason: "end_turn", Text: "Done.", Steps: 2, Counters: face.Counters{Commands: 3, Skills: 1}}
	p.Handle(end)
	return p.Finish(end)
}

func TestTextFormat(t *testing.T) {
	var b bytes.Buffer
	play(New(&b, Options{Format: FormatText, PreviewLines: 5}))
	want := `Let me look.
🛠️ bash: ls
  a
  b
  c
  d
  e
  … 2 more line(s)
📖 read_skill: deploy
🛠️ bash: true
  (no output)
🛠️ bash: rm -rf /
  refused
Done.
⚙ 3 command(s)  📖 1 skill(s)
`
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestDimWhenColor(t *testing.T) {
	var b bytes.Buffer
	play(New(&b, Options{Format: FormatText, PreviewLines: 1, Color: true}))
	if !strings.Contains(b.String(), "\x1b[2m  a\x1b[0m") {
		t.Fatalf("preview not dimmed: %q", b.String())
	}
}

func TestJSONFormat(t *testing.T) {
	var b bytes.Buffer
	r := play(New(&b, Options{Format: FormatJSON, PreviewLines: 5}))
	var got Result
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, b.String())
	}
	if got.Result != "Done." || got.SessionID != "s1" || got.Turns != 2 || got.IsError || len(got.Denials) != 1 || got.Denials[0].Tool != "bash" || string(got.Denials[0].Input) != `{"command":"rm -rf /"}` {
		t.Fatalf("result %+v", got)
	}
	if r.IsError {
		t.Fatal("end_turn is success")
	}
}

func TestStreamJSONFormat(t *testing.T) {
	var b bytes.Buffer
	play(New(&b, Options{Format: FormatStreamJSON, PreviewLines: 5}))
	var types []string
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		types = append(types, m["type"].(string))
	}
	want := "system text_delta tool_started tool_finished tool_started tool_finished tool_started tool_finished tool_started tool_finished step_ended text_delta turn_ended result"
	if strings.Join(types, " ") != want {
		t.Fatalf("types = %s", strings.Join(types, " "))
	}
}

func TestEditPreviewShowsChangedLinesAndParallelCallsAreNamed(t *testing.T) {
	var b bytes.Buffer
	p := New(&b, Options{Format: FormatText, PreviewLines: 5})
	p.Handle(face.ToolStarted{CallID: "1", Call: call("read_file", "📄", "a.go")})
	p.Handle(face.ToolStarted{CallID: "2", Call: call("read_file", "📄", "b.go")})
	p.Handle(face.ToolFinished{CallID: "1", Call: call("read_file", "📄", ""), Result: tool.Result{Text: "package a"}})
	p.Handle(face.ToolFinished{CallID: "2", Call: call("read_file", "📄", ""), Result: tool.Result{Text: "package b"}})
	p.Handle(face.ToolStarted{CallID: "3", Call: call("edit_file", "✏️", "a.go")})
	p.Handle(face.ToolFinished{CallID: "3", Call: call("edit_file", "✏️", "a.go"), Result: tool.Result{
		Text:    "Applied 1 edit to a.go: +1 -1 lines, first change at line 3.\n\n--- a/a.go\n+++ b/a.go\n@@ -3 +3 @@\n-\treturn a - b\n+\treturn a + b\n",
		Display: tool.Display{Diff: "--- a/a.go\n+++ b/a.go\n@@ -3 +3 @@\n-\treturn a - b\n+\treturn a + b\n"}}})
	p.Flush()
	want := `📄 read_file: a.go
📄 read_file: b.go
  ↳ 📄 read_file: a.go
  package a
  ↳ 📄 read_file: b.go
  package b
✏️ edit_file: a.go
  Applied 1 edit to a.go: +1 -1 lines, first change at line 3.
  -	return a - b
  +	return a + b
`
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// syncBuffer is a bytes.Buffer safe for the printer's flush timer.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestBufferedOutputGoesOutWithinFlushAfter(t *testing.T) {
	var out syncBuffer
	// FlushAfter is long enough that the timer cannot fire between Handle and the
	// check that follows it, even on a loaded machine (at 20 ms it could).
	p := New(&out, Options{Format: FormatText, PreviewLines: 5, FlushAfter: 250 * time.Millisecond})
	p.Handle(face.TextDelta{Text: "hello"})
	if out.String() != "" {
		t.Fatal("written at once despite FlushAfter")
	}
	// No further event comes: the timer alone must write the buffer out.
	deadline := time.Now().Add(10 * time.Second)
	for out.String() != "hello" {
		if time.Now().After(deadline) {
			t.Fatalf("not flushed within 10 s: %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.Handle(face.TextDelta{Text: " world"})
	p.Finish(face.TurnEnded{StopReason: "end_turn"}) // flushes at once and stops the timer
	if out.String() != "hello world\n" {
		t.Fatalf("after Finish: %q", out.String())
	}
}

func TestTodoListAndSubagentLines(t *testing.T) {
	var b bytes.Buffer
	p := New(&b, Options{Format: FormatText, PreviewLines: 5})
	p.Handle(face.TodoList{Items: []face.TodoItem{{ID: "1", Content: "read", Status: "completed"}, {ID: "2", Content: "fix", Status: "in_progress"}, {ID: "3", Content: "test", Status: "pending"}}})
	p.Handle(face.FromSubagent{ID: "sub_1", Label: "find callers", Event: face.ToolStarted{Call: call("grep", "🔍", "Add\\(")}})
	p.Handle(face.FromSubagent{ID: "sub_1", Label: "find callers", Event: face.TextDelta{Text: "hidden"}})
	p.Flush()
	want := "  ☑ read\n  ◐ fix\n  ☐ test\n  ⎿ [find callers] 🔍 grep: Add\\(\n"
	if b.String() != want {
		t.Fatalf("got:\n%q\nwant:\n%q", b.String(), want)
	}
	var j bytes.Buffer
	q := New(&j, Options{Format: FormatStreamJSON})
	q.Handle(face.FromSubagent{ID: "sub_1", Label: "find callers", Event: face.ToolStarted{CallID: "c", Call: call("grep", "🔍", "")}})
	q.Handle(face.TodoList{})
	q.Flush()
	if !strings.Contains(j.String(), `"agent":"find callers","agent_id":"sub_1"`) || !strings.Contains(j.String(), `{"items":[],"type":"todo_list"}`) {
		t.Fatalf("stream-json: %s", j.String())
	}
}

// An answer cut and retried is printed once: the new attempt's text goes on from
// where the failed one stopped, the retry line on the diagnostic stream; a retry
// that says something else is printed whole after a line that says so.
func TestRetriedAnswerIsPrintedOnce(t *testing.T) {
	for _, c := range []struct {
		name   string
		first  []string
		second []string
		want   string
	}{
		{"same answer", []string{"It is", " gan"}, []string{"It ", "is gantry", "."}, "It is gantry.\n"},
		{"another answer", []string{"It is"}, []string{"It was", " gantry."}, "It is\n↻ (the answer again, as the retry gave it:)\nIt was gantry.\n"},
		{"nothing shown before", nil, []string{"Fine."}, "Fine.\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, diag bytes.Buffer
			p := New(&out, Options{Format: FormatText, Diag: &diag})
			for _, s := range c.first {
				p.Handle(face.TextDelta{Text: s})
			}
			p.Handle(face.Retry{Attempt: 1, Reason: "the model's stream went quiet"})
			for _, s := range c.second {
				p.Handle(face.TextDelta{Text: s})
			}
			end := face.TurnEnded{StopReason: "end_turn"}
			p.Handle(end)
			p.Finish(end)
			if out.String() != c.want {
				t.Errorf("out %q, want %q", out.String(), c.want)
			}
			if !strings.Contains(diag.String(), "retrying the model request (attempt 2): the model's stream went quiet") {
				t.Errorf("diag %q", diag.String())
			}
		})
	}
}

// A Brief call (lsp) is one line once it has its result: its title and the result's
// summary; the diagnostics a write introduced show under its preview.
func TestTextBriefCallsAndDiagnostics(t *testing.T) {
	var b bytes.Buffer
	p := New(&b, Options{Format: FormatText, PreviewLines: 5})
	lsp := tool.Call{Name: "lsp", Icon: "🧭", Principal: "a.go", Title: "LSP references of Total at a.go:3", Brief: true}
	p.Handle(face.ToolStarted{CallID: "1", Call: lsp})
	p.Handle(face.ToolFinished{CallID: "1", Call: lsp, Result: tool.Result{Text: "a.go:3: func Total()\nb.go:9: Total()", Display: tool.Display{Note: "2 references in 2 file(s)"}}})
	p.Handle(face.ToolStarted{CallID: "2", Call: lsp})
	p.Handle(face.ToolFinished{CallID: "2", Call: lsp, Result: tool.Result{Text: "a.go:3: func Total()"}})
	p.Handle(face.ToolStarted{CallID: "3", Call: lsp})
	p.Handle(face.ToolFinished{CallID: "3", Call: lsp, Result: tool.Fail("\"Total\" is not on line 3 of a.go, which reads: }")})
	edit := call("edit_file", "✏️", "a.go")
	p.Handle(face.ToolStarted{CallID: "4", Call: edit})
	p.Handle(face.ToolFinished{CallID: "4", Call: edit, Result: tool.Result{Text: "Edited a.go.\n\n" + tool.DiagnosticsHeading + "\na.go:4: error: undefined: x",
		Display: tool.Display{Diff: "--- a/a.go\n+++ b/a.go\n@@ -4 +4 @@\n-y\n+x\n", Diagnostics: []string{"a.go:4: error: undefined: x"}}}})
	end := face.TurnEnded{StopReason: "end_turn"}
	p.Handle(end)
	p.Finish(end)
	want := `🧭 LSP references of Total at a.go:3 → 2 references in 2 file(s)
🧭 LSP references of Total at a.go:3 → a.go:3: func Total()
🧭 LSP references of Total at a.go:3 ✗ "Total" is not on line 3 of a.go, which reads: }
✏️ edit_file: a.go
  Edited a.go.
  -y
  +x
  ⚠ a.go:4: error: undefined: x
`
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// A call that runs source (an eval cell) shows its title, then its code, then its
// output.
func TestTextCodeUnderTheCall(t *testing.T) {
	var b bytes.Buffer
	p := New(&b, Options{Format: FormatText, PreviewLines: 5})
	c := tool.Call{Name: "eval", Icon: "🧪", Principal: "x = 1\nx + 1", Title: "add one to a number (python)", Code: &tool.Code{Lang: "python", Text: "x = 1\nx + 1\n"}}
	p.Handle(face.ToolStarted{CallID: "1", Call: c})
	p.Handle(face.ToolFinished{CallID: "1", Call: c, Result: tool.Result{Text: "→ 2"}})
	end := face.TurnEnded{StopReason: "end_turn"}
	p.Handle(end)
	p.Finish(end)
	want := "🧪 add one to a number (python)\n  │ x = 1\n  │ x + 1\n  → 2\n"
	if b.String() != want {
		t.Fatalf("got:\n%q\nwant:\n%q", b.String(), want)
	}
}
