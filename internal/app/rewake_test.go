package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// rewakeSettings gives the project a PostToolUse asyncRewake hook on Bash running
// command.
func rewakeSettings(t *testing.T, dir, command string) {
	t.Helper()
	writeClaudeSettings(t, dir, map[string]any{"hooks": map[string]any{
		"PostToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{
			map[string]any{"type": "command", "asyncRewake": true, "timeout": 30, "command": command}}}},
	}})
}

// waitEvent waits until rec has count events that match, and fails the test when
// they do not come within 20 s.
func waitEvent(t *testing.T, rec *recorder, what string, count int, match func(face.Event) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		rec.mu.Lock()
		n := 0
		for _, e := range rec.ev {
			if match(e) {
				n++
			}
		}
		rec.mu.Unlock()
		if n >= count {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 20 s in vain for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func isRewakeNotice(e face.Event) bool {
	n, ok := e.(face.Notice)
	return ok && strings.Contains(n.Text, "asyncRewake")
}

func isTurnEnd(e face.Event) bool { _, ok := e.(face.TurnEnded); return ok }

// A wake that comes while the turn runs goes with the model's next request, after
// the results of that step's calls: the hook of the first call exits 2 while the
// model thinks about its second step (which waits for the wake), and the request
// after the second step's calls carries what the hook wrote, hidden from replays.
func TestRewakeInTurn(t *testing.T) {
	dir := project(t, "", map[string]string{})
	rewakeSettings(t, dir, `grep -q '"echo first"' || exit 0; echo "lint: a.go:3 is broken" >&2; exit 2`)
	rec := &recorder{}
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "c1", Name: "bash", Input: `{"command":"echo first"}`}}},
		scripted.Step{Func: func(llm.Request) scripted.Step {
			waitEvent(t, rec, "the wake", 1, isRewakeNotice)
			return scripted.Step{Calls: []scripted.Call{{ID: "c2", Name: "bash", Input: `{"command":"echo second"}`}}}
		}},
		scripted.Step{Text: "fixed"},
	)
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, rec.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	end := a.Run(context.Background(), "go", nil)
	a.Close()
	if end.StopReason != "end_turn" {
		t.Fatalf("the turn ended with %q (%v)", end.StopReason, end.Err)
	}
	reqs := p.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if s := userText(reqs[1]); strings.Contains(s, "lint:") {
		t.Errorf("the second request already had the wake: %q", s)
	}
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	var wake *llm.Block
	for i, b := range last.Content {
		if strings.Contains(b.Text, "lint: a.go:3 is broken") {
			wake = &last.Content[i]
		}
	}
	if wake == nil || last.Content[0].Type != llm.BlockToolResult {
		t.Fatalf("the third request's last message lacks the wake after the results: %+v", last.Content)
	}
	if !strings.Contains(wake.Text, "PostToolUse hook") || !Added(*wake) {
		t.Errorf("the wake %q does not name its hook or is not hidden from replays", wake.Text)
	}
}

