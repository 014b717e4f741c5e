package permission

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/tool"
)

// The deny rules, compiled for the kernel's view of a sandboxed command: the paths
// the read deny rules name, to be masked, and the programs denied whole, to be
// hidden (see contain.Sandbox). Argument rules (bash:git push.*) are not here: they
// stay with the parser and the exec supervisor.

// Bounds of the walk that finds the files a pattern with no folder of its own names
// (read_file:.*\.env): the entries looked at, and the files kept.
const (
	maxWalk    = 50000
	maxMatches = 1000
)

// skipDirs are the folders the walk does not enter: their files are not the
// project's secrets, and there are many.
var skipDirs = map[string]bool{".git": true, "node_modules": true}

// DeniedReadPaths are the absolute paths the deny rules of file-reading tools (which
// cover every tool that reads files) name: a file named whole (read_file:\.env is the
// project's .env), the folder of a pattern that matches everything beneath it
// (read_file:secrets/.* is the folder secrets), and for any other pattern
// (read_file:.*\.env, read_file:secrets/.*\.key) the files that match it now, found by
// a walk of its folder — the project for a pattern with no folder of its own —
// bounded, and skipping .git and node_modules. A file made later under such a pattern
// is not in the list; the file tools still refuse it. Sorted, each once.
func (e *Engine) DeniedReadPaths() []string {
	e.mu.Lock()
	rules := make([]Rule, 0, len(e.deny))
	for _, r := range e.deny {
		if r.Pattern != nil && (e.families[r.Tool] == tool.FilesRead || strings.HasSuffix(r.Tool, "*")) {
			rules = append(rules, r)
		}
	}
	root := e.root
	e.mu.Unlock()
	var out []string
	for _, r := range rules {
		out = append(out, r.readPaths(root)...)
	}
	sort.Strings(out)
	return compactStrings(out)
}

// readPaths are the paths of rule r, in the project root.
func (r Rule) readPaths(root string) []string {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(root, p)
	}
	if !r.absolute() && root == "" {
		return nil
	}
	if r.prefix == r.pat || regexp.QuoteMeta(r.prefix) == r.pat {
		return []string{abs(r.prefix)} // a file (or folder) named whole
	}
	dir := ""
	if i := strings.LastIndex(r.prefix, "/"); i > 0 {
		dir = r.prefix[:i]
	} else if i == 0 {
		dir = "/"
	}
	if dir != "" && r.everything(dir) {
		return []string{abs(dir)}
	}
	start := root
	if dir != "" {
		start = abs(dir)
	}
	if start == "/" {
		return nil // a pattern over the whole disk is not walked
	}
	return r.walk(root, start)
}

// everything tells whether r matches every path beneath dir (as written in the rule),
// tried on names of several shapes.
func (r Rule) everything(dir string) bool {
	for _, name := range []string{"zq9", ".zq9", "zq9.txt", "a/zq9", "a b/.c/zq9.d"} {
		if !r.Pattern.MatchString(strings.TrimSuffix(dir, "/") + "/" + name) {
			return false
		}
	}
	return true
}

// walk lists the files and folders beneath start that r matches, as path rules see
// them (relative to root, or absolute for an absolute rule); a matching folder is
// kept whole and not entered.
func (r Rule) walk(root, start string) []string {
	var out []string
	seen := 0
	_ = filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != start {
				return fs.SkipDir
			}
			return nil
		}
		if seen++; seen > maxWalk || len(out) >= maxMatches {
			return fs.SkipAll
		}
		if d.IsDir() && skipDirs[d.Name()] {
			return fs.SkipDir
		}
		if p == start {
			return nil
		}
		name := p
		if !r.absolute() {
			rel, err := filepath.Rel(root, p)
			if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
				return nil
			}
			name = filepath.ToSlash(rel)
		}
		if r.Pattern.MatchString(name) {
			out = append(out, p)
			if d.IsDir() {
				return fs.SkipDir
			}
		}
		return nil
	})
	return out
}

// DeniedPrograms are the programs the deny rules of bash deny whole, by name or path:
// bash:PROG, bash:PROG( .*)?, bash:PROG .*, bash:(PROG1|PROG2)( .*)? and
// bash:/usr/bin/PROG .*. A rule on some arguments only (bash:git push.*) is not one.
// Sorted, each once.
func (e *Engine) DeniedPrograms() []string {
	e.mu.Lock()
	var out []string
	for _, r := range e.deny {
		if r.Tool == "bash" && r.Pattern != nil {
			out = append(out, r.programs()...)
		}
	}
	e.mu.Unlock()
	sort.Strings(out)
	return compactStrings(out)
}

// wholeTails are the endings of a pattern that take any arguments (or none).
var wholeTails = []string{`( .*)?`, `(?: .*)?`, `(\s.*)?`, `(?:\s.*)?`, ` .*`, `\s.*`, `( .*|)`, ``}

// programName is a program's name or path as a rule writes it, unescaped.
var programName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_+./-]+$`) })

// programs are the programs r denies whole, or none.
func (r Rule) programs() []string {
	for _, tail := range wholeTails {
		head, ok := strings.CutSuffix(r.pat, tail)
		if !ok || head == "" {
			continue
		}
		if names := r.alternatives(head, tail); names != nil {
			return names
		}
	}
	return nil
}

// alternatives reads head as PROG or (PROG1|PROG2…) and checks each against the rule
// itself: it must take the program with any arguments (or alone, for a rule with no
// tail) and not a longer name.
func (r Rule) alternatives(head, tail string) []string {
	if strings.HasPrefix(head, "(") && strings.HasSuffix(head, ")") {
		head = strings.TrimPrefix(head[1:len(head)-1], "?:")
	}
	var out []string
	for _, alt := range strings.Split(head, "|") {
		name := unescapeLiteral(alt)
		if name == "" || !programName().MatchString(name) {
			return nil
		}
		probe := name + " -x y"
		if tail == "" {
			probe = name
		}
		if !r.Pattern.MatchString(probe) || r.Pattern.MatchString(name+"zq9") || r.Pattern.MatchString(name+"zq9 -x") {
			return nil
		}
		out = append(out, name)
	}
	return out
}

// unescapeLiteral undoes the escapes of a literal in a pattern (\. \+ \-), or returns
// "" when alt holds anything else than a literal.
func unescapeLiteral(alt string) string {
	var b strings.Builder
	for i := 0; i < len(alt); i++ {
		c := alt[i]
		if c == '\\' {
			if i+1 >= len(alt) || !strings.ContainsRune(`.+-_/`, rune(alt[i+1])) {
				return ""
			}
			i++
			b.WriteByte(alt[i])
			continue
		}
		if strings.ContainsRune(`.*+?()[]{}^$|`, rune(c)) {
			return ""
		}
		b.WriteByte(c)
	}
	return b.String()
}

// compactStrings drops the repeats of a sorted list.
func compactStrings(ss []string) []string {
	n := 0
	for i, s := range ss {
		if i == 0 || s != ss[n-1] {
			ss[n] = s
			n++
		}
	}
	return ss[:n]
}
