package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gantry-dev/gantry/internal/agents"
	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/subagent"
)

// Agent definitions (internal/agents) are read at New from gantry's and Claude Code's
// folders, the project's only in a trusted folder (again once a "yes" trusts it); the
// agent tool lists them and runs one by name with its prompt, tools and model.

// AgentDef is an agent definition as /agents shows it.
type AgentDef = agents.Def

// claudeModels are the Claude models of Claude Code's model aliases.
var claudeModels = map[string]string{"sonnet": "claude-sonnet-4-5", "opus": "claude-opus-4-5", "haiku": "claude-haiku-4-5"}

// loadAgents reads the agent definitions (the project's when trusted) into the App,
// with the notices of the files not used and, once there is a registry, of the tools
// it does not have (said by Start).
func (a *App) loadAgents(trusted bool) {
	defs, notices := agents.Load(agentDirs(a.cfg, trusted))
	if a.reg != nil {
		notices = append(notices, agentToolNotices(defs, a.reg)...)
	}
	a.mu.Lock()
	a.agentDefs, a.agentNotes = defs, notices
	a.mu.Unlock()
}

// agentDirs are the folders agent definitions are read from: gantry's, Claude Code's
// (the project's when trusted) and the enabled plugins', in that order.
func agentDirs(cfg *config.Config, trusted bool) []agents.Dir {
	return append(agents.Dirs(cfg.Root(), config.UserDir(), config.ClaudeDir(), trusted), pluginAgents(cfg.Plugins())...)
}

// Agents returns the agent definitions the agent tool offers, sorted by name.
func (a *App) Agents() []AgentDef {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.agentDefs)
}

// agentDef returns the definition of name.
func (a *App) agentDef(name string) (AgentDef, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := slices.IndexFunc(a.agentDefs, func(d AgentDef) bool { return d.Name == name })
	if i < 0 {
		return AgentDef{}, false
	}
	return a.agentDefs[i], true
}

// briefs are the definitions as the agent tool's description lists them.
func briefs(defs []AgentDef) []subagent.Brief {
	out := make([]subagent.Brief, len(defs))
	for i, d := range defs {
		out[i] = subagent.Brief{Name: d.Name, Description: d.Description}
	}
	return out
}

// reloadAgents reads the definitions again once the folder is trusted, and gives the
// session an agent tool that offers the project's too.
func (a *App) reloadAgents() {
	a.loadAgents(true)
	var bg subagent.Background
	if t := a.shell.Tasks(); t != nil {
		bg = t
	}
	a.reg.Add(subagent.Tool(a.spawner, bg, briefs(a.Agents())))
}

// toolOf is the gantry tool a definition's tool name stands for: gantry's own name,
// or Claude Code's or Codex's (Read, Bash, shell), "Bash(git:*)" as Bash; "" when
// the registry has none. An MCP tool's name is itself (its server connects later).
func toolOf(reg *tool.Registry, name string) string {
	name, _, _ = strings.Cut(name, "(")
	name = strings.TrimSpace(name)
	if reg.Known(name) || strings.HasPrefix(name, "mcp__") {
		return name
	}
	if t, ok := reg.Counterpart(name, tool.LevelExec); ok {
		return t.Name()
	}
	for _, t := range reg.All() { // known but not declared now
		info := t.Info()
		if slices.Contains(info.ClaudeNames, name) || slices.Contains(info.Aliases, name) {
			return t.Name()
		}
	}
	return ""
}

// agentToolNotices name, for each definition, the tools it lists that gantry has
// not: it runs without them.
func agentToolNotices(defs []AgentDef, reg *tool.Registry) []string {
	var out []string
	for _, d := range defs {
		var missing []string
		for _, n := range append(slices.Clone(d.Tools), d.Disallowed...) {
			if toolOf(reg, n) == "" {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			out = append(out, fmt.Sprintf("The agent definition %s names tools gantry does not have (%s); it runs without them.", d.Path, strings.Join(missing, ", ")))
		}
	}
	return out
}

// hiddenTools are the tools of view a definition does not give its subagent: all
// but its tools (when it lists them), and its disallowed ones.
func hiddenTools(d AgentDef, view *tool.Registry) []string {
	keep := map[string]bool{}
	for _, n := range d.Tools {
		if t := toolOf(view, n); t != "" {
			keep[t] = true
		}
	}
	var hide []string
	for _, t := range view.All() {
		if d.Tools != nil && !keep[t.Name()] {
			hide = append(hide, t.Name())
		}
	}
	for _, n := range d.Disallowed {
		if t := toolOf(view, n); t != "" && !slices.Contains(hide, t) {
			hide = append(hide, t)
		}
	}
	return hide
}

// agentModel is the model a definition's subagent runs on: inherit (or none) is the
// session's; sonnet, opus and haiku are Claude's models with Anthropic, and the
// models.good and models.fast tiers with another provider (the session's model
// when the tier is not set); any other name is used as it is.
func agentModel(alias, provider, session string, tiers config.Models) string {
	switch strings.ToLower(alias) {
	case "", "inherit":
		return session
	case "sonnet", "opus", "haiku":
		if provider == "anthropic" {
			return claudeModels[strings.ToLower(alias)]
		}
		tier := tiers.Good
		if strings.EqualFold(alias, "haiku") {
			tier = tiers.Fast
		}
		return first(tier, session)
	}
	return alias
}