// A wake that comes when no turn runs starts one by itself, as a prompt would: the
// hook waits on a FIFO past the end of the turn (Run does not wait for it), exits 2
// once it is written, and a second turn runs with what it wrote, its events going to
// the face after a notice naming the hook. Nobody submitted that turn's prompt: the
// UserPromptSubmit hook does not run for it.
func TestRewakeStartsTurn(t *testing.T) {
	dir := project(t, "", map[string]string{})
	gate := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	writeClaudeSettings(t, dir, map[string]any{"hooks": map[string]any{
		"PostToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{
			map[string]any{"type": "command", "asyncRewake": true, "timeout": 30, "command": `cat >/dev/null; read x < gate; echo "tests failed: $x" >&2; exit 2`}}}},
		"UserPromptSubmit": []any{map[string]any{"hooks": []any{
			map[string]any{"type": "command", "command": `cat >> prompts.log; echo >> prompts.log`}}}},
	}})
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "c1", Name: "bash", Input: `{"command":"echo hi"}`}}},
		scripted.Step{Text: "first done"},
		scripted.Step{Text: "looking at the tests"},
	)
	rec := &recorder{}
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, rec.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if end := a.Run(context.Background(), "go", nil); end.Text != "first done" {
		t.Fatalf("the first turn ended with %+v", end)
	}
	if err := os.WriteFile(gate, []byte("3 of 10\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, rec, "the woken turn to end", 2, isTurnEnd)
	reqs := p.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if s := userText(reqs[2]); !strings.Contains(s, "tests failed: 3 of 10") || !strings.Contains(s, "asyncRewake") {
		t.Errorf("the woken turn's prompt is %q", s)
	}
	if log, err := os.ReadFile(filepath.Join(dir, "prompts.log")); err != nil || strings.Count(string(log), "\n") != 1 || !strings.Contains(string(log), `"prompt":"go"`) {
		t.Errorf("the UserPromptSubmit hook saw %q (%v), want the person's prompt only", log, err)
	}
	rec.mu.Lock()
	var notice, text int
	for i, e := range rec.ev {
		if isRewakeNotice(e) && notice == 0 {
			notice = i
		}
		if d, ok := e.(face.TextDelta); ok && d.Text == "looking at the tests" {
			text = i
		}
	}
	rec.mu.Unlock()
	if notice == 0 || text < notice {
		t.Errorf("the notice (event %d) does not come before the woken turn's text (event %d)", notice, text)
	}
}

// Close stops an asyncRewake hook that still runs, and nothing is woken; in print
// mode (OnePrompt) a wake that comes after the answer starts no turn.
func TestRewakeClosedAndPrintMode(t *testing.T) {
	for _, print := range []bool{false, true} {
		dir := project(t, "", map[string]string{})
		gate := filepath.Join(dir, "gate")
		if err := syscall.Mkfifo(gate, 0o600); err != nil {
			t.Fatal(err)
		}
		rewakeSettings(t, dir, `cat >/dev/null; read x < gate; echo "woke: $x" >&2; exit 2`)
		p := scripted.New(
			scripted.Step{Calls: []scripted.Call{{ID: "c1", Name: "bash", Input: `{"command":"echo hi"}`}}},
			scripted.Step{Text: "done"},
		)
		rec := &recorder{}
		a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo", OnePrompt: print}, rec.sink, face.NoHuman{})
		if err != nil {
			t.Fatal(err)
		}
		a.Run(context.Background(), "go", nil)
		if print {
			if err := os.WriteFile(gate, []byte("late\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			waitEvent(t, rec, "the wake", 1, isRewakeNotice)
		}
		a.Close()
		if n := len(p.Requests()); n != 2 {
			t.Errorf("print %v: %d requests, want 2", print, n)
		}
		if !print {
			for _, n := range rec.notices() {
				if strings.Contains(n, "asyncRewake") {
					t.Errorf("a stopped hook woke the model: %q", n)
				}
			}
		}
	}
}

// A face stops a turn a wake started with StopWakeTurn (the TUI's esc): the turn
// ends cancelled; with no such turn running, StopWakeTurn does nothing.
func TestRewakeTurnStopped(t *testing.T) {
	dir := project(t, "", map[string]string{})
	gate := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	rewakeSettings(t, dir, `cat >/dev/null; read x < gate; echo "look: $x" >&2; exit 2`)
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "c1", Name: "bash", Input: `{"command":"echo hi"}`}}},
		scripted.Step{Text: "first done"},
		scripted.Step{Text: "thinking it over", BlockUntilCancel: true},
	)
	rec := &recorder{}
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, rec.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.Run(context.Background(), "go", nil)
	if a.StopWakeTurn() {
		t.Error("StopWakeTurn stopped something with no woken turn")
	}
	if err := os.WriteFile(gate, []byte("now\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, rec, "the woken turn's text", 1, func(e face.Event) bool {
		d, ok := e.(face.TextDelta)
		return ok && d.Text == "thinking it over"
	})
	if !a.StopWakeTurn() {
		t.Fatal("StopWakeTurn found no woken turn")
	}
	waitEvent(t, rec, "the woken turn to end", 2, isTurnEnd)
	rec.mu.Lock()
	var last face.TurnEnded
	for _, e := range rec.ev {
		if end, ok := e.(face.TurnEnded); ok {
			last = end
		}
	}
	rec.mu.Unlock()
	if last.StopReason != "cancelled" {
		t.Errorf("the woken turn ended with %q", last.StopReason)
	}
}

