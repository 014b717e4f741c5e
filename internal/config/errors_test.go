package config

import (
	"errors"
	"strings"
	"testing"
)

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// TestFileErrors checks the whole message of each error: file, line, key and what is
// wrong.
func TestFileErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", "model: m\n\nmaxOutptu: 3000\n",
			`:3: unknown key "maxOutptu"; did you mean "maxOutput"?`},
		{"unknown key far from any", "model: m\nfrobnicate: 1\n",
			`:2: unknown key "frobnicate"`},
		{"nested unknown key", "bash:\n  timeout: 30\n  timeot: 3\n",
			`:3: unknown key "bash.timeot"; did you mean "timeout"?`},
		{"unknown key in an MCP server", "mcpServers:\n  s:\n    command: x\n    program: y\n",
			`:4: unknown key "mcpServers.s.program"`},
		{"unknown key in a hook", "hooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: x\n          on_failure: block\n",
			`:6: unknown key "hooks.Stop[0].hooks[0].on_failure"; did you mean "onFailure"?`},
		{"string for an integer", "model: m\nmaxOutput: lots\n",
			`:2: key "maxOutput" must be an integer`},
		{"quoted integer", "maxOutput: '3000'\n",
			`:1: key "maxOutput" must be an integer`},
		{"fraction for an integer", "previewLines: 2.5\n",
			`:1: key "previewLines" must be an integer`},
		{"nested wrong type", "\nbash:\n  timeout: soon\n",
			`:3: key "bash.timeout" must be an integer`},
		{"scalar for a mapping", "compact: 0.5\n",
			`:1: key "compact" must be a mapping`},
		{"string for a number", "compact:\n  threshold: high\n",
			`:2: key "compact.threshold" must be a number`},
		{"number for a bool", "editTools: 1\n",
			`:1: key "editTools" must be true or false`},
		{"scalar for a list", "permissions:\n  deny: rm\n",
			`:2: key "permissions.deny" must be a list of strings`},
		{"skillsDir of another type", "skillsDir: {a: b}\n",
			`:1: key "skillsDir" must be a string or a list of strings`},
		{"skillsDir item of another type", "skillsDir:\n  - a\n  - [b]\n",
			`:3: key "skillsDir[1]" must be a string`},
		{"number too large", "maxTurns: 99999999999999999999\n",
			`:1: key "maxTurns": number out of range`},
		{"invalid permission mode", "permissionMode: auto\n",
			`:1: key "permissionMode" must be one of default, accept-edits, plan, yolo, not "auto"`},
		{"maxOutput too small", "maxOutput: 999\n",
			`:1: key "maxOutput" must be at least 1000 (characters), not 999`},
		{"negative previewLines", "previewLines: -1\n",
			`:1: key "previewLines" must be 0 or more, not -1`},
		{"bash timeout too long", "bash:\n  timeout: 601\n",
			`:2: key "bash.timeout" must be between 1 and 600 (seconds), not 601`},
		{"bash timeout zero", "bash: {timeout: 0}\n",
			`:1: key "bash.timeout" must be between 1 and 600 (seconds), not 0`},
		{"threshold zero", "compact:\n  threshold: 0\n",
			`:2: key "compact.threshold" must be a share of the context window, above 0 and at most 1, not 0`},
		{"threshold above one", "compact:\n  threshold: 1.01\n",
			`:2: key "compact.threshold" must be a share of the context window, above 0 and at most 1, not 1.01`},
		{"unknown hook event", "hooks:\n  PreToolUse: []\n  BeforeTool: []\n",
			`:3: key "hooks.BeforeTool" is not a hook event; the events are SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop, SubagentStart, SubagentStop, PreCompact, Notification, SessionEnd`},
		{"bad matcher", "hooks:\n  PreToolUse:\n    - matcher: \"bash(\"\n      hooks: [{type: command, command: x}]\n",
			`:3: key "hooks.PreToolUse[0].matcher" is not a valid regular expression: missing closing ) in "bash("`},
		{"missing hook type", "hooks:\n  Stop:\n    - hooks:\n        - command: x\n",
			`:4: key "hooks.Stop[0].hooks[0].type" is missing: give type: command (with a command) or type: prompt (with a prompt)`},
		{"unknown hook type", "hooks:\n  Stop:\n    - hooks:\n        - type: http\n          command: x\n",
			`:4: key "hooks.Stop[0].hooks[0].type" must be one of command, prompt, not "http"`},
		{"prompt hook without prompt", "hooks:\n  Stop:\n    - hooks:\n        - type: prompt\n          timeout: 20\n",
			`:4: key "hooks.Stop[0].hooks[0].prompt" must be the question for the model (a hook of type prompt)`},
		{"prompt hook with a command", "hooks:\n  SessionEnd:\n    - hooks:\n        - type: prompt\n          prompt: Is it done?\n          command: x\n",
			`:6: key "hooks.SessionEnd[0].hooks[0].command" belongs to a hook of type command, and this one is of type prompt`},
		{"command hook without command", "hooks:\n  Stop:\n    - hooks:\n        - type: command\n          timeout: 5\n",
			`:4: key "hooks.Stop[0].hooks[0].command" must be a shell command`},
		{"bad onFailure", "hooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: x\n          onFailure: explode\n",
			`:6: key "hooks.Stop[0].hooks[0].onFailure" must be one of warn, block, not "explode"`},
		{"MCP server without command or url", "mcpServers:\n  s:\n    args: [a]\n",
			`:2: key "mcpServers.s" needs a command (a stdio server) or a url (an HTTP server)`},
		{"MCP server of a type gantry does not connect to", "mcpServers:\n  s:\n    type: ws\n    url: ws://127.0.0.1:1\n",
			`:3: key "mcpServers.s.type" must be one of stdio, http, sse, not "ws"`},
		{"sse server without a url", "mcpServers:\n  s:\n    type: sse\n    command: x\n",
			`:2: key "mcpServers.s" is of type sse and needs a url`},
		{"MCP server level", "mcpServers:\n  s:\n    command: x\n    level: admin\n",
			`:4: key "mcpServers.s.level" must be one of read, write, exec, not "admin"`},
		{"model of another type", "model: 5\n",
			`:1: key "model" must be a string (the model's name) or a mapping (name, streamIdleTimeout, firstByteTimeout, pingTimeout, responseTimeout, maxRetryAfter)`},
		{"unknown key under model", "model:\n  name: m\n  streamIdleTimout: 30\n",
			`:3: unknown key "model.streamIdleTimout"; did you mean "streamIdleTimeout"?`},
		{"model timeout zero", "model:\n  firstByteTimeout: 0\n",
			`:2: key "model.firstByteTimeout" must be between 1 and 3600 (seconds), not 0`},
		{"model timeout of another type", "model:\n  streamIdleTimeout: soon\n",
			`:2: key "model.streamIdleTimeout" must be an integer`},
		{"duplicate key", "model: a\nmodel: b\n",
			`:2: mapping key "model" already defined at [1:1]`},
		{"syntax error", "model: [a\n",
			`:1: sequence end token ']' not found`},
		{"not a mapping", "- a\n- b\n",
			`:1: the file must be a mapping of keys to values`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			const path = "/p/.gantry/config.yaml"
			_, err := parse(path, []byte(tc.yaml))
			if err == nil {
				t.Fatalf("no error for %q", tc.yaml)
			}
			if got, want := err.Error(), path+tc.want; got != want {
				t.Errorf("error\n got %s\nwant %s", got, want)
			}
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != path {
				t.Errorf("not a FileError of the file: %#v", err)
			}
		})
	}
}

