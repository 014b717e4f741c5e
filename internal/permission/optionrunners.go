package permission

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Programs with options or commands of their own that run a command: tar, make,
// vim, sqlite3, zip and ssh.

// tarRunners are tar's options whose value is a command it runs.
var tarRunners = []string{"--checkpoint-action", "--to-command", "--use-compress-program", "-I", "--rsh-command", "--info-script", "--new-volume-script", "-F"}

// unwrapTar reads the commands tar's options run.
func unwrapTar(w *walker, i int, args []word, _ []*syntax.Redirect, depth int) {
	for k := 1; k < len(args); k++ {
		a := args[k]
		if !a.lit {
			continue
		}
		for _, o := range tarRunners {
			var v word
			switch {
			case strings.HasPrefix(a.val, o+"="):
				v = litWord(strings.TrimPrefix(a.val, o+"="))
			case a.val == o && k+1 < len(args):
				v = args[k+1]
				k++
			case len(o) == 2 && strings.HasPrefix(a.val, o) && len(a.val) > 2:
				v = litWord(a.val[2:])
			default:
				continue
			}
			if !v.lit {
				w.opaque(i, fmt.Sprintf("tar %s runs a computed command", o))
				return
			}
			cmd := v.val
			if o == "--checkpoint-action" {
				name, val, _ := strings.Cut(cmd, "=")
				if name != "exec" {
					continue
				}
				cmd = val
			}
			w.nested(cmd, depth, w.cmds[i].Text)
		}
	}
}

// unwrapMake: make runs the recipes of its makefile, the project's own (the exec
// supervisor checks what they run); one read from the input or given with --eval
// cannot be checked.
func unwrapMake(w *walker, i int, args []word, _ []*syntax.Redirect, _ int) {
	opts, _ := options(args, 1, optSpec{short: "fCIjlLoW", long: []string{"file", "makefile", "directory", "include-dir", "jobs", "load-average", "old-file", "what-if", "eval"}})
	if len(given(opts, "--eval", "-E")) > 0 {
		w.opaque(i, "make --eval runs what it is given, $(shell …) included")
		return
	}
	for _, o := range given(opts, "-f", "--file", "--makefile") {
		if !o.val.lit || o.val.val == "-" || strings.HasPrefix(o.val.val, "/dev/") || strings.HasPrefix(o.val.val, "/proc/") {
			w.opaque(i, "make runs the recipes of a makefile read from its input or a descriptor")
			return
		}
	}
}

// unwrapVim reads the ! commands of vim's -c and + arguments; a script from a file or
// the input cannot be checked.
func unwrapVim(w *walker, i int, args []word, _ []*syntax.Redirect, depth int) {
	for k := 1; k < len(args); k++ {
		a := args[k]
		var c word
		switch {
		case a.lit && (a.val == "-c" || a.val == "--cmd") && k+1 < len(args):
			c = args[k+1]
			k++
		case a.lit && strings.HasPrefix(a.val, "+") && len(a.val) > 1:
			c = litWord(a.val[1:])
		case a.lit && (a.val == "-S" || a.val == "-s" || a.val == "-es" || a.val == "-Es" || a.val == "-e"):
			w.opaque(i, "vim runs Ex commands from a file or its input, ! commands included")
			return
		default:
			continue
		}
		if !c.lit {
			w.opaque(i, "vim runs a computed Ex command")
			return
		}
		v := strings.TrimSpace(c.val)
		if strings.HasPrefix(v, "!") || strings.HasPrefix(v, "silent !") || strings.HasPrefix(v, "call system") || strings.HasPrefix(v, "exe") || strings.HasPrefix(v, "py") || strings.HasPrefix(v, "lua") || strings.HasPrefix(v, "so") || strings.HasPrefix(v, "r !") || strings.HasPrefix(v, "w !") {
			cmd := strings.TrimLeft(strings.TrimPrefix(v, "silent"), " !")
			if strings.HasPrefix(v, "!") || strings.HasPrefix(v, "silent !") {
				w.nested(cmd, depth, w.cmds[i].Text)
				continue
			}
			w.opaque(i, "vim runs an Ex command that runs programs")
			return
		}
	}
}

// unwrapSqlite: the .shell and .system dot-commands of sqlite3 run a command.
func unwrapSqlite(w *walker, i int, args []word, redirs []*syntax.Redirect, depth int) {
	for _, a := range args[1:] {
		if !a.lit {
			continue
		}
		for _, line := range strings.Split(a.val, "\n") {
			l := strings.TrimSpace(line)
			for _, dot := range []string{".shell", ".system"} {
				if strings.HasPrefix(l, dot+" ") {
					w.nested(strings.TrimPrefix(l, dot+" "), depth, w.cmds[i].Text)
				}
			}
			if strings.HasPrefix(l, ".once") || strings.HasPrefix(l, ".output") || strings.HasPrefix(l, ".import") {
				if strings.Contains(l, "|") {
					w.opaque(i, "sqlite3 pipes into a command")
					return
				}
			}
		}
	}
	for _, a := range args[1:] {
		if a.lit && (a.val == "-init" || strings.HasPrefix(a.val, "-cmd")) {
			w.opaque(i, "sqlite3 runs the dot-commands of a file or option, which can run programs")
			return
		}
	}
	if len(args) <= 2 && len(redirs) > 0 {
		w.opaque(i, "sqlite3 reads dot-commands from its input, which can run programs")
	}
}

// unwrapZip: zip -TT CMD (--unzip-command) runs CMD to test the archive.
func unwrapZip(w *walker, i int, args []word, _ []*syntax.Redirect, depth int) {
	for k := 1; k < len(args); k++ {
		a := args[k]
		if a.lit && (a.val == "-TT" || a.val == "--unzip-command") && k+1 < len(args) {
			w.shellString(i, args[k+1:k+2], depth)
			k++
		} else if a.lit && strings.HasPrefix(a.val, "--unzip-command=") {
			w.shellString(i, []word{litWord(strings.TrimPrefix(a.val, "--unzip-command="))}, depth)
		}
	}
}

// sshRunners are ssh options that run a local command.
var sshRunners = []string{"proxycommand", "localcommand", "knownhostscommand", "permitlocalcommand", "match"}

// unwrapSSH reads the local commands of ssh's -o options; a config file given with -F
// cannot be checked.
func unwrapSSH(w *walker, i int, args []word, _ []*syntax.Redirect, depth int) {
	for k := 1; k < len(args); k++ {
		a := args[k]
		var o word
		switch {
		case a.lit && a.val == "-o" && k+1 < len(args):
			o = args[k+1]
			k++
		case a.lit && strings.HasPrefix(a.val, "-o") && len(a.val) > 2:
			o = litWord(a.val[2:])
		case a.lit && (a.val == "-F" || strings.HasPrefix(a.val, "-F")):
			w.opaque(i, "ssh reads a configuration file, whose ProxyCommand runs locally")
			return
		default:
			continue
		}
		if !o.lit {
			w.opaque(i, "ssh is given a computed option")
			return
		}
		key, val, ok := strings.Cut(o.val, "=")
		if !ok {
			key, val, _ = strings.Cut(o.val, " ")
		}
		for _, r := range sshRunners {
			if strings.EqualFold(strings.TrimSpace(key), r) {
				if r == "permitlocalcommand" || r == "match" {
					continue
				}
				w.nested(strings.TrimSpace(val), depth, w.cmds[i].Text)
			}
		}
	}
}
