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
	stepServer        // openai-chat only: which server
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
	server int  // index in servers, at stepServer
	typing bool // at stepServer: the base URL of another server is being typed
	// baseURL is the chosen server's ("" for the provider's own API).
	baseURL string
	envKey  bool // the chosen provider's variable is set: its key is used, none stored
	key     textinput.Model
	model   textinput.Model
	url     textinput.Model
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
	m.url = m.newInput("Base URL: ")
	m.url.CharLimit = 500
	m.url.Placeholder = "http://host:port/v1"
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
	case stepServer:
		return m.updateServer(msg)
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

// chooseProvider goes on from the choice of providers[m.choice]: to the choice of a
// server for a provider that has them, else to the key.
func (m Model) chooseProvider() (Model, tea.Cmd) {
	m.baseURL = ""
	if providers[m.choice].servers {
		m.step, m.server, m.typing = stepServer, 0, false
		return m, nil
	}
	return m.toKey()
}

// toKey goes on to the key step, with the model's default for the server chosen.
func (m Model) toKey() (Model, tea.Cmd) {
	p := providers[m.choice]
	m.step = stepKey
	m.problem = ""
	m.envKey = os.Getenv(p.env) != ""
	m.key.Reset()
	if m.baseURL == "" {
		m.model.SetValue(p.defaultModel)
	} else {
		m.model.SetValue("") // the server's models are its own
	}
	m.model.CursorEnd()
	m.fitInputs()
	if !m.envKey {
		m.key.Focus()
	}
	return m, nil
}

func (m Model) updateServer(msg tea.Msg) (Model, tea.Cmd) {
	if m.typing {
		if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "enter" {
			v := strings.TrimSpace(m.url.Value())
			if !config.IsBaseURL(v) {
				m.problem = "Give the server's whole base URL, with http:// or https://, such as http://localhost:8000/v1."
				return m, nil
			}
			m.url.SetValue(v)
			m.url.Blur()
			m.baseURL = v
			return m.toKey()
		}
		var cmd tea.Cmd
		m.url, cmd = m.url.Update(msg)
		return m, cmd
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return m, nil
	}
	switch s := k.String(); s {
	case "up", "k", "shift+tab":
		m.server = max(m.server-1, 0)
	case "down", "j", "tab":
		m.server = min(m.server+1, len(servers)-1)
	case "1", "2", "3", "4":
		m.server = int(s[0] - '1')
		return m.chooseServer()
	case "enter":
		return m.chooseServer()
	}
	return m, nil
}

// chooseServer takes servers[m.server]: its base URL, or the typing of another's.
func (m Model) chooseServer() (Model, tea.Cmd) {
	sv := servers[m.server]
	if sv.other {
		m.typing = true
		m.url.Focus()
		return m, nil
	}
	m.baseURL = sv.url
	return m.toKey()
}

func (m Model) updateKey(msg tea.Msg) (Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "enter" {
		if !m.envKey {
			v := strings.TrimSpace(m.key.Value())
			switch {
			case v == "" && m.baseURL == "":
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

// storesKey says a typed key is to be stored (none is for a server that needs none).
func (m Model) storesKey() bool { return !m.envKey && m.key.Value() != "" }

func (m Model) updateModel(msg tea.Msg) (Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "enter" {
		v := strings.TrimSpace(m.model.Value())
		switch {
		case v == "" && m.baseURL != "":
			m.problem = "Type the model's name as the server knows it."
			return m, nil
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
	if m.storesKey() {
		var err error
		if creds, err = config.LoadCredentials(); err != nil {
			m.problem = "Nothing was saved: " + err.Error()
			return m, nil
		}
	}
	edit, err := editUserConfig(configPath(), choice{p.name, m.model.Value(), m.baseURL})
	if err != nil {
		m.problem = "Nothing was saved: " + err.Error()
		return m, nil
	}
	if m.storesKey() {
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
	return m.finish(Result{Provider: p.name, Model: m.model.Value(), BaseURL: m.baseURL, StoredKey: m.storesKey()})
}

// abort ends the setup without writing anything.
func (m Model) abort() (Model, tea.Cmd) {
	return m.finish(Result{Aborted: true})
}

func (m Model) finish(r Result) (Model, tea.Cmd) {
	m.step, m.result = stepDone, r
	m.key.Blur()
	m.model.Blur()
	m.url.Blur()
	m.key.Reset() // the key is no longer needed in memory
	return m, func() tea.Msg { return DoneMsg{r} }
}

// configPath is the user's config.yaml.
func configPath() string { return filepath.Join(config.UserDir(), "config.yaml") }
