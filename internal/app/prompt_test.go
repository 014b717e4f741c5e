package app

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// Every tool the system prompt names is one the model can call in the first request
// of a session: declared, not deferred (the dedicated tools it prefers to the shell).
func TestSystemPromptNamesOnlyDeclaredTools(t *testing.T) {
	dir := project(t, "", map[string]string{})
	p := scripted.New(scripted.Step{Text: "ok"})
	a := open(t, Options{Cwd: dir, LLM: p})
	a.Run(context.Background(), "hi", nil)
	req := p.Requests()[0]
	var declared []string
	for _, s := range req.Tools {
		if !s.Defer {
			declared = append(declared, s.Name)
		}
	}
	known := map[string]bool{}
	for _, t := range a.reg.All() {
		known[t.Name()] = true
	}
	named := 0
	// The guidance (its bullets, with their continuation lines): the opening lines speak
	// English ("the task you were given"), not tool names.
	guidance := baseSystem[strings.Index(baseSystem, "\n- "):]
	for _, w := range regexp.MustCompile(`[a-z][a-z_]+`).FindAllString(guidance, -1) {
		if known[w] {
			named++
			if !slices.Contains(declared, w) {
				t.Errorf("the system prompt names %s, which the first request does not declare (%v)", w, declared)
			}
		}
	}
	if named < 8 {
		t.Errorf("the system prompt names %d tools; the test reads it wrong", named)
	}
	if strings.Contains(req.System, "Nobody is at the terminal") != true {
		t.Error("print mode (nobody answers) is not said in the system prompt")
	}
}

// The date is not in the system prompt but told with the first prompt, stored with
// it; a session resumed the same day is not told again, so its requests keep the
// prefix of the first session's: the same system prompt, the same messages.
func TestDateGoesWithThePromptAndThePrefixHoldsAcrossAResume(t *testing.T) {
	dir := project(t, "", map[string]string{})
	p := scripted.New(scripted.Step{Text: "one"})
	a, err := newStarted(Options{Cwd: dir, LLM: p}, func(face.Event) {}, someone{})
	if err != nil {
		t.Fatal(err)
	}
	a.Run(context.Background(), "first", nil)
	id := a.sess.ID()
	a.Close()
	first := p.Requests()[0]
	today := time.Now().Format("2006-01-02")
	if strings.Contains(first.System, today) || strings.Contains(first.System, "Nobody is at the terminal") {
		t.Fatalf("the system prompt holds the date or the print-mode note:\n%s", first.System)
	}
	if got := lastToldDate(first.Messages); got != today {
		t.Fatalf("the first prompt told the date %q, want %q: %+v", got, today, first.Messages)
	}

	p2 := scripted.New(scripted.Step{Text: "two"})
	b, err := newStarted(Options{Cwd: dir, LLM: p2, Resume: id}, func(face.Event) {}, someone{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.Run(context.Background(), "second", nil)
	again := p2.Requests()[0]
	if again.System != first.System {
		t.Errorf("the system prompt changed across the resume")
	}
	if !slices.EqualFunc(first.Tools, again.Tools, func(x, y llm.ToolSpec) bool { return x.Name == y.Name && x.Defer == y.Defer }) {
		t.Errorf("the tools changed across the resume")
	}
	last := again.Messages[len(again.Messages)-1]
	for _, blk := range last.Content {
		if strings.HasPrefix(blk.Text, dateReminder) {
			t.Errorf("told the date again the same day: %+v", last)
		}
	}
	if len(again.Messages) != 3 || again.Messages[0].Content[0].Text != first.Messages[0].Content[0].Text ||
		len(again.Messages[0].Content) != len(first.Messages[0].Content) {
		t.Errorf("the resumed conversation does not start with the first one's messages: %+v", again.Messages)
	}

	// Another day: told once more, with that turn's prompt.
	if blocks := b.reminders(time.Now().AddDate(0, 0, 1)); len(blocks) != 1 || !strings.HasPrefix(blocks[0].Text, dateReminder) {
		t.Errorf("the next day's reminders: %+v", blocks)
	}
}
