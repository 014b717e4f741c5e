package app

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/anthropic"
	"github.com/gantry-dev/gantry/internal/llm/openai"
)

// Providers lists the provider names gantry knows.
var Providers = []string{"anthropic", "openai", "openai-chat"}

// defaultModels is the model used when none is chosen.
var defaultModels = map[string]string{
	"anthropic":   "claude-sonnet-4-5",
	"openai":      "gpt-5",
	"openai-chat": "gpt-5",
}

// ErrNoProvider is the one sentence print mode says when nothing is configured.
var ErrNoProvider = fmt.Errorf("no model provider is configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or a local server's base URL as providers.<provider>.baseURL in config.yaml (name the provider with --provider / GANTRY_PROVIDER, the model with --model / GANTRY_MODEL)")

// chooseProvider picks the provider and model: flags, then the environment, then the
// config, then whichever provider something points at — an API key or a base URL in
// the environment, a base URL in the config, a key stored by the setup (anthropic's
// first each time). cfg may be nil.
func chooseProvider(flagProvider, flagModel string, cfg *config.Config) (name, model string, err error) {
	if cfg == nil {
		cfg = &config.Config{}
	}
	getenv := cfg.Getenv
	name = first(flagProvider, getenv("GANTRY_PROVIDER"), cfg.Provider)
	if name == "" {
		switch {
		case getenv("ANTHROPIC_API_KEY") != "" || getenv("ANTHROPIC_BASE_URL") != "":
			name = "anthropic"
		case getenv("OPENAI_API_KEY") != "" || getenv("OPENAI_BASE_URL") != "":
			name = "openai"
		case withBaseURL(cfg) != "":
			name = withBaseURL(cfg)
		default:
			creds, err := config.LoadCredentials()
			switch {
			case err != nil:
				return "", "", err
			case creds.AnthropicAPIKey != "":
				name = "anthropic"
			case creds.OpenAIAPIKey != "":
				name = "openai"
			default:
				return "", "", ErrNoProvider
			}
		}
	}
	if _, ok := defaultModels[name]; !ok {
		return "", "", fmt.Errorf("unknown provider %q: choose anthropic, openai or openai-chat", name)
	}
	model = first(flagModel, getenv("GANTRY_MODEL"), cfg.Model, claudeSettingsModel(cfg.Claude.Model, name, cfg.Models), defaultModels[name])
	return name, model, nil
}

// claudeSettingsModel is the model Claude Code's settings name (their `model`) for
// provider: an alias (sonnet, opus, haiku, opusplan; a "[1m]" suffix dropped) as an
// agent definition's alias is taken, a model's full name with Anthropic only; ""
// for Claude's default or a name another provider cannot serve.
func claudeSettingsModel(m, provider string, tiers config.Models) string {
	m = strings.TrimSuffix(strings.TrimSpace(m), "[1m]")
	switch strings.ToLower(m) {
	case "", "default", "inherit":
		return ""
	case "opusplan":
		m = "opus"
	}
	if a := agentModel(m, provider, "", tiers); a != m {
		return a
	}
	if provider == "anthropic" {
		return m
	}
	return ""
}

// withBaseURL returns the first provider the config gives a base URL, or "".
func withBaseURL(cfg *config.Config) string {
	for _, p := range config.ProviderNames {
		if cfg.Providers.Get(p).BaseURL != "" {
			return p
		}
	}
	return ""
}

// baseURLEnv is the environment variable the SDK of a provider reads its base URL from.
func baseURLEnv(name string) string {
	if name == "anthropic" {
		return "ANTHROPIC_BASE_URL"
	}
	return "OPENAI_BASE_URL"
}

// baseURLFor returns where the requests of the provider name go, and what said so: its
// environment variable, else providers.<name>.baseURL of the config; "" for the
// provider's own API. cfg may be nil.
func baseURLFor(name string, cfg *config.Config) (url, from string) {
	env := baseURLEnv(name)
	if v := cfg.Getenv(env); v != "" {
		return v, env
	}
	if cfg != nil {
		if v := cfg.Providers.Get(name).BaseURL; v != "" {
			return v, "providers." + name + ".baseURL"
		}
	}
	return "", ""
}

