// Command evalgantry measures the eval tool's kernels (docs/benchmarks.md, "Kernels"):
// per language, a kernel's start (the interpreter and gantry's driver, to its first
// ready answer), a trivial cell's round trip through the tool when the kernel is
// warm, and what a tool() call from a cell costs over the same call made directly
// (the read_file tool's own Decode and Run standing for the loop on both sides).
//
//	go run ./bench/evalgantry -n 200 -python /usr/bin/python3
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gantry-dev/gantry/internal/kernel"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/evaltool"
	"github.com/gantry-dev/gantry/internal/tools/fs"
)

func main() {
	n := flag.Int("n", 200, "cells per measurement")
	starts := flag.Int("starts", 10, "kernel starts per language")
	python := flag.String("python", "/usr/bin/python3", "the Python interpreter")
	flag.Parse()
	dir, err := os.MkdirTemp("", "evalgantry")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "note.txt"), []byte("a line\n"), 0o644); err != nil {
		fail(err)
	}
	var readFile tool.Tool
	for _, t := range fs.Tools(fs.Options{}) {
		if t.Name() == "read_file" {
			readFile = t
		}
	}
	env := tool.Env{Cwd: dir}
	direct := func(ctx context.Context, name string, input json.RawMessage) tool.Result {
		inv, msg := readFile.Decode(env, input)
		if msg != "" {
			return tool.Fail(msg)
		}
		return inv.Run(ctx)
	}
	fmt.Println("| language | kernel start (median, range) | trivial cell, warm (median, p90) | cell with one tool() | the same call direct | tool() overhead |")
	fmt.Println("| --- | --- | --- | --- | --- | --- |")
	for _, lang := range []struct{ name, interp, trivial, relay string }{
		{"python", *python, "1", "tool('read_file', {'path': 'note.txt'})"},
		{"javascript", "node", "1", "await tool('read_file', {path: 'note.txt'})"},
	} {
		var startTimes []time.Duration
		for range *starts {
			t0 := time.Now()
			k, err := kernel.Start(context.Background(), kernel.Options{Language: lang.name, Interpreter: lang.interp, Dir: dir})
			if err != nil {
				fail(err)
			}
			startTimes = append(startTimes, time.Since(t0))
			k.Close()
		}
		ks := evaltool.New(evaltool.Options{Python: *python})
		tl := ks.Tools()[0]
		cell := func(code string) time.Duration {
			raw, _ := json.Marshal(map[string]any{"code": code, "description": "a cell measured by the bench", "language": lang.name})
			t0 := time.Now()
			inv, msg := tl.Decode(env, raw)
			if msg != "" {
				fail(fmt.Errorf("%s", msg))
			}
			r := inv.Run(tool.WithRelay(context.Background(), direct))
			if r.IsError {
				fail(fmt.Errorf("%s: %s", code, r.Text))
			}
			return time.Since(t0)
		}
		cell(lang.trivial) // the kernel's start
		var trivial, relayed, directs []time.Duration
		for range *n {
			trivial = append(trivial, cell(lang.trivial))
			relayed = append(relayed, cell(lang.relay))
			in, _ := json.Marshal(map[string]any{"path": "note.txt"})
			t0 := time.Now()
			direct(context.Background(), "read_file", in)
			directs = append(directs, time.Since(t0))
		}
		ks.Close(context.Background())
		mt, md, mr := median(trivial), median(directs), median(relayed)
		fmt.Printf("| %s | %s (%s–%s) | %s, %s | %s | %s | %s |\n", lang.name, ms(median(startTimes)), ms(slices.Min(startTimes)), ms(slices.Max(startTimes)),
			ms(mt), ms(pct(trivial, 90)), ms(mr), ms(md), ms(mr-mt-md))
	}
}

func median(ds []time.Duration) time.Duration { return pct(ds, 50) }

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "evalgantry:", err)
	os.Exit(1)
}
