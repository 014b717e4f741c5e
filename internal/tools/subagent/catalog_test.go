package subagent

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCatalogLinesAreShort(t *testing.T) {
	defs := []Brief{
		{"pr-review-toolkit:code-reviewer", "Use this agent when you need to review code for adherence to project guidelines, style guides, and best practices. This agent should be used proactively."},
		{"code-explorer", "Deeply analyzes existing codebase features by tracing execution paths, mapping architecture layers, understanding patterns"},
		{"reviewer", "Reviews a change for bugs. Use it after writing code.\n\n<example>long</example>"},
		{"simplifier", "Use this agent when code was written. It simplifies it."},
	}
	got := catalog(defs)
	want := "\n\nAgents (subagent_type):\n- pr-review-toolkit:code-reviewer: when you need to review code for adherence to project guidelines, style…\n- code-explorer: Deeply analyzes existing codebase features by tracing execution paths, mapping…\n- reviewer: Reviews a change for bugs.\n- simplifier: when code was written."
	if got != want {
		t.Errorf("catalog\n%q, want\n%q", got, want)
	}
	for i, line := range strings.Split(got, "\n")[3:] {
		if n := utf8.RuneCountInString(line) - utf8.RuneCountInString("- "+defs[i].Name+": "); n > maxBrief {
			t.Errorf("line %q has %d characters of description", line, n)
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
	none, all := size(nil), size(defs)
	if per := (all - none) / len(defs); per > 4*30 {
		t.Errorf("each definition adds %d bytes to the declaration", per)
	}
	t.Logf("the declaration: %d bytes without definitions, %d with %d", none, all, len(defs))
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
