package testenv

import (
	"sync"
	"testing"
	"time"
)

// Bound is how long a test waits for something that should come at once: generous,
// so a busy machine does not fail it, and far below go test's 20-minute timeout, so a
// hang fails the one test with what it waited for.
const Bound = 30 * time.Second

// Recv returns the next value from ch, failing the test when none comes within bound
// (a closed channel gives the zero value at once, as a receive does).
func Recv[T any](t testing.TB, ch <-chan T, bound time.Duration, what string) T {
	t.Helper()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("waited %v in vain for %s", bound, what)
		var zero T
		return zero
	}
}

// Wait waits for wg, failing the test when it is not done within bound.
func Wait(t testing.TB, wg *sync.WaitGroup, bound time.Duration, what string) {
	t.Helper()
	Done(t, wg.Wait, bound, what)
}

// Done runs f (a call that blocks until something happens: a Wait, a Close) and
// fails the test when it has not returned within bound. A call that never returns is
// left behind, in a failed test.
func Done(t testing.TB, f func(), bound time.Duration, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	Recv(t, done, bound, what)
}

// Eventually polls cond until it holds, failing the test after bound.
func Eventually(t testing.TB, bound time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v in vain for %s", bound, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
