// Command lspgantry measures gantry's own LSP layer in-process (internal/lsp's
// Manager and client under the lsp tool of internal/tools/lsptool) beside the
// server's own times from bench/lsp, run as a subprocess in the same rounds, on the
// same machine, with the same settle time (docs/benchmarks.md, "Language servers").
//
//	go run ./bench/lspgantry -rounds 3 -n 20 -settle 5s
//
// Per round it starts a new server through gantry and times the first lsp
// definition call (the server's start, its readiness and the file's didOpen
// included), waits for the file's diagnostics and -settle, makes one lsp references
// call (the server's first, slow whoever asks), then times -n lsp references calls
// through the tool interleaved with -n straight on gantry's client (the same
// connection, no tool); and it runs bench/lsp with the same position, -n and
// -settle. It prints each round and a table of medians with ratios. With -ops it
// also times warm definition, hover and symbols through the tool against the same
// requests straight on gantry's client (ops.go).
//
// With -writes it then times, per server, the extra a write_file call spends when
// wrapped by lsptool.OnWrite (syncing the file and waiting for its new
// diagnostics), on copies of the fixture projects and of this repository.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/fs"
	"github.com/gantry-dev/gantry/internal/tools/lsptool"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

func main() {
	root := flag.String("root", ".", "the repository root (bench/lsp is built from it, and gopls serves it)")
	file := flag.String("file", "internal/session/store.go", "the file, relative to -root")
	line := flag.Int("line", 23, "the 1-based line of the symbol")
	symbol := flag.String("symbol", "Store", "the symbol on -line")
	n := flag.Int("n", 20, "warm references per round (each way)")
	rounds := flag.Int("rounds", 3, "rounds of gantry and bench/lsp")
	settle := flag.Duration("settle", 5*time.Second, "wait after the file's diagnostics before the warm loop (both ways)")
	writes := flag.String("writes", "", "comma-separated write cases to time after the rounds: gopls-repo, gopls, pyright, typescript, clangd")
	nw := flag.Int("nw", 10, "warm writes per write case")
	ops := flag.Bool("ops", false, "also time warm definition, hover and symbols, through the tool and straight on the client")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of -profilen more warm lsp references calls (after the last round) to this file")
	profileN := flag.Int("profilen", 300, "calls profiled with -cpuprofile")
	flag.Parse()
	abs, err := filepath.Abs(*root)
	if err != nil {
		fail(err)
	}
	// The npm servers are found on PATH.
	bin := filepath.Join(abs, "internal/lsp/testdata/servers/node_modules/.bin")
	_ = os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx := context.Background()
	if *rounds > 0 {
		direct := filepath.Join(os.TempDir(), "lspgantry-benchlsp")
		build := exec.Command("go", "build", "-o", direct, "./bench/lsp")
		build.Dir, build.Stderr = abs, os.Stderr
		if err := build.Run(); err != nil {
			fail(fmt.Errorf("building bench/lsp: %w", err))
		}
		q := queryCase{root: abs, file: *file, line: *line, symbol: *symbol, n: *n, settle: *settle, ops: *ops}
		if *cpuprofile != "" {
			q.profile, q.profileN = *cpuprofile, *profileN
		}
		var gs []gantryRound
		var ds []directRound
		for r := range *rounds {
			q := q
			if r < *rounds-1 {
				q.profile = ""
			}
			// Alternate which goes first: the machine is shared.
			var g gantryRound
			var d directRound
			if r%2 == 0 {
				g, d = q.gantry(ctx), q.direct(ctx, direct)
			} else {
				d, g = q.direct(ctx, direct), q.gantry(ctx)
			}
			fmt.Printf("round %d: gantry cold definition call %s, tool refs %s (min %s max %s), client refs %s; direct ready %s + cold definition %s, refs %s\n",
				r+1, ms(g.cold), ms(median(g.tool)), ms(g.tool[0]), ms(g.tool[len(g.tool)-1]), ms(median(g.client)),
				ms(d.ready), ms(d.def), ms(d.refs))
			gs, ds = append(gs, g), append(ds, d)
		}
		report(gs, ds)
	}
	for _, w := range strings.Split(*writes, ",") {
		if w = strings.TrimSpace(w); w != "" {
			writeCase(ctx, abs, w, *nw)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench/lspgantry:", err)
	os.Exit(1)
}

type queryCase struct {
	root, file, symbol string
	line, n            int
	settle             time.Duration
	profile            string // set on the last round only
	profileN           int
	ops                bool // time definition, hover and symbols too (otherOps)
}

type gantryRound struct {
	cold         time.Duration   // the first lsp definition call, server start included
	tool, client []time.Duration // warm references, sorted
}

type directRound struct{ ready, def, refs time.Duration }

func (q queryCase) gantry(ctx context.Context) gantryRound {
	pool := resource.NewPool(nil)
	defer func() { _ = pool.Close(context.Background()) }()
	m := lsp.NewManager(pool, lsp.Options{})
	lt := lsptool.Tool(m, lsptool.Options{})
	env := tool.Env{Cwd: q.root}
	var out gantryRound
	t := time.Now()
	res := call(ctx, lt, env, map[string]any{"action": "definition", "file": q.file, "line": q.line, "symbol": q.symbol})
	out.cold = time.Since(t)
	if res.IsError {
		fail(fmt.Errorf("definition: %s", res.Text))
	}
	path := filepath.Join(q.root, q.file)
	target, ok, problem := m.For(path)
	if !ok {
		fail(fmt.Errorf("no server: %s", problem))
	}
	c, _, err := m.Client(ctx, target)
	if err != nil {
		fail(err)
	}
	// As bench/lsp: the warm loop starts after the file's diagnostics and -settle.
	c.WaitDiagnostics(ctx, path, 1, 0, 30*time.Second)
	time.Sleep(q.settle)
	refs := map[string]any{"action": "references", "file": q.file, "line": q.line, "symbol": q.symbol}
	text, _ := os.ReadFile(path)
	pos, problem := lsp.Locate(string(text), q.line, q.symbol, q.file)
	if problem != "" {
		fail(fmt.Errorf("%s", problem))
	}
	params := &protocol.ReferenceParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)}, Position: pos},
		Context: protocol.ReferenceContext{IncludeDeclaration: true}}
	// The arguments arrive as JSON from the model: encoded once, outside the timings.
	rawRefs, _ := json.Marshal(refs)
	viaTool := func() {
		t := time.Now()
		if r := callRaw(ctx, lt, env, rawRefs); r.IsError {
			fail(fmt.Errorf("references: %s", r.Text))
		}
		out.tool = append(out.tool, time.Since(t))
	}
	viaClient := func() {
		t := time.Now()
		if _, err := c.Server().References(ctx, params); err != nil {
			fail(err)
		}
		out.client = append(out.client, time.Since(t))
	}
	// The server's first references is slow whoever asks (bench/lsp times it apart):
	// taken once before the loop, which interleaves tool and client calls (each
	// first in turn) so that both see the server in the same state.
	t = time.Now()
	call(ctx, lt, env, refs)
	first := time.Since(t)
	for i := range q.n {
		if i%2 == 0 {
			viaTool()
			viaClient()
		} else {
			viaClient()
			viaTool()
		}
	}
	if q.profile != "" {
		f, err := os.Create(q.profile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		var ds []time.Duration
		for range q.profileN {
			t := time.Now()
			callRaw(ctx, lt, env, rawRefs)
			ds = append(ds, time.Since(t))
		}
		pprof.StopCPUProfile()
		_ = f.Close()
		fmt.Printf("profiled %d lsp references calls: median %s\n", q.profileN, ms(median(ds)))
	}
	fmt.Printf("  first lsp references call after the settle %s\n", ms(first))
	var extra []time.Duration // each pair's tool minus client: the server's drift taken out
	for i := range q.n {
		extra = append(extra, out.tool[i]-out.client[i])
	}
	mc, me := median(out.client), median(extra)
	fmt.Printf("  warm references: paired extra %.0f µs, (client + extra) / client %.2f\n",
		float64(me)/float64(time.Microsecond), float64(mc+me)/float64(mc))
	if q.ops {
		otherOps(ctx, lt, env, c, q, path, pos)
	}
	slices.Sort(out.tool)
	slices.Sort(out.client)
	return out
}

