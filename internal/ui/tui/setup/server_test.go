package setup

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/config"
)

// Ollama and LM Studio at their default addresses: no key asked for nor stored, a
// model to type, and the base URL written with the provider and the model.
func TestLocalServerIsWrittenWithNoKey(t *testing.T) {
	for _, tc := range []struct{ key, url string }{{"1", "http://localhost:11434/v1"}, {"2", "http://localhost:1234/v1"}} {
		dir := sandbox(t)
		m, _ := press(t, New(Options{}), "3", tc.key)
		if m.step != stepKey || m.baseURL != tc.url || !strings.Contains(m.View().Content, "A local server needs no key") {
			t.Fatalf("step %d base %q\n%s", m.step, m.baseURL, m.View().Content)
		}
		m, _ = press(t, m, "enter")
		if m.step != stepModel || m.model.Value() != "" {
			t.Fatalf("step %d model %q: gpt-5 is no local model", m.step, m.model.Value())
		}
		m, _ = press(t, m, "enter") // a model must be named
		if m.step != stepModel || !strings.Contains(m.problem, "as the server knows it") {
			t.Fatalf("empty model: step %d problem %q", m.step, m.problem)
		}
		m, _ = press(t, m, "qwen3-coder:30b", "enter")
		if v := m.View().Content; !strings.Contains(v, "server    "+tc.url) || !strings.Contains(v, "key       none") {
			t.Errorf("summary:\n%s", v)
		}
		m, cmd := press(t, m, "enter")
		want := Result{Provider: "openai-chat", Model: "qwen3-coder:30b", BaseURL: tc.url}
		if m.Result() != want || doneMsg(t, cmd).Result != want {
			t.Fatalf("result %+v", m.Result())
		}
		if got := files(t, dir); !slices.Equal(got, []string{"config.yaml"}) {
			t.Errorf("files %v: a key was stored", got)
		}
		wantFile := freshHeader + "provider: openai-chat\nmodel: qwen3-coder:30b\nproviders:\n  openai-chat:\n    baseURL: " + tc.url + "\n"
		if got := readFile(t, filepath.Join(dir, "config.yaml")); got != wantFile {
			t.Errorf("config.yaml:\n%s\nwant\n%s", got, wantFile)
		}
		cfg, err := config.Load(t.TempDir())
		if err != nil || cfg.Provider != "openai-chat" || cfg.Model != "qwen3-coder:30b" || cfg.Providers.Get("openai-chat").BaseURL != tc.url {
			t.Errorf("config.Load: %+v, %v", cfg, err)
		}
	}
}

// Another server: its base URL is checked as the config checks it; a key given is
// stored as the OpenAI key.
func TestAnotherServerByItsBaseURL(t *testing.T) {
	dir := sandbox(t)
	m, _ := press(t, New(Options{}), "3", "3")
	if m.step != stepServer || !m.typing {
		t.Fatalf("step %d typing %v", m.step, m.typing)
	}
	for _, bad := range []string{"", "gpu-box:8000/v1", "ftp://gpu-box/v1", "/v1"} {
		m, _ = press(t, m, "ctrl+u", bad, "enter")
		if m.step != stepServer || !strings.Contains(m.problem, "with http:// or https://") {
			t.Fatalf("%q accepted: step %d problem %q", bad, m.step, m.problem)
		}
	}
	m, _ = press(t, m, "ctrl+u", "  http://gpu-box:8000/v1 ", "enter")
	if m.step != stepKey || m.baseURL != "http://gpu-box:8000/v1" || m.problem != "" {
		t.Fatalf("step %d base %q problem %q", m.step, m.baseURL, m.problem)
	}
	m, cmd := press(t, m, "sk-vllm", "enter", "meta-llama/Llama-3.1-8B-Instruct", "enter", "enter")
	want := Result{Provider: "openai-chat", Model: "meta-llama/Llama-3.1-8B-Instruct", BaseURL: "http://gpu-box:8000/v1", StoredKey: true}
	if doneMsg(t, cmd).Result != want {
		t.Fatalf("result %+v", m.Result())
	}
	if c, err := config.LoadCredentials(); err != nil || c.OpenAIAPIKey != "sk-vllm" {
		t.Errorf("credentials %+v, %v", c, err)
	}
	if got := readFile(t, filepath.Join(dir, "config.yaml")); !strings.HasSuffix(got, "providers:\n  openai-chat:\n    baseURL: http://gpu-box:8000/v1\n") {
		t.Errorf("config.yaml:\n%s", got)
	}
}

// OpenAI's own API through Chat Completions: a key is needed and no base URL written.
func TestChatCompletionsWithOpenAIsAPI(t *testing.T) {
	dir := sandbox(t)
	m, _ := press(t, New(Options{}), "3", "down", "down", "down", "enter")
	if m.step != stepKey || m.baseURL != "" {
		t.Fatalf("step %d base %q", m.step, m.baseURL)
	}
	m, _ = press(t, m, "enter")
	if m.step != stepKey || !strings.Contains(m.problem, "The key cannot be empty") {
		t.Fatalf("no key accepted for OpenAI's API: step %d", m.step)
	}
	m, cmd := press(t, m, "sk-oai", "enter", "enter", "enter")
	if want := (Result{Provider: "openai-chat", Model: "gpt-5", StoredKey: true}); doneMsg(t, cmd).Result != want {
		t.Fatalf("result %+v", m.Result())
	}
	if got := readFile(t, filepath.Join(dir, "config.yaml")); strings.Contains(got, "providers") {
		t.Errorf("a base URL was written for OpenAI's API:\n%s", got)
	}
}

