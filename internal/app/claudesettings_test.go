package app

import (
	"context"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
)

// A Claude Code settings file's permissions.defaultMode is the session's mode in
// gantry's words (acceptEdits is accept-edits), unless gantry's own config names one.
func TestClaudeDefaultMode(t *testing.T) {
	for _, c := range []struct {
		gantry string
		want   permission.Mode
	}{{"", permission.ModeAcceptEdits}, {"permissionMode: plan\n", permission.ModePlan}} {
		dir := project(t, c.gantry, map[string]string{})
		writeClaudeSettings(t, dir, map[string]any{"permissions": map[string]any{"defaultMode": "acceptEdits"}})
		a, _ := sessionIn(t, Options{Cwd: dir}, face.NoHuman{})
		if got := a.gate.Mode(); got != c.want {
			t.Errorf("config %q: mode %s, want %s", c.gantry, got, c.want)
		}
	}
}

// disableBypassPermissionsMode: "disable" refuses yolo: asked for at the start, the
// session starts in default and says so once; switched to later, it is said and the
// mode stays. The keys gantry does not use are named in one notice.
func TestClaudeDisableBypassAndUnusedKeys(t *testing.T) {
	dir := project(t, "", map[string]string{})
	writeClaudeSettings(t, dir, map[string]any{
		"model": "opus", "statusLine": map[string]any{"type": "command", "command": "echo"},
		"permissions": map[string]any{"disableBypassPermissionsMode": "disable", "additionalDirectories": []string{"../x"}},
	})
	a, notices := sessionIn(t, Options{Cwd: dir, PermissionMode: "yolo"}, face.NoHuman{})
	if got := a.gate.Mode(); got != permission.ModeDefault {
		t.Errorf("started in %s", got)
	}
	var refused, unused []string
	for _, n := range notices {
		if strings.Contains(n, "disableBypassPermissionsMode") {
			refused = append(refused, n)
		}
		if strings.Contains(n, "does not use") {
			unused = append(unused, n)
		}
	}
	if len(refused) != 1 || !strings.Contains(refused[0], "yolo") {
		t.Errorf("the refusal was said %q", refused)
	}
	if len(unused) != 1 || !strings.Contains(unused[0], "permissions.additionalDirectories, statusLine") {
		t.Errorf("the unused keys were said %q", unused)
	}
	a.SetMode(permission.ModeYolo)
	if got := a.gate.Mode(); got != permission.ModeDefault {
		t.Errorf("switched to %s", got)
	}
}

// A Claude Code WebFetch(domain:example.com) allow rule makes web_fetch ask, in
// default mode, for a host it does not name: with nobody to ask, the fetch of
// example.com.evil.net is refused before any request is made.
func TestClaudeWebFetchDomainAsks(t *testing.T) {
	dir := project(t, "", map[string]string{})
	writeClaudeSettings(t, dir, map[string]any{"permissions": map[string]any{"allow": []string{"WebFetch(domain:example.com)"}}})
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "f", Name: "web_fetch", Input: `{"url":"https://example.com.evil.net/"}`}}},
		scripted.Step{Text: "done"},
	)
	rec := &recorder{}
	a, err := newStarted(Options{Cwd: dir, LLM: p}, rec.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	a.Run(context.Background(), "fetch it", nil)
	a.Close()
	if got := rec.finished()["f"]; !strings.Contains(got, "not among them") {
		t.Errorf("the fetch ended with %q", got)
	}
}
