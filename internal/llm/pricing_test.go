package llm

import (
	"math"
	"testing"
)

func TestCostKnownModels(t *testing.T) {
	u := Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000, CacheReadTokens: 1_000_000, CacheWriteTokens: 1_000_000}
	tests := []struct {
		model string
		want  float64
	}{
		{"claude-sonnet-4-5-20250929", 3 + 15 + 0.30 + 3.75},
		{"claude-opus-4-20250514", 15 + 75 + 1.50 + 18.75},
		{"claude-opus-4-5", 5 + 25 + 0.50 + 6.25},
		{"claude-haiku-4-5", 1 + 5 + 0.10 + 1.25},
		{"gpt-5", 1.25 + 10 + 0.125 + 1.25},
		{"gpt-5-mini-2025-08-07", 0.25 + 2 + 0.025 + 0.25},
		{"gpt-4o-mini", 0.15 + 0.60 + 0.075 + 0.15},
		{"openai/gpt-4.1", 2 + 8 + 0.50 + 2},
		{"GPT-4.1-MINI", 0.40 + 1.60 + 0.10 + 0.40},
	}
	for _, tt := range tests {
		if got := Cost(tt.model, u); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Cost(%q) = %v, want %v", tt.model, got, tt.want)
		}
	}
}

func TestCostScalesPerToken(t *testing.T) {
	got := Cost("claude-sonnet-4-5", Usage{InputTokens: 2000, OutputTokens: 500})
	want := (2000*3.0 + 500*15.0) / 1e6
	if math.Abs(got-want) > 1e-12 {
		t.Fatalf("Cost = %v, want %v", got, want)
	}
}

func TestCostUnknownModelIsZero(t *testing.T) {
	for _, m := range []string{"", "llama3.1:8b", "qwen2.5-coder", "gpt"} {
		if got := Cost(m, Usage{InputTokens: 1e6, OutputTokens: 1e6}); got != 0 {
			t.Errorf("Cost(%q) = %v, want 0", m, got)
		}
	}
}

func TestContextWindow(t *testing.T) {
	tests := map[string]int{
		"claude-sonnet-4-5": 200_000,
		"gpt-4.1-nano":      1_047_576,
		"gpt-4o-2024-11-20": 128_000,
		"gpt-5-nano":        400_000,
		"o3-mini":           200_000,
		"mistral-large":     0,
	}
	for model, want := range tests {
		if got := ContextWindow(model); got != want {
			t.Errorf("ContextWindow(%q) = %d, want %d", model, got, want)
		}
	}
}

func TestPriceOf(t *testing.T) {
	if _, ok := PriceOf("nope"); ok {
		t.Error("PriceOf(unknown) reported known")
	}
	p, ok := PriceOf("o4-mini")
	if !ok || p.Input != 1.10 || p.Output != 4.40 {
		t.Errorf("PriceOf(o4-mini) = %+v, %v", p, ok)
	}
}
