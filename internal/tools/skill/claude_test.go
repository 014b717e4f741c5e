package skill

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/fs"
)

// readFile runs gantry's real read_file with args.
func readFile(t *testing.T, maxOutput int, args string) tool.Result {
	t.Helper()
	for _, rf := range fs.Tools(fs.Options{MaxOutput: maxOutput}) {
		if rf.Name() == "read_file" {
			inv, msg := rf.Decode(tool.Env{Cwd: t.TempDir()}, []byte(args))
			if msg != "" {
				t.Fatalf("read_file refused %s: %s", args, msg)
			}
			return inv.Run(t.Context())
		}
	}
	t.Fatal("no read_file")
	return tool.Result{}
}

// A skill is named by its front matter, as Anthropic's template is: the folder
// template/ holds the skill template-skill.
func TestCatalogNameFromFrontMatter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := write(t, dir, "template/SKILL.md", "---\nname: template-skill # lowercase, digits and hyphens\ndescription: Replace with what the skill does.\n---\n\n# Insert instructions below\n")
	write(t, dir, "plain/SKILL.md", "---\ndescription: Without a name, the folder's.\n---\n")
	got := catalog(t, dir)
	if len(got) != 2 || got[0].Name != "plain" || got[1].Name != "template-skill" || got[1].Path != path {
		t.Fatalf("got %+v", got)
	}
	if res := readSkill(t, got, 0, `{"name": "template-skill"}`); res.IsError || !strings.Contains(res.Text, "# Insert instructions below") {
		t.Fatalf("read_skill template-skill: %q", res.Text)
	}
	if res := readSkill(t, got, 0, `{"name": "template"}`); !res.IsError {
		t.Fatalf("the folder's name still finds the skill: %q", res.Text)
	}
}

// Two skills with one front-matter name in different folders: the first in search
// order is used, and one notice names both files.
func TestCatalogNameClash(t *testing.T) {
	t.Parallel()
	gantryDir, claudeDir := t.TempDir(), t.TempDir()
	first := write(t, gantryDir, "pdf-tools/SKILL.md", "---\nname: pdf\ndescription: Gantry's PDF skill.\n---\n")
	second := write(t, claudeDir, "pdf/SKILL.md", "---\nname: pdf\ndescription: Claude's PDF skill.\n---\n")
	got, notices := Catalog(gantryDir, claudeDir)
	user := withoutBuiltins(got)
	if len(user) != 1 || user[0].Path != first || user[0].Description != "Gantry's PDF skill." {
		t.Fatalf("got %+v", user)
	}
	want := fmt.Sprintf("Two skills are named %q: %s is used and %s is left out (the first found in the search order wins).", "pdf", first, second)
	if len(notices) != 1 || notices[0] != want {
		t.Fatalf("notices %q\nwant %q", notices, want)
	}
}

// .claude/skills linked to .gantry/skills (a common way to share them) is the same
// files twice: no clash.
func TestCatalogSameFileTwiceIsNoClash(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, root, ".gantry/skills/review/SKILL.md", "---\nname: review\ndescription: Review.\n---\n")
	if err := os.MkdirAll(filepath.Join(root, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, ".gantry/skills"), filepath.Join(root, ".claude/skills")); err != nil {
		t.Fatal(err)
	}
	if got := catalog(t, filepath.Join(root, ".gantry/skills"), filepath.Join(root, ".claude/skills")); len(got) != 1 {
		t.Fatalf("got %+v", got)
	}
}

// What a skill's front matter gets wrong is one notice naming the skill and its file;
// the skill is still listed, named after its folder.
func TestCatalogFrontMatterNotices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	broken := write(t, dir, "broken/SKILL.md", "---\nname: broken\ndescription: [not closed\n---\nStill usable.\n")
	numbered := write(t, dir, "numbered/SKILL.md", "---\nname: 7\n---\nSeven.\n")
	got, notices := Catalog(dir)
	want := []string{
		"The skill broken (" + broken + "): its front matter is not valid YAML (line 3: sequence end token ']' not found), so gantry uses none of it.",
		"The skill numbered (" + numbered + "): its name is a number, not a string, so it is named after its file; its front matter has no description, so the catalogue shows its first paragraph.",
	}
	if strings.Join(notices, "\n") != strings.Join(want, "\n") {
		t.Fatalf("notices\n%s\nwant\n%s", strings.Join(notices, "\n"), strings.Join(want, "\n"))
	}
	user := withoutBuiltins(got)
	if len(user) != 2 || user[0].Description != "Still usable." || user[1].Name != "numbered" || user[1].Description != "Seven." {
		t.Fatalf("got %+v", user)
	}
}

// The catalogue keeps long descriptions whole: the trigger rules reach the model.
func TestCatalogueKeepsLongDescriptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "ledger/SKILL.md", "---\nname: ledger\ndescription: \""+longTriggers+"\"\n---\n# Ledger\n")
	desc := Tool(catalog(t, dir), Options{}).Spec().Description
	if !strings.HasSuffix(desc, "\n ledger — "+longTriggers) {
		t.Fatalf("the catalogue line is not whole:\n%s", desc)
	}
}

