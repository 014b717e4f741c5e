package plan

import (
	"sync"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Session is what the plan-mode tools need of a session: its permission mode and its
// session rules. The permission engine implements it.
type Session interface {
	Mode() permission.Mode
	SetMode(permission.Mode)
	// AllowForSession adds allow rules ("tool" or "tool:regex") for the rest of the
	// session; an error says why a rule was refused.
	AllowForSession(rules []string) error
	// Suggest is what an "always" answer to c would keep (the rule a plan's command
	// becomes).
	Suggest(c permission.Call) permission.Grant
}

// Switch holds, for one session, the mode that was active before enter_plan_mode, so
// that exit_plan_mode can restore it. Make one per session and take both tools from it.
type Switch struct {
	s    Session
	mu   sync.Mutex
	prev permission.Mode // "" when unknown (the session started in plan mode)
}

// NewSwitch returns the plan-mode switch of s.
func NewSwitch(s Session) *Switch { return &Switch{s: s} }

// Tools returns enter_plan_mode and exit_plan_mode of s, sharing one Switch.
func Tools(s Session, asker face.Asker) []tool.Tool {
	w := NewSwitch(s)
	return []tool.Tool{w.Enter(), w.Exit(asker)}
}

// enter switches to plan mode and remembers the mode it left. It reports false when
// the session was in plan mode already (the remembered mode is then kept).
func (w *Switch) enter() (left permission.Mode, switched bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.s.Mode()
	if m == permission.ModePlan {
		return m, false
	}
	w.prev = m
	w.s.SetMode(permission.ModePlan)
	return m, true
}

// leave switches to the mode the person chose with their approval (to), else to the
// mode remembered by enter (default when unknown), and forgets it. When the person
// already switched away from plan mode, their choice stands.
func (w *Switch) leave(to permission.Mode) permission.Mode {
	w.mu.Lock()
	defer w.mu.Unlock()
	back := w.prev
	w.prev = ""
	if to != "" && to != permission.ModePlan {
		back = to
	}
	if back == "" || back == permission.ModePlan {
		back = permission.ModeDefault
	}
	if m := w.s.Mode(); m != permission.ModePlan {
		return m
	}
	w.s.SetMode(back)
	return back
}
