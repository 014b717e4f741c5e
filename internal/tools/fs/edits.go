package fs

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// maxOccurrences caps the search for an ambiguous old text.
const maxOccurrences = 1000

// A span is an edit located in the original text: bytes [start, end) become repl.
type span struct {
	idx        int // the edit's index in the call
	start, end int
	repl       string
}

// textForm is how a file writes its text: a byte-order mark, and CRLF line ends.
type textForm struct {
	bom  bool
	crlf bool
}

const utf8BOM = "\uFEFF"

// splitForm removes the BOM of data and reports the file's form.
func splitForm(data []byte) (string, textForm) {
	s := string(data)
	var f textForm
	if rest, ok := strings.CutPrefix(s, utf8BOM); ok {
		s, f.bom = rest, true
	}
	crlf := strings.Count(s, "\r\n")
	f.crlf = crlf > 0 && crlf*2 >= strings.Count(s, "\n")
	return s, f
}

// join puts the BOM back.
func (f textForm) join(s string) []byte {
	if f.bom {
		return []byte(utf8BOM + s)
	}
	return []byte(s)
}

// toCRLF writes every line end of s as \r\n.
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// occurrences returns the offsets where sub occurs in s, overlapping ones included, at
// most limit of them.
func occurrences(s, sub string, limit int) []int {
	var at []int
	for i := 0; i <= len(s); {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			break
		}
		at = append(at, i+j)
		if len(at) >= limit {
			break
		}
		i += j + 1
	}
	return at
}

// resolveEdits locates every edit in text (the original, BOM removed) and checks that each
// old text occurs exactly once and that no two edits overlap. It returns the spans sorted
// by position, or the sentences refusing the call.
func resolveEdits(shown, text string, form textForm, edits []editArg) ([]span, []string) {
	var spans []span
	var problems []string
	for i, e := range edits {
		old, repl := strings.TrimPrefix(e.Old, utf8BOM), e.New
		if form.crlf {
			repl = toCRLF(repl)
		}
		at := occurrences(text, old, maxOccurrences)
		if len(at) == 0 {
			// The model usually writes \n; match it against the file's own line ends.
			var alt string
			if form.crlf {
				alt = toCRLF(old)
			} else {
				alt = strings.ReplaceAll(old, "\r\n", "\n")
			}
			if alt != old {
				at = occurrences(text, alt, maxOccurrences)
				old = alt
			}
		}
		switch len(at) {
		case 0:
			problems = append(problems, notFound(shown, text, i, e.Old))
		case 1:
			spans = append(spans, span{idx: i, start: at[0], end: at[0] + len(old), repl: repl})
		default:
			problems = append(problems, ambiguous(shown, text, i, at))
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	sort.Slice(spans, func(a, b int) bool {
		if spans[a].start != spans[b].start {
			return spans[a].start < spans[b].start
		}
		return spans[a].end > spans[b].end
	})
	// spans[last] is the span reaching furthest so far; every later span starting before
	// its end collides with it.
	last := 0
	for k := 1; k < len(spans); k++ {
		p, q := spans[last], spans[k]
		if q.start < p.end {
			problems = append(problems, collision(text, p, q))
		}
		if q.end > p.end {
			last = k
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return spans, nil
}

// applySpans replaces the sorted, disjoint spans of text.
func applySpans(text string, spans []span) string {
	var sb strings.Builder
	sb.Grow(len(text))
	at := 0
	for _, s := range spans {
		sb.WriteString(text[at:s.start])
		sb.WriteString(s.repl)
		at = s.end
	}
	sb.WriteString(text[at:])
	return sb.String()
}

func ambiguous(shown, text string, i int, at []int) string {
	count := strconv.Itoa(len(at)) + " times"
	if len(at) >= maxOccurrences {
		count = "at least " + count
	}
	const show = 10
	lines := lineNumbers(text, at[:min(len(at), show)])
	list := make([]string, len(lines))
	for k, l := range lines {
		list[k] = strconv.Itoa(l)
	}
	where := "lines " + strings.Join(list, ", ")
	if len(at) > show {
		where += ", …"
	}
	return fmt.Sprintf("edits[%d].old occurs %s in %s (%s); include more of the surrounding text so that it occurs exactly once.", i, count, shown, where)
}

func collision(text string, p, q span) string {
	line := lineNumbers(text, []int{q.start})[0]
	switch {
	case p.start == q.start && p.end == q.end:
		return fmt.Sprintf("edits[%d] and edits[%d] replace the same text (line %d); keep only one of them.", min(p.idx, q.idx), max(p.idx, q.idx), line)
	case q.end <= p.end:
		return fmt.Sprintf("edits[%d] lies inside the text of edits[%d] (line %d); edits must not nest, so fold it into edits[%d].", q.idx, p.idx, line, p.idx)
	default:
		return fmt.Sprintf("edits[%d] and edits[%d] overlap (at line %d); edits must not overlap, so merge them into one.", min(p.idx, q.idx), max(p.idx, q.idx), line)
	}
}

// lineNumbers returns the 1-based line of each offset; offsets must be ascending.
func lineNumbers(text string, offsets []int) []int {
	out := make([]int, len(offsets))
	line, pos := 1, 0
	for k, off := range offsets {
		line += strings.Count(text[pos:off], "\n")
		pos = off
		out[k] = line
	}
	return out
}
