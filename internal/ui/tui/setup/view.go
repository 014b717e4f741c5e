package setup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/gantry-dev/gantry/internal/config"
)

// maxWidth bounds the views, whatever the terminal's width.
const maxWidth = 80

// quitHint ends the hints of every step.
const quitHint = "Esc: quit without saving"

// page is a view being built: lines no wider than width, and where the cursor goes.
type page struct {
	width  int
	lines  []string
	cursor *tea.Cursor
}

// para adds text wrapped to the page's width.
func (p *page) para(text string) {
	p.lines = append(p.lines, strings.Split(lipgloss.Wrap(text, p.width, ""), "\n")...)
}

func (p *page) blank() { p.lines = append(p.lines, "") }

// input adds a text input on a line of its own, and puts the terminal's cursor in it
// when it has the focus.
func (p *page) input(in textinput.Model) {
	if c := in.Cursor(); c != nil {
		c.Position.Y = len(p.lines)
		p.cursor = c
	}
	p.lines = append(p.lines, in.View())
}

func (p *page) String() string {
	for i, l := range p.lines {
		p.lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(p.lines, "\n")
}

// contentWidth is the width the views use.
func (m Model) contentWidth() int { return max(min(m.width, maxWidth), 20) }

// fitInputs sizes the text inputs to the content width: a longer value scrolls.
func (m *Model) fitInputs() {
	w := m.contentWidth()
	fit(&m.key, w)
	fit(&m.model, w)
}

// fit sizes in to width columns, prompt and cursor included. The input scrolls its
// value only when it changes, so the value is set again to scroll it now.
func fit(in *textinput.Model, width int) {
	in.SetWidth(width - lipgloss.Width(in.Prompt) - 1)
	v, pos := in.Value(), in.Position()
	in.Reset()
	in.SetValue(v)
	in.SetCursor(pos)
}

// View draws the current step.
func (m Model) View() tea.View {
	p := &page{width: m.contentWidth()}
	titles := map[step]string{stepProvider: "provider", stepKey: "API key", stepModel: "model", stepConfirm: "confirm"}
	if m.step != stepDone {
		p.para(m.st.r(m.st.title, fmt.Sprintf("Set up gantry (step %d of 4: %s)", m.step+1, titles[m.step])))
		p.blank()
	}
	var hint string
	switch m.step {
	case stepProvider:
		hint = m.viewProvider(p)
	case stepKey:
		hint = m.viewKey(p)
	case stepModel:
		hint = m.viewModel(p)
	case stepConfirm:
		hint = m.viewConfirm(p)
	case stepDone:
		m.viewDone(p)
	}
	if m.problem != "" {
		p.blank()
		p.para(m.st.r(m.st.warn, m.problem))
	}
	if hint != "" {
		p.blank()
		p.para(m.st.r(m.st.dim, hint+" · "+quitHint))
	}
	v := tea.NewView(p.String() + "\n")
	v.Cursor = p.cursor
	return v
}

func (m Model) viewProvider(p *page) string {
	p.para("No model provider is configured yet. Which one should gantry use?")
	p.blank()
	for i, pr := range providers {
		line := fmt.Sprintf("%d. %-12s  %s", i+1, pr.name, pr.about)
		if i == m.choice {
			p.para(m.st.r(m.st.accent, "> "+line))
		} else {
			p.para("  " + line)
		}
	}
	return "↑/↓ or j/k: move · Enter or 1-3: choose"
}

func (m Model) viewKey(p *page) string {
	pr := providers[m.choice]
	if m.envKey {
		p.para(m.st.r(m.st.key, pr.env) + " is set in your environment: gantry will use it, and stores no key.")
		return "Enter: use it"
	}
	p.para(fmt.Sprintf("Paste your %s API key. gantry stores it in %s, readable only by you (%s, when set, wins over it).",
		pr.label, tilde(config.CredentialsPath()), m.st.r(m.st.key, pr.env)))
	p.blank()
	p.input(m.key)
	return "Enter: continue"
}

func (m Model) viewModel(p *page) string {
	pr := providers[m.choice]
	p.para(fmt.Sprintf("Which model? %s is the default for %s; edit the name to use another.",
		m.st.r(m.st.key, pr.defaultModel), pr.name))
	p.blank()
	p.input(m.model)
	return "Enter: continue"
}

func (m Model) viewConfirm(p *page) string {
	pr := providers[m.choice]
	key := "from " + pr.env + ", not stored"
	if !m.envKey {
		key = fmt.Sprintf("typed (%d characters), stored in %s (mode 600)", len([]rune(m.key.Value())), tilde(config.CredentialsPath()))
	}
	for _, row := range [][2]string{{"provider", pr.name}, {"key", key}, {"model", m.model.Value()}} {
		const indent = "  %-10s"
		value := strings.Split(lipgloss.Wrap(row[1], p.width-12, " /"), "\n")
		for i, v := range value {
			label := ""
			if i == 0 {
				label = m.st.r(m.st.dim, fmt.Sprintf(indent, row[0]))
			} else {
				label = fmt.Sprintf(indent, "")
			}
			p.lines = append(p.lines, label+v)
		}
	}
	p.blank()
	if m.configExists {
		p.para(fmt.Sprintf("provider and model go into %s; the rest of that file is kept.", tilde(configPath())))
	} else {
		p.para(fmt.Sprintf("provider and model go into a new %s.", tilde(configPath())))
	}
	return "Enter: save"
}

func (m Model) viewDone(p *page) {
	if m.result.Aborted {
		p.para("Setup stopped: nothing was written.")
		return
	}
	p.para(fmt.Sprintf("gantry is set up: %s, model %s. The settings are in %s.",
		m.st.r(m.st.accent, m.result.Provider), m.st.r(m.st.accent, m.result.Model), tilde(configPath())))
}

// tilde writes path with the home folder as "~".
func tilde(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return path
	}
	if rel, err := filepath.Rel(home, path); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return filepath.Join("~", rel)
	}
	return path
}
