package skill

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Issue 4 point 6: gantry and skill-creator ship inside the binary and are listed with
// the user's skills, after them.
func TestBuiltinsListed(t *testing.T) {
	t.Parallel()
	names := func(skills []Skill) []string {
		var out []string
		for _, s := range skills {
			out = append(out, s.Name)
		}
		return out
	}
	if got := names(Builtin()); !slices.Equal(got, []string{"gantry", "skill-creator"}) {
		t.Fatalf("Builtin() = %v", got)
	}
	dir := t.TempDir()
	write(t, dir, "deploy.md", "Deploy.\n")
	got := catalogAll(t, dir)
	if !slices.Equal(names(got), []string{"deploy", "gantry", "skill-creator"}) {
		t.Fatalf("Catalog = %v", names(got))
	}
	for _, s := range got {
		if IsBuiltin(s) != (s.Name != "deploy") {
			t.Errorf("IsBuiltin(%+v) = %v", s, IsBuiltin(s))
		}
	}
	if got := catalogAll(t); len(got) != 2 {
		t.Fatalf("Catalog() without folders = %v", names(got))
	}
	desc := Tool(got, Options{}).Spec().Description
	for _, s := range Builtin() {
		if !strings.Contains(desc, "\n "+s.Name+" — "+s.Description) {
			t.Errorf("read_skill's description lacks %s:\n%s", s.Name, desc)
		}
	}
}

// A user's skill of the same name replaces the built-in one, from any folder.
func TestUserSkillWinsOverBuiltin(t *testing.T) {
	t.Parallel()
	project, user := t.TempDir(), t.TempDir()
	mine := write(t, project, "gantry.md", "My own gantry notes.\n")
	theirs := write(t, user, "skill-creator/SKILL.md", "---\ndescription: House rules for skills.\n---\n")
	got := catalogAll(t, project, user)
	want := []Skill{
		{Name: "gantry", Description: "My own gantry notes.", Path: mine},
		{Name: "skill-creator", Description: "House rules for skills.", Path: theirs},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if res := readSkill(t, got, 0, `{"name": "gantry"}`); res.Text != "Base directory for this skill: "+project+"\n\nMy own gantry notes.\n" {
		t.Fatalf("read_skill gave %q", res.Text)
	}
}

// read_skill serves a built-in skill from the binary, with arguments appended (the
// built-in texts hold no placeholder) and the output bounded at the whole bound.
func TestReadSkillReadsBuiltin(t *testing.T) {
	t.Parallel()
	skills := catalogAll(t)
	for _, s := range Builtin() {
		res := readSkill(t, skills, 0, `{"name": "`+s.Name+`"}`)
		if res.IsError || !strings.HasPrefix(res.Text, "---\ndescription: ") || !strings.Contains(res.Text, "\n# ") {
			t.Fatalf("%s: got %q (error %v)", s.Name, res.Text, res.IsError)
		}
		if strings.Contains(res.Text, placeholder) {
			t.Errorf("%s holds %s, which would be replaced when it is read", s.Name, placeholder)
		}
		with := readSkill(t, skills, 0, `{"name": "`+s.Name+`", "arguments": "a deploy skill"}`)
		if with.Text != strings.TrimRight(res.Text, "\n")+"\n\nARGUMENTS: a deploy skill\n" {
			t.Errorf("%s with arguments ends %q", s.Name, with.Text[max(0, len(with.Text)-80):])
		}
		if bounded := readSkillWith(t, skills, Options{Whole: 1000}, `{"name": "`+s.Name+`"}`); len([]rune(bounded.Text)) > 1000 {
			t.Errorf("%s not bounded: %d characters", s.Name, len(bounded.Text))
		}
	}
	text, err := Render(Skill{Name: "x", Path: builtinScheme + "../read_skill.md"}, "", "", DefaultWhole)
	if err == nil {
		t.Fatalf("a built-in path outside builtin/ was read: %q", text)
	}
}

// Both built-in skills have a front-matter description and the facts they promise.
func TestBuiltinDescriptionsAndContent(t *testing.T) {
	t.Parallel()
	musts := map[string][]string{
		"skill-creator": {".gantry/skills", "SKILL.md", "description:", "first paragraph", "ARGUMENTS", "read_skill", "skillsDir"},
		"gantry": {
			".gantry/config.yaml", ".gantry/permissions.yaml", "permissions.yaml", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL",
			"GANTRY_CONFIG_DIR", "maxOutput", "skillsDir", "bash.timeout", "permissionMode", "accept-edits", "yolo",
			"PreToolUse", "onFailure", "mcpServers", "headers", "openai-chat", "tool:regex",
		},
	}
	for _, s := range Builtin() {
		if len(s.Description) < 40 || strings.Contains(s.Description, "\n") {
			t.Errorf("%s: description %q", s.Name, s.Description)
		}
		text, err := Render(s, "", "", DefaultWhole)
		if err != nil {
			t.Fatal(err)
		}
		if got := parseMeta(text); got.description != s.Description || len(got.problems) > 0 || !strings.HasPrefix(text, "---\ndescription: ") {
			t.Errorf("%s: the description does not come from the front matter", s.Name)
		}
		for _, want := range musts[s.Name] {
			if !strings.Contains(text, want) {
				t.Errorf("%s does not mention %q", s.Name, want)
			}
		}
		delete(musts, s.Name)
	}
	if len(musts) != 0 {
		t.Errorf("missing built-ins: %v", musts)
	}
}
