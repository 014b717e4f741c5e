package compact

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

func TestDue(t *testing.T) {
	for _, c := range []struct {
		in        int64
		window    int
		threshold float64
		want      bool
	}{
		{79_999, 100_000, 0, false},
		{80_000, 100_000, 0, true}, // 0 means the default 0.8
		{80_000, 100_000, 0.9, false},
		{90_000, 100_000, 0.9, true},
		{50_000, 100_000, 0.5, true},
		{100_000, 100_000, 1, true},
		{99_999, 100_000, 1, false},
		{80_000, 100_000, 1.5, true}, // out of range: the default
		{80_000, 100_000, -1, true},
		{1 << 40, 0, 0.5, false}, // unknown window: never
		{0, 100_000, 0.5, false},
	} {
		if got := Due(c.in, c.window, c.threshold); got != c.want {
			t.Errorf("Due(%d, %d, %v) = %v, want %v", c.in, c.window, c.threshold, got, c.want)
		}
	}
}

func text(role llm.Role, s string) llm.Message {
	return llm.Message{Role: role, Content: []llm.Block{{Type: llm.BlockText, Text: s}}}
}

func call(id, name, input string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ToolCallID: id, ToolName: name, Input: []byte(input)}}}
}

func result(id, s string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolCallID: id, Text: s}}}
}

// checkValid fails unless msgs is a request any provider takes without tools: text
// blocks only, starting with the user, roles alternating, ending with the user.
func checkValid(t *testing.T, msgs []llm.Message) {
	t.Helper()
	if len(msgs) == 0 || msgs[0].Role != llm.RoleUser || msgs[len(msgs)-1].Role != llm.RoleUser {
		t.Fatalf("messages must start and end with the user: %+v", msgs)
	}
	for i, m := range msgs {
		if i > 0 && m.Role == msgs[i-1].Role {
			t.Errorf("messages %d and %d are both %s", i-1, i, m.Role)
		}
		for _, b := range m.Content {
			if b.Type != llm.BlockText || b.Text == "" {
				t.Errorf("message %d has a %s block (text %q); only text may be sent without tools", i, b.Type, b.Text)
			}
		}
	}
}

func allText(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Text())
		b.WriteString("\n")
	}
	return b.String()
}

func TestSummarize(t *testing.T) {
	p := scripted.New(scripted.Step{Text: "## Goal\nFix the parser.", Usage: llm.Usage{InputTokens: 1234, OutputTokens: 56}})
	in := Input{
		History: []llm.Message{
			text(llm.RoleUser, "Fix the parser in parse.go; do not touch lexer.go."),
			{Role: llm.RoleAssistant, Content: []llm.Block{
				{Type: llm.BlockThinking, Text: "secret reasoning", Signature: "sig"},
				{Type: llm.BlockText, Text: "Reading it."},
				{Type: llm.BlockToolUse, ToolCallID: "c1", ToolName: "read_file", Input: []byte(`{"path":"parse.go"}`)},
			}},
			{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolCallID: "c1", Text: "package parse", IsError: false}}},
			call("c2", "bash", `{"command":"go test ./..."}`),
			{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolCallID: "c2", Text: "parse.go:3: undefined: x", IsError: true}}},
			text(llm.RoleAssistant, "The test fails."),
		},
		Todo:   "1. [in_progress] fix parse.go\n2. [pending] run tests",
		Tasks:  "#1 parser (in_progress)",
		Memory: "Always run gofmt.",
		Focus:  "Keep the test failure.",
	}
	hist, summary, usage, err := Summarize(context.Background(), p, "claude-sonnet-4-5", in)
	if err != nil {
		t.Fatal(err)
	}
	if summary != "## Goal\nFix the parser." {
		t.Errorf("summary = %q", summary)
	}
	if usage.InputTokens != 1234 || usage.OutputTokens != 56 {
		t.Errorf("usage = %+v", usage)
	}

	reqs := p.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	req := reqs[0]
	if len(req.Tools) != 0 {
		t.Errorf("the summary request declares %d tools, want none", len(req.Tools))
	}
	if req.Model != "claude-sonnet-4-5" || req.MaxTokens != MaxSummaryTokens || req.System == "" {
		t.Errorf("request model %q, max tokens %d, system %q", req.Model, req.MaxTokens, req.System)
	}
	checkValid(t, req.Messages)
	sent := allText(req.Messages)
	for _, want := range []string{
		"Fix the parser in parse.go; do not touch lexer.go.",
		`<tool_call name="read_file" id="c1">` + "\n" + `{"path":"parse.go"}`,
		`<tool_result name="bash" id="c2" error="true">` + "\nparse.go:3: undefined: x",
		"The test fails.",
		"## Errors", "Do not invent", // the embedded instruction
		"<focus>\nKeep the test failure.\n</focus>",
		in.Todo, in.Tasks,
	} {
		if !strings.Contains(sent, want) {
			t.Errorf("the request lacks %q:\n%s", want, sent)
		}
	}
	if strings.Contains(sent, "secret reasoning") {
		t.Error("thinking was sent")
	}
	if !strings.HasSuffix(req.Messages[len(req.Messages)-1].Text(), "</focus>") {
		t.Error("the instruction is not the end of the last message")
	}

	if len(hist) != 2 || hist[0].Role != llm.RoleUser || hist[1].Role != llm.RoleAssistant {
		t.Fatalf("new history = %+v", hist)
	}
	got := hist[0].Text()
	if got != Render(summary, in.Todo, in.Tasks, in.Memory) {
		t.Errorf("the summary message is not Render's:\n%s", got)
	}
	for _, want := range []string{summary, in.Todo, in.Tasks, in.Memory} {
		if !strings.Contains(got, want) {
			t.Errorf("the new history lacks %q:\n%s", want, got)
		}
	}
	if hist[1].Text() != Acknowledgement {
		t.Errorf("acknowledgement = %q", hist[1].Text())
	}
}

