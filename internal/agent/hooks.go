package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Hooks runs the user's hook commands at the loop's events. The hook package
// implements it (through the app); nil means no hooks.
type Hooks interface {
	Has(event string) bool
	Run(ctx context.Context, event, toolName string, fields map[string]any) HookResult
}

// HookResult is what the hooks of one event decided.
type HookResult struct {
	// Block stops what the event announces (the prompt, the call, the stop); Reason
	// says why, for the model.
	Block  bool
	Reason string
	// Context is added for the model (UserPromptSubmit, SessionStart, PostToolUse).
	Context string
	// UpdatedInput replaces a tool call's arguments (PreToolUse).
	UpdatedInput json.RawMessage
	// UpdatedInputClaude, when set, is Claude's view of the call that the hook giving
	// UpdatedInput read: the input is in Claude Code's field names, mapped back to the
	// tool's own with tool.FromClaude.
	UpdatedInputClaude *tool.ClaudeView
	// Allow lets a call run without asking (PreToolUse); deny rules still hold.
	Allow bool
	// Warnings are hooks that failed without blocking, one sentence each.
	Warnings []string
	// Ask forces the permission question for a call (PreToolUse), in every mode;
	// AskReason says why. Deny rules still refuse.
	Ask       bool
	AskReason string
	// Stop ends the turn (a hook answered continue: false); StopReason is shown to
	// the person.
	Stop       bool
	StopReason string
	// Messages are shown to the person (systemMessage).
	Messages []string
}

// The hook events the loop raises.
const (
	HookUserPromptSubmit = "UserPromptSubmit"
	HookPreToolUse       = "PreToolUse"
	HookPostToolUse      = "PostToolUse"
	HookStop             = "Stop"
	HookNotification     = "Notification"
)

// hook runs an event's hooks, when there are any, and shows their warnings.
func (a *Agent) hook(ctx context.Context, event, toolName string, fields map[string]any) (HookResult, bool) {
	if a.Hooks == nil || !a.Hooks.Has(event) {
		return HookResult{}, false
	}
	r := a.Hooks.Run(ctx, event, toolName, fields)
	for _, w := range r.Warnings {
		a.emit(face.Notice{Text: fmt.Sprintf("%s hook: %s", event, w)})
	}
	for _, m := range r.Messages {
		a.emit(face.Notice{Text: fmt.Sprintf("%s hook: %s", event, m), Info: true})
	}
	if r.Stop {
		a.mu.Lock()
		if a.hookStop == "" {
			a.hookStop = fmt.Sprintf("a %s hook stopped the turn: %s", event, r.StopReason)
		}
		a.mu.Unlock()
		a.emit(face.Notice{Text: fmt.Sprintf("%s hook stopped the turn: %s", event, r.StopReason)})
	}
	if r.Block {
		a.record("hook_blocked", map[string]any{"event": event, "tool": toolName, "reason": r.Reason})
	}
	return r, true
}

// subject is what the hooks of a call match and, when written for Claude Code, read.
func subject(p *pending) *tool.HookSubject {
	s := &tool.HookSubject{Name: p.block.ToolName, Claude: p.inv.Claude}
	if p.tool != nil {
		s.ClaudeNames = p.tool.Info().ClaudeNames
	}
	return s
}

// inputValue is a tool call's input as a JSON value for a hook's stdin.
func inputValue(raw json.RawMessage) any {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return v
}

