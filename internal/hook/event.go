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
	SubagentStop     = "SubagentStop"
	PreCompact       = "PreCompact"
	Notification     = "Notification"
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
