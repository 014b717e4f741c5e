package search

import (
	"bytes"
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
)

// matcher finds the lines of a buffer that match a regular expression: the literals
// every match holds are searched first with fast byte scans, and the regex runs only on
// the lines holding one (or on every line when the regex has no required literal).
type matcher struct {
	re   *regexp.Regexp
	lits []lit   // one of them is in every match; nil when unknown
	pure bool    // a line holding the only literal matches: no regex needed
	win  *window // when set, searched instead of lits
	// prefix starts every match, when the pattern starts with a literal (not an
	// empty-width assertion such as ^ or \b): a match needs nothing before it.
	prefix []byte
}

// compileMatcher compiles pattern (Go RE2 syntax); ignoreCase makes it case-insensitive.
// The error is written for the model.
func compileMatcher(pattern string, ignoreCase bool) (*matcher, error) {
	src := pattern
	if ignoreCase {
		src = "(?i)" + pattern
	}
	tree, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	if hasNewline(tree) {
		return nil, errors.New(`it needs a line break (\n), and grep searches line by line`)
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	m := &matcher{re: re}
	tree = tree.Simplify()
	if prog, err := syntax.Compile(tree); err == nil {
		if p, _ := prog.Prefix(); p != "" {
			m.prefix = []byte(p)
		}
	}
	m.lits = requiredLits(tree)
	if len(m.lits) == 1 {
		m.pure = pureLiteral(tree, m.lits[0])
	}
	// A window of byte sets is a sharper filter than no literal or a one- or two-byte
	// one; a longer literal is found faster by bytes.Index.
	if w := findWindow(tree); w != nil && !m.pure && (len(m.lits) != 1 || len(m.lits[0].s) < 3 && len(w.sets) > len(m.lits[0].s)) {
		m.win = w
	}
	return m, nil
}

// lineScanner walks the matching lines of one buffer; each goroutine has its own.
type lineScanner struct {
	m      *matcher
	finder multiFinder
}

func newLineScanner(m *matcher) *lineScanner {
	s := &lineScanner{m: m}
	for _, l := range m.lits {
		s.finder.fs = append(s.finder.fs, newLitFinder(l))
	}
	s.finder.next = make([]int, len(m.lits))
	return s
}

// each calls fn with the bounds [start, end) of every matching line (without its line
// break) in order, until fn returns false.
func (s *lineScanner) each(data []byte, fn func(start, end int) bool) {
	if s.m.win != nil {
		s.eachWindow(data, fn)
		return
	}
	if len(s.m.lits) == 0 {
		for pos := 0; pos < len(data); {
			end := bytes.IndexByte(data[pos:], '\n')
			if end < 0 {
				end = len(data)
			} else {
				end += pos
			}
			if s.m.re.Match(data[pos:end]) && !fn(pos, end) {
				return
			}
			pos = end + 1
		}
		return
	}
	s.finder.reset(data)
	for pos := 0; pos < len(data); {
		i := s.finder.index(pos)
		if i < 0 {
			return
		}
		start, end := lineAround(data, i)
		if (s.m.pure || s.m.re.Match(data[start:end])) && !fn(start, end) {
			return
		}
		pos = end + 1
	}
}

// lineAround returns the bounds of the line of data that holds byte i, without its
// line break.
func lineAround(data []byte, i int) (start, end int) {
	start = bytes.LastIndexByte(data[:i], '\n') + 1
	end = bytes.IndexByte(data[i:], '\n')
	if end < 0 {
		return start, len(data)
	}
	return start, end + i
}
