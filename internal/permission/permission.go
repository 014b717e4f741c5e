// Package permission is the gate between the agent loop and every tool call. It
// answers Allow, Ask or Deny from the permission mode and the allow/deny rules, and
// remembers the "always" answers of the session. Order: deny > allow > mode.
package permission

import (
	"fmt"
	"strings"
	"sync"

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

// Verdict is a decision with the sentence that explains it.
type Verdict struct {
	Decision Decision
	Reason   string
}

// Call is what the gate knows of a tool call.
type Call struct {
	Tool      string
	Level     tool.Level
	Principal string
}

// Gate decides whether a call runs. The rules engine of a later issue implements it too.
type Gate interface {
	Check(c Call) Verdict
	// Remember records an "always" answer for the rest of the session.
	Remember(c Call, allow bool)
}

// Engine is the gate built from a mode and allow/deny rules.
type Engine struct {
	mu       sync.Mutex
	mode     Mode
	allow    []Rule
	deny     []Rule
	remember []remembered
}

type remembered struct {
	tool, principal string
	allow           bool
}

// NewEngine makes a gate. Rules are in the form "tool" or "tool:regex".
func NewEngine(mode Mode, allow, deny []string) (*Engine, error) {
	e := &Engine{mode: mode}
	for _, s := range allow {
		r, err := ParseRule(s)
		if err != nil {
			return nil, err
		}
		e.allow = append(e.allow, r)
	}
	for _, s := range deny {
		r, err := ParseRule(s)
		if err != nil {
			return nil, err
		}
		e.deny = append(e.deny, r)
	}
	return e, nil
}

// Mode returns the current mode.
func (e *Engine) Mode() Mode {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.mode
}

// SetMode switches the mode.
func (e *Engine) SetMode(m Mode) {
	e.mu.Lock()
	e.mode = m
	e.mu.Unlock()
}

// Remember implements Gate. An "always" is kept for this exact tool and principal.
func (e *Engine) Remember(c Call, allow bool) {
	e.mu.Lock()
	e.remember = append(e.remember, remembered{c.Tool, c.Principal, allow})
	e.mu.Unlock()
}

// Check implements Gate.
func (e *Engine) Check(c Call) Verdict {
	e.mu.Lock()
	defer e.mu.Unlock()
	parts := []string{c.Principal}
	if c.Tool == "bash" {
		parts = SplitCommand(c.Principal)
	}
	for _, r := range e.deny {
		for _, p := range parts {
			if r.Match(c.Tool, p) {
				return Verdict{Deny, fmt.Sprintf("a deny rule (%s) forbids it", r)}
			}
		}
	}
	for _, m := range e.remember {
		if m.tool == c.Tool && m.principal == c.Principal {
			if m.allow {
				return Verdict{Allow, "allowed for this session"}
			}
			return Verdict{Deny, "the user refused it for this session"}
		}
	}
	if e.allowedByRules(c, parts) {
		return Verdict{Allow, "an allow rule permits it"}
	}
	switch e.mode {
	case ModeYolo:
		return Verdict{Allow, "yolo mode"}
	case ModePlan:
		if c.Level == tool.LevelRead {
			return Verdict{Allow, "read tools run in plan mode"}
		}
		return Verdict{Deny, "plan mode allows only read tools"}
	case ModeAcceptEdits:
		if c.Level <= tool.LevelWrite {
			return Verdict{Allow, "accept-edits mode"}
		}
		return Verdict{Ask, "accept-edits mode asks before running commands"}
	default:
		if c.Level == tool.LevelRead {
			return Verdict{Allow, "read tools need no permission"}
		}
		return Verdict{Ask, fmt.Sprintf("default mode asks before %s tools", c.Level)}
	}
}

// allowedByRules: a compound shell command is allowed only when every part is.
func (e *Engine) allowedByRules(c Call, parts []string) bool {
	if len(e.allow) == 0 {
		return false
	}
	if c.Tool == "bash" && hasOpaqueShell(c.Principal) {
		return false
	}
	for _, p := range parts {
		ok := false
		for _, r := range e.allow {
			if r.Match(c.Tool, p) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// hasOpaqueShell reports constructs whose parts a simple split cannot see: command
// substitution, backquotes, process substitution, subshells, here-docs.
func hasOpaqueShell(cmd string) bool {
	for _, s := range []string{"$(", "`", "<(", ">(", "<<"} {
		if strings.Contains(cmd, s) {
			return true
		}
	}
	return strings.HasPrefix(strings.TrimSpace(cmd), "(")
}
