package subagent

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCatalogLinesAreShort(t *testing.T) {
	defs := []Brief{
		{"code-explorer", "Deeply analyzes existing codebase features by tracing execution paths, mapping architecture layers, understanding patterns"},
		{"reviewer", "Reviews a change for bugs. Use it after writing code.\n\n<example>long</example>"},
		{"simplifier", "Use this agent when code was written. It simplifies it."},
	}
	got := catalog(defs)
	want := "\n\nAgents (subagent_type):\n- code-explorer: Deeply analyzes existing codebase featur…\n- reviewer: Reviews a change for bugs.\n- simplifier: when code was written."
	if got != want {
		t.Errorf("catalog\n%q, want\n%q", got, want)
	}
	for _, line := range strings.Split(got, "\n")[3:] {
		if n := utf8.RuneCountInString(line); n > maxLine+2 {
			t.Errorf("line %q is %d characters", line, n)
		}
	}
	// What the always-declared tool costs every request: its declaration's bytes
	// without definitions, and per definition.
	size := func(defs []Brief) int {
		b, err := json.Marshal(Tool(nil, nil, defs).Spec())
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	none, three := size(nil), size(defs)
	if per := (three - none) / 3; per > 4*20 {
		t.Errorf("each definition adds %d bytes to the declaration", per)
	}
	t.Logf("the declaration: %d bytes without definitions, %d with three", none, three)
}

func TestUnknownDefinition(t *testing.T) {
	defs := []Brief{{"a", "x"}, {"b", "y"}}
	for name, want := range map[string]string{
		"":                "",
		"general-purpose": "",
		"a":               "",
		"zz":              `agent: there is no agent definition "zz"; the known ones are a, b (or leave subagent_type out).`,
	} {
		if got := unknown(defs, name); got != want {
			t.Errorf("unknown(%q) = %q, want %q", name, got, want)
		}
	}
	if got := unknown(nil, "zz"); !strings.Contains(got, "none is defined") {
		t.Errorf("with no definitions: %q", got)
	}
}
