package permission

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// An unwrapper finds the commands that the command w.cmds[i], given as args, runs in
// its turn. redirs are those of its statement.
type unwrapper func(w *walker, i int, args []word, redirs []*syntax.Redirect, depth int)

// wrappers are the programs that run another command, by name.
var wrappers map[string]unwrapper

func init() {
	wrappers = map[string]unwrapper{
		"env":      unwrapEnv,
		"timeout":  after(optSpec{short: "sk", long: []string{"signal", "kill-after"}}, 1),
		"nice":     after(optSpec{short: "n", long: []string{"adjustment"}}, 0),
		"nohup":    after(optSpec{}, 0),
		"time":     after(optSpec{short: "fo", long: []string{"format", "output"}}, 0),
		"xargs":    after(optSpec{short: "adEILnPs", long: []string{"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}}, 0),
		"sudo":     unwrapSudo,
		"doas":     unwrapSudo,
		"command":  unwrapCommand,
		"exec":     unwrapExec,
		"builtin":  after(optSpec{}, 0),
		"stdbuf":   after(optSpec{short: "ioe", long: []string{"input", "output", "error"}}, 0),
		"ionice":   unlessPID(optSpec{short: "cnpPu", long: []string{"class", "classdata", "pid", "pgid", "uid"}}, 0, "-p", "-P", "-u", "--pid", "--pgid", "--uid"),
		"chrt":     unlessPID(optSpec{short: "TPD", long: []string{"sched-runtime", "sched-period", "sched-deadline"}}, -1, "-p", "--pid"),
		"taskset":  unlessPID(optSpec{}, 1, "-p", "--pid"),
		"setsid":   after(optSpec{}, 0),
		"unbuffer": after(optSpec{}, 0),
		"chroot":   after(optSpec{long: []string{"userspec", "groups"}}, 1),
		"pkexec":   after(optSpec{long: []string{"user"}}, 0),
		"busybox":  after(optSpec{}, 0),
		"flock":    unwrapFlock,
		"watch":    unwrapWatch,
		"su":       unwrapSu,
		"runuser":  unwrapSu,
		"find":     unwrapFind,
		"git":      unwrapGit,
		"eval":     unwrapEval,
		"source":   unwrapSource,
		".":        unwrapSource,
		"alias":    unwrapAlias,
	}
	for _, sh := range []string{"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish"} {
		wrappers[sh] = unwrapShell
	}
	registerRunners()
}

// optSpec says which options of a command take a value.
type optSpec struct {
	short string   // short options that take a value
	long  []string // long options that take a value, unless given as --name=value
}

type opt struct {
	name string // -x or --name
	val  word
	has  bool
}

// options reads the options of args from index from, and returns them with the index
// of the first operand: the first word that is not an option, the one after "--", or
// a word that is not a literal (whatever it expands to is then taken for the operand).
func options(args []word, from int, spec optSpec) ([]opt, int) {
	var opts []opt
	i := from
	for i < len(args) {
		a := args[i]
		if !a.lit || a.val == "-" || !strings.HasPrefix(a.val, "-") {
			return opts, i
		}
		if a.val == "--" {
			return opts, i + 1
		}
		if strings.HasPrefix(a.val, "--") {
			name, v, eq := strings.Cut(a.val[2:], "=")
			o := opt{name: "--" + name}
			if eq {
				o.val, o.has = litWord(v), true
			} else if slices.Contains(spec.long, name) && i+1 < len(args) {
				o.val, o.has = args[i+1], true
				i++
			}
			opts = append(opts, o)
			i++
			continue
		}
		cluster := a.val[1:]
		for j := 0; j < len(cluster); j++ {
			o := opt{name: "-" + cluster[j:j+1]}
			if strings.IndexByte(spec.short, cluster[j]) >= 0 {
				if j+1 < len(cluster) {
					o.val, o.has = litWord(cluster[j+1:]), true
				} else if i+1 < len(args) {
					o.val, o.has = args[i+1], true
					i++
				}
				opts = append(opts, o)
				break
			}
			opts = append(opts, o)
		}
		i++
	}
	return opts, i
}

func litWord(s string) word { return word{val: s, lit: true, src: shellQuote(s)} }

// given returns the options named.
func given(opts []opt, names ...string) []opt {
	var out []opt
	for _, o := range opts {
		if slices.Contains(names, o.name) {
			out = append(out, o)
		}
	}
	return out
}

// after unwraps a command of the shape: wrapper [options] [skip operands] command….
func after(spec optSpec, skip int) unwrapper {
	return func(w *walker, _ int, args []word, redirs []*syntax.Redirect, depth int) {
		_, k := options(args, 1, spec)
		w.run(args[min(k+skip, len(args)):], redirs, depth)
	}
}

// unlessPID is after for commands that act on a running process when given one of
// pidOpts. skip -1 skips one operand only when it is a number (chrt's priority).
func unlessPID(spec optSpec, skip int, pidOpts ...string) unwrapper {
	return func(w *walker, _ int, args []word, redirs []*syntax.Redirect, depth int) {
		opts, k := options(args, 1, spec)
		if len(given(opts, pidOpts...)) > 0 {
			return
		}
		if skip < 0 {
			if k < len(args) && args[k].lit && isNumber(args[k].val) {
				k++
			}
		} else {
			k += skip
		}
		w.run(args[min(k, len(args)):], redirs, depth)
	}
}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func unwrapEnv(w *walker, i int, args []word, redirs []*syntax.Redirect, depth int) {
	opts, k := options(args, 1, optSpec{short: "uCS", long: []string{"unset", "chdir", "split-string"}})
	if split := given(opts, "-S", "--split-string"); len(split) > 0 {
		s := split[0].val
		if !s.lit {
			w.opaque(i, fmt.Sprintf("it runs a computed string (%s)", clip(s.src)))
			return
		}
		w.nested(s.val+" "+joinWords(args[k:]), depth, w.cmds[i].Text)
		return
	}
	for ; k < len(args); k++ {
		if a := args[k]; a.lit && strings.HasPrefix(a.val, "BASH_FUNC_") && strings.Contains(a.val, "=") {
			w.opaque(i, "a BASH_FUNC_ variable defines a function in the bash it starts")
			return
		}
		name, value, ok := assignWord(args[k])
		if !ok {
			break
		}
		w.stringVar(name, value, depth)
		if commandVars[name] {
			w.commandVar(name, value, depth)
		}
	}
	w.run(args[k:], redirs, depth)
}

// assignWord reads a NAME=value word.
func assignWord(x word) (string, word, bool) {
	s := x.val
	if !x.lit {
		s = x.src
	}
	name, v, ok := strings.Cut(s, "=")
	if !ok || !isName(name) {
		return "", word{}, false
	}
	if x.lit {
		return name, litWord(v), true
	}
	return name, word{val: v, src: v}, true
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// opaque marks the command w.cmds[i] as one whose program cannot be known.
func (w *walker) opaque(i int, why string) {
	w.cmds[i].Opaque = true
	w.cmds[i].Why = why
}

func unwrapSudo(w *walker, i int, args []word, redirs []*syntax.Redirect, depth int) {
	opts, k := options(args, 1, optSpec{short: "ugCDprtTU", long: []string{"user", "group", "close-from", "chdir", "prompt", "role", "type", "command-timeout", "other-user", "host"}})
	if len(given(opts, "-e", "--edit", "-l", "--list", "-v", "--validate", "-k", "-K")) > 0 && k == len(args) {
		return
	}
	for k < len(args) {
		if _, _, ok := assignWord(args[k]); !ok {
			break
		}
		k++
	}
	if len(given(opts, "-s", "--shell", "-i", "--login")) > 0 && k < len(args) {
		w.shellString(i, args[k:], depth) // the shell runs the words as a command line
		return
	}
	w.run(args[k:], redirs, depth)
}

// shellString handles words that a program joins and gives to a shell as a script.
func (w *walker) shellString(i int, args []word, depth int) {
	var parts []string
	for _, a := range args {
		if !a.lit {
			w.opaque(i, fmt.Sprintf("it runs a computed string (%s) as a script", clip(a.src)))
			return
		}
		parts = append(parts, a.val)
	}
	w.nested(strings.Join(parts, " "), depth, w.cmds[i].Text)
}

// unwrapExec: exec [-cl] [-a NAME] command… runs the command, and -a gives it NAME as
// its argv[0], by which programs that read it choose what to do (git-push runs as
// git push, busybox runs its applet): the command is read under that name too.
func unwrapExec(w *walker, _ int, args []word, redirs []*syntax.Redirect, depth int) {
	opts, k := options(args, 1, optSpec{short: "a"})
	w.run(args[k:], redirs, depth)
	// A computed name is left to the exec supervisor, which judges argv[0] too.
	if a := given(opts, "-a"); len(a) > 0 && a[len(a)-1].val.lit && k < len(args) {
		w.run(append([]word{a[len(a)-1].val}, args[k+1:]...), redirs, depth)
	}
}

func unwrapCommand(w *walker, _ int, args []word, redirs []*syntax.Redirect, depth int) {
	opts, k := options(args, 1, optSpec{})
	if len(given(opts, "-v", "-V")) > 0 {
		return // command -v only looks the name up
	}
	w.run(args[k:], redirs, depth)
}

func unwrapFlock(w *walker, i int, args []word, redirs []*syntax.Redirect, depth int) {
	opts, k := options(args, 1, optSpec{short: "wEc", long: []string{"timeout", "wait", "conflict-exit-code", "command"}})
	if c := given(opts, "-c", "--command"); len(c) > 0 {
		w.shellString(i, []word{c[0].val}, depth)
		return
	}
	// flock [options] file command… ; a file given as options, then the command.
	if k < len(args) {
		k++
	}
	opts, k = options(args, k, optSpec{short: "wEc", long: []string{"timeout", "wait", "conflict-exit-code", "command"}})
	if c := given(opts, "-c", "--command"); len(c) > 0 {
		w.shellString(i, []word{c[0].val}, depth)
		return
	}
	w.run(args[k:], redirs, depth)
}

func unwrapWatch(w *walker, i int, args []word, redirs []*syntax.Redirect, depth int) {
	opts, k := options(args, 1, optSpec{short: "nq", long: []string{"interval"}})
	if len(given(opts, "-x", "--exec")) > 0 {
		w.run(args[k:], redirs, depth)
		return
	}
	if k < len(args) {
		w.shellString(i, args[k:], depth) // watch gives its words to sh -c
	}
}

func unwrapSu(w *walker, i int, args []word, _ []*syntax.Redirect, depth int) {
	spec := optSpec{short: "cgGsuw", long: []string{"command", "group", "supp-group", "shell", "session-command", "user", "whitelist-environment"}}
	opts, k := options(args, 1, spec)
	if k < len(args) && args[k].lit && args[k].val == "-" { // su - [user]: a login shell
		more, n := options(args, k+1, spec)
		opts, k = append(opts, more...), n
	}
	if k < len(args) && args[k].lit { // su [options] user [options]
		more, _ := options(args, k+1, spec)
		opts = append(opts, more...)
	}
	for _, c := range given(opts, "-c", "--command", "--session-command") {
		w.shellString(i, []word{c.val}, depth)
	}
}

func unwrapFind(w *walker, _ int, args []word, _ []*syntax.Redirect, depth int) {
	for k := 1; k < len(args); k++ {
		switch args[k].val {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := k + 1
			for j < len(args) && !(args[j].lit && (args[j].val == ";" || args[j].val == "+")) {
				j++
			}
			cmd := append([]word(nil), args[k+1:j]...)
			if j < len(args) && args[j].val == "+" {
				// {} + is replaced by as many file names as fit: the operands.
				for n := range cmd {
					if cmd[n].lit && cmd[n].val == "{}" {
						cmd[n] = word{val: operands, src: operands}
					}
				}
			}
			w.run(cmd, nil, depth)
			k = j
		}
	}
}

func unwrapEval(w *walker, i int, args []word, _ []*syntax.Redirect, depth int) {
	w.shellString(i, args[1:], depth)
	if !w.cmds[i].Opaque {
		w.opaque(i, "eval runs a string as a command")
	}
}

func unwrapSource(w *walker, i int, args []word, _ []*syntax.Redirect, _ int) {
	if len(args) > 1 {
		w.scriptFile(i, args[0].val, args[1])
	}
}

// scriptFile judges a shell running the script file f: a computed name or one that
// is a descriptor (/dev/stdin, /dev/fd/N, a process substitution) is opaque; a file
// of the project is the person's own, and the command is judged as written (the exec
// supervisor checks what it runs).
func (w *walker) scriptFile(i int, _ string, f word) {
	switch {
	case !f.lit:
		w.opaque(i, fmt.Sprintf("the script it reads is computed (%s)", clip(f.src)))
	case descriptorPath(f.val):
		w.opaque(i, fmt.Sprintf("it runs the script it reads from %s", f.val))
	}
}

// descriptorPath: a path that reads an open descriptor, not a file.
func descriptorPath(p string) bool {
	return p == "/dev/stdin" || p == "-" || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/") && strings.Contains(p, "/fd/")
}

func unwrapAlias(w *walker, i int, args []word, _ []*syntax.Redirect, depth int) {
	for _, a := range args[1:] {
		_, v, ok := assignWord(a)
		if !ok {
			continue
		}
		if !v.lit {
			w.opaque(i, fmt.Sprintf("it defines an alias for a computed command (%s)", clip(v.src)))
			continue
		}
		w.nested(v.val, depth, w.cmds[i].Text)
	}
}
