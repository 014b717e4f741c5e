package fs

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// TestApplyPatch_Scenarios runs every folder of testdata/patch: input/ is copied to a
// temporary directory, patch.txt is applied, and the directory must then equal
// expected/. A folder with error.txt expects a refusal whose text holds each of its
// lines; its expected/ is then its input/, untouched.
func TestApplyPatch_Scenarios(t *testing.T) {
	dirs, err := filepath.Glob("testdata/patch/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, sc := range dirs {
		t.Run(filepath.Base(sc), func(t *testing.T) {
			work := t.TempDir()
			copyTree(t, filepath.Join(sc, "input"), work)
			patch := readTestFile(t, filepath.Join(sc, "patch.txt"))
			r := call(t, ApplyPatch(testOpts), work, A{"patch": patch})
			if want, err := os.ReadFile(filepath.Join(sc, "error.txt")); err == nil {
				wantError(t, r, strings.Split(strings.TrimSpace(string(want)), "\n")...)
			} else {
				wantOK(t, r)
				if !strings.HasPrefix(r.Text, "Applied the patch to ") || r.Display.Diff == "" {
					t.Fatalf("output:\n%s", r.Text)
				}
			}
			if got, want := treeOf(t, work), treeOf(t, filepath.Join(sc, "expected")); !equalTrees(got, want) {
				t.Fatalf("result differs from expected/:\ngot  %q\nwant %q\noutput:\n%s", got, want, r.Text)
			}
			noTempFiles(t, work)
		})
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	for p, c := range treeOf(t, from) {
		writeTestFile(t, to, p, c)
	}
}

// treeOf maps the relative path of every regular file under root to its content;
// directories left empty are listed with a trailing slash.
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if entries, _ := os.ReadDir(p); len(entries) == 0 && rel != "." {
				out[filepath.ToSlash(rel)+"/"] = ""
			}
			return nil
		}
		out[filepath.ToSlash(rel)] = readTestFile(t, p)
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestApplyPatch_CorruptPatchOneSentenceFileUntouched(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "one\ntwo\n")
	backdate(t, p)
	before := snap(t, p)
	for patch, want := range map[string]string{
		"":                                   "The patch is malformed at line 1: expected \"*** Begin Patch\", but the patch is empty",
		"*** Update File: a.txt\n-one\n+1\n": "The patch is malformed at line 1: expected \"*** Begin Patch\" as the first line",
		"*** Begin Patch\n*** End Patch":     "The patch is malformed at line 2: expected at least one",
		"*** Begin Patch\n*** Frobnicate: a.txt\n*** End Patch":                   "at line 2: expected a file header",
		"*** Begin Patch\n*** Update File: a.txt\n*** End Patch":                  "at line 3: expected an @@ hunk for the updated file a.txt",
		"*** Begin Patch\n*** Update File: a.txt\n@@\n@@\n-one\n*** End Patch":    "at line 3: expected lines starting with ' ', '+' or '-' after this @@ line",
		"*** Begin Patch\n*** Add File: \n+x\n*** End Patch":                      "at line 2: expected a file path after \"*** Add File:\"",
		"*** Begin Patch\n*** Add File: b.txt\nx\n*** End Patch":                  "at line 3: expected a line starting with '+' in the content of the added file b.txt",
		"*** Begin Patch\n*** Update File: a.txt\n*** End of File\n*** End Patch": "at line 3: expected hunk lines before",
	} {
		r := call(t, ApplyPatch(testOpts), d, A{"patch": patch})
		wantError(t, r, want, "nothing was changed.")
		if strings.Contains(r.Text, "\n") || !strings.HasSuffix(r.Text, "; nothing was changed.") {
			t.Errorf("not one sentence: %q", r.Text)
		}
		assertUntouched(t, p, before)
	}
}

func TestApplyPatch_HunkMismatchShowsClosestLines(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "a.go", "func f() {\n\treturn 1\n}\n")
	r := call(t, ApplyPatch(testOpts), d, A{"patch": "*** Begin Patch\n*** Update File: a.go\n@@\n func f() {\n-\treturn 2\n+\treturn 3\n }\n*** End Patch"})
	wantError(t, r, "The hunk at patch line 3 does not apply to a.go", "The most similar lines are 1–3:", "2| \treturn 1")
}

func TestApplyPatch_OutputPerFile(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "a.txt", "1\n2\n3\n")
	writeTestFile(t, d, "gone.txt", "x\ny\n")
	r := call(t, ApplyPatch(testOpts), d, A{"patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n 1\n-2\n+two\n 3\n*** Delete File: gone.txt\n*** Add File: new.txt\n+n\n*** End Patch\n"})
	wantOK(t, r)
	want := "Applied the patch to 3 files: +2 -3 lines.\n\n" +
		"Updated a.txt: +1 -1 lines, first change at line 2.\n\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n 1| 1\n-2| 2\n+2| two\n 3| 3\n\n" +
		"Deleted gone.txt (2 lines).\n\n" +
		"Added new.txt (1 line).\n\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+1| n"
	if r.Text != want {
		t.Fatalf("got:\n%s\nwant:\n%s", r.Text, want)
	}
	if !strings.Contains(r.Display.Diff, "--- a/gone.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n") {
		t.Fatalf("display diff:\n%s", r.Display.Diff)
	}
}

