package web

import (
	"context"
	_ "embed"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed web_fetch.md
var fetchDoc string

// MaxMaxChars is the most max_chars may ask for. The content returned is bounded by
// the result's bound (Options.MaxOutput) whatever max_chars asks, and max_chars not
// given is that bound: the whole result, header and notes included, is within it.
const MaxMaxChars = 200000

type fetchArgs struct {
	URL           string            `json:"url" jsonschema_description:"The full http:// or https:// URL to fetch."`
	ExtractMode   string            `json:"extract_mode,omitempty" jsonschema:"enum=markdown,enum=text,default=markdown" jsonschema_description:"How an HTML page is returned: markdown (headings, links, lists, tables and code kept) or text (plain text, no markup)."`
	MaxChars      int               `json:"max_chars,omitempty" jsonschema:"minimum=1,maximum=200000" jsonschema_description:"The most characters of content to return; at most and by default what one result may hold (maxOutput). The rest is cut with a note."`
	Headers       map[string]string `json:"headers,omitempty" jsonschema_description:"Extra request headers, name to value (e.g. Accept or Cookie)."`
	Authorization string            `json:"authorization,omitempty" jsonschema_description:"The value of the Authorization header (e.g. Bearer <token>); not sent on to another host after a redirect."`
}

// maxChars is the most characters of content to return within a result of bound
// characters.
func (a fetchArgs) maxChars(bound int) int {
	if a.MaxChars <= 0 || a.MaxChars > bound {
		return bound
	}
	return a.MaxChars
}

// Fetch returns the web_fetch tool.
func Fetch(o Options) tool.Tool {
	return tool.New(tool.Def[fetchArgs]{
		ClaudeNames: []string{"WebFetch"},
		Family:      "web",
		Claude: func(_ tool.Env, a fetchArgs) []tool.ClaudeView {
			return []tool.ClaudeView{{Name: "WebFetch", Input: map[string]any{"url": a.URL, "prompt": ""}}}
		},
		FromClaude: func(_ tool.Env, c *tool.ClaudeArgs) fetchArgs {
			return fetchArgs{URL: c.String("url")} // Claude's prompt has no counterpart: the page is returned
		},
		Name:        "web_fetch",
		Label:       "Fetch a web page",
		Description: fetchDoc,
		Level:       tool.LevelRead,
		Kind:        tool.KindFetch,
		Icon:        "🌐",
		Principal:   func(a fetchArgs) string { return strings.TrimSpace(a.URL) },
		Title:       func(_ tool.Env, a fetchArgs, _ []string) string { return "Fetch " + strings.TrimSpace(a.URL) },
		Check:       checkFetch,
		Run: func(ctx context.Context, _ tool.Env, a fetchArgs) tool.Result {
			return fetch(ctx, o, a)
		},
	})
}

func checkFetch(a fetchArgs) string {
	if _, msg := parseURL(a.URL); msg != "" {
		return msg
	}
	names := make([]string, 0, len(a.Headers))
	for k := range a.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !validHeaderName(k) {
			return fmt.Sprintf("web_fetch: %q is not a valid header name; use letters, digits and - only.", k)
		}
		if strings.ContainsAny(a.Headers[k], "\r\n\x00") {
			return fmt.Sprintf("web_fetch: the value of header %q must be one line, without line breaks.", k)
		}
	}
	if strings.ContainsAny(a.Authorization, "\r\n\x00") {
		return "web_fetch: authorization must be one line, without line breaks."
	}
	return ""
}

// parseURL checks that raw is an absolute http or https URL with a host.
func parseURL(raw string) (*url.URL, string) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, `web_fetch needs a URL in "url", which is empty.`
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if as(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Sprintf("web_fetch: %q is not a valid URL (%v); give a full address such as https://example.com/page.", raw, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, fmt.Sprintf("web_fetch needs a full URL with its scheme; %q has none (did you mean \"https://%s\"?).", raw, strings.TrimPrefix(raw, "//"))
	default:
		return nil, fmt.Sprintf("web_fetch fetches only http and https URLs; %q uses %s.", raw, u.Scheme)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Sprintf("web_fetch: %q has an invalid port (%s); a port is a number from 1 to 65535.", raw, p)
		}
	}
	if u.Hostname() == "" {
		return nil, fmt.Sprintf("web_fetch: %q has no host name; give a full address such as https://example.com/page.", raw)
	}
	return u, ""
}

// validHeaderName reports whether s is an HTTP token (RFC 9110 §5.6.2).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
