package main

import (
	"os/exec"
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

// gantry plugin marketplace add (a folder, and a git repository cloned through the
// door), list and remove through the binary; gantry plugin add name@marketplace
// installs its plugin, whose command then runs in print mode, and doctor names
// the marketplaces.
func TestPluginMarketplaceEndToEnd(t *testing.T) {
	dir := t.TempDir()
	bench := filepath.Join(t.TempDir(), "bench")
	writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
	writeFiles(t, bench, map[string]string{
		".claude-plugin/marketplace.json":         `{"name": "bench", "owner": {"name": "t"}, "plugins": [{"name": "demo", "source": "./plugins/demo"}]}`,
		"plugins/demo/.claude-plugin/plugin.json": `{"name": "demo", "version": "0.2.0"}`,
		"plugins/demo/commands/hello.md":          "Say hello to $ARGUMENTS.\n",
	})
	src, repo := filepath.Join(t.TempDir(), "src"), filepath.Join(t.TempDir(), "tools.git")
	writeFiles(t, src, map[string]string{".claude-plugin/marketplace.json": `{"name": "toolbox", "plugins": []}`})
	for _, args := range [][]string{{"init", "-q", src}, {"-C", src, "add", "."}, {"-C", src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}, {"clone", "-q", "--bare", src, repo}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	srv, e := fakeModel(t, say("Hello."))
	r := gantry(t, dir, e, "plugin", "marketplace", "add", bench)
	if r.code != 0 || !strings.Contains(r.stdout, "Added the marketplace bench: "+bench) {
		t.Fatalf("marketplace add: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, e, "plugin", "marketplace", "add", "file://"+repo)
	if r.code != 0 || !strings.Contains(r.stdout, "Added the marketplace toolbox: ") {
		t.Fatalf("marketplace add git: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, e, "plugin", "marketplace", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "marketplace bench (") || !strings.Contains(r.stdout, "1 plugin(s): demo") || !strings.Contains(r.stdout, "marketplace toolbox (") {
		t.Errorf("marketplace list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, e, "plugin", "add", "demo@bench")
	if r.code != 0 || !strings.Contains(r.stdout, "Added the plugin demo (user): "+filepath.Join(bench, "plugins", "demo")) {
		t.Fatalf("add demo@bench: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, e, "-p", "/demo:hello WORLD")
	if r.code != 0 {
		t.Fatalf("print: exit %d: %s", r.code, r.stderr)
	}
	if s := requestText(t, srv, 0); !strings.Contains(s, "Say hello to WORLD.") {
		t.Errorf("the plugin's command was not expanded: %s", s)
	}
	r = gantry(t, dir, e, "doctor")
	if !strings.Contains(r.stdout, "marketplace bench (") || !strings.Contains(r.stdout, "marketplace toolbox (") {
		t.Errorf("doctor:\n%s", r.stdout)
	}
	for _, name := range []string{"bench", "toolbox"} {
		if r = gantry(t, dir, e, "plugin", "marketplace", "remove", name); r.code != 0 {
			t.Errorf("marketplace remove %s: exit %d\n%s%s", name, r.code, r.stdout, r.stderr)
		}
	}
	r = gantry(t, dir, e, "plugin", "marketplace", "bogus")
	if r.code != 2 || !strings.Contains(r.stderr, "gantry plugin marketplace add") {
		t.Errorf("a bad verb: exit %d\n%s", r.code, r.stderr)
	}
}
