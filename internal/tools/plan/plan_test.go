package plan

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

func TestDeclarations(t *testing.T) {
	_, enter, exit := tools(permission.ModeDefault, face.NoHuman{})
	for name, tl := range map[string]tool.Tool{"enter_plan_mode": enter, "exit_plan_mode": exit} {
		if tl.Name() != name || tl.Level() != tool.LevelRead || tl.Kind() != tool.KindSwitchMode {
			t.Errorf("%s is %s, level %s, kind %s", name, tl.Name(), tl.Level(), tl.Kind())
		}
		if !strings.Contains(tl.Spec().Description, "exit_plan_mode") {
			t.Errorf("%s: description %q", name, tl.Spec().Description)
		}
	}
	var schema struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(exit.Spec().Schema, &schema); err != nil || len(schema.Required) != 1 || schema.Required[0] != "plan" {
		t.Errorf("exit_plan_mode requires %v (%v), want only plan", schema.Required, err)
	}
	if !strings.Contains(string(exit.Spec().Schema), `"allowed_prompts"`) || strings.Contains(string(exit.Spec().Schema), "allowedPrompts") {
		t.Errorf("exit_plan_mode schema lacks allowed_prompts, or names the former allowedPrompts: %s", exit.Spec().Schema)
	}
}

func TestExitRefusesBadArguments(t *testing.T) {
	_, _, exit := tools(permission.ModePlan, verdict(true, ""))
	for args, want := range map[string]string{
		`{}`:              `needs the argument "plan"`,
		`{"plan":" \n "}`: "`plan` is empty",
		`{"plan":"p","allowed_prompts":["x",""]}`:                      "`allowed_prompts[1]` is empty",
		`{"plan":"p","allowed_prompts":"bash"}`:                        `"allowed_prompts" must be an array`,
		`{"plan":"p","allowed_prompts":[{"tool":"Bash"}]}`:             `needs the argument "allowed_prompts[0].prompt"`,
		`{"plan":"p","allowed_prompts":[{"tool":"Bash","prompt":""}]}`: "`allowed_prompts[0]` is empty",
		`{"plan":"p","allowed_prompts":[1]}`:                           `"allowed_prompts[0]" must be a string or an object, not 1`,
	} {
		if _, msg := exit.Decode(tool.Env{}, json.RawMessage(args)); !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
			t.Errorf("Decode(%s) = %q, want one line with %q", args, msg, want)
		}
	}
	inv, _ := exit.Decode(tool.Env{}, json.RawMessage(planArgs))
	if inv.Principal != "# Add a cache" {
		t.Errorf("principal = %q, want the plan's first line", inv.Principal)
	}
}

func TestEnterThenExitApproved(t *testing.T) {
	a := verdict(true, "")
	s, enter, exit := tools(permission.ModeAcceptEdits, a)
	r := run(t, context.Background(), enter, `{}`)
	if r.IsError || s.Mode() != permission.ModePlan || !strings.Contains(r.Text, "only read tools") || !strings.Contains(r.Text, "exit_plan_mode") {
		t.Fatalf("enter: mode %s, result %+v", s.Mode(), r)
	}
	r = run(t, context.Background(), exit, planArgs)
	if a.plan != "\n# Add a cache\n1. write cache.go\n2. go test ./..." {
		t.Errorf("the face was shown %q", a.plan)
	}
	if s.Mode() != permission.ModeAcceptEdits {
		t.Errorf("mode after approval = %s, want accept-edits restored", s.Mode())
	}
	if strings.Join(s.rules, " | ") != "bash:go test .* | write_file" {
		t.Errorf("session rules = %q", s.rules)
	}
	for _, want := range []string{"approved", "accept-edits mode", "write and exec tools are available again", "`bash:go test .*`, `write_file`"} {
		if r.IsError || !strings.Contains(r.Text, want) {
			t.Errorf("result %+v lacks %q", r, want)
		}
	}
}

