package config

import (
	"net/url"
	"strings"
)

// ProviderNames are the model providers, in the order the documentation gives them.
var ProviderNames = []string{"anthropic", "openai", "openai-chat"}

// Providers is what the configuration says of each model provider (the key providers).
type Providers struct {
	Anthropic  Provider `yaml:"anthropic,omitempty"`
	OpenAI     Provider `yaml:"openai,omitempty"`
	OpenAIChat Provider `yaml:"openai-chat,omitempty"`
	// Ignored says what a project's file set that only the user's file may set: one
	// sentence each, for a notice.
	Ignored []string `yaml:"-"`
}

// Provider is the configuration of one provider.
type Provider struct {
	// BaseURL is where the provider's requests go instead of its own API: a compatible
	// server, a local one included (Ollama, LM Studio, vLLM, llama.cpp's server).
	// Empty: the provider's API, or what its environment variable says.
	BaseURL string `yaml:"baseURL,omitempty"`
}

// Get returns the configuration of the provider named name (the zero Provider for a
// name gantry does not know).
func (p Providers) Get(name string) Provider {
	if at := p.at(name); at != nil {
		return *at
	}
	return Provider{}
}

func (p *Providers) at(name string) *Provider {
	switch name {
	case "anthropic":
		return &p.Anthropic
	case "openai":
		return &p.OpenAI
	case "openai-chat":
		return &p.OpenAIChat
	}
	return nil
}

type providersLayer struct {
	Anthropic  *providerLayer `yaml:"anthropic"`
	OpenAI     *providerLayer `yaml:"openai"`
	OpenAIChat *providerLayer `yaml:"openai-chat"`
}

type providerLayer struct {
	BaseURL *string `yaml:"baseURL"`
}

// list returns the providers the file mentions, by name, in ProviderNames' order.
func (l *providersLayer) list() []namedProviderLayer {
	var out []namedProviderLayer
	for i, p := range []*providerLayer{l.Anthropic, l.OpenAI, l.OpenAIChat} {
		if p != nil {
			out = append(out, namedProviderLayer{ProviderNames[i], p})
		}
	}
	return out
}

type namedProviderLayer struct {
	name string
	*providerLayer
}

// applyProviders merges a file's providers keys. A base URL is honoured only in the
// user's file: the provider's requests carry the person's API key and the whole
// conversation, and a repository must not send them to a server of its choosing. What
// a project's file asked is kept in Ignored.
func (l *providersLayer) applyProviders(c *Config, path string, project bool) {
	for _, p := range l.list() {
		switch {
		case p.BaseURL == nil:
		case project:
			c.Providers.Ignored = append(c.Providers.Ignored, path+": providers."+p.name+".baseURL is honoured only in the user's config")
		default:
			c.Providers.at(p.name).BaseURL = *p.BaseURL
		}
	}
}

// providers checks the base URLs of a file's providers.
func (v *validator) providers(l *providersLayer) {
	for _, p := range l.list() {
		if p.BaseURL != nil && *p.BaseURL != "" && !IsBaseURL(*p.BaseURL) {
			v.fail(keyPath{"providers", p.name, "baseURL"}, "must be an absolute http or https URL, such as http://localhost:11434/v1, not %q", *p.BaseURL)
		}
	}
}

// IsBaseURL says whether s can be a provider's base URL: an absolute http or https URL
// naming a host, without surrounding spaces.
func IsBaseURL(s string) bool {
	if strings.TrimSpace(s) != s {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Hostname() != ""
}
