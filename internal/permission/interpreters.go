package permission

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// unwrapShell follows the script a shell runs: a -c string, a here-document or here-
// string on its input. A script file is the shell's business, and the command is
// judged as written; a script the rules cannot read makes the command opaque.
func unwrapShell(w *walker, i int, args []word, redirs []*syntax.Redirect, depth int) {
	cmdMode, stdin := false, false
	k := 1
scan:
	for ; k < len(args); k++ {
		a := args[k]
		if !a.lit {
			break
		}
		v := a.val
		switch {
		case v == "--" || v == "-":
			k++
			stdin = stdin || v == "-"
			break scan
		case strings.HasPrefix(v, "--"):
			if v == "--rcfile" || v == "--init-file" {
				w.opaque(i, fmt.Sprintf("%s runs the commands of the file given to %s", args[0].val, v))
				return
			}
		case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
			if strings.ContainsAny(v[1:], "oO") {
				k++ // -o option
			}
			cmdMode = cmdMode || v[0] == '-' && strings.Contains(v[1:], "c")
			stdin = stdin || strings.Contains(v[1:], "s")
		default:
			break scan
		}
	}
	if cmdMode {
		if k < len(args) {
			w.shellString(i, args[k:k+1], depth)
		}
		return
	}
	if k < len(args) && !stdin {
		w.scriptFile(i, args[0].val, args[k])
		return
	}
	for _, r := range redirs {
		var body *syntax.Word
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			body = r.Hdoc
		case syntax.WordHdoc:
			body = r.Word
		case syntax.RdrIn:
			w.scriptFile(i, args[0].val, w.word(r.Word))
			return
		default:
			continue
		}
		if body == nil {
			continue
		}
		x := w.word(body)
		if !x.lit {
			w.opaque(i, "it reads a script built by expansion from a here-document")
			return
		}
		w.nested(x.val, depth, w.cmds[i].Text)
		return
	}
	w.opaque(i, "it reads its script from its input")
}

// codeFlags are the options by which an interpreter runs code given on the command line.
var codeFlags = map[string][]string{
	"python":    {"c"},
	"perl":      {"e", "E"},
	"node":      {"e", "p", "-eval", "-print"},
	"ruby":      {"e"},
	"php":       {"r"},
	"lua":       {"e"},
	"Rscript":   {"e"},
	"osascript": {"e"},
}

// interpreterFamily names the interpreter family of a program name: python3.12 →
// python, nodejs → node.
func interpreterFamily(name string) string {
	if name == "nodejs" {
		return "node"
	}
	base := strings.TrimRight(name, "0123456789.")
	if _, ok := codeFlags[base]; ok {
		return base
	}
	return ""
}

func isInterpreter(name string) bool { return interpreterFamily(name) != "" }

// interpreter marks an interpreter that runs code inline or from its input.
func interpreter(w *walker, i int, args []word) {
	flags := codeFlags[interpreterFamily(args[0].val)]
	for k := 1; k < len(args); k++ {
		a := args[k]
		if !a.lit {
			w.runsCode(i, fmt.Sprintf("its script is computed (%s)", clip(a.src)))
			return
		}
		v := a.val
		if v == "-" {
			break
		}
		if !strings.HasPrefix(v, "-") {
			return // a script file
		}
		if v == "-m" || v == "-W" || v == "-X" {
			if v == "-m" {
				return // a module
			}
			k++
			continue
		}
		for _, f := range flags {
			if f[0] == '-' && v == "-"+f || f[0] != '-' && !strings.HasPrefix(v, "--") && strings.Contains(v[1:], f) {
				w.runsCode(i, fmt.Sprintf("%s runs code given on its command line", args[0].val))
				return
			}
		}
	}
	w.runsCode(i, fmt.Sprintf("%s reads the code it runs from its input", args[0].val))
}

func (w *walker) runsCode(i int, why string) {
	w.cmds[i].RunsCode = true
	if !w.cmds[i].Opaque {
		w.cmds[i].Why = why
	}
}
