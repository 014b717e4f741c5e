package hook

import (
	"slices"

	"github.com/gantry-dev/gantry/internal/config"
)

// The hook events.
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	Stop             = "Stop"
	SubagentStart    = "SubagentStart"
	SubagentStop     = "SubagentStop"
	PreCompact       = "PreCompact"
	Notification     = "Notification"
	SessionEnd       = "SessionEnd"
)

// The reasons a session ends, SessionEnd's "reason" (and what its matchers are tried
// on), as Claude Code names them.
const (
	EndClear           = "clear"             // the person cleared the conversation (/clear)
	EndResume          = "resume"            // the person switched to another session (/resume)
	EndLogout          = "logout"            // the person logged out (gantry never ends so)
	EndPromptInputExit = "prompt_input_exit" // the person quit the terminal UI
	EndOther           = "other"             // anything else: print mode's end, an editor closing the session
)

// Events lists the hook events in the order the documentation gives them.
func Events() []string { return slices.Clone(config.HookEvents) }

// IsEvent tells whether name is a hook event.
func IsEvent(name string) bool { return slices.Contains(config.HookEvents, name) }

// isToolEvent tells whether the event concerns one tool call, so that matchers select
// on the tool's name.
func isToolEvent(event string) bool { return event == PreToolUse || event == PostToolUse }

// contextFromPlainStdout tells whether plain (non-JSON) stdout of a successful hook is
// context for the model, as in Claude Code.
func contextFromPlainStdout(event string) bool {
	return event == UserPromptSubmit || event == SessionStart
}
