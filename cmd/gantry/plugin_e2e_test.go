package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// gantry plugin add, list and remove through the binary, and the added plugin's
// command run in print mode as /demo:hello, and named by doctor.
func TestPluginCommandEndToEnd(t *testing.T) {
	dir := t.TempDir()
	plug := filepath.Join(t.TempDir(), "demo")
	writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
	writeFiles(t, plug, map[string]string{
		".claude-plugin/plugin.json": `{"name": "demo", "version": "0.2.0", "description": "Demo"}`,
		"commands/hello.md":          "---\ndescription: Say hello\n---\nSay hello to $ARGUMENTS.\n",
	})
	srv, e := fakeModel(t, say("Hello."))
	r := gantry(t, dir, e, "plugin", "add", plug)
	if r.code != 0 || !strings.Contains(r.stdout, "Added the plugin demo (user): "+plug) {
		t.Fatalf("add: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, e, "plugin", "list")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "demo 0.2.0 (user): "+plug+" — Demo" {
		t.Errorf("list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, e, "-p", "/demo:hello WORLD")
	if r.code != 0 {
		t.Fatalf("print: exit %d: %s", r.code, r.stderr)
	}
	if s := requestText(t, srv, 0); !strings.Contains(s, "Say hello to WORLD.") {
		t.Errorf("the plugin's command was not expanded: %s", s)
	}
	r = gantry(t, dir, e, "doctor")
	if !strings.Contains(r.stdout, "1 plugin(s)") || !strings.Contains(r.stdout, "demo (user, ") {
		t.Errorf("doctor:\n%s", r.stdout)
	}
	r = gantry(t, dir, e, "plugin", "remove", "demo")
	if r.code != 0 {
		t.Errorf("remove: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, e, "plugin", "bogus")
	if r.code != 2 || !strings.Contains(r.stderr, "usage: gantry plugin") {
		t.Errorf("a bad verb: exit %d\n%s", r.code, r.stderr)
	}
}
