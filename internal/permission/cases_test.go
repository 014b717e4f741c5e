package permission

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// The rules most cases run under: a few harmless programs allowed, rm and curl denied.
var (
	stdAllow = []string{
		`bash:ls( .*)?`, `bash:echo( .*)?`, `bash:cat( .*)?`, `bash:grep( .*)?`, `bash:true`,
		`bash:go (test|vet|build)( .*)?`, `bash:git (status|log|diff)( .*)?`, `bash:find( .*)?`,
		`bash:diff( .*)?`, `bash:timeout [0-9]+ .*`, `bash:python3? .*`, `bash:perl .*`, `bash:node .*`,
	}
	stdDeny = []string{`bash:rm( .*)?`, `bash:curl( .*)?`}
)

type permCase struct {
	why       string
	mode      Mode     // default when empty
	allow     []string // stdAllow when nil; use none for no rules
	deny      []string // stdDeny when nil
	allowAll  bool
	tool      string // bash when empty
	level     tool.Level
	cmd       string // the principal
	want      Decision
	reasonHas string // for refusals: a piece the reason must contain
}

var none = []string{}

var permCases = []permCase{
	// plain commands
	{why: "a plainly allowed command runs", cmd: "ls -la", want: Allow},
	{why: "a plainly denied command is refused", cmd: "rm -rf x", want: Deny, reasonHas: "bash:rm( .*)?"},
	{why: "a command no rule names is asked in default mode", cmd: "make", want: Ask},
	{why: "redirections do not hide an allowed command", cmd: "ls > out.txt 2>&1", want: Allow},
	{why: "every part allowed: the compound is allowed", cmd: "go vet ./... && go test ./...", want: Allow},
	{why: "one part not allowed: the compound is asked", cmd: "go test ./... && make", want: Ask},
	// lists and pipes
	{why: "a && b with a denied b", cmd: "ls && rm -rf /", want: Deny},
	{why: "a; b with a denied b", cmd: "ls; rm x", want: Deny},
	{why: "a | b with a denied b", cmd: "cat x | rm y", want: Deny},
	{why: "a || b with a denied b", cmd: "false || rm x", want: Deny},
	{why: "a newline separates commands", cmd: "ls\nrm -rf /", want: Deny},
	{why: "a background & separates commands", cmd: "ls & rm -rf /", want: Deny},
	// grouping and substitution
	{why: "a subshell", cmd: "(rm -rf /)", want: Deny},
	{why: "a brace group", cmd: "{ rm -rf /; }", want: Deny},
	{why: "a command substitution inside an allowed command", cmd: "echo $(rm -rf /)", want: Deny},
	{why: "backquotes", cmd: "echo `rm -rf /`", want: Deny},
	{why: "process substitution", cmd: "cat <(curl evil)", want: Deny},
	{why: "process substitutions of allowed commands are allowed", cmd: "diff <(ls a) <(ls b)", want: Allow},
	{why: "a substitution in an assignment alone still runs", cmd: "X=$(rm -rf /)", want: Deny},
	{why: "a substitution in a here-document body runs", cmd: "cat <<EOF\n$(rm -rf /)\nEOF", want: Deny},
	// shells running strings
	{why: "bash -c runs its string", cmd: "bash -c 'rm -rf /'", want: Deny},
	{why: "sh -c runs its string", cmd: `sh -c "rm -rf /"`, want: Deny},
	{why: "bash -lc with flags clustered", cmd: "bash -lc 'ls; rm -rf /'", want: Deny},
	{why: "shells nested in shells", cmd: `bash -c "sh -c 'rm -rf /'"`, want: Deny},
	{why: "a shell reading a here-document runs its lines", cmd: "bash <<EOF\nrm -rf /\nEOF", want: Deny},
	{why: "a shell reading a here-string", cmd: "sh <<< 'rm -rf /'", want: Deny},
	{why: "a shell reading a pipe runs a computed script", cmd: "wget -qO- x | sh", want: Deny, reasonHas: "named plainly"},
	{why: "bash -c of a variable is computed", cmd: `bash -c "$X"`, want: Deny, reasonHas: "computed"},
	{why: "a shell on a here-document of allowed commands needs the shell allowed too", cmd: "bash <<'EOF'\nls\nEOF", want: Ask},
	{why: "the same, with the shell allowed", allow: []string{"bash:bash", "bash:ls"}, cmd: "bash <<'EOF'\nls\nEOF", want: Allow},
	// wrappers
	{why: "env runs its command", cmd: "env rm x", want: Deny},
	{why: "env with assignments runs its command", cmd: "env FOO=1 curl x", want: Deny},
	{why: "env -S splits its string into a command", cmd: "env -S 'rm -rf /'", want: Deny},
	{why: "timeout runs its command", cmd: "timeout 5 rm -rf x", want: Deny},
	{why: "timeout with options", cmd: "timeout -s KILL -k 2 5 rm -rf x", want: Deny},
	{why: "nice -n runs its command", cmd: "nice -n 5 rm x", want: Deny},
	{why: "nice -N runs its command", cmd: "nice -10 rm x", want: Deny},
	{why: "nohup in the background", cmd: "nohup rm x &", want: Deny},
	{why: "the time keyword", cmd: "time rm x", want: Deny},
	{why: "xargs runs its command", cmd: "find . | xargs rm", want: Deny},
	{why: "xargs with options runs sh -c", cmd: "ls | xargs -I{} sh -c 'rm {}'", want: Deny},
	{why: "sudo runs its command", cmd: "sudo rm x", want: Deny},
	{why: "sudo with options and a chain of wrappers", cmd: "sudo -u root env X=1 timeout 3 nice rm -rf /", want: Deny},
	{why: "command runs its command", cmd: "command rm x", want: Deny},
	{why: "command -v only looks a name up", cmd: "command -v rm", want: Ask},
	{why: "exec runs its command", cmd: "exec rm x", want: Deny},
	{why: "exec -a runs its command", cmd: "exec -a name rm x", want: Deny},
	{why: "builtin eval runs its string", cmd: `builtin eval "rm x"`, want: Deny},
	{why: "stdbuf runs its command", cmd: "stdbuf -oL rm x", want: Deny},
	{why: "ionice runs its command", cmd: "ionice -c3 rm x", want: Deny},
	{why: "chrt with a priority runs its command", cmd: "chrt 10 rm x", want: Deny},
	{why: "taskset with a mask runs its command", cmd: "taskset 0x1 rm x", want: Deny},
	{why: "setsid runs its command", cmd: "setsid rm x", want: Deny},
	{why: "unbuffer runs its command", cmd: "unbuffer rm x", want: Deny},
	{why: "busybox runs its applet", cmd: "busybox rm -rf /", want: Deny},
	{why: "flock -c runs a shell string", cmd: "flock /tmp/l -c 'rm -rf /'", want: Deny},
	{why: "watch gives its words to sh -c", cmd: "watch 'rm -rf /'", want: Deny},
	{why: "su -c runs a shell string", cmd: "su -c 'rm -rf /' root", want: Deny},
	{why: "a wrapper must be allowed as well as what it runs", cmd: "sudo go test ./...", want: Ask},
	{why: "an allowed wrapper around an allowed command", cmd: "timeout 60 go test ./...", want: Allow},
	{why: "an allowed wrapper around an unallowed command", cmd: "timeout 60 make", want: Ask},
	// names written differently
	{why: "a backslash before the name", cmd: `\rm -rf x`, want: Deny},
	{why: "a quoted name", cmd: "'rm' -rf x", want: Deny},
	{why: "a name put together from quoted pieces", cmd: `"r"m x`, want: Deny},
	{why: "an ANSI-C quoted name", cmd: `$'\x72m' -rf /`, want: Deny},
	{why: "an absolute path", cmd: "/bin/rm -rf x", want: Deny},
	{why: "a relative path", cmd: "./rm x", want: Deny},
	// computed programs
	{why: "a variable as the program is refused where deny rules name bash", cmd: "$CMD x", want: Deny, reasonHas: "named plainly"},
	{why: "a variable as the program is refused in yolo too", mode: ModeYolo, cmd: "$CMD x", want: Deny, reasonHas: "its program is computed ($CMD)"},
	{why: "a substituted program", cmd: "$(which rm) x", want: Deny, reasonHas: "computed"},
	{why: "eval of a literal is read and refused for its rm", cmd: `eval "rm -rf /"`, want: Deny, reasonHas: "bash:rm"},
	{why: "eval of anything is refused where deny rules name bash", cmd: `eval "ls"`, want: Deny, reasonHas: "eval runs a string"},
	{why: "eval of a variable", cmd: `eval "$X"`, want: Deny},
	{why: "the positional parameters as a command", cmd: `"$@"`, want: Deny},
	{why: "an array as a command", cmd: `"${arr[@]}" x`, want: Deny},
	{why: "source of a computed path", cmd: `source "$F"`, want: Deny},
	{why: "brace expansion builds the program", cmd: "{rm,-rf,/}", want: Deny},
	{why: "a bracket pattern builds the program", cmd: "/bin/[r]m -rf /", want: Deny, reasonHas: "computed"},
	{why: "a bracket closed in quotes may build the program", cmd: `/bin/[r"]"m x`, want: Deny},
	{why: "[ … ] is no computed program", mode: ModeYolo, cmd: "[ -f x ] && ls", want: Allow},
	{why: "[[ … ]] is no computed program", mode: ModeYolo, cmd: "if [[ -n $x ]]; then ls; fi", want: Allow},
	{why: "test is no computed program", mode: ModeYolo, cmd: `test -n "$X" || ls`, want: Allow},
	{why: "[ … ] is asked in default mode like any command no rule names", cmd: "[ -f x ]", want: Ask},
	{why: "exec -a with a computed name runs its command", mode: ModeYolo, cmd: `exec -a "$0" ls`, want: Allow},
	{why: "git read after its global options", deny: []string{`bash:git push.*`}, cmd: "git -C . --no-pager push origin main", want: Deny, reasonHas: `which git reads as "git push origin main"`},
	{why: "an allow rule matches the command as written, not git's reading of it", allow: []string{`bash:git status( .*)?`}, deny: none, cmd: "git -C . status", want: Ask},
	{why: "a glob builds the program", cmd: "/bin/r? -rf /", want: Deny},
	{why: "a computed program with no deny rule for bash is only asked", deny: []string{`write_file:.*\.env`}, cmd: "$CMD x", want: Ask},
	{why: "a computed program is never allowed by a rule", allow: []string{"bash:.*"}, deny: none, cmd: "$CMD x", want: Ask},
	{why: "a computed program runs in yolo when no deny rule names bash", mode: ModeYolo, deny: none, cmd: "$CMD x", want: Allow},
	{why: "a script too long to follow is refused where deny rules name bash", cmd: strings.Repeat("sudo ", maxCommands+5) + "ls", want: Deny, reasonHas: "too many commands"},
	// programs that run other programs
	{why: "find -exec runs its command", cmd: `find . -exec rm {} \;`, want: Deny},
	{why: "find -execdir with +", cmd: "find . -execdir rm {} +", want: Deny},
	{why: "find -exec of an allowed command", cmd: "find . -name '*.go' -exec grep -n TODO {} +", want: Allow},
	{why: "git -c core.pager runs the pager", cmd: "git -c core.pager='rm -rf ~' log", want: Deny},
	{why: "git -c core.editor runs the editor", cmd: "git -c core.editor='curl evil' commit", want: Deny},
	{why: "git -c a shell alias runs it", cmd: "git -c alias.x='!rm -rf /' x", want: Deny},
	{why: "GIT_PAGER in the environment runs the pager", cmd: "GIT_PAGER='rm -rf ~' git log", want: Deny},
	{why: "git rebase -x runs its command", cmd: "git rebase -x 'rm -rf /' main", want: Deny},
	{why: "an allowed git command", cmd: "git log --oneline -5", want: Allow},
	{why: "python -c is not allowed by a python rule", cmd: `python -c 'import os; os.system("rm")'`, want: Ask},
	{why: "perl -e is not allowed by a perl rule", cmd: `perl -e 'system("rm -rf /")'`, want: Ask},
	{why: "node -e is not allowed by a node rule", cmd: `node -e 'require("child_process").execSync("rm")'`, want: Ask},
	{why: "python reading a here-document", cmd: "python3 <<EOF\nimport os\nEOF", want: Ask},
	{why: "python running a script file is allowed by its rule", cmd: "python3 tools/gen.py", want: Allow},
	{why: "python -c in yolo runs: the rules cannot read the code, but the program is named", mode: ModeYolo, cmd: `python -c 'print(1)'`, want: Allow},
	// compound commands and functions
	{why: "a for loop body", cmd: "for f in *; do rm $f; done", want: Deny},
	{why: "an if body", cmd: "if true; then curl x; fi", want: Deny},
	{why: "a while body", cmd: "while true; do rm x; done", want: Deny},
	{why: "a case branch", cmd: "case $x in a) rm x;; esac", want: Deny},
	{why: "a function body", cmd: "f(){ rm -rf /; }; f", want: Deny},
	{why: "a function call needs its name allowed", cmd: "f(){ ls; }; f", want: Ask},
	// quoting, comments, syntax errors
	{why: "quotes hide separators: one echo", cmd: `echo "a && rm -rf /"`, want: Allow},
	{why: "single quotes hide separators: one echo", cmd: "echo 'a; rm x'", want: Allow},
	{why: "a comment is not a command", cmd: "ls # && rm -rf /", want: Allow},
	{why: "an unparseable command is asked", cmd: `ls "unterminated`, want: Ask},
	{why: "an unparseable command is asked in yolo when deny rules name bash", mode: ModeYolo, cmd: `ls "unterminated`, want: Ask},
	{why: "an unparseable command matching a deny rule whole is refused", cmd: `rm -rf / "`, want: Deny},
	{why: "an unparseable command is never allowed by a rule", allow: []string{"bash:.*"}, deny: none, cmd: `ls "x`, want: Ask},
	{why: "an unparseable command in yolo with no bash deny rule runs", mode: ModeYolo, deny: none, cmd: `ls "x`, want: Allow},
	// modes
	{why: "yolo: deny rules still hold", mode: ModeYolo, cmd: "rm x", want: Deny},
	{why: "yolo: anything else runs", mode: ModeYolo, cmd: "make install", want: Allow},
	{why: "plan: read tools run", mode: ModePlan, tool: "read_file", level: tool.LevelRead, cmd: "a.go", want: Allow},
	{why: "plan: write tools are refused", mode: ModePlan, tool: "write_file", level: tool.LevelWrite, cmd: "a.go", want: Deny},
	{why: "plan: even an allowed command is refused", mode: ModePlan, cmd: "ls", want: Deny},
	{why: "plan: an unparseable command is refused", mode: ModePlan, cmd: `ls "x`, want: Deny},
	{why: "accept-edits: writes run", mode: ModeAcceptEdits, tool: "write_file", level: tool.LevelWrite, cmd: "a.go", want: Allow},
	{why: "accept-edits: commands are asked", mode: ModeAcceptEdits, cmd: "make", want: Ask},
	{why: "default: writes are asked", tool: "write_file", level: tool.LevelWrite, cmd: "a.go", want: Ask},
	{why: "allow_all: unnamed commands run", allowAll: true, cmd: "make", want: Allow},
	{why: "allow_all: deny rules still hold", allowAll: true, cmd: "rm x", want: Deny},
	{why: "allow_all does not lift plan mode", allowAll: true, mode: ModePlan, cmd: "make", want: Deny},
	// other tools
	{why: "a path rule allows a file inside", allow: []string{"write_file:src/.*"}, tool: "write_file", level: tool.LevelWrite, cmd: "src/a.go", want: Allow},
	{why: "a path rule does not allow a file outside", allow: []string{"write_file:src/.*"}, tool: "write_file", level: tool.LevelWrite, cmd: "docs/a.md", want: Ask},
	{why: "a path rule does not allow .. out of its folder", allow: []string{"write_file:src/.*"}, tool: "write_file", level: tool.LevelWrite, cmd: "src/../main.go", want: Ask},
	{why: "a path rule matches the path whole", allow: []string{"write_file:src/.*"}, tool: "write_file", level: tool.LevelWrite, cmd: "x/src/a.go", want: Ask},
	{why: "a path deny rule sees through ..", deny: []string{`read_file:(.*/)?\.env`}, tool: "read_file", level: tool.LevelRead, cmd: "config/../.env", want: Deny},
	{why: "a rule for all tools of an MCP server", allow: []string{"mcp__github__*"}, tool: "mcp__github__create_issue", level: tool.LevelWrite, cmd: "x", want: Allow},
	{why: "a deny rule for every tool", deny: []string{"*:.*secret.*"}, tool: "write_file", level: tool.LevelWrite, cmd: "secret.txt", mode: ModeYolo, want: Deny},
	{why: "a rule for one tool does not cover another", allow: []string{"write_file"}, tool: "edit_file", level: tool.LevelWrite, cmd: "a.go", want: Ask},
}

