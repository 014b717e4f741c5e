package app

// Plugins (docs/plugins.md): the enabled plugins of the session's config
// (config.Plugins: the user's, and the project's in a trusted folder) give their
// commands, agents and skills to the loaders, named plugin:name; their hooks and MCP
// servers are in the config already, and run through the same door as the others.

import (
	"fmt"

	"github.com/gantry-dev/gantry/internal/agents"
	"github.com/gantry-dev/gantry/internal/commands"
	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/tools/skill"
)

// Plugins returns the session's enabled plugins, as /plugin lists them.
func (a *App) Plugins() []config.LoadedPlugin { return a.cfg.Plugins() }

// pluginCommands are the plugins' command folders for commands.Find.
func pluginCommands(ps []config.LoadedPlugin) []commands.Plugin {
	var out []commands.Plugin
	for _, p := range ps {
		out = append(out, commands.Plugin{Name: p.Name, Scope: p.Scope, Root: p.Root, Dirs: p.Commands})
	}
	return out
}

// pluginAgents are the plugins' agent folders for agents.Load, after the others.
func pluginAgents(ps []config.LoadedPlugin) []agents.Dir {
	var out []agents.Dir
	for _, p := range ps {
		for _, d := range p.Agents {
			out = append(out, agents.Dir{Path: d, Source: "plugin " + p.Name, Plugin: p.Name})
		}
	}
	return out
}

// pluginSkills are the plugins' skill folders for skill.CatalogWith.
func pluginSkills(ps []config.LoadedPlugin) []skill.PluginDir {
	var out []skill.PluginDir
	for _, p := range ps {
		for _, d := range p.Skills {
			out = append(out, skill.PluginDir{Plugin: p.Name, Path: d})
		}
	}
	return out
}

// PluginLines are the lines /plugin and `gantry plugin list` show: each plugin with
// its version, scope, folder and description, then what could not be loaded.
func PluginLines(cfg *config.Config) []string {
	ps := cfg.Plugins()
	if len(ps) == 0 && len(cfg.PluginProblems) == 0 {
		return []string{"No plugins are enabled (docs/plugins.md)."}
	}
	var out []string
	for _, p := range ps {
		line := p.Name
		if p.Version != "" {
			line += " " + p.Version
		}
		line += fmt.Sprintf(" (%s): %s", p.Scope, p.Root)
		if p.Description != "" {
			line += " — " + p.Description
		}
		out = append(out, line)
	}
	return append(out, cfg.PluginProblems...)
}

// pluginRows are `gantry doctor`'s lines about the plugins: each with its parts,
// what of it was skipped, and the plugins that could not be loaded.
func pluginRows(cfg *config.Config) []DoctorRow {
	ps := cfg.Plugins()
	rows := []DoctorRow{{Name: "plugins", Value: fmt.Sprintf("%d plugin(s) (docs/plugins.md)", len(ps))}}
	for _, p := range ps {
		hooks := 0
		for _, ms := range p.Hooks {
			for _, m := range ms {
				hooks += len(m.Hooks)
			}
		}
		rows = append(rows, DoctorRow{Value: fmt.Sprintf("%s (%s, %s): %s; %d command folder(s), %d agent folder(s), %d skill folder(s), %d hook(s), %d MCP server(s), %d output style folder(s), %d language server(s)",
			p.Name, p.Scope, p.From, p.Root, len(p.Commands), len(p.Agents), len(p.Skills), hooks, len(p.MCPServers), len(p.OutputStyles), len(p.LSPServers))})
		for _, s := range p.Skipped {
			rows = append(rows, DoctorRow{Value: "  ignored: " + s, Problem: true})
		}
	}
	for _, s := range cfg.PluginProblems {
		rows = append(rows, DoctorRow{Value: "not loaded: " + s, Problem: true})
	}
	return append(rows, marketplaceRows(cfg)...)
}

// PluginSummary are the lines /plugin shows: the session's enabled plugins (see
// PluginLines).
func (a *App) PluginSummary() []string { return PluginLines(a.cfg) }
