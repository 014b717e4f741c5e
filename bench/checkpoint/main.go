// Command checkpoint measures the checkpoints' snapshot (docs/benchmarks.md,
// "Checkpoints"): per tree, the first snapshot into a fresh shadow repository (every
// file hashed), then snapshots with nothing changed (the index's stat data: no file
// hashed again), median of n. The trees are read, never written: the shadow repository
// lives in a temporary folder.
//
//	go run ./bench/checkpoint -n 10 . "$(go env GOROOT)/src"
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/gantry-dev/gantry/internal/checkpoint"
)

func main() {
	n := flag.Int("n", 10, "no-change snapshots per tree")
	flag.Parse()
	fmt.Println("| tree | files kept | first snapshot | no-change snapshot (median, range) | shadow repository |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	for _, tree := range flag.Args() {
		root, err := os.MkdirTemp("", "checkpoint-bench")
		if err != nil {
			fail(err)
		}
		r, err := checkpoint.Open(tree, checkpoint.Options{Root: root})
		if err != nil {
			fail(err)
		}
		ctx := context.Background()
		start := time.Now()
		cp, err := r.Snapshot(ctx, "refs/gantry/bench/0", "first")
		if err != nil {
			fail(err)
		}
		first := time.Since(start)
		var ds []time.Duration
		for i := range *n {
			start := time.Now()
			c, err := r.Snapshot(ctx, fmt.Sprintf("refs/gantry/bench/%d", i+1), "again")
			if err != nil {
				fail(err)
			}
			ds = append(ds, time.Since(start))
			if c.Tree != cp.Tree {
				fail(fmt.Errorf("%s changed during the bench", tree))
			}
		}
		slices.Sort(ds)
		files := r.Files(ctx, cp)
		fmt.Printf("| %s | %d | %s | %s (%s–%s) | %.1f MB |\n", tree, files, ms(first), ms(ds[len(ds)/2]), ms(ds[0]), ms(ds[len(ds)-1]), float64(r.Size())/(1<<20))
		os.RemoveAll(root)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "checkpoint:", err)
	os.Exit(1)
}
