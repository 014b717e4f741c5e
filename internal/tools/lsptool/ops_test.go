package lsptool

import (
	"encoding/json"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// An action the table lacks is refused with the nearest name and the valid ones, and
// an action at a position without its symbol is refused before any server starts.
func TestLspRefusesFromTheTable(t *testing.T) {
	tl := Tool(nil, Options{}) // no call gets as far as a server
	for in, want := range map[string]string{
		`{"action":"referencs","file":"a.go"}`:      `lsp has no action "referencs" (did you mean "references"?); it has diagnostics, definition, type_definition, implementation, references, hover, symbols, code_actions, status and reload.`,
		`{"action":"hover","file":"a.go","line":3}`: `lsp hover needs the "symbol" as written on line 3; positions are never guessed.`,
		`{"action":"symbols"}`:                      `lsp symbols needs a "query" (workspace search) or a "file" (its symbols).`,
	} {
		if _, msg := tl.Decode(tool.Env{Cwd: t.TempDir()}, json.RawMessage(in)); msg != want {
			t.Errorf("%s:\n got %q\nwant %q", in, msg, want)
		}
	}
}
