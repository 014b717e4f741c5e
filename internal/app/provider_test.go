package app

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/llm"
)

// noKeys is an environment with no key, no base URL and no provider named, and an
// empty user configuration folder.
func noKeys(t *testing.T) {
	t.Helper()
	t.Setenv("GANTRY_CONFIG_DIR", t.TempDir())
	for _, v := range []string{"GANTRY_PROVIDER", "GANTRY_MODEL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"} {
		t.Setenv(v, "")
	}
}

func store(t *testing.T, c config.Credentials) {
	t.Helper()
	if err := config.SaveCredentials(c); err != nil {
		t.Fatal(err)
	}
}

// keySent builds the named provider against a local server (through the base-URL
// variable), makes one call and returns the key the server was sent.
func keySent(t *testing.T, name string) string {
	t.Helper()
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("X-Api-Key")
		if a := r.Header.Get("Authorization"); got == "" {
			got = strings.TrimPrefix(a, "Bearer ")
		}
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"type":"error","error":{"type":"authentication_error","message":"no"}}`))
	}))
	defer srv.Close()
	if name == "anthropic" {
		t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	} else {
		t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	}
	p, err := newProvider(name, os.Getenv(baseURLEnv(name)), streamTimeouts{}, nil)
	if err != nil {
		t.Fatalf("newProvider(%s): %v", name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msg := llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "hi"}}}
	if _, err := p.Stream(ctx, llm.Request{Model: "m", Messages: []llm.Message{msg}, MaxTokens: 10}, func(llm.Delta) {}); err == nil {
		t.Fatal("the call succeeded against a server that refuses it")
	}
	return got
}

func TestStoredKeyWhenTheEnvironmentHasNone(t *testing.T) {
	noKeys(t)
	store(t, config.Credentials{AnthropicAPIKey: "stored-ant", OpenAIAPIKey: "stored-oai"})

	name, model, err := chooseProvider("", "", nil)
	if err != nil || name != "anthropic" || model != "claude-sonnet-4-5" {
		t.Fatalf("chooseProvider = %q %q %v; want anthropic first", name, model, err)
	}
	if k := keySent(t, "anthropic"); k != "stored-ant" {
		t.Errorf("anthropic sent key %q, want the stored one", k)
	}
	for _, name := range []string{"openai", "openai-chat"} {
		if k := keySent(t, name); k != "stored-oai" {
			t.Errorf("%s sent key %q, want the stored one", name, k)
		}
	}
	// Without a base URL the stored key alone is enough.
	noKeysButStored := func(name string) {
		t.Setenv("ANTHROPIC_BASE_URL", "")
		t.Setenv("OPENAI_BASE_URL", "")
		if _, err := newProvider(name, os.Getenv(baseURLEnv(name)), streamTimeouts{}, nil); err != nil {
			t.Errorf("newProvider(%s) with a stored key: %v", name, err)
		}
	}
	noKeysButStored("anthropic")
	noKeysButStored("openai-chat")
}

func TestEnvironmentKeyWinsOverStoredKey(t *testing.T) {
	noKeys(t)
	store(t, config.Credentials{AnthropicAPIKey: "stored-ant", OpenAIAPIKey: "stored-oai"})
	t.Setenv("ANTHROPIC_API_KEY", "env-ant")
	t.Setenv("OPENAI_API_KEY", "env-oai")
	if k := keySent(t, "anthropic"); k != "env-ant" {
		t.Errorf("anthropic sent %q, want the environment's key", k)
	}
	if k := keySent(t, "openai"); k != "env-oai" {
		t.Errorf("openai sent %q, want the environment's key", k)
	}

	// Inference: any key in the environment comes before any stored key.
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	if name, _, err := chooseProvider("", "", nil); err != nil || name != "openai" {
		t.Errorf("chooseProvider = %q, %v; want openai from the environment", name, err)
	}
}

func TestStoredOpenAIKeyAloneChoosesOpenAI(t *testing.T) {
	noKeys(t)
	store(t, config.Credentials{OpenAIAPIKey: "stored-oai"})
	name, model, err := chooseProvider("", "", nil)
	if err != nil || name != "openai" || model != "gpt-5" {
		t.Fatalf("chooseProvider = %q %q %v", name, model, err)
	}
	if err := CheckProvider(Options{}, t.TempDir()); err != nil {
		t.Errorf("CheckProvider with a stored key: %v", err)
	}
	// A stored key for the other provider does not serve a named one.
	if _, err := newProvider("anthropic", "", streamTimeouts{}, nil); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("anthropic with only an openai key stored: %v", err)
	}
}

func TestNoKeyAnywhereIsErrNoProvider(t *testing.T) {
	noKeys(t)
	if _, _, err := chooseProvider("", "", nil); !errors.Is(err, ErrNoProvider) {
		t.Fatalf("err = %v, want ErrNoProvider", err)
	}
	store(t, config.Credentials{}) // a file without keys is no key
	if _, _, err := chooseProvider("", "", nil); !errors.Is(err, ErrNoProvider) {
		t.Fatalf("empty file: err = %v, want ErrNoProvider", err)
	}
	if err := CheckProvider(Options{}, t.TempDir()); !errors.Is(err, ErrNoProvider) {
		t.Fatalf("CheckProvider: %v", err)
	}
}

func TestOpenCredentialsFileIsRefusedOnlyWhenNeeded(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	noKeys(t)
	store(t, config.Credentials{AnthropicAPIKey: "stored-ant"})
	if err := os.Chmod(config.CredentialsPath(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := chooseProvider("", "", nil); err == nil || !strings.Contains(err.Error(), "chmod 600 "+filepath.Join(os.Getenv("GANTRY_CONFIG_DIR"), "credentials.yaml")) {
		t.Errorf("chooseProvider: %v", err)
	}
	if _, err := newProvider("anthropic", "", streamTimeouts{}, nil); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("newProvider: %v", err)
	}
	// With the key in the environment the file is not read.
	t.Setenv("ANTHROPIC_API_KEY", "env-ant")
	if _, _, err := chooseProvider("", "", nil); err != nil {
		t.Errorf("chooseProvider with an environment key: %v", err)
	}
	if _, err := newProvider("anthropic", "", streamTimeouts{}, nil); err != nil {
		t.Errorf("newProvider with an environment key: %v", err)
	}
}

// pathsServer is a local model server that refuses every request and records its path.
func pathsServer(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"type":"error","error":{"type":"authentication_error","message":"no"}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), paths...)
	}
}

// refusedCall makes one request of p, which the server refuses.
func refusedCall(t *testing.T, p llm.Provider) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msg := llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "hi"}}}
	if _, err := p.Stream(ctx, llm.Request{Model: "m", Messages: []llm.Message{msg}, MaxTokens: 10}, func(llm.Delta) {}); err == nil {
		t.Fatal("the call succeeded against a server that refuses it")
	}
}

// A base URL in the user's config picks the provider when nothing else does, needs no
// key, and receives the requests; the environment variable wins over it.
func TestBaseURLFromTheConfig(t *testing.T) {
	noKeys(t)
	srv, paths := pathsServer(t)
	cfgFile := filepath.Join(os.Getenv("GANTRY_CONFIG_DIR"), "config.yaml")
	if err := os.WriteFile(cfgFile, []byte("providers:\n  openai-chat:\n    baseURL: "+srv.URL+"/v1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	name, model, err := chooseProvider("", "", cfg)
	if err != nil || name != "openai-chat" || model != "gpt-5" {
		t.Fatalf("chooseProvider = %q %q %v; want openai-chat from its base URL", name, model, err)
	}
	base, from := baseURLFor(name, cfg)
	if base != srv.URL+"/v1" || from != "providers.openai-chat.baseURL" {
		t.Fatalf("baseURLFor = %q %q", base, from)
	}
	if err := CheckProvider(Options{}, dir); err != nil {
		t.Fatalf("CheckProvider with a base URL and no key: %v", err)
	}
	p, err := newProvider(name, base, streamTimeouts{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	refusedCall(t, p)
	if got := paths(); len(got) != 1 || got[0] != "/v1/chat/completions" {
		t.Fatalf("requests %v", got)
	}
	// Another provider's base URL serves no other: openai has neither key nor URL.
	if _, err := newProvider("openai", "", streamTimeouts{}, nil); err == nil || !strings.Contains(err.Error(), "providers.openai.baseURL") {
		t.Errorf("openai without a key or a base URL: %v", err)
	}
	if err := CheckProvider(Options{Provider: "openai"}, dir); err == nil {
		t.Error("CheckProvider(openai) passed with only openai-chat's base URL")
	}

	// The environment wins over the config.
	srv2, paths2 := pathsServer(t)
	t.Setenv("OPENAI_BASE_URL", srv2.URL+"/v1")
	if base, from = baseURLFor(name, cfg); base != srv2.URL+"/v1" || from != "OPENAI_BASE_URL" {
		t.Fatalf("baseURLFor with the variable set = %q %q", base, from)
	}
	p, _ = newProvider(name, base, streamTimeouts{}, nil)
	refusedCall(t, p)
	if len(paths()) != 1 || len(paths2()) != 1 {
		t.Errorf("requests: config's server %v, environment's %v", paths(), paths2())
	}
	// As it does when choosing: OPENAI_BASE_URL names openai.
	if name, _, _ := chooseProvider("", "", cfg); name != "openai" {
		t.Errorf("chooseProvider with OPENAI_BASE_URL = %q, want openai", name)
	}
}

// Claude Code's settings' `model` starts the session on that model when gantry's own
// configuration names none: an alias for Anthropic's model, a tier or nothing for
// another provider; gantry's model key, GANTRY_MODEL and --model win over it.
func TestClaudeSettingsModel(t *testing.T) {
	for _, c := range []struct {
		model, provider string
		tiers           config.Models
		want            string
	}{
		{"opus", "anthropic", config.Models{}, "claude-opus-4-5"},
		{"sonnet[1m]", "anthropic", config.Models{}, "claude-sonnet-4-5"},
		{"opusplan", "anthropic", config.Models{}, "claude-opus-4-5"},
		{"claude-opus-4-1-20250805", "anthropic", config.Models{}, "claude-opus-4-1-20250805"},
		{"default", "anthropic", config.Models{}, ""},
		{"haiku", "openai", config.Models{Fast: "gpt-5-mini"}, "gpt-5-mini"},
		{"opus", "openai", config.Models{}, ""},
		{"claude-opus-4-5", "openai", config.Models{Good: "gpt-5"}, ""},
	} {
		if got := claudeSettingsModel(c.model, c.provider, c.tiers); got != c.want {
			t.Errorf("%s with %s: %q, want %q", c.model, c.provider, got, c.want)
		}
	}
	noKeys(t)
	t.Setenv("ANTHROPIC_API_KEY", "k")
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"model": "opus"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, model, err := chooseProvider("", "", cfg); err != nil || model != "claude-opus-4-5" {
		t.Fatalf("chooseProvider = %q %v; want Claude's settings' opus", model, err)
	}
	if _, model, _ := chooseProvider("", "claude-haiku-4-5", cfg); model != "claude-haiku-4-5" {
		t.Errorf("--model lost to Claude's settings: %q", model)
	}
	t.Setenv("GANTRY_MODEL", "claude-sonnet-4-5")
	if _, model, _ := chooseProvider("", "", cfg); model != "claude-sonnet-4-5" {
		t.Errorf("GANTRY_MODEL lost to Claude's settings: %q", model)
	}
}
