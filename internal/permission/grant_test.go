package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

func bashCall(cmd string) Call { return Call{Tool: "bash", Level: tool.LevelExec, Principal: cmd} }

// What "always" remembers for a command: its program and subcommand, the program of a
// command that only reads, else the command exactly — never broader than asked.
func TestSuggestBash(t *testing.T) {
	e := mustEngine(t, ModeDefault, nil, nil)
	cases := []struct {
		cmd, rules, label string
	}{
		{"go test ./...", `bash:go test( .*)?`, "`go test` commands"},
		{"go vet", `bash:go vet( .*)?`, "`go vet` commands"},
		{"npm run build -- --watch", `bash:npm run build( .*)?`, "`npm run build` commands"},
		{"git status --short", `bash:git status( .*)?`, "`git status` commands"},
		{"git stash pop", `bash:git stash pop( .*)?`, "`git stash pop` commands"},
		{"echo a", `bash:echo( .*)?`, "`echo` commands"},
		{"python3 -m pytest -x tests", `bash:python3 -m pytest( .*)?`, "`python3 -m pytest` commands"},
		{"docker compose up -d", `bash:docker compose up( .*)?`, "`docker compose up` commands"},
		{"go test ./... && go vet ./...", `bash:go test( .*)?, bash:go vet( .*)?`, "`go test` and `go vet` commands"},
		{"rm -rf build", `bash:rm -rf build`, "this command"},
		{"./deploy.sh prod", `bash:\./deploy\.sh prod, bash:deploy\.sh prod`, "this command"},
		{"git -C sub status", `bash:git -C sub status`, "this command"},
		{"cd web && npm test", `bash:cd( .*)?, bash:npm test( .*)?`, "`cd` and `npm test` commands"},
		{"make build && rm x", `bash:make build( .*)?, bash:rm x`, "this command and `make build` commands"},
		{"make", `bash:make`, "this command"},
		{"$CMD x", ``, "this command (exactly)"},
		{`python -c 'print(1)'`, ``, "this command (exactly)"},
		{`ls "x`, ``, "this command (exactly)"},
	}
	for _, c := range cases {
		g := e.Suggest(bashCall(c.cmd))
		if got := strings.Join(g.Rules, ", "); got != c.rules || g.Label != c.label {
			t.Errorf("%s: rules %q label %q, want %q %q", c.cmd, got, g.Label, c.rules, c.label)
		}
	}
}

// "Always" on `go test ./...` allows `go test ./x` and still asks for `go vet`.
func TestGrantedCommandsAndNoMore(t *testing.T) {
	e := mustEngine(t, ModeDefault, nil, []string{"bash:go test -exec.*"})
	first := bashCall("go test ./...")
	if err := e.Grant(first, e.Suggest(first)); err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]Decision{
		"go test ./...":         Allow,
		"go test ./x -run Foo":  Allow,
		"go test":               Allow,
		"go vet ./...":          Ask,
		"go testify":            Ask,
		"go test ./x; rm -rf /": Ask,
		"go test -exec evil":    Deny,
	} {
		if got := e.Check(bashCall(cmd)).Decision; got != want {
			t.Errorf("%s: %v, want %v", cmd, got, want)
		}
	}
	// A grant with no rule (a command no rule can allow) keeps the exact call.
	e = mustEngine(t, ModeDefault, nil, nil)
	odd := bashCall("$CMD go")
	if err := e.Grant(odd, e.Suggest(odd)); err != nil {
		t.Fatal(err)
	}
	if e.Check(odd).Decision != Allow || e.Check(bashCall("$CMD other")).Decision == Allow {
		t.Fatal("an exact grant is not exact")
	}
}

