package fs

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// preview decodes args for tl in dir and returns what the call would change.
func preview(t *testing.T, tl tool.Tool, dir string, args any) tool.Display {
	t.Helper()
	raw, _ := json.Marshal(args)
	inv, msg := tl.Decode(tool.Env{Cwd: dir}, raw)
	if msg != "" {
		t.Fatalf("%s: %s", tl.Name(), msg)
	}
	if inv.Preview == nil {
		t.Fatalf("%s has no preview", tl.Name())
	}
	return inv.Preview(context.Background())
}

// Every tool that writes files says, before it is allowed to, what it would change —
// and writes nothing doing so.
func TestWriteToolsPreviewWithoutWriting(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc A() int { return 1 }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "gone.txt"), []byte("bye\n"), 0o644)
	before := treeText(t, dir)

	d := preview(t, EditFile(Options{}), dir, map[string]any{"path": "a.go", "edits": []map[string]string{{"old": "return 1", "new": "return 2"}}})
	if !strings.Contains(d.Diff, "-func A() int { return 1 }") || !strings.Contains(d.Diff, "+func A() int { return 2 }") || len(d.Changes) != 1 {
		t.Errorf("edit_file preview: %+v", d)
	}
	d = preview(t, WriteFile(Options{}), dir, map[string]any{"path": "new/b.go", "content": "package b\n"})
	if !strings.Contains(d.Diff, "+package b") || len(d.Changes) != 1 || !d.Changes[0].Created {
		t.Errorf("write_file preview: %+v", d)
	}
	patch := "*** Begin Patch\n*** Update File: a.go\n@@\n-func A() int { return 1 }\n+func A() int { return 3 }\n*** Delete File: gone.txt\n*** Add File: c.txt\n+hello\n*** End Patch"
	d = preview(t, ApplyPatch(Options{}), dir, map[string]any{"patch": patch})
	for _, want := range []string{"+func A() int { return 3 }", "-bye", "+hello"} {
		if !strings.Contains(d.Diff, want) {
			t.Errorf("apply_patch preview lacks %q:\n%s", want, d.Diff)
		}
	}
	if len(d.Changes) != 3 {
		t.Errorf("apply_patch preview lists %d files, want 3", len(d.Changes))
	}
	// A patch that would not apply previews nothing (the call says why when it runs).
	if d := preview(t, ApplyPatch(Options{}), dir, map[string]any{"patch": "*** Begin Patch\n*** Update File: a.go\n@@\n-no such line\n+x\n*** End Patch"}); d.Diff != "" {
		t.Errorf("a patch that would not apply previews %q", d.Diff)
	}
	if after := treeText(t, dir); after != before {
		t.Fatalf("a preview wrote:\nbefore %s\nafter  %s", before, after)
	}
}

// treeText lists the files under dir with their contents.
func treeText(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			b.WriteString(p + "=" + string(data) + ";")
		} else if err == nil && p != dir {
			b.WriteString(p + "/;")
		}
		return nil
	})
	return b.String()
}
