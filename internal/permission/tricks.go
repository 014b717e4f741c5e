package permission

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// The ways bash and the programs around it run a string the parser would otherwise
// take for data. Each is a row of a table: the builtins, variables and programs, with
// what they run; a test per row (tricks_test.go). No parser knows them all: the exec
// supervisor checks what really runs (see ExecGuard). These rows decide what to ask.

// stringVars are variables whose value bash (or a program it starts) runs or expands
// as code, and why; a value that is a plain string with no expansion in it is harmless
// for the prompt strings.
var stringVars = map[string]string{
	"PS0":                   "PS0 is expanded (its command substitutions run) before each command of an interactive shell",
	"PS1":                   "PS1 is expanded (its command substitutions run) at each prompt",
	"PS2":                   "PS2 is expanded (its command substitutions run) at each continued prompt",
	"PS4":                   "PS4 is expanded (its command substitutions run) at each line that set -x traces",
	"PROMPT_COMMAND":        "PROMPT_COMMAND runs before each prompt",
	"BASH_ENV":              "BASH_ENV names a file of commands every bash script runs first",
	"ENV":                   "ENV names a file of commands an interactive sh runs first",
	"BASH_CMDS":             "BASH_CMDS makes a name run another program",
	"BASH_ALIASES":          "BASH_ALIASES makes a name run another command",
	"GIT_CONFIG_PARAMETERS": "git reads its configuration (aliases, pagers) from the environment",
	"GIT_CONFIG_COUNT":      "git reads its configuration (aliases, pagers) from the environment",
	"GIT_CONFIG":            "git reads its configuration (aliases, pagers) from the file it names",
	"GIT_CONFIG_GLOBAL":     "git reads its configuration (aliases, pagers) from the file it names",
	"GIT_CONFIG_SYSTEM":     "git reads its configuration (aliases, pagers) from the file it names",
	"SHELLOPTS":             "SHELLOPTS sets shell options (xtrace, which expands PS4) in every bash it starts",
}

// promptVars are the stringVars that are only expanded: a value without $, ` or \
// expands to itself.
var promptVars = map[string]bool{"PS0": true, "PS1": true, "PS2": true, "PS4": true}

// nestedVars are the stringVars whose value is a command line: a literal one is read
// as a script.
var nestedVars = map[string]bool{"PROMPT_COMMAND": true}

// stringVar checks an assignment to name (a literal value v, or a computed one).
func (w *walker) stringVar(name string, v word, depth int) {
	why, ok := stringVars[name]
	if !ok && strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_") {
		why, ok = stringVars["GIT_CONFIG_COUNT"], true
	}
	if !ok {
		return
	}
	text := name + "=" + v.text()
	switch {
	case promptVars[name] && v.lit && !strings.ContainsAny(v.val, "$`\\"):
		return
	case nestedVars[name] && v.lit:
		if strings.TrimSpace(v.val) != "" {
			w.nested(v.val, depth, text)
		}
		return
	}
	w.add(SimpleCommand{Text: text, Opaque: true, Why: why})
}

// codeSubscript is data that bash runs when it evaluates it as a number or a name: an
// array subscript holding a command substitution ('a[$(cmd)]').
var codeSubscript = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("\\[[^\\]]*(\\$\\(|`)") })

// holdsCodeSubscript reports a literal word that holds such a subscript.
func holdsCodeSubscript(x word) bool { return x.lit && codeSubscript().MatchString(x.val) }

// promptExpansion finds ${x@P} in a word: the value of x is expanded as a prompt, its
// command substitutions run.
func promptExpansion(x *syntax.Word) bool {
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Exp != nil && pe.Exp.Op == syntax.OtherParamOps &&
			pe.Exp.Word != nil && pe.Exp.Word.Lit() == "P" {
			found = true
		}
		return !found
	})
	return found
}

// nameArgs are the builtins whose operands (or the values of some options) are names
// that bash evaluates, subscripts included: a name computed, or holding a
// command substitution in its subscript, runs code.
var nameArgs = map[string]optSpec{
	"printf":    {short: "v"},
	"read":      {short: "adinNptu"},
	"mapfile":   {short: "dnOsuCc"},
	"readarray": {short: "dnOsuCc"},
	"let":       {},
	"test":      {},
	"[":         {},
	"unset":     {},
	"declare":   {},
	"typeset":   {},
	"local":     {},
	"export":    {},
	"readonly":  {},
	"wait":      {short: "p"},
	"compgen":   {short: "AGWCFXPSo"},
	"complete":  {short: "AGWCFXPSo"},
}

