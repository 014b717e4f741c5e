package acp

import (
	"context"
	"fmt"
	"strings"
)

// runAgents is /agents: the agent definitions the agent tool offers, with where each
// came from.
func runAgents(s *session, _ context.Context, _ string) string {
	defs := s.app.Agents()
	if len(defs) == 0 {
		return "No agent definitions were found (see docs/config.md for where gantry looks: .gantry/agents, .claude/agents and the user's)."
	}
	var b strings.Builder
	b.WriteString("Agents (the model runs one with the agent tool's subagent_type):\n\n")
	for _, d := range defs {
		fmt.Fprintf(&b, "- `%s` — %s (%s)\n", d.Name, d.Description, d.Source)
	}
	return b.String()
}
