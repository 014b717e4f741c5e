package search

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/permission/permtest"
	"github.com/gantry-dev/gantry/internal/tool"
)

// grep and glob under the per-file guard in yolo mode, where only deny rules protect:
// each attack first leaks with no rule, then the gate's check of the call (its
// pattern, its folder) lets it through and the guard skips the denied file unread.

const secret = "KEY=hunter2"

func yoloGate(t *testing.T, dir string, deny ...string) *permission.Engine {
	t.Helper()
	return permtest.Yolo(t, dir, map[string]tool.Files{"grep": tool.FilesRead, "glob": tool.FilesRead}, deny...)
}

// gated runs a call as the agent does: decoded with the gate's guard, checked by the
// gate (which must let it through: the guard is what is tested), run.
func gated(t *testing.T, e *permission.Engine, tl tool.Tool, dir string, args any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	inv, msg := tl.Decode(tool.Env{Cwd: dir, Files: e.FileGuard(tl.Name())}, raw)
	if msg != "" {
		t.Fatal(msg)
	}
	v := e.Check(permission.Call{Tool: tl.Name(), Level: tl.Level(), Principal: inv.Principal, Paths: inv.Paths, Files: tl.Info().Files})
	if v.Decision != permission.Allow {
		t.Fatalf("the gate stopped the call itself (%s); the attack needs another path", v.Reason)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return inv.Run(ctx)
}

func searchProject(t *testing.T) string {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".env": secret + "\n", "secrets/k.txt": secret + "\n", "src/a.go": "package a // KEY=\n"})
	if err := os.Symlink("secrets", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	return dir
}

type searchAttack struct {
	name, rule string
	tool       func(Options) tool.Tool
	args       A
	skipped    string // the skipped line the guarded call ends with
	leaked     func(r tool.Result) bool
}

func quotesSecret(r tool.Result) bool { return strings.Contains(r.Text, "hunter2") }

var searchAttacks = []searchAttack{
	{"grep with glob .env over the project", `read_file:\.env`, Grep, A{"pattern": "hunter", "glob": ".env", "output_mode": "content"},
		`[skipped .env: denied by read_file:\.env from --deny]`, quotesSecret},
	{"grep with a glob that takes hidden files in", `read_file:\.env`, Grep, A{"pattern": "KEY", "glob": "{.env,*.go}", "output_mode": "content"},
		`[skipped .env: denied by read_file:\.env from --deny]`, quotesSecret},
	{"grep with its path on the denied folder", `read_file:secrets/.*`, Grep, A{"pattern": "hunter", "path": "secrets", "output_mode": "content"},
		`[skipped secrets/k.txt: denied by read_file:secrets/.* from --deny]`, quotesSecret},
	{"grep through a symlink to the denied folder", `read_file:secrets/.*`, Grep, A{"pattern": "hunter", "path": "link", "output_mode": "content"},
		`[skipped secrets/k.txt: denied by read_file:secrets/.* from --deny]`, quotesSecret},
	{"grep counting matches in the denied file", `read_file:\.env`, Grep, A{"pattern": "KEY=hunt", "glob": ".env", "output_mode": "count"},
		`[skipped .env: denied by read_file:\.env from --deny]`, func(r tool.Result) bool { return strings.Contains(r.Text, ".env:1") }},
	{"glob listing the denied file", `read_file:\.env`, Glob, A{"pattern": "**/.env"},
		`[skipped .env: denied by read_file:\.env from --deny]`, func(r tool.Result) bool {
			return strings.HasPrefix(r.Text, ".env\n") || r.Text == ".env"
		}},
}

func TestFileGuardStopsSearchAttacks(t *testing.T) {
	for _, a := range searchAttacks {
		t.Run(a.name, func(t *testing.T) {
			dir := searchProject(t)
			if r := gated(t, yoloGate(t, dir), a.tool(testOpts), dir, a.args); !a.leaked(r) {
				t.Fatalf("with no rule the attack does not take effect, so the test proves nothing:\n%s", r.Text)
			}
			r := gated(t, yoloGate(t, dir, a.rule), a.tool(testOpts), dir, a.args)
			if a.leaked(r) || strings.Contains(r.Text, "hunter2") {
				t.Fatalf("the attack took effect under %s:\n%s", a.rule, r.Text)
			}
			if !strings.HasSuffix(r.Text, a.skipped) {
				t.Errorf("the result does not end with %s:\n%s", a.skipped, r.Text)
			}
		})
	}
}

// Allowed files are still found beside a skipped one.
func TestFileGuardKeepsAllowedMatches(t *testing.T) {
	dir := searchProject(t)
	r := gated(t, yoloGate(t, dir, `read_file:\.env`), Grep(testOpts), dir, A{"pattern": "KEY", "glob": "{.env,*.go}", "output_mode": "content"})
	if !strings.Contains(r.Text, "src/a.go:1:package a // KEY=") {
		t.Errorf("the allowed match is missing:\n%s", r.Text)
	}
}

// A Claude Code Read(./secrets/**) deny, as config translates it, stops grep too.
func TestClaudeReadDenyStopsGrep(t *testing.T) {
	dir := searchProject(t)
	rule, err := config.ClaudeRule("Read(./secrets/**)", dir)
	if err != nil {
		t.Fatal(err)
	}
	args := A{"pattern": "hunter", "output_mode": "content"}
	if r := gated(t, yoloGate(t, dir), Grep(testOpts), dir, args); !quotesSecret(r) {
		t.Fatalf("with no rule grep does not find the secret:\n%s", r.Text)
	}
	r := gated(t, yoloGate(t, dir, rule), Grep(testOpts), dir, args)
	if quotesSecret(r) || !strings.Contains(r.Text, "[skipped secrets/k.txt: denied by "+rule) {
		t.Errorf("Read(./secrets/**) as %s:\n%s", rule, r.Text)
	}
}

// A denied folder of many files names a few and counts the rest.
func TestFileGuardSkippedLinesAreBounded(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 25 {
		files[filepath.Join("secrets", string(rune('a'+i))+".txt")] = secret + "\n"
	}
	writeFiles(t, dir, files)
	r := gated(t, yoloGate(t, dir, `read_file:secrets/.*`), Grep(testOpts), dir, A{"pattern": "hunter"})
	lines := strings.Split(r.Text, "\n")
	if len(lines) != 12 || lines[1] != `[skipped secrets/a.txt: denied by read_file:secrets/.* from --deny]` ||
		lines[11] != "[skipped 15 more files that rules deny reading]" {
		t.Errorf("%d lines:\n%s", len(lines), r.Text)
	}
}
