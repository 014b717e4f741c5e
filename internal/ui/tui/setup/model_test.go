package setup

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/config"
)

func TestEnvironmentKeyIsUsedAndNothingStored(t *testing.T) {
	dir := sandbox(t)
	t.Setenv("ANTHROPIC_API_KEY", "sk-from-env")
	m := New(Options{})
	m, _ = press(t, m, "enter") // anthropic, the first choice
	if m.step != stepKey || !m.envKey {
		t.Fatalf("step %d envKey %v", m.step, m.envKey)
	}
	if v := m.View().Content; !strings.Contains(v, "ANTHROPIC_API_KEY is set in your environment") {
		t.Errorf("view does not say the key is set:\n%s", v)
	}
	m, _ = press(t, m, "x", "enter") // typing does nothing; Enter uses the key
	m, _ = press(t, m, "enter")      // the default model
	if m.step != stepConfirm {
		t.Fatalf("step %d, want the summary", m.step)
	}
	if len(files(t, dir)) != 0 {
		t.Fatalf("written before the summary was confirmed: %v", files(t, dir))
	}
	m, cmd := press(t, m, "enter")
	want := Result{Provider: "anthropic", Model: "claude-sonnet-4-5"}
	if !m.Done() || m.Result() != want || doneMsg(t, cmd).Result != want {
		t.Fatalf("done %v result %+v", m.Done(), m.Result())
	}
	if got := files(t, dir); !slices.Equal(got, []string{"config.yaml"}) {
		t.Errorf("files %v, want config.yaml only", got)
	}
	if got := readFile(t, filepath.Join(dir, "config.yaml")); got != freshHeader+"provider: anthropic\nmodel: claude-sonnet-4-5\n" {
		t.Errorf("config.yaml:\n%s", got)
	}
}

func TestTypedKeyIsStoredAndModelEdited(t *testing.T) {
	dir := sandbox(t)
	// A key stored earlier for the other provider stays.
	if err := config.SaveCredentials(config.Credentials{AnthropicAPIKey: "sk-ant-old"}); err != nil {
		t.Fatal(err)
	}
	m := New(Options{})
	m, _ = press(t, m, "2") // openai, at once
	if m.step != stepKey || m.envKey || providers[m.choice].name != "openai" {
		t.Fatalf("step %d envKey %v choice %d", m.step, m.envKey, m.choice)
	}
	m, _ = press(t, m, "sk-typed-123")
	if v := m.View().Content; strings.Contains(v, "sk-typed") || !strings.Contains(v, "API key: ************") {
		t.Errorf("the key is not masked:\n%s", v)
	}
	m, _ = press(t, m, "enter")
	if m.step != stepModel || m.model.Value() != "gpt-5" {
		t.Fatalf("step %d model %q", m.step, m.model.Value())
	}
	m, _ = press(t, m, "backspace", "backspace", "backspace", "backspace", "backspace", "o4-mini", "enter")
	if v := m.View().Content; !strings.Contains(v, "model     o4-mini") || !strings.Contains(v, "typed (12 characters)") {
		t.Errorf("summary:\n%s", v)
	}
	m, cmd := press(t, m, "enter")
	want := Result{Provider: "openai", Model: "o4-mini", StoredKey: true}
	if m.Result() != want || doneMsg(t, cmd).Result != want {
		t.Fatalf("result %+v", m.Result())
	}
	creds, err := config.LoadCredentials()
	if err != nil || creds != (config.Credentials{AnthropicAPIKey: "sk-ant-old", OpenAIAPIKey: "sk-typed-123"}) {
		t.Errorf("credentials %+v, %v", creds, err)
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(config.CredentialsPath()); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("credentials mode %v, %v", fi.Mode(), err)
		}
	}
	if got := readFile(t, filepath.Join(dir, "config.yaml")); !strings.HasSuffix(got, "provider: openai\nmodel: o4-mini\n") {
		t.Errorf("config.yaml:\n%s", got)
	}
}

