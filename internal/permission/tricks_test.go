package permission

import (
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// A row per table entry of tricks.go and runners.go: under `bash:mv .*` in yolo mode,
// each trick is refused by the parser (the exec supervisor is tested on its own, in
// execguard_test.go); the harmless forms next to them still run.
func TestTrickTables(t *testing.T) {
	e, err := NewEngine(ModeYolo, nil, []string{`bash:mv .*`})
	if err != nil {
		t.Fatal(err)
	}
	refused := []string{
		// prompt strings and variables that run code
		`PS4='$(mv a b)'; set -x; :`,
		"PS4='`mv a b`' bash -xc :",
		`export PS4='$(mv a b)'`,
		`PROMPT_COMMAND='mv a b' bash -i`,
		`BASH_ENV=./e bash -c :`,
		`ENV=./e sh -i`,
		`BASH_CMDS[x]=/bin/mv; x a b`,
		`BASH_ALIASES[x]=mv`,
		`SHELLOPTS=xtrace bash -c :`,
		`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!mv a b' git x`,
		`GIT_CONFIG_PARAMETERS="'alias.x=!mv a b'" git x`,
		`env 'BASH_FUNC_x%%=() { mv a b; }' bash -c x`,
		// ${x@P}, subscripts that run code, builtins that evaluate names
		`x='$(mv a b)'; : "${x@P}"`,
		`x='a[$(mv a b)]'; : $((x))`,
		`let 'a[$(mv a b)]=1'`,
		`declare 'a[$(mv a b)]=1'`,
		`printf -v 'a[$(mv a b)]' x`,
		`printf -v "$name" x`,
		`read 'a[$(mv a b)]' <<< x`,
		`test -v 'a[$(mv a b)]'`,
		`mapfile -C 'mv a b' -c 1 arr <<< x`,
		`mapfile -C "$cb" arr`,
		`compgen -C 'mv a b' x`,
		`compgen -W '$(mv a b)' x`,
		`trap 'mv a b' EXIT`,
		`trap "$cmd" EXIT`,
		`hash -p /bin/mv x; x a b`,
		`enable -f ./x.so x`,
		`shopt -s expand_aliases; alias x=mv`,
		// shells reading descriptors and rc files
		`echo 'mv a b' | . /dev/stdin`,
		`source /dev/stdin <<< 'mv a b'`,
		`bash /dev/stdin <<< 'mv a b'`,
		`sh /dev/fd/0 < s`,
		`bash --rcfile ./e -i`,
		`rbash -c 'mv a b'`,
		// programs that run other programs or data as commands
		`echo a b | xargs mv`,
		`printf 'a\0b\0' | xargs -0 mv`,
		`find . -name a -exec mv -t d {} +`,
		`parallel mv ::: a b`,
		`awk 'BEGIN { system("mv a b") }'`,
		`awk 'BEGIN { print "x" | "mv a b" }'`,
		`awk 'BEGIN { "mv a b" | getline }'`,
		`awk '{ system($0) }'`,
		`awk -f prog.awk`,
		`echo x | sed 'e mv a b'`,
		`echo 'mv a b' | sed e`,
		`echo x | sed 's/x/mv a b/e'`,
		`echo x | sed 's/.*/&/e'`,
		`sed -f s.sed x`,
		`tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='mv a b' x`,
		`tar -xf t.tar --to-command='mv a b'`,
		`tar -I 'mv a b' -cf t.tar x`,
		`printf 'all:\n\tmv a b\n' | make -f -`,
		`make -f /dev/stdin`,
		`make --eval='x:=$(shell mv a b)'`,
		`vim -c '!mv a b' -c q`,
		`vim -es < cmds`,
		`ex -c '!mv a b'`,
		`printf '!mv a b\nq\n' | ed -s`,
		`gdb -batch -ex 'shell mv a b'`,
		`sqlite3 :memory: '.shell mv a b'`,
		`echo 'exec mv a b' | tclsh`,
		`zip -q t.zip x -T -TT 'mv a b #'`,
		`ssh -o ProxyCommand='mv a b' x`,
		`ssh -F ./conf x`,
		`script -qc 'mv a b' /dev/null`,
		`setpriv --reuid=0 mv a b`,
		`prlimit --nofile=1024 mv a b`,
		`setarch x86_64 mv a b`,
		`unshare -U mv a b`,
		`nsenter -t 1 -m mv a b`,
		`start-stop-daemon --start --exec /bin/mv -- a b`,
		`runuser -u root -- mv a b`,
		`sg root -c 'mv a b'`,
		`strace -o /dev/null mv a b`,
		`fakeroot mv a b`,
		`valgrind -q mv a b`,
		`run-parts ./p`,
		`su - root -c 'mv a b'`,
		`mv a "b` + "\n" + `c"`,
	}
	for _, cmd := range refused {
		v := e.Check(Call{Tool: "bash", Level: tool.LevelExec, Principal: cmd})
		if v.Decision != Deny {
			cmds, _ := Commands(cmd)
			t.Errorf("%q: %v (%s)\n%+v", cmd, v.Decision, v.Reason, cmds)
		}
	}
	runs := []string{
		`awk '{ print $1 }' f`,
		`awk -F, '{ s += $2 } END { print s }' f`,
		`sed -n '1,5p' f`,
		`sed -i 's/a/b/g' f`,
		`sed -e 's/x/y/' -e '/^$/d' f`,
		`PS4='+ '`,
		`trap - EXIT`,
		`trap 'echo done' EXIT`,
		`tar -czf out.tgz src`,
		`make test`,
		`make -f build.mk all`,
		`printf '%s\n' x`,
		`read -r line < f`,
		`let i=i+1`,
		`declare -a arr=(1 2 3)`,
		`vim -c 'set ft=go' f`,
		`ssh -o BatchMode=yes host true`,
		`xargs -I{} echo {} < f`,
		`bash ./build.sh`,
		`source ./env.sh`,
	}
	for _, cmd := range runs {
		if v := e.Check(Call{Tool: "bash", Level: tool.LevelExec, Principal: cmd}); v.Decision != Allow {
			t.Errorf("%q: %v (%s)", cmd, v.Decision, v.Reason)
		}
	}
}

// Every row of the wrapper and opaque-program tables, read from the tables
// themselves: a wrapper's command is checked, an opaque program is refused where a
// deny rule names bash.
func TestEveryTableRow(t *testing.T) {
	e, err := NewEngine(ModeYolo, nil, []string{`bash:mv .*`})
	if err != nil {
		t.Fatal(err)
	}
	check := func(cmd string) {
		t.Helper()
		if v := e.Check(Call{Tool: "bash", Level: tool.LevelExec, Principal: cmd}); v.Decision != Deny {
			t.Errorf("%q: %v (%s)", cmd, v.Decision, v.Reason)
		}
	}
	for name, w := range moreWrappers {
		check(name + strings.Repeat(" operand", w.skip) + " mv a b")
	}
	for name := range opaquePrograms {
		check(name + " x")
	}
	for name := range stringVars {
		check(name + "='$(mv a b)' true")
	}
	for name := range builtinRunners {
		switch name {
		case "trap":
			check(`trap 'mv a b' EXIT`)
		case "hash":
			check("hash -p /bin/mv x")
		case "enable":
			check("enable -f x.so x")
		case "mapfile", "readarray":
			check(name + ` -C 'mv a b' arr`)
		case "compgen", "complete":
			check(name + ` -C 'mv a b' x`)
		default:
			check(name + " x")
		}
	}
	for name := range nameArgs {
		check(name + ` 'a[$(mv a b)]'`)
	}
	check(`LESSOPEN='|mv a b %s' less x`)
}
