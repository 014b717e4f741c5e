package skill

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Seed 002, read_skill, "Description": from the front matter's description.
func TestDescriptionFromFrontMatter(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"---\nname: deploy\ndescription: Ship the app to production.\n---\n# Deploy\n\nFirst paragraph.\n": "Ship the app to production.",
		"---\ndescription: >\n  Folded over\n  two lines.\n---\nBody.\n":                                   "Folded over two lines.",
		"---\r\ndescription: \"CRLF: quoted\"\r\n---\r\nBody.\r\n":                                         "CRLF: quoted",
	}
	for md, want := range cases {
		if got := parseMeta(md).description; got != want {
			t.Errorf("parseMeta(%q).description = %q, want %q", md, got, want)
		}
	}
}

// Seed 002, read_skill, "Description": else the first paragraph.
func TestDescriptionFromFirstParagraph(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"# Title\n\nRuns the tests\nof the project.\n\nSecond paragraph.\n":         "Runs the tests of the project.",
		"Plain first line.\n\nMore.":                                                "Plain first line.",
		"---\nname: x\n---\n\n## Heading\n### Sub\nAfter headings.\n# Next\nNo.":    "After headings.",
		"---\ndescription: [not, a, string\n---\nBroken front matter falls back.\n": "Broken front matter falls back.",
		"---\nnot closed\n\nstill body":                                             "--- not closed",
		"# Only a heading\n":                                                        "",
		"":                                                                          "",
	}
	for md, want := range cases {
		if got := parseMeta(md).description; got != want {
			t.Errorf("parseMeta(%q).description = %q, want %q", md, got, want)
		}
	}
	long := parseMeta(strings.Repeat("word ", 300))
	if got := []rune(long.description); len(got) != maxDescription || got[len(got)-1] != '…' || len(long.problems) != 0 {
		t.Errorf("a long paragraph gives %d characters, problems %q", len(got), long.problems)
	}
}

// Seed 002, read_skill: `<name>.md` and `<name>/SKILL.md` are skills; other files are not.
func TestCatalogFindsFlatAndFolderSkills(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flat := write(t, dir, "review.md", "Review code.\n")
	folder := write(t, dir, "deploy/SKILL.md", "---\ndescription: Deploy.\n---\n")
	write(t, dir, "notes.txt", "not a skill")
	write(t, dir, "empty/README.md", "no SKILL.md here")
	write(t, dir, ".hidden.md", "hidden")
	if err := os.Symlink(flat, filepath.Join(dir, "alias.md")); err != nil {
		t.Fatal(err)
	}
	got := catalog(t, dir)
	want := []Skill{
		{Name: "alias", Description: "Review code.", Path: filepath.Join(dir, "alias.md")},
		{Name: "deploy", Description: "Deploy.", Path: folder},
		{Name: "review", Description: "Review code.", Path: flat},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

// Seed 002, read_skill, "Output": the flat file wins over the folder, and the clash
// is said with both files.
func TestCatalogFlatFileWinsOverFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flat := write(t, dir, "lint.md", "Flat.\n")
	folder := write(t, dir, "lint/SKILL.md", "Folder.\n")
	got, notices := Catalog(dir)
	if len(got) != 3 || got[1].Path != flat || got[1].Description != "Flat." {
		t.Fatalf("got %+v", got)
	}
	want := `Two skills are named "lint": ` + flat + ` is used and ` + folder + ` is left out (the first found in the search order wins).`
	if !reflect.DeepEqual(notices, []string{want}) {
		t.Fatalf("notices %q\nwant %q", notices, want)
	}
}

// Several folders: the first (the project's) wins on a name clash, with a notice.
func TestCatalogFirstDirWins(t *testing.T) {
	t.Parallel()
	project, user := t.TempDir(), t.TempDir()
	first := write(t, project, "a/SKILL.md", "Project a.")
	second := write(t, user, "a.md", "User a.")
	write(t, user, "b.md", "User b.")
	all, notices := Catalog(project, filepath.Join(t.TempDir(), "missing"), "", user)
	got := withoutBuiltins(all)
	if len(got) != 2 || got[0].Description != "Project a." || got[1].Description != "User b." {
		t.Fatalf("got %+v", got)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], first+" is used and "+second+" is left out") {
		t.Fatalf("notices %q", notices)
	}
}

// A folder that cannot be read is a notice, and the other folders' skills stay.
func TestCatalogUnreadableFolders(t *testing.T) {
	t.Parallel()
	if got := catalog(t, filepath.Join(t.TempDir(), "none")); len(got) != 0 {
		t.Fatalf("a missing folder gave %v", got)
	}
	file := write(t, t.TempDir(), "file", "")
	good := t.TempDir()
	write(t, good, "ok.md", "Fine.")
	all, notices := Catalog(file, good)
	if got := withoutBuiltins(all); len(got) != 1 || got[0].Name != "ok" {
		t.Fatalf("got %+v", got)
	}
	if want := "The skills folder " + file + " cannot be read (not a directory), so its skills are left out."; !reflect.DeepEqual(notices, []string{want}) {
		t.Fatalf("notices %q, want %q", notices, want)
	}
}

// A plugin's skills are named plugin:name, beside a person's skill of the same name.
func TestCatalogPluginSkillsAreNamespaced(t *testing.T) {
	t.Parallel()
	user, plug := t.TempDir(), t.TempDir()
	write(t, user, "greet.md", "Mine.")
	theirs := write(t, plug, "greet/SKILL.md", "---\nname: greet\ndescription: Theirs.\n---\nGreet.")
	all, notices := CatalogWith([]string{user}, []PluginDir{{Plugin: "demo", Path: plug}})
	got := withoutBuiltins(all)
	if len(got) != 2 || got[0].Name != "demo:greet" || got[0].Path != theirs || got[0].Dir() != filepath.Dir(theirs) || got[1].Name != "greet" || len(notices) != 0 {
		t.Fatalf("got %+v, notices %q", got, notices)
	}
}
