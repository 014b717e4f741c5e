package llm

import (
	"crypto/x509"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"strings"
)

// ConnectionError is the error of a request that got no answer from the server: the
// connection failed or broke off. It is worth retrying unless it cannot succeed on a
// second try — the host does not exist, its certificate is refused, the URL is not
// one a client can send to, no credentials are there to send: then it is returned
// as a plain error whose message says what to fix.
//
// An event the SDK could not decode is no failed connection: it is said as such
// (the stream guard finds most of them first, with their position).
func ConnectionError(name string, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return &APIError{Msg: name + ": the model's stream sent an event gantry cannot read: " + err.Error(), Cause: err}
	}
	if why := hopeless(err); why != "" {
		return &APIError{Msg: name + ": " + why, Cause: err}
	}
	return &RetryableError{Err: errors.Join(errors.New(name+": connection failed"), err)}
}

// hopeless says why a failed connection cannot succeed on retry, or "".
func hopeless(err error) string {
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return "the host " + dns.Name + " is unknown (check the base URL: ANTHROPIC_BASE_URL / OPENAI_BASE_URL)"
	}
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	if errors.As(err, &unknownAuthority) || errors.As(err, &hostname) || errors.As(err, &invalid) {
		return "the server's TLS certificate is not accepted: " + err.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) && strings.Contains(ue.Err.Error(), "unsupported protocol scheme") {
		return "the base URL " + ue.URL + " is not an http or https URL"
	}
	if strings.Contains(err.Error(), "no Anthropic credentials found") {
		return "no API key: set ANTHROPIC_API_KEY (or, for a local server, ANTHROPIC_BASE_URL)"
	}
	return ""
}
