package hook

import (
	"encoding/json"
	"maps"

	"github.com/gantry-dev/gantry/internal/contain"
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
	// Judge, when set, checks every program a hook the model registered runs (the
	// deny rules of bash, see package contain); a settings file's hooks are the
	// user's own and are not checked.
	Judge contain.Judge
	// Model judges prompt hooks (nil: they fail, with a warning).
	Model Model
	// EnvDir is a folder of the session's own where SessionStart hooks get their
	// CLAUDE_ENV_FILE ("": they get none).
	EnvDir string
}

// stdin builds the JSON object a hook of event reads: the session's fields, then the
// caller's fields (which may override them), and hook_event_name.
func (b Base) stdin(event string, fields map[string]any) ([]byte, error) {
	m := map[string]any{
		"session_id":      b.SessionID,
		"cwd":             b.Cwd,
		"transcript_path": b.TranscriptPath,
		"permission_mode": "",
	}
	if b.PermissionMode != nil {
		m["permission_mode"] = b.PermissionMode()
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
