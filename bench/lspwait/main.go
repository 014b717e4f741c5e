// Command lspwait measures how long language servers take to publish a large file's
// diagnostics after a change, against what gantry's wait (lsp.Client.WaitDiagnostics)
// spends, and how long `lsp symbols` of a just-changed file takes through the tool
// against a documentSymbol asked straight of the same client (docs/benchmarks.md,
// "Diagnostics on write, large files").
//
//	go run ./bench/lspwait -servers gopls,pyright -n 10
//
// Per server it makes a project in a temporary folder with one generated file of
// -lines lines (Go: functions; Python: functions), opens it, waits for its first
// diagnostics, then -n times: adds (or removes) a type error near the middle, writes
// the file, syncs it and waits for its diagnostics as a write does, recording every
// publish for the file within -listen of the change (through lsp.Options.Observe).
// Then -n `lsp symbols` calls of the file, each after a change, beside -n
// documentSymbol requests straight on the client.
//
// With -edits it instead times an edit's wait for diagnostics against the server's own
// time, per server, and writes to files no server serves (edits.go):
//
//	go run ./bench/lspwait -edits gopls,clangd,typescript,none -n 10 \
//	    -npm /work/main/internal/lsp/testdata/servers/node_modules/.bin
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/lsptool"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

func main() {
	root := flag.String("root", ".", "the repository root (the npm servers are found under it)")
	servers := flag.String("servers", "gopls,pyright", "comma-separated: gopls, pyright")
	lines := flag.Int("lines", 4000, "lines of the generated file")
	n := flag.Int("n", 10, "changes per server")
	listen := flag.Duration("listen", 4*time.Second, "how long after each change publishes are recorded")
	editCases := flag.String("edits", "", "comma-separated edit cases (gopls, clangd, typescript, none): time write_file under OnWrite against the server's own time, instead of the large-file measurement")
	npm := flag.String("npm", "", "the node_modules/.bin folder of the npm servers (default: internal/lsp/testdata/servers/node_modules/.bin under -root)")
	flag.Parse()
	abs, err := filepath.Abs(*root)
	if err != nil {
		fail(err)
	}
	bin := filepath.Join(abs, "internal/lsp/testdata/servers/node_modules/.bin")
	if *npm != "" {
		bin = *npm
	}
	if *editCases != "" {
		edits(abs, bin, strings.Split(*editCases, ","), *n)
		return
	}
	for _, s := range strings.Split(*servers, ",") {
		if s = strings.TrimSpace(s); s != "" {
			measure(s, bin, *lines, *n, *listen)
		}
	}
}

// cleanups undo, last first, what a measurement made (its folder, its servers), so
// that fail leaves nothing behind.
var cleanups []func()

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench/lspwait:", err)
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	os.Exit(1)
}

// recorder keeps the publishes for one path.
type recorder struct {
	mu   sync.Mutex
	path string
	pubs []lsp.Event
}

func (r *recorder) observe(e lsp.Event) {
	if e.Kind != lsp.EventPublish {
		return
	}
	r.mu.Lock()
	if e.Path == r.path {
		r.pubs = append(r.pubs, e)
	}
	r.mu.Unlock()
}

func (r *recorder) since(t time.Time) []lsp.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []lsp.Event
	for _, e := range r.pubs {
		if !e.At.Before(t) {
			out = append(out, e)
		}
	}
	return out
}

