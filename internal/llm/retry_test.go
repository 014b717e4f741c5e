package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// scripted is a Provider that fails with the given errors, in order, then succeeds.
type scripted struct {
	errs  []error
	calls int
}

func (s *scripted) Name() string { return "scripted" }

func (s *scripted) Stream(_ context.Context, _ Request, emit func(Delta)) (Response, error) {
	s.calls++
	emit(Delta{Type: DeltaText, Text: "partial"})
	if len(s.errs) > 0 {
		err := s.errs[0]
		s.errs = s.errs[1:]
		return Response{}, err
	}
	return Response{StopReason: "end_turn"}, nil
}

type sleeps struct{ got []time.Duration }

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.got = append(s.got, d)
	return ctx.Err()
}

func collect(ds *[]Delta) func(Delta) { return func(d Delta) { *ds = append(*ds, d) } }

func retries(ds []Delta) int {
	n := 0
	for _, d := range ds {
		if d.Type == DeltaRetry {
			n++
		}
	}
	return n
}

func TestWithRetryRetriesRetryableThenSucceeds(t *testing.T) {
	p := &scripted{errs: []error{
		&RetryableError{Err: errors.New("429")},
		&RetryableError{Err: errors.New("overloaded")},
	}}
	var sl sleeps
	var ds []Delta
	resp, err := WithRetry(p, RetryPolicy{Base: 100 * time.Millisecond, Max: time.Second, Sleep: sl.sleep}).
		Stream(context.Background(), Request{}, collect(&ds))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if resp.StopReason != "end_turn" || p.calls != 3 {
		t.Fatalf("stop=%q calls=%d", resp.StopReason, p.calls)
	}
	if retries(ds) != 2 {
		t.Fatalf("DeltaRetry count = %d, want 2", retries(ds))
	}
	if !strings.Contains(ds[1].Text, "429") {
		t.Errorf("retry reason %q does not name the error", ds[1].Text)
	}
	// Equal jitter: the n-th wait lies in [Base·2ⁿ⁻¹/2, Base·2ⁿ⁻¹].
	if d := sl.got[0]; d < 50*time.Millisecond || d > 100*time.Millisecond {
		t.Errorf("first wait %v out of range", d)
	}
	if d := sl.got[1]; d < 100*time.Millisecond || d > 200*time.Millisecond {
		t.Errorf("second wait %v out of range", d)
	}
}

func TestWithRetryHonoursRetryAfter(t *testing.T) {
	p := &scripted{errs: []error{&RetryableError{Err: errors.New("slow down"), After: 7}}}
	var sl sleeps
	var ds []Delta
	if _, err := WithRetry(p, RetryPolicy{Sleep: sl.sleep}).Stream(context.Background(), Request{}, collect(&ds)); err != nil {
		t.Fatal(err)
	}
	if len(sl.got) != 1 || sl.got[0] != 7*time.Second {
		t.Fatalf("waits = %v, want [7s]", sl.got)
	}
}

func TestWithRetryBackoffIsCapped(t *testing.T) {
	pol := RetryPolicy{Base: time.Second, Max: 4 * time.Second}.withDefaults()
	for i := 0; i < 50; i++ {
		if d := pol.backoff(10, 0); d < 2*time.Second || d > 4*time.Second {
			t.Fatalf("backoff(10) = %v, want within [2s, 4s]", d)
		}
	}
}

func TestWithRetryGivesUp(t *testing.T) {
	errs := make([]error, 10)
	for i := range errs {
		errs[i] = &RetryableError{Err: errors.New("503")}
	}
	p := &scripted{errs: errs}
	var sl sleeps
	var ds []Delta
	_, err := WithRetry(p, RetryPolicy{MaxAttempts: 3, Sleep: sl.sleep}).Stream(context.Background(), Request{}, collect(&ds))
	if err == nil || !IsRetryable(err) || !strings.Contains(err.Error(), "3 attempts") {
		t.Fatalf("err = %v", err)
	}
	if p.calls != 3 || retries(ds) != 2 {
		t.Fatalf("calls=%d retries=%d, want 3 and 2", p.calls, retries(ds))
	}
}

func TestWithRetryDoesNotRetryPlainErrors(t *testing.T) {
	p := &scripted{errs: []error{errors.New("400 bad request")}}
	var ds []Delta
	_, err := WithRetry(p, RetryPolicy{Sleep: (&sleeps{}).sleep}).Stream(context.Background(), Request{}, collect(&ds))
	if err == nil || p.calls != 1 || retries(ds) != 0 {
		t.Fatalf("err=%v calls=%d retries=%d", err, p.calls, retries(ds))
	}
}

func TestWithRetryStopsWhenContextIsCancelledDuringSleep(t *testing.T) {
	p := &scripted{errs: []error{&RetryableError{Err: errors.New("429")}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	var ds []Delta
	// The retry notice goes out just before the wait of a minute: cancel then, so
	// that the default sleep has to notice the context.
	emit := func(d Delta) {
		ds = append(ds, d)
		if d.Type == DeltaRetry {
			cancel()
		}
	}
	_, err := WithRetry(p, RetryPolicy{Base: time.Minute, Max: time.Minute}).Stream(ctx, Request{}, emit)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if time.Since(start) > 5*time.Second || p.calls != 1 || retries(ds) != 1 {
		t.Fatalf("took %v, %d calls, %d retry notices", time.Since(start), p.calls, retries(ds))
	}
}

func TestRetryAfterHeader(t *testing.T) {
	tests := []struct {
		h    http.Header
		want float64
	}{
		{http.Header{"Retry-After": {"3"}}, 3},
		{http.Header{"Retry-After": {"0"}}, 0},
		{http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"9"}}, 1.5},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{}, 0},
		{nil, 0},
	}
	for _, tt := range tests {
		if got := RetryAfter(tt.h); got != tt.want {
			t.Errorf("RetryAfter(%v) = %v, want %v", tt.h, got, tt.want)
		}
	}
	future := http.Header{"Retry-After": {time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}}
	if got := RetryAfter(future); got < 3500 || got > 3601 {
		t.Errorf("RetryAfter(date in an hour) = %v", got)
	}
}
