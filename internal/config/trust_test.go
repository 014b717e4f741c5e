package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// LoadHeld leaves out what a project's files would run or allow — .mcp.json servers,
// the project's Claude hooks, allow rules and env, config.yaml's servers, hooks and
// allow rules — and says what they are; the user's files and the project's deny
// rules apply. Load takes everything.
func TestLoadHeldLeavesOutTheProjectsCommands(t *testing.T) {
	e := newEnv(t)
	e.userFile(t, "mcpServers:\n  mine:\n    command: my-server\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: user-hook\n")
	write(t, filepath.Join(e.home, ".claude", "settings.json"), `{"env": {"USER_VAR": "1"}, "permissions": {"allow": ["Bash(ls)"]}}`)
	write(t, filepath.Join(e.root, ".mcp.json"), `{"mcpServers": {"theirs": {"command": "their-server", "args": ["--x"]}}}`)
	write(t, filepath.Join(e.root, ".claude", "settings.json"), `{"env": {"PROJECT_VAR": "1"}, "permissions": {"allow": ["Bash(make)"], "deny": ["Bash(rm:*)"]},
		"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "their-hook"}]}]}}`)
	e.projectFile(t, "maxTurns: 7\nmcpServers:\n  cfgsrv:\n    command: cfg-server\npermissions:\n  allow_all: true\n  allow: [read_file]\n  deny: [\"bash:curl .*\"]\n")

	c, err := LoadHeld(e.root)
	if err != nil {
		t.Fatal(err)
	}
	h := c.Held()
	if got := strings.Join(h.Servers, "|"); got != "theirs: their-server --x|cfgsrv: cfg-server" {
		t.Errorf("held servers %q", got)
	}
	if len(h.Hooks) != 1 || !strings.HasPrefix(h.Hooks[0], "SessionStart: their-hook (") || strings.Join(h.Env, " ") != "PROJECT_VAR" || h.AllowAll == "" || len(h.Allow) != 2 {
		t.Errorf("held %+v", h)
	}
	if _, ok := c.MCPServers["mine"]; !ok || len(c.MCPServers) != 1 || c.Claude.Env["USER_VAR"] != "1" || c.Claude.Env["PROJECT_VAR"] != "" {
		t.Errorf("servers %v, env %v", c.MCPServers, c.Claude.Env)
	}
	if c.Permissions.AllowAll || len(c.Permissions.Allow) != 1 || len(c.Permissions.Deny) != 2 || c.MaxTurns != 7 || len(c.Hooks["SessionStart"]) != 0 || len(c.Hooks["Stop"]) != 1 {
		t.Errorf("permissions %+v, maxTurns %d, hooks %v", c.Permissions, c.MaxTurns, c.Hooks)
	}

	full, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if !full.Held().Empty() || len(full.MCPServers) != 3 || !full.Permissions.AllowAll || full.Claude.Env["PROJECT_VAR"] != "1" || len(full.Hooks["SessionStart"]) != 1 {
		t.Errorf("Load held something back: %+v %v", full.Held(), full.MCPServers)
	}
}

// Claude Code's approvals of .mcp.json servers count in the user's settings only, and
// trustedFolders in the user's config only.
func TestApprovalsAndTrustedFoldersAreTheUsers(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.root, ".mcp.json"), `{"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}}`)
	write(t, filepath.Join(e.root, ".claude", "settings.local.json"), `{"enableAllProjectMcpServers": true}`)
	e.projectFile(t, "trustedFolders: [\"/\"]\n")
	c, err := LoadHeld(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Held().Servers) != 2 || c.Trusts(e.root) || !slices.ContainsFunc(c.Sandbox.Ignored, func(s string) bool { return strings.Contains(s, "trustedFolders") }) {
		t.Errorf("the project approved or trusted itself: held %v, ignored %v", c.Held().Servers, c.Sandbox.Ignored)
	}

	write(t, filepath.Join(e.home, ".claude", "settings.json"), `{"enabledMcpjsonServers": ["b"]}`)
	e.userFile(t, "trustedFolders: [\""+filepath.Dir(e.root)+"\"]\n")
	if c, err = LoadHeld(e.root); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.MCPServers["b"]; !ok || len(c.Held().Servers) != 1 || !c.Trusts(e.root) || c.Trusts(filepath.Dir(filepath.Dir(e.root))) {
		t.Errorf("the user's approval and trust: servers %v, held %v, trusts %v", c.MCPServers, c.Held().Servers, c.TrustedFolders())
	}
}