func TestApprovedWithBadRule(t *testing.T) {
	s, enter, exit := tools(permission.ModeYolo, verdict(true, "keep the tests short"))
	run(t, context.Background(), enter, `{}`)
	r := run(t, context.Background(), exit, `{"plan":"p","allowed_prompts":["bash:make","badtool:x","read_file"]}`)
	if s.Mode() != permission.ModeYolo {
		t.Errorf("a bad rule must not keep the session in plan mode: mode %s", s.Mode())
	}
	if strings.Join(s.rules, " | ") != "bash:make | read_file" {
		t.Errorf("the good rules must still be added: %q", s.rules)
	}
	for _, want := range []string{`The rule "badtool:x" was refused`, `unknown tool "badtool"`, "`bash:make`, `read_file`", "The user added: keep the tests short"} {
		if r.IsError || !strings.Contains(r.Text, want) {
			t.Errorf("result %+v lacks %q", r, want)
		}
	}
}

func TestRejectedStaysInPlanMode(t *testing.T) {
	s, enter, exit := tools(permission.ModeDefault, verdict(false, "use the existing LRU instead"))
	run(t, context.Background(), enter, `{}`)
	r := run(t, context.Background(), exit, planArgs)
	if s.Mode() != permission.ModePlan || len(s.rules) != 0 {
		t.Errorf("after a rejection: mode %s, rules %q", s.Mode(), s.rules)
	}
	for _, want := range []string{"stays in plan mode", "Their feedback: use the existing LRU instead", "Revise the plan"} {
		if r.IsError || !strings.Contains(r.Text, want) {
			t.Errorf("a rejection is a result, not an error, and %+v must contain %q", r, want)
		}
	}
}

func TestRejectedThenApprovedRestoresTheEarlierMode(t *testing.T) {
	a := verdict(false, "smaller steps")
	s, enter, exit := tools(permission.ModeAcceptEdits, a)
	run(t, context.Background(), enter, `{}`)
	run(t, context.Background(), exit, planArgs)
	a.verdict = verdict(true, "").verdict
	run(t, context.Background(), exit, planArgs)
	if s.Mode() != permission.ModeAcceptEdits {
		t.Fatalf("mode = %s, want accept-edits: a rejection keeps the remembered mode", s.Mode())
	}
}

func TestRejectedWithoutFeedback(t *testing.T) {
	s, _, exit := tools(permission.ModePlan, verdict(false, " "))
	r := run(t, context.Background(), exit, planArgs)
	if r.IsError || s.Mode() != permission.ModePlan || !strings.Contains(r.Text, "no reason") {
		t.Fatalf("mode %s, result %+v", s.Mode(), r)
	}
}

func TestExitWhenNotInPlanMode(t *testing.T) {
	a := verdict(true, "")
	s, _, exit := tools(permission.ModeDefault, a)
	r := run(t, context.Background(), exit, planArgs)
	if !r.IsError || !strings.Contains(r.Text, "not in plan mode (it is in default mode)") || strings.Contains(r.Text, "\n") {
		t.Fatalf("result = %+v", r)
	}
	if a.plan != "" || s.Mode() != permission.ModeDefault || len(s.rules) != 0 {
		t.Errorf("nothing may happen: plan shown %q, mode %s, rules %q", a.plan, s.Mode(), s.rules)
	}
}

func TestExitWithNoHuman(t *testing.T) {
	s, enter, exit := tools(permission.ModeDefault, face.NoHuman{})
	run(t, context.Background(), enter, `{}`)
	r := run(t, context.Background(), exit, planArgs)
	if s.Mode() != permission.ModePlan || len(s.rules) != 0 {
		t.Errorf("with no human: mode %s, rules %q", s.Mode(), s.rules)
	}
	for _, want := range []string{"Nobody can approve", "stays in plan mode", "--permission-mode default"} {
		if !r.IsError || !strings.Contains(r.Text, want) || strings.Contains(r.Text, "\n") {
			t.Errorf("result %+v: want one error sentence with %q", r, want)
		}
	}
}

func TestExitCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	a := &fakeAsker{verdict: func(ctx context.Context) (face.PlanAnswer, error) {
		cancel()
		<-ctx.Done()
		return face.PlanAnswer{}, ctx.Err()
	}}
	s, _, exit := tools(permission.ModePlan, a)
	if r := run(t, ctx, exit, planArgs); !r.IsError || r.Text != "cancelled" || s.Mode() != permission.ModePlan {
		t.Fatalf("mode %s, result %+v", s.Mode(), r)
	}
}

func TestExitFaceFault(t *testing.T) {
	a := &fakeAsker{verdict: func(context.Context) (face.PlanAnswer, error) {
		return face.PlanAnswer{}, errors.New("client gone")
	}}
	s, _, exit := tools(permission.ModePlan, a)
	if r := run(t, context.Background(), exit, planArgs); !r.IsError || !strings.Contains(r.Text, "client gone") || s.Mode() != permission.ModePlan {
		t.Fatalf("mode %s, result %+v", s.Mode(), r)
	}
}

func TestStartedInPlanModeRestoresDefault(t *testing.T) {
	s, enter, exit := tools(permission.ModePlan, verdict(true, ""))
	if r := run(t, context.Background(), enter, `{}`); r.IsError || !strings.Contains(r.Text, "already in plan mode") {
		t.Fatalf("enter in plan mode: %+v", r)
	}
	run(t, context.Background(), exit, planArgs)
	if s.Mode() != permission.ModeDefault {
		t.Fatalf("mode = %s, want default when the earlier mode is unknown", s.Mode())
	}
}

func TestEnterTwiceKeepsTheFirstMode(t *testing.T) {
	s, enter, exit := tools(permission.ModeYolo, verdict(true, ""))
	run(t, context.Background(), enter, `{}`)
	run(t, context.Background(), enter, `{}`)
	run(t, context.Background(), exit, planArgs)
	if s.Mode() != permission.ModeYolo {
		t.Fatalf("mode = %s, want yolo", s.Mode())
	}
	// A later plan-mode round starts afresh: the session is switched by hand to plan mode.
	s.SetMode(permission.ModePlan)
	run(t, context.Background(), exit, planArgs)
	if s.Mode() != permission.ModeDefault {
		t.Fatalf("mode = %s, want default: the remembered mode is used once", s.Mode())
	}
}

func TestModeChosenDuringApprovalStands(t *testing.T) {
	a := verdict(true, "")
	s, enter, exit := tools(permission.ModeDefault, a)
	run(t, context.Background(), enter, `{}`)
	a.before = func() { s.SetMode(permission.ModeAcceptEdits) } // the person switches mode meanwhile
	r := run(t, context.Background(), exit, planArgs)
	if s.Mode() != permission.ModeAcceptEdits || !strings.Contains(r.Text, "accept-edits mode") {
		t.Fatalf("mode %s, result %+v", s.Mode(), r)
	}
}

func TestBroadRuleIsShownWithItsWarning(t *testing.T) {
	a := verdict(true, "")
	s, _, exit := tools(permission.ModePlan, a)
	r := run(t, context.Background(), exit, `{"plan":"1. do it","allowed_prompts":["bash","*","bash:.*","bash:go test .*","write_file:src/.*"]}`)
	want := map[string]string{
		"bash":              "allows every command without asking",
		"*":                 "allows every call of every tool",
		"bash:.*":           "allows every command without asking",
		"bash:go test .*":   "",
		"write_file:src/.*": "",
	}
	if len(a.req.Grants) != len(want) {
		t.Fatalf("the request grants %+v", a.req.Grants)
	}
	for _, g := range a.req.Grants {
		if w := want[g.Rule]; !strings.Contains(g.Warning, w) || (w == "") != (g.Warning == "") {
			t.Errorf("grant %q has the warning %q, want %q", g.Rule, g.Warning, w)
		}
	}
	lines := strings.Join(a.req.GrantLines(), "\n")
	for _, w := range []string{"for this session only", "  • bash\n    ⚠ allows every command without asking", "  • bash:go test .*"} {
		if !strings.Contains(lines, w) {
			t.Errorf("the lines shown lack %q:\n%s", w, lines)
		}
	}
	if len(s.rules) != 5 || !strings.Contains(r.Text, "`bash` (allows every command without asking)") {
		t.Errorf("rules %q, result %q", s.rules, r.Text)
	}
}

