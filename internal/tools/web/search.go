package web

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed web_search.md
var searchDoc string

// snippetChars bounds the extract shown of each hit, and textChars what Exa is asked for.
const (
	snippetChars = 500
	textChars    = 1000
)

type searchArgs struct {
	Query string `json:"query" jsonschema_description:"What to search for."`
	Count int    `json:"count,omitempty" jsonschema:"minimum=1,maximum=10,default=5" jsonschema_description:"How many results to return."`
	Type  string `json:"type,omitempty" jsonschema:"enum=auto,enum=keyword,enum=neural,default=auto" jsonschema_description:"auto lets the engine choose; keyword matches the words; neural matches the meaning."`
}

func (a searchArgs) count() int {
	if a.Count <= 0 {
		return 5
	}
	return a.Count
}

func (a searchArgs) kind() string {
	if a.Type == "" {
		return "auto"
	}
	return a.Type
}

// Search returns the web_search tool, which asks Exa's search API.
func Search(o Options) tool.Tool {
	return tool.New(tool.Def[searchArgs]{
		ClaudeNames: []string{"WebSearch"},
		Family:      "web",
		Claude: func(_ tool.Env, a searchArgs) []tool.ClaudeView {
			return []tool.ClaudeView{{Name: "WebSearch", Input: map[string]any{"query": a.Query}}}
		},
		FromClaude: func(_ tool.Env, c *tool.ClaudeArgs) searchArgs {
			return searchArgs{Query: c.String("query")}
		},
		Name:        "web_search",
		Label:       "Search the web",
		Description: searchDoc,
		Level:       tool.LevelRead,
		Kind:        tool.KindFetch,
		Icon:        "🌐",
		Principal:   func(a searchArgs) string { return strings.TrimSpace(a.Query) },
		Title: func(_ tool.Env, a searchArgs, _ []string) string {
			return "Search the web for " + strings.TrimSpace(a.Query)
		},
		Check: func(a searchArgs) string {
			if strings.TrimSpace(a.Query) == "" {
				return `web_search needs something to look for in "query", which is empty.`
			}
			return ""
		},
		Run: func(ctx context.Context, _ tool.Env, a searchArgs) tool.Result {
			return search(ctx, o, a)
		},
	})
}

func search(ctx context.Context, o Options, a searchArgs) tool.Result {
	if o.ExaAPIKey == "" {
		return tool.Fail("web_search is not configured: set EXA_API_KEY to use Exa's search API.")
	}
	if ctx.Err() != nil {
		return tool.Fail("web_search was cancelled.")
	}
	query := strings.TrimSpace(a.Query)
	payload, err := json.Marshal(exaRequest{
		Query:      query,
		NumResults: a.count(),
		Type:       a.kind(),
		Contents:   exaContents{Text: &exaText{MaxCharacters: textChars}},
	})
	if err != nil {
		return tool.Fail(fmt.Sprintf("web_search could not encode its request (%v).", err))
	}
	endpoint := o.exaBaseURL() + "/search"
	rctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, endpoint, bytes.NewReader(payload))
	if err != nil {
		return tool.Fail(fmt.Sprintf("web_search: the Exa base URL %q is not usable (%v).", o.exaBaseURL(), inner(err)))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", o.userAgent())
	req.Header.Set("x-api-key", o.ExaAPIKey)
	resp, err := o.client().Do(req)
	if err != nil {
		return tool.Fail(failure("web_search", endpoint, err, ctx, o.timeout()))
	}
	defer resp.Body.Close()
	b, err := readBody(resp, o.maxBody())
	if err != nil {
		return tool.Fail(failure("web_search", endpoint, err, ctx, o.timeout()))
	}
	if resp.StatusCode != http.StatusOK {
		return tool.Fail(exaStatusFailure(resp, b))
	}
	var r exaResponse
	if err := json.Unmarshal(b.data, &r); err != nil {
		return tool.Fail(fmt.Sprintf("web_search could not read Exa's answer: it is not the JSON expected (%v).", err))
	}
	return tool.Result{
		Text:    renderHits(query, a.kind(), r.Results),
		Display: tool.Display{Note: fmt.Sprintf("%d result%s", len(r.Results), plural(len(r.Results)))},
	}
}

// renderHits writes one block per hit: rank and title, URL, date and author, extract.
func renderHits(query, kind string, hits []exaResult) string {
	if len(hits) == 0 {
		return fmt.Sprintf("Exa found nothing for %q (%s search); try other words or another type.", query, kind)
	}
	var out strings.Builder
	fmt.Fprintf(&out, "Exa search for %q (%s): %d result%s.\n", query, kind, len(hits), plural(len(hits)))
	for i, h := range hits {
		title := oneLine(h.Title)
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(&out, "\n%d. %s\n   %s\n", i+1, title, h.URL)
		var meta []string
		if d := dateOf(h.PublishedDate); d != "" {
			meta = append(meta, "published "+d)
		}
		if au := oneLine(h.Author); au != "" {
			meta = append(meta, "by "+au)
		}
		if len(meta) > 0 {
			fmt.Fprintf(&out, "   %s\n", strings.Join(meta, " · "))
		}
		if s := snippet(h); s != "" {
			fmt.Fprintf(&out, "   %s\n", s)
		}
	}
	return strings.TrimRight(out.String(), "\n")
}

// snippet is the extract of a hit: its highlights, or else the start of its text, on
// one line and bounded.
func snippet(h exaResult) string {
	s := oneLine(strings.Join(h.Highlights, " … "))
	if s == "" {
		s = oneLine(h.Text)
	}
	if utf8.RuneCountInString(s) <= snippetChars {
		return s
	}
	s = tool.PrefixRunes(s, snippetChars)
	if i := strings.LastIndexByte(s, ' '); i > len(s)*3/4 {
		s = s[:i]
	}
	return s + " …"
}

// dateOf keeps the day of an ISO 8601 date ("2024-03-01T10:00:00.000Z" → "2024-03-01").
func dateOf(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 10 && s[4] == '-' && s[7] == '-' {
		return s[:10]
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
