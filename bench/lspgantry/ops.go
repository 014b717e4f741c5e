package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/tool"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// otherOps times, after the references loop, the other warm queries of the lsp tool
// — definition, hover and symbols of the same file and position — through the tool
// and straight on gantry's client (the request the tool sends), interleaved n times
// each, and prints per operation the two medians and their ratio, and the median of
// the differences of each pair (tool minus client, the server's drift between pairs
// taken out) with (client + that) / client: what the tool adds to the server's time
// on that connection.
func otherOps(ctx context.Context, lt tool.Tool, env tool.Env, c *lsp.Client, q queryCase, path string, pos protocol.Position) {
	doc := protocol.TextDocumentIdentifier{URI: uri.File(path)}
	at := protocol.TextDocumentPositionParams{TextDocument: doc, Position: pos}
	ops := []struct {
		name   string
		args   map[string]any
		direct func() error
	}{
		{"definition", map[string]any{"action": "definition", "file": q.file, "line": q.line, "symbol": q.symbol}, func() error {
			_, err := c.Server().Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: at})
			return err
		}},
		{"hover", map[string]any{"action": "hover", "file": q.file, "line": q.line, "symbol": q.symbol}, func() error {
			_, err := c.Server().Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: at})
			return err
		}},
		{"symbols", map[string]any{"action": "symbols", "file": q.file}, func() error {
			_, err := c.Server().DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: doc})
			return err
		}},
	}
	var lines []string
	for _, op := range ops {
		raw, _ := json.Marshal(op.args)
		var viaTool, viaClient, extra []time.Duration
		timeTool := func() {
			t := time.Now()
			if r := callRaw(ctx, lt, env, raw); r.IsError {
				fail(fmt.Errorf("%s: %s", op.name, r.Text))
			}
			viaTool = append(viaTool, time.Since(t))
		}
		timeClient := func() {
			t := time.Now()
			if err := op.direct(); err != nil {
				fail(fmt.Errorf("%s: %w", op.name, err))
			}
			viaClient = append(viaClient, time.Since(t))
		}
		timeTool() // the first of each is the server's to warm
		timeClient()
		viaTool, viaClient = nil, nil
		for i := range q.n {
			if i%2 == 0 {
				timeTool()
				timeClient()
			} else {
				timeClient()
				timeTool()
			}
			extra = append(extra, viaTool[i]-viaClient[i])
		}
		slices.Sort(viaTool)
		slices.Sort(viaClient)
		mt, mc, me := median(viaTool), median(viaClient), median(extra)
		lines = append(lines, fmt.Sprintf("%s tool %s, client %s, ratio %.2f, paired extra %.0f µs (%.2f)",
			op.name, ms(mt), ms(mc), float64(mt)/float64(mc), float64(me)/float64(time.Microsecond), float64(mc+me)/float64(mc)))
	}
	fmt.Printf("  other warm queries (median of %d, interleaved): %s\n", q.n, strings.Join(lines, "; "))
}
