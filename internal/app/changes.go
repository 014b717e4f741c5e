package app

import (
	"fmt"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/session"
)

// The person's changes to the session: its title, model and mode.

// SetTitle names a new session after its first prompt.
func (a *App) SetTitle(prompt string) {
	if a.sess != nil && !a.resumed && len(a.agent.History()) == 0 {
		a.agent.StoreError(a.sess.SetTitle(session.Title(prompt)))
	}
}

// SetModel makes model the one the next requests use, with its context window, and
// says so (face.ModelChanged). It must not be called while a turn runs.
func (a *App) SetModel(model string) {
	if model == a.agent.Config.Model {
		return
	}
	a.agent.Config.Model = model
	a.agent.Config.ContextWindow = contextWindow(a.cfg, model)
	a.emit(face.ModelChanged{Model: model, ContextWindow: a.agent.Config.ContextWindow})
}

// SetMode switches the permission mode for the person, says so (face.ModeChanged) and
// tells the model with its next prompt.
func (a *App) SetMode(m permission.Mode) {
	if a.changeMode(m) {
		a.mu.Lock()
		a.modeNote = true
		a.mu.Unlock()
	}
}

// ModeRefused says why the session may not switch to mode m (yolo, when a Claude
// Code settings file has disableBypassPermissionsMode: "disable"), or "".
func (a *App) ModeRefused(m permission.Mode) string {
	if m != permission.ModeYolo || a.cfg.Claude.NoYolo == "" {
		return ""
	}
	return fmt.Sprintf("the yolo mode is disabled by disableBypassPermissionsMode in %s", a.cfg.Claude.NoYolo)
}

// changeMode switches the mode and sends ModeChanged when it changed; a mode that is
// refused (ModeRefused) is said and not taken.
func (a *App) changeMode(m permission.Mode) bool {
	if why := a.ModeRefused(m); why != "" {
		a.emit(face.Notice{Text: why})
		return false
	}
	prev := a.gate.SetMode(m)
	if prev == m {
		return false
	}
	a.emit(face.ModeChanged{Mode: m, Previous: prev})
	return true
}
