package main

// In-process tests of the bounds (bounds.go, outputschema.go) with the scripted
// model: what the model is sent, and how a run ends; bounds_e2e_test.go runs the
// binary.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// scriptedRun starts an App on the scripted model m under the bounds l, in a private
// environment, as print mode starts one; the context is l's.
func scriptedRun(t *testing.T, l *limits, m *scripted.Provider) (context.Context, *app.App, string) {
	t.Helper()
	home, work := t.TempDir(), t.TempDir()
	for k, v := range map[string]string{
		"GANTRY_CONFIG_DIR": filepath.Join(home, "config"), "GANTRY_DATA_DIR": filepath.Join(home, "data"),
		"CLAUDE_CONFIG_DIR": filepath.Join(home, "claude"), "HOME": home,
		"GANTRY_PROVIDER": "", "GANTRY_MODEL": "", "ANTHROPIC_API_KEY": "test", "OPENAI_API_KEY": "",
	} {
		t.Setenv(k, v)
	}
	ctx, stop := l.bind(context.Background())
	t.Cleanup(stop)
	opts := l.runOptions(app.Options{Cwd: work, LLM: m, PermissionMode: "yolo", OnePrompt: true})
	a, err := app.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		a.EndSession(app.EndOther)
		if err := a.Close(); err != nil {
			t.Error(err)
		}
	})
	if err := a.Start(ctx, l.watch, face.NoHuman{}); err != nil {
		t.Fatal(err)
	}
	return ctx, a, work
}

// withSchema is limits with testSchema as --output-schema.
func withSchema(t *testing.T) *limits {
	t.Helper()
	l := &limits{outputSchema: schemaFile(t)}
	if err := l.check(); err != nil {
		t.Fatal(err)
	}
	return l
}

// lastText is the text of a request's last message.
func lastText(req llm.Request) string {
	return req.Messages[len(req.Messages)-1].Text()
}

func TestScriptedSchemaConformsFirstTime(t *testing.T) {
	l := withSchema(t)
	m := scripted.New(scripted.Step{Text: `{"name": "a", "count": 1}`})
	ctx, a, _ := scriptedRun(t, l, m)
	end, answer := l.run(ctx, a, "describe")
	if end.StopReason != "end_turn" || string(answer) != `{"name":"a","count":1}` {
		t.Fatalf("%s %v: %s", end.StopReason, end.Err, answer)
	}
	reqs := m.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].System, "<output-schema>") || !strings.Contains(reqs[0].System, `"required":["name","count"]`) {
		t.Errorf("%d requests; the system prompt does not give the schema:\n%s", len(reqs), reqs[0].System)
	}
}

func TestScriptedSchemaFixedOnRetry(t *testing.T) {
	l := withSchema(t)
	m := scripted.New(scripted.Step{Text: `{"name": "a", "count": "one"}`}, scripted.Step{Text: "```json\n{\"name\": \"a\", \"count\": 1}\n```"})
	ctx, a, _ := scriptedRun(t, l, m)
	end, answer := l.run(ctx, a, "describe")
	if end.StopReason != "end_turn" || string(answer) != `{"name":"a","count":1}` || end.Steps != 2 {
		t.Fatalf("%s (%d steps) %v: %s", end.StopReason, end.Steps, end.Err, answer)
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if retry := lastText(reqs[1]); !strings.Contains(retry, "does not conform to the output schema") || !strings.Contains(retry, `/properties/count: type: one has type "string", want "integer"`) {
		t.Errorf("the retry does not name the error: %s", retry)
	}
	if reqs[1].System != reqs[0].System {
		t.Error("the retry's system prompt changed: the prompt cache would miss")
	}
}

func TestScriptedSchemaFailingTwice(t *testing.T) {
	l := withSchema(t)
	m := scripted.New(scripted.Step{Text: "no"}, scripted.Step{Text: `{"name": "a"}`}, scripted.Step{Text: "never asked"})
	ctx, a, _ := scriptedRun(t, l, m)
	end, answer := l.run(ctx, a, "describe")
	if end.StopReason != stopBadOutput || answer != nil || !strings.Contains(end.Err.Error(), `missing properties: ["count"]`) {
		t.Fatalf("%s %v: %s", end.StopReason, end.Err, answer)
	}
	if n := len(m.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestScriptedCostBoundAfterTheSecondResponse(t *testing.T) {
	l := &limits{maxCost: 0.5}
	costly := llm.Usage{InputTokens: 100_000} // $0.30 on the default model
	m := scripted.New(
		scripted.Step{Usage: costly, Calls: []scripted.Call{{ID: "1", Name: "bash", Input: `{"command":"touch one"}`}}},
		scripted.Step{Usage: costly, Calls: []scripted.Call{{ID: "2", Name: "bash", Input: `{"command":"touch two"}`}}},
		scripted.Step{Usage: costly, Text: "never asked"})
	ctx, a, work := scriptedRun(t, l, m)
	end, _ := l.run(ctx, a, "work")
	if end.StopReason != stopMaxCost || !strings.Contains(end.Err.Error(), "spent $0.6000, more than --max-cost $0.5") {
		t.Fatalf("%s: %v", end.StopReason, end.Err)
	}
	if n := len(m.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	if _, err := os.Stat(filepath.Join(work, "one")); err != nil {
		t.Error("the first call, under the bound, did not run")
	}
	if _, err := os.Stat(filepath.Join(work, "two")); err == nil {
		t.Error("the call of the response past the bound ran")
	}
}