func TestSummarizeUnansweredCalls(t *testing.T) {
	p := scripted.New(scripted.Step{Text: "summary"})
	history := []llm.Message{
		text(llm.RoleUser, "go"),
		call("c1", "bash", `{"command":"ls"}`),
		result("c1", "a.go"),
		{Role: llm.RoleAssistant, Content: []llm.Block{
			{Type: llm.BlockText, Text: "Now I edit."},
			{Type: llm.BlockToolUse, ToolCallID: "c2", ToolName: "edit", Input: []byte(`{"path":"a.go"}`)},
			{Type: llm.BlockToolUse, ToolCallID: "c3", ToolName: "bash", Input: []byte(`{"command":"go test"}`)},
		}},
	}
	if _, _, _, err := Summarize(context.Background(), p, "m", Input{History: history}); err != nil {
		t.Fatal(err)
	}
	msgs := p.Requests()[0].Messages
	checkValid(t, msgs)
	sent := allText(msgs)
	if n := strings.Count(sent, "never run"); n != 2 {
		t.Errorf("%d calls marked as never run, want 2:\n%s", n, sent)
	}
	if !strings.Contains(sent, `<tool_call name="edit" id="c2">`) || !strings.Contains(sent, "Now I edit.") {
		t.Errorf("the unanswered calls are missing:\n%s", sent)
	}
	if len(history[3].Content) != 3 {
		t.Error("the caller's history was changed")
	}
}

func TestSummarizeOddHistories(t *testing.T) {
	for name, history := range map[string][]llm.Message{
		"starts with the assistant": {text(llm.RoleAssistant, "hello"), text(llm.RoleUser, "hi")},
		"two user messages":         {text(llm.RoleUser, "a"), text(llm.RoleUser, "b")},
		"orphan result":             {text(llm.RoleUser, "a"), result("gone", "out"), text(llm.RoleAssistant, "ok")},
		"empty messages":            {text(llm.RoleUser, "a"), {Role: llm.RoleAssistant}, text(llm.RoleAssistant, " "), text(llm.RoleUser, "b")},
		"image":                     {{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockImage, Images: []llm.Image{{MediaType: "image/png", Data: []byte{1}}}}}}},
	} {
		t.Run(name, func(t *testing.T) {
			p := scripted.New(scripted.Step{Text: "summary"})
			if _, _, _, err := Summarize(context.Background(), p, "m", Input{History: history}); err != nil {
				t.Fatal(err)
			}
			checkValid(t, p.Requests()[0].Messages)
		})
	}
}

