package permission

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// awk's and sed's scripts: the commands a script runs (awk's system(), a pipe to or
// from a command, sed's e command and s///e flag).

// awkRuns finds what an awk program runs: system("…"), "…" | getline, print | "…".
var awkRuns = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`system\s*\(|\|\s*getline|\|&|print[f]?[^;}\n]*\|`) })

// awkStrings are the string literals of an awk program.
var awkStrings = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`) })

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
		if !awkRuns().MatchString(p.val) {
			continue
		}
		lits := awkStrings().FindAllStringSubmatch(p.val, -1)
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
var awkLiteralCall = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(system\s*\(\s*"|\|\s*"|"\s*\|\s*getline|"[^"]*"\s*\|&)`)
})

func awkCommandsLiteral(prog string) bool {
	return len(awkLiteralCall().FindAllString(prog, -1)) >= len(awkRuns().FindAllString(prog, -1))
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
