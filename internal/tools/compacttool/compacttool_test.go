package compacttool

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

type fake struct{ focus []string }

func (f *fake) RequestCompaction(focus string) { f.focus = append(f.focus, focus) }

func TestCompactAsksForACompaction(t *testing.T) {
	f := &fake{}
	tl := Tool(f)
	if tl.Level() != tool.LevelRead || tl.Name() != "compact" {
		t.Fatalf("%s %v", tl.Name(), tl.Level())
	}
	inv, msg := tl.Decode(tool.Env{}, json.RawMessage(`{"focus":"the parser bug"}`))
	if msg != "" {
		t.Fatal(msg)
	}
	if r := inv.Run(context.Background()); r.IsError || len(f.focus) != 1 || f.focus[0] != "the parser bug" {
		t.Fatalf("%+v %v", r, f.focus)
	}
	if _, msg := tl.Decode(tool.Env{}, json.RawMessage(`{"focus":3}`)); msg == "" {
		t.Fatal("a wrong type was accepted")
	}
}
