package kernel

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
)

// A cell that runs past its budget inside the sandbox is interrupted in the cell (the
// interrupt goes through the protocol, not as a signal to a pid outside the sandbox),
// and the kernel keeps its variables.
func TestInterruptInTheSandboxKeepsTheKernel(t *testing.T) {
	if b, why := contain.SandboxStatus(); b == contain.BackendNone {
		t.Skip("no sandbox here: " + why)
	}
	for _, c := range []struct{ lang, set, spin, get string }{
		{"python", "x = 41", "while True: pass", "x + 1"},
		{"python", "y = 41", "import time\ntime.sleep(600)", "y + 1"},
		{"javascript", "var x = 41", "while (true) {}", "x + 1"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			dir := t.TempDir()
			k, err := Start(context.Background(), Options{Language: c.lang, Interpreter: needInterpreter(t, c.lang), Dir: dir,
				Policy: &contain.Policy{Sandbox: func() *contain.Sandbox { return &contain.Sandbox{Writable: []string{dir}} }}})
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			run(t, k, c.set)
			cell, err := k.Run(context.Background(), c.spin, RunOptions{Idle: 500 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if cell.Status != "interrupted" && cell.Status != "error" || cell.Interrupted == "" {
				t.Fatalf("the spinning cell ended %q (%q): %s", cell.Status, cell.Interrupted, text(cell))
			}
			if got := text(run(t, k, c.get)); !strings.Contains(got, "[text]42") {
				t.Errorf("after the interrupt %s gave %q: the kernel lost its variables", c.get, got)
			}
		})
	}
}
