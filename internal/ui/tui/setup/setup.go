package setup

import "github.com/gantry-dev/gantry/internal/app"

// Options configure the setup.
type Options struct {
	// Color styles the views; false gives plain text (NO_COLOR, a dumb terminal).
	Color bool
	// Width is the terminal's width in columns; 0 means 80. The views use at most
	// 80 columns, and follow tea.WindowSizeMsg.
	Width int
}

// Result is how the setup ended.
type Result struct {
	// Provider and Model are what was written to config.yaml (empty when aborted).
	Provider, Model string
	// BaseURL is the server written as providers.<Provider>.baseURL; empty for the
	// provider's own API.
	BaseURL string
	// StoredKey says the key was typed and stored in the credentials file, rather
	// than taken from the environment (or not given, for a server that needs none).
	StoredKey bool
	// Aborted says Esc, Ctrl-C or Ctrl-D (or the end of Run's input) ended the
	// setup: nothing was written.
	Aborted bool
}

// DoneMsg is the message of the command Update returns when the setup ends, saved
// or aborted. A program embedding the Model waits for it; Run quits on it.
type DoneMsg struct{ Result Result }

// provider is one choice of the first step.
type provider struct {
	name, about, env, defaultModel, label string
	// servers says a server is chosen next (see servers).
	servers bool
}

// providers are the choices, in the order shown; the default models are the ones
// internal/app uses when none is configured.
var providers = []provider{
	{"anthropic", "Claude, through Anthropic's API", "ANTHROPIC_API_KEY", app.DefaultModel("anthropic"), "Anthropic", false},
	{"openai", "OpenAI's Responses API", "OPENAI_API_KEY", app.DefaultModel("openai"), "OpenAI", false},
	{"openai-chat", "Chat Completions: OpenAI, or a compatible server", "OPENAI_API_KEY", app.DefaultModel("openai-chat"), "OpenAI", true},
}

// server is one choice of the server step, for a provider with servers.
type server struct {
	name, url, about string
	// other says the base URL is typed.
	other bool
}

// servers are the Chat Completions servers offered: the local ones at their default
// addresses, any other by its base URL, and OpenAI's own API (no base URL).
var servers = []server{
	{name: "Ollama", url: "http://localhost:11434/v1"},
	{name: "LM Studio", url: "http://localhost:1234/v1"},
	{name: "Another", about: "vLLM, llama.cpp's server, OpenRouter…: type its base URL", other: true},
	{name: "OpenAI", about: "OpenAI's own API, with an API key"},
}
