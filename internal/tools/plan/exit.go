package plan

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed exit_plan_mode.md
var exitDescription string

type exitArgs struct {
	Plan           string          `json:"plan" jsonschema_description:"The whole plan in markdown: goal; files and changes; steps in order; how the result is checked."`
	AllowedPrompts []allowedPrompt `json:"allowed_prompts,omitempty" jsonschema_description:"Permission rules the plan needs for the rest of the session: a rule (a tool name or tool:regex; e.g. bash:go test .*) or {tool; prompt} with prompt a command (go test ./...). The user sees each before approving."`
}

// Exit returns exit_plan_mode, which asks asker to approve the plan.
func (w *Switch) Exit(asker face.Asker) tool.Tool {
	return tool.New(tool.Def[exitArgs]{
		Conversation: true,
		Name:         "exit_plan_mode",
		ClaudeNames:  []string{"ExitPlanMode"},
		Description:  exitDescription,
		Level:        tool.LevelRead,
		Kind:         tool.KindSwitchMode,
		Icon:         "📋",
		Title:        func(tool.Env, exitArgs, []string) string { return "Ready to code?" },
		Principal:    func(a exitArgs) string { return firstLine(a.Plan) },
		Check:        checkExit,
		// Claude Code's spelling, gantry's until it took snake_case.
		Formers: []tool.Former{{Name: "allowedPrompts", New: "allowed_prompts"}},
		Run: func(ctx context.Context, _ tool.Env, a exitArgs) tool.Result {
			return w.exit(ctx, asker, a)
		},
	})
}

func checkExit(a exitArgs) string {
	if strings.TrimSpace(a.Plan) == "" {
		return "exit_plan_mode: `plan` is empty; write the whole plan for the user to approve."
	}
	for i, p := range a.AllowedPrompts {
		if p.claude() && (p.Tool == "" || p.Prompt == "") {
			return fmt.Sprintf("exit_plan_mode: `allowed_prompts[%d]` is empty; give a tool name or tool:regex, or {\"tool\": \"Bash\", \"prompt\": \"go test ./...\"}, or leave it out.", i)
		}
	}
	return ""
}

func (w *Switch) exit(ctx context.Context, asker face.Asker, a exitArgs) tool.Result {
	if m := w.s.Mode(); m != permission.ModePlan {
		return tool.Fail(fmt.Sprintf("The session is not in plan mode (it is in %s mode), so there is nothing to approve; go on with the work.", m))
	}
	g := resolve(w.s, a.AllowedPrompts)
	req := g.req
	req.Plan = a.Plan
	ans, err := asker.ApprovePlan(ctx, req)
	switch {
	case errors.Is(err, face.ErrNoHuman):
		return tool.Fail("Nobody can approve a plan in this session (no human is attached), so it stays in plan mode; give the plan as your final answer, and the user can run again with --permission-mode default to carry it out.")
	case ctx.Err() != nil:
		return tool.Fail("cancelled")
	case err != nil:
		return tool.Fail(fmt.Sprintf("The plan could not be shown for approval (%v), so the session stays in plan mode.", err))
	case !ans.Approved:
		return tool.Result{Text: rejected(ans.Feedback)}
	}
	mode := w.leave(ans.Mode)
	var b strings.Builder
	fmt.Fprintf(&b, "The user approved the plan. The session left plan mode and is in %s mode (%s): write and exec tools are available again, so carry out the plan now.", mode, mode.About())
	if f := strings.TrimSpace(ans.Feedback); f != "" {
		fmt.Fprintf(&b, "\nThe user added: %s", f)
	}
	b.WriteString(w.allow(req.Grants))
	for _, s := range g.refused {
		b.WriteString("\n" + s)
	}
	if len(req.Described) > 0 {
		fmt.Fprintf(&b, "\nThese allowed_prompts are descriptions, not commands: the user saw them, and they grant nothing, so each call asks as usual: %s. To be allowed a command without asking, give the command itself ({\"tool\": \"Bash\", \"prompt\": \"go test ./...\"}) or a rule (bash:go test .*).", strings.Join(req.Described, "; "))
	}
	return tool.Result{Text: b.String()}
}

// allow adds each rule on its own, so that a refused rule is named with its reason and
// the others still hold; a broad rule is named as such.
func (w *Switch) allow(grants []face.PlanGrant) string {
	var added, refused []string
	for _, g := range grants {
		if err := w.s.AllowForSession([]string{g.Rule}); err != nil {
			refused = append(refused, fmt.Sprintf("\nThe rule %q was refused and not added (%v); calls it would have covered will ask as usual.", g.Rule, err))
			continue
		}
		s := "`" + g.Rule + "`"
		if g.Warning != "" {
			s += " (" + g.Warning + ")"
		}
		added = append(added, s)
	}
	var b strings.Builder
	if len(added) > 0 {
		fmt.Fprintf(&b, "\nAllowed without asking for the rest of this session (never saved): %s.", strings.Join(added, ", "))
	}
	for _, s := range refused {
		b.WriteString(s)
	}
	return b.String()
}

func rejected(feedback string) string {
	const stay = "The user did not approve the plan, so the session stays in plan mode (read tools only)."
	if f := strings.TrimSpace(feedback); f != "" {
		return stay + "\nTheir feedback: " + f + "\nRevise the plan to answer it, then call exit_plan_mode again with the whole revised plan."
	}
	return stay + " They gave no reason: revise the plan (or ask with ask_user what to change), then call exit_plan_mode again with the whole revised plan."
}

// firstLine is the plan's first non-blank line, shown beside the tool's name.
func firstLine(plan string) string {
	for _, l := range strings.Split(plan, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
