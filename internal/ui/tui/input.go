package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/permission"
)

// key handles a key press: the dialog's when one is shown, else the input's.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s == "ctrl+c" {
		return m.ctrlC()
	}
	m.quitArmed = time.Time{}
	if s == "esc" && m.running {
		m.interrupt()
		return nil
	}
	if s == "esc" && m.app.StopWakeTurn() { // a turn a hook's wake started
		return nil
	}
	if s == "esc" && len(m.dialogs) == 0 && !m.comp.active() && m.stopWorkers() {
		return nil
	}
	m.stopArmed = time.Time{}
	if s == "alt+esc" && len(m.dialogs) == 0 && !m.comp.active() && m.input.Value() == "" && !m.running {
		// Two escapes pressed fast arrive as one key with alt.
		m.openRewind()
		return nil
	}
	if s == "esc" && len(m.dialogs) == 0 && !m.comp.active() && m.input.Value() == "" {
		if !m.rewindArmed.IsZero() && time.Since(m.rewindArmed) < time.Second {
			m.rewindArmed = time.Time{}
			m.openRewind()
			return nil
		}
		m.rewindArmed = time.Now()
		return nil
	}
	m.rewindArmed = time.Time{}
	if len(m.dialogs) > 0 {
		if m.scrollDialog(s) {
			return nil
		}
		if m.dialogs[0].key(m, k) {
			m.dialogs = m.dialogs[1:]
			m.dialogsChanged()
		}
		return nil
	}
	if m.comp.active() {
		switch s {
		case "tab":
			m.comp.accept(m)
			return nil
		case "enter":
			if !m.comp.command() {
				m.comp.accept(m)
				return nil
			}
			m.comp.accept(m) // a command: complete it and run it
			text := m.input.Value()
			m.input.Reset()
			m.comp.close()
			return m.submit(text)
		case "up":
			m.comp.move(-1)
			return nil
		case "down":
			m.comp.move(1)
			return nil
		case "esc":
			m.comp.close()
			return nil
		}
	}
	switch s {
	case "enter":
		text := m.input.Value()
		m.input.Reset()
		m.comp.close()
		return m.submit(text)
	case "shift+enter", "alt+enter", "ctrl+j":
		m.input.InsertString("\n")
		return nil
	case "shift+tab":
		m.cycleMode()
		return nil
	case "ctrl+t":
		if m.lastThink != "" {
			m.print(m.st.r(m.st.dim, "∴ "+strings.ReplaceAll(strings.TrimSpace(m.lastThink), "\n", "\n  ")))
		} else {
			m.say("no thinking to show yet")
		}
		return nil
	case "ctrl+o":
		m.reprint()
		return nil
	case "ctrl+v":
		if img, ok := clipboardImage(m.app); ok {
			m.attached = append(m.attached, img)
			m.say("image attached from the clipboard")
			return nil
		}
	case "up":
		if m.input.Line() == 0 {
			if prev, ok := m.hist.Prev(m.input.Value()); ok {
				m.input.SetValue(prev)
				return nil
			}
		}
	case "down":
		if m.input.Line() == m.input.LineCount()-1 {
			if next, ok := m.hist.Next(); ok {
				m.input.SetValue(next)
				return nil
			}
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return tea.Batch(cmd, m.comp.refresh(m))
}

// stopWorkers: esc between turns while vibe workers run asks first, and a second esc
// within two seconds stops them (esc alone never does: they outlive the turn). It
// reports whether esc was taken.
func (m *Model) stopWorkers() bool {
	running := runningWorkers(m.app.Workers())
	if running == 0 {
		m.stopArmed = time.Time{}
		return false
	}
	if !m.stopArmed.IsZero() && time.Since(m.stopArmed) < 2*time.Second {
		m.stopArmed = time.Time{}
		n := m.app.StopWorkers()
		m.print(m.st.r(m.st.dim, fmt.Sprintf("stopped %d worker(s)", n)))
		return true
	}
	m.stopArmed = time.Now()
	m.say(fmt.Sprintf("%d worker(s) running: press esc again to stop them", running))
	return true
}

// cycleMode moves to the next permission mode (shift+tab).
func (m *Model) cycleMode() {
	modes := permission.Modes
	now := m.app.Mode()
	for i, md := range modes {
		if md == now {
			next := modes[(i+1)%len(modes)]
			if m.app.ModeRefused(next) != "" {
				next = modes[(i+2)%len(modes)] // yolo disabled by the settings: skipped
			}
			m.app.SetMode(next) // its ModeChanged updates the status line
			m.say("mode: " + string(next) + " — " + next.About())
			break
		}
	}
}

// reprint prints the whole transcript again into the scrollback (ctrl+o), to copy a
// part of it in one piece after the terminal was resized or cleared.
func (m *Model) reprint() {
	all := append([]string(nil), m.transcript...)
	m.print(m.st.r(m.st.dim, "── transcript ──"))
	m.print(all...)
	m.print(m.st.r(m.st.dim, "── end of transcript ──"))
}

// paste inserts pasted text; a pasted path of an image file attaches the image.
func (m *Model) paste(text string) {
	if len(m.dialogs) > 0 {
		m.dialogs[0].paste(text)
		return
	}
	if img, ok := imageFile(strings.TrimSpace(text)); ok {
		m.attached = append(m.attached, img)
		m.say("image attached: " + filepath.Base(strings.TrimSpace(text)))
		return
	}
	m.input.InsertString(text)
}

// imageFile loads a pasted path when it names an image file, as read_file would.
func imageFile(path string) (llm.Image, bool) {
	path = strings.TrimPrefix(strings.Trim(path, `'"`), "file://")
	if path == "" || strings.Contains(path, "\n") {
		return llm.Image{}, false
	}
	return app.ReadImage(context.Background(), path)
}
