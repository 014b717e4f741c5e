package tea

// Tests of gantry's patch (GANTRY.md): the renderer ticks only while there is
// something to draw.

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// countingRenderer records what the renderer loop asks of it.
type countingRenderer struct {
	nilRenderer
	mu      sync.Mutex
	view    string   // the last view given to render
	drawn   []string // the view at each flush
	flushed chan string
}

func (r *countingRenderer) render(v View) {
	r.mu.Lock()
	r.view = v.Content
	r.mu.Unlock()
}

func (r *countingRenderer) flush(closing bool) error {
	if closing {
		return nil
	}
	r.mu.Lock()
	r.drawn = append(r.drawn, r.view)
	v := r.view
	r.mu.Unlock()
	select {
	case r.flushed <- v:
	default:
	}
	return nil
}

func (r *countingRenderer) flushes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.drawn)
}

type textModel string

type setText string

func (m textModel) Init() Cmd { return nil }

func (m textModel) Update(msg Msg) (Model, Cmd) {
	if s, ok := msg.(setText); ok {
		return textModel(s), nil
	}
	return m, nil
}

func (m textModel) View() View { return NewView(string(m)) }

// waitDrawn waits until a flush draws want.
func waitDrawn(t *testing.T, r *countingRenderer, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case v := <-r.flushed:
			if v == want {
				return
			}
		case <-deadline:
			t.Fatalf("%q never drawn (%d flushes)", want, r.flushes())
		}
	}
}

func TestRendererSleepsWhileIdle(t *testing.T) {
	r := &countingRenderer{flushed: make(chan string, 64)}
	var in, out bytes.Buffer
	p := NewProgram(textModel("first"), WithInput(&in), WithOutput(&out), WithWindowSize(80, 24), WithFPS(60))
	p.renderer = r
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()

	waitDrawn(t, r, "first")
	// Idle: at 60 fps an always-running ticker would flush about 24 times in 400 ms;
	// this renderer flushes at most once more (the tick that finds nothing new) and
	// then sleeps.
	time.Sleep(400 * time.Millisecond)
	if n := r.flushes(); n > 3 {
		t.Errorf("%d flushes while idle: the renderer keeps ticking", n)
	}

	// A change after an idle stretch is drawn, and so is the last of a burst.
	p.Send(setText("second"))
	waitDrawn(t, r, "second")
	for i := range 50 {
		p.Send(setText("burst " + string(rune('a'+i%26))))
	}
	p.Send(setText("last"))
	waitDrawn(t, r, "last")
	before := r.flushes()
	time.Sleep(400 * time.Millisecond)
	if n := r.flushes() - before; n > 2 {
		t.Errorf("%d flushes after the burst ended: the renderer keeps ticking", n)
	}

	// A restarted renderer (after ReleaseTerminal/RestoreTerminal, as around an
	// external editor) draws again.
	if err := p.ReleaseTerminal(); err != nil {
		t.Fatal(err)
	}
	if err := p.RestoreTerminal(); err != nil {
		t.Fatal(err)
	}
	p.Send(setText("after restore"))
	waitDrawn(t, r, "after restore")

	p.Quit()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
