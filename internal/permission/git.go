package permission

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// unwrapGit follows the programs git runs for its options: configuration given with
// -c that names a pager, an editor, an ssh command, a shell alias or a filter; and the
// subcommands that run a command (rebase --exec, bisect run, submodule foreach).
func unwrapGit(w *walker, i int, args []word, redirs []*syntax.Redirect, depth int) {
	k := 1
	for k < len(args) {
		a := args[k]
		if !a.lit {
			w.opaque(i, fmt.Sprintf("its git command is computed (%s)", clip(a.src)))
			return
		}
		v := a.val
		switch {
		case v == "-c":
			if k+1 < len(args) {
				w.gitConfig(i, args[k+1], depth)
			}
			k += 2
		case strings.HasPrefix(v, "--config-env="):
			key, _, _ := strings.Cut(strings.TrimPrefix(v, "--config-env="), "=")
			if gitKeyRunsCommand(key) {
				w.opaque(i, fmt.Sprintf("git takes %s from the environment", key))
				return
			}
			k++
		case slices.Contains(multiPrograms["git"].valued, v):
			if v == "--config-env" && k+1 < len(args) {
				key, _, _ := strings.Cut(args[k+1].val, "=")
				if !args[k+1].lit || gitKeyRunsCommand(key) {
					w.opaque(i, fmt.Sprintf("git takes %s from the environment", clip(key)))
					return
				}
			}
			k += 2
		case strings.HasPrefix(v, "-"):
			k++
		default:
			w.gitSubcommand(i, v, args[k+1:], redirs, depth)
			return
		}
	}
}

// gitConfig handles one -c key=value.
func (w *walker) gitConfig(i int, x word, depth int) {
	s := x.val
	if !x.lit {
		s = x.src
	}
	key, val, _ := strings.Cut(s, "=")
	if !gitKeyRunsCommand(key) {
		return
	}
	if !x.lit {
		w.opaque(i, fmt.Sprintf("git runs %s, which is computed (%s)", key, clip(x.src)))
		return
	}
	if strings.HasPrefix(strings.ToLower(key), "alias.") {
		if !strings.HasPrefix(val, "!") {
			return // an alias for git's own commands
		}
		val = val[1:]
	}
	if strings.TrimSpace(val) != "" {
		w.nested(val, depth, w.cmds[i].Text)
	}
}

// gitKeyRunsCommand reports configuration keys whose value git runs as a command.
func gitKeyRunsCommand(key string) bool {
	k := strings.ToLower(key)
	switch k {
	case "core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.hookspath",
		"sequence.editor", "diff.external", "gpg.program", "credential.helper",
		"interactive.difffilter", "core.askpass", "uploadpack.packobjectshook":
		return true
	}
	first, _, _ := strings.Cut(k, ".")
	last := k[strings.LastIndexByte(k, '.')+1:]
	switch first {
	case "alias", "pager":
		return true
	case "filter":
		return last == "clean" || last == "smudge" || last == "process"
	case "merge":
		return last == "driver"
	case "diff", "difftool", "mergetool":
		return last == "textconv" || last == "command" || last == "cmd"
	case "gpg", "credential":
		return last == "program" || last == "helper"
	}
	return false
}

// gitSubcommand follows the subcommands of git that run a command they are given.
func (w *walker) gitSubcommand(i int, sub string, rest []word, redirs []*syntax.Redirect, depth int) {
	switch sub {
	case "rebase":
		opts, _ := options(rest, 0, optSpec{short: "xsX", long: []string{"exec", "strategy", "strategy-option", "onto"}})
		for _, o := range given(opts, "-x", "--exec") {
			w.shellString(i, []word{o.val}, depth)
		}
	case "bisect":
		if len(rest) > 0 && rest[0].val == "run" {
			w.run(rest[1:], redirs, depth)
		}
	case "submodule":
		for k, a := range rest {
			if a.val == "foreach" {
				_, j := options(rest, k+1, optSpec{})
				if j < len(rest) {
					w.shellString(i, rest[j:], depth)
				}
				return
			}
		}
	case "difftool", "mergetool":
		opts, _ := options(rest, 0, optSpec{short: "xt", long: []string{"extcmd", "tool"}})
		for _, o := range given(opts, "-x", "--extcmd") {
			w.shellString(i, []word{o.val}, depth)
		}
	}
}