func TestSummarizeErrors(t *testing.T) {
	boom := errors.New("boom")
	history := []llm.Message{text(llm.RoleUser, "a"), text(llm.RoleAssistant, "b")}
	for name, c := range map[string]struct {
		step    scripted.Step
		history []llm.Message
		is      error
	}{
		"provider error": {scripted.Step{Err: &llm.APIError{Msg: "overloaded", Cause: boom}}, history, boom},
		"no text":        {scripted.Step{Thinking: "hmm"}, history, nil},
		"blank text":     {scripted.Step{Text: " \n\t"}, history, nil},
		"empty history":  {scripted.Step{Text: "summary"}, nil, nil},
		"only thinking":  {scripted.Step{Text: "summary"}, []llm.Message{{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockThinking, Text: "x"}}}}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			p := scripted.New(c.step)
			hist, summary, _, err := Summarize(context.Background(), p, "m", Input{History: c.history})
			if err == nil {
				t.Fatalf("no error; history %+v, summary %q", hist, summary)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v does not wrap %v", err, c.is)
			}
			if hist != nil || summary != "" {
				t.Errorf("history %+v and summary %q returned with the error", hist, summary)
			}
		})
	}
}

// maxTokens is a provider whose answer stops at its length limit.
type maxTokens struct{}

func (maxTokens) Name() string { return "max-tokens" }
func (maxTokens) Stream(context.Context, llm.Request, func(llm.Delta)) (llm.Response, error) {
	return llm.Response{Message: text(llm.RoleAssistant, "## Goal\nPart"), StopReason: "max_tokens", Usage: llm.Usage{OutputTokens: MaxSummaryTokens}}, nil
}

func TestSummarizeCutSummary(t *testing.T) {
	hist, summary, usage, err := Summarize(context.Background(), maxTokens{}, "m", Input{History: []llm.Message{text(llm.RoleUser, "a")}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(summary, "## Goal\nPart") || !strings.Contains(summary, "cut off") || usage.OutputTokens != MaxSummaryTokens {
		t.Errorf("summary %q, usage %+v", summary, usage)
	}
	if !strings.Contains(hist[0].Text(), summary) {
		t.Error("the new history lacks the summary")
	}
}

func TestContextTokens(t *testing.T) {
	if got := ContextTokens(llm.Usage{InputTokens: 1, OutputTokens: 100, CacheReadTokens: 20, CacheWriteTokens: 300}); got != 321 {
		t.Errorf("ContextTokens = %d, want 321", got)
	}
}

func TestSummarizeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, _, err := Summarize(ctx, scripted.New(scripted.Step{Text: "summary"}), "m", Input{History: []llm.Message{text(llm.RoleUser, "a")}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestRender(t *testing.T) {
	todo := "- [ ] one\n  - nested  \n"
	got := Render("The summary.", todo, "", "")
	want := "This conversation was compacted"
	if !strings.HasPrefix(got, want) {
		t.Errorf("Render starts %.40q", got)
	}
	if !strings.Contains(got, "<summary>\nThe summary.\n</summary>") || !strings.Contains(got, strings.TrimRight(todo, "\n")+"\n</todo>") {
		t.Errorf("Render lacks the summary or the todo list verbatim:\n%s", got)
	}
	if strings.Contains(got, "<tasks>") || strings.Contains(got, "<memory>") {
		t.Errorf("Render shows empty sections:\n%s", got)
	}
	all := Render("S", "T", "K", "M")
	if i, j, k, l := strings.Index(all, "<summary>"), strings.Index(all, "<todo>"), strings.Index(all, "<tasks>"), strings.Index(all, "<memory>"); i >= j || j >= k || k >= l || i < 0 {
		t.Errorf("sections out of order:\n%s", all)
	}
}

func TestInstructionEmbedded(t *testing.T) {
	for _, want := range []string{"## Goal", "## Decisions", "## Files", "## Commands", "## Errors", "## State", "verbatim", "Do not invent"} {
		if !strings.Contains(instruction, want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
}
