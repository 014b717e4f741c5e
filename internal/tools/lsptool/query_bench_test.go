package lsptool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/tool"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// BenchmarkQuery times the warm queries bench/lspgantry measures — definition,
// references, hover and a file's symbols of Store in internal/session/store.go, on
// this repository — through the lsp tool and, alternately in the same loop, as the
// tool's request straight on its client (the same gopls, the same connection). It
// reports the medians of both and of the per-call difference (extra-µs): what the
// tool adds to the server's time. Profile the tool's part with -cpuprofile or
// -memprofile (the client's requests are in both sides).
//
//	go test -run '^$' -bench BenchmarkQuery -benchtime 2000x ./internal/tools/lsptool/
func BenchmarkQuery(b *testing.B) {
	needGopls(b)
	root, err := filepath.Abs("../../..")
	if err != nil {
		b.Fatal(err)
	}
	const file, line, symbol = "internal/session/store.go", 23, "Store"
	path := filepath.Join(root, file)
	m := newManager(b, lsp.Options{})
	lt := Tool(m, Options{})
	env := tool.Env{Cwd: root}
	ctx := context.Background()
	run := func(raw []byte) tool.Result {
		inv, msg := lt.Decode(env, raw)
		if msg != "" {
			return tool.Fail(msg)
		}
		return inv.Run(ctx)
	}
	encode := func(a A) []byte { raw, _ := json.Marshal(a); return raw }
	if r := run(encode(A{"action": "definition", "file": file, "line": line, "symbol": symbol})); r.IsError {
		b.Fatal(r.Text)
	}
	t, _, _ := m.For(path)
	c, _, err := m.Client(ctx, t)
	if err != nil {
		b.Fatal(err)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	pos, problem := lsp.Locate(string(text), line, symbol, file)
	if problem != "" {
		b.Fatal(problem)
	}
	doc := protocol.TextDocumentIdentifier{URI: uri.File(path)}
	at := protocol.TextDocumentPositionParams{TextDocument: doc, Position: pos}
	cases := []struct {
		name   string
		args   A
		direct func() error
	}{
		{"definition", A{"action": "definition", "file": file, "line": line, "symbol": symbol}, func() error {
			_, err := c.Server().Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: at})
			return err
		}},
		{"references", A{"action": "references", "file": file, "line": line, "symbol": symbol}, func() error {
			_, err := c.Server().References(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: at,
				Context: protocol.ReferenceContext{IncludeDeclaration: true}})
			return err
		}},
		{"hover", A{"action": "hover", "file": file, "line": line, "symbol": symbol}, func() error {
			_, err := c.Server().Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: at})
			return err
		}},
		{"symbols", A{"action": "symbols", "file": file}, func() error {
			_, err := c.Server().DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: doc})
			return err
		}},
	}
	// The tool's own parts, without the server's time: the arguments' decoding, the
	// open (cache, server lookup, sync of the unchanged file) and the formatting of
	// the references.
	refsRaw := encode(cases[1].args)
	b.Run("part=decode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, msg := lt.Decode(env, refsRaw); msg != "" {
				b.Fatal(msg)
			}
		}
	})
	b.Run("part=open", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if q, r := open(ctx, m, env, file, true); q == nil {
				b.Fatal(r.Text)
			}
		}
	})
	refs, err := c.Server().References(ctx, &protocol.ReferenceParams{TextDocumentPositionParams: at,
		Context: protocol.ReferenceContext{IncludeDeclaration: true}})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("part=format", func(b *testing.B) {
		files := filesOf(ctx, m)
		for i := 0; i < b.N; i++ {
			formatLocations(files, env, slices.Clone(refs), maxReferences, "references")
		}
	})
	// The same parts, each timed just after a request to the server (as in a real
	// loop, where the server's work between calls cools the caches).
	insitu := func(name string, part func()) {
		b.Run("cold="+name, func(b *testing.B) {
			var ds []time.Duration
			for i := 0; i < b.N; i++ {
				if err := cases[0].direct(); err != nil {
					b.Fatal(err)
				}
				s := time.Now()
				part()
				ds = append(ds, time.Since(s))
			}
			slices.Sort(ds)
			b.ReportMetric(float64(ds[len(ds)/2])/float64(time.Microsecond), "med-µs")
		})
	}
	insitu("decode", func() { lt.Decode(env, refsRaw) })
	insitu("open", func() { open(ctx, m, env, file, true) })
	insitu("format", func() { formatLocations(filesOf(ctx, m), env, slices.Clone(refs), maxReferences, "references") })
	defs, err := c.Server().Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: at})
	if err != nil {
		b.Fatal(err)
	}
	def := locations(defs)
	insitu("format1", func() { formatLocations(filesOf(ctx, m), env, slices.Clone(def), 0, "definitions") })
	insitu("all", func() {
		lt.Decode(env, refsRaw)
		q, _ := open(ctx, m, env, file, true)
		q.file.locate(line, symbol, file)
		formatLocations(filesOf(ctx, m), env, slices.Clone(def), 0, "definitions")
	})
	insitu("nothing", func() {})
	for _, k := range cases {
		raw := encode(k.args)
		// The server's first answer of each kind is slow whoever asks.
		if r := run(raw); r.IsError {
			b.Fatal(r.Text)
		}
		if err := k.direct(); err != nil {
			b.Fatal(err)
		}
		b.Run(k.name, func(b *testing.B) {
			var viaTool, viaClient, extra []time.Duration
			for i := 0; i < b.N; i++ {
				var dt, dc time.Duration
				timeTool := func() {
					s := time.Now()
					if r := run(raw); r.IsError {
						b.Fatal(r.Text)
					}
					dt = time.Since(s)
				}
				timeClient := func() {
					s := time.Now()
					if err := k.direct(); err != nil {
						b.Fatal(err)
					}
					dc = time.Since(s)
				}
				if i%2 == 0 {
					timeTool()
					timeClient()
				} else {
					timeClient()
					timeTool()
				}
				viaTool, viaClient, extra = append(viaTool, dt), append(viaClient, dc), append(extra, dt-dc)
			}
			med := func(ds []time.Duration) float64 {
				slices.Sort(ds)
				return float64(ds[len(ds)/2]) / float64(time.Microsecond)
			}
			mt, mc := med(viaTool), med(viaClient)
			b.ReportMetric(mt, "tool-µs")
			b.ReportMetric(mc, "client-µs")
			b.ReportMetric(med(extra), "extra-µs")
			b.ReportMetric(mt/mc, "ratio")
		})
	}
}
