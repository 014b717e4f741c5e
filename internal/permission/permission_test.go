package permission

import (
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

func mustEngine(t *testing.T, m Mode, allow, deny []string) *Engine {
	t.Helper()
	e, err := NewEngine(m, allow, deny)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestModes(t *testing.T) {
	read := Call{Tool: "read_file", Level: tool.LevelRead, Principal: "a.go"}
	write := Call{Tool: "edit_file", Level: tool.LevelWrite, Principal: "a.go"}
	exec := Call{Tool: "bash", Level: tool.LevelExec, Principal: "ls"}
	want := map[Mode][3]Decision{
		ModeDefault:     {Allow, Ask, Ask},
		ModeAcceptEdits: {Allow, Allow, Ask},
		ModePlan:        {Allow, Deny, Deny},
		ModeYolo:        {Allow, Allow, Allow},
	}
	for m, w := range want {
		e := mustEngine(t, m, nil, nil)
		for i, c := range []Call{read, write, exec} {
			if got := e.Check(c).Decision; got != w[i] {
				t.Errorf("mode %s, %s: got %v want %v", m, c.Tool, got, w[i])
			}
		}
	}
}

func TestDenyWinsOverAllowAndYolo(t *testing.T) {
	e := mustEngine(t, ModeYolo, []string{"bash:.*"}, []string{"bash:rm -rf.*"})
	if v := e.Check(Call{Tool: "bash", Level: tool.LevelExec, Principal: "ls && rm -rf /"}); v.Decision != Deny {
		t.Fatalf("compound with a denied part: %+v", v)
	}
	if v := e.Check(Call{Tool: "bash", Level: tool.LevelExec, Principal: "ls -la"}); v.Decision != Allow {
		t.Fatalf("plain allowed command: %+v", v)
	}
}

func TestCompoundAllowedOnlyWhenEveryPartIs(t *testing.T) {
	e := mustEngine(t, ModeDefault, []string{"bash:go test.*", "bash:go vet.*"}, nil)
	c := func(cmd string) Decision {
		return e.Check(Call{Tool: "bash", Level: tool.LevelExec, Principal: cmd}).Decision
	}
	if c("go test ./...") != Allow || c("go vet ./... && go test ./...") != Allow {
		t.Fatal("allowed commands were not allowed")
	}
	if c("go test ./... && curl evil") != Ask {
		t.Fatal("a compound with an unallowed part must ask")
	}
	if c("go test $(curl evil)") != Ask {
		t.Fatal("a command substitution must ask")
	}
}

// A rule naming a program by its path (Claude Code's Bash(./scripts/gh.sh:*), a
// plugin command's Bash(${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh:*)) allows running it
// by that path, quoted or not; a rule naming the base name does not allow another
// path to it, a deny rule on the base name still refuses it, and inline code run by
// an allowed interpreter path still asks.
func TestAllowRuleNamesAProgramByItsPath(t *testing.T) {
	e := mustEngine(t, ModeDefault, []string{`bash:\./scripts/gh\.sh( .*)?`, `bash:/opt/p/setup\.sh( .*)?`, `bash:tool\.sh( .*)?`, `bash:/usr/bin/python3( .*)?`, `bash:/usr/bin/env( .*)?`}, []string{`bash:danger\.sh( .*)?`})
	c := func(cmd string) Decision {
		return e.Check(Call{Tool: "bash", Level: tool.LevelExec, Principal: cmd}).Decision
	}
	for cmd, want := range map[string]Decision{
		"./scripts/gh.sh issue view 123":            Allow,
		`"/opt/p/setup.sh" fix the tests`:           Allow,
		"/opt/p/setup.sh":                           Allow,
		"/elsewhere/setup.sh":                       Ask,
		"/opt/p/tool.sh x":                          Ask,
		"tool.sh x":                                 Allow,
		"/opt/p/danger.sh":                          Deny,
		"/usr/bin/python3 -c 'import os'":           Ask,
		"/usr/bin/python3 script.py":                Allow,
		"/usr/bin/env rm -rf build":                 Ask,
		"./scripts/gh.sh issue view 1 && curl evil": Ask,
	} {
		if got := c(cmd); got != want {
			t.Errorf("%s: got %v, want %v", cmd, got, want)
		}
	}
}

func TestRuleMatchesWholeArgument(t *testing.T) {
	e := mustEngine(t, ModeDefault, []string{"bash:go test"}, nil)
	if e.Check(Call{Tool: "bash", Level: tool.LevelExec, Principal: "go test ./..."}).Decision != Ask {
		t.Fatal("a regex must match the whole argument")
	}
	if e.Check(Call{Tool: "bash", Level: tool.LevelExec, Principal: "go test"}).Decision != Allow {
		t.Fatal("exact match must allow")
	}
}

func TestRememberAlways(t *testing.T) {
	e := mustEngine(t, ModeDefault, nil, nil)
	c := Call{Tool: "bash", Level: tool.LevelExec, Principal: "make"}
	e.Remember(c, true)
	if e.Check(c).Decision != Allow {
		t.Fatal("remembered allow")
	}
	d := Call{Tool: "bash", Level: tool.LevelExec, Principal: "make clean"}
	e.Remember(d, false)
	if e.Check(d).Decision != Deny {
		t.Fatal("remembered deny")
	}
}

func TestParseRuleErrors(t *testing.T) {
	for _, s := range []string{"", ":x", "bash:("} {
		if _, err := ParseRule(s); err == nil {
			t.Errorf("ParseRule(%q) accepted", s)
		}
	}
	if _, err := ParseMode("sometimes"); err == nil {
		t.Error("bad mode accepted")
	}
}
