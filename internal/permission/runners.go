package permission

import (
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
