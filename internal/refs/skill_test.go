package refs

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tools/skill"
)

// skills writes fix.md (with $ARGUMENTS) and plain.md and returns their catalogue.
func skills(t *testing.T) []skill.Skill {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "fix.md", "Fix issue $ARGUMENTS.\n")
	write(t, dir, "plain/SKILL.md", "Plain.\n")
	s, err := skill.Catalog(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A skill is inlined as read_skill gives it: the line naming its folder first, so
// that the files beside it can be found.
func TestSkillWithArguments(t *testing.T) {
	t.Parallel()
	o := Options{Cwd: t.TempDir(), MaxOutput: 30000, Skills: skills(t)}
	res := Expand("first line\n@skill:fix #42 in the parser\nlast line", o)
	base := "Base directory for this skill: " + dirOf(o.Skills, "fix") + "\n\n"
	want := "first line\n@skill:fix #42 in the parser\nlast line\n\n<skill name=\"fix\">\n" + base + "Fix issue #42 in the parser.\n</skill>"
	if res.Prompt != want || len(res.Notes) != 0 {
		t.Fatalf("got %q, notes %v", res.Prompt, res.Notes)
	}
	res = Expand("please @skill:plain x y", o)
	if !strings.HasSuffix(res.Prompt, "<skill name=\"plain\">\nBase directory for this skill: "+dirOf(o.Skills, "plain")+"\n\nPlain.\n\nARGUMENTS: x y\n</skill>") {
		t.Fatalf("no placeholder: got %q", res.Prompt)
	}
	res = Expand("@skill:plain, and @skill:plain,", o)
	if strings.Count(res.Prompt, "<skill ") != 2 || !strings.Contains(res.Prompt, "ARGUMENTS: and @skill:plain,\n") {
		t.Fatalf("trailing punctuation or arguments: got %q", res.Prompt)
	}
}

// dirOf is the folder of the skill named name.
func dirOf(skills []skill.Skill, name string) string {
	for _, s := range skills {
		if s.Name == name {
			return s.Dir()
		}
	}
	return ""
}

// The built-in skills come with the catalogue and load from the binary.
func TestBuiltinSkill(t *testing.T) {
	t.Parallel()
	res := Expand("@skill:gantry", Options{Skills: skills(t)})
	if !strings.Contains(res.Prompt, "<skill name=\"gantry\">\n---\ndescription: ") || len(res.Notes) != 0 {
		t.Fatalf("got %q, notes %v", res.Prompt, res.Notes)
	}
}

func TestUnknownSkill(t *testing.T) {
	t.Parallel()
	prompt := "do @skill:deploy now"
	res := Expand(prompt, Options{Skills: []skill.Skill{{Name: "b"}, {Name: "a"}}})
	want := []string{`@skill:deploy: no skill named "deploy" (available: b, a)`}
	if res.Prompt != prompt || !reflect.DeepEqual(res.Notes, want) {
		t.Fatalf("got %q, notes %q", res.Prompt, res.Notes)
	}
	if res := Expand(prompt, Options{}); res.Notes[0] != `@skill:deploy: no skill named "deploy" (available: none)` {
		t.Fatalf("notes %q", res.Notes)
	}
}

// A skill whose file went away is reported in one line.
func TestSkillUnreadable(t *testing.T) {
	t.Parallel()
	res := Expand("@skill:gone", Options{Skills: []skill.Skill{{Name: "gone", Path: t.TempDir() + "/gone.md"}}})
	if len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], "@skill:gone: the skill could not be read: ") || strings.Contains(res.Notes[0], "\n") {
		t.Fatalf("notes %q", res.Notes)
	}
}