// OPENAI_BASE_URL wins over the config: the server step says so.
func TestServerStepSaysTheEnvironmentWins(t *testing.T) {
	sandbox(t)
	t.Setenv("OPENAI_BASE_URL", "http://elsewhere:9000/v1")
	m, _ := press(t, New(Options{}), "3")
	if v := m.View().Content; !strings.Contains(v, "OPENAI_BASE_URL is set in your environment (http://elsewhere:9000/v1)") {
		t.Errorf("view:\n%s", v)
	}
}

// An existing model mapping keeps its timeouts, and other providers their base URLs.
func TestLocalServerKeepsTheModelMappingAndOtherProviders(t *testing.T) {
	dir := sandbox(t)
	existing := "# mine\nmodel:\n  name: old\n  firstByteTimeout: 300 # slow GPU\nproviders:\n  anthropic:\n    baseURL: http://proxy.internal\nmaxOutput: 4000\n"
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(existing), 0o644)
	_, cmd := press(t, New(Options{}), "3", "1", "enter", "qwen3", "enter", "enter")
	if r := doneMsg(t, cmd).Result; r.Aborted || r.BaseURL != "http://localhost:11434/v1" {
		t.Fatalf("result %+v", r)
	}
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model != "qwen3" || cfg.FirstByteTimeout != 300 || cfg.MaxOutput != 4000 ||
		cfg.Providers.Get("anthropic").BaseURL != "http://proxy.internal" || cfg.Providers.Get("openai-chat").BaseURL != "http://localhost:11434/v1" {
		t.Errorf("config: %+v", cfg)
	}
	want := "# mine\nmodel:\n  name: qwen3\n  firstByteTimeout: 300 # slow GPU\nproviders:\n  anthropic:\n    baseURL: http://proxy.internal\n" +
		"  openai-chat:\n    baseURL: http://localhost:11434/v1\nprovider: openai-chat\nmaxOutput: 4000\n"
	if got := readFile(t, filepath.Join(dir, "config.yaml")); got != want {
		t.Errorf("config.yaml:\n%s\nwant\n%s", got, want)
	}
}

// setChoice edits the one line of a block mapping that changes, adds the keys that are
// missing at the end of their block, and rewrites as a block what it cannot edit so.
func TestSetChoiceInMappings(t *testing.T) {
	local := choice{"openai-chat", "qwen3", "http://localhost:11434/v1"}
	for _, tc := range []struct {
		name string
		c    choice
		in   string
		want string
	}{
		{"no base URL, no providers key", choice{"openai", "gpt-5", ""}, "maxOutput: 4000\n",
			"maxOutput: 4000\nprovider: openai\nmodel: gpt-5\n"},
		{"model mapping, name added last", local, "model:\n  streamIdleTimeout: 30\n\nbash:\n  timeout: 9\n",
			"model:\n  streamIdleTimeout: 30\n  name: qwen3\nprovider: openai-chat\nproviders:\n  openai-chat:\n    baseURL: http://localhost:11434/v1\n\nbash:\n  timeout: 9\n"},
		{"quoted name, four-space indent", choice{"anthropic", "claude-opus-4-1", ""}, "model:\n    'name': old # was\n    firstByteTimeout: 10\n",
			"model:\n    'name': claude-opus-4-1 # was\n    firstByteTimeout: 10\nprovider: anthropic\n"},
		{"providers with a comment under the provider", local, "providers:\n  # local models\n  openai-chat:\n    # none yet\nprovider: x\n",
			"providers:\n  # local models\n  openai-chat:\n    # none yet\n    baseURL: http://localhost:11434/v1\nprovider: openai-chat\nmodel: qwen3\n"},
		{"base URL replaced", local, "providers:\n  openai-chat:\n    baseURL: http://old:1/v1 # old box\n",
			"providers:\n  openai-chat:\n    baseURL: http://localhost:11434/v1 # old box\nprovider: openai-chat\nmodel: qwen3\n"},
		{"flow mappings are rewritten as blocks", local, "model: {name: a, firstByteTimeout: 3}\nproviders: {}\n",
			"model:\n  firstByteTimeout: 3\n  name: qwen3\nproviders:\n  openai-chat:\n    baseURL: http://localhost:11434/v1\nprovider: openai-chat\n"},
		{"a provider written as a scalar is replaced", local, "providers:\n  openai-chat: ~\n  openai:\n    baseURL: http://x/v1\n",
			"providers:\n  openai:\n    baseURL: http://x/v1\n  openai-chat:\n    baseURL: http://localhost:11434/v1\nprovider: openai-chat\nmodel: qwen3\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := setChoice([]byte(tc.in), tc.c)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// The whole local flow as a program on a pipe: Chat Completions, Ollama, no key, a
// model, save.
func TestRunLocalServerOnAPipe(t *testing.T) {
	dir := sandbox(t)
	res, out, err := runWith(t, "3"+"1"+"\r"+"qwen3\r"+"\r")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Result{Provider: "openai-chat", Model: "qwen3", BaseURL: "http://localhost:11434/v1"}); res != want {
		t.Fatalf("result %+v, want %+v", res, want)
	}
	if got := files(t, dir); !slices.Equal(got, []string{"config.yaml"}) {
		t.Errorf("files %v", got)
	}
	if !strings.Contains(out, "gantry is set up") {
		t.Errorf("output:\n%q", out)
	}
}