func TestProviderListMoves(t *testing.T) {
	sandbox(t)
	for _, tc := range []struct {
		keys []string
		want string
	}{
		{[]string{"enter"}, "anthropic"},
		{[]string{"down", "enter"}, "openai"},
		{[]string{"down", "down", "enter"}, "openai-chat"},
		{[]string{"j", "j", "j", "j", "enter"}, "openai-chat"}, // stops at the end
		{[]string{"j", "j", "k", "enter"}, "openai"},
		{[]string{"up", "up", "enter"}, "anthropic"}, // stops at the start
		{[]string{"tab", "enter"}, "openai"},
		{[]string{"3"}, "openai-chat"},
		{[]string{"down", "down", "1"}, "anthropic"},
	} {
		m, _ := press(t, New(Options{}), tc.keys...)
		want := stepKey
		if tc.want == "openai-chat" {
			want = stepServer // the Chat Completions choice asks for the server first
		}
		if m.step != want || providers[m.choice].name != tc.want {
			t.Errorf("%v: step %d provider %s, want %s", tc.keys, m.step, providers[m.choice].name, tc.want)
		}
	}
	// The Chat Completions choice, with OpenAI's API, asks for OpenAI's key.
	t.Setenv("OPENAI_API_KEY", "sk-env")
	m, _ := press(t, New(Options{}), "3", "4")
	if !m.envKey || !strings.Contains(m.View().Content, "OPENAI_API_KEY is set") {
		t.Errorf("openai-chat does not see OPENAI_API_KEY:\n%s", m.View().Content)
	}
}

func TestEmptyOrSpacedKeyIsRefused(t *testing.T) {
	sandbox(t)
	m, _ := press(t, New(Options{}), "1", "enter")
	if m.step != stepKey || !strings.Contains(m.View().Content, "The key cannot be empty") {
		t.Fatalf("empty key: step %d\n%s", m.step, m.View().Content)
	}
	m, _ = press(t, m, "   ", "enter")
	if m.step != stepKey || m.problem == "" {
		t.Fatalf("blank key accepted")
	}
	m, _ = press(t, m, "ctrl+u", "sk a", "enter")
	if m.step != stepKey || !strings.Contains(m.problem, "no spaces") {
		t.Fatalf("spaced key: step %d problem %q", m.step, m.problem)
	}
	// A paste, with the line end terminals add, is trimmed; the sentence goes.
	m, _ = press(t, m, "ctrl+u")
	m, _ = drive(m, tea.PasteMsg{Content: "  sk-pasted\n"})
	m, _ = press(t, m, "enter")
	if m.step != stepModel || m.key.Value() != "sk-pasted" || m.problem != "" {
		t.Fatalf("paste: step %d key %q problem %q", m.step, m.key.Value(), m.problem)
	}
	// An emptied model name is refused too.
	m, _ = press(t, m, "ctrl+u", "enter")
	if m.step != stepModel || !strings.Contains(m.problem, "claude-sonnet-4-5 is the default") {
		t.Fatalf("empty model: step %d problem %q", m.step, m.problem)
	}
	m, _ = press(t, m, "my model", "enter")
	if m.step != stepModel || !strings.Contains(m.problem, "no spaces") {
		t.Fatalf("spaced model: step %d problem %q", m.step, m.problem)
	}
}

func TestAbortAtEveryStepWritesNothing(t *testing.T) {
	toStep := map[step][]string{
		stepProvider: nil,
		stepServer:   {"3", "3", "http://half"},
		stepKey:      {"down", "enter", "sk-half"},
		stepModel:    {"enter", "sk-1", "enter", "edited"},
		stepConfirm:  {"3", "4", "sk-1", "enter", "enter"},
	}
	aborts := map[string]tea.Msg{
		"esc": named["esc"], "ctrl+c": named["ctrl+c"], "interrupt": tea.InterruptMsg{},
		"ctrl+d": tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl},
	}
	for s, path := range toStep {
		for name, abort := range aborts {
			dir := sandbox(t)
			os.MkdirAll(dir, 0o700)
			existing := "# mine\nmaxOutput: 4000\n"
			os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(existing), 0o644)

			m, _ := press(t, New(Options{}), path...)
			if m.step != s {
				t.Fatalf("%v: step %d, want %d", path, m.step, s)
			}
			m, cmd := drive(m, abort)
			if !m.Done() || m.Result() != (Result{Aborted: true}) || doneMsg(t, cmd).Result != (Result{Aborted: true}) {
				t.Errorf("step %d, %s: done %v result %+v", s, name, m.Done(), m.Result())
			}
			if got := files(t, dir); !slices.Equal(got, []string{"config.yaml"}) {
				t.Errorf("step %d, %s: files %v", s, name, got)
			}
			if got := readFile(t, filepath.Join(dir, "config.yaml")); got != existing {
				t.Errorf("step %d, %s: config.yaml changed:\n%s", s, name, got)
			}
			if v := m.View().Content; !strings.Contains(v, "nothing was written") {
				t.Errorf("step %d, %s: final view\n%s", s, name, v)
			}
			// Once done, the model takes nothing more.
			if m2, cmd := press(t, m, "enter"); cmd != nil || m2.Result() != m.Result() {
				t.Errorf("step %d, %s: a key after the end did something", s, name)
			}
		}
	}
}