func call(ctx context.Context, t tool.Tool, env tool.Env, a map[string]any) tool.Result {
	raw, _ := json.Marshal(a)
	return callRaw(ctx, t, env, raw)
}

// callRaw decodes and runs one call of t, as the agent does.
func callRaw(ctx context.Context, t tool.Tool, env tool.Env, raw json.RawMessage) tool.Result {
	inv, msg := t.Decode(env, raw)
	if msg != "" {
		return tool.Fail(msg)
	}
	return inv.Run(ctx)
}

// direct runs bench/lsp and reads its times.
func (q queryCase) direct(ctx context.Context, bin string) directRound {
	cmd := exec.CommandContext(ctx, bin, "-server", "gopls", "-root", q.root, "-file", q.file,
		"-line", strconv.Itoa(q.line), "-symbol", q.symbol, "-n", strconv.Itoa(q.n), "-settle", q.settle.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		fail(fmt.Errorf("bench/lsp: %w", err))
	}
	var d directRound
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "ready:"):
			d.ready = field(l)
		case strings.HasPrefix(l, "first definition, cold"):
			d.def = field(l)
		case strings.HasPrefix(l, "references, warm, median"):
			d.refs = field(l)
		}
	}
	if d.refs == 0 {
		fail(fmt.Errorf("bench/lsp printed no warm median:\n%s", out))
	}
	return d
}

