package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadRulesMerges(t *testing.T) {
	proj, user := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(proj, ".gantry", "permissions.yaml"), "# project\npermissions:\n  allow:\n    - read_file\n    - \"bash:go test.*\"\n  deny:\n    - \"bash:rm -rf.*\"\n")
	writeFile(t, filepath.Join(user, "permissions.yaml"), "permissions: {allow_all: true, deny: ['bash:.*sudo.*']}\n")
	s, err := LoadRules(proj, user)
	if err != nil {
		t.Fatal(err)
	}
	if !s.AllowAll || len(s.Allow) != 2 || len(s.Deny) != 2 {
		t.Fatalf("merged %+v", s)
	}
	want := filepath.Join(proj, ".gantry", "permissions.yaml") + ":5"
	if s.Allow[1].String() != "bash:go test.*" || s.Allow[1].Source != want {
		t.Fatalf("rule %q from %q, want from %q", s.Allow[1], s.Allow[1].Source, want)
	}
	if s.Deny[1].Source != filepath.Join(user, "permissions.yaml")+":1" {
		t.Fatalf("user rule from %q", s.Deny[1].Source)
	}
	e, err := NewEngineFromRules(ModeDefault, s, nil, []string{"bash:make"})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Check(Call{Tool: "bash", Level: tool.LevelExec, Principal: "sudo ls"}); v.Decision != Deny || !strings.Contains(v.Reason, "permissions.yaml:1") {
		t.Fatalf("user deny: %+v", v)
	}
	if v := e.Check(Call{Tool: "bash", Level: tool.LevelExec, Principal: "make"}); v.Decision != Deny || !strings.Contains(v.Reason, "--deny") {
		t.Fatalf("flag deny: %+v", v)
	}
	if v := e.Check(Call{Tool: "bash", Level: tool.LevelExec, Principal: "cargo build"}); v.Decision != Allow {
		t.Fatalf("allow_all: %+v", v)
	}
}

func TestLoadRulesMissingFilesAreFine(t *testing.T) {
	s, err := LoadRules(t.TempDir(), "")
	if err != nil || s.AllowAll || len(s.Allow)+len(s.Deny) != 0 {
		t.Fatalf("%+v %v", s, err)
	}
}

func TestLoadRulesErrors(t *testing.T) {
	cases := []struct{ why, text, want string }{
		{"a bad regular expression", "permissions:\n  allow:\n    - ls\n    - \"bash:(\"\n", `:4: rule "bash:(" has a bad regular expression: `},
		{"an empty rule", "permissions:\n  deny:\n    - ''\n", `:3: empty permission rule`},
		{"a rule with no tool", "permissions:\n  deny:\n\n    - ':x'\n", `:4: rule ":x" names no tool`},
		{"a malformed tool name", "permissions:\n  allow:\n    - 'bash(go test)'\n", `:3: rule "bash(go test)": "bash(go test)" is not a tool name`},
		{"an empty regular expression", "permissions:\n  allow:\n    - 'bash:'\n", `:3: rule "bash:" has an empty regular expression`},
		{"an unknown key in permissions", "permissions:\n  allow: [ls]\n  alow: [x]\n", `:3: unknown key "alow" in permissions`},
		{"an unknown top-level key", "# c\npermision:\n  allow: [ls]\n", `:2: unknown key "permision"`},
		{"allow_all not a boolean", "permissions:\n  allow_all: yes please\n", `:2: permissions.allow_all must be true or false`},
		{"a list that is a string", "permissions:\n  deny: rm\n", `:2: permissions.deny must be a list of rules`},
		{"a rule that is a mapping", "permissions:\n  deny:\n    - {a: b}\n", `:3: a rule in permissions.deny must be a string`},
		{"broken YAML", "permissions:\n  allow: [ls\n", `permissions.yaml`},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			proj := t.TempDir()
			file := filepath.Join(proj, ".gantry", "permissions.yaml")
			writeFile(t, file, tc.text)
			_, err := LoadRules(proj, "")
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.HasPrefix(err.Error(), file) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want %q after the file name", err, tc.want)
			}
		})
	}
}

