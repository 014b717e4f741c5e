package subagent

import (
	"fmt"
	"slices"
	"strings"
)

// maxBrief bounds the description part of a definition's line in the tool's
// description, in characters, whatever the name's length (a plugin's namespaced name
// is long): enough for the model to tell definitions apart. The tool is always
// declared, so each definition costs every request about 30 tokens.
const maxBrief = 80

const useThis = "Use this agent "

// catalog is the description's list of the agent definitions, one line each: the
// name and the first sentence of the description, cut at a word within maxBrief.
func catalog(defs []Brief) string {
	if len(defs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nAgents (subagent_type):")
	for _, d := range defs {
		b.WriteString("\n- " + d.Name + ": " + brief(firstSentence(d.Description)))
	}
	return b.String()
}

// firstSentence is s up to the end of its first sentence, without the "Use this
// agent" most of Claude Code's descriptions open with (the line says it already).
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > len(useThis) && strings.EqualFold(s[:len(useThis)], useThis) {
		s = s[len(useThis):]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// brief is s cut after its last whole word within maxBrief characters, with an
// ellipsis, or s when it fits.
func brief(s string) string {
	r := []rune(s)
	if len(r) <= maxBrief {
		return s
	}
	cut := string(r[:maxBrief-1])
	if i := strings.LastIndexByte(cut, ' '); i > maxBrief/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:-") + "…"
}

// unknown is the sentence refusing a name that is no definition, or "".
func unknown(defs []Brief, name string) string {
	if name == "" || name == general || slices.ContainsFunc(defs, func(d Brief) bool { return d.Name == name }) {
		return ""
	}
	if len(defs) == 0 {
		return fmt.Sprintf("agent: there is no agent definition %q (none is defined); leave subagent_type out.", name)
	}
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	return fmt.Sprintf("agent: there is no agent definition %q; the known ones are %s (or leave subagent_type out).", name, strings.Join(names, ", "))
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
