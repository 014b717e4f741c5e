package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/testenv"
	"github.com/gantry-dev/gantry/internal/tool"
)

// trick is one way to run mv that a static reading of the command may miss. needs
// names the programs it uses beyond bash and coreutils.
type trick struct {
	family, cmd string
	needs       []string
}

// tricks: several of each family. Each one really moves a to b in plain bash (the
// test checks it first); under `bash:mv .*` in yolo mode none may.
var tricks = []trick{
	{"prompt strings", `PS4='$(mv a b)'; set -x; :`, nil},
	{"prompt strings", "PS4='`mv a b`'; set -x; true", nil},
	{"prompt strings", `x='$(mv a b)'; : "${x@P}"`, nil},
	{"prompt strings", `export PS4='$(mv a b)'; set -x; :`, nil},
	{"arithmetic", `x='a[$(mv a b)]'; : $((x))`, nil},
	{"arithmetic", `x='a[$(mv a b)]'; (( x )); true`, nil},
	{"arithmetic", `let 'a[$(mv a b)]=1'`, nil},
	{"arithmetic", `declare -i n; n='a[$(mv a b)]'`, nil},
	{"names", `printf -v 'a[$(mv a b)]' x`, nil},
	{"names", `read 'a[$(mv a b)]' <<< x`, nil},
	{"names", `declare 'a[$(mv a b)]=1'`, nil},
	{"names", `a=(); test -v 'a[$(mv a b)]'; true`, nil},
	{"callbacks", `mapfile -C 'mv a b #' -c 1 arr <<< x`, nil},
	{"callbacks", `compgen -W '$(mv a b)' x >/dev/null; true`, nil},
	{"callbacks", `trap 'mv a b' EXIT`, nil},
	{"callbacks", `trap 'mv a b' DEBUG; :`, nil},
	{"names for programs", `hash -p /bin/mv x; x a b`, nil},
	{"names for programs", `BASH_CMDS[x]=/bin/mv; x a b`, nil},
	{"names for programs", "shopt -s expand_aliases; alias x=mv\nx a b", nil},
	{"names for programs", "shopt -s expand_aliases; BASH_ALIASES[x]=mv\nx a b", nil},
	{"names for programs", `p=m; "${p}v" a b`, nil},
	{"names for programs", `eval "m""v a b"`, nil},
	{"shell environment", `env 'BASH_FUNC_x%%=() { mv a b; }' bash -c x`, nil},
	{"shell environment", `echo 'mv a b' > e; BASH_ENV=./e bash -c :`, nil},
	{"shell environment", `echo 'mv a b' > e; bash --rcfile ./e -ic : 2>/dev/null`, nil},
	{"shell environment", `bash -o xtrace -c 'PS4="\$(mv a b)"; :' 2>/dev/null`, nil},
	{"shells reading files", `echo 'mv a b' | . /dev/stdin`, nil},
	{"shells reading files", `source /dev/stdin <<< 'mv a b'`, nil},
	{"shells reading files", `. <(echo mv a b)`, nil},
	{"shells reading files", `bash /dev/stdin <<< 'mv a b'`, nil},
	{"shells reading files", `echo 'mv a b' > s; sh < s`, nil},
	{"shells reading files", `echo 'mv a b' > s; bash s`, nil},
	{"operands", `echo a b | xargs mv`, nil},
	{"operands", `printf 'a\0b\0' | xargs -0 mv`, nil},
	{"operands", `mkdir d; find . -maxdepth 1 -name a -exec mv -t d {} +`, nil},
	{"operands", `find . -maxdepth 1 -name a -exec mv {} b \;`, nil},
	{"awk", `awk 'BEGIN { system("mv a b") }'`, []string{"awk"}},
	{"awk", `awk 'BEGIN { print "" | "mv a b" }'`, []string{"awk"}},
	{"awk", `awk 'BEGIN { "mv a b" | getline }'`, []string{"awk"}},
	{"awk", `echo mv a b | awk '{ system($0) }'`, []string{"awk"}},
	{"sed", `echo x | sed 'e mv a b'`, []string{"sed"}},
	{"sed", `echo 'mv a b' | sed e`, []string{"sed"}},
	{"sed", `echo x | sed 's/x/mv a b/e'`, []string{"sed"}},
	{"tar", `echo > e; tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='mv a b' e`, []string{"tar"}},
	{"tar", `echo > e; tar -cf t.tar e; tar -xf t.tar --to-command='mv a b'`, []string{"tar"}},
	{"tar", `echo > e; tar -I 'sh -c "mv a b; cat"' -cf t.tar e`, []string{"tar"}},
	{"make", `printf 'all:\n\tmv a b\n' | make -s -f -`, []string{"make"}},
	{"make", `printf 'all:\n\tmv a b\n' > M; make -s -f M`, []string{"make"}},
	{"make", `make -s --eval='x:=$(shell mv a b)' -f /dev/null 2>/dev/null; true`, []string{"make"}},
	{"git config", `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!mv a b' git x`, []string{"git"}},
	{"git config", `GIT_CONFIG_PARAMETERS="'alias.x=!mv a b'" git x`, []string{"git"}},
	{"git config", `git -c alias.x='!mv a b' x`, []string{"git"}},
	{"wrappers", `setpriv mv a b`, []string{"setpriv"}},
	{"wrappers", `prlimit --nofile=1024 mv a b`, []string{"prlimit"}},
	{"wrappers", `setarch $(uname -m) mv a b`, []string{"setarch"}},
	{"wrappers", `unshare mv a b`, []string{"unshare"}},
	{"wrappers", `nsenter --target $$ --preserve-credentials mv a b 2>/dev/null || nsenter -t 1 -m mv a b`, []string{"nsenter"}},
	{"wrappers", `start-stop-daemon --start --exec /usr/bin/mv -- "$PWD/a" "$PWD/b"`, []string{"start-stop-daemon"}},
	{"wrappers", `runuser -u $(id -un) -- mv a b`, []string{"runuser"}},
	{"wrappers", `sg $(id -gn) -c 'mv a b'`, []string{"sg"}},
	{"wrappers", `strace -f -o /dev/null mv a b`, []string{"strace"}},
	{"wrappers", `fakeroot mv a b`, []string{"fakeroot"}},
	{"wrappers", `script -qc 'mv a b' /dev/null`, []string{"script"}},
	{"wrappers", `mkdir p; printf '#!/bin/sh\nmv a b\n' > p/x; chmod +x p/x; run-parts p`, []string{"run-parts"}},
	{"wrappers", `su $(id -un) -c 'mv a b'`, []string{"su"}},
	{"the program itself", `/lib64/ld-linux-x86-64.so.2 /bin/mv a b`, []string{"/lib64/ld-linux-x86-64.so.2"}},
	{"the program itself", `cp /bin/mv m; ./m a b`, nil},
	{"the program itself", `ln -s /bin/mv m; ./m a b`, nil},
	{"the program itself", `printf '#!/bin/mv\n' > a; chmod +x a; ./a b`, nil},
	{"the program itself", `mv a "b` + "\n" + `c"`, nil},
	{"interpreters", `/usr/bin/python3 -c 'import os; os.system("mv a b")'`, []string{"/usr/bin/python3"}},
	{"interpreters", `perl -e 'system("mv", "a", "b")'`, []string{"perl"}},
	{"interpreters", `echo 'exec mv a b' | tclsh`, []string{"tclsh"}},
	{"editors and tools", `printf '!mv a b\nq\n' | ed -s`, []string{"ed"}},
	{"editors and tools", `vim -es -c '!mv a b' -c 'q!' </dev/null`, []string{"vim"}},
	{"editors and tools", `gdb -batch -ex 'shell mv a b' 2>/dev/null`, []string{"gdb"}},
	{"editors and tools", `sqlite3 :memory: '.shell mv a b'`, []string{"sqlite3"}},
	{"editors and tools", `echo > e; zip -q t.zip e -T -TT 'mv a b #'`, []string{"zip"}},
	{"editors and tools", `ssh -o ProxyCommand='mv a b' -o BatchMode=yes x 2>/dev/null; true`, []string{"ssh"}},
}

