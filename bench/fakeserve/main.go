// Command fakeserve serves a JSON model script (see package fakellm) on 127.0.0.1 and
// prints its base URL, for trying gantry by hand or profiling it without a real model:
//
//	go run ./bench/fakeserve script.json &
//	ANTHROPIC_BASE_URL=http://127.0.0.1:PORT ANTHROPIC_API_KEY=x gantry -p "…"
//
// It exits when stdin closes or on SIGINT/SIGTERM.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fakeserve SCRIPT.json")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeserve:", err)
		os.Exit(1)
	}
	turns, err := fakellm.LoadScript(f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeserve:", err)
		os.Exit(1)
	}
	srv := fakellm.New(turns...)
	defer srv.Close()
	fmt.Println(srv.URL())
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(done) }()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
}
