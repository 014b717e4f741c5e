// Package face is the boundary between the core and the faces (print, terminal UI,
// ACP, MCP): the typed events the core publishes, and the Asker through which it asks
// questions. The core imports this package and no face; faces import it to render and
// to answer.
package face

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Event is one thing that happened in a session. The concrete types below are the
// whole set; a face switches on them and ignores what it does not render.
type Event interface{ event() }

// TextDelta is a piece of the model's answer.
type TextDelta struct{ Text string }

// ThinkingDelta is a piece of the model's reasoning.
type ThinkingDelta struct{ Text string }

// Retry says the model request failed and is being retried; what was streamed of the
// failed attempt is void.
type Retry struct {
	Attempt int
	Reason  string
}

// SessionStarted is the first event of a session, sent by App.Start: what it is and
// the tools it declares (MCP servers' included).
type SessionStarted struct {
	SessionID string
	Resumed   bool
	Provider  string
	Model     string
	Mode      permission.Mode
	Cwd       string
	Tools     []string
	// ContextWindow is the model's context window in tokens (0: unknown).
	ContextWindow int
}

// ModeChanged says the permission mode changed: by the person (a face asked the App),
// by the model (enter_plan_mode, an approved plan) or by a plan's answer.
type ModeChanged struct {
	Mode, Previous permission.Mode
}

// ModelChanged says the model of the next requests changed.
type ModelChanged struct {
	Model         string
	ContextWindow int
}

// ToolStarted is sent once per call, after the PreToolUse hooks and before the
// permission gate. Input is the call's arguments as they will run: when a hook
// rewrote them, the rewritten ones, and Note says so.
type ToolStarted struct {
	CallID string
	tool.Call
	Input json.RawMessage
	Note  string
}

// ToolRunning is sent when a call the gate let through starts to run (after
// ToolStarted and any permission question).
type ToolRunning struct {
	CallID string
	Name   string
}

// ToolFinished is sent exactly once per call, also when it was refused or cancelled.
type ToolFinished struct {
	CallID string
	tool.Call
	Result tool.Result
	// Refused is set when the gate or the person refused the call.
	Refused bool
	// Cancelled is set when the turn was interrupted before the call ran or while it
	// ran (its processes were killed).
	Cancelled bool
	// Duration is the tool's own run time (zero when it did not run).
	Duration time.Duration
}

// TurnUsage reports the tokens and cost of one model response, and the session's
// running totals.
type TurnUsage struct {
	Model        string
	Usage        llm.Usage
	Cost         float64 // USD, 0 when the model's price is unknown
	SessionUsage llm.Usage
	SessionCost  float64
	// Elsewhere marks usage spent outside the conversation's own requests (a
	// subagent's, a summary's): Usage then says nothing of how full the context is.
	Elsewhere bool
}

// Counters are the counts of tool responses of a turn, by the counter class each
// tool declares (tool.Info.Counter).
type Counters struct {
	Commands int `json:"commands"` // bash
	FileOps  int `json:"file_ops"` // read_file, write_file, edit_file, apply_patch
	Skills   int `json:"skills"`   // read_skill
}

// Count adds one response of a tool of counter class c.
func (c *Counters) Count(class tool.Counter) {
	switch class {
	case tool.CountCommand:
		c.Commands++
	case tool.CountFileOp:
		c.FileOps++
	case tool.CountSkill:
		c.Skills++
	}
}

// Add returns the sum of two counters.
func (c Counters) Add(o Counters) Counters {
	return Counters{c.Commands + o.Commands, c.FileOps + o.FileOps, c.Skills + o.Skills}
}

// StepEnded closes one model response and the tool calls it made; Counters are the
// turn's so far (this step's responses and those of the steps before it).
type StepEnded struct {
	Step     int
	Counters Counters
}

// TurnEnded closes one user turn (a prompt and every model response and tool call it
// led to).
type TurnEnded struct {
	// Counters are the totals of the whole turn; Steps the number of model responses.
	Counters   Counters
	Steps      int
	StopReason string // "end_turn", "max_turns", "cancelled", "error", "max_tokens", "blocked"
	Text       string // the final answer text
	Err        error
	// StoreErr is the first error of the session store in this turn: what happened
	// was not all stored (a full disk, a read-only data folder). The turn itself may
	// have ended well.
	StoreErr error
}

// TodoItem is one entry of the todo list.
type TodoItem struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"` // pending, in_progress, completed
}

// TodoList is the whole todo list after a change; faces show it (ACP: a plan update).
type TodoList struct{ Items []TodoItem }

// FromSubagent wraps an event of a subagent (the agent tool): ID tells subagents
// apart, Label is the task's short description.
type FromSubagent struct {
	ID, Label string
	Event     Event
}

// ExecBlocked is sent, before the call's ToolFinished, for each program the exec
// supervisor refused to run during a call: the deny rule, and the command as the
// rule saw it (the program's name and its real arguments).
type ExecBlocked struct {
	CallID  string
	Rule    string
	Command string
}

// Text is the line faces show for it.
func (e ExecBlocked) Text() string {
	return "blocked by deny rule " + e.Rule + ": " + tool.OneLine(e.Command, 200)
}

// Notice is a line for the person about the session itself: a hook that failed or
// blocked, a setting that was ignored, a store that could not write. Info marks a
// line that reports something done (a rule saved), not a problem.
type Notice struct {
	Text string
	Info bool
}

func (SessionStarted) event() {}
func (ModeChanged) event()    {}
func (ModelChanged) event()   {}
func (Notice) event()         {}
func (ExecBlocked) event()    {}
func (TodoList) event()       {}
func (FromSubagent) event()   {}
func (TextDelta) event()      {}
func (ThinkingDelta) event()  {}
func (Retry) event()          {}
func (ToolStarted) event()    {}
func (ToolFinished) event()   {}
func (ToolRunning) event()    {}
func (ToolOutput) event()     {}
func (TurnUsage) event()      {}
func (StepEnded) event()      {}
func (TurnEnded) event()      {}