// Every trick really moves a in plain bash, and none does under `bash:mv .*` in yolo
// mode: each is refused by the parser, or its mv by the exec supervisor, and either is
// reported in the call's result.
func TestNoTrickRunsADeniedProgram(t *testing.T) {
	o := guarded(t, `bash:mv .*`)
	gate, err := permission.NewEngine(permission.ModeYolo, nil, []string{`bash:mv .*`})
	if err != nil {
		t.Fatal(err)
	}
	bashTool := toolNamed(t, o, "bash")
	var checked, byParser, bySupervisor int
	for _, tr := range tricks {
		missing := ""
		for _, n := range tr.needs {
			if !testenv.Has(t, n) {
				missing = n
			}
		}
		if missing != "" {
			t.Logf("left out (no %s here): %s", missing, tr.cmd)
			continue
		}
		plain := t.TempDir()
		touch(t, plain, "a")
		cmd := exec.Command("bash", "-c", tr.cmd)
		cmd.Dir = plain
		cmd.Stdin = nil
		_ = cmd.Run()
		if exists(plain, "a") {
			t.Errorf("%s: %q does not move a in plain bash; fix the trick", tr.family, tr.cmd)
			continue
		}
		checked++
		dir := t.TempDir()
		touch(t, dir, "a")
		v := gate.Check(permission.Call{Tool: "bash", Level: tool.LevelExec, Principal: tr.cmd})
		if v.Decision == permission.Deny {
			byParser++
			if !strings.Contains(v.Reason, "mv") && !strings.Contains(v.Reason, "cannot be checked") {
				t.Errorf("%q: refused for an unclear reason: %s", tr.cmd, v.Reason)
			}
			continue
		}
		res := call(t, t.Context(), bashTool, tool.Env{Cwd: dir}, map[string]any{"command": tr.cmd, "timeout": 30})
		if !exists(dir, "a") {
			t.Errorf("BYPASS (%s): %q moved a; result %q", tr.family, tr.cmd, res.Text)
			continue
		}
		if !strings.Contains(res.Text, "[blocked by deny rule bash:mv .*: mv ") {
			t.Errorf("%q: nothing moved, but the result does not say what was blocked: %q", tr.cmd, res.Text)
			continue
		}
		bySupervisor++
	}
	t.Logf("%d tricks checked: %d refused by the parser, %d blocked by the exec supervisor, %d bypasses",
		checked, byParser, bySupervisor, checked-byParser-bySupervisor)
	if checked < 60 {
		t.Errorf("only %d tricks could be checked here", checked)
	}
}

