package permission

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/contain"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// subcommandCase is one line of testdata/subcommands.txt.
type subcommandCase struct {
	line       int
	stop       bool
	rules      []string
	command    string
	argv       []string
	path       string
	parsedArgv bool // argv taken from the command's own words
}

// subcommandCorpus reads testdata/subcommands.txt.
func subcommandCorpus(t *testing.T) []subcommandCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "subcommands.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []subcommandCase
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		fs := strings.Split(l, "\t")
		if len(fs) < 3 || fs[0] != "stop" && fs[0] != "run" {
			t.Fatalf("line %d: want stop|run, rule, command [, argv [, path]]: %q", n, l)
		}
		c := subcommandCase{line: n, stop: fs[0] == "stop", command: fs[2]}
		if fs[1] == "@gitpush" {
			c.rules = []string{`bash:git push.*`, `bash:git push( .*)?`}
		} else {
			c.rules = []string{"bash:" + fs[1]}
		}
		if len(fs) > 3 {
			if err := json.Unmarshal([]byte(fs[3]), &c.argv); err != nil {
				t.Fatalf("line %d: argv: %v", n, err)
			}
		} else {
			c.argv, c.parsedArgv = wordsOf(t, c.command), true
		}
		if len(fs) > 4 {
			c.path = fs[4]
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// wordsOf is the argv a plain command line runs with, as bash expands it.
func wordsOf(t *testing.T, cmd string) []string {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) != 1 {
		t.Fatalf("%q: give the argv of the exec (%v)", cmd, err)
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		t.Fatalf("%q: give the argv of the exec", cmd)
	}
	fields, err := expand.Fields(&expand.Config{}, call.Args...)
	if err != nil {
		t.Fatalf("%q: %v", cmd, err)
	}
	return fields
}

// judgeArgv judges argv as the exec of a real program: the file at path (or argv[0]
// looked up on PATH) when there is one here.
func judgeArgv(g *ExecGuard, argv []string, path string) contain.Refusal {
	if path == "" {
		path = argv[0]
		if !strings.Contains(path, "/") {
			if p, err := exec.LookPath(path); err == nil {
				path = p
			}
		}
	}
	x := contain.Exec{Path: path, Argv: argv}
	if f, err := os.Open(path); err == nil {
		defer f.Close()
		x.File = f
	}
	return g.Judge(x)
}

// Every line of the corpus, through the parser and through the supervisor's judge.
func TestSubcommandCorpus(t *testing.T) {
	cases := subcommandCorpus(t)
	if len(cases) < 150 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		for _, rule := range c.rules {
			e, err := NewEngine(ModeYolo, nil, []string{rule})
			if err != nil {
				t.Fatal(err)
			}
			v := e.Check(Call{Tool: "bash", Principal: c.command})
			if (v.Decision == Deny) != c.stop {
				t.Errorf("line %d, parser, %s: %q: %v (%s)", c.line, rule, c.command, v.Decision, v.Reason)
			}
			if c.stop && !oneSentence(v.Reason) {
				t.Errorf("line %d: the reason is not one sentence: %q", c.line, v.Reason)
			}
			r := judgeArgv(e.ExecGuard(), c.argv, c.path)
			if r.Refused() != c.stop {
				t.Errorf("line %d, judge, %s: %q: refused %v (%+v)", c.line, rule, c.argv, r.Refused(), r)
			}
		}
	}
}
