// Command supervise measures what the exec supervisor (or, with -sandbox, the
// sandbox) costs a command: it runs the command given (with bash -c) alternately
// without and with it — a deny rule on bash, or gantry's sandbox over the current
// folder — and prints the wall times and their ratio.
// Usage: go run ./bench/supervise [-n 3] [-rule 'bash:mv .*' | -sandbox] 'go test ./...'
//
// With -layers it instead measures what each layer a bash call goes through costs over
// a bare `bash -c true` (layers.go), with -gantry BINARY also gantry's binary as the
// namespace's init:
//
//	go run ./bench/supervise -layers -n 40 -gantry "$(go env GOPATH)/bin/gantry"
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/permission"
)

func main() {
	n := flag.Int("n", 3, "runs of each")
	rule := flag.String("rule", "bash:mv .*", "the deny rule")
	sandbox := flag.Bool("sandbox", false, "measure the sandbox instead of the supervisor")
	perLayer := flag.Bool("layers", false, "measure each layer of a bash call of `true` instead")
	gantry := flag.String("gantry", "", "with -layers: gantry's binary, timed as the namespace's init beside this one")
	flag.Parse()
	if *perLayer {
		layers(*n, *gantry)
		return
	}
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: supervise [-n N] [-rule RULE] COMMAND")
		os.Exit(2)
	}
	if ok, why := contain.Supervisor(); !ok {
		fmt.Fprintln(os.Stderr, "no exec supervisor here:", why)
		os.Exit(1)
	}
	e, err := permission.NewEngine(permission.ModeYolo, nil, []string{*rule})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	with := contain.Options{Judge: e.ExecGuard().Judge}
	if *sandbox {
		if b, why := contain.SandboxStatus(); b == contain.BackendNone {
			fmt.Fprintln(os.Stderr, "no sandbox here:", why)
			os.Exit(1)
		}
		wd, _ := os.Getwd()
		home, _ := os.UserHomeDir()
		with = contain.Options{Sandbox: &contain.Sandbox{Writable: []string{wd, "/tmp", os.TempDir(), home + "/.cache", home + "/go/pkg/mod"}, Network: true}}
	}
	var plain, supervised []time.Duration
	for i := 0; i < *n; i++ {
		plain = append(plain, run(flag.Arg(0), contain.Options{}))
		supervised = append(supervised, run(flag.Arg(0), with))
	}
	p, s := median(plain), median(supervised)
	fmt.Printf("command     %s\nplain       %v (median of %d: %v)\nwith        %v (median of %d: %v)\noverhead    %+.1f%%\n",
		flag.Arg(0), p, *n, plain, s, *n, supervised, 100*(s.Seconds()/p.Seconds()-1))
}

// run runs script once, its output thrown away, and returns its wall time.
func run(script string, o contain.Options) time.Duration {
	p := contain.New(script, o)
	start := time.Now()
	if err := p.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	end := p.Wait(context.Background(), time.Hour, time.Second, nil)
	took := time.Since(start)
	if end.Err != nil {
		fmt.Fprintln(os.Stderr, "the command failed:", end.Err)
	}
	if f := p.Fault() + p.SandboxFault(); f != "" {
		fmt.Fprintln(os.Stderr, "supervisor:", f)
		os.Exit(1)
	}
	if b := p.Blocked(); len(b) > 0 {
		fmt.Fprintf(os.Stderr, "blocked %d execs, first: %+v\n", len(b), b[0])
	}
	return took
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
