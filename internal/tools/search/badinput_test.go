package search

import (
	"os"
	"path/filepath"
	"testing"
)

func TestBadInputOneSentence(t *testing.T) {
	d := t.TempDir()
	writeFiles(t, d, map[string]string{"f.txt": "x\n"})
	cases := []struct {
		name string
		grep bool
		args A
		want []string
	}{
		{"invalid regex", true, A{"pattern": "func (("}, []string{"grep: the pattern `func ((` is not a valid regular expression: missing closing ): `func ((`."}},
		{"regex with a line break", true, A{"pattern": `a\nb`}, []string{"line break"}},
		{"empty regex", true, A{"pattern": ""}, []string{"non-empty pattern"}},
		{"missing path grep", true, A{"pattern": "x", "path": "nope"}, []string{"grep: the path nope does not exist."}},
		{"bad glob arg", true, A{"pattern": "x", "glob": "[a"}, []string{"grep: the glob `[a` is not valid", "never closed"}},
		{"unknown type", true, A{"pattern": "x", "type": "cobol"}, []string{"does not know the file type `cobol`", "go"}},
		{"bad mode", true, A{"pattern": "x", "output_mode": "lines"}, []string{"output_mode"}},
		{"invalid glob", false, A{"pattern": "src/[a-"}, []string{"glob: the pattern `src/[a-` is not a valid glob: "}},
		{"unclosed brace", false, A{"pattern": "*.{go,rs"}, []string{"a { is never closed"}},
		{"invalid exclude", false, A{"pattern": "*", "exclude_pattern": "a}"}, []string{"exclude_pattern"}},
		{"missing path glob", false, A{"pattern": "*", "path": "nope"}, []string{"glob: the path nope does not exist."}},
		{"file instead of folder", false, A{"pattern": "*", "path": "f.txt"}, []string{"glob: the path f.txt is a file, not a folder"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tl := Glob(testOpts)
			if c.grep {
				tl = Grep(testOpts)
			}
			wantError(t, call(t, tl, d, c.args), c.want...)
		})
	}
}

// TestUnreadableFolder: a root folder gantry may not read is one sentence, a subfolder
// is skipped and counted. Root reads everything, so then the test runs as nobody.
func TestUnreadableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		runAsNobody(t, "TestUnreadableFolder")
		return
	}
	d := t.TempDir()
	writeFiles(t, d, map[string]string{"locked/a.txt": "needle\n", "open/b.txt": "needle\n"})
	locked := filepath.Join(d, "locked")
	if err := os.Chmod(locked, 0o000); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	if _, err := os.ReadDir(locked); err == nil {
		t.Skip("this user reads folders without permission")
	}
	wantError(t, call(t, Grep(testOpts), d, A{"pattern": "needle", "path": "locked"}), "grep cannot read the folder locked (permission denied).")
	wantError(t, call(t, Glob(testOpts), d, A{"pattern": "*", "path": "locked"}), "glob cannot read the folder locked (permission denied).")
	r := call(t, Grep(testOpts), d, A{"pattern": "needle"})
	wantOK(t, r)
	if r.Text != "open/b.txt\n[1 file or folder could not be read]" {
		t.Fatalf("%q", r.Text)
	}
}
