package hook

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// rewakes collects what a Runner's asyncRewake hooks said.
type rewakes struct {
	mu  sync.Mutex
	got []Rewake
}

func (w *rewakes) add(r Rewake) {
	w.mu.Lock()
	w.got = append(w.got, r)
	w.mu.Unlock()
}

func (w *rewakes) texts() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, r := range w.got {
		out = append(out, r.Text)
	}
	slices.Sort(out)
	return out
}

// rewakeHook is an asyncRewake command hook.
func rewakeHook(command string) config.Hook {
	return config.Hook{Type: "command", Command: command, Async: true, AsyncRewake: true}
}

// Only an exit status of 2 wakes the model, with the hook's stderr, or its stdout
// when stderr is empty; exit 0 and exit 1 wake nothing, whatever they write. The
// event does not wait for the hooks: Run returns while they are held on a FIFO.
func TestRewakeExitStatus(t *testing.T) {
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	if err := mkfifo(gate); err != nil {
		t.Fatal(err)
	}
	w := &rewakes{}
	b := base(dir)
	b.Rewake = w.add
	r := NewRunner(hooks(PostToolUse, "", rewakeHook(`cat >/dev/null; read x < gate; echo "lint failed: $x" >&2; echo ignored; exit 2`),
		rewakeHook(`cat >/dev/null; echo "from stdout"; exit 2`),
		rewakeHook(`cat >/dev/null; echo "all fine" >&2; exit 0`),
		rewakeHook(`cat >/dev/null; echo "broken" >&2; exit 1`)), b)
	o := r.Run(context.Background(), PostToolUse, "bash", map[string]any{"tool_name": "bash"})
	if o.Block || len(o.Warnings) > 0 {
		t.Errorf("the event was decided by async hooks: %+v", o)
	}
	if err := os.WriteFile(gate, []byte("a.go\n"), 0o600); err != nil { // the first hook still runs: it reads this
		t.Fatal(err)
	}
	testenv.Wait(t, &r.bg.wg, testenv.Bound, "the async hooks") // every hook ends by itself
	r.Close()
	want := []string{"from stdout", "lint failed: a.go"}
	if got := w.texts(); !slices.Equal(got, want) {
		t.Errorf("the model was woken with %q, want %q", got, want)
	}
	for _, rw := range w.got {
		if rw.Event != PostToolUse || rw.Hook == "" {
			t.Errorf("rewake %+v", rw)
		}
	}
}

// Close stops an asyncRewake hook that still runs, and it wakes nothing though it
// would have exited 2.
func TestRewakeStoppedByClose(t *testing.T) {
	dir := t.TempDir()
	if err := mkfifo(filepath.Join(dir, "never")); err != nil {
		t.Fatal(err)
	}
	w := &rewakes{}
	b := base(dir)
	b.Rewake = w.add
	r := NewRunner(hooks(PostToolUse, "", rewakeHook(`cat >/dev/null; echo $$ > started; read x < never; echo woke >&2; exit 2`)), b)
	r.Run(context.Background(), PostToolUse, "bash", map[string]any{"tool_name": "bash"})
	waitFor(t, "the hook to start", func() bool { return fileExists(filepath.Join(dir, "started")) })
	r.Close()
	if got := w.texts(); len(got) > 0 {
		t.Errorf("a stopped hook woke the model with %q", got)
	}
	assertGroupGone(t, filepath.Join(dir, "started"))
}
