package tui

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/session"
)

// openResumePicker is /resume with no id: the stored sessions of this folder, newest
// first, each with its first prompt and age; the session being run here is not among
// them, nor vibe workers' sessions. Enter resumes one.
func (m *Model) openResumePicker() {
	list, running, err := m.folderSessions()
	if err != nil {
		m.print(m.st.r(m.st.warn, "⚠ the sessions could not be listed: "+err.Error()))
		return
	}
	if len(list) == 0 {
		m.say("no other session of this folder to resume (/sessions lists them all)")
		return
	}
	now := time.Now()
	items := make([]pickItem, 0, len(list))
	at := 0 // the session /clear or /resume just left, when it is listed
	for i, s := range list {
		if s.ID == m.prevSession {
			at = i
		}
		title := s.Title
		if title == "" {
			title = "(no prompt yet)"
		}
		label := fmt.Sprintf("%-8s %s", age(now.Sub(s.Updated)), oneLine(title, 200))
		if h, ok := running[s.ID]; ok {
			label += m.st.r(m.st.dim, fmt.Sprintf("  (run by another gantry, pid %d)", h.PID))
		}
		items = append(items, pickItem{value: s.ID, label: label, search: s.ID + " " + title})
	}
	d := newPicker(fmt.Sprintf("Resume a session of this folder (%d)", len(items)), items, at, func(m *Model, it pickItem) {
		m.resume(it.value)
	})
	d.empty = "no session's first prompt or id holds the filter"
	m.dialogs = append(m.dialogs, d)
	m.dialogsChanged()
}

// folderSessions are the people's sessions stored for this folder, newest first, but
// the one being run here, and those other gantry processes run.
func (m *Model) folderSessions() ([]session.Info, map[string]session.Holder, error) {
	st, err := session.OpenRead(app.StorePath(m.opts.App))
	if errors.Is(err, session.ErrNoStore) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	all, err := st.List(0)
	if err != nil {
		return nil, nil, err
	}
	running, err := st.Running()
	if err != nil {
		return nil, nil, err
	}
	cwd := m.app.Cwd()
	var out []session.Info
	for _, s := range all {
		here := s.Cwd == cwd || s.Cwd == filepath.Clean(cwd) || s.Cwd == session.Canonical(cwd)
		if here && s.Parent == "" && s.ID != m.app.SessionID() {
			out = append(out, s)
		}
	}
	return out, running, nil
}

// resume switches to the stored session id and prints its conversation. The
// session being run here is said to be this one, and one another gantry runs is
// named with its holder, not with the command line's advice.
func (m *Model) resume(id string) {
	if id == m.app.SessionID() {
		m.say("session " + id + " is the one you are in")
		return
	}
	if err := m.switchSession(id); err != nil {
		var held *session.HeldError
		if errors.As(err, &held) {
			m.print(m.st.r(m.st.warn, "⚠ "+held.Error()+": wait until it ends there, or pick another session"))
			return
		}
		m.print(m.st.r(m.st.warn, "⚠ "+err.Error()))
		return
	}
	m.replay()
}

// age says how long ago t was, shortly: "just now", "5m ago", "3h ago", "2d ago".
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}
