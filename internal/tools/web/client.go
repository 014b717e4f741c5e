package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/resource"
)

// newTransport is the transport of the default clients: the standard one (proxy from
// the environment, HTTP/2, gzip) with a bounded TLS handshake and a short idle life.
func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSHandshakeTimeout = 10 * time.Second
	t.IdleConnTimeout = 30 * time.Second
	t.MaxIdleConnsPerHost = 4
	return t
}

// transportKey is the web tools' transport in the pool: one per process, for its
// connections go to the web, the same for every session.
func transportKey() resource.Key { return resource.Key{Kind: "http", Of: "the web tools' connections"} }

// sharedTransport is the process's transport, a resource: its idle connections are
// closed with the pool.
type sharedTransport struct{ *http.Transport }

func (t sharedTransport) Close(context.Context) error {
	t.CloseIdleConnections()
	return nil
}

// pooled sends through the transport of the pool, made by the first request.
type pooled struct{ pool *resource.Pool }

func (p pooled) RoundTrip(req *http.Request) (*http.Response, error) {
	t, err := resource.Get(req.Context(), p.pool, transportKey(), func(context.Context) (sharedTransport, error) {
		return sharedTransport{newTransport()}, nil
	})
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close() // a RoundTripper closes the body, even when it fails
		}
		return nil, err
	}
	return t.RoundTrip(req)
}

// client returns the client a request goes through: Options.Client (with a redirect
// policy if it has none), or a client on the pool's transport, or without a pool one
// of this request alone that keeps no connection open.
func (o Options) client() *http.Client {
	if o.Client == nil {
		var rt http.RoundTripper = pooled{o.Pool}
		if o.Pool == nil {
			t := newTransport()
			t.DisableKeepAlives = true
			rt = t
		}
		return &http.Client{Transport: rt, CheckRedirect: limitRedirects(o.maxRedirects())}
	}
	c := *o.Client
	if c.CheckRedirect == nil {
		c.CheckRedirect = limitRedirects(o.maxRedirects())
	}
	return &c
}

// redirectError is returned by the redirect policy when a fetch would follow one
// redirect more than it may.
type redirectError struct {
	max   int
	chain []string // the URLs requested, then the one refused
}

func (e *redirectError) Error() string {
	return fmt.Sprintf("stopped after %d redirects", e.max)
}

func limitRedirects(max int) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) <= max {
			return nil
		}
		chain := make([]string, 0, len(via)+1)
		for _, r := range via {
			chain = append(chain, r.URL.Redacted())
		}
		return &redirectError{max: max, chain: append(chain, req.URL.Redacted())}
	}
}

// redirects returns the URLs a response was redirected through, first the one asked
// for, last the one that answered; nil when there was no redirect.
func redirects(resp *http.Response) []string {
	var rev []string
	for r := resp.Request; r != nil; {
		rev = append(rev, r.URL.Redacted())
		if r.Response == nil {
			break
		}
		r = r.Response.Request
	}
	if len(rev) < 2 {
		return nil
	}
	out := make([]string, len(rev))
	for i, u := range rev {
		out[len(rev)-1-i] = u
	}
	return out
}

// chainLine shows a redirect chain on one line, eliding the middle of a long one.
func chainLine(chain []string) string {
	if len(chain) > 6 {
		head := strings.Join(chain[:3], " → ")
		tail := strings.Join(chain[len(chain)-2:], " → ")
		return fmt.Sprintf("%s → … (%d more) … → %s", head, len(chain)-5, tail)
	}
	return strings.Join(chain, " → ")
}
