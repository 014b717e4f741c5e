// Command dapgantry measures the debug tool against its adapters (docs/benchmarks.md,
// "Debugger"): per adapter (delve, debugpy, lldb-dap), the time of a debug launch to
// its first stop at a breakpoint, and the cost of one stack+evaluate round through the
// tool beside the same two requests sent straight on the session's DAP connection
// (the adapter's own reply time, with gantry's client only), interleaved.
//
//	go run ./bench/dapgantry -rounds 5 -n 50
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/debugtool"
)

type program struct {
	adapter string
	files   map[string]string
	build   []string // a command run in the folder first (nil: none)
	launch  string
	source  string
	line    int
	expr    string
}

var programs = []program{
	{adapter: "delve", files: map[string]string{"go.mod": "module example.com/b\n\ngo 1.22\n", "main.go": `package main

import "fmt"

func work(n int) int {
	total := 0
	for i := 0; i < n; i++ {
		total += i * i
	}
	return total
}

func main() { fmt.Println(work(1000)) }
`}, launch: ".", source: "main.go", line: 8, expr: "total + i"},
	{adapter: "debugpy", files: map[string]string{"prog.py": `def work(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


print(work(1000))
`}, launch: "prog.py", source: "prog.py", line: 4, expr: "total + i"},
	{adapter: "lldb", files: map[string]string{"prog.c": `#include <stdio.h>

int work(int n) {
  int total = 0;
  for (int i = 0; i < n; i++) {
    total += i * i;
  }
  return total;
}

int main(void) { printf("%d\n", work(1000)); return 0; }
`}, build: []string{"cc", "-g", "-O0", "-o", "prog", "prog.c"}, launch: "prog", source: "prog.c", line: 6, expr: "total + i"},
}

func main() {
	rounds := flag.Int("rounds", 5, "launches per adapter")
	n := flag.Int("n", 50, "stack+evaluate rounds per launch, each way")
	python := flag.String("python", "/usr/bin/python3", "debugpy's interpreter")
	only := flag.String("adapters", "delve,debugpy,lldb", "the adapters to measure")
	flag.Parse()
	fmt.Println("| adapter | launch to first stop (median, range) | stack+evaluate through the tool | the same requests straight | tool / straight |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	for _, p := range programs {
		if !slices.Contains(strings.Split(*only, ","), p.adapter) {
			continue
		}
		if err := measure(p, *rounds, *n, *python); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", p.adapter, err)
		}
	}
}

var frameRe = regexp.MustCompile(`\[frame_id (\d+)\]`)

func measure(p program, rounds, n int, python string) error {
	dir, err := os.MkdirTemp("", "dapgantry")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for name, text := range p.files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	if p.build != nil {
		cmd := exec.Command(p.build[0], p.build[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%v: %v %s", p.build, err, out)
		}
	}
	var launches, viaTool, straight []time.Duration
	for range rounds {
		d := debugtool.New(debugtool.Options{Python: python})
		tl := d.Tools()[0]
		env := tool.Env{Cwd: dir}
		call := func(a map[string]any) (tool.Result, time.Duration) {
			raw, _ := json.Marshal(a)
			t0 := time.Now()
			inv, msg := tl.Decode(env, raw)
			if msg != "" {
				return tool.Fail(msg), time.Since(t0)
			}
			r := inv.Run(context.Background())
			return r, time.Since(t0)
		}
		if r, _ := call(map[string]any{"operation": "breakpoints", "file": p.source, "lines": []int{p.line}}); r.IsError {
			return fmt.Errorf("breakpoints: %s", r.Text)
		}
		r, took := call(map[string]any{"operation": "launch", "program": p.launch})
		if r.IsError || !strings.Contains(r.Text, "Stopped (breakpoint") {
			d.Close(context.Background())
			return fmt.Errorf("launch: %s", r.Text)
		}
		launches = append(launches, took)
		s := d.Session()
		sn := s.Snapshot()
		ctx := context.Background()
		for range n {
			// Through the tool: stack, then evaluate in its top frame.
			r, t1 := call(map[string]any{"operation": "stack"})
			m := frameRe.FindStringSubmatch(r.Text)
			if r.IsError || m == nil {
				d.Close(ctx)
				return fmt.Errorf("stack: %s", r.Text)
			}
			frame, _ := strconv.Atoi(m[1])
			r, t2 := call(map[string]any{"operation": "evaluate", "expression": p.expr, "frame_id": frame})
			if r.IsError {
				d.Close(ctx)
				return fmt.Errorf("evaluate: %s", r.Text)
			}
			viaTool = append(viaTool, t1+t2)
			// Straight: the same two requests on the session's connection.
			t0 := time.Now()
			frames, _, err := s.Stack(ctx, sn.ThreadID, 30)
			if err != nil || len(frames) == 0 {
				d.Close(ctx)
				return fmt.Errorf("stack: %v", err)
			}
			if _, err := s.Evaluate(ctx, p.expr, frames[0].Id); err != nil {
				d.Close(ctx)
				return fmt.Errorf("evaluate: %v", err)
			}
			straight = append(straight, time.Since(t0))
		}
		if err := d.Close(ctx); err != nil {
			return err
		}
	}
	mt, ms := median(viaTool), median(straight)
	fmt.Printf("| %s | %s (%s–%s) | %s | %s | %.2f |\n", p.adapter, ms3(median(launches)), ms3(slices.Min(launches)), ms3(slices.Max(launches)),
		ms3(mt), ms3(ms), float64(mt)/float64(ms))
	return nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms3(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
