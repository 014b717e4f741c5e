package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// claudeModes are Claude Code's permission modes (permissions.defaultMode) as
// gantry's.
var claudeModes = map[string]string{
	"default": "default", "acceptEdits": "accept-edits", "plan": "plan", "bypassPermissions": "yolo",
}

// takeClaudeMode takes a file's permissions.defaultMode as the session's mode
// (gantry's own files, read after, still win), its disableBypassPermissionsMode and
// its model.
// A project file held back while its folder is not trusted gives no mode; a refusal
// of yolo is kept from any file, since it only takes away.
func takeClaudeMode(c *Config, path string, f *claudeSettingsFile, held bool, rec *ClaudeFile) {
	for _, v := range []string{f.Permissions.DisableBypass, f.DisableBypass} {
		switch v {
		case "":
		case "disable":
			c.Claude.NoYolo = path
		default:
			rec.Skipped = append(rec.Skipped, fmt.Sprintf("disableBypassPermissionsMode %q was not understood: only \"disable\" means something", v))
		}
	}
	if model := strings.TrimSpace(f.Model); model != "" {
		if held {
			rec.Skipped = append(rec.Skipped, fmt.Sprintf("the model %q was skipped: the folder is not trusted", model))
		} else {
			c.Claude.Model, c.Claude.ModelFile = model, path
		}
	}
	m := f.Permissions.DefaultMode
	if m == "" {
		return
	}
	mode, ok := claudeModes[m]
	switch {
	case !ok:
		rec.Skipped = append(rec.Skipped, fmt.Sprintf("the defaultMode %q was skipped: gantry's modes are Claude Code's default, acceptEdits, plan and bypassPermissions", m))
	case held:
		c.held.Mode = fmt.Sprintf("%s (%s)", m, path)
		rec.Skipped = append(rec.Skipped, fmt.Sprintf("the defaultMode %q was skipped: the folder is not trusted", m))
	default:
		c.PermissionMode = mode
	}
}

// claudeKeysUsed are the keys of a Claude Code settings file that gantry takes, at
// the top level and under permissions; docs/config.md lists them.
var (
	claudeKeysUsed       = []string{"$schema", "hooks", "permissions", "env", "enableAllProjectMcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers", "disableBypassPermissionsMode", "outputStyle", "enabledPlugins", "extraKnownMarketplaces", "model"}
	claudePermissionKeys = []string{"allow", "deny", "ask", "defaultMode", "disableBypassPermissionsMode"}
)

// unusedClaudeKeys are the keys of a settings file gantry does not take (model,
// statusLine, permissions.additionalDirectories, …), sorted, so that none is dropped
// without a word.
func unusedClaudeKeys(data []byte) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return nil
	}
	var out []string
	for k := range top {
		if !slices.Contains(claudeKeysUsed, k) {
			out = append(out, k)
		}
	}
	var perms map[string]json.RawMessage
	if json.Unmarshal(top["permissions"], &perms) == nil {
		for k := range perms {
			if !slices.Contains(claudePermissionKeys, k) {
				out = append(out, "permissions."+k)
			}
		}
	}
	sort.Strings(out)
	return out
}