// read_skill names the skill's folder first, so a file beside SKILL.md can be read —
// here with gantry's read_file at the path the model builds from that line.
func TestReadSkillBaseDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "forms/SKILL.md", "---\nname: forms\ndescription: Fill forms. Use when asked to fill a form.\n---\n# Forms\n\nTo fill a form, read FIELDS.md and follow it. Scripts are in ${CLAUDE_SKILL_DIR}/scripts.\n")
	write(t, dir, "forms/FIELDS.md", "Field one: the name.\n")
	res := readSkill(t, catalog(t, dir), 30000, `{"name": "forms"}`)
	first, _, _ := strings.Cut(res.Text, "\n")
	base, ok := strings.CutPrefix(first, "Base directory for this skill: ")
	if !ok || base != filepath.Join(dir, "forms") || !filepath.IsAbs(base) {
		t.Fatalf("first line %q", first)
	}
	if !strings.Contains(res.Text, "Scripts are in "+base+"/scripts.") {
		t.Errorf("${CLAUDE_SKILL_DIR} is not the folder: %q", res.Text)
	}
	path, _ := json.Marshal(filepath.Join(base, "FIELDS.md"))
	if got := readFile(t, 30000, `{"path": `+string(path)+`}`); got.IsError || got.Text != "Field one: the name.\n" {
		t.Fatalf("read_file FIELDS.md: %q", got.Text)
	}
}

var cutNote = regexp.MustCompile(`\n\[… (\d+) of (\d+) characters cut: lines (\d+)–(\d+) of (\d+) are not shown in full; read them with read_file (\{.*\}) …\]\n`)

// A skill over the whole bound without `## ` headings keeps its head and tail in whole
// lines; the note gives the true count and the read_file call that shows exactly the
// lines cut.
func TestReadSkillCutWithHint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var md strings.Builder
	md.WriteString("---\nname: huge\ndescription: A reference that is far too long.\n---\n")
	for i := 5; i <= 600; i++ { // 26,000 characters: read_file gives the cut in one call
		fmt.Fprintf(&md, "Step %d: do the thing number %d with care.\n", i, i)
	}
	write(t, dir, "huge/SKILL.md", md.String())
	const max = 4000
	res := readSkillWith(t, catalog(t, dir), Options{MaxOutput: 1000, Whole: max}, `{"name": "huge"}`)
	if n := utf8.RuneCountInString(res.Text); n > max || n < max-300 {
		t.Fatalf("%d characters for a bound of %d", n, max)
	}
	m := cutNote.FindStringSubmatch(res.Text)
	if m == nil || strings.Count(res.Text, "characters cut") != 1 {
		t.Fatalf("no single note in %q", res.Text)
	}
	cut, total, from, to, lines := atoi(m[1]), atoi(m[2]), atoi(m[3]), atoi(m[4]), atoi(m[5])
	if total != utf8.RuneCountInString(md.String()) || lines != 600 {
		t.Fatalf("the note says %d characters in %d lines; the skill has %d in 600", total, lines, utf8.RuneCountInString(md.String()))
	}
	head, tail, _ := strings.Cut(res.Text, m[0])
	head = strings.TrimPrefix(head, "Base directory for this skill: "+filepath.Join(dir, "huge")+"\n\n")
	if kept := utf8.RuneCountInString(head) + utf8.RuneCountInString(tail); kept != total-cut {
		t.Fatalf("kept %d, the note says %d", kept, total-cut)
	}
	all := strings.SplitAfter(md.String(), "\n")
	if head != strings.Join(all[:from-1], "") || tail != strings.Join(all[to:], "") || !strings.HasPrefix(tail, "Step ") || !strings.HasSuffix(tail, "number 600 with care.\n") {
		t.Fatalf("head %q…, tail …%q are not whole lines around %d–%d", head[:40], tail[len(tail)-40:], from, to)
	}
	rest := readFile(t, 0, m[6])
	// read_file keeps the last line end only at the end of the file.
	if rest.IsError || head+rest.Text+"\n"+tail != md.String() {
		t.Fatalf("read_file %s does not give the lines cut: %q…", m[6], rest.Text[:min(80, len(rest.Text))])
	}
}

// A skill of one enormous line (no line ends to cut at) is cut inside the line, once,
// with the count true and within the bound.
func TestReadSkillCutOneLongLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	body := "---\ndescription: A long skill.\n---\n" + strings.Repeat("word ", 8679)
	write(t, dir, "long.md", body)
	res := readSkillWith(t, catalog(t, dir), Options{Whole: 30000}, `{"name": "long", "arguments": "only this"}`)
	if n := utf8.RuneCountInString(res.Text); n > 30000 || n < 29500 {
		t.Fatalf("%d characters", n)
	}
	if !strings.Contains(res.Text, "[… ") || !strings.Contains(res.Text, fmt.Sprintf(" of %d characters cut: line 4 of 4 is not shown in full", utf8.RuneCountInString(body))) {
		t.Fatalf("note: %q", res.Text[19000:20500])
	}
	if !strings.HasSuffix(res.Text, "word \nARGUMENTS: only this\n") {
		t.Fatalf("the arguments are lost: %q", res.Text[len(res.Text)-80:])
	}
}

// A bound too small for lines and a note falls back to the common bound.
func TestReadSkillTinyBound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "big.md", "HEAD\n"+strings.Repeat("0123456789\n", 1000)+"TAIL\n")
	res := readSkillWith(t, catalog(t, dir), Options{Whole: 200}, `{"name": "big"}`)
	if n := utf8.RuneCountInString(res.Text); n > 200 || !strings.HasSuffix(res.Text, "TAIL\n") {
		t.Fatalf("%d characters: %q", n, res.Text)
	}
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}
