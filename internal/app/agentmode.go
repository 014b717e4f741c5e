package app

import (
	"fmt"

	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// agentMode is the gantry mode an agent definition's permissionMode stands for ("":
// its caller's), and whether it refuses what would be asked (Claude Code's dontAsk,
// which runs what rules allow and asks nothing).
func agentMode(m string) (mode permission.Mode, dontAsk bool) {
	switch m {
	case "default":
		return permission.ModeDefault, false
	case "acceptEdits", "accept-edits":
		return permission.ModeAcceptEdits, false
	case "plan":
		return permission.ModePlan, false
	case "bypassPermissions", "yolo":
		return permission.ModeYolo, false
	case "dontAsk":
		return permission.ModeDefault, true
	}
	return "", false
}

// modeGate is the gate of a subagent whose definition names a permission mode: each
// call is checked under the stricter of that mode and its caller's (Call.Mode), so a
// definition narrows what the subagent may do and never widens it; with dontAsk, what
// would be asked is refused instead.
type modeGate struct {
	permission.Gate
	mode    permission.Mode
	dontAsk bool
	// def names the definition in a refusal.
	def string
}

// Check implements permission.Gate.
func (g modeGate) Check(c permission.Call) permission.Verdict {
	c.Mode = g.mode
	v := g.Gate.Check(c)
	if g.dontAsk && v.Decision == permission.Ask {
		return permission.Verdict{Decision: permission.Deny,
			Reason: fmt.Sprintf("the agent definition %s has permissionMode dontAsk, which refuses what would be asked (%s)", g.def, v.Reason)}
	}
	return v
}

// Suggest implements permission.Gate, under the subagent's mode.
func (g modeGate) Suggest(c permission.Call) permission.Grant {
	c.Mode = g.mode
	return g.Gate.Suggest(c)
}

// FileGuard is the caller's gate's per-file check of a tool, when it has one.
func (g modeGate) FileGuard(name string) tool.FileGuard {
	if fg, ok := g.Gate.(interface{ FileGuard(string) tool.FileGuard }); ok {
		return fg.FileGuard(name)
	}
	return nil
}
