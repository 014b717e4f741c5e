package app

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gantry-dev/gantry/internal/agents"
	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/skill"
)

// The rows of `gantry doctor` that say what was read from each ecosystem (gantry's,
// Claude Code's, Codex's) besides the commands, settings and MCP servers: agent
// definitions, skills, memory files and rules, output styles, hooks and permission
// rules, each with its file, and what was ignored and why. They reuse the loaders
// (and their notices) and read files only: nothing is started.

// agentRows list the agent definitions with their files, the sentence a session
// gives about the tools of reg (a session's) a definition names and gantry has not,
// and the notices of those not used; the project's are read only in a trusted folder.
func agentRows(cfg *config.Config, trusted bool, reg *tool.Registry) []DoctorRow {
	root := cfg.Root()
	defs, notices := agents.Load(agentDirs(cfg, trusted))
	rows := []DoctorRow{{Name: "agents", Value: fmt.Sprintf("%d agent definition(s)", len(defs))}}
	for _, d := range defs {
		rows = append(rows, DoctorRow{Value: d.Name + ": " + d.Path})
	}
	for _, n := range agentToolNotices(defs, reg) {
		rows = append(rows, DoctorRow{Value: n, Problem: true})
	}
	for _, n := range notices {
		rows = append(rows, DoctorRow{Value: "ignored: " + n, Problem: true})
	}
	if !trusted && (commandDirExists(filepath.Join(root, ".gantry", "agents")) || commandDirExists(filepath.Join(root, ".claude", "agents"))) {
		rows = append(rows, DoctorRow{Value: "ignored: the project's agents (the folder is not trusted)", Problem: true})
	}
	return rows
}

// skillRows list the skills of the catalogue with their files, and its notices.
func skillRows(cfg *config.Config) []DoctorRow {
	skills, notices := skill.CatalogWith(cfg.SkillDirs(), pluginSkills(cfg.Plugins()))
	rows := []DoctorRow{{Name: "skills", Value: fmt.Sprintf("%d skill(s)", len(skills))}}
	for _, s := range skills {
		rows = append(rows, DoctorRow{Value: s.Name + ": " + s.Path})
	}
	for _, n := range notices {
		rows = append(rows, DoctorRow{Value: "ignored: " + n, Problem: true})
	}
	return rows
}

// memoryRows list the memory files read at the start, and the rules waiting for a
// file of their paths.
func memoryRows(cwd string) []DoctorRow {
	m, err := config.Memory(cwd)
	if err != nil {
		return []DoctorRow{{Name: "memory", Value: "not read: " + err.Error(), Problem: true}}
	}
	rows := []DoctorRow{{Name: "memory", Value: fmt.Sprintf("%d file(s) read at the start, %d rule(s) with paths", len(m.Files), len(m.Scoped))}}
	for _, f := range m.Files {
		rows = append(rows, DoctorRow{Value: f})
	}
	for _, r := range m.Scoped {
		rows = append(rows, DoctorRow{Value: r.Path + " (paths: " + strings.Join(r.Globs, ", ") + ")"})
	}
	if m.Truncated {
		rows = append(rows, DoctorRow{Value: fmt.Sprintf("cut at %d KiB: the later files are not given whole", config.MaxMemory>>10), Problem: true})
	}
	return rows
}

// outputStyleRows list the output styles with their files.
func outputStyleRows(cfg *config.Config, cwd string) []DoctorRow {
	styles, err := allOutputStyles(cfg, cwd)
	rows := []DoctorRow{{Name: "output styles", Value: fmt.Sprintf("%d output style(s)", len(styles))}}
	for _, s := range styles {
		rows = append(rows, DoctorRow{Value: s.Name + ": " + s.Path})
	}
	if err != nil {
		rows = append(rows, DoctorRow{Value: "not read: " + err.Error(), Problem: true})
	}
	return rows
}

// hookRows count the hook commands in force by the file they come from.
func hookRows(cfg *config.Config) []DoctorRow {
	count := map[string]int{}
	total := 0
	for _, ms := range cfg.Hooks {
		for _, m := range ms {
			from := m.From
			if from == "" {
				from = "gantry's config"
			}
			count[from] += len(m.Hooks)
			total += len(m.Hooks)
		}
	}
	return append([]DoctorRow{{Name: "hooks", Value: fmt.Sprintf("%d hook(s)", total)}}, counted(count, "hook(s)")...)
}

// ruleRows count the permission rules in force by where they come from.
func ruleRows(gate *permission.Engine) []DoctorRow {
	allow, deny := gate.Rules()
	allows, denies := map[string]int{}, map[string]int{}
	for _, r := range allow {
		allows[source(r.Source)]++
	}
	for _, r := range deny {
		denies[source(r.Source)]++
	}
	both := map[string]int{}
	for k := range allows {
		both[k]++
	}
	for k := range denies {
		both[k]++
	}
	rows := []DoctorRow{{Name: "permission rules", Value: fmt.Sprintf("%d allow / %d deny rule(s)", len(allow), len(deny))}}
	for _, k := range sortedKeys(both) {
		rows = append(rows, DoctorRow{Value: fmt.Sprintf("%s: %d allow / %d deny", k, allows[k], denies[k])})
	}
	return rows
}

// source is a rule's source without its line number ("file:line" → file).
func source(s string) string {
	if i := strings.LastIndexByte(s, ':'); i > 0 && strings.Trim(s[i+1:], "0123456789") == "" && i < len(s)-1 {
		return s[:i]
	}
	if s == "" {
		return "built in"
	}
	return s
}

// counted makes one row per key of count, sorted: "key: n what".
func counted(count map[string]int, what string) []DoctorRow {
	var rows []DoctorRow
	for _, k := range sortedKeys(count) {
		rows = append(rows, DoctorRow{Value: fmt.Sprintf("%s: %d %s", k, count[k], what)})
	}
	return rows
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
