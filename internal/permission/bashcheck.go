package permission

import (
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

// checkBash decides a bash call from the simple commands of its script.
func (e *Engine) checkBash(c Call) Verdict {
	whole := strings.TrimSpace(c.Principal)
	cmds, perr := Commands(c.Principal)
	guarded := false // a deny rule names bash
	for _, r := range e.deny {
		if !r.MatchesTool(c.Tool) {
			continue
		}
		guarded = true
		if r.Match(c.Tool, whole) {
			return Verdict{Decision: Deny, Reason: fmt.Sprintf("a deny rule (%s) forbids this command", r.describe())}
		}
		for _, sc := range cmds {
			if r.Match(c.Tool, sc.Text) {
				return Verdict{Decision: Deny, Reason: fmt.Sprintf("a deny rule (%s) forbids %q", r.describe(), clip(sc.Text))}
			}
			for _, rd := range sc.Readings {
				if r.Match(c.Tool, rd) {
					return Verdict{Decision: Deny, Reason: fmt.Sprintf("a deny rule (%s) forbids %q, which %s reads as %q", r.describe(), clip(sc.Text), strings.Fields(rd)[0], clip(rd))}
				}
			}
		}
	}
	if guarded {
		for _, sc := range cmds {
			if sc.Opaque {
				return Verdict{Decision: Deny, Reason: fmt.Sprintf("%q cannot be checked against the deny rules because %s; write the command with each program named plainly", clip(sc.Text), sc.Why)}
			}
		}
	}
	if e.modeOf(c) == ModePlan && c.planLevel() != tool.LevelRead {
		return e.byMode(c) // plan mode is read-only, whatever the rules allow
	}
	if v, ok := e.remembered(c); ok {
		return v
	}
	if perr != nil {
		if (e.modeOf(c) == ModeYolo || e.allowAll) && !guarded {
			return e.byMode(c) // nothing to check it against
		}
		return Verdict{Decision: Ask, Reason: fmt.Sprintf("the command cannot be parsed (%s), so no rule can allow it", strings.TrimSuffix(perr.Error(), "."))}
	}
	if e.allowsAll(cmds) {
		return Verdict{Decision: Allow, Reason: "allow rules permit every command in it"}
	}
	return e.byMode(c)
}

// allowsAll: every simple command is matched by an allow rule, and the rules can read
// each (no computed program, no inline code). A command read by its program's base
// name is covered by the command as written just before it, which was allowed to get
// this far.
func (e *Engine) allowsAll(cmds []SimpleCommand) bool {
	if len(cmds) == 0 || len(e.allow) == 0 {
		return false
	}
	for _, sc := range cmds {
		if sc.Opaque || sc.RunsCode {
			return false
		}
		if !sc.Base && !e.allowed(sc.Text) {
			return false
		}
	}
	return true
}

func (e *Engine) allowed(cmd string) bool {
	for _, r := range e.allow {
		if r.Match("bash", cmd) {
			return true
		}
	}
	return false
}
