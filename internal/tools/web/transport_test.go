package web

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/resource"
)

// The web tools' connections are a process resource: none before the first fetch,
// one transport kept between calls (the second fetch reuses the first's connection),
// its idle connections closed with the pool (goleak sees none left).
func TestFetchKeepsConnectionsInThePool(t *testing.T) {
	var mu sync.Mutex
	remotes := map[string]bool{}
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		remotes[r.RemoteAddr] = true
		mu.Unlock()
		fmt.Fprint(w, "hello")
	}))
	pool := resource.NewPool(nil)
	fetch := Fetch(Options{Pool: pool})
	if got := pool.Running(); len(got) != 0 {
		t.Fatalf("building the tool started %v", got)
	}
	for range 2 {
		if res := call(t, fetch, map[string]any{"url": srv.URL}); res.IsError {
			t.Fatal(res.Text)
		}
	}
	if got := pool.Running(); len(got) != 1 || got[0] != transportKey() {
		t.Errorf("the pool runs %v", got)
	}
	mu.Lock()
	n := len(remotes)
	mu.Unlock()
	if n != 1 {
		t.Errorf("two fetches came from %d connections, want 1 kept alive", n)
	}
	if err := pool.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if res := call(t, fetch, map[string]any{"url": srv.URL}); !res.IsError {
		t.Error("a fetch through a closed pool succeeded")
	}
}
