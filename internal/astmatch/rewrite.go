package astmatch

import (
	"strings"

	"github.com/gantry-dev/gantry/internal/syntax"
)

// Rewrite is the text that replaces match m (from its node's start to m.End) by
// template: $NAME and $$NAME are replaced by the node bound to NAME, $$$NAME by the
// source from the first to the last node of its run (separators included), an
// unbound name by nothing; a "$" not followed by a name stays. A capture of several
// lines keeps its own layout: its lines are taken out of the indentation of the line
// it starts on, given the indentation its placeholder has in the template, and the
// whole replacement the indentation of the match's line. Indentation is the line's
// leading whitespace as written, tabs included (ast-grep counts spaces only).
func (p *Pattern) Rewrite(t *syntax.Tree, m Match, template string) string {
	var b strings.Builder
	src := t.Src
	for i := 0; i < len(template); {
		j := strings.IndexByte(template[i:], '$')
		if j < 0 {
			b.WriteString(template[i:])
			break
		}
		b.WriteString(template[i : i+j])
		at := i + j
		dollars := 0
		for dollars < 3 && at+dollars < len(template) && template[at+dollars] == '$' {
			dollars++
		}
		k := at + dollars
		for k < len(template) && metaChar(template[k]) {
			k++
		}
		name := template[at+dollars : k]
		if name == "" {
			b.WriteByte('$') // not a metavariable: the "$" is text
			i = at + 1
			continue
		}
		var start, end uint32
		bound := false
		if dollars == 3 {
			if run := m.Multi[name]; len(run) > 0 {
				start, end, bound = t.Nodes[run[0]].Start, t.Nodes[run[len(run)-1]].End, true
			}
		} else if n, ok := m.Single[name]; ok {
			start, end, bound = t.Nodes[n].Start, t.Nodes[n].End, true
		}
		if bound {
			b.WriteString(reindent(deindent(src, start, end), lineIndent(template, at)))
		}
		i = k
	}
	return reindent(b.String(), lineIndent(string(src), int(t.Nodes[m.Node].Start)))
}

func metaChar(c byte) bool { return c >= 'A' && c <= 'Z' || c == '_' || c >= '0' && c <= '9' }

// lineIndent is the leading whitespace of the line holding offset at.
func lineIndent[S string | []byte](s S, at int) string {
	start := at
	for start > 0 && s[start-1] != '\n' {
		start--
	}
	end := start
	for end < len(s) && (s[end] == ' ' || s[end] == '\t') {
		end++
	}
	return string(s[start:end])
}

// deindent is src[start:end] with the indentation of its first line taken off the
// lines after it.
func deindent(src []byte, start, end uint32) string {
	text := string(src[start:end])
	if !strings.Contains(text, "\n") {
		return text
	}
	ind := lineIndent(src, int(start))
	if ind == "" {
		return text
	}
	lines := strings.Split(text, "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.TrimPrefix(lines[i], ind)
	}
	return strings.Join(lines, "\n")
}

// reindent puts ind before every line of text after the first.
func reindent(text, ind string) string {
	if ind == "" || !strings.Contains(text, "\n") {
		return text
	}
	return strings.ReplaceAll(text, "\n", "\n"+ind)
}
