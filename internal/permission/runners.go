package permission

import (
	"fmt"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Programs that run another program or run data as commands, as rows: the wrappers
// whose command follows their options, and the programs whose scripts, options or
// input hold commands. Each row has a test (tricks_test.go).

// moreWrappers run the command that follows their options (and skip operands).
var moreWrappers = map[string]struct {
	spec optSpec
	skip int
}{
	"setpriv":          {optSpec{long: []string{"reuid", "regid", "groups", "inh-caps", "ambient-caps", "bounding-set", "securebits", "pdeathsig", "selinux-label", "apparmor-profile", "landlock-access", "landlock-rule", "seccomp-filter", "ptracer"}}, 0},
	"prlimit":          {optSpec{short: "p", long: []string{"pid", "output"}}, 0},
	"setarch":          {optSpec{long: []string{"uname-2.6"}}, 1},
	"linux32":          {optSpec{}, 0},
	"linux64":          {optSpec{}, 0},
	"unshare":          {optSpec{short: "SGR", long: []string{"setuid", "setgid", "root", "wd", "map-user", "map-group", "map-users", "map-groups", "propagation", "setgroups"}}, 0},
	"nsenter":          {optSpec{short: "tSGrwZ", long: []string{"target", "setuid", "setgid", "root", "wd", "env"}}, 0},
	"strace":           {optSpec{short: "abeEIoOpPsSuUX", long: []string{"output", "user", "signal", "trace", "status", "env"}}, 0},
	"ltrace":           {optSpec{short: "aAeEfilLnopsuwxX", long: []string{"output", "user"}}, 0},
	"fakeroot":         {optSpec{short: "isl", long: []string{"lib", "faked"}}, 0},
	"valgrind":         {optSpec{}, 0},
	"catchsegv":        {optSpec{}, 0},
	"cgexec":           {optSpec{short: "g"}, 0},
	"numactl":          {optSpec{short: "CNmpPi", long: []string{"physcpubind", "cpunodebind", "membind", "preferred", "interleave"}}, 0},
	"firejail":         {optSpec{}, 0},
	"proot":            {optSpec{short: "rbwq", long: []string{"rootfs", "bind", "cwd", "qemu"}}, 0},
	"capsh":            {optSpec{}, 0},
	"faketime":         {optSpec{short: "f"}, 1},
	"torsocks":         {optSpec{}, 0},
	"proxychains":      {optSpec{short: "f"}, 0},
	"systemd-run":      {optSpec{short: "upEM", long: []string{"unit", "property", "description", "slice", "uid", "gid", "working-directory", "setenv", "machine"}}, 0},
	"run-one":          {optSpec{}, 0},
	"chpst":            {optSpec{short: "ugUenlmdosSP"}, 0},
	"daemonize":        {optSpec{short: "acelpuE"}, 0},
	"sg":               {optSpec{}, 1},
	"newgrp":           {optSpec{}, 1},
	"xvfb-run":         {optSpec{short: "nsfe", long: []string{"server-num", "server-args", "auth-file", "error-file"}}, 0},
	"dbus-run-session": {optSpec{long: []string{"config-file", "dbus-daemon"}}, 0},
}

// opaquePrograms run commands the rules cannot read, whatever their arguments.
var opaquePrograms = map[string]string{
	"run-parts": "run-parts runs every program of a folder",
	"at":        "at runs the commands of its input later",
	"batch":     "batch runs the commands of its input later",
	"crontab":   "crontab installs commands to run later",
	"expect":    "expect runs a Tcl script, which can run programs",
	"tclsh":     "tclsh runs a Tcl script, which can run programs",
	"wish":      "wish runs a Tcl script, which can run programs",
	"ed":        "ed runs the ! commands of its script",
	"red":       "ed runs the ! commands of its script",
	"ex":        "ex runs the ! commands of its script",
	"gdb":       "gdb runs shell commands of its script",
	"lldb":      "lldb runs shell commands of its script",
}

// registerRunners adds the rows above to wrappers (called by its init, which makes
// the map).
func registerRunners() {
	for name, w := range moreWrappers {
		wrappers[name] = after(w.spec, w.skip)
	}
	for name, why := range opaquePrograms {
		wrappers[name] = always(why)
	}
	wrappers["rbash"] = unwrapShell
	wrappers["sg"] = unwrapSg
	wrappers["runuser"] = unwrapRunuser
	wrappers["script"] = unwrapScript
	wrappers["start-stop-daemon"] = unwrapStartStop
	wrappers["awk"] = unwrapAwk
	for _, n := range []string{"gawk", "mawk", "nawk", "busybox-awk"} {
		wrappers[n] = unwrapAwk
	}
	wrappers["sed"] = unwrapSed
	wrappers["gsed"] = unwrapSed
	wrappers["tar"] = unwrapTar
	wrappers["make"] = unwrapMake
	wrappers["gmake"] = unwrapMake
	for _, n := range []string{"vi", "vim", "nvim", "view", "vim.tiny", "vim.basic"} {
		wrappers[n] = unwrapVim
	}
	wrappers["sqlite3"] = unwrapSqlite
	wrappers["zip"] = unwrapZip
	wrappers["ssh"] = unwrapSSH
	wrappers["scp"] = unwrapSSH
	wrappers["sftp"] = unwrapSSH
	wrappers["parallel"] = unwrapParallel
	wrappers["xargs"] = unwrapXargs
	wrappers["less"] = unwrapLess
}

// operands stands for what a program like xargs appends to the command it runs.
const operands = "<operands>"

// unwrapXargs: xargs runs its command with operands read from its input appended
// (unless -I gives them a place), so the command is `rm <operands>`.
func unwrapXargs(w *walker, i int, args []word, redirs []*syntax.Redirect, depth int) {
	opts, k := options(args, 1, optSpec{short: "adEILnPs", long: []string{"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}})
	rest := args[k:]
	if len(rest) == 0 {
		rest = []word{litWord("echo")} // xargs alone echoes
	}
	if len(given(opts, "-I", "-i", "--replace")) == 0 {
		rest = append(append([]word(nil), rest...), word{val: operands, src: operands})
	}
	w.run(rest, redirs, depth)
}

// unwrapParallel: GNU parallel runs its command with the arguments after ::: (or
// read from its input) appended.
func unwrapParallel(w *walker, i int, args []word, redirs []*syntax.Redirect, depth int) {
	_, k := options(args, 1, optSpec{short: "jJSaeEdIkl", long: []string{"jobs", "sshlogin", "arg-file", "delimiter", "colsep", "joblog", "results", "tmpdir", "workdir", "env", "profile", "timeout", "retries", "halt"}})
	cmd := args[k:]
	for j, a := range cmd {
		if a.lit && (a.val == ":::" || a.val == "::::" || a.val == ":::+") {
			cmd = cmd[:j]
			break
		}
	}
	if len(cmd) == 0 {
		w.opaque(i, "parallel runs the command lines of its input")
		return
	}
	w.shellString(i, append(append([]word(nil), cmd...), litWord(operands)), depth)
}

// unwrapScript: script -c CMD runs CMD with sh -c.
func unwrapScript(w *walker, i int, args []word, _ []*syntax.Redirect, depth int) {
	opts, _ := options(args, 1, optSpec{short: "cEIOBTtm", long: []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format", "output-limit"}})
	for _, c := range given(opts, "-c", "--command") {
		w.shellString(i, []word{c.val}, depth)
	}
}

// unwrapStartStop: start-stop-daemon --start --exec PROG [-- args] runs PROG.
func unwrapStartStop(w *walker, i int, args []word, redirs []*syntax.Redirect, depth int) {
	var prog *word
	var rest []word
	for k := 1; k < len(args); k++ {
		a := args[k]
		switch {
		case a.lit && (a.val == "-x" || a.val == "--exec" || a.val == "-a" || a.val == "--startas") && k+1 < len(args):
			p := args[k+1]
			prog = &p
			k++
		case a.lit && (strings.HasPrefix(a.val, "--exec=") || strings.HasPrefix(a.val, "--startas=")):
			_, v, _ := strings.Cut(a.val, "=")
			p := litWord(v)
			prog = &p
		case a.lit && a.val == "--":
			rest = args[k+1:]
			k = len(args)
		}
	}
	if prog != nil {
		w.run(append([]word{*prog}, rest...), redirs, depth)
	}
}

// awkRuns finds what an awk program runs: system("…"), "…" | getline, print | "…".
var awkRuns = regexp.MustCompile(`system\s*\(|\|\s*getline|\|&|print[f]?[^;}\n]*\|`)

// awkStrings are the string literals of an awk program.
var awkStrings = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// unwrapAwk reads the program of awk for the commands it runs: the literal commands
// of system() and of its pipes are read as scripts; any other (built from data) makes
// the command opaque, as does a program read from a file.
func unwrapAwk(w *walker, i int, args []word, _ []*syntax.Redirect, depth int) {
	opts, k := options(args, 1, optSpec{short: "fvFWE", long: []string{"file", "assign", "field-separator", "include", "load", "source"}})
	if len(given(opts, "-f", "--file", "-E", "--exec", "-i", "--include", "-l", "--load")) > 0 {
		w.opaque(i, "awk runs a program from a file, which can run commands")
		return
	}
	var progs []word
	for _, o := range given(opts, "--source") {
		progs = append(progs, o.val)
	}
	if len(progs) == 0 {
		if k >= len(args) {
			return
		}
		progs = append(progs, args[k])
	}
	for _, p := range progs {
		if !p.lit {
			w.opaque(i, fmt.Sprintf("its awk program is computed (%s)", clip(p.src)))
			return
		}
		if !awkRuns.MatchString(p.val) {
			continue
		}
		lits := awkStrings.FindAllStringSubmatch(p.val, -1)
		if len(lits) == 0 || !awkCommandsLiteral(p.val) {
			w.opaque(i, "its awk program runs a command it builds from data")
			return
		}
		for _, l := range lits {
			w.nested(strings.ReplaceAll(l[1], `\"`, `"`), depth, w.cmds[i].Text)
		}
	}
}

// awkCommandsLiteral reports an awk program whose system() calls and pipes are all
// given a string literal.
var awkLiteralCall = regexp.MustCompile(`(system\s*\(\s*"|\|\s*"|"\s*\|\s*getline|"[^"]*"\s*\|&)`)

func awkCommandsLiteral(prog string) bool {
	return len(awkLiteralCall.FindAllString(prog, -1)) >= len(awkRuns.FindAllString(prog, -1))
}

// unwrapSed reads a sed script for its e commands and s///e flags, which run a
// command: a literal command is read as a script; one built from the input makes the
// command opaque, as does a script read from a file.
func unwrapSed(w *walker, i int, args []word, _ []*syntax.Redirect, depth int) {
	opts, k := options(args, 1, optSpec{short: "efl", long: []string{"expression", "file", "line-length"}})
	if len(given(opts, "-f", "--file")) > 0 {
		w.opaque(i, "sed runs a script from a file, whose e commands run programs")
		return
	}
	var scripts []word
	for _, o := range given(opts, "-e", "--expression") {
		scripts = append(scripts, o.val)
	}
	if len(scripts) == 0 && k < len(args) {
		scripts = append(scripts, args[k])
	}
	for _, s := range scripts {
		if !s.lit {
			w.opaque(i, fmt.Sprintf("its sed script is computed (%s)", clip(s.src)))
			return
		}
		cmds, fromData := sedExecs(s.val)
		if fromData {
			w.opaque(i, "its sed script runs the text it edits as a command (e)")
			return
		}
		for _, c := range cmds {
			w.nested(c, depth, w.cmds[i].Text)
		}
	}
}

// sedExecs scans a sed script for the commands it runs: `e command` runs command,
// a bare `e` or an s///e runs text built from the input (fromData).
func sedExecs(script string) (cmds []string, fromData bool) {
	s := script
	for len(s) > 0 {
		s = strings.TrimLeft(s, " \t\n;")
		// An address: numbers, $, /regex/, \cregexc, ranges, steps, and !.
		for len(s) > 0 {
			c := s[0]
			switch {
			case c >= '0' && c <= '9' || c == '$' || c == ',' || c == '~' || c == '+' || c == '!' || c == ' ':
				s = s[1:]
				continue
			case c == '/' || c == '\\' && len(s) > 1:
				d := c
				if c == '\\' {
					d, s = s[1], s[1:]
				}
				_, s = sedDelimited(s[1:], d)
				for len(s) > 0 && (s[0] == 'I' || s[0] == 'M') {
					s = s[1:]
				}
				continue
			}
			break
		}
		if len(s) == 0 {
			return cmds, fromData
		}
		c := s[0]
		s = s[1:]
		switch c {
		case 'e':
			line, rest, _ := strings.Cut(s, "\n")
			s = rest
			if cmd := strings.TrimSpace(strings.SplitN(line, ";", 2)[0]); cmd != "" && !strings.ContainsAny(line, ";") {
				cmds = append(cmds, strings.TrimSpace(line))
			} else if cmd == "" {
				fromData = true
			} else {
				cmds = append(cmds, strings.TrimSpace(line))
			}
		case 's', 'y':
			if len(s) == 0 {
				return cmds, fromData
			}
			d := s[0]
			var repl string
			_, s = sedDelimited(s[1:], d)
			repl, s = sedDelimited(s, d)
			flags := s
			if j := strings.IndexAny(flags, ";\n}"); j >= 0 {
				flags, s = flags[:j], flags[j:]
			} else {
				s = ""
			}
			if c == 's' && strings.ContainsRune(flags, 'e') {
				if strings.ContainsAny(repl, "&\\") {
					fromData = true
				} else {
					cmds = append(cmds, repl) // the line becomes the replacement, then runs
				}
			}
		case 'a', 'i', 'c', 'r', 'R', 'w', 'W', ':', 'b', 't', 'T', 'q', 'Q', 'l', 'L':
			_, s, _ = strings.Cut(s, "\n") // the rest of the line is its argument
		}
	}
	return cmds, fromData
}

// sedDelimited reads up to the delimiter d (escapes kept) and returns the text and
// the rest after it.
func sedDelimited(s string, d byte) (string, string) {
	var b strings.Builder
	for j := 0; j < len(s); j++ {
		switch {
		case s[j] == '\\' && j+1 < len(s):
			b.WriteByte(s[j])
			b.WriteByte(s[j+1])
			j++
		case s[j] == d:
			return b.String(), s[j+1:]
		default:
			b.WriteByte(s[j])
		}
	}
	return b.String(), ""
}

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

// unwrapLess: LESSOPEN is handled with the variables; less itself runs commands only
// from its keys (!), which a command without a terminal does not read.
func unwrapLess(*walker, int, []word, []*syntax.Redirect, int) {}

// unwrapSg: sg GROUP [-c] COMMAND gives COMMAND to sh -c.
func unwrapSg(w *walker, i int, args []word, _ []*syntax.Redirect, depth int) {
	k := 1
	if k < len(args) && args[k].lit && args[k].val == "-" {
		k++
	}
	k++ // the group
	if k < len(args) && args[k].lit && args[k].val == "-c" {
		k++
	}
	if k < len(args) {
		w.shellString(i, args[k:], depth)
	}
}

// unwrapRunuser: runuser -u USER [--] COMMAND runs COMMAND; runuser [-] USER -c
// COMMAND is su's form.
func unwrapRunuser(w *walker, i int, args []word, redirs []*syntax.Redirect, depth int) {
	opts, k := options(args, 1, optSpec{short: "cgGsuw", long: []string{"command", "group", "supp-group", "shell", "session-command", "user", "whitelist-environment"}})
	if len(given(opts, "-u", "--user")) > 0 && len(given(opts, "-c", "--command")) == 0 {
		w.run(args[k:], redirs, depth)
		return
	}
	unwrapSu(w, i, args, redirs, depth)
}
