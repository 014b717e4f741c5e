package complete

import (
	"slices"
	"testing"
)

func TestSkills(t *testing.T) {
	skills := []Skill{
		{"pdf", "Read PDF files"}, {"pdf-forms", "Fill PDF forms"},
		{"docx", "Word documents"}, {"slack-gif", "Animated GIFs for Slack"},
		{"Plan", "Plan a change"},
	}
	cases := map[string][]string{
		"":     {"Plan", "docx", "pdf", "pdf-forms", "slack-gif"},
		"pdf":  {"pdf", "pdf-forms"},
		"pf":   {"pdf-forms", "pdf"}, // the f after "-" scores higher
		"sg":   {"slack-gif"},
		"plan": {"Plan"},
		"d":    {"docx", "pdf", "pdf-forms"}, // prefix first, then fuzzy: "d" after nothing in "pdf"
		"zz":   nil,
	}
	for prefix, want := range cases {
		got := Skills(skills, prefix)
		if !slices.Equal(texts(got), want) {
			t.Errorf("Skills(%q) = %q, want %q", prefix, texts(got), want)
		}
		for _, c := range got {
			if c.Kind != KindSkill || c.Display != c.Text || c.Detail == "" {
				t.Errorf("candidate %+v", c)
			}
		}
	}
}

func TestCommands(t *testing.T) {
	cmds := []Command{
		{Name: "clear", Description: "Start a new conversation"},
		{Name: "compact", Description: "Summarize the conversation"},
		{Name: "model", Description: "Change the model", Hint: "<name>"},
		{Name: "cost", Description: "Show the cost"},
		{Name: "help", Description: "Show help"},
	}
	cases := map[string][]string{
		"":    {"clear", "compact", "cost", "help", "model"},
		"co":  {"compact", "cost"},
		"c":   {"clear", "compact", "cost"},
		"mdl": {"model"},
		// Fuzzy after prefixes: "cl" is a prefix of clear, a subsequence of nothing else.
		"cl":   {"clear"},
		"ct":   {"compact", "cost"},
		"help": {"help"},
	}
	for prefix, want := range cases {
		if got := texts(Commands(cmds, prefix)); !slices.Equal(got, want) {
			t.Errorf("Commands(%q) = %q, want %q", prefix, got, want)
		}
	}
	got := Commands(cmds, "mo")
	want := Candidate{Text: "model", Display: "/model <name>", Kind: KindCommand, Detail: "Change the model"}
	if len(got) != 1 || got[0] != want {
		t.Errorf("Commands(mo) = %+v, want %+v", got, want)
	}
	if got := Commands(cmds, "e"); !slices.Equal(texts(got), []string{"clear", "help", "model"}) {
		t.Errorf("Commands(e) = %q", texts(got))
	}
}
