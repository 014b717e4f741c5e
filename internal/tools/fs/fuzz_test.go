package fs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/tool"
)

// refEdit is an independent, plain computation of edit_file's result for a text without
// CR or BOM: ok is false when the call must be refused.
func refEdit(content string, edits []editArg) (string, bool) {
	type sp struct{ s, e int }
	var spans []sp
	var repl []string
	for _, e := range edits {
		if e.Old == "" || e.Old == e.New {
			return "", false
		}
		n, at := 0, -1
		for i := 0; i+len(e.Old) <= len(content); i++ {
			if content[i:i+len(e.Old)] == e.Old {
				n++
				at = i
			}
		}
		if n != 1 {
			return "", false
		}
		spans = append(spans, sp{at, at + len(e.Old)})
		repl = append(repl, e.New)
	}
	for i := range spans {
		for j := range i {
			if spans[i].s < spans[j].e && spans[j].s < spans[i].e {
				return "", false
			}
		}
	}
	idx := make([]int, len(spans))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return spans[idx[a]].s < spans[idx[b]].s })
	var sb strings.Builder
	at := 0
	for _, i := range idx {
		sb.WriteString(content[at:spans[i].s])
		sb.WriteString(repl[i])
		at = spans[i].e
	}
	sb.WriteString(content[at:])
	return sb.String(), true
}

func FuzzEditFile(f *testing.F) {
	f.Add("alpha\nbeta\ngamma\n", "beta", "BETA", "gamma", "")
	f.Add("aaa", "aa", "b", "a", "c")
	f.Add("one two three", "one two", "1", "two three", "2")
	f.Add("x\r\ny\r\n", "x\ny", "z", "", "")
	f.Add("\uFEFFbom", "bom", "b", "o", "0")
	f.Add("bin\x00ary", "bin", "x", "", "")
	f.Add("same", "same", "same", "", "")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content, old1, new1, old2, new2 string) {
		// The model's strings arrive through JSON, which makes them valid UTF-8.
		var args editArgs
		raw, _ := json.Marshal(A{"path": "f.txt", "edits": []A{{"old": old1, "new": new1}, {"old": old2, "new": new2}}})
		if err := json.Unmarshal(raw, &args); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "f.txt")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		var r tool.Result
		if msg := checkEdit(args); msg != "" {
			r = tool.Fail(msg)
		} else {
			r = editFile(context.Background(), tool.Env{Cwd: dir}, args, 30000)
		}
		got := readTestFile(t, p)
		if r.IsError && got != content {
			t.Fatalf("refused (%s) but the file changed", r.Text)
		}
		plain := !strings.ContainsAny(content, "\r\x00") && !strings.HasPrefix(content, utf8BOM) && utf8.ValidString(content) &&
			!strings.ContainsAny(old1+new1+old2+new2, "\r\uFEFF")
		if !plain {
			return
		}
		want, ok := refEdit(content, args.Edits)
		switch {
		case ok && r.IsError:
			t.Fatalf("refused, the reference applies: %s", r.Text)
		case !ok && !r.IsError:
			t.Fatalf("applied, the reference refuses: %s", r.Text)
		case ok && got != want:
			t.Fatalf("content %q, the reference gives %q", got, want)
		}
	})
}

func FuzzApplyPatch(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/patch/*/patch.txt")
	for _, s := range seeds {
		b, _ := os.ReadFile(s)
		f.Add(string(b))
	}
	f.Add("*** Begin Patch\n*** Update File: a.txt\n@@ x\n-\n+\n*** End of File\n*** End Patch")
	f.Fuzz(func(t *testing.T, patch string) {
		ops, err := parsePatch(patch)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "The patch is malformed at line ") {
				t.Fatalf("not one sentence: %q", msg)
			}
			return
		}
		for _, p := range patchPaths(ops) {
			if !filepath.IsLocal(p) {
				return // never write outside the test folder
			}
		}
		dir := t.TempDir()
		writeTestFile(t, dir, "a.txt", "one\ntwo\nthree\n")
		writeTestFile(t, dir, "b/c.txt", "x\r\ny\r\n")
		applyPatch(context.Background(), tool.Env{Cwd: dir}, patchArgs{Patch: patch}, 30000)
	})
}