// ToolOutput is the tail of what a running call printed so far (a command's output),
// sent at most ten times a second while it prints.
type ToolOutput struct {
	CallID string
	Tail   string // the last few KB, from a line's start
}

// Sink receives events. It is called from the agent's goroutine(s) and must not block
// for long; finished events are never dropped.
type Sink func(Event)

// PermissionRequest asks whether a tool call may run.
type PermissionRequest struct {
	CallID string
	tool.Call
	Input json.RawMessage
	// Reason says why the gate asks (e.g. "default mode asks before exec tools").
	Reason string
	// Preview is what the call would change (the diff of a write), empty for calls
	// that change nothing a diff shows.
	Preview tool.Display
	// Always is what an "always" answer remembers, to show before the person picks it.
	Always permission.Grant
	// EveryMode: no permission mode lets the call through without the question (a
	// protected path); ByHook: a PreToolUse hook asked it, so no rule does either.
	EveryMode, ByHook bool
}

// Answer is the person's answer to a permission request.
type Answer int

// The answers. AllowAlwaysSaved is AllowAlways that the person also wants written
// into the project's rules file.
const (
	AllowOnce Answer = iota
	AllowAlways
	DenyOnce
	DenyAlways
	AllowAlwaysSaved
)

// ErrNoHuman is returned by an Asker that has nobody to ask.
var ErrNoHuman = errors.New("no human is attached to answer")

// Option is one choice of a question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Question is one question of ask_user.
type Question struct {
	Header        string   `json:"header,omitempty"` // a short label (batch shape)
	Question      string   `json:"question"`
	Context       string   `json:"context,omitempty"`
	Options       []Option `json:"options,omitempty"`
	AllowFreeText bool     `json:"allow_free_text,omitempty"`
	MultiSelect   bool     `json:"multi_select,omitempty"`
}

// UserAnswer is the person's answer to a set of questions.
type UserAnswer struct {
	// Passed: the person chose not to answer; the model goes on with an assumption.
	Passed bool
	// Answers holds, per question, the chosen option labels or the free text.
	Answers [][]string
}

// PlanRequest is a plan for the person to approve, and what approving it grants: every
// face shows the plan and GrantLines, so that nobody approves a rule unseen.
type PlanRequest struct {
	Plan string
	// Grants are the allow rules approving adds, exactly as the permission engine will
	// hold them, for this session only (never saved, gone with /clear, /resume or a new
	// session).
	Grants []PlanGrant
	// Described are what the plan described in words (Claude Code's allowedPrompts
	// such as "run tests"): shown to the person, they grant nothing.
	Described []string
}

// PlanGrant is one rule an approved plan grants.
type PlanGrant struct {
	Rule string
	// Warning, when set, says the rule is broad ("allows every command without
	// asking"): it is shown beside the rule.
	Warning string
	// From is what the model wrote when the rule was derived from it (a Claude Code
	// prompt that is a command), else "".
	From string
}

// GrantLines are the request's grants and descriptions as every face shows them, one
// a line, with no markup; none when approving grants nothing.
func (r PlanRequest) GrantLines() []string {
	var out []string
	if len(r.Grants) > 0 {
		out = append(out, "Approving also allows without asking, for this session only (never saved):")
		for _, g := range r.Grants {
			l := "  • " + g.Rule
			if g.From != "" {
				l += fmt.Sprintf(" (the plan asked for %q)", g.From)
			}
			out = append(out, l)
			if g.Warning != "" {
				out = append(out, "    ⚠ "+g.Warning)
			}
		}
	}
	if len(r.Described) > 0 {
		out = append(out, "The plan also describes these actions; they grant nothing, each call asks as usual:")
		for _, d := range r.Described {
			out = append(out, "  • "+d)
		}
	}
	return out
}

// PlanAnswer is the person's verdict on a plan.
type PlanAnswer struct {
	Approved bool
	// Feedback is what the person said (why not, or what to change).
	Feedback string
	// Mode is the permission mode to work in once an approved plan leaves plan mode;
	// empty: the mode the session had before it entered plan mode.
	Mode permission.Mode
}

// Asker is how the core asks the face a question. Each method blocks until answered
// or until ctx is done; a face with nobody to ask returns ErrNoHuman at once.
type Asker interface {
	AskPermission(ctx context.Context, req PermissionRequest) (Answer, error)
	AskUser(ctx context.Context, questions []Question) (UserAnswer, error)
	ApprovePlan(ctx context.Context, req PlanRequest) (PlanAnswer, error)
	Trusting
}

// NoHuman is the Asker of a face with nobody to ask: it answers ErrNoHuman at once.
type NoHuman struct{}

// Nobody reports whether asker has nobody to ask: it is nil, NoHuman, or an Asker
// that says so with a NoHuman() bool method (one that stands for another).
func Nobody(asker Asker) bool {
	switch a := asker.(type) {
	case nil, NoHuman:
		return true
	case interface{ NoHuman() bool }:
		return a.NoHuman()
	}
	return false
}

// AskPermission implements Asker.
func (NoHuman) AskPermission(context.Context, PermissionRequest) (Answer, error) {
	return DenyOnce, ErrNoHuman
}

// AskUser implements Asker.
func (NoHuman) AskUser(context.Context, []Question) (UserAnswer, error) {
	return UserAnswer{}, ErrNoHuman
}

// ApprovePlan implements Asker.
func (NoHuman) ApprovePlan(context.Context, PlanRequest) (PlanAnswer, error) {
	return PlanAnswer{}, ErrNoHuman
}
