package skill

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// Seed 002, read_skill, "Description": the fixed sentence, then ` <name> — <description>`
// per skill, sorted by name.
func TestReadSkillDescriptionCatalogue(t *testing.T) {
	t.Parallel()
	skills := []Skill{
		{Name: "zeta", Description: "Last."},
		{Name: "alpha", Description: "First."},
		{Name: "mid"},
	}
	got := Tool(skills, Options{}).Spec().Description
	want := strings.TrimSpace(readSkillSentence) + "\n alpha — First.\n mid — (no description)\n zeta — Last."
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if !strings.HasPrefix(got, "Load the full instructions of a skill") {
		t.Fatalf("the fixed sentence is missing: %s", got)
	}
	if skills[0].Name != "zeta" {
		t.Fatal("Tool reordered the caller's slice")
	}
}

// Seed 002, read_skill, "Output": the whole markdown, front matter included, after
// the line that names the skill's folder.
func TestReadSkillOutputsWholeMarkdown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	md := "---\ndescription: Deploy.\n---\n# Deploy\n\nStep 1.\n\nStep 2.\n"
	write(t, dir, "deploy/SKILL.md", md)
	res := readSkill(t, catalog(t, dir), 30000, `{"name": "deploy"}`)
	if res.Text != "Base directory for this skill: "+filepath.Join(dir, "deploy")+"\n\n"+md || res.IsError {
		t.Fatalf("got %q (error %v)", res.Text, res.IsError)
	}
	if !res.Display.Hidden {
		t.Fatal("the content would be echoed in the terminal")
	}
}

// Seed 002, read_skill, "Unknown name": exactly `No skill named "x". Available skills: a, b, c`.
func TestReadSkillUnknownName(t *testing.T) {
	t.Parallel()
	skills := []Skill{{Name: "c"}, {Name: "a"}, {Name: "b"}}
	res := readSkill(t, skills, 0, `{"name": "x"}`)
	if want := `No skill named "x". Available skills: a, b, c`; res.Text != want || !res.IsError {
		t.Fatalf("got %q (error %v), want %q", res.Text, res.IsError, want)
	}
}

// Seed 002, read_skill, "Path safety": only the base name is used.
func TestReadSkillPathSafety(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := root + "/skills"
	write(t, dir, "safe.md", "Safe.\n")
	write(t, root, "secret.md", "SECRET\n")
	skills := catalog(t, dir)
	for _, name := range []string{"../secret", "../../etc/passwd", "/etc/passwd", "../secret.md", "..", "."} {
		res := readSkill(t, skills, 0, `{"name": "`+name+`"}`)
		if !res.IsError || !strings.HasPrefix(res.Text, "No skill named ") || strings.Contains(res.Text, "SECRET") {
			t.Errorf("%q: got %q", name, res.Text)
		}
	}
	res := readSkill(t, skills, 0, `{"name": "../elsewhere/safe"}`)
	if res.Text != "Base directory for this skill: "+dir+"\n\nSafe.\n" {
		t.Errorf("the base name of a path: got %q", res.Text)
	}
}

// 003 LoadSkill: `arguments` replaces $ARGUMENTS, or is appended when there is none.
func TestReadSkillSubstitutesArguments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "fix.md", "Fix issue $ARGUMENTS, then test $ARGUMENTS.\n")
	write(t, dir, "plain.md", "Plain.\n")
	skills := catalog(t, dir)
	base := "Base directory for this skill: " + dir + "\n\n"
	if res := readSkill(t, skills, 0, `{"name": "fix", "arguments": "#42"}`); res.Text != base+"Fix issue #42, then test #42.\n" {
		t.Errorf("got %q", res.Text)
	}
	if res := readSkill(t, skills, 0, `{"name": "fix"}`); res.Text != base+"Fix issue , then test .\n" {
		t.Errorf("without arguments: got %q", res.Text)
	}
	if res := readSkill(t, skills, 0, `{"name": "plain", "arguments": "x y"}`); res.Text != base+"Plain.\n\nARGUMENTS: x y\n" {
		t.Errorf("no placeholder: got %q", res.Text)
	}
}

// Seed 002, read_skill, "ACP": kind read, no dialog (level read); the principal is the name.
func TestReadSkillDeclaration(t *testing.T) {
	t.Parallel()
	rs := Tool([]Skill{{Name: "a"}}, Options{})
	if rs.Name() != "read_skill" || rs.Level() != tool.LevelRead || rs.Kind() != tool.KindRead {
		t.Fatalf("%s level %v kind %v", rs.Name(), rs.Level(), rs.Kind())
	}
	inv, msg := rs.Decode(tool.Env{}, []byte(`{"name": "a"}`))
	if msg != "" || inv.Principal != "a" {
		t.Fatalf("principal %q, refusal %q", inv.Principal, msg)
	}
	if !strings.Contains(string(rs.Spec().Schema), `"required":["name"]`) {
		t.Fatalf("schema %s", rs.Spec().Schema)
	}
	if Enabled(nil) || !Enabled([]Skill{{Name: "a"}}) {
		t.Fatal("Enabled must hold exactly when there is a skill")
	}
}

func TestReadSkillMalformedArguments(t *testing.T) {
	t.Parallel()
	rs := Tool([]Skill{{Name: "a"}}, Options{})
	for input, field := range map[string]string{
		`{}`:                              "name",
		`{"name": 3}`:                     "name",
		`{"name": "a", "arguments": [1]}`: "arguments",
	} {
		if _, msg := rs.Decode(tool.Env{}, []byte(input)); msg == "" || !strings.Contains(msg, field) || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q", input, msg)
		}
	}
}

// A skill whose file went away since the catalogue was made is a sentence, not a panic.
func TestReadSkillVanishedFile(t *testing.T) {
	t.Parallel()
	res := readSkill(t, []Skill{{Name: "gone", Path: t.TempDir() + "/gone.md"}}, 0, `{"name": "gone"}`)
	if !res.IsError || !strings.HasPrefix(res.Text, `The skill "gone" could not be read: `) {
		t.Fatalf("got %q", res.Text)
	}
}
