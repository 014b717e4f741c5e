package commands

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Shell runs one command line of a command's !`…` for the session: through its
// permission gate and sandbox. It returns the output, or an error text (refused,
// failed) that takes the output's place.
type Shell func(ctx context.Context, line string) (output string, err error)

// Lookup finds the command a prompt runs: "/name args" with name a command of cmds.
func Lookup(cmds []Command, prompt string) (c Command, args string, ok bool) {
	t := strings.TrimSpace(prompt)
	if !strings.HasPrefix(t, "/") {
		return Command{}, "", false
	}
	name, args, _ := strings.Cut(t[1:], " ")
	if n, a, found := strings.Cut(name, "\n"); found { // "/name\nmore lines"
		name, args = n, a+" "+args
	}
	for _, c := range cmds {
		if c.Name == name {
			return c, strings.TrimSpace(args), true
		}
	}
	return Command{}, "", false
}

var (
	shellLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("!`([^`\n]+)`") })
	// shellBlock is a fenced block opened by ```! on its own line: a script of one or
	// more lines run as one command, its output in the block's place.
	shellBlock = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?m)^```![ \t]*\n((?s:.*?))\n?^```[ \t]*$") })
	// placeholder is $ARGUMENTS, $1…$9, $$ and (Codex) $NAME.
	placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$(\$|ARGUMENTS|[1-9]|[A-Z][A-Z0-9_]*)`) })
	argName     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`) })
)

// Expand is the prompt c sends with args: its body with the arguments put in, then
// each !`line` replaced by what sh printed. @file references are left for the
// prompt's expansion. Notes say what could not be done.
func Expand(ctx context.Context, c Command, args string, sh Shell) (prompt string, notes []string) {
	words := SplitArgs(args)
	named := map[string]string{}
	var positional []string
	for _, w := range words {
		// Codex's named arguments: NAME=value. Claude Code has none, so there such a
		// word is a positional argument like any other.
		if k, v, ok := strings.Cut(w, "="); ok && c.Source == "codex" && isName(k) {
			named[k] = v
			continue
		}
		positional = append(positional, w)
	}
	used := false
	body := placeholder().ReplaceAllStringFunc(c.Body, func(m string) string {
		key := m[1:]
		switch {
		case key == "$":
			return "$"
		case key == "ARGUMENTS":
			used = true
			return args
		case len(key) == 1 && key[0] >= '1' && key[0] <= '9':
			used = true
			i, _ := strconv.Atoi(key)
			if i <= len(positional) {
				return positional[i-1]
			}
			return ""
		}
		if v, ok := named[key]; ok {
			used = true
			return v
		}
		if c.Source == "codex" {
			notes = append(notes, fmt.Sprintf("/%s: no value for $%s (give it as %s=value)", c.Name, key, key))
			return ""
		}
		return m // an environment variable of a shell line, or plain text
	})
	if !used && strings.TrimSpace(args) != "" {
		body = strings.TrimRight(body, "\n") + "\n\nARGUMENTS: " + args // as Claude Code does
	}
	if sh != nil {
		run := func(line string) string {
			out, err := sh(ctx, line)
			if err != nil {
				notes = append(notes, fmt.Sprintf("/%s: !`%s` did not run: %s", c.Name, oneLine(line), oneLine(err.Error())))
				return fmt.Sprintf("(`%s` did not run: %s)", oneLine(line), oneLine(err.Error()))
			}
			return strings.TrimRight(out, "\n")
		}
		body = shellBlock().ReplaceAllStringFunc(body, func(m string) string {
			return run(strings.TrimSpace(shellBlock().FindStringSubmatch(m)[1]))
		})
		body = shellLine().ReplaceAllStringFunc(body, func(m string) string {
			return run(shellLine().FindStringSubmatch(m)[1])
		})
	}
	return strings.TrimSpace(body), notes
}

func isName(k string) bool {
	return k != "" && k != "ARGUMENTS" && argName().MatchString(k)
}

// SplitArgs splits args into words as a shell would on spaces, keeping "quoted words"
// whole.
func SplitArgs(args string) []string {
	var out []string
	var b strings.Builder
	quote, in := rune(0), false
	for _, r := range args {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote, in = r, true
		case quote == 0 && (r == ' ' || r == '\t' || r == '\n'):
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}
