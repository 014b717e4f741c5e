package skill

import (
	"reflect"
	"strings"
	"testing"
)

// longTriggers is a description in the shape Anthropic's public skills use: what the
// skill does, then the words that should make the model pick it, then when not to —
// here 838 characters, far past the old 300.
const longTriggers = "Use this skill whenever the user wants to create, read, convert or repair " +
	"spreadsheet-like ledger files (.ldg). Triggers include: any mention of 'ledger', " +
	"'.ldg', 'trial balance', 'journal entries', or a request to reconcile two accounts, " +
	"to import bank statements, to produce a balance sheet, an income statement or a " +
	"cash-flow report from the ledger, or to find an entry that does not balance. Also " +
	"use it when the user pastes rows of dated amounts and asks for totals per account, " +
	"or asks to fix the currency of entries, the rounding of cents, or the order of " +
	"postings. If the user asks for a 'report', 'statement', 'summary' or 'export' of " +
	"their books, use this skill. Do NOT use it for tax advice, for invoices (use the " +
	"invoice skill), for general spreadsheets that hold no accounts, or for coding tasks " +
	"that only happen to mention money."

func TestFrontMatterShapes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, md string
		want     meta
	}{
		{"a name with a comment, as Anthropic's template writes it",
			"---\nname: template-skill # lowercase, digits and hyphens\ndescription: Replace with what the skill does.\n---\n\n# Insert instructions below\n",
			meta{name: "template-skill", description: "Replace with what the skill does."}},
		{"a long quoted description with its trigger rules, kept whole",
			"---\nname: ledger\ndescription: \"" + longTriggers + "\"\nlicense: Proprietary. LICENSE.txt has complete terms\n---\n# Ledger\n",
			meta{name: "ledger", description: longTriggers}},
		{"a |- block scalar over several lines, made one line",
			"---\nname: notes\ndescription: |-\n  Keeps meeting notes.\n  Use when the user says \"take notes\" or \"minutes\".\n---\nBody.\n",
			meta{name: "notes", description: `Keeps meeting notes. Use when the user says "take notes" or "minutes".`}},
		{"allowed-tools as a string of Claude's names and patterns",
			"---\nname: git-helper\ndescription: Git chores.\nallowed-tools: Bash(git status:*), Bash(git diff *) Read,Grep\n---\n",
			meta{name: "git-helper", description: "Git chores.", allowed: []string{"Bash(git status:*)", "Bash(git diff *)", "Read", "Grep"}}},
		{"allowed-tools as a YAML list",
			"---\nname: lister\ndescription: Lists.\nallowed-tools:\n  - Read\n  - Bash(ls:*)\n  - \"Glob, Grep\"\n---\n",
			meta{name: "lister", description: "Lists.", allowed: []string{"Read", "Bash(ls:*)", "Glob", "Grep"}}},
		{"no front matter: the first paragraph",
			"# Title\n\nDoes a thing.\n", meta{description: "Does a thing."}},
	} {
		if got := parseMeta(c.md); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", c.name, got, c.want)
		}
	}
	if n := len([]rune(longTriggers)); n <= 300 || n > maxDescription {
		t.Fatalf("the long description has %d characters", n)
	}
}

// A description over 1,024 characters is cut with a marker, and said.
func TestFrontMatterDescriptionTooLong(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("abcdefghi ", 110) // 1,100 characters once trimmed
	m := parseMeta("---\ndescription: " + long + "\n---\n")
	if r := []rune(m.description); len(r) != maxDescription || r[len(r)-1] != '…' || !strings.HasPrefix(m.description, "abcdefghi abcdefghi") {
		t.Fatalf("got %d characters: %q", len(r), m.description)
	}
	want := []string{"its description has 1099 characters, more than the 1024 a skill may have, so the catalogue keeps the first 1023"}
	if !reflect.DeepEqual(m.problems, want) {
		t.Fatalf("problems %q", m.problems)
	}
	exact := strings.Repeat("x", maxDescription)
	if m := parseMeta("---\ndescription: " + exact + "\n---\n"); m.description != exact || len(m.problems) != 0 {
		t.Fatalf("1,024 characters: %d, %q", len(m.description), m.problems)
	}
}

// Bad front matter: one clear sentence each, what gantry does instead, never a panic.
func TestFrontMatterBadInput(t *testing.T) {
	t.Parallel()
	for md, want := range map[string]meta{
		"---\nname: broken\ndescription: [not, a, string\n---\nFalls back.\n": {description: "Falls back.",
			problems: []string{"its front matter is not valid YAML (line 3: sequence end token ']' not found), so gantry uses none of it"}},
		"---\nname: 42\ndescription: A number as name.\n---\n": {description: "A number as name.",
			problems: []string{"its name is a number, not a string, so it is named after its file"}},
		"---\nname: [a, b]\ndescription: A list as name.\n---\n": {description: "A list as name.",
			problems: []string{"its name is a list, not a string, so it is named after its file"}},
		"---\nname: Agent Development\ndescription: A title as name.\n---\n": {description: "A title as name."},
		"---\nname: ../../etc\ndescription: A path as name.\n---\n": {description: "A path as name.",
			problems: []string{`its name "../../etc" is not a name gantry can use (at most 64 letters, digits, hyphens, dots or underscores, starting with a letter or digit), so it is named after its file`}},
		"---\nname: quiet\n---\n# Quiet\n\nFirst paragraph.\n": {name: "quiet", description: "First paragraph.",
			problems: []string{"its front matter has no description, so the catalogue shows its first paragraph"}},
		"---\ndescription: true\n---\nParagraph.\n": {description: "Paragraph.",
			problems: []string{"its description is true or false, not a string, so the catalogue shows its first paragraph"}},
		"---\n- a\n- b\n---\nList.\n": {description: "List.",
			problems: []string{"its front matter is not valid YAML (it is a list, not a mapping of keys such as name and description), so gantry uses none of it"}},
		"---\ndescription: D.\nallowed-tools: 7\n---\n": {description: "D.",
			problems: []string{"its allowed-tools is a number, not a string or a list of tool names, so it allows nothing"}},
		"---\ndescription: D.\nallowed-tools: [Read, 3]\n---\n": {description: "D.", allowed: []string{"Read"},
			problems: []string{"item 2 of its allowed-tools is a number, not a tool name, so it is ignored"}},
		"---\n---\nEmpty front matter.\n": {description: "Empty front matter."},
	} {
		if got := parseMeta(md); !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\ngot  %+v\nwant %+v", md, got, want)
		}
	}
}

// Whatever the bytes, parseMeta answers.
func FuzzParseMeta(f *testing.F) {
	f.Add("---\nname: x\ndescription: y\nallowed-tools: Bash(a:*), Read\n---\nbody")
	f.Add("---\nname: [\n---\n")
	f.Add("---\n&a [*a]\n---\n")
	f.Fuzz(func(t *testing.T, md string) {
		m := parseMeta(md)
		if len([]rune(m.description)) > maxDescription {
			t.Fatalf("description of %d characters", len([]rune(m.description)))
		}
		if m.name != "" && !validName().MatchString(m.name) {
			t.Fatalf("name %q", m.name)
		}
	})
}
