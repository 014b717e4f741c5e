package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// trustAsker answers the trust question with yes (or not) and keeps what it was asked.
type trustAsker struct {
	face.NoHuman
	yes    bool
	before func() // runs while the question is open
	mu     sync.Mutex
	reqs   []face.TrustRequest
}

func (a *trustAsker) TrustFolder(_ context.Context, req face.TrustRequest) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs = append(a.reqs, req)
	if a.before != nil {
		a.before()
	}
	return a.yes, nil
}

func (a *trustAsker) asked() []face.TrustRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]face.TrustRequest(nil), a.reqs...)
}

// untrustedProject is a project whose .mcp.json server, SessionStart hook and env
// leave marks when they run, with a rules file that allows everything; its user
// config trusts no folder.
func untrustedProject(t *testing.T) string {
	t.Helper()
	dir := project(t, "", map[string]string{
		".mcp.json": `{"mcpServers": {"marker": {"command": "sh", "args": ["-c", "touch server-ran; exit 1"]}}}`,
		".claude/settings.json": `{"env": {"GANTRY_TRUST_TEST": "from the project"},
			"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch hook-ran"}]}]}}`,
		".gantry/permissions.yaml": "permissions:\n  allow_all: true\n  allow:\n    - bash\n  deny:\n    - bash:rm .*\n",
	})
	if err := os.Remove(filepath.Join(os.Getenv("GANTRY_CONFIG_DIR"), "config.yaml")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GANTRY_TRUST_TEST", "")
	return dir
}

func ran(dir, mark string) bool {
	_, err := os.Stat(filepath.Join(dir, mark))
	return err == nil
}

// sessionIn starts a session in dir with asker and returns it with its notices.
func sessionIn(t *testing.T, opts Options, asker face.Asker) (*App, []string) {
	t.Helper()
	var mu sync.Mutex
	var notices []string
	opts.LLM = scripted.New()
	a, err := newStarted(opts, func(e face.Event) {
		if n, ok := e.(face.Notice); ok {
			mu.Lock()
			notices = append(notices, n.Text)
			mu.Unlock()
		}
	}, asker)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	mu.Lock()
	defer mu.Unlock()
	return a, append([]string(nil), notices...)
}

func trustNotice(notices []string) string {
	for _, n := range notices {
		if strings.Contains(n, "--trust") {
			return n
		}
	}
	return ""
}

// A folder nobody trusted runs none of its project files with nobody to ask: one
// notice names --trust and trustedFolders; its deny rules hold, its allow rules do not.
func TestUntrustedFolderRunsNothing(t *testing.T) {
	dir := untrustedProject(t)
	a, notices := sessionIn(t, Options{Cwd: dir}, face.NoHuman{})
	if ran(dir, "server-ran") || ran(dir, "hook-ran") || a.policy.Getenv("GANTRY_TRUST_TEST") != "" {
		t.Errorf("ran: server %v, hook %v, env %q", ran(dir, "server-ran"), ran(dir, "hook-ran"), a.policy.Getenv("GANTRY_TRUST_TEST"))
	}
	n := trustNotice(notices)
	if n == "" || strings.Contains(n, "\n") || !strings.Contains(n, "trustedFolders") || !strings.Contains(n, "not trusted") {
		t.Errorf("notices %q", notices)
	}
	bash := permission.Call{Tool: "bash", Level: tool.LevelExec, Principal: "ls"}
	if v := a.gate.Check(bash); v.Decision != permission.Ask {
		t.Errorf("the project's allow rules hold: %v (%s)", v.Decision, v.Reason)
	}
	bash.Principal = "rm x"
	if v := a.gate.Check(bash); v.Decision != permission.Deny {
		t.Errorf("the project's deny rule does not hold: %v", v.Decision)
	}
	if ft := a.FolderTrust(); ft.State != TrustUntrusted || len(ft.Held.Servers) != 1 || len(ft.Held.Hooks) != 1 || len(ft.Held.Env) != 1 || ft.Held.AllowAll == "" {
		t.Errorf("trust %+v", ft)
	}
}

// The person's yes runs them at once, and is kept with the files' hashes: the next
// session runs them without asking, and a changed file asks again.
func TestTrustAskedOnceAndAgainAfterAChange(t *testing.T) {
	dir := untrustedProject(t)
	asker := &trustAsker{yes: true}
	a, notices := sessionIn(t, Options{Cwd: dir}, asker)
	reqs := asker.asked()
	if len(reqs) != 1 || trustNotice(notices) != "" {
		t.Fatalf("asked %d times; notices %q", len(reqs), notices)
	}
	shown := strings.Join(reqs[0].Lines(), "\n")
	for _, want := range []string{"marker: sh -c touch server-ran; exit 1", "SessionStart: touch hook-ran", "GANTRY_TRUST_TEST", "allow_all", "bash ("} {
		if !strings.Contains(shown, want) {
			t.Errorf("the question does not show %q:\n%s", want, shown)
		}
	}
	if !ran(dir, "hook-ran") || !ran(dir, "server-ran") || a.policy.Getenv("GANTRY_TRUST_TEST") != "from the project" {
		t.Errorf("after yes: server %v, hook %v, env %q", ran(dir, "server-ran"), ran(dir, "hook-ran"), a.policy.Getenv("GANTRY_TRUST_TEST"))
	}
	if v := os.Getenv("GANTRY_TRUST_TEST"); v != "" {
		t.Errorf("the project's env was set in gantry's own process: %q", v)
	}
	if v := a.gate.Check(permission.Call{Tool: "bash", Level: tool.LevelExec, Principal: "ls"}); v.Decision != permission.Allow {
		t.Errorf("the allow rules after yes: %v (%s)", v.Decision, v.Reason)
	}
	// A grant saved in the project's rules file is the person's: the folder stays trusted.
	if _, err := a.agent.Config.SaveRule(permission.Call{Tool: "read_file", Level: tool.LevelRead, Principal: "x"}, permission.Grant{Rules: []string{"read_file"}}); err != nil {
		t.Fatal(err)
	}
	a.Close()

	os.Remove(filepath.Join(dir, "hook-ran"))
	b, _ := sessionIn(t, Options{Cwd: dir}, asker)
	if len(asker.asked()) != 1 || !ran(dir, "hook-ran") || b.FolderTrust().State != TrustTrusted {
		t.Errorf("the kept yes: asked %d times, hook ran %v, %+v", len(asker.asked()), ran(dir, "hook-ran"), b.FolderTrust())
	}
	b.Close()

	os.Remove(filepath.Join(dir, "hook-ran"))
	os.Remove(filepath.Join(dir, "server-ran"))
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"marker": {"command": "sh", "args": ["-c", "touch server-ran; touch changed-ran; exit 1"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, notices = sessionIn(t, Options{Cwd: dir}, face.NoHuman{})
	if ran(dir, "changed-ran") || ran(dir, "hook-ran") || !strings.Contains(trustNotice(notices), "changed since it was trusted (.mcp.json)") {
		t.Errorf("a changed .mcp.json: ran %v %v; notices %q", ran(dir, "changed-ran"), ran(dir, "hook-ran"), notices)
	}
	asker.yes = false
	c, _ := sessionIn(t, Options{Cwd: dir}, asker)
	if reqs := asker.asked(); len(reqs) != 2 || strings.Join(reqs[1].Changed, " ") != ".mcp.json" || ran(dir, "changed-ran") {
		t.Errorf("asked again: %+v", reqs)
	}
	if c.FolderTrust().State != TrustChanged {
		t.Errorf("after no: %+v", c.FolderTrust())
	}
}

// --trust, and the user's trustedFolders, run them without a question; a project's
// config cannot trust itself.
func TestTrustByFlagAndUserConfig(t *testing.T) {
	dir := untrustedProject(t)
	if err := os.WriteFile(filepath.Join(dir, ".gantry/config.yaml"), []byte("trustedFolders: [\".\", \"/\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, notices := sessionIn(t, Options{Cwd: dir}, face.NoHuman{})
	if ran(dir, "hook-ran") || trustNotice(notices) == "" || a.FolderTrust().State != TrustUntrusted {
		t.Errorf("the project trusted itself: %q", notices)
	}
	a.Close()
	b, notices := sessionIn(t, Options{Cwd: dir, Trust: true}, face.NoHuman{})
	if !ran(dir, "hook-ran") || trustNotice(notices) != "" || b.FolderTrust().By != "--trust" {
		t.Errorf("--trust: hook ran %v, notices %q", ran(dir, "hook-ran"), notices)
	}
	b.Close()
	os.Remove(filepath.Join(dir, "hook-ran"))
	trustFolder(t, filepath.Dir(dir))
	c, notices := sessionIn(t, Options{Cwd: dir}, face.NoHuman{})
	if !ran(dir, "hook-ran") || trustNotice(notices) != "" || c.FolderTrust().By != "trustedFolders" {
		t.Errorf("trustedFolders: hook ran %v, notices %q", ran(dir, "hook-ran"), notices)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(StorePath(Options{})), TrustFile)); err == nil {
		t.Errorf("the flag or the config wrote the trust file")
	}
}

// A file changed while the question was open is not run on the answer given to what
// was shown, and nothing is kept.
func TestTrustChangedWhileAsked(t *testing.T) {
	dir := untrustedProject(t)
	asker := &trustAsker{yes: true, before: func() {
		os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{"mcpServers": {"m": {"command": "sh", "args": ["-c", "touch swapped-ran"]}}}`), 0o644)
	}}
	a, notices := sessionIn(t, Options{Cwd: dir}, asker)
	if ran(dir, "swapped-ran") || ran(dir, "hook-ran") || a.FolderTrust().Trusted() || !strings.Contains(strings.Join(notices, "\n"), "changed while its trust was asked") {
		t.Errorf("ran %v %v, %+v, notices %q", ran(dir, "swapped-ran"), ran(dir, "hook-ran"), a.FolderTrust(), notices)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(StorePath(Options{})), TrustFile)); err == nil {
		t.Errorf("the trust was kept")
	}
}
