// Command fakeserve serves a JSON model script (see package fakellm) on 127.0.0.1 and
// prints its base URL, for trying gantry by hand or profiling it without a real model:
//
//	go run ./bench/fakeserve [-dump DIR] script.json &
//	ANTHROPIC_BASE_URL=http://127.0.0.1:PORT ANTHROPIC_API_KEY=x gantry -p "…"
//
// With -dump, the body of every request is written to DIR as 001.json, 002.json, …
// in the order they arrived (the folder is made if need be), to read what the model
// was sent. It exits when stdin closes or on SIGINT/SIGTERM.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

func main() {
	dump := flag.String("dump", "", "write every request body to this folder as NNN.json")
	flag.Usage = func() { fmt.Fprintln(os.Stderr, "usage: fakeserve [-dump DIR] SCRIPT.json") }
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *dump); err != nil {
		fmt.Fprintln(os.Stderr, "fakeserve:", err)
		os.Exit(1)
	}
}

func run(script, dump string) error {
	f, err := os.Open(script)
	if err != nil {
		return err
	}
	turns, err := fakellm.LoadScript(f)
	f.Close()
	if err != nil {
		return err
	}
	srv := fakellm.New(turns...)
	defer srv.Close()
	url := srv.URL()
	if dump != "" {
		if err := os.MkdirAll(dump, 0o755); err != nil {
			return fmt.Errorf("making the dump folder: %w", err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("listening on loopback: %w", err)
		}
		d := &dumper{dir: dump, next: srv}
		hs := &http.Server{Handler: d}
		go func() { _ = hs.Serve(ln) }()
		defer hs.Close()
		url = "http://" + ln.Addr().String()
	}
	fmt.Println(url)
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(done) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
	return nil
}

// dumper writes each request's body to its folder before the fake server answers it.
type dumper struct {
	dir  string
	next http.Handler
	mu   sync.Mutex
	n    int
}

func (d *dumper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	d.mu.Lock()
	d.n++
	name := filepath.Join(d.dir, fmt.Sprintf("%03d.json", d.n))
	d.mu.Unlock()
	if err := os.WriteFile(name, body, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "fakeserve: writing the request body:", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	d.next.ServeHTTP(w, r)
}
