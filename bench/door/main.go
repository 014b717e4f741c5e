// Command door measures what the one door costs: print-mode sessions of gantry
// binaries side by side (alternated, the same scripted model) that make N calls of
// one kind — a bash command, a read_file whose PostToolUse hook the model registered
// runs, an eval cell, a language server's first answer — and prints, per binary and
// kind, the median time of a session and of one call beyond a session that makes none.
//
//	go run ./bench/door -n 20 -runs 5 -mode yolo OLD_GANTRY NEW_GANTRY
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

func main() {
	n := flag.Int("n", 20, "calls per session")
	runs := flag.Int("runs", 5, "sessions per binary and kind")
	mode := flag.String("mode", "yolo", "permission mode (yolo: the sandbox is on where it can be made)")
	kinds := flag.String("kinds", "bash,hook,eval,lsp", "what to measure")
	flag.Parse()
	bins := flag.Args()
	if len(bins) == 0 {
		fmt.Fprintln(os.Stderr, "usage: door [flags] GANTRY...")
		os.Exit(2)
	}
	proj, err := os.MkdirTemp("", "gantry-door-")
	must(err)
	defer os.RemoveAll(proj)
	must(os.WriteFile(filepath.Join(proj, "go.mod"), []byte("module example.com/p\n\ngo 1.22\n"), 0o644))
	must(os.WriteFile(filepath.Join(proj, "main.go"), []byte("package main\n\nfunc Helper() int { return 1 }\n\nfunc main() { _ = Helper() }\n"), 0o644))
	fmt.Printf("# %s, mode %s, %d calls a session, median of %d sessions\n", time.Now().UTC().Format("2006-01-02T15:04Z"), *mode, *n, *runs)
	fmt.Printf("%-8s %-40s %12s %12s %14s\n", "kind", "binary", "none (ms)", "N calls (ms)", "per call (ms)")
	for _, kind := range strings.Split(*kinds, ",") {
		times := map[string][2][]time.Duration{}
		for r := 0; r < *runs; r++ {
			for _, b := range bins {
				t := times[b]
				calls := *n
				if kind == "lsp" {
					calls = 1
				}
				t[0] = append(t[0], session(b, proj, *mode, kind, 0))
				t[1] = append(t[1], session(b, proj, *mode, kind, calls))
				times[b] = t
			}
		}
		for _, b := range bins {
			none, some := median(times[b][0]), median(times[b][1])
			calls := *n
			if kind == "lsp" {
				calls = 1
			}
			fmt.Printf("%-8s %-40s %12.1f %12.1f %14.2f\n", kind, b, ms(none), ms(some), ms(some-none)/float64(calls))
		}
	}
}

// session runs one print-mode session of bin in proj whose model makes calls calls of
// kind (none: a session that only answers), and returns its wall time.
func session(bin, proj, mode, kind string, calls int) time.Duration {
	var turns []fakellm.Turn
	add := func(name string, in map[string]any) {
		b, _ := json.Marshal(in)
		turns = append(turns, fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall(fmt.Sprintf("c%d", len(turns)), name, string(b))}})
	}
	if calls > 0 {
		switch kind {
		case "hook":
			add("register_hook", map[string]any{"action": "register", "event": "PostToolUse", "command": "true"})
		case "eval":
			add("eval", map[string]any{"code": "x = 0", "description": "start the kernel"})
		}
	} else if kind == "hook" || kind == "eval" {
		// The same session without the calls measured: the hook registered, the
		// kernel started.
		switch kind {
		case "hook":
			add("register_hook", map[string]any{"action": "register", "event": "PostToolUse", "command": "true"})
		case "eval":
			add("eval", map[string]any{"code": "x = 0", "description": "start the kernel"})
		}
	}
	for i := 0; i < calls; i++ {
		switch kind {
		case "bash":
			add("bash", map[string]any{"command": "true"})
		case "hook":
			add("read_file", map[string]any{"path": "go.mod"})
		case "eval":
			add("eval", map[string]any{"code": "x += 1", "description": "count"})
		case "lsp":
			add("lsp", map[string]any{"action": "hover", "file": "main.go", "line": 5, "symbol": "Helper"})
		}
	}
	turns = append(turns, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("done")}})
	srv := fakellm.New(turns...)
	defer srv.Close()
	home, err := os.MkdirTemp("", "gantry-door-home-")
	must(err)
	defer os.RemoveAll(home)
	cmd := exec.Command(bin, "-p", "go", "--permission-mode", mode)
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=x", "HOME="+home,
		"GANTRY_DATA_DIR="+filepath.Join(home, "data"), "GANTRY_CONFIG_DIR="+filepath.Join(home, "config"), "CLAUDE_CONFIG_DIR="+filepath.Join(home, "claude"),
		"GOCACHE="+goEnv("GOCACHE"), "GOMODCACHE="+goEnv("GOMODCACHE"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: %v\n%s\n", bin, kind, err, out.String())
	}
	return time.Since(start)
}

func goEnv(name string) string {
	out, _ := exec.Command("go", "env", name).Output()
	return strings.TrimSpace(string(out))
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
