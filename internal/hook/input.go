package hook

import (
	"encoding/json"
	"maps"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Base is what every hook's stdin says of the session.
type Base struct {
	SessionID string
	// Cwd is the session's working directory: the hooks run there, and it is the
	// project directory of GANTRY_PROJECT_DIR and CLAUDE_PROJECT_DIR.
	Cwd string
	// PermissionMode returns the current permission mode (may be nil).
	PermissionMode func() string
	// TranscriptPath is a file holding the conversation, if there is one.
	TranscriptPath string
	// Policy is the session's (nil: gantry's own): a hook the model registered runs
	// under it whole (deny rules, sandbox, environment), like a bash command; a
	// settings file's hooks are the person's own, run only in a folder they trusted,
	// and run loose (Spec.Loose) with the session's environment.
	Policy *contain.Policy
	// Model judges prompt hooks (nil: they fail, with a warning).
	Model Model
	// EnvDir is a folder of the session's own where SessionStart hooks get their
	// CLAUDE_ENV_FILE ("": they get none).
	EnvDir string
	// Rewake is told what an asyncRewake hook said when it exited 2 (nil: nothing
	// is told). It is called from the hook's own goroutine, never after Close.
	Rewake func(Rewake)
	// Later is told what an async hook (configured async, or declared so on its
	// first line) said in JSON when it ended (nil: it is dropped); called as Rewake.
	Later func(Later)
}

// stdin builds the JSON object a hook of event reads: the session's fields, then the
// caller's fields (which may override them), and hook_event_name.
// With claude, the permission mode is given in Claude Code's words.
func (b Base) stdin(event string, fields map[string]any, claude bool) ([]byte, error) {
	m := map[string]any{
		"session_id":      b.SessionID,
		"cwd":             b.Cwd,
		"transcript_path": b.TranscriptPath,
		"permission_mode": "",
	}
	if b.PermissionMode != nil {
		mode := b.PermissionMode()
		if claude {
			mode = claudeMode(mode)
		}
		m["permission_mode"] = mode
	}
	maps.Copy(m, fields)
	m["hook_event_name"] = event
	return json.Marshal(m)
}

// env is what a hook's environment gets beside gantry's own.
func (b Base) env(event string) []string {
	env := []string{"GANTRY=1", "GANTRY_HOOK_EVENT=" + event, "GANTRY_SESSION_ID=" + b.SessionID, "CLAUDE_SESSION_ID=" + b.SessionID}
	if b.Cwd != "" {
		env = append(env, "GANTRY_PROJECT_DIR="+b.Cwd, "CLAUDE_PROJECT_DIR="+b.Cwd)
	}
	return env
}

// claudeMode is a gantry permission mode in Claude Code's words.
func claudeMode(m string) string {
	switch m {
	case "accept-edits":
		return "acceptEdits"
	case "yolo":
		return "bypassPermissions"
	}
	return m // default, plan
}

// claudeViews are the views of the call a Claude hook reads; none when the call has
// no Claude view (an MCP tool: its name is the same in both).
func claudeViews(sub *tool.HookSubject) []tool.ClaudeView {
	if sub == nil {
		return nil
	}
	return sub.Claude
}

// claudeResponse is a call's result (gantry's {output, is_error}) in the shape Claude
// Code gives its tools' tool_response: Bash's stdout and stderr, a file tool's filePath
// and success; other tools keep gantry's shape.
func claudeResponse(v tool.ClaudeView, resp any) any {
	r, ok := resp.(map[string]any)
	if !ok {
		return resp
	}
	out, _ := r["output"].(string)
	isErr, _ := r["is_error"].(bool)
	switch v.Name {
	case "Bash":
		m := map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}
		if isErr {
			m["stdout"], m["stderr"] = "", out
		}
		return m
	case "Write", "Edit", "MultiEdit", "Read":
		m := map[string]any{"filePath": v.Input["file_path"], "success": !isErr}
		if v.Name == "Read" {
			m["content"] = out
		}
		return m
	}
	return r
}