// For a file tool, "always" is that tool on the project: every path inside it, as a
// relative or an absolute path, and none outside.
func TestGrantFileToolOnTheProject(t *testing.T) {
	proj := t.TempDir()
	e := mustEngine(t, ModeDefault, nil, []string{"edit_file:" + proj + "/secret/.*"})
	e.SetProject(proj)
	call := func(paths ...string) Call {
		return Call{Tool: "edit_file", Level: tool.LevelWrite, Principal: strings.Join(paths, " "), Paths: paths}
	}
	first := call(filepath.Join(proj, "src", "a.go"))
	g := e.Suggest(first)
	if g.Label != "edit_file in this project" || len(g.Rules) != 1 {
		t.Fatalf("grant %+v", g)
	}
	if err := e.Grant(first, g); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		paths []string
		want  Decision
	}{
		{[]string{filepath.Join(proj, "src", "b.go")}, Allow},
		{[]string{filepath.Join(proj, "README.md"), filepath.Join(proj, "docs", "x.md")}, Allow},
		{[]string{"/etc/hosts"}, Ask},
		{[]string{filepath.Join(proj, "a"), "/etc/hosts"}, Ask},
		{[]string{filepath.Join(proj+"-other", "a")}, Ask},
		{[]string{filepath.Join(proj, "secret", "key")}, Deny},
	} {
		if got := e.Check(call(c.paths...)).Decision; got != c.want {
			t.Errorf("%v: %v, want %v", c.paths, got, c.want)
		}
	}
	if e.Check(Call{Tool: "write_file", Level: tool.LevelWrite, Paths: []string{filepath.Join(proj, "x")}}).Decision != Ask {
		t.Error("a grant of edit_file allowed write_file")
	}
	// A file outside the project gets the exact call, a URL its origin, a call
	// without a principal its tool.
	if g := e.Suggest(call("/etc/hosts")); g.Label != "this edit_file call" {
		t.Errorf("outside the project: %+v", g)
	}
	if g := e.Suggest(Call{Tool: "web_fetch", Principal: "https://go.dev/doc/x?y=1"}); strings.Join(g.Rules, "") != `web_fetch:https://go\.dev(/.*)?` {
		t.Errorf("a URL: %+v", g)
	}
	if g := e.Suggest(Call{Tool: "mcp__db__query"}); strings.Join(g.Rules, "") != "mcp__db__query" {
		t.Errorf("no principal: %+v", g)
	}
}

// Saving a grant writes its rules, which then hold in a new session.
func TestSaveGrant(t *testing.T) {
	proj := t.TempDir()
	e := mustEngine(t, ModeDefault, nil, nil)
	c := bashCall("go test ./...")
	got, err := e.SaveGrant(proj, c, e.Suggest(c))
	if err != nil || got != `bash:go test( .*)?` {
		t.Fatalf("saved %q, %v", got, err)
	}
	s, err := LoadRules(proj, "")
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := NewEngineFromRules(ModeDefault, s, nil, nil)
	if fresh.Check(bashCall("go test ./x")).Decision != Allow || fresh.Check(bashCall("go vet")).Decision != Ask {
		data, _ := os.ReadFile(filepath.Join(proj, ProjectRulesFile))
		t.Fatalf("the saved rule does not hold as asked:\n%s", data)
	}
}

// A bad rule is named as written, with where it is written, never as compiled.
func TestRuleErrorsNameTheRuleAsWritten(t *testing.T) {
	for _, c := range []struct{ rule, source, want string }{
		{"bash:(", "--allow", `--allow: rule "bash:(" has a bad regular expression: missing closing ) in "("`},
		{"", "/p/.gantry/config.yaml:4", `/p/.gantry/config.yaml:4: empty permission rule`},
		{":x", "--deny", `--deny: rule ":x" names no tool`},
		{"read_file:[a", "f:2", `f:2: rule "read_file:[a" has a bad regular expression: missing closing ] in "[a"`},
	} {
		_, err := ParseRuleFrom(c.rule, c.source)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.rule, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "(?:") {
			t.Errorf("%q: the error shows the compiled pattern: %v", c.rule, err)
		}
	}
}
