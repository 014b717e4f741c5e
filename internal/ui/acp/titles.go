package acp

import (
	"encoding/json"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// maxTitle bounds a tool call's title, in characters.
const maxTitle = 160

// title is the line an editor shows for a tool call: a verb and what it acts on.
func title(name, principal string, paths []string, cwd string) string {
	rel := func(p string) string {
		if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return p
	}
	shown := principal
	if len(paths) > 0 {
		names := make([]string, len(paths))
		for i, p := range paths {
			names[i] = rel(p)
		}
		shown = strings.Join(names, ", ")
	}
	var t string
	switch name {
	case "bash":
		t = oneLine(principal)
	case "read_file":
		t = "Read " + shown
	case "write_file":
		t = "Write " + shown
	case "edit_file":
		t = "Edit " + shown
	case "apply_patch":
		t = "Patch " + shown
	case "glob":
		t = "Find " + principal
	case "grep":
		t = "Search for " + principal
	case "web_fetch":
		t = "Fetch " + principal
	case "web_search":
		t = "Search the web for " + principal
	case "enter_plan_mode":
		t = "Plan before changing anything"
	case "exit_plan_mode":
		t = "Ready to code?"
	default:
		t = name
		if shown != "" {
			t += ": " + oneLine(shown)
		}
	}
	if r := []rune(t); len(r) > maxTitle {
		t = string(r[:maxTitle-1]) + "…"
	}
	return t
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

func locations(paths []string) []sdk.ToolCallLocation {
	out := make([]sdk.ToolCallLocation, 0, len(paths))
	for _, p := range paths {
		out = append(out, sdk.ToolCallLocation{Path: p})
	}
	return out
}

// rawJSON passes a tool's arguments on as they are, or null when they are not JSON.
func rawJSON(b json.RawMessage) any {
	if len(b) == 0 || !json.Valid(b) {
		return nil
	}
	return b
}
