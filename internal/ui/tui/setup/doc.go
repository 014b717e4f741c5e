// Package setup is gantry's first-run setup: a small bubbletea program, run before
// the first session when no model provider is configured, that asks for the
// provider, for Chat Completions its server (Ollama or LM Studio at their default
// addresses, another by its base URL, or OpenAI's API), its API key (none for a
// server that needs none) and the model, one step at a time, then writes provider,
// model and the server's providers.<provider>.baseURL into the user's config.yaml
// (keeping the rest of the file) and, when a key was typed rather than taken from the
// environment, stores it with config.SaveCredentials. Esc or Ctrl-C at any step ends
// it without writing anything.
//
// Run drives it on a terminal (or any reader and writer); New gives the Model, to be
// embedded in another program, which then watches for DoneMsg.
package setup
