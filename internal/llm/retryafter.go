package llm

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryAfter reads the delay a server asked for from response headers, in seconds:
// retry-after-ms (OpenAI) or Retry-After as seconds or an HTTP date. It returns 0
// when there is no usable header.
func RetryAfter(h http.Header) float64 {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return ms / 1000
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return max(s, 0)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t).Seconds(), 0)
	}
	return 0
}
