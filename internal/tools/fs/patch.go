package fs

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// A patchOp is one file section of a patch.
type patchOp struct {
	kind   byte // 'A' add, 'D' delete, 'U' update
	path   string
	moveTo string   // Update only: the new path, or ""
	add    []string // Add only: the lines of the new file
	chunks []chunk  // Update only
	line   int      // line of the header in the patch
}

// A chunk is one @@ hunk of an Update: the old lines are replaced by the new ones.
type chunk struct {
	anchor   string // the text after "@@ ", narrowing the search; "" for none
	body     []hunkLine
	old, new []string // the texts of the context and '-' lines, of the context and '+' lines
	eof      bool     // "*** End of File": the old lines end the file
	line     int      // line of the chunk's first line in the patch
}

// A hunkLine is one line of a hunk: context (' '), removed ('-') or added ('+').
type hunkLine struct {
	op   byte
	text string
}

func (c *chunk) addLine(op byte, text string) {
	c.body = append(c.body, hunkLine{op, text})
	if op != '+' {
		c.old = append(c.old, text)
	}
	if op != '-' {
		c.new = append(c.new, text)
	}
}

// A patchError names the patch line where parsing failed and what was expected there.
type patchError struct {
	line int
	msg  string
}

func (e *patchError) Error() string {
	return fmt.Sprintf("The patch is malformed at line %d: %s; nothing was changed.", e.line, e.msg)
}

const (
	beginPatch = "*** Begin Patch"
	endPatch   = "*** End Patch"
	addFile    = "*** Add File: "
	deleteFile = "*** Delete File: "
	updateFile = "*** Update File: "
	moveTo     = "*** Move to: "
	endOfFile  = "*** End of File"
)

// unifiedRange matches the "-12,7 +12,8 @@" some models put after "@@"; it is not an anchor.
var unifiedRange = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-\d+(,\d+)? \+\d+(,\d+)? @@`) })

// parsePatch reads a patch in the Codex format. Lines are numbered from 1 as the model
// sent them.
func parsePatch(patch string) ([]patchOp, error) {
	lines := strings.Split(strings.ReplaceAll(patch, "\r\n", "\n"), "\n")
	first, last := 0, len(lines)-1
	for first <= last && strings.TrimSpace(lines[first]) == "" {
		first++
	}
	for last >= first && strings.TrimSpace(lines[last]) == "" {
		last--
	}
	if first > last {
		return nil, &patchError{1, fmt.Sprintf("expected %q, but the patch is empty", beginPatch)}
	}
	// Tolerate a shell heredoc around the patch: <<'EOF' … EOF.
	if strings.HasPrefix(strings.TrimSpace(lines[first]), "<<") && first < last && strings.TrimSpace(lines[last]) == strings.Trim(strings.TrimPrefix(strings.TrimSpace(lines[first]), "<<"), `'"`) {
		first++
		last--
	}
	if first > last || strings.TrimSpace(lines[first]) != beginPatch {
		return nil, &patchError{first + 1, fmt.Sprintf("expected %q as the first line, found %s", beginPatch, quoteLine(lines, first, last))}
	}
	if first == last || strings.TrimSpace(lines[last]) != endPatch {
		return nil, &patchError{last + 1, fmt.Sprintf("expected %q as the last line, found %s", endPatch, quoteLine(lines, last, last))}
	}
	p := &patchParser{lines: lines, i: first + 1, end: last}
	var ops []patchOp
	for p.i < p.end {
		op, err := p.op()
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	if len(ops) == 0 {
		return nil, &patchError{last + 1, "expected at least one *** Add File, *** Delete File or *** Update File section before the end"}
	}
	return ops, nil
}

func quoteLine(lines []string, i, last int) string {
	if i > last || i >= len(lines) {
		return "nothing"
	}
	l := lines[i]
	if len(l) > 60 {
		l = prefixBytes(l, 60) + "…"
	}
	return fmt.Sprintf("%q", l)
}

type patchParser struct {
	lines []string
	i     int // next line
	end   int // index of the "*** End Patch" line
}

func (p *patchParser) err(msg string) error { return &patchError{p.i + 1, msg} }

func (p *patchParser) found() string { return quoteLine(p.lines, p.i, p.end) }

// header reads "*** X: path" and returns the path.
func (p *patchParser) header(prefix string) (string, error) {
	path := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(p.lines[p.i]), strings.TrimSpace(prefix)))
	if path == "" {
		return "", p.err(fmt.Sprintf("expected a file path after %q", strings.TrimSpace(prefix)))
	}
	p.i++
	return path, nil
}

