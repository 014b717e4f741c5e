package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/gantry-dev/gantry/internal/llm"
)

// classify turns a failed call into the error to return: 429, 5xx, errors in the
// stream that name a server-side cause, and broken connections are
// *llm.RetryableError; other API errors are plain, with the API's message;
// cancellation is returned as it is. name prefixes the message.
func classify(ctx context.Context, name string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", name, ctx.Err())
	}
	if err := llm.Stalled(name, err); err != nil {
		return err
	}
	var he *httpError
	var ae *responses.Error
	var se *ssestream.StreamError
	switch {
	case errors.As(err, &he):
		return he.classified(name)
	case errors.As(err, &ae):
		var header http.Header
		if ae.Response != nil {
			header = ae.Response.Header
		}
		msg := ae.Message
		if msg == "" {
			msg = ae.RawJSON()
		}
		return (&httpError{Status: ae.StatusCode, Code: ae.Code, Type: ae.Type, Message: msg, Header: header, cause: err}).classified(name)
	case errors.As(err, &se):
		return streamError(name, se.Message, !strings.Contains(se.Message, "invalid_request"))
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %w", name, err)
	}
	return llm.ConnectionError(name, err)
}

// httpError is an error status of the API, with what its body said.
type httpError struct {
	Status              int
	Code, Type, Message string
	Header              http.Header
	cause               error // the SDK's error it was made from, if any
}

func (e *httpError) Error() string {
	kind := e.Code
	if kind == "" {
		kind = e.Type
	}
	return fmt.Sprintf("HTTP %d %s: %s", e.Status, kind, e.Message)
}

func (e *httpError) Unwrap() error { return e.cause }

// classified is the error to return for e: retryable for 429 and 5xx, after the
// server's Retry-After.
func (e *httpError) classified(name string) error {
	err := &llm.APIError{Msg: name + ": " + e.Error(), Cause: e}
	if e.Status == http.StatusTooManyRequests || e.Status >= 500 {
		return &llm.RetryableError{Err: err, After: llm.RetryAfter(e.Header)}
	}
	return err
}

// maxErrorBody bounds what is read of an error response, and errorTextLen what
// of a body that is not the API's error object goes into the message.
const (
	maxErrorBody = 64 << 10
	errorTextLen = 1000
)

// readHTTPError reads the error of a response with an error status. OpenAI and
// most compatible servers send {"error": {"code", "type", "message"}}; some send
// {"error": "message"}; a body of any other shape is quoted (shortened) as the
// message.
func readHTTPError(res *http.Response) *httpError {
	e := &httpError{Status: res.StatusCode, Header: res.Header}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	var wrapper struct {
		Error json.RawMessage `json:"error"`
	}
	var obj struct {
		Code, Type, Message looseString
	}
	var text string
	switch {
	case json.Unmarshal(body, &wrapper) == nil && json.Unmarshal(wrapper.Error, &obj) == nil && (obj.Message != "" || obj.Code != "" || obj.Type != ""):
		e.Code, e.Type, e.Message = string(obj.Code), string(obj.Type), string(obj.Message)
		if e.Message == "" {
			e.Message = string(wrapper.Error)
		}
	case len(wrapper.Error) > 0 && json.Unmarshal(wrapper.Error, &text) == nil:
		e.Message = text
	default:
		e.Message = shorten(strings.TrimSpace(string(body)), errorTextLen)
		if e.Message == "" {
			e.Message = http.StatusText(res.StatusCode)
		}
	}
	if err != nil {
		e.Message += fmt.Sprintf(" (reading the rest of the body failed: %v)", err)
	}
	return e
}

// shorten cuts s to at most n bytes, at a character boundary.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// streamError is an error reported inside a stream, retryable or not.
func streamError(name, msg string, retry bool) error {
	err := fmt.Errorf("%s: error in stream: %s", name, msg)
	if retry {
		return &llm.RetryableError{Err: err}
	}
	return err
}

// retryableCode reports whether an error code in a Responses stream names a
// transient, server-side cause.
func retryableCode(code string) bool {
	for _, s := range []string{"server_error", "rate_limit", "overload", "unavailable"} {
		if strings.Contains(code, s) {
			return true
		}
	}
	return false
}
