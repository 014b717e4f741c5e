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
	"github.com/gantry-dev/gantry/internal/testenv"
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

// A real push to a local bare repository, written as git reads it, runs in plain bash
// and is stopped under the supervisor: the bare repository's refs stay as they were.
func TestExecGuardStopsGitPushWrittenOtherwise(t *testing.T) {
	need(t, "git")
	gitCore := "/usr/lib/git-core"
	if out, err := exec.Command("git", "--exec-path").Output(); err == nil {
		gitCore = strings.TrimSpace(string(out))
	}
	cases := []string{
		"git push origin main",
		"git -C . push origin main",
		"git --no-pager push origin main",
		"git -P -c user.name=x --git-dir=.git push origin main",
		gitCore + "/git-push origin main",
		"PATH=" + gitCore + ":$PATH git-push origin main",
		"exec -a git-push git origin main",
		"git send-pack ../bare.git main",
		"git --exec-path=$PWD/evil push origin main",
		"git -c alias.ship=push ship origin main",
		"env GIT_DIR=.git git --no-pager push origin main",
		// An alias kept in git's configuration: git runs it as a new git process.
		`printf '[alias]\n\tship = push\n' >> .git/config && git ship origin main`,
	}
	g := guardOf(t, `bash:git push( .*)?`)
	for _, c := range cases {
		t.Run(c, func(t *testing.T) {
			// Plain bash really pushes: the case is a real one.
			plain := pushRepos(t)
			cmd := exec.Command("bash", "-c", c)
			cmd.Dir = filepath.Join(plain, "work")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("plain bash: %v %s", err, out)
			}
			if refs(t, plain) == "" {
				t.Fatalf("the command does not push in plain bash; fix the case")
			}
			dir := pushRepos(t)
			out, blocked := supervised(t, g, filepath.Join(dir, "work"), c)
			if got := refs(t, dir); got != "" {
				t.Fatalf("the push happened (%s); output %q", got, out)
			}
			if len(blocked) == 0 || blocked[0].Rule != `bash:git push( .*)?` {
				t.Fatalf("nothing reported blocked (%+v); output %q", blocked, out)
			}
		})
	}
}

// pushRepos makes bare.git (empty) and work (one commit on main, origin ../bare.git)
// in a new folder.
func pushRepos(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script := `set -e
git init -q --bare bare.git
git init -q -b main work
mkdir evil
cd work
echo a > a
git add a
git -c user.name=t -c user.email=t@example.com commit -q -m a
git remote add origin ../bare.git`
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("setup: %v %s", err, out)
	}
	return dir
}

// refs lists the branches of dir/bare.git.
func refs(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", filepath.Join(dir, "bare.git"), "for-each-ref", "--format=%(refname)").Output()
	if err != nil {
		t.Fatalf("for-each-ref: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// npm run by node as its script is npm: the script named by node's operand is a
// program of the index, and is judged as that program.
func TestExecGuardKnowsAScriptGivenToItsInterpreter(t *testing.T) {
	testenv.Need(t, "node")
	npm := testenv.Need(t, "npm")
	cli, err := filepath.EvalSymlinks(npm)
	if err != nil {
		t.Fatal(err)
	}
	g := guardOf(t, `bash:npm run deploy.*`)
	script := "HOME=$PWD/home npm_config_update_notifier=false node " + cli + " run deploy"
	setup := func() string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"x","version":"1.0.0","scripts":{"deploy":"touch deployed"}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	plain := setup()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = plain
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("plain bash: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(plain, "deployed")); err != nil {
		t.Fatalf("node %s run deploy does not deploy in plain bash; fix the case", cli)
	}
	dir := setup()
	out, blocked := supervised(t, g, dir, script)
	if _, err := os.Stat(filepath.Join(dir, "deployed")); err == nil {
		t.Fatalf("the script ran; output %q", out)
	}
	if len(blocked) == 0 || blocked[0].Command != "npm run deploy" {
		t.Fatalf("blocked %+v; output %q", blocked, out)
	}
}
