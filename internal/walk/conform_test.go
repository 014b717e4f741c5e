package walk

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// tree is a small directory: file path → content; a path ending in "/" is an empty
// directory; "->target" content makes a symbolic link.
type tree map[string]string

func writeTree(t *testing.T, root string, tr tree) {
	t.Helper()
	for p, c := range tr {
		full := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(c, "->"); ok {
			if err := os.Symlink(target, full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// conformCases are trees checked against `rg --files`; each has a .git directory at its
// root (so that .gitignore applies) unless it says "norepo".
var conformCases = []struct {
	name   string
	norepo bool
	sub    string // walk this subdirectory instead of the root
	tr     tree
}{
	{name: "plain", tr: tree{"a.go": "", "b/c.go": "", "b/d/e.txt": ""}},
	{name: "hidden", tr: tree{".env": "", ".hid/x.go": "", "a/.b": "", "a/c": "", ".git/config": ""}},
	{name: "whitelisted hidden", tr: tree{".gitignore": "!.env\n", ".env": "", ".other": ""}},
	{name: "simple ignore", tr: tree{".gitignore": "*.log\nbuild\n", "a.log": "", "x/b.log": "", "build/o": "", "x/build": "", "keep.txt": ""}},
	{name: "anchored", tr: tree{".gitignore": "/top\n/x/deep\n", "top": "", "a/top": "", "x/deep": "", "y/x/deep": ""}},
	{name: "dir only", tr: tree{".gitignore": "out/\n", "out/a": "", "x/out/b": "", "y/out": ""}},
	{name: "negation", tr: tree{".gitignore": "*.log\n!important.log\n", "a.log": "", "important.log": "", "d/important.log": "", "d/z.log": ""}},
	{name: "negation inside ignored dir", tr: tree{".gitignore": "lib/\n!lib/keep.go\n", "lib/keep.go": "", "lib/x.go": "", "main.go": ""}},
	{name: "re-include via /**", tr: tree{".gitignore": "lib/**\n!lib/keep.go\n", "lib/keep.go": "", "lib/x.go": "", "lib/sub/y.go": ""}},
	{name: "doublestar", tr: tree{".gitignore": "**/gen/**\na/**/z.txt\n", "gen/a": "", "x/gen/b": "", "a/z.txt": "", "a/b/c/z.txt": "", "b/z.txt": ""}},
	{name: "nested", tr: tree{".gitignore": "*.tmp\n", "sub/.gitignore": "*.go\n!*.tmp\n", "a.go": "", "a.tmp": "", "sub/b.go": "", "sub/b.tmp": "", "sub/deeper/c.go": "", "other/d.go": ""}},
	{name: "nested anchored", tr: tree{"sub/.gitignore": "/x\n", "x": "", "sub/x": "", "sub/y/x": ""}},
	{name: "ignore file", tr: tree{".ignore": "*.md\n", "a.md": "", "b.go": "", "c/d.md": ""}},
	{name: "ignore beats gitignore", tr: tree{".gitignore": "*.md\n", ".ignore": "!keep.md\n", "a.md": "", "keep.md": ""}},
	{name: "ignore without repo", norepo: true, tr: tree{".ignore": "x\n", ".gitignore": "y\n", "x": "", "y": "", "z": ""}},
	{name: "exclude", tr: tree{".git/info/exclude": "secret*\n", "secret.txt": "", "d/secret2": "", "public": ""}},
	{name: "gitignore beats exclude", tr: tree{".git/info/exclude": "*.txt\n", ".gitignore": "!a.txt\n", "a.txt": "", "b.txt": ""}},
	{name: "escapes", tr: tree{".gitignore": "\\#hash\n\\!bang\nsp\\ \n\\*star\nq\\?\n", "#hash": "", "!bang": "", "sp ": "", "*star": "", "xstar": "", "q?": "", "qa": ""}},
	{name: "comments and blanks", tr: tree{".gitignore": "# a.txt\n\n  \nb.txt   \n", "a.txt": "", "b.txt": "", "# a.txt": ""}},
	{name: "classes and braces", tr: tree{".gitignore": "[ab].c\n*.{o,so}\n[!x]y\n", "a.c": "", "c.c": "", "m.o": "", "m.so": "", "m.a": "", "zy": "", "xy": ""}},
	{name: "middle slash anchors", tr: tree{".gitignore": "a/b\n", "a/b": "", "x/a/b": ""}},
	{name: "question and star", tr: tree{".gitignore": "?.txt\nfoo*\n", "a.txt": "", "ab.txt": "", "foobar": "", "d/food": "", "xfoo": ""}},
	{name: "nested repo", tr: tree{".gitignore": "*.go\n", "inner/.git/": "", "inner/a.go": "", "b.go": "", "inner/.gitignore": "*.txt\n", "inner/c.txt": ""}},
	{name: "symlinks", tr: tree{"a.go": "", "link.go": "->a.go", "d/x": "", "dlink": "->d", "out": "->/etc"}},
	{name: "empty dirs", tr: tree{"a/": "", "b/c/": "", "d.txt": ""}},
	{name: "subdir search sees parent gitignore", sub: "src", tr: tree{".gitignore": "*.gen\nsrc/skip/\n", "src/a.gen": "", "src/b.go": "", "src/skip/c.go": "", "x.gen": ""}},
	{name: "ignored hidden stays ignored", tr: tree{".gitignore": ".cache/\n", ".cache/x": "", ".keep": ""}},
	{name: "trailing double star dir", tr: tree{".gitignore": "vendor/**/*.go\n", "vendor/a.go": "", "vendor/x/b.go": "", "vendor/c.txt": ""}},
	{name: "unicode names", tr: tree{".gitignore": "é*\n", "éa": "", "ea": "", "日本/x": ""}},
}

func TestConformanceWithRipgrep(t *testing.T) {
	rg := testenv.Need(t, "rg")
	for _, c := range conformCases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if !c.norepo {
				if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			writeTree(t, root, c.tr)
			dir := filepath.Join(root, c.sub)
			got, err := Files(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(rg, "--files", "--no-config")
			cmd.Dir = dir
			out, err := cmd.Output()
			if err != nil && len(out) > 0 {
				t.Fatalf("rg: %v", err)
			}
			want := strings.Fields(string(out))
			if len(out) > 0 {
				want = strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			}
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("walk lists\n  %q\nrg --files lists\n  %q", got, want)
			}
		})
	}
}

func TestHiddenAndNoIgnore(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, tree{".git/config": "", ".gitignore": "*.log\n", "a.log": "", ".h": "", "b": ""})
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{}, "b"},
		{Options{Hidden: true}, ".gitignore .h b"},
		{Options{NoIgnore: true}, "a.log b"},
		{Options{Hidden: true, NoIgnore: true}, ".gitignore .h a.log b"},
	} {
		got, err := Files(context.Background(), root, c.o)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%+v: %q, want %q", c.o, got, c.want)
		}
	}
}

