package search

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/tool"
)

// denySecrets is a file guard that denies reading the files named secret*.
type denySecrets struct{}

func (denySecrets) Read(abs string) error {
	if strings.HasPrefix(filepath.Base(abs), "secret") {
		return &tool.FileDenied{Path: filepath.Base(abs), Rule: `read_file:secret.*`}
	}
	return nil
}
func (denySecrets) Write(string) error { return nil }

// Over a tree whose listing is far past the bound, grep (each mode) and glob give a
// result within maxOut characters by themselves — their closing lines (what was cut,
// the files skipped) included — so the loop's bound never cuts the middle of their
// list: the entries shown are a run from the start, then the closing lines.
func TestSearchesStayWithinTheBound(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 1500 {
		files[fmt.Sprintf("src/file_%04d_with_a_rather_long_name.txt", i)] = "needle one\nneedle two\n"
	}
	for i := range 30 {
		files[fmt.Sprintf("src/secret_%02d_with_a_rather_long_name.txt", i)] = "needle\n"
	}
	writeFiles(t, dir, files)
	const maxOut = 3000
	o := Options{MaxOutput: maxOut}
	out := tool.NewOutputDir(filepath.Join(t.TempDir(), "outputs"), 0)
	run := func(tl tool.Tool, args A) string {
		raw, _ := json.Marshal(args)
		inv, msg := tl.Decode(tool.Env{Cwd: dir, Files: denySecrets{}}, raw)
		if msg != "" {
			t.Fatal(msg)
		}
		ctx, cancel := context.WithTimeout(tool.WithCallID(tool.WithOutputs(context.Background(), out), "c"), time.Minute)
		defer cancel()
		r := inv.Run(ctx)
		if r.IsError {
			t.Fatalf("%v: %s", args, r.Text)
		}
		return r.Text
	}
	for _, c := range []struct {
		tl    tool.Tool
		args  A
		entry string // the form of the i-th entry shown
		last  string // the closing line about what was cut
	}{
		{Grep(o), A{"pattern": "needle"}, "src/file_%04d_with_a_rather_long_name.txt", "[showing "},
		{Grep(o), A{"pattern": "needle", "output_mode": "count"}, "src/file_%04d_with_a_rather_long_name.txt:2", "[showing "},
		{Grep(o), A{"pattern": "needle", "output_mode": "content"}, "", "[output cut: "},
		{Glob(o), A{"pattern": "**/*.txt"}, "", "[showing "},
	} {
		text := run(c.tl, c.args)
		name := fmt.Sprintf("%s %v", c.tl.Name(), c.args)
		if n := utf8.RuneCountInString(text); n > maxOut {
			t.Errorf("%s: %d characters, over %d", name, n, maxOut)
		}
		if tool.Bound(text, maxOut) != text {
			t.Errorf("%s: the loop's bound would cut it", name)
		}
		if !strings.Contains(text, "\n"+c.last) || !strings.Contains(text, "\n[skipped secret_00_with_a_rather_long_name.txt: denied by read_file:secret.*]") {
			t.Errorf("%s: the closing lines are missing:\n%s", name, text[max(0, len(text)-600):])
		}
		// The whole list of files (files, count, glob) is saved, and named.
		if m := regexp.MustCompile(`the whole list is saved in (\S+) \(read_file or grep it\)`).FindStringSubmatch(text); m != nil {
			b, err := os.ReadFile(m[1])
			if n := strings.Count(string(b), "\n"); err != nil || n != 1500 {
				t.Errorf("%s: the saved list has %d lines, not 1500 (%v)", name, n, err)
			}
		} else if c.last == "[showing " {
			t.Errorf("%s: the note names no saved list:\n%s", name, text[max(0, len(text)-600):])
		}
		if c.entry == "" {
			continue
		}
		lines := strings.Split(text, "\n")
		for i, ln := range lines {
			if strings.HasPrefix(ln, "[") {
				if i < 20 {
					t.Errorf("%s: only %d entries shown", name, i)
				}
				break
			}
			if want := fmt.Sprintf(c.entry, i); ln != want {
				t.Errorf("%s: entry %d is %q, not %q: the list is not a run from its start", name, i, ln, want)
				break
			}
		}
	}
}
