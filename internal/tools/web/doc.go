// Package web holds the tools that reach the web: web_fetch (one URL, fetched with a
// bounded GET and turned into Markdown or plain text) and web_search (Exa's search API,
// declared only when an API key is configured).
//
// Every request is bounded: at most Options.MaxRedirects redirects, Options.Timeout for
// the whole exchange (body included), Options.MaxBody bytes read. Every failure the model
// can meet — an invalid URL, a name that does not resolve, a refused connection, a bad
// certificate, a timeout, a redirect loop, an HTTP error — is one sentence returned as an
// error result; binary content is described in one line, never dumped.
package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/version"
)

// Options configure the web tools. The zero value is usable: web_fetch with the default
// limits, and no web_search.
type Options struct {
	// Client sends the requests. nil means a client with the limits below; a client
	// given without a redirect policy gets one that stops after MaxRedirects.
	Client *http.Client
	// Pool owns the connections kept between calls (a process resource, closed with
	// the process's pool) when Client is nil; nil: each request's own, kept no longer.
	Pool *resource.Pool
	// MaxBody is how many bytes of a body are read at most; past it the text says it
	// was cut. 0 means DefaultMaxBody.
	MaxBody int64
	// Timeout bounds a whole request, body included. 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxRedirects is how many redirects a fetch follows. 0 means DefaultMaxRedirects.
	MaxRedirects int
	// ExaAPIKey is the key of Exa's search API; web_search is declared only when set.
	ExaAPIKey string
	// ExaBaseURL is where Exa's API lives; "" means DefaultExaBaseURL.
	ExaBaseURL string
	// UserAgent is sent with every request; "" means DefaultUserAgent.
	UserAgent string
	// MaxOutput bounds web_fetch's result, in characters, header and notes included
	// (0: tool.DefaultMaxOutput): the session's maxOutput.
	MaxOutput int
}

// The defaults used for the zero fields of Options.
const (
	DefaultMaxBody      = 10 << 20
	DefaultTimeout      = 30 * time.Second
	DefaultMaxRedirects = 5
	DefaultExaBaseURL   = "https://api.exa.ai"
)

// DefaultUserAgent is gantry's User-Agent, with its version (version.UserAgent).
var DefaultUserAgent = version.UserAgent()

// WithEnv returns o with the Exa settings that are unset taken from the environment
// variables EXA_API_KEY and EXA_BASE_URL, read through getenv (os.Getenv).
func (o Options) WithEnv(getenv func(string) string) Options {
	if o.ExaAPIKey == "" {
		o.ExaAPIKey = strings.TrimSpace(getenv("EXA_API_KEY"))
	}
	if o.ExaBaseURL == "" {
		o.ExaBaseURL = strings.TrimSpace(getenv("EXA_BASE_URL"))
	}
	return o
}

// Tools returns web_fetch, and web_search when o.ExaAPIKey is set.
func Tools(o Options) []tool.Tool {
	ts := []tool.Tool{Fetch(o)}
	if o.ExaAPIKey != "" {
		ts = append(ts, Search(o))
	}
	return ts
}

func (o Options) maxOutput() int { return tool.MaxOutputOr(o.MaxOutput) }

func (o Options) maxBody() int64 {
	if o.MaxBody <= 0 {
		return DefaultMaxBody
	}
	return o.MaxBody
}

func (o Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

func (o Options) maxRedirects() int {
	if o.MaxRedirects <= 0 {
		return DefaultMaxRedirects
	}
	return o.MaxRedirects
}

func (o Options) exaBaseURL() string {
	if o.ExaBaseURL == "" {
		return DefaultExaBaseURL
	}
	return strings.TrimRight(o.ExaBaseURL, "/")
}

func (o Options) userAgent() string {
	if o.UserAgent == "" {
		return DefaultUserAgent
	}
	return o.UserAgent
}
