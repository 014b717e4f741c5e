package openai

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

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
	var ae *openai.Error
	var se *ssestream.StreamError
	switch {
	case errors.As(err, &ae):
		kind := ae.Code
		if kind == "" {
			kind = ae.Type
		}
		msg := ae.Message
		if msg == "" {
			msg = ae.RawJSON()
		}
		e := &llm.APIError{Msg: fmt.Sprintf("%s: HTTP %d %s: %s", name, ae.StatusCode, kind, msg), Cause: err}
		if ae.StatusCode == 429 || ae.StatusCode >= 500 {
			var after float64
			if ae.Response != nil {
				after = llm.RetryAfter(ae.Response.Header)
			}
			return &llm.RetryableError{Err: e, After: after}
		}
		return e
	case errors.As(err, &se):
		return streamError(name, se.Message, !strings.Contains(se.Message, "invalid_request"))
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %w", name, err)
	}
	return llm.ConnectionError(name, err)
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
