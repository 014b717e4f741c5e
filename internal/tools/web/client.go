package web

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// sharedTransport is the transport of the default clients: the standard one (proxy from
// the environment, HTTP/2, gzip) with a bounded TLS handshake and a short idle life.
var sharedTransport = sync.OnceValue(func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSHandshakeTimeout = 10 * time.Second
	t.IdleConnTimeout = 30 * time.Second
	t.MaxIdleConnsPerHost = 4
	return t
})

// client returns the client a request goes through: Options.Client (with a redirect
// policy if it has none) or a client on the shared transport.
func (o Options) client() *http.Client {
	if o.Client == nil {
		return &http.Client{Transport: sharedTransport(), CheckRedirect: limitRedirects(o.maxRedirects())}
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