func (p *patchParser) op() (patchOp, error) {
	line := strings.TrimSpace(p.lines[p.i])
	op := patchOp{line: p.i + 1}
	var err error
	switch {
	case strings.HasPrefix(line, strings.TrimSpace(addFile)):
		op.kind = 'A'
		if op.path, err = p.header(addFile); err != nil {
			return op, err
		}
		for p.i < p.end && !strings.HasPrefix(p.lines[p.i], "***") {
			l := p.lines[p.i]
			if !strings.HasPrefix(l, "+") {
				return op, p.err(fmt.Sprintf("expected a line starting with '+' in the content of the added file %s, found %s", op.path, p.found()))
			}
			op.add = append(op.add, l[1:])
			p.i++
		}
	case strings.HasPrefix(line, strings.TrimSpace(deleteFile)):
		op.kind = 'D'
		if op.path, err = p.header(deleteFile); err != nil {
			return op, err
		}
	case strings.HasPrefix(line, strings.TrimSpace(updateFile)):
		op.kind = 'U'
		if op.path, err = p.header(updateFile); err != nil {
			return op, err
		}
		if p.i < p.end && strings.HasPrefix(strings.TrimSpace(p.lines[p.i]), strings.TrimSpace(moveTo)) {
			if op.moveTo, err = p.header(moveTo); err != nil {
				return op, err
			}
		}
		if op.chunks, err = p.chunks(op.path); err != nil {
			return op, err
		}
		if len(op.chunks) == 0 && op.moveTo == "" {
			return op, p.err(fmt.Sprintf("expected an @@ hunk for the updated file %s, found %s", op.path, p.found()))
		}
	default:
		return op, p.err(fmt.Sprintf("expected a file header (*** Add File:, *** Delete File: or *** Update File:), found %s", p.found()))
	}
	return op, nil
}

// chunks reads the hunks of an Update section, up to the next "***" header.
func (p *patchParser) chunks(path string) ([]chunk, error) {
	var out []chunk
	var cur *chunk
	for p.i < p.end {
		l := p.lines[p.i]
		t := strings.TrimSpace(l)
		switch {
		case t == endOfFile:
			if cur == nil || len(cur.old)+len(cur.new) == 0 {
				return nil, p.err("expected hunk lines before \"*** End of File\"")
			}
			cur.eof = true
			cur = nil
			p.i++
			continue
		case strings.HasPrefix(l, "***"):
			if cur != nil && len(cur.old)+len(cur.new) == 0 {
				return nil, &patchError{cur.line, "expected lines starting with ' ', '+' or '-' after this @@ line"}
			}
			return out, nil
		case strings.HasPrefix(l, "@@"):
			if cur != nil && len(cur.old)+len(cur.new) == 0 {
				return nil, &patchError{cur.line, "expected lines starting with ' ', '+' or '-' after this @@ line"}
			}
			anchor := strings.TrimSpace(strings.TrimPrefix(l, "@@"))
			if unifiedRange().MatchString(anchor) {
				anchor = ""
			}
			out = append(out, chunk{anchor: anchor, line: p.i + 1})
			cur = &out[len(out)-1]
			p.i++
			continue
		}
		if cur == nil {
			// The first hunk may omit its @@ line.
			if len(out) > 0 || !(l == "" || l[0] == ' ' || l[0] == '+' || l[0] == '-') {
				return nil, p.err(fmt.Sprintf("expected an @@ line to start a hunk of %s, found %s", path, p.found()))
			}
			out = append(out, chunk{line: p.i + 1})
			cur = &out[len(out)-1]
		}
		switch {
		case l == "":
			cur.addLine(' ', "")
		case l[0] == ' ' || l[0] == '-' || l[0] == '+':
			cur.addLine(l[0], l[1:])
		default:
			return nil, p.err(fmt.Sprintf("expected a hunk line of %s starting with ' ', '+' or '-', found %s", path, p.found()))
		}
		p.i++
	}
	if cur != nil && len(cur.old)+len(cur.new) == 0 {
		return nil, &patchError{cur.line, "expected lines starting with ' ', '+' or '-' after this @@ line"}
	}
	return out, nil
}

// patchPaths lists the paths a patch names (move destinations included), in order, each
// once.
func patchPaths(ops []patchOp) []string {
	var out []string
	seen := map[string]bool{}
	for _, op := range ops {
		for _, p := range []string{op.path, op.moveTo} {
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}
