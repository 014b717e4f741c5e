package refs

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/tools/skill"
)

// FuzzExpand: Expand never panics, keeps the prompt as typed at the start of its
// result, and reports each problem in one line.
func FuzzExpand(f *testing.F) {
	for _, seed := range []string{
		"", "@", "@@", "@a.go", "@file:", "@file:\"", "@file:\"a b", "@file:\"a.go\"x", "@skill:", "@skill:fix args",
		"`@a.go`", "``@a.go`", "```\n@a.go", "a@b.c", "(@dir)", "@dir/", "@~", "@~/", "@file:~nobody/x",
		"@./a.go, @../x; @/", "@skill:fix\r\n@a.go\r\n", "\xff@a.go\x00", "@file:a.go:3", " @file:missing.",
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	for name, content := range map[string]string{"a.go": "package a\n", "dir/b.txt": "B", "bin": "\x00\x01", "a b": "spaced"} {
		write(f, dir, name, content)
	}
	o := Options{Cwd: dir, MaxOutput: 200, Skills: []skill.Skill{{Name: "fix", Path: write(f, dir, "skills/fix.md", "Fix $ARGUMENTS.")}}}
	f.Fuzz(func(t *testing.T, prompt string) {
		res := Expand(prompt, o)
		if !strings.HasPrefix(res.Prompt, prompt) {
			t.Fatalf("the prompt was changed: %q", res.Prompt)
		}
		if len(res.Files) == 0 && !strings.Contains(res.Prompt[len(prompt):], "<skill") && res.Prompt != prompt {
			t.Fatalf("text added without a reference: %q", res.Prompt)
		}
		for _, n := range res.Notes {
			if strings.ContainsAny(n, "\n\r") || (utf8.ValidString(prompt) && !utf8.ValidString(n)) {
				t.Fatalf("note %q", n)
			}
		}
	})
}
