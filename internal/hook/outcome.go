package hook

import (
	"encoding/json"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

// Outcome is what the hooks of one event decided, folded together.
type Outcome struct {
	// Block: a hook exited 2, answered decision "block" or "deny" (or continue: false),
	// or failed with onFailure: block. The other hooks of the event still ran.
	Block bool
	// Reason is why, for the model: the stderr of exit 2, or the JSON reason; the
	// reasons of several blocking hooks are joined with newlines, in their order.
	Reason string
	// AdditionalContext is context for the model, joined across hooks with newlines.
	AdditionalContext string
	// UpdatedInput replaces the tool's input (PreToolUse only); the last hook wins.
	UpdatedInput json.RawMessage
	// UpdatedInputClaude is Claude's view of the call that the hook which gave
	// UpdatedInput read, when it was written for Claude Code: its updatedInput is in
	// that view's field names (see tool.FromClaude). Nil: in gantry's.
	UpdatedInputClaude *tool.ClaudeView
	// Allow: a hook answered decision "approve" or "allow" (PreToolUse: skip the
	// permission prompt; deny rules still apply — the caller decides).
	Allow bool
	// Warnings has one sentence per hook that failed without blocking (other exit
	// codes, timeout, unreadable JSON).
	Warnings []string
	// Ask: a hook answered permissionDecision "ask" (PreToolUse): the person is asked,
	// whatever the mode and the allow rules say (deny rules still refuse).
	Ask       bool
	AskReason string
	// Stop: a hook answered continue: false — the turn ends; StopReason is for the
	// person.
	Stop       bool
	StopReason string
	// Messages are the hooks' systemMessage lines, shown to the person.
	Messages []string
	// Env are the exports SessionStart hooks wrote to their CLAUDE_ENV_FILE, as
	// NAME=value in the hooks' order (a later one of a name wins).
	Env []string
}

// verdict is what one hook said.
type verdict struct {
	block   bool
	reason  string
	context string
	input   json.RawMessage
	view    *tool.ClaudeView // the Claude view the hook read, for input
	allow   bool
	warning string

	ask                   bool
	askReason, stopReason string
	stop                  bool
	message               string
}

// add folds v into o.
func (o *Outcome) add(v verdict) {
	if v.block {
		o.Block, o.Allow = true, false
		if o.Reason != "" && v.reason != "" {
			o.Reason += "\n"
		}
		o.Reason += v.reason
	}
	if c := strings.TrimSpace(v.context); c != "" {
		if o.AdditionalContext != "" {
			o.AdditionalContext += "\n"
		}
		o.AdditionalContext += c
	}
	if v.input != nil {
		o.UpdatedInput, o.UpdatedInputClaude = v.input, v.view
	}
	if v.allow && !o.Block {
		o.Allow = true
	}
	if v.warning != "" {
		o.Warnings = append(o.Warnings, v.warning)
	}
	if v.ask {
		o.Ask = true
		if o.AskReason == "" {
			o.AskReason = v.askReason
		}
	}
	if v.stop && !o.Stop {
		o.Stop, o.StopReason = true, v.stopReason
	}
	if v.message != "" {
		o.Messages = append(o.Messages, v.message)
	}
}
