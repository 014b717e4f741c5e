package hook

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
)

// fakeModel answers prompt hooks with answer (or err) and keeps what it was asked.
type fakeModel struct {
	answer string
	err    error
	wait   bool // wait for the context to end instead of answering

	mu             sync.Mutex
	system, prompt string
}

func (m *fakeModel) ask(ctx context.Context, system, prompt string) (string, error) {
	m.mu.Lock()
	m.system, m.prompt = system, prompt
	m.mu.Unlock()
	if m.wait {
		<-ctx.Done()
		return "", ctx.Err()
	}
	return m.answer, m.err
}

func promptHook(prompt string, timeout int, onFailure string) config.Hook {
	return config.Hook{Type: "prompt", Prompt: prompt, Timeout: timeout, OnFailure: onFailure}
}

func promptRunner(t *testing.T, m *fakeModel, event string, hs ...config.Hook) *Runner {
	b := base(t.TempDir())
	b.Model = m.ask
	return NewRunner(hooks(event, "", hs...), b)
}

// A prompt hook sends its prompt, $ARGUMENTS replaced by the event's JSON, and reads
// Claude Code's {"ok": …} answer: true lets the event go on, false blocks it with the
// reason.
func TestPromptHookOK(t *testing.T) {
	t.Parallel()
	m := &fakeModel{answer: `{"ok": true}`}
	r := promptRunner(t, m, PreToolUse, promptHook("Is this call safe? $ARGUMENTS Answer in JSON.", 0, ""))
	o := r.Run(t.Context(), PreToolUse, "bash", map[string]any{"tool_name": "bash", "tool_input": map[string]any{"command": "ls"}})
	if o.Block || len(o.Warnings) != 0 {
		t.Fatalf("got %+v", o)
	}
	before, rest, ok := strings.Cut(m.prompt, "Is this call safe? ")
	after, _, ok2 := strings.Cut(rest, " Answer in JSON.")
	var in map[string]any
	if !ok || before != "" || !ok2 || json.Unmarshal([]byte(after), &in) != nil || in["tool_name"] != "bash" || in["hook_event_name"] != PreToolUse {
		t.Fatalf("the model was asked %q", m.prompt)
	}
	if !strings.Contains(m.system, `{"ok": false, "reason"`) {
		t.Errorf("system %q", m.system)
	}

	m = &fakeModel{answer: `{"ok": false, "reason": "ls is not allowed today"}`}
	r = promptRunner(t, m, PreToolUse, promptHook("Is this call safe?", 0, ""))
	o = r.Run(t.Context(), PreToolUse, "bash", map[string]any{"tool_name": "bash"})
	if !o.Block || o.Reason != "ls is not allowed today" {
		t.Fatalf("got %+v", o)
	}
	if !strings.HasPrefix(m.prompt, "Is this call safe?\n\n{") { // no $ARGUMENTS: the JSON follows
		t.Errorf("the model was asked %q", m.prompt)
	}
}

// The answer may also be a command hook's JSON, in a code fence or after a sentence.
func TestPromptHookCommandShapedAnswer(t *testing.T) {
	t.Parallel()
	for answer, want := range map[string]Outcome{
		"Here you are:\n```json\n{\"decision\": \"block\", \"reason\": \"tests fail\"}\n```": {Block: true, Reason: "tests fail"},
		`{"decision": "approve"}`: {Allow: true},
		`{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}`: {Block: true, Reason: "no"},
		`{"additionalContext": "mind the tests"}`:                                                  {AdditionalContext: "mind the tests"},
	} {
		r := promptRunner(t, &fakeModel{answer: answer}, PreToolUse, promptHook("Judge", 0, ""))
		o := r.Run(t.Context(), PreToolUse, "bash", nil)
		if o.Block != want.Block || o.Reason != want.Reason || o.Allow != want.Allow || o.AdditionalContext != want.AdditionalContext || len(o.Warnings) != 0 {
			t.Errorf("%q: got %+v", answer, o)
		}
	}
}

// A model that fails, answers no JSON object or does not answer within the hook's
// timeout fails the hook: a warning, or a block under onFailure: block; a session
// without a model the same.
func TestPromptHookFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		m    *fakeModel
		want string
	}{
		{&fakeModel{err: errors.New("overloaded")}, "the model could not be asked (overloaded)"},
		{&fakeModel{answer: "Sure, go ahead."}, `the model answered no JSON object ("Sure, go ahead.")`},
		{&fakeModel{wait: true}, "had no answer from the model within its timeout of 1s"},
	}
	for _, c := range cases {
		start := time.Now()
		o := promptRunner(t, c.m, Stop, promptHook("Done?", 1, "")).Run(t.Context(), Stop, "", nil)
		within(t, start, 5*time.Second)
		if o.Block || len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], c.want) || !strings.Contains(o.Warnings[0], `Stop prompt hook "Done?"`) {
			t.Errorf("%+v: got %+v", c.m, o)
		}
		o = promptRunner(t, c.m, Stop, promptHook("Done?", 1, "block")).Run(t.Context(), Stop, "", nil)
		if !o.Block || !strings.Contains(o.Reason, c.want) || !strings.Contains(o.Reason, "onFailure is block") {
			t.Errorf("%+v with onFailure block: got %+v", c.m, o)
		}
	}
	o := NewRunner(hooks(Stop, "", promptHook("Done?", 0, "")), base(t.TempDir())).Run(t.Context(), Stop, "", nil)
	if o.Block || len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "no model to ask") {
		t.Errorf("no model: got %+v", o)
	}
}

// Cancelling the call stops a prompt hook waiting for the model, and blocks.
func TestPromptHookCancelled(t *testing.T) {
	t.Parallel()
	m := &fakeModel{wait: true}
	r := promptRunner(t, m, PreToolUse, promptHook("Judge", 30, ""))
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	o := r.Run(ctx, PreToolUse, "bash", nil)
	within(t, start, 5*time.Second)
	if !o.Block || !strings.Contains(o.Reason, "cancelled") {
		t.Fatalf("got %+v", o)
	}
}

// A prompt hook without a timeout has 30 seconds; it lists as a prompt.
func TestPromptHookDefaults(t *testing.T) {
	t.Parallel()
	r := promptRunner(t, &fakeModel{}, Stop, promptHook("Done?", 0, ""))
	l := r.List()
	if len(l) != 1 || l[0].Timeout != DefaultPromptTimeout || l[0].Type != TypePrompt || l[0].What() != "prompt: Done?" {
		t.Fatalf("List = %+v", l)
	}
}
