package fs

import (
	"bytes"
	"fmt"
	"strings"
)

// A change is what one call did (or would do) to one file, ready to be reported.
type change struct {
	shown    string // the path as the model wrote it
	movedTo  string // the new path when the file moves, as the model wrote it
	old, new []byte
	created  bool
	deleted  bool
	lines    []diffLine
}

func newChange(shown string, old, new []byte, created, deleted bool) *change {
	c := &change{shown: shown, old: old, new: new, created: created, deleted: deleted}
	if !looksBinary(old, false) && !looksBinary(new, false) {
		c.lines = lineDiff(splitLines(string(old)), splitLines(string(new)))
	}
	return c
}

// newEditChange is the change of an edit whose spans are known (offsets into old):
// its diff compares only the lines the spans touch.
func newEditChange(shown string, old, new []byte, spans []span) *change {
	return &change{shown: shown, old: old, new: new, lines: spanDiff(string(old), spans)}
}

// stats returns the lines added and deleted and the first changed line.
func (c *change) stats() (added, deleted, first int) { return diffStats(c.lines) }

// summary is "+A -D lines, first change at line L".
func (c *change) summary() string {
	a, d, first := c.stats()
	s := fmt.Sprintf("+%d -%d lines", a, d)
	if first > 0 {
		s += fmt.Sprintf(", first change at line %d", first)
	}
	return s
}

// diff renders the change as a unified diff; numbered adds line numbers for the model.
func (c *change) diff(numbered bool) string {
	if c.lines == nil && (len(c.old) > 0 || len(c.new) > 0) {
		if bytes.Equal(c.old, c.new) {
			return ""
		}
		return fmt.Sprintf("(binary content: %s before, %s after; no diff shown)\n", humanSize(int64(len(c.old))), humanSize(int64(len(c.new))))
	}
	from, to := "a/"+c.shown, "b/"+c.shown
	if c.movedTo != "" {
		to = "b/" + c.movedTo
	}
	if c.created {
		from = "/dev/null"
	}
	if c.deleted {
		to = "/dev/null"
	}
	return unified(from, to, c.lines, numbered)
}

// countLines counts the lines of a text, a last line without terminator included.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// joinReport puts a headline and its diff together.
func joinReport(headline, diff string) string {
	if diff == "" {
		return headline
	}
	return headline + "\n\n" + strings.TrimSuffix(diff, "\n")
}

// DiffText is the unified diff that writing new over old at the path shown would
// make ("" when they are equal); old is nil for a file that does not exist.
func DiffText(shown string, old, new []byte) string {
	return newChange(shown, old, new, old == nil, false).diff(false)
}
