package resource

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/gantry-dev/gantry/internal/testenv"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fake is a resource that records its closing in a shared log.
type fake struct {
	name string
	log  *[]string
	mu   *sync.Mutex
	err  error
}

func (f *fake) Close(context.Context) error {
	f.mu.Lock()
	*f.log = append(*f.log, f.name)
	f.mu.Unlock()
	return f.err
}

type recorder struct {
	mu  sync.Mutex
	log []string
}

func (r *recorder) make(name string, err error) *fake {
	return &fake{name: name, log: &r.log, mu: &r.mu, err: err}
}

func (r *recorder) closed() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}

func TestStartedOnceAndShared(t *testing.T) {
	p := NewPool(nil)
	var rec recorder
	var starts atomic.Int32
	release := make(chan struct{})
	key := Key{Kind: "lsp:gopls", Of: "/src/a"}
	start := func(context.Context) (*fake, error) {
		starts.Add(1)
		<-release // every Get below arrives while the first start runs
		return rec.make("gopls", nil), nil
	}
	var wg sync.WaitGroup
	got := make([]*fake, 8)
	var entered sync.WaitGroup
	entered.Add(len(got))
	for i := range got {
		wg.Go(func() {
			entered.Done()
			r, err := Get(context.Background(), p, key, start)
			if err != nil {
				t.Error(err)
			}
			got[i] = r
		})
	}
	testenv.Wait(t, &entered, testenv.Bound, "every Get to begin")
	close(release)
	testenv.Wait(t, &wg, testenv.Bound, "every Get to end")
	if n := starts.Load(); n != 1 {
		t.Fatalf("started %d times, want once", n)
	}
	for _, r := range got {
		if r != got[0] {
			t.Fatal("the Gets were given different resources")
		}
	}
	if r, ok := Peek[*fake](p, key); !ok || r != got[0] {
		t.Fatal("Peek does not see the running resource")
	}
	if _, ok := Peek[*fake](p, Key{Kind: "lsp:gopls", Of: "/src/b"}); ok {
		t.Fatal("Peek found a resource for another root")
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c := rec.closed(); len(c) != 1 {
		t.Fatalf("closed %v, want gopls once", c)
	}
}

func TestFailedStartIsTriedAgain(t *testing.T) {
	p := NewPool(nil)
	defer p.Close(context.Background())
	var rec recorder
	key := Key{Kind: "kernel:python", Of: "conv-1"}
	_, err := Get(context.Background(), p, key, func(context.Context) (*fake, error) {
		return nil, errors.New("python3 is not on PATH")
	})
	if err == nil || !strings.Contains(err.Error(), "python3") {
		t.Fatalf("err = %v", err)
	}
	if len(p.Running()) != 0 {
		t.Fatal("a failed start is kept")
	}
	r, err := Get(context.Background(), p, key, func(context.Context) (*fake, error) { return rec.make("python", nil), nil })
	if err != nil || r == nil {
		t.Fatalf("second start: %v", err)
	}
	_, err = Get(context.Background(), p, Key{Kind: "x", Of: ""}, func(context.Context) (*fake, error) { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("a panicking start must fail with its value: %v", err)
	}
}

func TestCloseInReverseOrderWithErrors(t *testing.T) {
	var reported []string
	p := NewPool(func(k Key, err error) { reported = append(reported, k.String()+": "+err.Error()) })
	var rec recorder
	for _, n := range []string{"first", "second", "third"} {
		var err error
		if n == "second" {
			err = errors.New("the adapter did not exit")
		}
		if _, err := Get(context.Background(), p, Key{Kind: n, Of: "/r"}, func(context.Context) (*fake, error) { return rec.make(n, err), nil }); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.Running(); len(got) != 3 || got[0].Kind != "first" {
		t.Fatalf("running %v", got)
	}
	err := p.Close(context.Background())
	if err == nil || !strings.Contains(err.Error(), "second (/r): the adapter did not exit") {
		t.Fatalf("Close error = %v", err)
	}
	if got := strings.Join(rec.closed(), " "); got != "third second first" {
		t.Fatalf("closed in order %q, want newest first", got)
	}
	if _, err := Get(context.Background(), p, Key{Kind: "late", Of: ""}, func(context.Context) (*fake, error) { return rec.make("late", nil), nil }); !errors.Is(err, ErrClosed) {
		t.Fatalf("Get after Close: %v", err)
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if len(reported) != 0 {
		t.Fatalf("closing is not a failure to report: %v", reported)
	}
}

func TestStopAndFail(t *testing.T) {
	var reported []string
	p := NewPool(func(k Key, err error) { reported = append(reported, k.String()+": "+err.Error()) })
	defer p.Close(context.Background())
	var rec recorder
	key := Key{Kind: "lsp:clangd", Of: "/src"}
	n := 0
	start := func(context.Context) (*fake, error) { n++; return rec.make("clangd", nil), nil }
	first, _ := Get(context.Background(), p, key, start)
	if err := p.Stop(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	second, _ := Get(context.Background(), p, key, start)
	if n != 2 || first == second {
		t.Fatalf("Stop must make the next Get start again (starts %d)", n)
	}
	p.Fail(key, errors.New("clangd exited with status 1"))
	if len(reported) != 1 || !strings.Contains(reported[0], "lsp:clangd (/src): clangd exited") {
		t.Fatalf("reported %v", reported)
	}
	if len(p.Running()) != 0 || len(rec.closed()) != 2 {
		t.Fatalf("a failed resource must be dropped and closed: running %v, closed %v", p.Running(), rec.closed())
	}
	if err := p.Stop(context.Background(), Key{Kind: "none", Of: ""}); err != nil {
		t.Fatal(err)
	}
}

func TestWaitingGetHonoursItsContext(t *testing.T) {
	p := NewPool(nil)
	defer p.Close(context.Background())
	var rec recorder
	key := Key{Kind: "slow", Of: ""}
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := Get(context.Background(), p, key, func(context.Context) (*fake, error) {
			close(started)
			<-release
			return rec.make("slow", nil), nil
		})
		done <- err
	}()
	testenv.Recv(t, started, testenv.Bound, "the first start")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Get(ctx, p, key, func(context.Context) (*fake, error) { t.Error("started twice"); return nil, nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait: %v", err)
	}
	close(release)
	if err := testenv.Recv(t, done, testenv.Bound, "the first Get to end"); err != nil {
		t.Fatal(err)
	}
}

func TestClosedWhileStarting(t *testing.T) {
	p := NewPool(nil)
	var rec recorder
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := Get(context.Background(), p, Key{Kind: "late", Of: ""}, func(context.Context) (*fake, error) {
			close(started)
			<-release
			return rec.make("late", nil), nil
		})
		done <- err
	}()
	testenv.Recv(t, started, testenv.Bound, "the start")
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := testenv.Recv(t, done, testenv.Bound, "the Get whose start ends after Close"); !errors.Is(err, ErrClosed) {
		t.Fatalf("a start that ends after Close: %v", err)
	}
	if c := rec.closed(); len(c) != 1 {
		t.Fatalf("the late resource must be closed at once: %v", c)
	}
}

func TestWrongType(t *testing.T) {
	p := NewPool(nil)
	defer p.Close(context.Background())
	var rec recorder
	key := Key{Kind: "k", Of: ""}
	if _, err := Get(context.Background(), p, key, func(context.Context) (*fake, error) { return rec.make("k", nil), nil }); err != nil {
		t.Fatal(err)
	}
	type other struct{ *fake }
	if _, err := Get(context.Background(), p, key, func(context.Context) (other, error) { return other{}, nil }); err == nil {
		t.Fatal("a Get of another type must fail")
	}
}
