package anthropic

import (
	"context"
	"errors"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/gantry-dev/gantry/internal/llm"
)

// classify turns a failed call into the error to return: rate limits, overload and
// server errors (as HTTP status or as an error event in the stream) and broken
// connections are *llm.RetryableError; other API errors are plain, with the API's
// message; cancellation is returned as it is.
func classify(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("anthropic: %w", ctx.Err())
	}
	if err := llm.Stalled("anthropic", err); err != nil {
		return err
	}
	var ae *anthropic.Error
	if !errors.As(err, &ae) {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("anthropic: %w", err)
		}
		// The connection failed or broke off mid-stream.
		return llm.ConnectionError("anthropic", err)
	}
	kind := string(ae.Type())
	msg := ae.Message
	if msg == "" {
		msg = ae.RawJSON()
	}
	e := &llm.APIError{Msg: fmt.Sprintf("anthropic: HTTP %d %s: %s", ae.StatusCode, kind, msg), Cause: err}
	if ae.StatusCode == 200 {
		e.Msg = fmt.Sprintf("anthropic: error in stream: %s: %s", kind, msg)
	}
	if retryable(ae.StatusCode, kind) {
		var after float64
		if ae.Response != nil {
			after = llm.RetryAfter(ae.Response.Header)
		}
		return &llm.RetryableError{Err: e, After: after}
	}
	return e
}

func retryable(status int, kind string) bool {
	switch kind {
	case "overloaded_error", "rate_limit_error", "api_error", "timeout_error":
		return true
	}
	return status == 429 || status >= 500
}
