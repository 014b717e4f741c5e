// Command startup times gantry's start-up alone — process start → the first request at
// a fake model server (internal/llm/fakellm) — for several builds run alternately, round
// after round, in one run, and prints each one's median. It is the start-up column of
// the peer bench (bench/peer) without the edit and the go test, so that many rounds fit
// in a minute on a busy machine. A benchmark, not a test: no figure is asserted.
//
//	go build -o /tmp/startup ./bench/startup
//	/tmp/startup -rounds 30 NEW-GANTRY OLD-GANTRY
//
// Each binary runs `-p hi --permission-mode yolo` in a small Go module, with a data and
// config folder of its own kept across rounds, as a user's are; the first round of each
// is left out (its folders are new). With -trace FILE, the run's stderr is appended to
// FILE after a RUN line and a REQ line with the start-up in ms, and the variable
// STARTUP_T0 (the start in Unix nanoseconds) is set for it: a build instrumented to
// print its stages' times against it gives a breakdown (docs/benchmarks.md).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

func main() {
	rounds := flag.Int("rounds", 20, "rounds; each runs every binary once, in turn")
	trace := flag.String("trace", "", "append each run's stderr and start-up to this file")
	flag.Parse()
	bins := flag.Args()
	if len(bins) == 0 || *rounds < 2 {
		fmt.Fprintln(os.Stderr, "usage: startup [-rounds N (≥ 2)] [-trace FILE] GANTRY...")
		os.Exit(2)
	}
	work, err := os.MkdirTemp("", "startup")
	check(err)
	defer os.RemoveAll(work)
	proj := filepath.Join(work, "proj")
	check(os.MkdirAll(proj, 0o755))
	check(os.WriteFile(filepath.Join(proj, "go.mod"), []byte("module example.com/x\n\ngo 1.22\n"), 0o644))

	var mu sync.Mutex
	var first time.Time // the first request's arrival in the current run
	fake := fakellm.NewFunc(func(fakellm.Recorded) fakellm.Turn {
		return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("ok")}}
	})
	defer fake.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if first.IsZero() {
			first = time.Now()
		}
		mu.Unlock()
		fake.ServeHTTP(w, r)
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "http://" + ln.Addr().String()

	times := make([][]float64, len(bins))
	for r := range *rounds {
		for i, bin := range bins {
			mu.Lock()
			first = time.Time{}
			mu.Unlock()
			cmd := exec.Command(bin, "-p", "hi", "--permission-mode", "yolo")
			cmd.Dir = proj
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			start := time.Now()
			cmd.Env = append(os.Environ(), "ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY=bench", "NO_COLOR=1", "GANTRY_PROVIDER=anthropic",
				"GANTRY_DATA_DIR="+filepath.Join(work, fmt.Sprint("data", i)), "GANTRY_CONFIG_DIR="+filepath.Join(work, fmt.Sprint("config", i)),
				fmt.Sprintf("STARTUP_T0=%d", start.UnixNano()))
			if err := cmd.Run(); err != nil {
				check(fmt.Errorf("%s: %v\n%s", bin, err, stderr.String()))
			}
			mu.Lock()
			ms := float64(first.Sub(start).Microseconds()) / 1000
			mu.Unlock()
			if r == 0 {
				continue // new data and config folders
			}
			times[i] = append(times[i], ms)
			if *trace != "" {
				f, err := os.OpenFile(*trace, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				check(err)
				_, err = fmt.Fprintf(f, "RUN %s\n%sREQ %.2f\n", bin, stderr.String(), ms)
				check(err)
				check(f.Close())
			}
		}
	}
	fmt.Printf("# start-up (process start → first request), %d rounds alternated, %s\n", *rounds-1, time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	for i, bin := range bins {
		xs := times[i]
		slices.Sort(xs)
		fmt.Printf("%-40s median %.1f ms (quartiles %.1f–%.1f, range %.1f–%.1f)\n", bin, xs[len(xs)/2], xs[len(xs)/4], xs[3*len(xs)/4], xs[0], xs[len(xs)-1])
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "startup:", err)
		os.Exit(1)
	}
}
