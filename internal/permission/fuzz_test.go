package permission

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func FuzzCommands(f *testing.F) {
	for _, s := range []string{
		"go test ./...", "a && b || c | d & e; f\ng", `echo "a;b" 'c|d' \; x`, "ls 2>&1 &> f",
		`"unterminated`, "\\", "bash -c 'sh -c \"rm -rf /\"'", "timeout 5 env X=1 nice rm",
		"find . -exec rm {} \\;", "git -c core.pager='less -R' log", "cat <<EOF\n$(x)\nEOF",
		"f(){ g; }; f", "$CMD x", `eval "$x"`, "sudo -u", "env -S", "xargs", "(", "`",
		"python -c", "bash <<< 'x'", "$'\\x72m'", "flock f -c", "git rebase -x",
		"git -C . -c alias.x=y -c alias.y=x x", "git-push", "npm -w", "yarn workspace a", "docker-compose -f",
		"[ -f x ]", "[a]b", "exec -a git-push git",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		cmds, err := Commands(src)
		if err != nil {
			return
		}
		file, perr := parse(src)
		if perr != nil {
			t.Fatalf("Commands parsed what parse did not: %v", perr)
		}
		if hasProgram(file) && len(cmds) == 0 {
			t.Fatalf("%q runs a program but no command was found", src)
		}
		for _, c := range cmds {
			if c.Opaque && c.Why == "" {
				t.Fatalf("%q: an opaque command without a why: %+v", src, c)
			}
			if strings.Trim(c.Name, "/") != "" && strings.Contains(c.Name, "/") {
				t.Fatalf("%q: a program name with a path: %q", src, c.Name)
			}
		}
	})
}

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"bash", "bash:go test.*", "", ":x", "bash:(", "mcp__x__*", "*", "a*b", "bash:", " read_file ", "x:y:z"} {
		f.Add(s, "go test ./...")
	}
	f.Fuzz(func(t *testing.T, rule, principal string) {
		r, err := ParseRule(rule)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if r.Tool == "" || strings.Contains(r.Tool, ":") || r.String() != strings.TrimSpace(rule) {
			t.Fatalf("%q parsed as %+v", rule, r)
		}
		again, err := ParseRule(r.String())
		if err != nil || again.Tool != r.Tool || (again.Pattern == nil) != (r.Pattern == nil) {
			t.Fatalf("%q does not parse back: %v", r, err)
		}
		if r.Match(r.Tool+"_other", principal) && !strings.HasSuffix(r.Tool, "*") {
			t.Fatalf("%q matches another tool", r)
		}
		if r.Pattern == nil && !r.Match(strings.TrimSuffix(r.Tool, "*"), principal) {
			t.Fatalf("%q does not match its own tool", r)
		}
	})
}

// hasProgram reports whether a parsed script holds a command with a program.
func hasProgram(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			found = true
		}
		return !found
	})
	return found
}
