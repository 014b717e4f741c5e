package permission

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// tableRow is a command the table reads as another, and the rule that must stop it.
type tableRow struct{ command, reading string }

// tableRows makes one row per entry of the table: each global option (before the
// subcommand, and after it for a program that reads them anywhere), each spelling of
// a subcommand read as each other one, each dashed program.
func tableRows() []tableRow {
	var rows []tableRow
	progs := make([]string, 0, len(multiPrograms))
	for p := range multiPrograms {
		progs = append(progs, p)
	}
	sort.Strings(progs)
	for _, name := range progs {
		p := multiPrograms[name]
		sub := "zap"
		for _, o := range p.valued {
			rows = append(rows, tableRow{fmt.Sprintf("%s %s v %s x", name, o, sub), name + " " + sub + " x"})
			if strings.HasPrefix(o, "--") {
				rows = append(rows, tableRow{fmt.Sprintf("%s %s=v %s x", name, o, sub), name + " " + sub + " x"})
			} else {
				rows = append(rows, tableRow{fmt.Sprintf("%s %sv %s x", name, o, sub), name + " " + sub + " x"})
			}
			if p.anywhere {
				rows = append(rows, tableRow{fmt.Sprintf("%s %s %s v x", name, sub, o), name + " " + sub + " x"})
			}
		}
		for _, f := range p.flags {
			rows = append(rows, tableRow{fmt.Sprintf("%s %s %s x", name, f, sub), name + " " + sub + " x"})
		}
		for _, g := range p.same {
			for _, a := range g {
				for _, b := range g {
					if a != b {
						rows = append(rows, tableRow{name + " " + a + " x", name + " " + b + " x"})
					}
				}
			}
		}
		if p.own != nil {
			rows = append(rows, tableRow{name + " zap x", name + " run zap x"})
		}
		if p.dashed {
			rows = append(rows, tableRow{name + "-" + sub + " x", name + " " + sub + " x"})
		}
	}
	for d, to := range dashedPrograms {
		rows = append(rows, tableRow{d + " zap x", strings.Join(to, " ") + " zap x"})
	}
	return rows
}

// Each entry of the table makes the parser and the supervisor's judge stop the
// command under a rule that names only its other reading, and nothing else.
func TestMultiProgramTable(t *testing.T) {
	rows := tableRows()
	if len(rows) < 200 {
		t.Fatalf("only %d rows", len(rows))
	}
	for _, row := range rows {
		rule := "bash:" + regexp.QuoteMeta(row.reading) + "( .*)?"
		e, err := NewEngine(ModeYolo, nil, []string{rule})
		if err != nil {
			t.Fatal(err)
		}
		if v := e.Check(Call{Tool: "bash", Principal: row.command}); v.Decision != Deny {
			t.Errorf("parser: %q under %s: %v (%s)", row.command, rule, v.Decision, v.Reason)
		}
		argv := strings.Fields(row.command)
		if r := judgeArgv(e.ExecGuard(), argv, "/nonexistent/"+argv[0]); !r.Refused() {
			t.Errorf("judge: %q under %s: not refused", argv, rule)
		}
	}
	// A command of the same programs with another subcommand is not stopped.
	for _, name := range []string{"git", "npm", "docker", "kubectl", "gh", "pnpm", "yarn", "bun"} {
		rule := "bash:" + name + " zap( .*)?"
		e, err := NewEngine(ModeYolo, nil, []string{rule})
		if err != nil {
			t.Fatal(err)
		}
		cmd := name + " --verbose status zap"
		if slices.Contains([]string{"pnpm", "yarn", "bun"}, name) {
			cmd = name + " install zap"
		}
		if v := e.Check(Call{Tool: "bash", Principal: cmd}); v.Decision == Deny {
			t.Errorf("parser: %q stopped under %s: %s", cmd, rule, v.Reason)
		}
		if r := judgeArgv(e.ExecGuard(), strings.Fields(cmd), "/nonexistent/"+name); r.Refused() {
			t.Errorf("judge: %q stopped under %s", cmd, rule)
		}
	}
}

// The readings of one command, as the parser gives them to the rules.
func TestOtherReadings(t *testing.T) {
	for cmd, want := range map[string][]string{
		"git -C . --no-pager push origin main": {"git push origin main", "git send-pack origin main", "git http-push origin main"},
		"git -c alias.x=push x":                {"git x", "git push", "git send-pack", "git http-push"},
		"git-send-pack x":                      {"git send-pack x", "git push x", "git http-push x"},
		"npm -w a rum deploy":                  {"npm rum deploy", "npm run deploy", "npm run-script deploy", "npm urn deploy"},
		"docker rmi x":                         {"docker image rm x", "docker image remove x"},
		"yarn deploy":                          {"yarn run deploy"},
		"ls -la":                               nil,
		"git status":                           nil,
	} {
		cmds, err := Commands(cmd)
		if err != nil || len(cmds) != 1 {
			t.Fatalf("%q: %v %v", cmd, cmds, err)
		}
		if got := cmds[0].Readings; !slices.Equal(got, want) {
			t.Errorf("%q: readings %q, want %q", cmd, got, want)
		}
	}
}

// An ask rule covers a command by any of its readings, as a deny rule does.
func TestAskRuleSeesReadings(t *testing.T) {
	e, err := NewEngine(ModeYolo, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.AddAskRules([]string{`bash:git push( .*)?`}, "test"); err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]Decision{
		"git --no-pager push origin": Ask,
		"git send-pack x":            Ask,
		"git -C . status":            Allow,
	} {
		if v := e.Check(Call{Tool: "bash", Principal: cmd}); v.Decision != want {
			t.Errorf("%q: %v (%s), want %v", cmd, v.Decision, v.Reason, want)
		}
	}
}
