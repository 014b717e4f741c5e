package main

import (
	"strings"
	"testing"
)

// The memory files through the binary: the start's in the system prompt, in order
// (AGENTS.override.md instead of AGENTS.md, CLAUDE.md, .claude/CLAUDE.md,
// CLAUDE.local.md), and a nested folder's on the first read or write there, in the
// next request, with a notice.
func TestMemoryFilesEndToEnd(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/HEAD":          "ref: refs/heads/main\n",
		"AGENTS.md":          "REPLACED ROOT AGENTS\n",
		"AGENTS.override.md": "ROOT OVERRIDE\n",
		"CLAUDE.md":          "ROOT CLAUDE\n",
		".claude/CLAUDE.md":  "ROOT DOT CLAUDE\n",
		"CLAUDE.local.md":    "ROOT LOCAL\n",
		"pkg/AGENTS.md":      "PKG RULES\n",
		"pkg/x.go":           "package pkg\n",
		"lib/CLAUDE.md":      "LIB RULES\n",
	})
	srv, e := fakeModel(t,
		call("r1", "read_file", `{"path":"pkg/x.go"}`),
		call("w1", "write_file", `{"path":"lib/y.go","content":"package lib\n"}`),
		call("r2", "read_file", `{"path":"pkg/x.go"}`),
		say("Done."),
	)
	r := gantry(t, dir, e, "-p", "work in pkg and lib", "--permission-mode", "yolo")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	first := requestText(t, srv, 0)
	last := -1
	for _, want := range []string{"ROOT OVERRIDE", "ROOT CLAUDE", "ROOT DOT CLAUDE", "ROOT LOCAL"} {
		i := strings.Index(first, want)
		if i < last {
			t.Fatalf("%q missing or out of order in the first request: %s", want, first)
		}
		last = i
	}
	if strings.Contains(first, "REPLACED ROOT AGENTS") || strings.Contains(first, "PKG RULES") || !strings.Contains(first, "the file closest to the file you are working on wins") {
		t.Errorf("first request: %s", first)
	}
	if s := requestText(t, srv, 1); !strings.Contains(s, "PKG RULES") || !strings.Contains(s, "system-reminder") {
		t.Errorf("the request after read_file lacks pkg/AGENTS.md: %s", s)
	}
	if s := requestText(t, srv, 2); !strings.Contains(s, "LIB RULES") || strings.Count(s, "PKG RULES") != 1 {
		t.Errorf("the request after write_file: lib/CLAUDE.md missing or pkg/AGENTS.md twice: %s", s)
	}
	if s := requestText(t, srv, 3); strings.Count(s, "PKG RULES") != 1 || strings.Count(s, "LIB RULES") != 1 {
		t.Errorf("a memory file given twice: %s", s)
	}
	out := r.stdout + r.stderr
	for _, want := range []string{"added pkg/AGENTS.md to the memory", "added lib/CLAUDE.md to the memory"} {
		if strings.Count(out, want) != 1 {
			t.Errorf("notice %q not shown once:\n%s", want, out)
		}
	}
}
