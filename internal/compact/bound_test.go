package compact

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

func TestSummarizeBoundsHugeHistory(t *testing.T) {
	const model = "claude-sonnet-4-5" // 200k tokens
	max := budget(model)
	goal := "The goal: " + strings.Repeat("g", 5000)
	history := []llm.Message{text(llm.RoleUser, goal)}
	for i := range 60 {
		id := fmt.Sprintf("c%d", i)
		history = append(history, call(id, "read_file", fmt.Sprintf(`{"path":"f%d.go"}`, i)), result(id, fmt.Sprintf("start %d ", i)+strings.Repeat("x", 20_000)+fmt.Sprintf(" end %d", i)))
	}
	last := "the newest result " + strings.Repeat("y", 20_000)
	history = append(history, call("last", "bash", `{}`), result("last", last))

	p := scripted.New(scripted.Step{Text: "summary"})
	if _, _, _, err := Summarize(context.Background(), p, model, Input{History: history}); err != nil {
		t.Fatal(err)
	}
	msgs := p.Requests()[0].Messages
	checkValid(t, msgs)
	sent := allText(msgs)
	if len(sent) > max+len(instruction)+2000 {
		t.Errorf("sent %d characters, budget %d", len(sent), max)
	}
	for _, want := range []string{goal, last, "start 0 ", " end 0", "characters cut from the middle", "Note: the conversation was too long"} {
		if !strings.Contains(sent, want) {
			t.Errorf("the request lacks %.60q", want)
		}
	}
	if strings.Contains(sent, "left out") {
		t.Error("turns were dropped though cutting results was enough")
	}
	if len(history[2].Content[0].Text) < 20_000 {
		t.Error("the caller's history was changed")
	}
}

func TestBoundDropsTurns(t *testing.T) {
	var history []llm.Message
	for i := range 20 {
		history = append(history, text(llm.RoleUser, fmt.Sprintf("prompt %d %s", i, strings.Repeat("p", 100))), text(llm.RoleAssistant, fmt.Sprintf("answer %d", i)))
	}
	turns := transcript(history)
	out, c := bound(turns, 1000)
	if size(out) > 1000 {
		t.Errorf("bounded to %d characters, want at most 1000", size(out))
	}
	if c.dropped == 0 || c.dropped%2 != 0 || len(out) != len(turns)-c.dropped {
		t.Errorf("dropped %d turns of %d, %d left", c.dropped, len(turns), len(out))
	}
	msgs := messages(out, "summarise")
	checkValid(t, msgs)
	sent := allText(msgs)
	for _, want := range []string{"prompt 0 ", "answer 19", fmt.Sprintf("[%d turns were left out here", c.dropped)} {
		if !strings.Contains(sent, want) {
			t.Errorf("the bounded transcript lacks %q:\n%s", want, sent)
		}
	}
	if !strings.Contains(c.note(), "left out") {
		t.Errorf("note = %q", c.note())
	}
	if len(turns[0].pieces) != 1 {
		t.Error("bound changed its input")
	}
}

func TestMiddleOut(t *testing.T) {
	s := strings.Repeat("é", 50) + strings.Repeat("ü", 50)
	got, ok := middleOut(s, 30)
	if !ok || !strings.HasPrefix(got, strings.Repeat("é", 20)+"\n[… 70 of 100 characters cut") || !strings.HasSuffix(got, "…]\n"+strings.Repeat("ü", 10)) {
		t.Errorf("middleOut = %q, %v", got, ok)
	}
	if got, ok := middleOut("short", 30); ok || got != "short" {
		t.Errorf("middleOut(short) = %q, %v", got, ok)
	}
}
