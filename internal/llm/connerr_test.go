package llm

import (
	"errors"
	"net"
	"net/url"
	"strings"
	"syscall"
	"testing"
)

func TestConnectionErrors(t *testing.T) {
	refused := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/v1/messages", Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}
	if err := ConnectionError("anthropic", refused); !IsRetryable(err) || !strings.Contains(err.Error(), "connection failed") {
		t.Errorf("a refused connection (a server starting up) is worth a retry: %v", err)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{&url.Error{Op: "Post", URL: "http://x.invalid", Err: &net.OpError{Op: "dial", Err: &net.DNSError{Name: "x.invalid", IsNotFound: true}}}, "x.invalid is unknown"},
		{&url.Error{Op: "Post", URL: "ftp://x", Err: errors.New(`unsupported protocol scheme "ftp"`)}, "not an http or https URL"},
		{errors.New("no Anthropic credentials found. The SDK tried these sources in order:"), "no API key"},
	} {
		err := ConnectionError("anthropic", c.err)
		if IsRetryable(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v → %v (retryable %v), want one line with %q", c.err, err, IsRetryable(err), c.want)
		}
	}
}
