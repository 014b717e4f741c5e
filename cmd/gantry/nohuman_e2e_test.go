package main

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// questionTools can only fail where nobody answers.
var questionTools = []string{"ask_user", "enter_plan_mode", "exit_plan_mode"}

// firstToolNames are the names of the tools the first request declared.
func firstToolNames(t *testing.T, srv *fakellm.Server) []string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the model")
	}
	var names []string
	for _, tl := range reqs[0].Body["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	return names
}

// TestPrintModeWithoutAPersonDeclaresNoQuestions: gantry -p without -i has nobody to
// ask, so ask_user and the plan tools are not declared — yet they are known, so a rule
// may name them; with -i (a terminal to ask at) they are declared.
func TestPrintModeWithoutAPersonDeclaresNoQuestions(t *testing.T) {
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("hello")}})
	defer srv.Close()
	r := gantry(t, t.TempDir(), env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k"), "-p", "say hello", "--deny", "ask_user")
	if r.code != 0 {
		t.Fatalf("exit %d (a rule naming ask_user must be accepted): %s", r.code, r.stderr)
	}
	names := firstToolNames(t, srv)
	for _, q := range questionTools {
		if slices.Contains(names, q) {
			t.Errorf("print mode without -i declares %s: %v", q, names)
		}
	}
	if !slices.Contains(names, "bash") || !slices.Contains(names, "read_file") {
		t.Errorf("print mode lacks its ordinary tools: %v", names)
	}

	testenv.Need(t, "script") // -i needs a terminal
	srv = fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("hello")}})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "script", "-qec", binary+" -p 'say hello' --interactive", "/dev/null")
	cmd.Dir, cmd.Env = t.TempDir(), env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=k")
	cmd.Stdin = strings.NewReader("")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	names = firstToolNames(t, srv)
	// exit_plan_mode is declared in plan mode only.
	for _, q := range []string{"ask_user", "enter_plan_mode"} {
		if !slices.Contains(names, q) {
			t.Errorf("print mode with -i lacks %s: %v", q, names)
		}
	}
}
