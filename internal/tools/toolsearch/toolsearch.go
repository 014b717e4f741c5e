// Package toolsearch is tool_search: gantry's own search over the tools a request
// defers, for the APIs that have no tool search of their own (Chat Completions and
// the servers that speak it). BM25 ranks the deferred tools by their names, family,
// description and argument names; the tools found are declared to the model from the
// next request on, for the rest of the session.
package toolsearch

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/gantry-dev/gantry/internal/tool"
)

// Name is the tool's name.
const Name = "tool_search"

type args struct {
	Query string `json:"query" jsonschema_description:"What the tool should do, in a few words (\"debugger breakpoints\"), or select:NAME,NAME to load tools by name."`
	Limit int    `json:"limit,omitempty" jsonschema_description:"How many tools to load at most (default 5)." jsonschema:"minimum=1,maximum=20"`
}

const defaultLimit = 5

// Tool returns tool_search. It searches the deferred tools of the request its call
// came from (tool.DeferredOf).
func Tool() tool.Tool {
	return tool.New(tool.Def[args]{
		Name: Name,
		Description: "Load tools that exist but are not declared yet (listed in the system prompt under deferred tools). " +
			"A found tool can be called from your next response on.",
		Level:        tool.LevelRead,
		Kind:         tool.KindSearch,
		Icon:         "🔎",
		Core:         true,
		Brief:        true,
		Principal:    func(a args) string { return a.Query },
		Conversation: true,
		Check: func(a args) string {
			if strings.TrimSpace(a.Query) == "" {
				return "tool_search needs a query: what the tool should do, or select:NAME."
			}
			return ""
		},
		Run: func(ctx context.Context, _ tool.Env, a args) tool.Result {
			return search(tool.DeferredOf(ctx), a)
		},
	})
}

func search(deferred []tool.Tool, a args) tool.Result {
	if len(deferred) == 0 {
		return tool.Fail("No tool is deferred in this session: every tool you can call is declared already.")
	}
	limit := cmp.Or(a.Limit, defaultLimit)
	var found []tool.Tool
	if names, ok := strings.CutPrefix(strings.TrimSpace(a.Query), "select:"); ok {
		var unknown []string
		for _, n := range strings.Split(names, ",") {
			n = strings.TrimSpace(n)
			if i := slices.IndexFunc(deferred, func(t tool.Tool) bool { return t.Name() == n }); i >= 0 {
				found = append(found, deferred[i])
			} else if n != "" {
				unknown = append(unknown, n)
			}
		}
		if len(unknown) > 0 {
			return tool.Fail(fmt.Sprintf("No deferred tool is named %s; the deferred tools are: %s.", strings.Join(unknown, ", "), names0(deferred)))
		}
	} else {
		found = rank(deferred, a.Query, limit)
	}
	if len(found) > limit {
		found = found[:limit]
	}
	if len(found) == 0 {
		return tool.Result{Text: fmt.Sprintf("No deferred tool matches %q. The deferred tools are: %s.", a.Query, names0(deferred))}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Loaded %d tool(s); call them from your next response on:\n", len(found))
	names := make([]string, len(found))
	for i, t := range found {
		names[i] = t.Name()
		fmt.Fprintf(&b, "- %s: %s\n", t.Name(), firstSentence(t.Spec().Description))
	}
	return tool.Result{Text: b.String(), Found: names, Display: tool.Display{Note: "loaded " + strings.Join(names, ", ")}}
}

func names0(ts []tool.Tool) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name()
	}
	return strings.Join(names, ", ")
}

// rank returns the tools that match query, best first (BM25, k1 1.2, b 0.75), at
// most limit; a tool named in the query comes first.
func rank(ts []tool.Tool, query string, limit int) []tool.Tool {
	docs := make([][]string, len(ts))
	total := 0
	for i, t := range ts {
		docs[i] = document(t)
		total += len(docs[i])
	}
	avg := float64(total) / float64(len(ts))
	df := map[string]int{}
	for _, d := range docs {
		seen := map[string]bool{}
		for _, w := range d {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	terms := slices.DeleteFunc(words(query), func(w string) bool { return stop[w] })
	type scored struct {
		t     tool.Tool
		score float64
	}
	var out []scored
	n := float64(len(ts))
	for i, d := range docs {
		tf := map[string]int{}
		for _, w := range d {
			tf[w]++
		}
		score := 0.0
		for _, q := range terms {
			f := float64(tf[q])
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[q])+0.5)/(float64(df[q])+0.5))
			score += idf * f * 2.2 / (f + 1.2*(0.25+0.75*float64(len(d))/avg))
		}
		// A word of the tool's name weighs more than any in its description: "todo
		// list" is todo_read's, not every tool's that mentions a todo list.
		name := words(ts[i].Name())
		for _, q := range terms {
			if slices.Contains(name, q) {
				score += 5
			}
		}
		if strings.Contains(strings.ToLower(query), ts[i].Name()) {
			score += 100
		}
		if score > 0 {
			out = append(out, scored{ts[i], score})
		}
	}
	slices.SortStableFunc(out, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	var found []tool.Tool
	for _, s := range out[:min(limit, len(out))] {
		// A tool far below the best match is noise: every tool loaded is declared in
		// every request from then on.
		if s.score < out[0].score/2 {
			break
		}
		found = append(found, s.t)
	}
	return found
}

// stop are the words a query is searched without: they say nothing of a tool.
var stop = map[string]bool{"a": true, "an": true, "the": true, "to": true, "of": true, "for": true, "and": true,
	"or": true, "in": true, "on": true, "with": true, "my": true, "me": true, "i": true, "is": true, "it": true,
	"what": true, "how": true, "do": true, "can": true, "that": true, "this": true, "from": true, "by": true}

// document is the words a tool is found by: its name (three times: it weighs most),
// its family, its description and its arguments' names and descriptions.
func document(t tool.Tool) []string {
	spec := t.Spec()
	name := words(spec.Name)
	d := slices.Concat(name, name, name, words(t.Info().Family), words(spec.Description))
	var schema struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(spec.Schema, &schema) == nil {
		for k, p := range schema.Properties {
			d = append(d, words(k)...)
			d = append(d, words(p.Description)...)
		}
	}
	return d
}

// words splits s into lower-case words at anything not a letter or digit (so
// "rename_symbol" is "rename" and "symbol").
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
