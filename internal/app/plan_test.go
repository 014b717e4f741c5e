package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// planApprover approves every plan and records what it was shown; it answers nothing
// else.
type planApprover struct {
	face.NoHuman
	shown []face.PlanRequest
}

func (p *planApprover) ApprovePlan(_ context.Context, req face.PlanRequest) (face.PlanAnswer, error) {
	p.shown = append(p.shown, req)
	return face.PlanAnswer{Approved: true}, nil
}

// sessionRules are the allow rules the session added (an approved plan's).
func sessionRules(a *App) []string {
	allow, _ := a.Rules()
	var out []string
	for _, r := range allow {
		if r.Source == "session" {
			out = append(out, r.String())
		}
	}
	return out
}

// An approved plan's rules hold for its session only: never written to a rules file,
// gone in the next session and in the same one resumed.
func TestPlanRulesHoldForTheSessionOnly(t *testing.T) {
	dir := project(t, "", map[string]string{})
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "p1", Name: "enter_plan_mode", Input: `{}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "p2", Name: "exit_plan_mode", Input: `{"plan":"1. run","allowed_prompts":["bash"]}`}}},
		scripted.Step{Text: "done"},
	)
	ap := &planApprover{}
	a, err := newStarted(Options{Cwd: dir, LLM: m}, func(face.Event) {}, ap)
	if err != nil {
		t.Fatal(err)
	}
	if end := a.Run(context.Background(), "plan it", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	if len(ap.shown) != 1 || len(ap.shown[0].Grants) != 1 || ap.shown[0].Grants[0].Rule != "bash" || ap.shown[0].Grants[0].Warning == "" {
		t.Fatalf("the person was shown %+v", ap.shown)
	}
	if got := sessionRules(a); strings.Join(got, " ") != "bash" {
		t.Fatalf("session rules after approval: %q", got)
	}
	id := a.SessionID()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".gantry", "permissions.yaml")); err == nil && strings.Contains(string(b), "bash") {
		t.Errorf("the plan's rule was saved: %s", b)
	}
	for _, opts := range []Options{{Cwd: dir, LLM: scripted.New()}, {Cwd: dir, LLM: scripted.New(), Resume: id}} {
		b := open(t, opts)
		if got := sessionRules(b); len(got) != 0 {
			t.Errorf("session %s (resume %q) has the plan's rules %q", b.SessionID(), opts.Resume, got)
		}
	}
}
