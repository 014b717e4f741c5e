package web

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"
)

func as(err error, target any) bool { return errors.As(err, target) }

// failure turns the error of a request into one sentence for the model. parent is the
// context of the call: when it is done the call was cancelled, whereas a deadline of
// the request's own (timeout) is reported as a timeout.
func failure(tool, target string, err error, parent context.Context, timeout time.Duration) string {
	host := target
	if u, perr := url.Parse(target); perr == nil && u.Host != "" {
		host = u.Host
	}
	if parent.Err() != nil {
		return tool + " was cancelled."
	}
	var re *redirectError
	if as(err, &re) {
		return fmt.Sprintf("%s stopped after %d redirects (%s); the page redirects too often or in a loop, so fetch its final address directly.", tool, re.max, chainLine(re.chain))
	}
	var dns *net.DNSError
	if as(err, &dns) {
		name := dns.Name
		if name == "" {
			name = hostOnly(host)
		}
		switch {
		case dns.IsNotFound:
			return fmt.Sprintf("%s could not find the host %s (no such host); check the domain name.", tool, name)
		case dns.IsTimeout:
			return fmt.Sprintf("%s could not resolve the host %s: the DNS lookup timed out.", tool, name)
		default:
			return fmt.Sprintf("%s could not resolve the host %s (%s).", tool, name, dns.Err)
		}
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return fmt.Sprintf("%s gave up on %s after %s: the server did not answer in time (timeout).", tool, target, timeout)
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Sprintf("%s could not connect to %s: the connection was refused (nothing is listening there).", tool, host)
	}
	if msg := tlsProblem(err); msg != "" {
		return fmt.Sprintf("%s could not make a secure connection to %s: %s.", tool, host, msg)
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Sprintf("%s lost the connection to %s: the server closed it before a complete answer.", tool, host)
	}
	if errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH) {
		return fmt.Sprintf("%s could not reach %s: the network or host is unreachable.", tool, host)
	}
	if strings.Contains(err.Error(), "unsupported protocol scheme") {
		return fmt.Sprintf("%s was redirected to an address that is not http or https (%s).", tool, inner(err))
	}
	return fmt.Sprintf("%s could not fetch %s: %s.", tool, target, strings.TrimSuffix(inner(err), "."))
}

// tlsProblem says what is wrong with a TLS handshake, or "" when err is not about TLS.
func tlsProblem(err error) string {
	var unknown x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	var record tls.RecordHeaderError
	var alert tls.AlertError
	var verify *tls.CertificateVerificationError
	switch {
	case as(err, &unknown):
		return "its certificate is signed by an unknown authority (self-signed or a private CA)"
	case as(err, &hostErr):
		return fmt.Sprintf("its certificate is not valid for %s", hostErr.Host)
	case as(err, &invalid):
		if invalid.Reason == x509.Expired {
			return "its certificate has expired or is not yet valid"
		}
		return "its certificate is invalid (" + invalid.Error() + ")"
	case as(err, &verify):
		return "its certificate could not be verified (" + verify.Err.Error() + ")"
	case as(err, &record):
		return "the server does not speak TLS there (try http:// instead of https://)"
	case as(err, &alert):
		return "the TLS handshake failed (" + alert.Error() + ")"
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return "the server speaks plain HTTP there (use http:// instead of https://)"
	case strings.Contains(err.Error(), "tls: "):
		return "the TLS handshake failed (" + inner(err) + ")"
	}
	return ""
}

func isTimeout(err error) bool {
	var ne net.Error
	return as(err, &ne) && ne.Timeout()
}

// inner is the message of err without the "Get \"url\": " prefix of a *url.Error.
func inner(err error) string {
	var ue *url.Error
	if as(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}
