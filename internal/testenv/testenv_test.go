package testenv

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is a testing.TB whose Fatalf and Skip end the calling goroutine, as the
// real ones do, after noting what they said.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Errorf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

func (r *recorder) Logf(format string, args ...any) { r.skip = fmt.Sprintf(format, args...) }

func (r *recorder) Skip(args ...any) {
	r.skip = fmt.Sprint(args...)
	runtime.Goexit()
}

// run calls f with a recorder on a goroutine of its own, as a test runs.
func run(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	Recv(t, done, Bound, "the helper to end")
	return r
}

func TestNeedSkipsLocallyAndFailsUnderCI(t *testing.T) {
	if p := Need(t, "sh"); !strings.HasSuffix(p, "/sh") {
		t.Errorf("Need(sh) = %q", p)
	}
	t.Setenv("GANTRY_TEST_ADAPTERS", "")
	r := run(t, func(tb testing.TB) { Need(tb, "no-such-program-here") })
	if r.skip != "no-such-program-here is not installed" || r.fatal != "" {
		t.Errorf("without .ci/run: skip %q, fatal %q", r.skip, r.fatal)
	}
	var has bool
	r = run(t, func(tb testing.TB) { has = Has(tb, "no-such-program-here") })
	if has || r.fatal != "" || !strings.Contains(r.skip, "left out") {
		t.Errorf("Has without .ci/run: %v, said %q, failed %q", has, r.skip, r.fatal)
	}
	t.Setenv("GANTRY_TEST_ADAPTERS", "1")
	r = run(t, func(tb testing.TB) { has = Has(tb, "no-such-program-here") })
	if has || !strings.HasPrefix(r.fatal, "no-such-program-here is not installed (.ci/run") {
		t.Errorf("Has under .ci/run: %v, failed %q", has, r.fatal)
	}
	r = run(t, func(tb testing.TB) { NeedFile(tb, "/no/such/file", "the adapter") })
	if r.skip != "" || !strings.HasPrefix(r.fatal, "the adapter is not here (/no/such/file) (.ci/run installs it") {
		t.Errorf("under .ci/run: skip %q, fatal %q", r.skip, r.fatal)
	}
}

func TestWaitsFailWithWhatTheyWaitedFor(t *testing.T) {
	ch := make(chan int, 1)
	ch <- 7
	if v := Recv(t, ch, Bound, "a seven"); v != 7 {
		t.Errorf("Recv = %d", v)
	}
	r := run(t, func(tb testing.TB) { Recv(tb, make(chan int), time.Millisecond, "a value never sent") })
	if r.fatal != "waited 1ms in vain for a value never sent" {
		t.Errorf("Recv on a silent channel: %q", r.fatal)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	r = run(t, func(tb testing.TB) { Wait(tb, &wg, time.Millisecond, "a worker that never ends") })
	if r.fatal != "waited 1ms in vain for a worker that never ends" {
		t.Errorf("Wait on a busy group: %q", r.fatal)
	}
	wg.Done()
	Wait(t, &wg, Bound, "the worker")
	n := 0
	Eventually(t, Bound, "three polls", func() bool { n++; return n == 3 })
	r = run(t, func(tb testing.TB) { Eventually(tb, time.Millisecond, "never", func() bool { return false }) })
	if r.fatal != "waited 1ms in vain for never" {
		t.Errorf("Eventually: %q", r.fatal)
	}
}
