package frontmatter

import (
	"regexp"
	"strings"
	"sync"
)

var keyLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*):(?:\s+(.*))?$`) })

// Loose reads a front matter block that is not valid YAML the way Claude Code still
// uses it: each unindented "key: value" line (of a key isKey accepts; any key when
// isKey is nil) starts that key, and the lines after it, up to the next key, belong
// to it. A key whose own line is empty and whose lines are all "- item" is a list
// (a block list); a value written "[a, b]" is a list too (a flow list); a value
// written "|" or ">" is the text of its lines; a quoted value loses its quotes; any
// other value is its text, its lines joined. ok is false when a line that is neither
// blank nor a comment comes before the first key, or when there is no key.
func Loose(block string, isKey func(string) bool) (fields map[string]any, ok bool) {
	fields = map[string]any{}
	ok = true
	var key string
	var lines []string
	flush := func() {
		if key != "" {
			fields[key] = looseValue(lines[0], lines[1:])
		}
	}
	for line := range strings.SplitSeq(block, "\n") {
		if m := keyLine().FindStringSubmatch(line); m != nil && (isKey == nil || isKey(m[1])) {
			flush()
			key, lines = m[1], []string{m[2]}
			continue
		}
		if key == "" {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
				ok = false
			}
			continue
		}
		lines = append(lines, line)
	}
	flush()
	return fields, ok && len(fields) > 0
}

// looseValue is the value of one key: first is the text after its colon, rest the
// lines after its own.
func looseValue(first string, rest []string) any {
	first = strings.TrimSpace(first)
	if first == "" {
		var items []any
		for _, l := range rest {
			t := strings.TrimSpace(l)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			item, isItem := strings.CutPrefix(t, "- ")
			if !isItem && t != "-" {
				items = nil
				break
			}
			items = append(items, unquote(strings.TrimSpace(item)))
		}
		if items != nil {
			return items
		}
	}
	if strings.Trim(first, "|>-+") == "" && first != "" {
		return strings.TrimSpace(dedent(rest))
	}
	v := strings.TrimSpace(strings.Join(append([]string{first}, rest...), "\n"))
	if strings.HasPrefix(v, "[") || strings.HasPrefix(v, `"`) || strings.HasPrefix(v, "'") {
		if f, err := Decode("v: " + v); err == nil {
			switch p := f["v"].(type) {
			case []any, string:
				return p
			}
		}
	}
	return v
}

// dedent takes off the indentation the first non-blank line has from every line.
func dedent(lines []string) string {
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			indent = len(l) - len(strings.TrimLeft(l, " \t"))
			break
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if indent > 0 && len(l) >= indent && strings.TrimSpace(l[:indent]) == "" {
			l = l[indent:]
		}
		out[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(out, "\n")
}

// unquote takes the quotes off a value written between a pair of them.
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}