// field reads the first "N.N ms" of a bench/lsp line.
func field(l string) time.Duration {
	f := strings.Fields(l)
	for i := 1; i < len(f); i++ {
		if f[i] == "ms" {
			if v, err := strconv.ParseFloat(f[i-1], 64); err == nil {
				return time.Duration(v * float64(time.Millisecond))
			}
		}
	}
	return 0
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func spread(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("%s (%s–%s)", ms(median(s)), ms(s[0]), ms(s[len(s)-1]))
}

func report(gs []gantryRound, ds []directRound) {
	var cold, tl, cl, dr, dd, dref, ratio, cratio, tcratio []time.Duration
	for i, g := range gs {
		cold = append(cold, g.cold)
		tl = append(tl, median(g.tool))
		cl = append(cl, median(g.client))
		dr = append(dr, ds[i].ready+ds[i].def)
		dd = append(dd, ds[i].def)
		dref = append(dref, ds[i].refs)
		// Ratios as durations of 1 ms = 1.000, to reuse spread.
		ratio = append(ratio, time.Duration(float64(median(g.tool))/float64(ds[i].refs)*float64(time.Millisecond)))
		cratio = append(cratio, time.Duration(float64(median(g.client))/float64(ds[i].refs)*float64(time.Millisecond)))
		tcratio = append(tcratio, time.Duration(float64(median(g.tool))/float64(median(g.client))*float64(time.Millisecond)))
	}
	fmt.Printf("\n%d rounds: median of the rounds (range)\n", len(gs))
	fmt.Printf("%-52s %s\n", "gantry: first lsp definition call, cold server", spread(cold))
	fmt.Printf("%-52s %s\n", "direct: ready (last progress end) + cold definition", spread(dr))
	fmt.Printf("%-52s %s\n", "direct: cold definition alone", spread(dd))
	fmt.Printf("%-52s %s\n", "gantry: warm references, lsp tool (median of n)", spread(tl))
	fmt.Printf("%-52s %s\n", "gantry: warm references, its client (median of n)", spread(cl))
	fmt.Printf("%-52s %s\n", "direct: warm references, bench/lsp (median of n)", spread(dref))
	fmt.Printf("%-52s %s\n", "ratio tool / direct", ratios(ratio))
	fmt.Printf("%-52s %s\n", "ratio client / direct", ratios(cratio))
	fmt.Printf("%-52s %s\n", "ratio tool / client (interleaved, same server)", ratios(tcratio))
}

func ratios(r []time.Duration) string {
	s := slices.Clone(r)
	slices.Sort(s)
	f := func(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/float64(time.Millisecond)) }
	return fmt.Sprintf("%s (%s–%s)", f(median(s)), f(s[0]), f(s[len(s)-1]))
}