func measure(server, npmBin string, lines, n int, listen time.Duration) {
	dir, err := os.MkdirTemp("", "lspwait-")
	if err != nil {
		fail(err)
	}
	cleanups = append(cleanups, func() { _ = os.RemoveAll(dir) })
	defer func() { cleanups[0](); cleanups = nil }()
	var file, good, bad string
	var spec []lsp.Spec
	switch server {
	case "gopls":
		file = filepath.Join(dir, "big.go")
		must(os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/big\n\ngo 1.22\n"), 0o644))
		good, bad = "\treturn 0\n", "\treturn \"x\"\n"
		var b strings.Builder
		b.WriteString("package big\n\n")
		for i := 0; b.Len() == 0 || strings.Count(b.String(), "\n") < lines-5; i++ {
			fmt.Fprintf(&b, "// F%d adds.\nfunc F%d(a, b int) int {\n\tc := a + b + %d\n\t_ = c\n\treturn c\n}\n\n", i, i, i)
		}
		b.WriteString("func Middle() int {\n" + good + "}\n")
		must(os.WriteFile(file, []byte(b.String()), 0o644))
	case "pyright":
		p := filepath.Join(npmBin, "pyright-langserver")
		if _, err := os.Stat(p); err != nil {
			fmt.Printf("pyright: not installed (%s); npm ci --prefix internal/lsp/testdata/servers\n", p)
			return
		}
		spec = []lsp.Spec{{Name: "pyright", Commands: []string{p}, Args: []string{"--stdio"}}}
		file = filepath.Join(dir, "big.py")
		must(os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte("[project]\nname = \"big\"\n"), 0o644))
		good, bad = "    return 0\n", "    return undefined_name\n"
		var b strings.Builder
		for i := 0; strings.Count(b.String(), "\n") < lines-5; i++ {
			fmt.Fprintf(&b, "def f%d(a: int, b: int) -> int:\n    c = a + b + %d\n    return c\n\n\n", i, i)
		}
		b.WriteString("def middle() -> int:\n" + good)
		must(os.WriteFile(file, []byte(b.String()), 0o644))
	default:
		fail(fmt.Errorf("unknown server %q", server))
	}
	rec := &recorder{path: file}
	pool := resource.NewPool(nil)
	cleanups = append(cleanups, func() { _ = pool.Close(context.Background()) })
	defer func() { _ = pool.Close(context.Background()) }()
	o := lsp.Options{Observe: rec.observe}
	if spec != nil {
		o.Servers = lsp.Merge(lsp.Defaults(), spec)
	}
	m := lsp.NewManager(pool, o)
	ctx := context.Background()
	t, ok, why := m.For(file)
	if !ok {
		fmt.Printf("%s: %s\n", server, why)
		return
	}
	start := time.Now()
	c, _, err := m.Client(ctx, t)
	if err != nil {
		fail(err)
	}
	v, gen, err := c.Sync(ctx, file)
	if err != nil {
		fail(err)
	}
	_, ok = c.WaitDiagnostics(ctx, file, v, gen, lsp.ReadyWait*4)
	fmt.Printf("%s, %d lines: start and first diagnostics %s (ok %v)\n", server, lines, ms(time.Since(start)), ok)
	c.WaitIdle(ctx, lsp.ReadyWait)

	text, err := os.ReadFile(file)
	if err != nil {
		fail(err)
	}
	var firsts, lasts, waits []time.Duration
	twice := 0
	for i := range n {
		from, to := good, bad
		if i%2 == 1 {
			from, to = bad, good
		}
		text = []byte(strings.Replace(string(text), from, to, 1))
		must(os.WriteFile(file, text, 0o644))
		t0 := time.Now()
		v, gen, err := c.Sync(ctx, file)
		if err != nil {
			fail(err)
		}
		ds, ok := c.WaitDiagnostics(ctx, file, v, gen, m.DiagnosticsWait())
		waited := time.Since(t0)
		time.Sleep(max(0, listen-waited))
		var of []string
		var first, last time.Duration
		count := 0
		for _, e := range rec.since(t0) {
			if e.Version >= 0 && e.Version < v {
				continue
			}
			d := e.At.Sub(t0)
			if count == 0 {
				first = d
			}
			last = d
			count++
			of = append(of, fmt.Sprintf("v%d %d diags at %s", e.Version, e.Count, ms(d)))
		}
		if count > 1 {
			twice++
		}
		firsts, lasts, waits = append(firsts, first), append(lasts, last), append(waits, waited)
		fmt.Printf("  change %d (v%d): gantry waited %s (ok %v, %d diags); publishes: %s\n", i+1, v, ms(waited), ok, len(ds), strings.Join(of, "; "))
	}
	fmt.Printf("%s: median first publish %s (max %s), last publish %s, gantry's wait %s (max %s); %d of %d changes published more than once\n",
		server, ms(median(firsts)), ms(slices.Max(firsts)), ms(median(lasts)), ms(median(waits)), ms(slices.Max(waits)), twice, n)

	// lsp symbols of the just-changed file through the tool, and documentSymbol
	// straight on the client.
	lt := lsptool.Tool(m, lsptool.Options{})
	env := tool.Env{Cwd: dir}
	var viaTool, direct []time.Duration
	for i := range n {
		text = []byte(strings.Replace(string(text), "# pad\n", "", 1))
		if i%2 == 0 || server == "gopls" {
			text = append(text, []byte(comment(server)+"\n")...)
		}
		must(os.WriteFile(file, text, 0o644))
		t0 := time.Now()
		raw, _ := json.Marshal(map[string]any{"action": "symbols", "file": filepath.Base(file)})
		inv, msg := lt.Decode(env, raw)
		if msg != "" {
			fail(fmt.Errorf("symbols: %s", msg))
		}
		if r := inv.Run(ctx); r.IsError {
			fail(fmt.Errorf("symbols: %s", r.Text))
		}
		viaTool = append(viaTool, time.Since(t0))
		t0 = time.Now()
		if _, err := c.Server().DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(file)}}); err != nil {
			fail(err)
		}
		direct = append(direct, time.Since(t0))
	}
	fmt.Printf("%s: lsp symbols of the changed file via the tool median %s (max %s); documentSymbol straight %s (max %s)\n",
		server, ms(median(viaTool)), ms(slices.Max(viaTool)), ms(median(direct)), ms(slices.Max(direct)))
}

func comment(server string) string {
	if server == "gopls" {
		return "// pad"
	}
	return "# pad"
}

func must(err error) {
	if err != nil {
		fail(err)
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