func TestAllValueErrorsOfAFileInLineOrder(t *testing.T) {
	_, err := parse("/c.yaml", []byte("maxOutput: 10\nbash:\n  timeout: 0\npermissionMode: x\n"))
	want := "/c.yaml:1: key \"maxOutput\" must be at least 1000 (characters), not 10\n" +
		"/c.yaml:3: key \"bash.timeout\" must be between 1 and 600 (seconds), not 0\n" +
		"/c.yaml:4: key \"permissionMode\" must be one of default, accept-edits, plan, yolo, not \"x\""
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
}

func TestLoadNamesTheFileAtFault(t *testing.T) {
	e := newEnv(t)
	e.userFile(t, "model: fine\n")
	pf := e.projectFile(t, "model: m\nbash:\n  timeot: 3\n")
	_, err := Load(e.root)
	if err == nil || err.Error() != pf+`:3: unknown key "bash.timeot"; did you mean "timeout"?` {
		t.Errorf("got %v", err)
	}
	uf := e.userFile(t, "permissionMode: plan\npreviewLines: many\n")
	_, err = Load(e.root)
	if err == nil || err.Error() != uf+`:2: key "previewLines" must be an integer` {
		t.Errorf("got %v", err)
	}
}

func TestNullSetsNothing(t *testing.T) {
	l, err := parse("/c.yaml", []byte("maxOutput:\nmodel: ~\nskillsDir: null\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := Default()
	l.apply(c)
	if c.MaxOutput != 30000 || c.Model != "" {
		t.Errorf("%+v", c)
	}
}

func TestSuggestion(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"maxOutptu", "maxOutput"},
		{"maxoutput", "maxOutput"},
		{"editTool", "editTools"},
		{"bash.timout", "timeout"},
		{"colour", ""},
		{"mcpServers.s.comand", "command"},
	} {
		got := suggest(tc.key)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, `"`+tc.want+`"`) {
			t.Errorf("suggest(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}