func TestApplyPatch_PrincipalAndPaths(t *testing.T) {
	d := t.TempDir()
	ap := ApplyPatch(testOpts)
	if ap.Level() != tool.LevelWrite || ap.Kind() != tool.KindEdit {
		t.Fatalf("%v %v", ap.Level(), ap.Kind())
	}
	inv, msg := ap.Decode(tool.Env{Cwd: d}, []byte(`{"patch":"*** Begin Patch\n*** Add File: x.txt\n+x\n*** Update File: y.txt\n*** Move to: z/y.txt\n@@\n-a\n+b\n*** End Patch"}`))
	if msg != "" {
		t.Fatal(msg)
	}
	if inv.Principal != "x.txt y.txt z/y.txt" {
		t.Fatalf("principal %q", inv.Principal)
	}
	want := []string{filepath.Join(d, "x.txt"), filepath.Join(d, "y.txt"), filepath.Join(d, "z/y.txt")}
	if strings.Join(inv.Paths, ",") != strings.Join(want, ",") {
		t.Fatalf("paths %v", inv.Paths)
	}
}

func TestApplyPatch_MalformedArgs(t *testing.T) {
	d := t.TempDir()
	ap := ApplyPatch(testOpts)
	wantError(t, callRaw(t, ap, d, `{}`), `"patch", which is missing`)
	wantError(t, callRaw(t, ap, d, `{"patch": 7}`), `"patch" must be a string`)
}

func TestApplyPatch_Cancelled(t *testing.T) {
	d := t.TempDir()
	inv, _ := ApplyPatch(testOpts).Decode(tool.Env{Cwd: d}, []byte(`{"patch":"*** Begin Patch\n*** Add File: x.txt\n+x\n*** End Patch"}`))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wantError(t, inv.Run(ctx), "cancelled", "nothing was changed")
	if _, err := os.Stat(filepath.Join(d, "x.txt")); err == nil {
		t.Fatal("file created after cancellation")
	}
}

func TestSeekSequence(t *testing.T) {
	lines := []string{"a", "  b  ", "c", "“q”", "b", "end"}
	cases := []struct {
		pattern []string
		start   int
		eof     bool
		want    int
	}{
		{[]string{"a"}, 0, false, 0},
		{[]string{"b"}, 0, false, 4},      // exact beats trimmed
		{[]string{"b"}, 5, false, -1},     // nothing after start
		{[]string{"  b"}, 0, false, 1},    // trailing whitespace ignored
		{[]string{"b", "c"}, 0, false, 1}, // trimmed
		{[]string{`"q"`}, 0, false, 3},    // punctuation folded
		{[]string{"end"}, 0, true, 5},     // eof
		{[]string{"a"}, 0, true, 0},       // eof falls back to a search
		{[]string{"x", "y", "z", "w", "v", "u", "t"}, 0, false, -1},
		{nil, 2, false, 2},
	}
	for _, c := range cases {
		if got := seekSequence(lines, c.pattern, c.start, c.eof); got != c.want {
			t.Errorf("seek %q from %d eof=%v: got %d, want %d", c.pattern, c.start, c.eof, got, c.want)
		}
	}
}

func TestApplyPatch_DeleteDirectoryRefused(t *testing.T) {
	d := t.TempDir()
	os.Mkdir(filepath.Join(d, "dir"), 0o755)
	r := call(t, ApplyPatch(testOpts), d, A{"patch": "*** Begin Patch\n*** Delete File: dir\n*** End Patch"})
	wantError(t, r, "dir is a directory, not a file, so it cannot be deleted")
}

// A Delete File and an Add File of one path apply in order and are reported as one
// replacement: one file, one diff from the old text to the new, one change for faces.
func TestApplyPatch_DeleteThenAddReportsOneReplacement(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "one\ntwo\n")
	patch := "*** Begin Patch\n*** Delete File: a.txt\n*** Add File: a.txt\n+one\n+2\n+three\n*** End Patch"
	inv, msg := ApplyPatch(testOpts).Decode(tool.Env{Cwd: d}, []byte(`{"patch":`+jsonString(patch)+`}`))
	if msg != "" {
		t.Fatal(msg)
	}
	if inv.Principal != "a.txt" || len(inv.Paths) != 1 || inv.Paths[0] != p {
		t.Fatalf("principal %q, paths %v", inv.Principal, inv.Paths)
	}
	r := call(t, ApplyPatch(testOpts), d, A{"patch": patch})
	wantOK(t, r)
	want := "Applied the patch to 1 file: +2 -1 lines.\n\n" +
		"Replaced a.txt (3 lines): +2 -1 lines, first change at line 2.\n\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,3 @@\n 1| one\n-2| two\n+2| 2\n+3| three"
	if r.Text != want {
		t.Fatalf("got:\n%s\nwant:\n%s", r.Text, want)
	}
	wantChanges(t, r.Display.Changes, tool.FileChange{Path: p, Old: "one\ntwo\n", New: "one\n2\nthree\n"})
	if got := readTestFile(t, p); got != "one\n2\nthree\n" {
		t.Fatalf("a.txt %q", got)
	}
}

// Every refusal to overwrite says how to do it instead.
func TestApplyPatch_OverwriteRefusalsSayHow(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "a.txt", "a\n")
	writeTestFile(t, d, "b.txt", "b\n")
	r := call(t, ApplyPatch(testOpts), d, A{"patch": "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch"})
	wantError(t, r, "a.txt already exists (patch line 2) and *** Add File does not overwrite; use *** Update File: a.txt to change it, or put *** Delete File: a.txt before this section to replace it. Nothing was changed.")
	r = call(t, ApplyPatch(testOpts), d, A{"patch": "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n*** End Patch"})
	wantError(t, r, "b.txt already exists, so a.txt cannot be moved there (patch line 2): *** Move to does not overwrite; to replace it, put *** Delete File: b.txt before this section. Nothing was changed.")
	if strings.Contains(r.Text, "\n") {
		t.Fatalf("not one sentence: %q", r.Text)
	}
}