func TestOverrideAndTypes(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, tree{".git/": "", ".gitignore": "gen.go\n", "a.go": "", "gen.go": "", ".h.go": "", "x.txt": "", "d/b.go": ""})
	ov, _ := NewIgnore([]string{"*.go"})
	got, _ := Files(context.Background(), root, Options{Override: func(rel string, isDir bool) Verdict {
		v := ov.Match(rel, isDir)
		switch {
		case v == Exclude:
			return Include
		case v == None && !isDir:
			return Exclude
		}
		return None
	}})
	if strings.Join(got, " ") != ".h.go a.go d/b.go gen.go" {
		t.Errorf("override: %q", got)
	}
	got, _ = Files(context.Background(), root, Options{Types: func(rel string, isDir bool) Verdict {
		if isDir {
			return None
		}
		if strings.HasSuffix(rel, ".go") {
			return Include
		}
		return Exclude
	}})
	if strings.Join(got, " ") != ".h.go a.go d/b.go" {
		t.Errorf("types: %q", got)
	}
}

func TestWalkErrors(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, tree{"f": ""})
	if _, err := Files(context.Background(), filepath.Join(root, "missing"), Options{}); err == nil {
		t.Error("missing root: no error")
	}
	if _, err := Files(context.Background(), filepath.Join(root, "f"), Options{}); err == nil {
		t.Error("file root: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Files(ctx, root, Options{}); err == nil {
		t.Error("cancelled: no error")
	}
}
