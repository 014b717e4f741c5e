package llm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// DefaultMaxRetryAfter is the longest wait a server's Retry-After is obeyed for
// (config model.maxRetryAfter).
const DefaultMaxRetryAfter = 60 * time.Second

// RetryPolicy says how WithRetry retries a failed call. Zero fields take the
// defaults: 5 attempts, backoff from 1s doubling up to 30s, Retry-After obeyed up
// to a minute, real sleeping.
type RetryPolicy struct {
	// MaxAttempts is the most calls made for one request, the first included.
	MaxAttempts int
	// Base is the backoff before the first retry; it doubles per retry up to Max.
	Base, Max time.Duration
	// MaxRetryAfter caps the wait a server asks for with Retry-After: a longer one
	// waits this long, and the notice says so.
	MaxRetryAfter time.Duration
	// Sleep waits d or until ctx is done, returning ctx's error in that case.
	// Tests replace it to run without waiting.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 5
	}
	if p.Base <= 0 {
		p.Base = time.Second
	}
	if p.Max <= 0 {
		p.Max = 30 * time.Second
	}
	if p.Max < p.Base {
		p.Max = p.Base
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if p.Sleep == nil {
		p.Sleep = sleepContext
	}
	return p
}

// backoff is the wait before retry number n (1 for the first retry): the server's
// Retry-After when it gave one, up to MaxRetryAfter, else exponential backoff with
// equal jitter, so the wait lies between half and all of min(Max, Base·2ⁿ⁻¹).
func (p RetryPolicy) backoff(n int, after float64) time.Duration {
	if after > 0 {
		return min(retryAfter(after), p.MaxRetryAfter)
	}
	d := p.Base
	for i := 1; i < n && d < p.Max; i++ {
		d *= 2
	}
	d = min(d, p.Max)
	half := d / 2
	return half + rand.N(d-half+1)
}

// retryAfter is a Retry-After in seconds as a duration, saturating rather than
// overflowing for an absurd value.
func retryAfter(seconds float64) time.Duration {
	if seconds >= float64(math.MaxInt64/int64(time.Second)) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(seconds * float64(time.Second))
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WithRetry wraps p so that a call failing with a RetryableError is made again,
// after a backoff, up to pol.MaxAttempts calls in all. Before each retry it emits a
// DeltaRetry delta whose Text gives the reason, so a face can discard what it showed
// of the failed attempt. Other errors, and cancellation of ctx (also while waiting),
// end the call at once.
func WithRetry(p Provider, pol RetryPolicy) Provider {
	return &retrying{p: p, pol: pol.withDefaults()}
}

type retrying struct {
	p   Provider
	pol RetryPolicy
}

func (r *retrying) Name() string { return r.p.Name() }

func (r *retrying) SearchesTools() bool { return SearchesTools(r.p) }

func (r *retrying) Stream(ctx context.Context, req Request, emit func(Delta)) (Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := r.p.Stream(ctx, req, emit)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil || !IsRetryable(err) {
			return Response{}, err
		}
		if attempt >= r.pol.MaxAttempts {
			return Response{}, fmt.Errorf("giving up after %d attempts: %w", attempt, err)
		}
		var after float64
		if re := (*RetryableError)(nil); errors.As(err, &re) {
			after = re.After
		}
		wait := r.pol.backoff(attempt, after)
		why := fmt.Sprintf("%v; retrying in %s", err, wait.Round(time.Millisecond))
		if asked := retryAfter(after); asked > wait {
			why = fmt.Sprintf("%v; the server asked to wait %s; waiting %s, the cap of model.maxRetryAfter",
				err, asked.Round(time.Second), wait.Round(time.Millisecond))
		}
		emit(Delta{Type: DeltaRetry, Text: fmt.Sprintf("%s (attempt %d of %d)", why, attempt+1, r.pol.MaxAttempts)})
		if err := r.pol.Sleep(ctx, wait); err != nil {
			return Response{}, fmt.Errorf("waiting to retry: %w", err)
		}
	}
}
