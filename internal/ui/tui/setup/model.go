package setup

import (
	"os"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/config"
)

// step is where the setup is.
type step int

const (
	stepProvider step = iota
	stepKey
	stepModel
	stepConfirm
	stepDone
)

// Model is the setup's bubbletea model: Update takes key presses (and pastes and
// window sizes), View draws the current step.
type Model struct {
	st     styles
	width  int
	step   step
	choice int  // index in providers
	envKey bool // the chosen provider's variable is set: its key is used, none stored
	key    textinput.Model
	model  textinput.Model
	// configExists says config.yaml was there when the summary was reached.
	configExists bool
	// problem is the sentence under the current step: an empty key, a failed write.
	problem string
	result  Result
}

// New returns the setup at its first step.
func New(opts Options) Model {
	m := Model{st: newStyles(opts.Color), width: opts.Width}
	if m.width <= 0 {
		m.width = maxWidth
	}
	m.key = m.newInput("API key: ")
	m.key.EchoMode = textinput.EchoPassword
	m.key.CharLimit = 1000
	m.model = m.newInput("Model: ")
	m.model.CharLimit = 200
	m.fitInputs()
	return m
}

// newInput returns a text input drawn in the setup's styles, with the terminal's own
// cursor (placed by View) rather than a drawn one, so that views are the same from
// one frame to the next.
func (m Model) newInput(prompt string) textinput.Model {
	in := textinput.New()
	in.Prompt = prompt
	in.SetVirtualCursor(false)
	s := textinput.DefaultDarkStyles()
	// The prompt in the labels' style, the text plain; nothing at all without colour.
	s.Focused = textinput.StyleState{Prompt: m.st.key}
	s.Blurred = s.Focused
	if !m.st.color {
		s.Cursor.Color = nil
	}
	in.SetStyles(s)
	return in
}

// Init starts nothing: the setup waits for keys.
func (m Model) Init() tea.Cmd { return nil }

// Done says the setup has ended; Result says how.
func (m Model) Done() bool { return m.step == stepDone }

// Result is how the setup ended (the zero Result while it runs).
func (m Model) Result() Result { return m.result }

// Update handles one message.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if m.step == stepDone {
		return m, nil
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		if msg.Width > 0 {
			m.width = msg.Width
			m.fitInputs()
		}
		return m, nil
	case tea.InterruptMsg:
		return m.abort()
	case tea.KeyPressMsg:
		if msg.Code == tea.KeyEscape || (msg.Code == 'c' || msg.Code == 'd') && msg.Mod.Contains(tea.ModCtrl) {
			return m.abort() // Esc, Ctrl-C, or Ctrl-D: the end of the input
		}
	}
	switch m.step {
	case stepProvider:
		return m.updateProvider(msg)
	case stepKey:
		return m.updateKey(msg)
	case stepModel:
		return m.updateModel(msg)
	case stepConfirm:
		if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "enter" {
			return m.save()
		}
	}
	return m, nil
}

func (m Model) updateProvider(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return m, nil
	}
	switch s := k.String(); s {
	case "up", "k", "shift+tab":
		m.choice = max(m.choice-1, 0)
	case "down", "j", "tab":
		m.choice = min(m.choice+1, len(providers)-1)
	case "1", "2", "3":
		m.choice = int(s[0] - '1')
		return m.chooseProvider()
	case "enter":
		return m.chooseProvider()
	}
	return m, nil
}

// chooseProvider goes on to the key step for providers[m.choice].
func (m Model) chooseProvider() (Model, tea.Cmd) {
	p := providers[m.choice]
	m.step = stepKey
	m.envKey = os.Getenv(p.env) != ""
	m.key.Reset()
	m.model.SetValue(p.defaultModel)
	m.model.CursorEnd()
	m.fitInputs()
	if !m.envKey {
		m.key.Focus()
	}
	return m, nil
}

func (m Model) updateKey(msg tea.Msg) (Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "enter" {
		if !m.envKey {
			v := strings.TrimSpace(m.key.Value())
			switch {
			case v == "":
				m.problem = "The key cannot be empty: paste it, or press Esc to stop."
				return m, nil
			case strings.ContainsAny(v, " \t"):
				m.problem = "An API key has no spaces: paste it again."
				return m, nil
			}
			m.key.SetValue(v)
			m.key.Blur()
		}
		m.problem = ""
		m.step = stepModel
		m.model.Focus()
		return m, nil
	}
	if m.envKey {
		return m, nil
	}
	var cmd tea.Cmd
	m.key, cmd = m.key.Update(msg)
	return m, cmd
}

func (m Model) updateModel(msg tea.Msg) (Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "enter" {
		v := strings.TrimSpace(m.model.Value())
		switch {
		case v == "":
			m.problem = "Type a model name (" + providers[m.choice].defaultModel + " is the default)."
			return m, nil
		case strings.ContainsAny(v, " \t"):
			m.problem = "A model name has no spaces."
			return m, nil
		}
		m.model.SetValue(v)
		m.model.Blur()
		m.problem = ""
		m.step = stepConfirm
		_, err := os.Stat(configPath())
		m.configExists = err == nil
		return m, nil
	}
	var cmd tea.Cmd
	m.model, cmd = m.model.Update(msg)
	return m, cmd
}

// save stores the typed key, if any, and writes config.yaml. Both are checked
// before either is written; a failure stays on the summary with its sentence, so
// that Esc can still end the setup.
func (m Model) save() (Model, tea.Cmd) {
	p := providers[m.choice]
	var creds config.Credentials
	if !m.envKey {
		var err error
		if creds, err = config.LoadCredentials(); err != nil {
			m.problem = "Nothing was saved: " + err.Error()
			return m, nil
		}
	}
	edit, err := editUserConfig(configPath(), p.name, m.model.Value())
	if err != nil {
		m.problem = "Nothing was saved: " + err.Error()
		return m, nil
	}
	if !m.envKey {
		if p.env == "ANTHROPIC_API_KEY" {
			creds.AnthropicAPIKey = m.key.Value()
		} else {
			creds.OpenAIAPIKey = m.key.Value()
		}
		if err := config.SaveCredentials(creds); err != nil {
			m.problem = "Nothing was saved: the key could not be stored: " + err.Error()
			return m, nil
		}
	}
	if err := edit.write(); err != nil {
		m.problem = "The configuration could not be written: " + err.Error()
		return m, nil
	}
	m.problem = ""
	return m.finish(Result{Provider: p.name, Model: m.model.Value(), StoredKey: !m.envKey})
}

// abort ends the setup without writing anything.
func (m Model) abort() (Model, tea.Cmd) {
	return m.finish(Result{Aborted: true})
}

func (m Model) finish(r Result) (Model, tea.Cmd) {
	m.step, m.result = stepDone, r
	m.key.Blur()
	m.model.Blur()
	m.key.Reset() // the key is no longer needed in memory
	return m, func() tea.Msg { return DoneMsg{r} }
}

// configPath is the user's config.yaml.
func configPath() string { return filepath.Join(config.UserDir(), "config.yaml") }
