package llm

import (
	"sort"
	"strings"
)

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input, Output, CacheRead, CacheWrite float64
}

// modelInfo is the price and context window of a model family.
type modelInfo struct {
	price  Price
	window int
}

// models maps model-name prefixes to what they cost and hold; the longest matching
// prefix wins, so "gpt-5-mini" is not priced as "gpt-5". Anthropic's cache-write
// price is the 5-minute one (1.25× input). OpenAI bills cache writes as input.
// List prices as published by the vendors; update when they change.
var models = map[string]modelInfo{
	// Anthropic.
	"claude-opus-4-6":   {Price{5, 25, 0.50, 6.25}, 200_000},
	"claude-opus-4-5":   {Price{5, 25, 0.50, 6.25}, 200_000},
	"claude-opus-4-1":   {Price{15, 75, 1.50, 18.75}, 200_000},
	"claude-opus-4":     {Price{15, 75, 1.50, 18.75}, 200_000},
	"claude-sonnet-4-6": {Price{3, 15, 0.30, 3.75}, 200_000},
	"claude-sonnet-4-5": {Price{3, 15, 0.30, 3.75}, 200_000},
	"claude-sonnet-4":   {Price{3, 15, 0.30, 3.75}, 200_000},
	"claude-3-7-sonnet": {Price{3, 15, 0.30, 3.75}, 200_000},
	"claude-haiku-4-5":  {Price{1, 5, 0.10, 1.25}, 200_000},
	"claude-3-5-haiku":  {Price{0.80, 4, 0.08, 1}, 200_000},
	"claude-3-haiku":    {Price{0.25, 1.25, 0.03, 0.30}, 200_000},

	// OpenAI.
	"gpt-5.2":      {Price{1.75, 14, 0.175, 1.75}, 400_000},
	"gpt-5.1":      {Price{1.25, 10, 0.125, 1.25}, 400_000},
	"gpt-5":        {Price{1.25, 10, 0.125, 1.25}, 400_000},
	"gpt-5-mini":   {Price{0.25, 2, 0.025, 0.25}, 400_000},
	"gpt-5-nano":   {Price{0.05, 0.40, 0.005, 0.05}, 400_000},
	"gpt-4.1":      {Price{2, 8, 0.50, 2}, 1_047_576},
	"gpt-4.1-mini": {Price{0.40, 1.60, 0.10, 0.40}, 1_047_576},
	"gpt-4.1-nano": {Price{0.10, 0.40, 0.025, 0.10}, 1_047_576},
	"gpt-4o":       {Price{2.50, 10, 1.25, 2.50}, 128_000},
	"gpt-4o-mini":  {Price{0.15, 0.60, 0.075, 0.15}, 128_000},
	"o3":           {Price{2, 8, 0.50, 2}, 200_000},
	"o3-mini":      {Price{1.10, 4.40, 0.55, 1.10}, 200_000},
	"o4-mini":      {Price{1.10, 4.40, 0.275, 1.10}, 200_000},
}

// lookup finds the entry with the longest prefix of model. A routing prefix such
// as "openai/" (OpenRouter) is ignored.
func lookup(model string) (modelInfo, bool) {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	model = strings.ToLower(model)
	best, found := "", false
	for prefix := range models {
		if strings.HasPrefix(model, prefix) && len(prefix) > len(best) {
			best, found = prefix, true
		}
	}
	return models[best], found
}

// PriceOf returns the per-million-token prices of model, and whether it is known.
func PriceOf(model string) (Price, bool) {
	m, ok := lookup(model)
	return m.price, ok
}

// Cost returns what usage u of model cost, in USD; 0 for an unknown model. The
// four counts of u are disjoint, as the adapters report them: InputTokens excludes
// the tokens read from or written to the cache.
func Cost(model string, u Usage) float64 {
	p, ok := PriceOf(model)
	if !ok {
		return 0
	}
	return (float64(u.InputTokens)*p.Input +
		float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadTokens)*p.CacheRead +
		float64(u.CacheWriteTokens)*p.CacheWrite) / 1e6
}

// ContextWindow returns the context window of model in tokens, 0 when unknown.
func ContextWindow(model string) int {
	m, _ := lookup(model)
	return m.window
}

// KnownModels lists the model names of gantry's table whose names start with one of
// the prefixes (all when none is given), sorted.
func KnownModels(prefixes ...string) []string {
	var out []string
	for name := range models {
		if len(prefixes) == 0 {
			out = append(out, name)
			continue
		}
		for _, p := range prefixes {
			if strings.HasPrefix(name, p) {
				out = append(out, name)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}