// newProvider builds the adapter, wrapped in retries, sending its requests to baseURL
// (see baseURLFor; "" for the provider's API). A key (from the environment, else stored
// by the setup) is required unless a base URL points elsewhere.
func newProvider(name, baseURL string, st streamTimeouts, cfg *config.Config) (llm.Provider, error) {
	var p llm.Provider
	// Every provider's requests go through the stall guard: a server that goes
	// quiet is a retryable failure, not a hang.
	client := &http.Client{Transport: llm.Guard(http.DefaultTransport, st.Bounds)}
	switch name {
	case "anthropic":
		key, err := apiKey(cfg, "ANTHROPIC_API_KEY", func(c config.Credentials) string { return c.AnthropicAPIKey })
		if err != nil {
			return nil, err
		}
		if key == "" && baseURL == "" {
			return nil, fmt.Errorf("the anthropic provider needs ANTHROPIC_API_KEY (or, for a compatible server, a base URL: ANTHROPIC_BASE_URL or providers.anthropic.baseURL in config.yaml)")
		}
		p = anthropic.New(anthropic.Options{APIKey: key, BaseURL: baseURL, HTTPClient: client})
	case "openai", "openai-chat":
		key, err := apiKey(cfg, "OPENAI_API_KEY", func(c config.Credentials) string { return c.OpenAIAPIKey })
		if err != nil {
			return nil, err
		}
		if key == "" && baseURL == "" {
			return nil, fmt.Errorf("the %s provider needs OPENAI_API_KEY (or, for a compatible server, a base URL: OPENAI_BASE_URL or providers.%s.baseURL in config.yaml)", name, name)
		}
		o := openai.Options{APIKey: key, BaseURL: baseURL, HTTPClient: client}
		if name == "openai" {
			p = openai.NewResponses(o)
		} else {
			p = openai.NewChat(o)
		}
	default:
		return nil, fmt.Errorf("unknown provider %q: choose anthropic, openai or openai-chat", name)
	}
	return llm.WithRetry(p, llm.RetryPolicy{MaxRetryAfter: st.maxRetryAfter}), nil
}

// streamTimeouts are the stream guard's bounds (config model.firstByteTimeout,
// model.streamIdleTimeout, model.pingTimeout, model.responseTimeout) and the cap
// on a server's Retry-After (model.maxRetryAfter); zero takes the default.
type streamTimeouts struct {
	llm.Bounds
	maxRetryAfter time.Duration
}

func timeoutsOf(cfg *config.Config) streamTimeouts {
	sec := func(n int) time.Duration { return time.Duration(n) * time.Second }
	return streamTimeouts{Bounds: llm.Bounds{FirstByte: sec(cfg.FirstByteTimeout), Idle: sec(cfg.StreamIdleTimeout),
		Pings: sec(cfg.PingTimeout), Total: sec(cfg.ResponseTimeout)}, maxRetryAfter: sec(cfg.MaxRetryAfter)}
}

// apiKey returns the key in the environment variable env, else the stored one that
// stored picks from the credentials file ("" when neither is set). The file is read
// only when the environment has no key.
func apiKey(cfg *config.Config, env string, stored func(config.Credentials) string) (string, error) {
	if k := cfg.Getenv(env); k != "" {
		return k, nil
	}
	creds, err := config.LoadCredentials()
	if err != nil {
		return "", err
	}
	return stored(creds), nil
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// CheckProvider says whether a model provider is configured for a session in cwd
// with opts' flags: nil, or the error New would fail with (ErrNoProvider when nothing
// is configured).
func CheckProvider(opts Options, cwd string) error {
	if opts.LLM != nil {
		return nil
	}
	cfg, err := config.Load(cwd)
	if err != nil {
		return err
	}
	name, _, err := chooseProvider(opts.Provider, opts.Model, cfg)
	if err != nil {
		return err
	}
	base, _ := baseURLFor(name, cfg)
	_, err = newProvider(name, base, streamTimeouts{}, cfg)
	return err
}

// DefaultModel is the model a provider uses when none is chosen.
func DefaultModel(provider string) string { return defaultModels[provider] }
