package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestOutputStylesFoldersAndFrontMatter(t *testing.T) {
	e := newEnv(t)
	write(t, filepath.Join(e.user, "output-styles", "terse.md"), "Answer in one line.\n")
	write(t, filepath.Join(e.home, ".claude", "output-styles", "teacher.md"),
		"---\nname: Teacher\ndescription: explains as it goes\nkeep-coding-instructions: true\n---\n\nExplain each choice.\n")
	write(t, filepath.Join(e.home, ".claude", "output-styles", "notes.txt"), "not a style\n")
	// The project's replaces the user's of the same name, in any case.
	write(t, filepath.Join(e.root, ".claude", "output-styles", "t.md"), "---\nname: teacher\n---\nProject teacher.\n")
	write(t, filepath.Join(e.root, ".gantry", "output-styles", "terse.md"), "---\ndescription: gantry's own\n---\nTwo lines at most.\n")
	write(t, filepath.Join(e.root, ".gantry", "output-styles", "bad.md"), "---\nname: [unclosed\n---\nBad front matter.\n")
	styles, err := OutputStyles(filepath.Join(e.root, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range styles {
		got = append(got, s.Name+"|"+s.Description+"|"+strings.ReplaceAll(s.Body, "\n", "/")+"|"+map[bool]string{true: "keep", false: "replace"}[s.KeepCodingInstructions])
	}
	want := []string{
		"bad||---/name: [unclosed/---/Bad front matter.|replace",
		"teacher||Project teacher.|replace",
		"terse|gantry's own|Two lines at most.|replace",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("styles:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	write(t, filepath.Join(e.root, ".claude", "output-styles", "t.md"), "not there any more\n")
	styles, _ = OutputStyles(e.root)
	for _, s := range styles {
		if s.Name == "Teacher" && (!s.KeepCodingInstructions || s.Description != "explains as it goes" || s.Body != "Explain each choice.") {
			t.Errorf("the user's Teacher: %+v", s)
		}
	}
}

func TestClaudeOutputStyleLaterFileWins(t *testing.T) {
	e := newEnv(t)
	if got := ClaudeOutputStyle(e.root); got != "" {
		t.Errorf("none set: %q", got)
	}
	write(t, filepath.Join(e.home, ".claude", "settings.json"), `{"outputStyle": "Explanatory"}`)
	write(t, filepath.Join(e.root, ".claude", "settings.json"), `{"model": "x"}`)
	if got := ClaudeOutputStyle(e.root); got != "Explanatory" {
		t.Errorf("user's: %q", got)
	}
	write(t, filepath.Join(e.root, ".claude", "settings.local.json"), `{"outputStyle": "terse"}`)
	if got := ClaudeOutputStyle(e.root); got != "terse" {
		t.Errorf("local's: %q", got)
	}
}