// writeCase times write_file with and without lsptool.OnWrite on a copy of a project.
func writeCase(ctx context.Context, repo, name string, nw int) {
	dir, err := os.MkdirTemp("", "lspgantry-"+name+"-")
	if err != nil {
		fail(err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	fixtures := filepath.Join(repo, "internal/lsp/testdata/projects")
	var file, comment string
	switch name {
	case "gopls-repo":
		sh := exec.Command("sh", "-c", "git archive HEAD | tar -x -C "+dir)
		sh.Dir, sh.Stderr = repo, os.Stderr
		if err := sh.Run(); err != nil {
			fail(fmt.Errorf("copying the repository: %w", err))
		}
		file, comment = "internal/session/session.go", "// edit %d\n"
	case "gopls":
		copyTree(filepath.Join(fixtures, "go"), dir)
		file, comment = "total.go", "// edit %d\n"
	case "pyright":
		copyTree(filepath.Join(fixtures, "python"), dir)
		file, comment = "total.py", "# edit %d\n"
	case "typescript":
		copyTree(filepath.Join(fixtures, "ts"), dir)
		file, comment = "src/total.ts", "// edit %d\n"
	case "clangd":
		copyTree(filepath.Join(fixtures, "c"), dir)
		in, err := os.ReadFile(filepath.Join(dir, "compile_commands.json.in"))
		if err != nil {
			fail(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "compile_commands.json"), []byte(strings.ReplaceAll(string(in), "${DIR}", dir)), 0o644); err != nil {
			fail(err)
		}
		file, comment = "shapes.c", "// edit %d\n"
	default:
		fail(fmt.Errorf("unknown write case %q", name))
	}
	orig, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		fail(err)
	}
	pool := resource.NewPool(nil)
	defer func() { _ = pool.Close(context.Background()) }()
	m := lsp.NewManager(pool, lsp.Options{})
	plain := fs.WriteFile(fs.Options{})
	wrapped := lsptool.OnWrite(plain, m, lsptool.NewSeen())
	env := tool.Env{Cwd: dir}
	k := 0
	write := func(t tool.Tool) time.Duration {
		k++
		content := string(orig) + fmt.Sprintf(comment, k)
		start := time.Now()
		r := call(ctx, t, env, map[string]any{"path": file, "content": content})
		d := time.Since(start)
		if r.IsError {
			fail(fmt.Errorf("write: %s", r.Text))
		}
		if strings.Contains(r.Text, "gave no diagnostics") {
			fmt.Printf("  (%s: %s)\n", name, strings.TrimSpace(r.Text[strings.LastIndex(r.Text, "("):]))
		}
		return d
	}
	first := write(wrapped)
	var withs, withouts []time.Duration
	for range nw {
		withouts = append(withouts, write(plain))
		withs = append(withs, write(wrapped))
	}
	var extra []time.Duration
	for i := range withs {
		extra = append(extra, withs[i]-withouts[i])
	}
	fmt.Printf("write %-10s first write (start, old diagnostics, new) %s; warm: plain %s, with OnWrite %s, extra %s\n",
		name, ms(first), spread(withouts), spread(withs), spread(extra))
}

func copyTree(from, to string) {
	cp := exec.Command("cp", "-a", from+"/.", to)
	cp.Stderr = os.Stderr
	if err := cp.Run(); err != nil {
		fail(err)
	}
}
