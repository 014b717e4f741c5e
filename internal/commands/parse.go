package commands

import (
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/frontmatter"
)

// parse reads a command file: its YAML front matter (when it has one) and its body.
// A key that cannot be used is a problem, never a failure.
func parse(text string) (c Command) {
	block, body, ok := frontmatter.Split(text)
	c.Body = body
	if ok {
		fields, err := frontmatter.Decode(block)
		raw := rawFields(block)
		if err != nil {
			// Claude Code reads "argument-hint: [a] [b]", which YAML refuses: each
			// key's text is used as it is, and its lists ("- item" lines or [a, b])
			// as lists.
			fields, _ = frontmatter.Loose(block, nil)
		}
		text := func(key string) string { // a string key: its line's text when YAML made it a list
			if _, isString := fields[key].(string); !isString && raw[key] != "" {
				return raw[key]
			}
			return str(fields[key])
		}
		c.Description = oneLine(text("description"))
		c.ArgumentHint = oneLine(text("argument-hint"))
		c.Model = strings.TrimSpace(text("model"))
		c.AllowedTools = toolList(fields["allowed-tools"])
		switch v := fields["disable-model-invocation"].(type) {
		case bool:
			c.DisableModelInvocation = v
		case string:
			c.DisableModelInvocation = strings.EqualFold(strings.TrimSpace(v), "true")
		}
	}
	if c.Description == "" {
		for _, l := range strings.Split(body, "\n") {
			if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#")); l != "" {
				c.Description = oneLine(l)
				break
			}
		}
	}
	if r := []rune(c.Description); len(r) > 200 {
		c.Description = string(r[:199]) + "…"
	}
	return c
}

// rawFields reads the "key: value" lines of a front matter block as text, quotes
// taken off.
func rawFields(block string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(block, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "#") {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		out[strings.TrimSpace(k)] = v
	}
	return out
}

// toolList is allowed-tools: a YAML list, or one string of entries separated by
// commas or spaces outside parentheses (as Claude Code writes "Bash(git add:*), Read").
func toolList(v any) []string {
	var out []string
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			if s := strings.TrimSpace(str(e)); s != "" {
				out = append(out, s)
			}
		}
	case string:
		depth, start := 0, 0
		flush := func(end int) {
			if s := strings.TrimSpace(v[start:end]); s != "" {
				out = append(out, s)
			}
			start = end + 1
		}
		for i, r := range v {
			switch {
			case r == '(':
				depth++
			case r == ')' && depth > 0:
				depth--
			case (r == ',' || r == ' ') && depth == 0:
				flush(i)
			}
		}
		flush(len(v))
	}
	return out
}

func str(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	return fmt.Sprint(v)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
