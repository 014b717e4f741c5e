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
	fit(&m.url, w)
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
	titles := map[step]string{stepProvider: "provider", stepServer: "server", stepKey: "API key", stepModel: "model", stepConfirm: "confirm"}
	if m.step != stepDone {
		n, total := m.stepNumber()
		p.para(m.st.r(m.st.title, fmt.Sprintf("Set up gantry (step %d of %d: %s)", n, total, titles[m.step])))
		p.blank()
	}
	var hint string
	switch m.step {
	case stepProvider:
		hint = m.viewProvider(p)
	case stepServer:
		hint = m.viewServer(p)
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

// stepNumber is the number of the current step and how many there are for the
// provider chosen (or, on the first step, the one the cursor is on).
func (m Model) stepNumber() (n, total int) {
	steps := []step{stepProvider, stepKey, stepModel, stepConfirm}
	if providers[m.choice].servers {
		steps = []step{stepProvider, stepServer, stepKey, stepModel, stepConfirm}
	}
	for i, s := range steps {
		if s == m.step {
			n = i + 1
		}
	}
	return n, len(steps)
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

func (m Model) viewServer(p *page) string {
	p.para("Which server answers gantry's Chat Completions requests?")
	p.blank()
	for i, sv := range servers {
		about := sv.about
		if about == "" {
			about = sv.url
		}
		line := fmt.Sprintf("%d. %-10s  %s", i+1, sv.name, about)
		if i == m.server {
			p.para(m.st.r(m.st.accent, "> "+line))
		} else {
			p.para("  " + line)
		}
	}
	if env := os.Getenv("OPENAI_BASE_URL"); env != "" {
		p.blank()
		p.para(m.st.r(m.st.warn, fmt.Sprintf("OPENAI_BASE_URL is set in your environment (%s): while it is, it wins over the server chosen here.", env)))
	}
	if m.typing {
		p.blank()
		p.para("Its base URL, as the server documents it (usually ending in /v1):")
		p.blank()
		p.input(m.url)
		return "Enter: continue"
	}
	return "↑/↓ or j/k: move · Enter or 1-4: choose"
}

func (m Model) viewKey(p *page) string {
	pr := providers[m.choice]
	if m.envKey {
		p.para(m.st.r(m.st.key, pr.env) + " is set in your environment: gantry will use it, and stores no key.")
		return "Enter: use it"
	}
	if m.baseURL != "" {
		p.para(fmt.Sprintf("A local server needs no key: press Enter to go on without one. If the server at %s wants one, paste it: gantry stores it in %s as your %s key, readable only by you.",
			m.baseURL, tilde(config.CredentialsPath()), pr.label))
		p.blank()
		p.input(m.key)
		return "Enter: continue"
	}
	p.para(fmt.Sprintf("Paste your %s API key. gantry stores it in %s, readable only by you (%s, when set, wins over it).",
		pr.label, tilde(config.CredentialsPath()), m.st.r(m.st.key, pr.env)))
	p.blank()
	p.input(m.key)
	return "Enter: continue"
}

func (m Model) viewModel(p *page) string {
	pr := providers[m.choice]
	if m.baseURL != "" {
		p.para("Which model? Type its name as the server knows it (for Ollama, a name that ollama list shows).")
		p.blank()
		p.input(m.model)
		return "Enter: continue"
	}
	p.para(fmt.Sprintf("Which model? %s is the default for %s; edit the name to use another.",
		m.st.r(m.st.key, pr.defaultModel), pr.name))
	p.blank()
	p.input(m.model)
	return "Enter: continue"
}

func (m Model) viewConfirm(p *page) string {
	pr := providers[m.choice]
	key := "from " + pr.env + ", not stored"
	switch {
	case m.storesKey():
		key = fmt.Sprintf("typed (%d characters), stored in %s (mode 600)", len([]rune(m.key.Value())), tilde(config.CredentialsPath()))
	case !m.envKey:
		key = "none"
	}
	rows := [][2]string{{"provider", pr.name}}
	if pr.servers {
		server := "OpenAI's API"
		if m.baseURL != "" {
			server = m.baseURL
		}
		rows = append(rows, [2]string{"server", server})
	}
	rows = append(rows, [2]string{"key", key}, [2]string{"model", m.model.Value()})
	for _, row := range rows {
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
	keys := "provider and model go"
	if m.baseURL != "" {
		keys = "provider, model and providers." + pr.name + ".baseURL go"
	}
	if m.configExists {
		p.para(fmt.Sprintf("%s into %s; the rest of that file is kept.", keys, tilde(configPath())))
	} else {
		p.para(fmt.Sprintf("%s into a new %s.", keys, tilde(configPath())))
	}
	return "Enter: save"
}

func (m Model) viewDone(p *page) {
	if m.result.Aborted {
		p.para("Setup stopped: nothing was written.")
		return
	}
	provider := m.st.r(m.st.accent, m.result.Provider)
	if m.result.BaseURL != "" {
		provider += " at " + m.st.r(m.st.accent, m.result.BaseURL)
	}
	p.para(fmt.Sprintf("gantry is set up: %s, model %s. The settings are in %s.",
		provider, m.st.r(m.st.accent, m.result.Model), tilde(configPath())))
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