func TestExistingConfigKeepsItsKeysAndComments(t *testing.T) {
	dir := sandbox(t)
	existing := `# my settings
provider: anthropic   # the old one
maxOutput: 40000

# slow builds
bash:
  timeout: 300
permissions:
  deny:
    - "bash:rm -rf.*"
`
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(existing), 0o600)
	os.Chmod(filepath.Join(dir, "config.yaml"), 0o600)
	t.Setenv("OPENAI_API_KEY", "sk-env")
	m, cmd := press(t, New(Options{}), "3", "4", "enter", "ctrl+u", "qwen3-coder", "enter", "enter")
	if want := (Result{Provider: "openai-chat", Model: "qwen3-coder"}); doneMsg(t, cmd).Result != want {
		t.Fatalf("result %+v", m.Result())
	}
	want := strings.Replace(existing, "provider: anthropic   # the old one\n", "provider: openai-chat # the old one\nmodel: qwen3-coder\n", 1)
	if got := readFile(t, filepath.Join(dir, "config.yaml")); got != want {
		t.Errorf("config.yaml:\n%s\nwant\n%s", got, want)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(filepath.Join(dir, "config.yaml")); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want 0600 kept", fi.Mode())
		}
	}
	// The result loads as gantry's configuration.
	cfg, err := config.Load(t.TempDir())
	if err != nil || cfg.Provider != "openai-chat" || cfg.Model != "qwen3-coder" || cfg.MaxOutput != 40000 || cfg.Bash.Timeout != 300 {
		t.Errorf("config.Load: %+v, %v", cfg, err)
	}
}

func TestFailureToSaveStaysOnTheSummaryAndWritesNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	dir := sandbox(t)
	os.MkdirAll(dir, 0o700)
	creds := filepath.Join(dir, "credentials.yaml")
	os.WriteFile(creds, []byte("openaiApiKey: sk-old\n"), 0o644)
	os.Chmod(creds, 0o644)

	m, cmd := press(t, New(Options{}), "1", "sk-new", "enter", "enter", "enter")
	if cmd != nil || m.Done() || m.step != stepConfirm {
		t.Fatalf("a failed save ended the setup: step %d", m.step)
	}
	if v := m.View().Content; !strings.Contains(v, "Nothing was saved") || !strings.Contains(v, "chmod 600") {
		t.Errorf("view:\n%s", v)
	}
	if got := files(t, dir); !slices.Equal(got, []string{"credentials.yaml"}) {
		t.Errorf("files %v", got)
	}

	// Fixed, Enter saves.
	os.Chmod(creds, 0o600)
	m, cmd = press(t, m, "enter")
	if doneMsg(t, cmd).Result != (Result{Provider: "anthropic", Model: "claude-sonnet-4-5", StoredKey: true}) {
		t.Fatalf("result %+v", m.Result())
	}
	if c, _ := config.LoadCredentials(); c != (config.Credentials{AnthropicAPIKey: "sk-new", OpenAIAPIKey: "sk-old"}) {
		t.Errorf("credentials %+v", c)
	}

	// A config.yaml it cannot edit: the key is not stored either.
	sandbox(t)
	dir = filepath.Join(os.Getenv("HOME"), ".config", "gantry")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("{maxOutput: 4000}\n"), 0o644)
	m, _ = press(t, New(Options{}), "1", "sk-new", "enter", "enter", "enter")
	if m.Done() || !strings.Contains(m.problem, "by hand") {
		t.Fatalf("done %v problem %q", m.Done(), m.problem)
	}
	if got := files(t, dir); !slices.Equal(got, []string{"config.yaml"}) {
		t.Errorf("files %v: the key was stored though the configuration was not written", got)
	}
}
