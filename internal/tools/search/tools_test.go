package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestGlobNewestFirstLimitExcludeHidden(t *testing.T) {
	d := t.TempDir()
	writeFiles(t, d, map[string]string{
		".git/HEAD": "", ".gitignore": "gen/\n", "a.go": "", "b/c.go": "", "b/d.txt": "",
		"gen/x.go": "", ".github/w.yml": "", "node_modules/m/i.go": "", ".hidden.go": "",
	})
	now := time.Now()
	for i, p := range []string{"a.go", "b/c.go", "node_modules/m/i.go"} {
		ts := now.Add(time.Duration(-i) * time.Hour)
		os.Chtimes(filepath.Join(d, p), ts, ts)
	}
	r := call(t, Glob(testOpts), d, A{"pattern": "**/*.go"})
	wantOK(t, r)
	if r.Text != "a.go\nb/c.go\nnode_modules/m/i.go" {
		t.Fatalf("%q", r.Text)
	}
	r = call(t, Glob(testOpts), d, A{"pattern": "**/*.go", "exclude_pattern": "**/node_modules/**", "limit": 1})
	if r.Text != "a.go\n[showing 1 of 2 files, newest first; narrow the pattern]" {
		t.Fatalf("%q", r.Text)
	}
	// The former spelling still works, for a release, and says it is deprecated.
	r = call(t, Glob(testOpts), d, A{"pattern": "**/*.go", "excludePattern": "**/node_modules/**", "limit": 1})
	if r.Text != "a.go\n[showing 1 of 2 files, newest first; narrow the pattern]\n\n(Note: excludePattern is deprecated; use exclude_pattern.)" {
		t.Fatalf("former spelling: %q", r.Text)
	}
	r = call(t, Glob(testOpts), d, A{"pattern": ".github/**/*.yml"})
	if r.Text != ".github/w.yml" {
		t.Fatalf("hidden named: %q", r.Text)
	}
	r = call(t, Glob(testOpts), filepath.Join(d, "b"), A{"pattern": "*", "path": d})
	if r.Text != "../a.go" && !strings.HasPrefix(r.Text, d) {
		t.Fatalf("outside cwd: %q", r.Text)
	}
	r = call(t, Glob(testOpts), d, A{"pattern": "./b/*.txt"})
	if r.Text != "b/d.txt" {
		t.Fatalf("./: %q", r.Text)
	}
	r = call(t, Glob(testOpts), d, A{"pattern": "*.rs"})
	if r.IsError || r.Text != "No files match `*.rs` in .." {
		t.Fatalf("none: %q", r.Text)
	}
}

func TestGrepModesAndLimits(t *testing.T) {
	d := t.TempDir()
	long := strings.Repeat("x", 800) + "needle" + strings.Repeat("y", 800)
	writeFiles(t, d, map[string]string{
		"a.txt":   "one\nneedle 1\nthree\nfour\nfive\nsix\nneedle 2\neight\n",
		"b.txt":   "needle\r\n",
		"bin.dat": "needle\x00\n",
		"long.md": long + "\n",
		"c.txt":   "no\n",
	})
	r := call(t, Grep(testOpts), d, A{"pattern": "needle"})
	if r.Text != "a.txt\nb.txt\nlong.md" {
		t.Fatalf("files: %q", r.Text)
	}
	r = call(t, Grep(testOpts), d, A{"pattern": "needle", "output_mode": "count"})
	if r.Text != "a.txt:2\nb.txt:1\nlong.md:1" {
		t.Fatalf("count: %q", r.Text)
	}
	r = call(t, Grep(testOpts), d, A{"pattern": "needle", "path": "a.txt", "output_mode": "content", "context": 1})
	want := "a.txt-1-one\na.txt:2:needle 1\na.txt-3-three\n--\na.txt-6-six\na.txt:7:needle 2\na.txt-8-eight"
	if r.Text != want {
		t.Fatalf("context:\n%s\nwant\n%s", r.Text, want)
	}
	r = call(t, Grep(testOpts), d, A{"pattern": "needle", "path": "a.txt", "output_mode": "content", "context": 3})
	if strings.Contains(r.Text, "--") || strings.Count(r.Text, "\n") != 7 {
		t.Fatalf("merged context:\n%s", r.Text)
	}
	r = call(t, Grep(testOpts), d, A{"pattern": "NEEDLE", "ignore_case": true, "output_mode": "content", "head_limit": 2})
	if r.Text != "a.txt:2:needle 1\na.txt:7:needle 2\n[output cut: 4 lines in 3 files match in all; narrow the pattern, path or glob, or raise head_limit]" {
		t.Fatalf("head_limit: %q", r.Text)
	}
	r = call(t, Grep(testOpts), d, A{"pattern": "needle", "path": "long.md", "output_mode": "content"})
	if !strings.Contains(r.Text, "needle") || !strings.Contains(r.Text, "characters cut]") || len(r.Text) > 600 {
		t.Fatalf("long line: %q", r.Text)
	}
	r = call(t, Grep(testOpts), d, A{"pattern": "needle", "path": "b.txt", "output_mode": "content"})
	if r.Text != "b.txt:1:needle" {
		t.Fatalf("crlf: %q", r.Text)
	}
	r = call(t, Grep(testOpts), d, A{"pattern": "absent"})
	if r.IsError || r.Text != "No matches for `absent` in .." {
		t.Fatalf("none: %q", r.Text)
	}
	r = call(t, Grep(Options{MaxOutput: 40}), d, A{"pattern": "e", "output_mode": "content"})
	if !strings.Contains(r.Text, "[output cut:") {
		t.Fatalf("bound: %q", r.Text)
	}
}

func TestGrepManyMatchesBoundedMemory(t *testing.T) {
	d := t.TempDir()
	files := map[string]string{}
	for i := range 200 {
		files[filepath.Join("d", strings.Repeat("f", 1+i%7)+string(rune('a'+i%26))+strings.Repeat("z", i/26)+".txt")] = strings.Repeat("match me\n", 500)
	}
	writeFiles(t, d, files)
	r := call(t, Grep(Options{MaxOutput: 2000}), d, A{"pattern": "match", "output_mode": "content"})
	if len(r.Text) > 2300 || !strings.HasPrefix(r.Text, "d/fa.txt:1:match me\n") {
		t.Fatalf("%d %q", len(r.Text), r.Text[:min(200, len(r.Text))])
	}
	r2 := call(t, Grep(Options{MaxOutput: 2000}), d, A{"pattern": "match", "output_mode": "content"})
	if r.Text != r2.Text {
		t.Fatal("not deterministic")
	}
}