// The shape of the security-guidance plugin: a SessionStart hook that declares itself
// async on its first line does not hold the session's start (it waits on a FIFO
// nobody writes, and Close stops it) nor is warned about; an asyncRewake hook's
// rewakeMessage comes before what it wrote in the woken turn's prompt, and its
// rewakeSummary is the notice the person sees.
func TestRewakeMessageAndSummary(t *testing.T) {
	dir := project(t, "", map[string]string{})
	for _, name := range []string{"gate", "never"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeClaudeSettings(t, dir, map[string]any{"hooks": map[string]any{
		"SessionStart": []any{map[string]any{"hooks": []any{
			map[string]any{"type": "command", "timeout": 180, "command": `cat >/dev/null; echo '{"async": true, "asyncTimeout": 180000}'; read x < never`}}}},
		"PostToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{
			map[string]any{"type": "command", "asyncRewake": true, "timeout": 30,
				"rewakeMessage": "Background review: address the findings below.",
				"rewakeSummary": "Review found issues",
				"command":       `cat >/dev/null; read x < gate; echo "finding: $x" >&2; exit 2`}}}},
	}})
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "c1", Name: "bash", Input: `{"command":"echo hi"}`}}},
		scripted.Step{Text: "first done"},
		scripted.Step{Text: "addressing it"},
	)
	rec := &recorder{}
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, rec.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.Run(context.Background(), "go", nil)
	if err := os.WriteFile(filepath.Join(dir, "gate"), []byte("eval of input\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, rec, "the woken turn to end", 2, isTurnEnd)
	reqs := p.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if s := userText(reqs[2]); !strings.Contains(s, "Background review: address the findings below.\nfinding: eval of input") {
		t.Errorf("the woken turn's prompt is %q", s)
	}
	var summary bool
	for _, n := range rec.notices() {
		if strings.HasPrefix(n, "Review found issues (") {
			summary = true
		}
		if strings.Contains(n, "could not be read") || strings.Contains(n, "SessionStart") {
			t.Errorf("notice %q", n)
		}
	}
	if !summary {
		t.Errorf("no notice gives the rewakeSummary: %q", rec.notices())
	}
}

// What an async hook prints in JSON when it ends goes to the model with a later
// request (its additionalContext) and to the person (its systemMessage), and starts
// no turn: the second prompt is the only request after the first turn's.
func TestAsyncHookLater(t *testing.T) {
	dir := project(t, "", map[string]string{})
	writeClaudeSettings(t, dir, map[string]any{"hooks": map[string]any{
		"PostToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{
			map[string]any{"type": "command", "async": true, "command": `cat >/dev/null; echo '{"systemMessage": "linted", "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "a.go is clean"}}'`}}}},
	}})
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "c1", Name: "bash", Input: `{"command":"echo hi"}`}}},
		scripted.Step{Text: "first done"},
		scripted.Step{Text: "second done"},
	)
	rec := &recorder{}
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, rec.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.Run(context.Background(), "go", nil)
	waitEvent(t, rec, "the systemMessage", 1, func(e face.Event) bool {
		n, ok := e.(face.Notice)
		return ok && strings.HasPrefix(n.Text, "linted (the PostToolUse hook")
	})
	a.Run(context.Background(), "again", nil)
	reqs := p.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	raw, err := json.Marshal(reqs[2].Messages)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "a.go is clean"); n != 1 {
		t.Errorf("the conversation has the hook's additionalContext %d times, want once: %s", n, raw)
	}
}
