package permission

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// SimpleCommand is one command a shell script would run, as the rules see it.
type SimpleCommand struct {
	// Text is the command's words joined by single spaces, with quotes and escapes
	// resolved where a word is a literal ('rm' -rf "x" → rm -rf x) and a word that
	// expands at run time kept as written.
	Text string
	// Name is the program: the first word, by its base name for a path (/bin/rm → rm).
	// It is empty when the program is computed.
	Name string
	// Opaque: the program cannot be known before the command runs (a name built by
	// expansion or substitution, eval, a shell reading a computed string).
	Opaque bool
	// RunsCode: an interpreter running code given inline or on its input (python -c,
	// perl -e, node -e); the rules can read the interpreter, not the code.
	RunsCode bool
	// Why says what hides the program or the code, for Opaque and RunsCode.
	Why string
	// Readings are the command as the program itself reads it, when that differs
	// from Text: a program of subcommands after its global options, under another
	// spelling of the subcommand, in its dashed form (multicmd.go). Deny and ask
	// rules match them too; allow rules match Text only.
	Readings []string
	// Base: this is the command before it read by its program's base name
	// (/opt/x/run.sh a → run.sh a), so that a deny rule naming the program matches
	// however its path is written. An allow rule matching the command as written
	// (its path) covers it: a rule allowing ./scripts/gh.sh allows running it so.
	Base bool
}

// maxCommands bounds the commands followed in one script (sudo sudo sudo … x).
const maxCommands = 2000

// maxDepth bounds the nesting of scripts inside scripts (bash -c 'bash -c …').
const maxDepth = 12

// Commands parses a bash script and returns every simple command it would run, in
// source order: through lists, pipes, subshells, groups, command and process
// substitutions, here-documents, compound commands and function bodies; into the
// scripts given to bash -c, sh -c, eval and the like; and through the commands that
// run another command (env, timeout, sudo, xargs, find -exec, git -c core.pager=…),
// reporting both the wrapper and the wrapped command. A script that cannot be parsed
// is an error.
func Commands(src string) ([]SimpleCommand, error) {
	w := &walker{printer: syntax.NewPrinter(syntax.Minify(true))}
	if err := w.script(src, 0); err != nil {
		return nil, err
	}
	return w.cmds, nil
}

type walker struct {
	cmds    []SimpleCommand
	printer *syntax.Printer
	full    bool // maxCommands reached; an opaque command stands for the rest
}

// word is one word of a command: its value when it is a literal, else its source.
type word struct {
	val     string // the literal value; the source text when !lit
	lit     bool   // no expansion happens when the shell reads it
	pattern bool   // an unquoted glob or brace pattern the shell expands
	src     string // as written
}

// text is the word as it appears in a normalized command.
func (x word) text() string {
	if !x.lit || x.val == x.src {
		return x.src // computed, or written plainly (~, *, {} keep their meaning)
	}
	return shellQuote(x.val)
}

func joinWords(ws []word) string {
	parts := make([]string, len(ws))
	for i, x := range ws {
		parts[i] = x.text()
	}
	return strings.Join(parts, " ")
}

func parse(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// script walks a script given at nesting depth.
func (w *walker) script(src string, depth int) error {
	f, err := parse(src)
	if err != nil {
		return err
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		switch c := st.Cmd.(type) {
		case *syntax.CallExpr:
			w.assigns(c.Assigns, depth)
			if len(c.Args) > 0 {
				w.run(w.words(c.Args), st.Redirs, depth)
				for _, a := range c.Args {
					if promptExpansion(a) {
						w.add(SimpleCommand{Text: w.source(c), Opaque: true, Why: "${…@P} expands a value as a prompt, running its command substitutions"})
						break
					}
				}
			}
		case *syntax.DeclClause:
			w.assigns(c.Args, depth)
			i := w.add(SimpleCommand{Text: w.source(c), Name: c.Variant.Value})
			for _, a := range c.Args {
				if a.Value != nil && a.Name == nil && holdsCodeSubscript(w.word(a.Value)) {
					w.opaque(i, fmt.Sprintf("%s evaluates a name whose subscript runs a command", c.Variant.Value))
				}
			}
		case *syntax.LetClause:
			src := w.source(c)
			i := w.add(SimpleCommand{Text: src, Name: "let"})
			if strings.ContainsAny(src, "'\"") && (strings.Contains(src, "$(") || strings.Contains(src, "`")) {
				w.opaque(i, "let evaluates a string whose subscript runs a command")
			}
		case *syntax.TimeClause:
			if c.Stmt != nil {
				w.add(SimpleCommand{Text: w.source(c), Name: "time"})
			}
		}
		return true
	})
	return nil
}

// nested walks a script that a command runs (bash -c 'src'). One that cannot be
// read is reported as an opaque command standing for it.
func (w *walker) nested(src string, depth int, text string) {
	if depth+1 > maxDepth {
		w.add(SimpleCommand{Text: text, Opaque: true, Why: "it nests scripts too deeply to follow"})
		return
	}
	if err := w.script(src, depth+1); err != nil {
		w.add(SimpleCommand{Text: text, Opaque: true, Why: fmt.Sprintf("the script it runs (%s) cannot be parsed", clip(src))})
	}
}