func TestRuleSetCheckUnknownTools(t *testing.T) {
	proj := t.TempDir()
	file := filepath.Join(proj, ".gantry", "permissions.yaml")
	writeFile(t, file, "permissions:\n  allow:\n    - read_file\n    - mcp__github__*\n    - '*:x'\n    - raed_file\n  deny:\n    - 'bsh:rm.*'\n")
	s, err := LoadRules(proj, "")
	if err != nil {
		t.Fatal(err)
	}
	known := func(name string) bool { return name == "read_file" || name == "bash" }
	err = s.Check(known, []string{"read_file", "bash"})
	if err == nil {
		t.Fatal("unknown tools passed")
	}
	msg := err.Error()
	for _, want := range []string{file + `:6: rule "raed_file" names no tool gantry has (raed_file); did you mean read_file?`, file + `:8: rule "bsh:rm.*"`, "did you mean bash?"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "mcp__") || strings.Contains(msg, `"*:x"`) {
		t.Errorf("mcp__ and * rules must pass: %q", msg)
	}
}

func TestSaveRuleRoundTrip(t *testing.T) {
	proj := t.TempDir()
	file := filepath.Join(proj, ".gantry", "permissions.yaml")
	orig := "# my rules\npermissions:\n  # harmless\n  allow:\n    - read_file # reading is fine\n  deny:\n    - 'bash:rm.*'\n# end\n"
	writeFile(t, file, orig)
	e := mustEngine(t, ModeDefault, nil, nil)
	cmd := Call{Tool: "bash", Level: tool.LevelExec, Principal: "go test ./... -run 'X|Y'"}
	rule, err := e.SaveRule(proj, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if rule != `bash:go test \./\.\.\. -run 'X\|Y'` {
		t.Fatalf("rule %q", rule)
	}
	data, _ := os.ReadFile(file)
	for _, keep := range []string{"# my rules", "# harmless", "# reading is fine", "# end", "- 'bash:rm.*'"} {
		if !strings.Contains(string(data), keep) {
			t.Errorf("lost %q:\n%s", keep, data)
		}
	}
	if e.Check(cmd).Decision != Allow {
		t.Fatal("the saved rule does not hold in the session")
	}
	s, err := LoadRules(proj, "")
	if err != nil {
		t.Fatalf("the file no longer loads: %v\n%s", err, data)
	}
	if len(s.Allow) != 2 || s.Allow[1].String() != rule || len(s.Deny) != 1 {
		t.Fatalf("loaded %+v\n%s", s, data)
	}
	fresh, err := NewEngineFromRules(ModeDefault, s, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Check(cmd).Decision != Allow {
		t.Fatal("the saved rule does not hold in a new session")
	}
	if fresh.Check(Call{Tool: "bash", Level: tool.LevelExec, Principal: "go test ./... -run X"}).Decision != Ask {
		t.Fatal("the saved rule is wider than the command")
	}
	// saving again adds nothing
	if _, err := e.SaveRule(proj, cmd); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(file)
	if string(again) != string(data) {
		t.Fatalf("saving twice changed the file:\n%s", again)
	}
}

func TestSaveRuleShapes(t *testing.T) {
	cases := []struct{ why, text string }{
		{"no file", ""},
		{"only a comment", "# nothing yet\n"},
		{"no final newline", "permissions:\n  allow:\n    - ls"},
		{"no permissions key", "# c\n"},
		{"permissions with no value", "permissions:\n"},
		{"permissions without allow", "permissions:\n  deny:\n    - 'bash:rm.*'\n"},
		{"allow with no value", "permissions:\n  allow:\n  deny: ['bash:rm.*']\n"},
		{"a list indented at the key", "permissions:\n  allow:\n  - ls\n"},
	}
	for _, tc := range cases {
		t.Run(tc.why, func(t *testing.T) {
			proj := t.TempDir()
			file := filepath.Join(proj, ".gantry", "permissions.yaml")
			if tc.text != "" {
				writeFile(t, file, tc.text)
			}
			e := mustEngine(t, ModeDefault, nil, nil)
			c := Call{Tool: "write_file", Level: tool.LevelWrite, Principal: "src/a.go"}
			rule, err := e.SaveRule(proj, c)
			if err != nil {
				t.Fatal(err)
			}
			s, err := LoadRules(proj, "")
			data, _ := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			if n := len(s.Allow); n == 0 || s.Allow[n-1].String() != rule || !s.Allow[n-1].Match("write_file", "src/a.go") {
				t.Fatalf("rule %q not loaded from\n%s", rule, data)
			}
			for _, l := range strings.Split(tc.text, "\n") {
				if !strings.Contains(string(data), l) {
					t.Fatalf("line %q is gone:\n%s", l, data)
				}
			}
		})
	}
}

func TestSaveRuleCompoundAndRefusals(t *testing.T) {
	proj := t.TempDir()
	e := mustEngine(t, ModeDefault, nil, nil)
	rule, err := e.SaveRule(proj, Call{Tool: "bash", Level: tool.LevelExec, Principal: "cd web && timeout 60 npm test"})
	if err != nil {
		t.Fatal(err)
	}
	if rule != `bash:cd web, bash:timeout 60 npm test, bash:npm test` {
		t.Fatalf("rules %q", rule)
	}
	for _, cmd := range []string{"$CMD x", `python -c 'print(1)'`, `ls "x`} {
		if _, err := e.SaveRule(proj, Call{Tool: "bash", Level: tool.LevelExec, Principal: cmd}); err == nil {
			t.Errorf("%q was saved", cmd)
		}
	}
	flow := t.TempDir()
	writeFile(t, filepath.Join(flow, ".gantry", "permissions.yaml"), "permissions: {allow: [ls]}\n")
	if _, err := e.SaveRule(flow, Call{Tool: "read_file", Principal: "a"}); err == nil || !strings.Contains(err.Error(), "inline") {
		t.Errorf("inline mapping: %v", err)
	}
}

func TestAllowForSession(t *testing.T) {
	e := mustEngine(t, ModeDefault, nil, []string{"bash:npm publish.*"})
	if err := e.AllowForSession([]string{"bash:npm (test|run lint)", "bash:("}); err == nil {
		t.Fatal("a bad rule was accepted")
	}
	c := func(cmd string) Decision {
		return e.Check(Call{Tool: "bash", Level: tool.LevelExec, Principal: cmd}).Decision
	}
	if c("npm test") != Ask {
		t.Fatal("a failed AllowForSession added rules")
	}
	if err := e.AllowForSession([]string{"bash:npm (test|run lint)"}); err != nil {
		t.Fatal(err)
	}
	if c("npm test") != Allow || c("npm run lint && npm test") != Allow {
		t.Fatal("session rules do not allow")
	}
	if c("npm test && npm publish") != Deny || c("npm test && make") != Ask {
		t.Fatal("session rules reach too far")
	}
}

func TestRememberIsExact(t *testing.T) {
	e := mustEngine(t, ModeDefault, nil, []string{"bash:rm.*"})
	c := Call{Tool: "bash", Level: tool.LevelExec, Principal: "make"}
	e.Remember(c, true)
	if e.Check(c).Decision != Allow {
		t.Fatal("remembered allow")
	}
	if e.Check(Call{Tool: "bash", Level: tool.LevelExec, Principal: "make && make install"}).Decision != Ask {
		t.Fatal("a remembered command allowed a longer one")
	}
	rm := Call{Tool: "bash", Level: tool.LevelExec, Principal: "rm x"}
	e.Remember(rm, true)
	if e.Check(rm).Decision != Deny {
		t.Fatal("a remembered allow beat a deny rule")
	}
	e.Remember(c, false)
	if e.Check(c).Decision != Deny {
		t.Fatal("the latest answer must count")
	}
}
