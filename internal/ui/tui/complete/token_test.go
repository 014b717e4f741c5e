package complete

import (
	"strings"
	"testing"
)

// cursorAt splits a test input where "|" marks the cursor.
func cursorAt(s string) (string, int) {
	i := strings.Index(s, "|")
	return s[:i] + s[i+1:], i
}

func TestToken(t *testing.T) {
	cases := []struct {
		input  string // "|" marks the cursor
		start  int
		kind   string
		prefix string
	}{
		{"|", 0, "", ""},
		{"hello|", 5, "", ""},
		{"@|", 0, KindFile, ""},
		{"@int|", 0, KindFile, "int"},
		{"look at @internal/ag| please", 8, KindFile, "internal/ag"},
		{"look at @internal/ag|ent please", 8, KindFile, "internal/ag"},
		{"|@file", 0, "", ""},
		{"@a\n@b|", 3, KindFile, "b"},
		{"x\t@y|", 2, KindFile, "y"},
		{"mail me@ex|", 10, "", ""},
		{"@@x|", 0, KindFile, "@x"},
		{"@skill:pd|", 0, KindSkill, "pd"},
		{"@skill:|", 0, KindSkill, ""},
		{"use @skill:pdf-forms| now", 4, KindSkill, "pdf-forms"},
		{"@ski|", 0, KindFile, "ski"},
		{"/|", 0, KindCommand, ""},
		{"/mo|", 0, KindCommand, "mo"},
		{"/model| opus", 0, KindCommand, "model"},
		{"/model op|", 9, "", ""},
		{" /mo|", 4, "", ""},
		{"hi /mo|", 6, "", ""},
		{"/model @fi|", 7, KindFile, "fi"},
		// Unicode: offsets are bytes, white space is Unicode's.
		{"été @ñand|ú", 6, KindFile, "ñand"},
		{"@日本|語", 0, KindFile, "日本"},
		{"voilà\u00a0@x|", 8, KindFile, "x"},
		{"日本 /x|", 9, "", ""},
	}
	for _, c := range cases {
		input, cursor := cursorAt(c.input)
		start, kind, prefix := Token(input, cursor)
		if start != c.start || kind != c.kind || prefix != c.prefix {
			t.Errorf("Token(%q) = %d %q %q, want %d %q %q", c.input, start, kind, prefix, c.start, c.kind, c.prefix)
		}
	}
}

func TestTokenOddCursors(t *testing.T) {
	cases := []struct {
		input  string
		cursor int
		start  int
		kind   string
		prefix string
	}{
		{"@ab", 99, 0, KindFile, "ab"},
		{"@ab", -5, 0, "", ""},
		{"@é", 2, 0, KindFile, ""}, // inside "é": moved back to its start
		{"@é", 3, 0, KindFile, "é"},
		{"", 0, 0, "", ""},
	}
	for _, c := range cases {
		start, kind, prefix := Token(c.input, c.cursor)
		if start != c.start || kind != c.kind || prefix != c.prefix {
			t.Errorf("Token(%q, %d) = %d %q %q, want %d %q %q", c.input, c.cursor, start, kind, prefix, c.start, c.kind, c.prefix)
		}
	}
}

func TestApply(t *testing.T) {
	file := func(p string) Candidate { return Candidate{Text: p, Display: p, Kind: KindFile} }
	dir := func(p string) Candidate { return Candidate{Text: p, Display: p, Kind: KindDir} }
	cases := []struct {
		input string // "|" marks the cursor
		c     Candidate
		want  string // "|" marks the new cursor
	}{
		{"@int|", file("internal/agent/tool.go"), "@internal/agent/tool.go |"},
		{"@int|", dir("internal/"), "@internal/|"},
		{"fix @int| now", dir("internal/"), "fix @internal/| now"},
		{"see @int|ernal now", file("internal.go"), "see @internal.go |now"},
		{"see @int|ernal\nnow", file("internal.go"), "see @internal.go |\nnow"},
		{"@|", file("go.mod"), "@go.mod |"},
		{"@skill:pd|", Candidate{Text: "pdf", Kind: KindSkill}, "@skill:pdf |"},
		{"use @skill:| it", Candidate{Text: "pdf", Kind: KindSkill}, "use @skill:pdf |it"},
		{"/mo|", Candidate{Text: "model", Kind: KindCommand}, "/model |"},
		{"/mo| opus", Candidate{Text: "model", Kind: KindCommand}, "/model |opus"},
		{"/m|o", Candidate{Text: "model", Kind: KindCommand}, "/model |"},
		{"été @ñ|ú après", file("ñandú/x.go"), "été @ñandú/x.go |après"},
		{"@日|本", dir("日本語/"), "@日本語/|"},
	}
	for _, c := range cases {
		input, cursor := cursorAt(c.input)
		start, kind, _ := Token(input, cursor)
		if kind == "" {
			t.Fatalf("Token(%q) found no token", c.input)
		}
		got, at := Apply(input, cursor, start, c.c)
		if shown := got[:at] + "|" + got[at:]; shown != c.want {
			t.Errorf("Apply(%q, %q) = %q, want %q", c.input, c.c.Text, shown, c.want)
		}
	}
}

// After a folder is applied, Token goes on completing inside it.
func TestApplyFolderThenToken(t *testing.T) {
	input, cursor := Apply("read @in", 8, 5, Candidate{Text: "internal/", Kind: KindDir})
	start, kind, prefix := Token(input, cursor)
	if start != 5 || kind != KindFile || prefix != "internal/" {
		t.Fatalf("Token(%q, %d) = %d %q %q", input, cursor, start, kind, prefix)
	}
}