// preToolUse runs the PreToolUse hooks of a prepared call. It may settle the call
// (blocked), replace its arguments (decoding them again), pre-approve it, or make it
// asked (p.askHook).
func (a *Agent) preToolUse(ctx context.Context, p *pending) (allow bool) {
	r, ran := a.hook(ctx, HookPreToolUse, p.block.ToolName, map[string]any{
		"tool_name": p.block.ToolName, "tool_input": inputValue(p.block.Input), "tool_use_id": p.block.ToolCallID,
		tool.HookSubjectKey: subject(p),
	})
	if !ran {
		return false
	}
	if r.Block {
		reason := r.Reason
		if reason == "" {
			reason = "no reason given"
		}
		a.settle(p, tool.Fail(fmt.Sprintf("%s was blocked by a PreToolUse hook: %s", p.block.ToolName, reason)), true)
		return false
	}
	if len(r.UpdatedInput) > 0 && json.Valid(r.UpdatedInput) {
		env, input := a.envFor(p.tool.Name()), r.UpdatedInput
		if r.UpdatedInputClaude != nil {
			mapped, msg := tool.FromClaude(p.tool, env, *r.UpdatedInputClaude, input)
			if msg != "" {
				a.settle(p, tool.Fail("A PreToolUse hook rewrote the arguments in Claude Code's names, and they cannot be taken: "+msg), false)
				return false
			}
			input = mapped
		}
		inv, msg := p.tool.Decode(env, input)
		if msg != "" {
			a.settle(p, tool.Fail("A PreToolUse hook rewrote the arguments, and they are not valid: "+msg), false)
			return false
		}
		p.inv = inv
		p.block.Input = input
		p.call = tool.Describe(p.tool, inv)
		p.note = "a PreToolUse hook rewrote the input"
	}
	if r.Ask {
		p.askHook = firstNonEmpty(r.AskReason, "a PreToolUse hook asks that you be asked")
		return false
	}
	return r.Allow
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// stoppedByHook returns why a hook stopped the turn, or "".
func (a *Agent) stoppedByHook() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.hookStop
}

// postToolUse runs the PostToolUse hooks of a call that ran; their feedback and
// context are added to what the model reads.
func (a *Agent) postToolUse(ctx context.Context, p *pending, res *tool.Result) {
	r, ran := a.hook(ctx, HookPostToolUse, p.block.ToolName, map[string]any{
		"tool_name": p.block.ToolName, "tool_input": inputValue(p.block.Input), "tool_use_id": p.block.ToolCallID,
		"tool_response":     map[string]any{"output": res.Text, "is_error": res.IsError},
		tool.HookSubjectKey: subject(p),
	})
	if !ran {
		return
	}
	if r.Block && r.Reason != "" {
		res.Text += "\n[PostToolUse hook: " + r.Reason + "]"
	}
	if r.Context != "" {
		res.Text += "\n[PostToolUse hook context: " + r.Context + "]"
	}
}

// promptBlocks is the user message of a prompt, with the context its
// UserPromptSubmit hooks added; blocked says the hooks refused the prompt.
func (a *Agent) promptMessage(ctx context.Context, prompt string, attached []llm.Block) (msg llm.Message, blocked string) {
	msg = llm.Message{Role: llm.RoleUser, Content: append([]llm.Block{{Type: llm.BlockText, Text: prompt}}, attached...)}
	if woken, _ := ctx.Value(wokenKey{}).(bool); woken {
		return msg, "" // nobody submitted it
	}
	r, ran := a.hook(ctx, HookUserPromptSubmit, "", map[string]any{"prompt": prompt})
	if !ran {
		return msg, ""
	}
	if r.Block {
		reason := r.Reason
		if reason == "" {
			reason = "no reason given"
		}
		return msg, reason
	}
	if r.Context != "" {
		msg.Content = append(msg.Content, llm.Block{Type: llm.BlockText, Text: "<hook-context>\n" + r.Context + "\n</hook-context>"})
	}
	return msg, ""
}

// stopHook runs the Stop hooks when the model ends its turn; a block gives the
// model the reason as a new prompt and the loop goes on. active says a Stop hook
// already made it go on in this turn (so a hook can let it stop).
func (a *Agent) stopHook(ctx context.Context, lastText string, active bool) (goOn string) {
	r, ran := a.hook(ctx, HookStop, "", map[string]any{"stop_hook_active": active, "last_message": lastText})
	if !ran || !r.Block {
		return ""
	}
	if r.Reason == "" {
		return "A Stop hook asked you to continue."
	}
	return r.Reason
}

type wokenKey struct{}

// Woken marks the turn run with ctx as one gantry started for what it tells the model
// (an asyncRewake hook's wake), not for a prompt the person submitted: no
// UserPromptSubmit hook runs for it, so a hook's wake cannot wake it again and again.
func Woken(ctx context.Context) context.Context { return context.WithValue(ctx, wokenKey{}, true) }