func (w *walker) add(c SimpleCommand) int {
	w.cmds = append(w.cmds, c)
	return len(w.cmds) - 1
}

func (w *walker) source(n syntax.Node) string {
	var b strings.Builder
	if err := w.printer.Print(&b, n); err != nil {
		return ""
	}
	return strings.TrimSpace(b.String())
}

func (w *walker) words(ws []*syntax.Word) []word {
	out := make([]word, len(ws))
	for i, x := range ws {
		out[i] = w.word(x)
	}
	return out
}

func (w *walker) word(x *syntax.Word) word {
	src := w.source(x)
	val, lit, pattern := literal(x)
	if !lit {
		return word{val: src, src: src}
	}
	return word{val: val, lit: true, pattern: pattern, src: src}
}

// run reports a command given as words, then what it runs in its turn. redirs are
// those of its statement (a shell may read its script from a here-document).
func (w *walker) run(args []word, redirs []*syntax.Redirect, depth int) {
	if len(args) == 0 || w.full {
		return
	}
	if len(w.cmds) >= maxCommands {
		w.full = true
		w.add(SimpleCommand{Text: clip(joinWords(args)), Opaque: true, Why: "it runs too many commands to check"})
		return
	}
	prog := args[0]
	text := joinWords(args)
	if !prog.lit || prog.pattern {
		w.add(SimpleCommand{Text: text, Opaque: true, Why: fmt.Sprintf("its program is computed (%s)", clip(prog.src))})
		return
	}
	name := prog.val
	if strings.Contains(name, "/") && path.Base(name) != "/" {
		w.add(SimpleCommand{Text: text, Name: path.Base(name)})
		rest := append([]word{{val: path.Base(name), lit: true, src: path.Base(name)}}, args[1:]...)
		text = joinWords(rest)
		name = path.Base(name)
	}
	i := w.add(SimpleCommand{Text: text, Name: name, Base: name != prog.val})
	named := append([]word{litWord(name)}, args[1:]...)
	for _, r := range otherReadings(named) {
		w.cmds[i].Readings = append(w.cmds[i].Readings, joinWords(r))
	}
	// The checks below know programs by name: they read the command by its base
	// name (/usr/bin/python3 -c … is python3 -c …).
	w.checkNames(i, named)
	if unwrap, ok := builtinRunners[name]; ok {
		unwrap(w, i, named, redirs, depth)
	} else if unwrap, ok := wrappers[name]; ok {
		unwrap(w, i, named, redirs, depth)
	} else if isInterpreter(name) {
		interpreter(w, i, named)
	} else if sub, ok := strings.CutPrefix(name, "git-"); ok && sub != "" {
		unwrapGit(w, i, append(litWords("git", sub), args[1:]...), redirs, depth) // git-rebase -x …
	}
}

// assigns looks at variable assignments for the ones that name a program to run
// (GIT_PAGER='rm -rf ~' git log).
func (w *walker) assigns(as []*syntax.Assign, depth int) {
	for _, a := range as {
		if a.Name == nil {
			continue
		}
		var v word
		switch {
		case a.Value != nil:
			v = w.word(a.Value)
		case a.Array != nil:
			src := w.source(a.Array)
			v = word{val: src, src: src}
		default:
			v = litWord("")
		}
		if a.Index != nil || a.Array != nil {
			if _, ok := stringVars[a.Name.Value]; ok {
				w.add(SimpleCommand{Text: a.Name.Value + "[…]=" + v.text(), Opaque: true, Why: stringVars[a.Name.Value]})
				continue
			}
		}
		w.stringVar(a.Name.Value, v, depth)
		if holdsCodeSubscript(v) {
			w.add(SimpleCommand{Text: a.Name.Value + "=" + v.text(), Opaque: true,
				Why: fmt.Sprintf("%s is given %s, whose subscript runs a command when bash evaluates it as a number", a.Name.Value, clip(v.val))})
		}
		if a.Value == nil || !commandVars[a.Name.Value] {
			continue
		}
		w.commandVar(a.Name.Value, v, depth)
	}
}

// commandVar handles a variable whose value some program runs as a shell command.
func (w *walker) commandVar(name string, v word, depth int) {
	text := name + "=" + v.text()
	if !v.lit {
		w.add(SimpleCommand{Text: text, Opaque: true, Why: fmt.Sprintf("%s names a program that is computed (%s)", name, clip(v.src))})
		return
	}
	if strings.TrimSpace(v.val) != "" {
		w.nested(v.val, depth, text)
	}
}

// commandVars are environment variables whose value a program runs as a command.
var commandVars = map[string]bool{
	"GIT_PAGER": true, "PAGER": true, "MANPAGER": true, "GIT_EDITOR": true, "EDITOR": true,
	"VISUAL": true, "GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_SEQUENCE_EDITOR": true,
	"GIT_EXTERNAL_DIFF": true, "LESSOPEN": true, "LESSCLOSE": true, "SUDO_EDITOR": true,
}

// clip shortens source text quoted in a reason.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
