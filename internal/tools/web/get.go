package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

// acceptHeader prefers what web_fetch renders best; some servers answer Markdown directly.
const acceptHeader = "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.7, */*;q=0.5"

// fetch performs web_fetch: one bounded GET, then the body rendered for the model.
func fetch(ctx context.Context, o Options, a fetchArgs) tool.Result {
	u, msg := parseURL(a.URL)
	if msg != "" {
		return tool.Fail(msg)
	}
	if ctx.Err() != nil {
		return tool.Fail("web_fetch was cancelled.")
	}
	rctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return tool.Fail(failure("web_fetch", u.Redacted(), err, ctx, o.timeout()))
	}
	req.Header.Set("User-Agent", o.userAgent())
	req.Header.Set("Accept", acceptHeader)
	for k, v := range a.Headers {
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	if a.Authorization != "" {
		req.Header.Set("Authorization", a.Authorization)
	}
	resp, err := o.client().Do(req)
	if err != nil {
		return tool.Fail(failure("web_fetch", u.Redacted(), err, ctx, o.timeout()))
	}
	defer resp.Body.Close()
	b, err := readBody(resp, o.maxBody())
	if err != nil {
		return tool.Fail(failure("web_fetch", resp.Request.URL.Redacted(), err, ctx, o.timeout()))
	}
	if resp.StatusCode >= 400 {
		return tool.Fail(statusFailure(resp, b))
	}
	return tool.Result{Text: render(ctx, resp, b, a, o.maxOutput()), Display: tool.Display{Note: b.summary()}}
}
