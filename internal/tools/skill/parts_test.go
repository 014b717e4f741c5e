package skill

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/tool"
)

// longSkill writes dir/api/SKILL.md, a skill shaped like Anthropic's claude-api (about
// 60,000 characters): front matter, a title and an introduction, then sections `## `
// of about 1,900 characters each with `###` subsections, and code blocks whose
// comments look like headings. It returns the text and the sections' titles.
func longSkill(t *testing.T, dir string, sections int) (md string, titles []string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("---\nname: api\ndescription: Build apps with the API. Use when code imports the SDK.\n---\n# Building with the API\n\nRead the section for your language; scripts are in ${CLAUDE_SKILL_DIR}/scripts.\n\n")
	for i := 1; i <= sections; i++ {
		title := fmt.Sprintf("Topic %d: Streaming and Tools", i)
		titles = append(titles, title)
		fmt.Fprintf(&b, "## %s\n\n", title)
		for j := 0; j < 12; j++ {
			fmt.Fprintf(&b, "Step %d.%d: call the endpoint with the right parameters and check the answer.\n", i, j)
		}
		fmt.Fprintf(&b, "\n### Example %d\n\n```bash\n## not a heading: a comment in section %d\ncurl https://api.example.com/v1/messages\n```\n\n", i, i)
		for j := 0; j < 8; j++ {
			fmt.Fprintf(&b, "Note %d.%d: errors are retried with backoff, up to three times.\n", i, j)
		}
		b.WriteString("\n")
	}
	md = b.String()
	write(t, dir, "api/SKILL.md", md)
	return md, titles
}

// A skill of about 60,000 characters loads whole, with its folder first, in a session
// whose tool results are bounded at 30,000: the result's Room keeps the loop's bound
// (tool.Fit) from cutting it.
func TestReadSkillLongLoadsWhole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	md, _ := longSkill(t, dir, 40)
	if n := utf8.RuneCountInString(md); n < 60000 || n > DefaultWhole {
		t.Fatalf("the fixture has %d characters", n)
	}
	base := filepath.Join(dir, "api")
	res := readSkill(t, catalog(t, dir), 30000, `{"name": "api"}`)
	want := "Base directory for this skill: " + base + "\n\n" + strings.ReplaceAll(md, dirPlaceholder, base)
	if res.IsError || res.Text != want {
		t.Fatalf("not whole: %d characters of %d", len(res.Text), len(want))
	}
	if fitted := tool.Fit(res, 30000, nil, "call"); fitted.Text != want {
		t.Fatalf("the loop's bound cut it to %d characters", len(fitted.Text))
	}
}

// A skill over the whole bound loads as its start and the table of its `## ` parts;
// read_skill's part gives one part whole, by number or by heading in any case; the
// start and the parts together are the skill.
func TestReadSkillInParts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	md, titles := longSkill(t, dir, 32)
	base := filepath.Join(dir, "api")
	md = strings.ReplaceAll(md, dirPlaceholder, base)
	header := "Base directory for this skill: " + base + "\n\n"
	skills := catalog(t, dir)
	o := Options{MaxOutput: 30000, Whole: 20000}
	res := readSkillWith(t, skills, o, `{"name": "api"}`)
	if res.IsError || utf8.RuneCountInString(res.Text) > 20000 || res.Room != 20000 {
		t.Fatalf("%d characters (room %d, error %v)", utf8.RuneCountInString(res.Text), res.Room, res.IsError)
	}
	start, _, _ := strings.Cut(md, "## "+titles[0]+"\n")
	if !strings.HasPrefix(res.Text, header+start+"\n[This skill has ") {
		t.Fatalf("the start: %q", res.Text[:min(600, len(res.Text))])
	}
	if !strings.Contains(res.Text, fmt.Sprintf("more than the 20000 given at once, so only its start is above. Read a part whole with read_skill {\"name\": \"api\", \"part\": \"<its heading or number>\"}. Its parts:]\n1. %s (", titles[0])) {
		t.Fatalf("no table: %q", res.Text)
	}
	whole := start
	for i, title := range titles {
		var got tool.Result
		switch i % 3 {
		case 0:
			got = readSkillWith(t, skills, o, fmt.Sprintf(`{"name": "api", "part": "%d"}`, i+1))
		case 1:
			got = readSkillWith(t, skills, o, fmt.Sprintf(`{"name": "api", "part": %q}`, strings.ToUpper(title)))
		default:
			got = readSkillWith(t, skills, o, fmt.Sprintf(`{"name": "api", "part": "## %s"}`, title))
		}
		text, ok := strings.CutPrefix(got.Text, header)
		if got.IsError || !ok || !strings.HasPrefix(text, "## "+title+"\n") || !strings.Contains(text, "## not a heading") {
			t.Fatalf("part %d: %q", i+1, got.Text)
		}
		line := fmt.Sprintf("\n%d. %s (%d characters)\n", i+1, title, utf8.RuneCountInString(text))
		if !strings.Contains(res.Text, line) {
			t.Errorf("the table has no line %q", line)
		}
		whole += text
	}
	if whole != md {
		t.Fatal("the start and the parts are not the skill")
	}
	if strings.Count(res.Text, "characters)\n") != len(titles) {
		t.Fatalf("a code comment was taken for a heading: %q", res.Text)
	}
	withArgs := readSkillWith(t, skills, o, `{"name": "api", "part": "2", "arguments": "in Go"}`)
	if !strings.HasSuffix(withArgs.Text, "times.\n\n\nARGUMENTS: in Go\n") {
		t.Errorf("the arguments after a part: %q", withArgs.Text[len(withArgs.Text)-60:])
	}
}

// A part the skill does not have is one sentence that lists its parts.
func TestReadSkillUnknownPart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "two.md", "# Two\n\nIntro.\n\n## Setup\n\nA.\n\n## Usage\n\nB.\n")
	write(t, dir, "flat.md", "No headings.\n")
	skills := catalog(t, dir)
	for args, want := range map[string]string{
		`{"name": "two", "part": "Deploy"}`: `The skill "two" has no part "Deploy"; its parts are 1 "Setup", 2 "Usage".`,
		`{"name": "two", "part": "3"}`:      `The skill "two" has no part "3"; its parts are 1 "Setup", 2 "Usage".`,
		`{"name": "flat", "part": "1"}`:     `The skill "flat" has no parts (no "## " headings), so read it without "part".`,
	} {
		if res := readSkill(t, skills, 30000, args); !res.IsError || res.Text != want {
			t.Errorf("%s: got %q", args, res.Text)
		}
	}
	// A short skill's part is given too.
	if res := readSkill(t, skills, 30000, `{"name": "two", "part": "usage"}`); res.Text != "Base directory for this skill: "+dir+"\n\n## Usage\n\nB.\n" {
		t.Errorf("got %q", res.Text)
	}
}
