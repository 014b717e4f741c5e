package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// A Claude Code user's .claude/settings.json, in the shapes Claude Code's docs and
// examples use: a Bash validator and a .env guard (PreToolUse, matchers Bash and
// Edit|Write|MultiEdit, scripts reading tool_name and tool_input.command /
// tool_input.file_path), permission rules in Claude's syntax, env. Both hooks fire
// on bash, write_file, edit_file and apply_patch; the rules hold; env reaches the
// commands.
func TestClaudeSettingsWorkUnchanged(t *testing.T) {
	testenv.Need(t, "python3") // the hook scripts are Python
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	writeFiles(t, dir, map[string]string{
		".env":      "SECRET=1\n",
		"notes.txt": "first\n",
		".claude/hooks/bash_validator.py": `#!/usr/bin/env python3
import json, re, sys
data = json.load(sys.stdin)
with open(data["cwd"] + "/hooks.log", "a") as log:
    log.write("bash " + data["tool_name"] + " " + data["permission_mode"] + " " + ",".join(sorted(data["tool_input"])) + "\n")
if data.get("tool_name") != "Bash":
    sys.exit(0)
command = data.get("tool_input", {}).get("command", "")
if re.search(r"^grep\b", command):
    print("Use rg instead of grep", file=sys.stderr)
    sys.exit(2)
`,
		".claude/hooks/env_guard.py": `#!/usr/bin/env python3
import json, os, sys
data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
with open(data["cwd"] + "/hooks.log", "a") as log:
    log.write("guard " + data["tool_name"] + " " + path + "\n")
if os.path.basename(path) == ".env":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": ".env files are off limits"}}))
`,
		".claude/settings.json": `{
  "env": {"FROM_CLAUDE_SETTINGS": "yes"},
  "permissions": {
    "deny": ["Bash(rm:*)", "Read(./.env)"],
    "ask": ["Bash(git push:*)"]
  },
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR/.claude/hooks/bash_validator.py\"", "timeout": 10}]},
      {"matcher": "Edit|Write|MultiEdit", "hooks": [{"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR/.claude/hooks/env_guard.py\""}]}
    ]
  }
}`,
	})
	patch := "*** Begin Patch\n*** Update File: notes.txt\n@@\n-first\n+patched\n*** Update File: .env\n@@\n-SECRET=1\n+SECRET=2\n*** End Patch"
	patchIn, _ := json.Marshal(map[string]string{"patch": patch})
	srv, environ := fakeModel(t,
		call("b1", "bash", `{"command":"grep -r SECRET ."}`),
		call("b2", "bash", `{"command":"echo claude env: $FROM_CLAUDE_SETTINGS"}`),
		call("w1", "write_file", `{"path":".env","content":"SECRET=3\n"}`),
		call("e1", "edit_file", `{"path":".env","edits":[{"old":"SECRET=1","new":"SECRET=4"}]}`),
		call("p1", "apply_patch", string(patchIn)),
		call("r1", "bash", `{"command":"rm notes.txt"}`),
		call("g1", "bash", `{"command":"git push origin main"}`),
		call("x1", "read_file", `{"path":".env"}`),
		call("w2", "write_file", `{"path":"notes.txt","content":"written\n"}`),
		say("Done."),
	)
	r := gantry(t, dir, environ, "-p", "go", "--permission-mode", "yolo", "--sandbox=false", "--output-format", "stream-json", "--trust", "--refuse-questions")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	results := map[string]string{}
	for _, l := range strings.Split(r.stdout, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["type"] == "tool_finished" {
			results[m["id"].(string)] = m["output"].(string)
		}
	}
	for id, want := range map[string]string{
		"b1": "Use rg instead of grep",
		"b2": "claude env: yes",
		"w1": ".env files are off limits",
		"e1": ".env files are off limits",
		"p1": ".env files are off limits",
		"r1": "deny rule",
		"g1": "needs permission",
		"x1": "deny rule",
		"w2": "notes.txt",
	} {
		if !strings.Contains(results[id], want) {
			t.Errorf("%s: %q, want it to say %q", id, results[id], want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".env")); string(b) != "SECRET=1\n" {
		t.Errorf(".env was changed: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "written\n" {
		t.Errorf("notes.txt: %q (the patch must not have applied, the last write must)", b)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "hooks.log"))
	for _, want := range []string{
		"bash Bash bypassPermissions command,run_in_background",
		"guard Write " + filepath.Join(dir, ".env"),
		"guard Edit " + filepath.Join(dir, ".env"),
		"guard Edit " + filepath.Join(dir, "notes.txt"),
		"guard Write " + filepath.Join(dir, "notes.txt"),
	} {
		if !strings.Contains(string(log), want+"\n") {
			t.Errorf("hooks.log lacks %q:\n%s", want, log)
		}
	}
	if n := len(srv.Requests()); n != 10 {
		t.Errorf("%d requests", n)
	}

	// gantry doctor says what it took from the file, and the servers of .mcp.json.
	writeFiles(t, dir, map[string]string{".mcp.json": `{"mcpServers": {"notes": {"type": "http", "url": "http://127.0.0.1:1/mcp"}}}`})
	d := gantry(t, dir, environ, "doctor")
	if !strings.Contains(d.stdout, "notes (http) from "+filepath.Join(dir, ".mcp.json")) {
		t.Errorf("gantry doctor does not list the .mcp.json server:\n%s", d.stdout)
	}
	if !strings.Contains(d.stdout, filepath.Join(dir, ".claude", "settings.json")+": 2 hook(s), 0 allow / 2 deny / 1 ask rule(s), env FROM_CLAUDE_SETTINGS") {
		t.Errorf("gantry doctor:\n%s", d.stdout)
	}
}

// A hook's continue: false ends the turn and shows its stopReason; a
// permissionDecision ask is asked even in yolo (refused in print mode with
// --refuse-questions, with no one to ask); a systemMessage is shown.
func TestClaudeHookOutputs(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	writeFiles(t, dir, map[string]string{
		".claude/settings.json": `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "read -r in; case \"$in\" in *deploy*) echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"deploys are asked\"}}';; esac"}]}],
  "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "read -r in; case \"$in\" in *enough*) echo '{\"continue\":false,\"stopReason\":\"the hook says enough\",\"systemMessage\":\"stopping now\"}';; esac"}]}]
}}`,
	})
	srv, environ := fakeModel(t,
		call("d1", "bash", `{"command":"echo deploy"}`),
		call("s1", "bash", `{"command":"echo enough > ran"}`),
		call("n1", "bash", `{"command":"echo never > never"}`),
		say("not reached"),
	)
	r := gantry(t, dir, environ, "-p", "go", "--permission-mode", "yolo", "--sandbox=false", "--trust", "--refuse-questions")
	if r.code != exitBlocked || !strings.Contains(r.stderr, "the hook says enough") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "deploys are asked") || !strings.Contains(r.stdout, "stopping now") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil {
		t.Errorf("the call whose hook stopped the turn did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "never")); err == nil {
		t.Error("a call after the stop ran")
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d model requests after the stop, want 2", n)
	}
}