func TestClaudeObjectForm(t *testing.T) {
	a := verdict(true, "")
	s, _, exit := tools(permission.ModePlan, a)
	r := run(t, context.Background(), exit, `{"plan":"1. do it","allowed_prompts":[
		{"tool":"Bash","prompt":"go test ./..."},
		{"tool":"Bash","prompt":"run tests"},
		{"tool":"Bash","prompt":"install dependencies"},
		{"tool":"Edit","prompt":"edit the config files"},
		"write_file"]}`)
	var rules []string
	for _, g := range a.req.Grants {
		rules = append(rules, g.Rule+" from "+g.From)
	}
	if got := strings.Join(rules, " | "); got != "bash:go test( .*)? from go test ./... | write_file from " {
		t.Errorf("grants = %s", got)
	}
	if got := strings.Join(a.req.Described, " | "); got != "bash: run tests | bash: install dependencies | write_file: edit the config files" {
		t.Errorf("described = %s", got)
	}
	if strings.Join(s.rules, " | ") != "bash:go test( .*)? | write_file" {
		t.Errorf("session rules = %q: a description must grant nothing", s.rules)
	}
	lines := strings.Join(a.req.GrantLines(), "\n")
	for _, w := range []string{`bash:go test( .*)? (the plan asked for "go test ./...")`, "they grant nothing", "  • bash: run tests"} {
		if !strings.Contains(lines, w) {
			t.Errorf("the lines shown lack %q:\n%s", w, lines)
		}
	}
	if !strings.Contains(r.Text, "descriptions, not commands") || !strings.Contains(r.Text, "bash: run tests") {
		t.Errorf("the model is not told the descriptions grant nothing: %s", r.Text)
	}
}

func TestRuleThatDoesNotParseIsNotShown(t *testing.T) {
	a := verdict(true, "")
	s, _, exit := tools(permission.ModePlan, a)
	r := run(t, context.Background(), exit, `{"plan":"p","allowed_prompts":["bash:(","edit file"]}`)
	if len(a.req.Grants) != 0 || len(s.rules) != 0 || strings.Count(r.Text, "refused and not shown") != 2 {
		t.Errorf("grants %+v, rules %q, result %s", a.req.Grants, s.rules, r.Text)
	}
}

func TestRejectedPlanGrantsNothing(t *testing.T) {
	a := verdict(false, "no")
	s, _, exit := tools(permission.ModePlan, a)
	run(t, context.Background(), exit, `{"plan":"p","allowed_prompts":["bash"]}`)
	if len(a.req.Grants) != 1 || len(s.rules) != 0 {
		t.Errorf("shown %+v, granted %q", a.req.Grants, s.rules)
	}
}

// TestFormerAllowedPromptsStillGrant: Claude Code's spelling, gantry's before it took
// snake_case, still grants its rules, and the result says it is deprecated.
func TestFormerAllowedPromptsStillGrant(t *testing.T) {
	a := verdict(true, "")
	s, _, exit := tools(permission.ModePlan, a)
	r := run(t, context.Background(), exit, `{"plan":"p","allowedPrompts":["bash:make"]}`)
	if len(s.rules) != 1 || s.rules[0] != "bash:make" || !strings.HasSuffix(r.Text, "(Note: allowedPrompts is deprecated; use allowed_prompts.)") {
		t.Errorf("rules %q, result %s", s.rules, r.Text)
	}
}
