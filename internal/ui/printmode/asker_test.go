package printmode

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
)

func asker(t *testing.T, input string) (*TerminalAsker, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	a := NewTerminalAsker(strings.NewReader(input), &out, nil)
	t.Cleanup(a.Close)
	return a, &out
}

func TestTerminalPermissionAnswers(t *testing.T) {
	for in, want := range map[string]face.Answer{
		"y\n": face.AllowOnce, "a\n": face.AllowAlways, "s\n": face.AllowAlwaysSaved,
		"n\n": face.DenyOnce, "d\n": face.DenyAlways, "what\ny\n": face.AllowOnce, "\n": face.DenyOnce,
	} {
		a, out := asker(t, in)
		got, err := a.AskPermission(context.Background(), face.PermissionRequest{Call: tool.Call{Name: "bash", Icon: "🛠️", Principal: "make"}, Reason: "default mode asks"})
		if err != nil || got != want {
			t.Errorf("%q: got %v, %v; want %v", in, got, err, want)
		}
		if !strings.Contains(out.String(), "🛠️ bash: make — default mode asks") {
			t.Errorf("prompt: %q", out.String())
		}
	}
}

func TestTerminalAskUser(t *testing.T) {
	qs := []face.Question{
		{Question: "Which database?", Options: []face.Option{{Label: "sqlite"}, {Label: "postgres", Description: "server"}}},
		{Header: "Features", Question: "Which?", Options: []face.Option{{Label: "a"}, {Label: "b"}, {Label: "c"}}, MultiSelect: true},
		{Question: "Name?", AllowFreeText: true},
	}
	a, out := asker(t, "7\n2\n1, 3\nmy project\n")
	got, err := a.AskUser(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	if got.Passed || len(got.Answers) != 3 || got.Answers[0][0] != "postgres" || strings.Join(got.Answers[1], "+") != "a+c" || got.Answers[2][0] != "my project" {
		t.Fatalf("answers %+v", got)
	}
	if !strings.Contains(out.String(), "2. postgres — server") || !strings.Contains(out.String(), "[Features] ? Which?") {
		t.Fatalf("card: %s", out.String())
	}
	a, _ = asker(t, "\n")
	if got, err := a.AskUser(context.Background(), qs[:1]); err != nil || !got.Passed {
		t.Fatalf("pass: %+v %v", got, err)
	}
}

func TestTerminalPlanApproval(t *testing.T) {
	a, out := asker(t, "y\n")
	if got, err := a.ApprovePlan(context.Background(), face.PlanRequest{Plan: "1. do it", Grants: []face.PlanGrant{{Rule: "bash", Warning: "allows every command without asking"}}}); err != nil || !got.Approved {
		t.Fatalf("%+v %v", got, err)
	}
	if !strings.Contains(out.String(), "1. do it") || !strings.Contains(out.String(), "  • bash\n    ⚠ allows every command without asking\n") {
		t.Fatal(out.String())
	}
	a, _ = asker(t, "n\nadd tests first\n")
	if got, err := a.ApprovePlan(context.Background(), face.PlanRequest{Plan: "plan"}); err != nil || got.Approved || got.Feedback != "add tests first" {
		t.Fatalf("%+v %v", got, err)
	}
}

func TestTerminalTimeoutAndClosedInput(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	a := NewTerminalAsker(r, io.Discard, nil)
	defer a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := a.ApprovePlan(ctx, face.PlanRequest{Plan: "p"}); err == nil {
		t.Fatal("no error when the time ran out")
	}
	a2, _ := asker(t, "")
	if _, err := a2.AskPermission(context.Background(), face.PermissionRequest{}); err == nil {
		t.Fatal("no error at the end of input")
	}
}