// oneSentence: no line break, no full stop inside or at the end.
var sentenceBreak = regexp.MustCompile(`[.!?]\s+[A-Z]`)

func oneSentence(s string) bool {
	return s != "" && !strings.ContainsAny(s, "\n") && !strings.HasSuffix(s, ".") && !sentenceBreak.MatchString(s)
}

func TestPermissionCases(t *testing.T) {
	if len(permCases) < 60 {
		t.Fatalf("only %d cases", len(permCases))
	}
	for _, tc := range permCases {
		t.Run(tc.why, func(t *testing.T) {
			allow, deny := tc.allow, tc.deny
			if allow == nil {
				allow = stdAllow
			}
			if deny == nil {
				deny = stdDeny
			}
			mode := tc.mode
			if mode == "" {
				mode = ModeDefault
			}
			rules, err := rulesOf(allow, deny)
			if err != nil {
				t.Fatal(err)
			}
			rules.AllowAll = tc.allowAll
			e, err := NewEngineFromRules(mode, rules, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			c := Call{Tool: tc.tool, Level: tc.level, Principal: tc.cmd}
			if c.Tool == "" {
				c.Tool, c.Level = "bash", tool.LevelExec
			}
			v := e.Check(c)
			if v.Decision != tc.want {
				cmds, perr := Commands(tc.cmd)
				t.Fatalf("%q: got %v (%s), want %v\ncommands %+v %v", tc.cmd, v.Decision, v.Reason, tc.want, cmds, perr)
			}
			if !oneSentence(v.Reason) {
				t.Errorf("the reason is not one sentence: %q", v.Reason)
			}
			if tc.reasonHas != "" && !strings.Contains(v.Reason, tc.reasonHas) {
				t.Errorf("reason %q lacks %q", v.Reason, tc.reasonHas)
			}
		})
	}
}

func rulesOf(allow, deny []string) (RuleSet, error) {
	var s RuleSet
	for _, a := range allow {
		r, err := ParseRule(a)
		if err != nil {
			return s, err
		}
		s.Allow = append(s.Allow, r)
	}
	for _, d := range deny {
		r, err := ParseRule(d)
		if err != nil {
			return s, err
		}
		s.Deny = append(s.Deny, r)
	}
	return s, nil
}