// builtinRunners are the builtins that run a string they are given.
var builtinRunners map[string]unwrapper

func init() {
	builtinRunners = map[string]unwrapper{
		"trap":      unwrapTrap,
		"hash":      optionOpaque("-p", "hash -p makes a name run another program"),
		"enable":    optionOpaque("-f", "enable -f loads a builtin from a shared library"),
		"alias":     always("an alias makes a name run another command"),
		"mapfile":   unwrapCallback("-C", "mapfile -C runs its callback for lines of its input"),
		"readarray": unwrapCallback("-C", "readarray -C runs its callback for lines of its input"),
		"compgen":   unwrapCompgen,
		"complete":  unwrapCompgen,
		"fc":        always("fc runs commands from the history"),
	}
}

// checkNames marks a builtin of nameArgs whose names run code.
func (w *walker) checkNames(i int, args []word) {
	spec, ok := nameArgs[args[0].val]
	if !ok {
		return
	}
	for _, a := range args[1:] {
		if holdsCodeSubscript(a) {
			w.opaque(i, fmt.Sprintf("%s evaluates %s, whose subscript runs a command", args[0].val, clip(a.val)))
			return
		}
	}
	if args[0].val == "printf" {
		for _, o := range given(optsOf(args, spec), "-v") {
			if !o.val.lit {
				w.opaque(i, fmt.Sprintf("printf -v assigns to a computed name (%s), which can run code", clip(o.val.src)))
				return
			}
		}
	}
	if args[0].val == "let" {
		for _, a := range args[1:] {
			if !a.lit || strings.ContainsAny(a.val, "`") || strings.Contains(a.val, "$(") {
				w.opaque(i, "let evaluates a string that can run code")
				return
			}
		}
	}
}

func optsOf(args []word, spec optSpec) []opt {
	opts, _ := options(args, 1, spec)
	return opts
}

func always(why string) unwrapper {
	return func(w *walker, i int, _ []word, _ []*syntax.Redirect, _ int) { w.opaque(i, why) }
}

// optionOpaque marks the command opaque when it is given option name.
func optionOpaque(name, why string) unwrapper {
	return func(w *walker, i int, args []word, _ []*syntax.Redirect, _ int) {
		for _, a := range args[1:] {
			if !a.lit {
				w.opaque(i, fmt.Sprintf("%s is given a computed argument (%s)", args[0].val, clip(a.src)))
				return
			}
			if a.val == name || strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.Contains(a.val[1:], name[1:]) {
				w.opaque(i, why)
				return
			}
		}
	}
}

// unwrapTrap reads the action of trap ACTION SIGNAL…: it runs as a command line.
func unwrapTrap(w *walker, i int, args []word, _ []*syntax.Redirect, depth int) {
	_, k := options(args, 1, optSpec{})
	if k >= len(args) || k+1 >= len(args) && args[k].lit && args[k].val != "" && !strings.ContainsAny(args[k].val, " ;|&$`") {
		return // trap -l, trap -p, trap SIG (reset)
	}
	w.shellString(i, args[k:k+1], depth)
}

// unwrapCallback reads a callback given with option name as a command line.
func unwrapCallback(name, why string) unwrapper {
	return func(w *walker, i int, args []word, _ []*syntax.Redirect, depth int) {
		w.checkNames(i, args)
		opts, _ := options(args, 1, optSpec{short: "dnOsuCc"})
		for _, o := range given(opts, name) {
			if !o.val.lit {
				w.opaque(i, why+", which is computed")
				return
			}
			w.nested(o.val.val, depth, w.cmds[i].Text)
		}
	}
}

// unwrapCompgen: -C runs a command, -F a function, -W's word list is expanded (its
// command substitutions run).
func unwrapCompgen(w *walker, i int, args []word, _ []*syntax.Redirect, depth int) {
	opts, _ := options(args, 1, optSpec{short: "AGWCFXPSo"})
	for _, o := range given(opts, "-C") {
		if !o.val.lit {
			w.opaque(i, args[0].val+" -C runs a computed command")
			return
		}
		w.nested(o.val.val, depth, w.cmds[i].Text)
	}
	for _, o := range given(opts, "-W", "-F") {
		if !o.val.lit || strings.ContainsAny(o.val.val, "$`") {
			w.opaque(i, args[0].val+" expands its word list, running the command substitutions in it")
			return
		}
	}
}
