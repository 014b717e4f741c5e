package app

import (
	"github.com/gantry-dev/gantry/internal/llm"
)

// ModelChoice is a model a face offers to switch to, with where it comes from.
type ModelChoice struct {
	Name string
	From string // "models.good", "alias sonnet", "known", "current"
}

// KnownModels are gantry's known models of the session's provider's family (its
// price table's): Claude's with Anthropic, OpenAI's otherwise.
func (a *App) KnownModels() []string {
	if a.provider == "anthropic" {
		return llm.KnownModels("claude-")
	}
	return llm.KnownModels("gpt-", "o3", "o4")
}

// ModelChoices lists the models the session can switch to: the configured tiers
// (models.good, models.fast), Claude Code's aliases with Anthropic (sonnet, opus,
// haiku), then the known models of the provider; the current model is among them
// (first, when it is none of those). Each model is listed once, under its first
// source.
func (a *App) ModelChoices() []ModelChoice {
	var out []ModelChoice
	seen := map[string]bool{}
	add := func(name, from string) {
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, ModelChoice{Name: name, From: from})
		}
	}
	add(a.cfg.Models.Good, "models.good")
	add(a.cfg.Models.Fast, "models.fast")
	if a.provider == "anthropic" {
		for _, alias := range []string{"sonnet", "opus", "haiku"} {
			add(claudeModels[alias], "alias "+alias)
		}
	}
	for _, m := range a.KnownModels() {
		add(m, "known")
	}
	if cur := a.Model(); cur != "" && !seen[cur] {
		out = append([]ModelChoice{{Name: cur, From: "current"}}, out...)
	}
	return out
}