func touch(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(dir, name string) bool {
	_, err := os.Lstat(filepath.Join(dir, name))
	return err == nil
}

// The exec supervisor alone, with the parser out of the way: every trick that gets as
// far as running mv is stopped there.
func TestTheSupervisorAloneStopsEveryTrick(t *testing.T) {
	o := guarded(t, `bash:mv .*`)
	bashTool := toolNamed(t, o, "bash")
	checked, blocked := 0, 0
	for _, tr := range tricks {
		missing := false
		for _, n := range tr.needs {
			if !testenv.Has(t, n) {
				missing = true
			}
		}
		if missing {
			continue
		}
		dir := t.TempDir()
		touch(t, dir, "a")
		res := call(t, t.Context(), bashTool, tool.Env{Cwd: dir}, map[string]any{"command": tr.cmd, "timeout": 30})
		checked++
		if !exists(dir, "a") {
			t.Errorf("BYPASS of the supervisor (%s): %q moved a; result %q", tr.family, tr.cmd, res.Text)
			continue
		}
		if strings.Contains(res.Text, "[blocked by deny rule bash:mv .*: mv ") {
			blocked++
		} else {
			t.Errorf("%q: nothing moved, but the result does not say what was blocked: %q", tr.cmd, res.Text)
		}
	}
	t.Logf("%d tricks run with no parser: %d blocked by the exec supervisor", checked, blocked)
}
