package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// RetryPolicy says how WithRetry retries a failed call. Zero fields take the
// defaults: 5 attempts, backoff from 1s doubling up to 30s, real sleeping.
type RetryPolicy struct {
	// MaxAttempts is the most calls made for one request, the first included.
	MaxAttempts int
	// Base is the backoff before the first retry; it doubles per retry up to Max.
	Base, Max time.Duration
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
	if p.Sleep == nil {
		p.Sleep = sleepContext
	}
	return p
}

// backoff is the wait before retry number n (1 for the first retry): the server's
// Retry-After when it gave one, else exponential backoff with equal jitter, so
// the wait lies between half and all of min(Max, Base·2ⁿ⁻¹).
func (p RetryPolicy) backoff(n int, after float64) time.Duration {
	if after > 0 {
		return time.Duration(after * float64(time.Second))
	}
	d := p.Base
	for i := 1; i < n && d < p.Max; i++ {
		d *= 2
	}
	d = min(d, p.Max)
	half := d / 2
	return half + rand.N(d-half+1)
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
		emit(Delta{Type: DeltaRetry, Text: fmt.Sprintf("%v; retrying in %s (attempt %d of %d)",
			err, wait.Round(time.Millisecond), attempt+1, r.pol.MaxAttempts)})
		if err := r.pol.Sleep(ctx, wait); err != nil {
			return Response{}, fmt.Errorf("waiting to retry: %w", err)
		}
	}
}
