// Package permission is the gate between the agent loop and every tool call. It
// answers Allow, Ask or Deny from the permission mode, the allow and deny rules of the
// rules files (.gantry/permissions.yaml and the user's permissions.yaml, see LoadRules)
// and of the flags, and the answers the person gave "always" in this session. Order:
// deny > remembered > allow > mode.
//
// A rule is "tool" or "tool:regex", the regex matching the tool's principal argument
// whole. bash commands are parsed with a real shell parser (Commands): a deny rule
// matching any simple command the script would run denies it; an allow needs every
// simple command matched by an allow rule, with none whose program is computed or that
// runs inline code; a command that cannot be parsed is never allowed by a rule. Where a
// deny rule names bash, a command whose program cannot be known before it runs is
// refused in every mode.
package permission

import (
	"fmt"

	"github.com/gantry-dev/gantry/internal/tool"
)

// Mode is a permission mode.
type Mode string

// The permission modes.
const (
	ModeDefault     Mode = "default"      // ask for write and exec
	ModeAcceptEdits Mode = "accept-edits" // ask only for exec
	ModePlan        Mode = "plan"         // read only
	ModeYolo        Mode = "yolo"         // ask nothing; deny rules still hold
)

// Modes lists the valid modes, in the order they are documented.
var Modes = []Mode{ModeDefault, ModeAcceptEdits, ModePlan, ModeYolo}

// ParseMode checks a mode name.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown permission mode %q (want default, accept-edits, plan or yolo)", s)
}

// About says in a few words what the mode lets gantry do, for the model and people.
func (m Mode) About() string {
	switch m {
	case ModeAcceptEdits:
		return "file edits run without asking; commands still ask"
	case ModePlan:
		return "read tools only, until a plan is approved with exit_plan_mode"
	case ModeYolo:
		return "nothing asks; deny rules still hold"
	default:
		return "file edits and commands ask first, unless a rule allows them"
	}
}

// MaxLevel is the highest tool level the mode declares to the model.
func (m Mode) MaxLevel() tool.Level {
	if m == ModePlan {
		return tool.LevelRead
	}
	return tool.LevelExec
}

// Decision is the gate's answer.
type Decision int

// The three answers.
const (
	Allow Decision = iota
	Ask
	Deny
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// Verdict is a decision with the sentence that explains it.
type Verdict struct {
	Decision Decision
	Reason   string
	// AllowRule, for a question about a protected path, is the rule that would allow
	// it (for the sentence of a face that cannot ask).
	AllowRule string
	// EveryMode: the question is asked in every mode, yolo included (a file that
	// runs code later), so no mode would allow it.
	EveryMode bool
}

// Call is what the gate knows of a tool call.
type Call struct {
	Tool string
	// Level is what the call may change, by which default and accept-edits modes ask:
	// its operation's level for a tool with operations (a debug stack reads, a launch
	// runs code; see tool.Ops), else its tool's.
	Level tool.Level
	// ToolLevel is the tool's own level, when above Level: plan mode goes by the
	// higher of the two, and so allows only read tools, as it declares only those.
	ToolLevel tool.Level
	Principal string
	// Paths are the absolute paths the call touches (empty for calls of no path).
	// Path rules are matched against their canonical forms.
	Paths []string
	// Files says how the tool uses them: a path rule covers every tool of the same
	// family (see SetFileTools).
	Files tool.Files
	// Mode, when set, checks the call under the stricter of it and the engine's mode
	// (Stricter): a subagent's definition may narrow what its caller may do, never
	// widen it.
	Mode Mode
}

// planLevel is the level plan mode judges the call by: its tool's, for an operation
// of an exec tool that only reads.
func (c Call) planLevel() tool.Level { return max(c.Level, c.ToolLevel) }

// strictness ranks the modes from the one that lets the most run without a question.
var strictness = map[Mode]int{ModeYolo: 0, ModeAcceptEdits: 1, ModeDefault: 2, ModePlan: 3}

// Stricter is the stricter of a and b; an empty or unknown mode counts for nothing.
func Stricter(a, b Mode) Mode {
	ra, oka := strictness[a]
	rb, okb := strictness[b]
	switch {
	case !oka:
		return b
	case !okb || ra >= rb:
		return a
	}
	return b
}

// Gate decides whether a call runs. Engine implements it.
type Gate interface {
	Check(c Call) Verdict
	// Suggest says what an "always" answer to c would remember, for the question.
	Suggest(c Call) Grant
	// Grant keeps an "always allow" answer for the rest of the session.
	Grant(c Call, g Grant) error
	// Remember records an "always" answer for this exact call (deny always).
	Remember(c Call, allow bool)
}
